//! A revision's files written into a private temporary directory, so that Kustomize can build
//! the revision's units as it builds the working tree's.
//!
//! Kustomize reads the file system, so the side of `kvlint diff` read from git needs the files
//! a unit's build reads on disk: its kustomizations, resources, patches and generator inputs,
//! anywhere in the repository. Every regular file of the revision's tree is written (the
//! closure of a kustomization cannot be known before its kustomizations are read, and its
//! generator inputs have any name), within [`Budget`]; a revision over the budget is checked
//! with its units off, as before.
//!
//! The tree is not trusted. Its paths are [`RepoPath`]s (no `..`, no absolute path, no `.git`);
//! each file is created new (`create_new`) in a directory kvlint just made, where no link can
//! exist because none is ever written: symbolic links and submodules of the revision are left
//! out, as are names that clash (the same name twice, a file and a directory of one name,
//! names that differ only in case on a case-insensitive file system). Blobs are read as stored
//! with `git cat-file --batch` (no filter, see the parent module), a batch at a time.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::Revision;
use super::blobs::{self, Wanted};
use super::listing::{Entry, Kind, RepoPath};
use crate::error::{Error, GitCause};
use crate::source::Input;

/// Bounds on what a revision may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub max_files: usize,
    pub max_bytes: u64,
}

impl Budget {
    /// 200,000 files and 1 GiB: a large GitOps repository, not a monorepo of binaries.
    pub const DEFAULT: Self = Self {
        max_files: 200_000,
        max_bytes: 1 << 30,
    };
}

/// Blobs read per `git cat-file` run, by total size.
const BATCH_BYTES: u64 = 64 << 20;

/// A revision written to disk; the directory is removed when this is dropped.
#[derive(Debug)]
pub struct Materialised {
    /// Removed on drop.
    _dir: tempfile::TempDir,
    /// The directory, resolved (as Kustomize and the units stage see it).
    root: PathBuf,
}

/// Why a revision was not written.
#[derive(Debug, PartialEq, Eq)]
pub enum NotWritten {
    /// The revision is larger than the budget.
    TooLarge {
        files: usize,
        bytes: u64,
        budget: Budget,
    },
    /// No private temporary directory could be made.
    NoDirectory(String),
}

impl std::fmt::Display for NotWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge {
                files,
                bytes,
                budget,
            } => write!(
                f,
                "it holds {files} files of {bytes} bytes, more than the {} files and {} bytes kvlint writes out to build its units",
                budget.max_files, budget.max_bytes
            ),
            Self::NoDirectory(problem) => {
                write!(f, "cannot create a temporary directory ({problem})")
            }
        }
    }
}

impl Materialised {
    /// The top level of the written tree.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file a revision's file is written to.
    fn path_of(&self, path: &RepoPath) -> PathBuf {
        self.root.join(path.as_path())
    }
}

impl Revision {
    /// Writes the revision's regular files into a new private temporary directory.
    pub fn materialise(&self, budget: Budget) -> Result<Result<Materialised, NotWritten>, Error> {
        let entries = self.list(&RepoPath::top(), true, |entry| {
            entry.kind == Kind::File
                && entry
                    .size
                    .is_some_and(|size| crate::source::check_size(size).is_ok())
        })?;
        let bytes: u64 = entries.iter().filter_map(|e| e.size).sum();
        if entries.len() > budget.max_files || bytes > budget.max_bytes {
            return Ok(Err(NotWritten::TooLarge {
                files: entries.len(),
                bytes,
                budget,
            }));
        }
        let dir = match tempfile::Builder::new()
            .prefix("kvlint-revision-")
            .tempdir()
        {
            Ok(dir) => dir,
            Err(err) => return Ok(Err(NotWritten::NoDirectory(err.to_string()))),
        };
        let root = match std::fs::canonicalize(dir.path()) {
            Ok(root) => root,
            Err(err) => return Ok(Err(NotWritten::NoDirectory(err.to_string()))),
        };
        let written = Materialised { _dir: dir, root };
        for batch in batches(&entries, BATCH_BYTES) {
            let wanted: Vec<Wanted> = batch
                .iter()
                .map(|entry| Wanted {
                    object: entry.object.clone(),
                    size: entry.size.unwrap_or_default(),
                })
                .collect();
            let contents = blobs::read(&self.toplevel, &wanted)
                .map_err(|cause| self.failed(GitCause::Answer(Box::new(cause))))?;
            for (entry, content) in batch.iter().zip(contents) {
                // A name that clashes with one written before is left out (see the module).
                let _ = write_new(&written.path_of(&entry.path), &content);
            }
        }
        Ok(Ok(written))
    }

