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
    let output = git_command(root)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--ignored",
            "--exclude-standard",
            "--",
            ".",
        ])
        .stderr(Stdio::null())
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

/// Settings that would make git start a program, overridden whatever the repository configures.
const NO_PROGRAMS: [&str; 6] = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
];

/// `git -C dir` with the overrides and an environment that starts no program and fetches
/// nothing.
pub(crate) fn git_command(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .args(NO_PROGRAMS)
        .arg("-C")
        .arg(dir)
        .stdin(Stdio::null())
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        // Paths are passed as written: no `:(glob)` or other pathspec magic from a name.
        .env("GIT_LITERAL_PATHSPECS", "1")
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
