//! The git repository a path lies in, and the files git tracks although an ignore rule
//! matches them (`git add -f`): git's ignore rules apply to untracked files only, so kvlint
//! checks these as well. Without git, or outside a work tree, there are none to add (the
//! ignore rules then apply to every file).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The root of the git work tree `path` lies in (the nearest directory holding `.git`, a
/// directory or, in a worktree or submodule, a file), resolved.
pub fn repository_root(path: &Path) -> Option<PathBuf> {
    let path = std::fs::canonicalize(path).ok()?;
    path.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The tracked files below the directory `root` that git's ignore rules match, as paths that
/// start with `root`.
pub(super) fn ignored_but_tracked(root: &Path) -> Vec<PathBuf> {
    if repository_root(root).is_none() {
        return Vec::new();
    }
    let output = Command::new("git")
        // Nothing the repository configures may start a program.
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .arg("-C")
        .arg(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--ignored",
            "--exclude-standard",
            "--",
            ".",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    // Without --full-name the names are relative to `root`, below it (the pathspec is `.`).
    output
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .filter_map(|name| std::str::from_utf8(name).ok())
        .map(|name| root.join(name))
        .collect()
}
