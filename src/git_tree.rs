//! A revision of the git repository around a directory, as plain files, for `kvlint diff --base`
//! and `--head`.
//!
//! The revision's files are listed with `git ls-tree` and read with `git cat-file --batch` into
//! a temporary directory. The working tree, the index, HEAD and the refs stay untouched, no
//! worktree is registered, and unlike `git archive` the `export-ignore` and `export-subst`
//! attributes do not change what is read. Git runs as a child process; the directory is deleted
//! when the [`Tree`] is dropped.
//!
//! The scanned repository is not trusted: its `.git/config` and `.gitattributes` can name
//! programs (`core.fsmonitor`, hooks, `filter.*.smudge`, diff and textconv drivers). kvlint only
//! runs plumbing commands that start none of them: no checkout (which runs smudge filters and
//! hooks), no status or diff (which run the fsmonitor and diff drivers), and `cat-file` without
//! `--filters` or `--textconv`. The configuration that could still apply is overridden on the
//! command line, and a partial clone's lazy fetch (which would run a configured transport) is
//! turned off.

use std::io::{BufRead, BufReader, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::error::Error;

/// The files of one revision in a temporary directory, deleted on drop.
#[derive(Debug)]
pub struct Tree {
    /// Holds the files (`tree/`).
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

/// Settings that would make git start a program, overridden whatever the repository configures.
const NO_PROGRAMS: [&str; 6] = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
];

fn git_command(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .args(NO_PROGRAMS)
        .arg("-C")
        .arg(dir)
        .stdin(Stdio::null())
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        // A partial clone fetches missing blobs from its promisor remote, whose transport
        // (`core.sshCommand`, `remote.*.uploadpack`) the repository configures: no fetching, and
        // no transport allowed (`none` names no protocol).
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_ALLOW_PROTOCOL", "none")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_PAGER")
        .env_remove("GIT_INDEX_FILE");
    command
}

fn spawn_error(err: &std::io::Error) -> Error {
    if err.kind() == std::io::ErrorKind::NotFound {
        Error::Io(
            "git is not installed or not on PATH; --base and --head read revisions with it"
                .to_owned(),
        )
    } else {
        Error::Io(format!("cannot run git: {err}"))
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Output, Error> {
    git_command(dir)
        .args(args)
        .output()
        .map_err(|err| spawn_error(&err))
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
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    if !top.status.success() {
        return Err(Error::Usage(format!(
            "{} is not inside a git repository ({}); --base and --head need one",
            dir.display(),
            stderr_text(&top)
        )));
    }
    let toplevel = PathBuf::from(stdout_line(&top));
    let prefix = git(dir, &["rev-parse", "--show-prefix"])?;
    let prefix = PathBuf::from(stdout_line(&prefix));
    let spec = format!("{revision}^{{commit}}");
    let resolved = git(dir, &["rev-parse", "--verify", "--quiet", &spec])?;
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
    write_files(&toplevel, &commit, &root)
        .map_err(|err| Error::Io(format!("cannot read {revision} ({commit}): {err}")))?;
    Ok(Tree {
        _dir: temp,
        root,
        revision: revision.to_owned(),
        commit,
        prefix,
        toplevel,
    })
}

/// One file of a revision, from `git ls-tree`.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    symlink: bool,
    object: String,
    path: PathBuf,
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The files and symlinks of `git ls-tree -r -z` output (`<mode> <type> <object>\t<path>\0`).
/// Submodules are left out, and so are paths that would leave the tree or enter a `.git`.
fn parse_ls_tree(listing: &[u8]) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for record in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let tab = record
            .iter()
            .position(|&b| b == b'\t')
            .ok_or("unexpected git ls-tree output")?;
        let head = String::from_utf8_lossy(&record[..tab]);
        let mut fields = head.split(' ');
        let (Some(mode), Some(kind), Some(object)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("unexpected git ls-tree line `{head}`"));
        };
        if kind != "blob" {
            continue;
        }
        let path = path_from_bytes(&record[tab + 1..]);
        let safe = path
            .components()
            .all(|c| matches!(c, Component::Normal(part) if part != ".git"));
        if !safe {
            continue;
        }
        entries.push(Entry {
            symlink: mode == "120000",
            object: object.to_owned(),
            path,
        });
    }
    Ok(entries)
}

/// Writes the files of `commit` under `root`, reading the blobs as stored (no filter runs).
fn write_files(toplevel: &Path, commit: &str, root: &Path) -> Result<(), String> {
    let listing = git(toplevel, &["ls-tree", "-r", "-z", "--full-tree", commit])
        .map_err(|err| err.to_string())?;
    if !listing.status.success() {
        return Err(stderr_text(&listing));
    }
    let entries = parse_ls_tree(&listing.stdout)?;
    let mut child = git_command(toplevel)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| spawn_error(&err).to_string())?;
    let mut stdin = child.stdin.take().ok_or("git cat-file has no input")?;
    let objects: Vec<String> = entries.iter().map(|e| format!("{}\n", e.object)).collect();
    // Written from a thread: git answers while it reads, and both pipes have limited buffers.
    let feeder = std::thread::spawn(move || -> std::io::Result<()> {
        for object in objects {
            stdin.write_all(object.as_bytes())?;
        }
        Ok(())
    });
    let stdout = child.stdout.take().ok_or("git cat-file has no output")?;
    let written = read_blobs(&mut BufReader::new(stdout), &entries, root);
    let fed = feeder.join();
    let status = child.wait_with_output().map_err(|err| err.to_string())?;
    written?;
    match fed {
        Ok(Ok(())) if status.status.success() => Ok(()),
        _ => Err(stderr_text(&status)),
    }
}

