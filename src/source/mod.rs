//! Finding and reading the input: directories (sorted, honouring .gitignore inside a git
//! repository, as git does), files and stdin; and writing files safely (`write`).

mod given;
mod read;
mod repo;
pub mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::error::Error;
use given::Given;
pub use given::lexical_absolute;
pub(crate) use read::special_kind;
pub use read::{
    MAX_FILE_BYTES, ReadProblem, check_size, decode, read_file_bytes, read_file_text,
    read_given_text,
};
pub(crate) use repo::git_command;
pub use repo::repository_root;

/// The configuration file, which the walk does not take for a manifest.
pub const FILE_NAME: &str = ".kvlint.yaml";
/// The names the configuration file may have in a directory, in the order they are looked for.
pub const FILE_NAMES: [&str; 2] = [FILE_NAME, ".kvlint.yml"];
/// The baseline file the README names (`check --write-baseline .kvlint-baseline.json`): kvlint's
/// own output, which the walk does not take for a manifest either.
pub const BASELINE_FILE_NAME: &str = ".kvlint-baseline.json";

/// A file read into memory: its display name and its bytes.
pub type NamedBytes = (Arc<str>, Arc<[u8]>);

/// Where a source text came from.
#[derive(Clone, Debug)]
pub enum Input {
    File {
        path: PathBuf,
        display: Arc<str>,
    },
    Stdin {
        display: Arc<str>,
    },
    /// Bytes already in memory (the fuzz targets' one-file repository).
    Memory {
        display: Arc<str>,
        bytes: Arc<[u8]>,
    },
    /// A given path kvlint does not read (a symlink out of the working directory, a FIFO, a
    /// device): reported as unreadable.
    Refused {
        display: Arc<str>,
        problem: ReadProblem,
    },
}

impl Input {
    pub fn display(&self) -> &Arc<str> {
        match self {
            Self::File { display, .. }
            | Self::Stdin { display }
            | Self::Memory { display, .. }
            | Self::Refused { display, .. } => display,
        }
    }
}

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub paths: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub stdin_filename: Option<String>,
}

pub(crate) fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, Error> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern)
            .map_err(|err| Error::Usage(format!("invalid glob {pattern:?}: {err}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map(Some)
        .map_err(|err| Error::Usage(format!("invalid globs: {err}")))
}

pub(crate) fn is_manifest_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
}

pub(crate) fn display_path(path: &Path) -> Arc<str> {
    let text = path.to_string_lossy();
    let text = text.strip_prefix("./").unwrap_or(&text);
    Arc::from(text.replace('\\', "/"))
}

/// Bounds on a directory walk (the catalog's): past one, the walk is an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkLimits {
    /// Directory levels below the given path.
    pub max_depth: usize,
    /// Entries of any kind visited.
    pub max_entries: usize,
    /// Manifest files listed.
    pub max_files: usize,
    /// Total size of the manifest files listed.
    pub max_bytes: u64,
}

/// Lists the inputs in a stable order: the paths as given, each directory walked in sorted
/// order. A path that does not exist is a usage error (exit 2).
pub fn discover(selection: &Selection) -> Result<Vec<Input>, Error> {
    discover_within(selection, None)
}

/// Like [`discover`], with every directory walk bounded by `limits`.
pub fn discover_bounded(selection: &Selection, limits: WalkLimits) -> Result<Vec<Input>, Error> {
    discover_within(selection, Some(limits))
}

/// Filters of a walk: the manifest names `--include`/`--exclude` select.
struct Filters {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Filters {
    fn selects(&self, root: &Path, path: &Path) -> bool {
        let configuration = path.file_name().is_some_and(|name| {
            FILE_NAMES
                .iter()
                .chain([&BASELINE_FILE_NAME])
                .any(|f| name == *f)
        });
        if !is_manifest_name(path) || configuration {
            return false;
        }
        let relative = path.strip_prefix(root).unwrap_or(path);
        let matches = |set: &GlobSet| set.is_match(relative) || set.is_match(path);
        !self.exclude.as_ref().is_some_and(matches) && self.include.as_ref().is_none_or(matches)
    }
}

fn discover_within(selection: &Selection, limits: Option<WalkLimits>) -> Result<Vec<Input>, Error> {
    let filters = Filters {
        include: glob_set(&selection.include)?,
        exclude: glob_set(&selection.exclude)?,
    };
    let mut inputs = Vec::new();
    let paths = if selection.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        selection.paths.clone()
    };
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|err| Error::system("the working directory", err))?;
    for root in &paths {
        if root.as_os_str() == "-" {
            let name = selection.stdin_filename.as_deref().unwrap_or("<stdin>");
            inputs.push(Input::Stdin {
                display: Arc::from(name),
            });
            continue;
        }
        match given::classify(root, &cwd)? {
            Given::File(path) => inputs.push(Input::File {
                path,
                display: display_path(root),
            }),
            Given::Refused(problem) => inputs.push(Input::Refused {
                display: display_path(root),
                problem,
            }),
            Given::Directory => walk(root, &filters, limits, &mut inputs)?,
        }
    }
    Ok(inputs)
}

