//! Running git on the scanned repository without starting any program it configures.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::error::Error;

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
pub(super) fn git_command(dir: &Path) -> Command {
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

pub(super) fn spawn_error(err: &std::io::Error) -> Error {
    if err.kind() == std::io::ErrorKind::NotFound {
        Error::Io(
            "git is not installed or not on PATH; --base and --head read revisions with it"
                .to_owned(),
        )
    } else {
        Error::Io(format!("cannot run git: {err}"))
    }
}

/// Runs git to completion (for commands with short output).
pub(super) fn git(dir: &Path, args: &[&std::ffi::OsStr]) -> Result<Output, Error> {
    git_command(dir)
        .args(args)
        .output()
        .map_err(|err| spawn_error(&err))
}

pub(super) fn stdout_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

pub(super) fn stderr_text(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if text.is_empty() {
        format!("git exited with {}", output.status)
    } else {
        text
    }
}
