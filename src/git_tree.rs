//! A revision of the git repository around a directory, as plain files, for `kvlint diff --base`
//! and `--head`.
//!
//! The revision is read into a fresh, temporary index (`GIT_INDEX_FILE`) and checked out from
//! there into a temporary directory with `git checkout-index --prefix`. The working tree, the
//! repository's own index, HEAD and the refs stay untouched, no worktree is registered, and
//! unlike `git archive` the `export-ignore` and `export-subst` attributes do not change what
//! is read. Git runs as a child process; the directory is deleted when the [`Tree`] is dropped.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::error::Error;

/// The files of one revision in a temporary directory, deleted on drop.
#[derive(Debug)]
pub struct Tree {
    /// Holds the checkout (`tree/`) and the temporary index (`index`).
    _dir: tempfile::TempDir,
    root: PathBuf,
    revision: String,
    commit: String,
    /// The directory the tree was asked for, relative to the repository's top level.
    prefix: PathBuf,
    toplevel: PathBuf,
}

/// Where a path of the working tree lies in a [`Tree`], and how to rename the files read from
/// there so that they carry the working tree's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapped {
    /// The path inside the tree.
    pub path: PathBuf,
    /// Whether the revision has that path.
    pub exists: bool,
    /// The display-name prefix of files read from `path`...
    pub display_from: String,
    /// ...and what it stands for in the working tree.
    pub display_to: String,
}

impl Tree {
    /// The top level of the repository as of the revision.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The revision as given (`main`, `HEAD~1`, a commit hash).
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// The full commit hash the revision resolved to.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// Maps a path given relative to the directory the tree was taken for (or absolute, inside
    /// the repository) to the same path in this revision.
    pub fn map(&self, path: &Path) -> Result<Mapped, Error> {
        let inside = if path.is_absolute() {
            let canonical_top = self
                .toplevel
                .canonicalize()
                .unwrap_or(self.toplevel.clone());
            let relative = path
                .strip_prefix(&self.toplevel)
                .or_else(|_| path.strip_prefix(&canonical_top))
                .map(Path::to_path_buf)
                .or_else(|_| {
                    path.canonicalize()
                        .ok()
                        .and_then(|p| p.strip_prefix(&canonical_top).ok().map(Path::to_path_buf))
                        .ok_or(())
                })
                .map_err(|()| {
                    Error::Usage(format!(
                        "{} is outside the git repository {}",
                        path.display(),
                        self.toplevel.display()
                    ))
                })?;
            normalise(&relative)
        } else {
            normalise(&self.prefix.join(path))
        }
        .ok_or_else(|| {
            Error::Usage(format!(
                "{} is outside the git repository {}",
                path.display(),
                self.toplevel.display()
            ))
        })?;
        let mapped = if inside.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(&inside)
        };
        let mapped_text = display(&mapped);
        let given = display(path);
        let (display_from, display_to) = if given == "." || given.is_empty() {
            (format!("{mapped_text}/"), String::new())
        } else {
            (mapped_text, given.trim_start_matches("./").to_owned())
        };
        Ok(Mapped {
            exists: mapped.exists(),
            path: mapped,
            display_from,
            display_to,
        })
    }
}

fn display(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// Resolves `.` and `..` lexically; `None` when the path climbs above its start.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

fn git(dir: &Path, args: &[&str], index: Option<&Path>) -> Result<Output, Error> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .env_remove("GIT_INDEX_FILE");
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    command.output().map_err(|err| {
        if err.kind() == std::io::ErrorKind::NotFound {
            Error::Io(
                "git is not installed or not on PATH; --base and --head read revisions with it"
                    .to_owned(),
            )
        } else {
            Error::Io(format!("cannot run git: {err}"))
        }
    })
}

fn stdout_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn stderr_text(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if text.is_empty() {
        format!("git exited with {}", output.status)
    } else {
        text
    }
}

/// Writes `revision` of the repository that contains the current directory into a temporary
/// directory.
pub fn materialise(revision: &str) -> Result<Tree, Error> {
    materialise_in(Path::new("."), revision)
}

/// Writes `revision` of the repository that contains `dir` into a temporary directory. Paths
/// given to [`Tree::map`] are then relative to `dir`.
pub fn materialise_in(dir: &Path, revision: &str) -> Result<Tree, Error> {
    if revision.is_empty() || revision.starts_with('-') {
        return Err(Error::Usage(format!("`{revision}` is not a git revision")));
    }
    let top = git(dir, &["rev-parse", "--show-toplevel"], None)?;
    if !top.status.success() {
        return Err(Error::Usage(format!(
            "{} is not inside a git repository ({}); --base and --head need one",
            dir.display(),
            stderr_text(&top)
        )));
    }
    let toplevel = PathBuf::from(stdout_line(&top));
    let prefix = git(dir, &["rev-parse", "--show-prefix"], None)?;
    let prefix = PathBuf::from(stdout_line(&prefix));
    let spec = format!("{revision}^{{commit}}");
    let resolved = git(dir, &["rev-parse", "--verify", "--quiet", &spec], None)?;
    if !resolved.status.success() {
        return Err(Error::Usage(format!(
            "unknown git revision `{revision}` in {}",
            toplevel.display()
        )));
    }
    let commit = stdout_line(&resolved);

    let temp = tempfile::Builder::new()
        .prefix("kvlint-diff-")
        .tempdir()
        .map_err(|err| Error::Io(format!("cannot create a temporary directory: {err}")))?;
    let root = temp.path().join("tree");
    std::fs::create_dir(&root).map_err(|err| Error::Io(format!("{}: {err}", root.display())))?;
    let index = temp.path().join("index");

    let read = git(&toplevel, &["read-tree", &commit], Some(&index))?;
    if !read.status.success() {
        return Err(Error::Io(format!(
            "cannot read {revision} ({commit}): {}",
            stderr_text(&read)
        )));
    }
    let mut prefix_arg = OsString::from("--prefix=");
    prefix_arg.push(root.as_os_str());
    prefix_arg.push("/");
    let prefix_arg = prefix_arg.to_string_lossy().into_owned();
    let checkout = git(
        &toplevel,
        &["checkout-index", "--all", "--force", &prefix_arg],
        Some(&index),
    )?;
    if !checkout.status.success() {
        return Err(Error::Io(format!(
            "cannot write the files of {revision} ({commit}): {}",
            stderr_text(&checkout)
        )));
    }
    Ok(Tree {
        _dir: temp,
        root,
        revision: revision.to_owned(),
        commit,
        prefix,
        toplevel,
    })
}