    /// The side's inputs as files of `tree`, named by their paths there (as the units stage
    /// names the files it builds); inputs that are not the revision's files stay as they are.
    pub fn inputs_in(&self, tree: &Materialised, inputs: &[Input]) -> Vec<Input> {
        inputs
            .iter()
            .map(|input| match input {
                Input::Memory { display, .. } => match self.repository_path(display) {
                    Some(path) => {
                        let path = tree.path_of(&path);
                        Input::File {
                            display: crate::source::display_path(&path),
                            path,
                        }
                    }
                    None => input.clone(),
                },
                other => other.clone(),
            })
            .collect()
    }

    /// How the files of `tree` are renamed back to the working tree's names: each pair is a
    /// prefix and its replacement, the longer first.
    pub fn names_in(&self, tree: &Materialised) -> Vec<(String, String)> {
        let root = crate::source::display_path(tree.root()).to_string();
        let top = crate::source::display_path(&self.toplevel);
        let top = top.trim_end_matches('/');
        if self.prefix.as_os_str().is_empty() {
            return vec![(format!("{root}/"), String::new())];
        }
        let below = crate::source::display_path(&tree.root().join(&self.prefix));
        vec![
            (format!("{}/", below.trim_end_matches('/')), String::new()),
            (format!("{root}/"), format!("{top}/")),
        ]
    }

    /// The repository path of a file the revision's walk named `display` (see
    /// `working_tree_name`).
    fn repository_path(&self, display: &str) -> Option<RepoPath> {
        let path = Path::new(display);
        if path.is_absolute() {
            return super::listing::normalise(path.strip_prefix(&self.toplevel).ok()?);
        }
        super::listing::normalise(&self.prefix.join(path))
    }
}

/// Consecutive runs of `entries` of at most `limit` bytes each (a larger entry alone).
fn batches(entries: &[Entry], limit: u64) -> Vec<&[Entry]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (n, entry) in entries.iter().enumerate() {
        let size = entry.size.unwrap_or_default();
        if n > start && bytes + size > limit {
            out.push(&entries[start..n]);
            start = n;
            bytes = 0;
        }
        bytes += size;
    }
    if start < entries.len() {
        out.push(&entries[start..]);
    }
    out
}

/// Creates `path` and the directories above it, never opening an existing file.
fn write_new(path: &Path, content: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(size: u64) -> Entry {
        Entry {
            kind: Kind::File,
            object: String::new(),
            size: Some(size),
            path: RepoPath::top(),
        }
    }

    #[test]
    fn batches_stay_under_the_limit() {
        let entries = [entry(5), entry(5), entry(20), entry(1), entry(1)];
        let sizes: Vec<usize> = batches(&entries, 10).iter().map(|b| b.len()).collect();
        assert_eq!(sizes, [2, 1, 2]);
        assert!(batches(&[], 10).is_empty());
    }

    #[test]
    fn an_existing_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b.yaml");
        write_new(&path, b"first").unwrap();
        assert!(write_new(&path, b"second").is_err());
        assert!(write_new(&path.join("c.yaml"), b"below a file").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
    }

    fn git(dir: &Path, args: &[&str]) {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    }

    #[test]
    fn the_revision_is_written_within_the_budget() {
        let repo = tempfile::tempdir().unwrap();
        git(repo.path(), &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(repo.path().join("apps/base")).unwrap();
        std::fs::write(repo.path().join("apps/base/vm.yaml"), "a: 1\n").unwrap();
        std::fs::write(repo.path().join("apps/base/user-data"), "#cloud-config\n").unwrap();
        git(repo.path(), &["add", "."]);
        git(repo.path(), &["commit", "-q", "-m", "one"]);
        std::fs::write(repo.path().join("apps/base/vm.yaml"), "a: 2\n").unwrap();
        let revision = super::super::resolve_in(&repo.path().join("apps"), "HEAD").unwrap();

        let small = Budget {
            max_files: 1,
            max_bytes: 1 << 20,
        };
        let refused = revision.materialise(small).unwrap().unwrap_err();
        assert_eq!(
            refused,
            NotWritten::TooLarge {
                files: 2,
                bytes: 19,
                budget: small
            }
        );

        let tree = revision.materialise(Budget::DEFAULT).unwrap().unwrap();
        let root = tree.root().to_path_buf();
        // The revision's content, not the working tree's; any file name is written.
        assert_eq!(
            std::fs::read_to_string(root.join("apps/base/vm.yaml")).unwrap(),
            "a: 1\n"
        );
        assert!(root.join("apps/base/user-data").is_file());
        // Named back as the working tree names them from `apps`.
        let pairs = revision.names_in(&tree);
        let shown = crate::source::display_path(&root.join("apps/base/vm.yaml"));
        let renamed = pairs.iter().find_map(|(from, to)| {
            shown
                .strip_prefix(from.as_str())
                .map(|r| format!("{to}{r}"))
        });
        assert_eq!(renamed.as_deref(), Some("base/vm.yaml"));
        drop(tree);
        assert!(!root.exists(), "the tree is removed");
    }
}