fn read_blobs(reader: &mut impl BufRead, entries: &[Entry], root: &Path) -> Result<(), String> {
    let mut header = String::new();
    for entry in entries {
        header.clear();
        reader
            .read_line(&mut header)
            .map_err(|err| err.to_string())?;
        let size: usize = header
            .trim_end()
            .rsplit(' ')
            .next()
            .and_then(|size| size.parse().ok())
            .ok_or_else(|| format!("unexpected git cat-file answer `{}`", header.trim_end()))?;
        let mut content = vec![0; size + 1];
        reader
            .read_exact(&mut content)
            .map_err(|err| err.to_string())?;
        content.truncate(size);
        let path = root.join(&entry.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|err| format!("{}: {err}", parent.display()))?;
        }
        if entry.symlink {
            link(&content, &path)?;
        } else {
            std::fs::write(&path, &content).map_err(|err| format!("{}: {err}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn link(target: &[u8], path: &Path) -> Result<(), String> {
    std::os::unix::fs::symlink(path_from_bytes(target), path)
        .map_err(|err| format!("{}: {err}", path.display()))
}

/// Symbolic links need privileges on Windows; like `core.symlinks=false`, the link is then a
/// file holding its target.
#[cfg(not(unix))]
fn link(target: &[u8], path: &Path) -> Result<(), String> {
    std::fs::write(path, target).map_err(|err| format!("{}: {err}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=kvlint test",
                "-c",
                "user.email=test@example.invalid",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
    }

    fn repository() -> tempfile::TempDir {
        let repo = tempfile::tempdir().unwrap();
        run(repo.path(), &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(repo.path().join("apps/vms")).unwrap();
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "first\n").unwrap();
        std::fs::write(repo.path().join(".gitattributes"), "*.yaml export-ignore\n").unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "one"]);
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "second\n").unwrap();
        std::fs::write(repo.path().join("apps/vms/b.yaml"), "new\n").unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "two"]);
        // Uncommitted and staged edits must survive untouched.
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "third\n").unwrap();
        run(repo.path(), &["add", "apps/vms/a.yaml"]);
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "fourth\n").unwrap();
        repo
    }

    /// A program that records that it ran, passing its input through (as a filter must).
    #[cfg(unix)]
    fn trap(dir: &Path, marker: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("trap.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\ncat\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[cfg(unix)]
    #[test]
    fn never_runs_programs_the_repository_configures() {
        let repo = repository();
        std::fs::write(
            repo.path().join(".gitattributes"),
            "*.yaml filter=evil diff=evil\n",
        )
        .unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "attributes"]);

        let outside = tempfile::tempdir().unwrap();
        let marker = outside.path().join("ran");
        let script = trap(outside.path(), &marker);
        let script = script.to_str().unwrap();
        let hooks = repo.path().join(".git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        for hook in [
            "post-checkout",
            "post-index-change",
            "reference-transaction",
        ] {
            std::fs::copy(script, hooks.join(hook)).unwrap();
        }
        for (key, value) in [
            ("core.fsmonitor", script),
            ("core.hooksPath", hooks.to_str().unwrap()),
            ("filter.evil.smudge", script),
            ("filter.evil.clean", script),
            ("filter.evil.process", script),
            ("filter.evil.required", "true"),
            ("diff.evil.textconv", script),
            ("diff.evil.command", script),
            ("core.pager", script),
            ("core.alternateRefsCommand", script),
        ] {
            run(repo.path(), &["config", key, value]);
        }

        let tree = materialise_in(repo.path(), "HEAD~1").unwrap();
        assert_eq!(
            std::fs::read_to_string(tree.root().join("apps/vms/b.yaml")).unwrap(),
            "new\n",
            "the blob as stored, no filter"
        );
        let tree = materialise_in(repo.path(), "HEAD").unwrap();
        assert!(tree.root().join("apps/vms/a.yaml").is_file());
        assert!(
            !marker.exists(),
            "kvlint made git run {}",
            std::fs::read_to_string(&marker).unwrap_or_default()
        );

        // The traps are armed: ordinary porcelain commands do run them.
        let _ = Command::new("git")
            .arg("-C")
            .arg(repo.path())
            .args(["checkout-index", "--all", "--force", "--prefix=copy/"])
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(marker.exists(), "checkout-index runs the smudge filter");
    }

    #[test]
    fn submodules_and_paths_into_git_directories_are_left_out() {
        let listing = b"100644 blob aaaa\tapps/vm.yaml\0\
120000 blob bbbb\tapps/link.yaml\0\
160000 commit cccc\tvendor/sub\0\
100644 blob dddd\tsub/.git/config\0";
        let entries = parse_ls_tree(listing).unwrap();
        assert_eq!(
            entries,
            [
                Entry {
                    symlink: false,
                    object: "aaaa".to_owned(),
                    path: PathBuf::from("apps/vm.yaml"),
                },
                Entry {
                    symlink: true,
                    object: "bbbb".to_owned(),
                    path: PathBuf::from("apps/link.yaml"),
                },
            ]
        );
    }
}
