//! Running git on the scanned repository without starting any program it configures.

use std::path::Path;
use std::process::Output;

use crate::error::{Error, GitError};
pub(super) use crate::source::git_command;

pub(super) fn spawn_error(err: std::io::Error) -> Error {
    if err.kind() == std::io::ErrorKind::NotFound {
        Error::Git(GitError::NotInstalled)
    } else {
        Error::system("cannot run git", err)
    }
}

/// Runs git to completion (for commands with short output).
pub(super) fn git(dir: &Path, args: &[&std::ffi::OsStr]) -> Result<Output, Error> {
    git_command(dir).args(args).output().map_err(spawn_error)
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