/// Walks a directory in sorted order, without following symlinks. `.gitignore` (and git's
/// other exclude files) apply only inside a git repository and only up to its root, as in git;
/// files git tracks are listed even when an ignore rule matches them.
fn walk(
    root: &Path,
    filters: &Filters,
    limits: Option<WalkLimits>,
    inputs: &mut Vec<Input>,
) -> Result<(), Error> {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .ignore(false)
        .require_git(true)
        .follow_links(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(|entry| entry.file_name() != ".git");
    if let Some(limits) = limits {
        // One level more than allowed, to see that the limit is passed.
        builder.max_depth(Some(limits.max_depth + 1));
    }
    let mut budget = limits.map(Budget::new);
    let first = inputs.len();
    let mut listed = std::collections::BTreeSet::new();
    for entry in builder.build() {
        let entry = match entry {
            Ok(entry) => entry,
            // An unreadable directory: reported as an input that fails to read.
            Err(err) => {
                if let Some(path) = walk_error_path(&err) {
                    inputs.push(Input::File {
                        display: display_path(&path),
                        path,
                    });
                }
                continue;
            }
        };
        let is_file = entry.file_type().is_some_and(|t| t.is_file());
        let selected = is_file && filters.selects(root, entry.path());
        if let Some(budget) = &mut budget {
            budget.visit(root, &entry, selected)?;
        }
        if !selected {
            continue;
        }
        listed.insert(entry.path().to_path_buf());
        inputs.push(Input::File {
            path: entry.path().to_path_buf(),
            display: display_path(entry.path()),
        });
    }
    let mut added = false;
    for path in repo::ignored_but_tracked(root) {
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if regular && filters.selects(root, &path) && !listed.contains(&path) {
            inputs.push(Input::File {
                display: display_path(&path),
                path,
            });
            added = true;
        }
    }
    if added {
        // The walk's order: component by component, each directory's entries by name.
        inputs[first..].sort_by(|a, b| walk_path(a).cmp(walk_path(b)));
    }
    Ok(())
}

fn walk_path(input: &Input) -> &Path {
    match input {
        Input::File { path, .. } => path,
        other => Path::new(&**other.display()),
    }
}

/// What a bounded walk has used so far.
struct Budget {
    limits: WalkLimits,
    entries: usize,
    files: usize,
    bytes: u64,
}

impl Budget {
    fn new(limits: WalkLimits) -> Self {
        Self {
            limits,
            entries: 0,
            files: 0,
            bytes: 0,
        }
    }

    fn visit(
        &mut self,
        root: &Path,
        entry: &ignore::DirEntry,
        selected: bool,
    ) -> Result<(), Error> {
        let limits = self.limits;
        let stop = |what: String| {
            Err(Error::Limit(format!(
                "{}: {what}; the walk stopped (at most {} levels, {} entries, {} manifest files, {} MiB)",
                root.display(),
                limits.max_depth,
                limits.max_entries,
                limits.max_files,
                limits.max_bytes >> 20
            )))
        };
        self.entries += 1;
        if entry.depth() > limits.max_depth {
            return stop(format!(
                "{} is nested deeper than {} directories",
                entry.path().display(),
                limits.max_depth
            ));
        }
        if self.entries > limits.max_entries {
            return stop(format!("more than {} entries", limits.max_entries));
        }
        if !selected {
            return Ok(());
        }
        self.files += 1;
        self.bytes += entry.metadata().map_or(0, |m| m.len());
        if self.files > limits.max_files {
            return stop(format!("more than {} manifest files", limits.max_files));
        }
        if self.bytes > limits.max_bytes {
            return stop(format!(
                "more than {} MiB of manifests",
                limits.max_bytes >> 20
            ));
        }
        Ok(())
    }
}

fn walk_error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        _ => None,
    }
}

/// Reads an input as UTF-8 text.
pub fn read(input: &Input) -> Result<String, ReadProblem> {
    let bytes = match input {
        Input::File { path, .. } => read::read_file_bytes(path)?,
        Input::Stdin { .. } => read::read_stdin()?,
        Input::Memory { bytes, .. } => bytes.to_vec(),
        Input::Refused { problem, .. } => return Err(problem.clone()),
    };
    decode(bytes)
}
