//! The files a GitHub pull request changes, so that its annotations go to them first.
//!
//! The event (`$GITHUB_EVENT_PATH`) names the pull request's base and head commits; the changed
//! files are those of `git diff base...head` (from their merge base to the head), listed with
//! `git diff-tree` in the workspace, as git plumbing that starts no program the repository
//! configures.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::source::git_command;

/// The files a pull request changes, relative to the workspace.
pub type ChangedFiles = BTreeSet<String>;

/// The base and head commits of a `pull_request` (or `pull_request_target`) event.
#[derive(Debug, PartialEq, Eq)]
pub struct Commits {
    pub base: String,
    pub head: String,
}

/// Whether `text` is a full commit name (SHA-1 or SHA-256), so that it can never be read as an
/// option or a revision expression.
fn is_commit_name(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The pull request's commits in the event's JSON; `None` for other events.
pub fn commits(event: &str) -> Option<Commits> {
    let event: Value = serde_json::from_str(event).ok()?;
    let pull_request = event.get("pull_request")?;
    let sha = |side: &str| {
        pull_request
            .get(side)?
            .get("sha")?
            .as_str()
            .filter(|s| is_commit_name(s))
            .map(str::to_owned)
    };
    Some(Commits {
        base: sha("base")?,
        head: sha("head")?,
    })
}

/// Why the changed files are not known.
#[derive(Debug, PartialEq, Eq)]
pub enum Unknown {
    /// Not a pull request, or not in GitHub Actions.
    NoPullRequest,
    /// The event cannot be read, the commits are not in the checkout (a shallow clone), or git
    /// failed.
    Unavailable(String),
}

fn git_stdout(workspace: &Path, args: &[&str]) -> Result<Vec<u8>, Unknown> {
    let output = git_command(workspace)
        .args(args)
        .stderr(Stdio::piped())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .map_err(|err| Unknown::Unavailable(format!("cannot run git: {err}")))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(Unknown::Unavailable(
            stderr.lines().next().unwrap_or_default().to_owned(),
        ))
    }
}

/// The files changed from the merge base of the commits to the head, relative to `workspace`
/// (`--relative`: files outside it are left out).
pub fn changed_files(workspace: &Path, commits: &Commits) -> Result<ChangedFiles, Unknown> {
    let merge_base = git_stdout(workspace, &["merge-base", &commits.base, &commits.head])?;
    let merge_base = String::from_utf8_lossy(&merge_base).trim().to_owned();
    if !is_commit_name(&merge_base) {
        return Err(Unknown::Unavailable(format!(
            "no merge base of {} and {}",
            commits.base, commits.head
        )));
    }
    let names = git_stdout(
        workspace,
        &[
            "diff-tree",
            "-r",
            "-z",
            "--name-only",
            "--no-renames",
            "--relative",
            &merge_base,
            &commits.head,
        ],
    )?;
    Ok(names
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .filter_map(|name| std::str::from_utf8(name).ok())
        .map(str::to_owned)
        .collect())
}

/// The changed files of the pull request this GitHub Actions run is for.
pub fn from_env(workspace: &Path) -> Result<ChangedFiles, Unknown> {
    let path = std::env::var_os("GITHUB_EVENT_PATH")
        .filter(|p| !p.is_empty())
        .ok_or(Unknown::NoPullRequest)?;
    // The runner writes the event; it is read as any named file is (a regular file, bounded).
    let text = crate::source::read_given_text(Path::new(&path)).map_err(|problem| {
        Unknown::Unavailable(format!("cannot read the event: {}", problem.message))
    })?;
    let commits = commits(&text).ok_or(Unknown::NoPullRequest)?;
    changed_files(workspace, &commits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_come_from_a_pull_request_event_only() {
        let base = "a".repeat(40);
        let head = "b".repeat(40);
        let event = format!(
            r#"{{"pull_request": {{"number": 7, "base": {{"sha": "{base}"}}, "head": {{"sha": "{head}"}}}}}}"#
        );
        assert_eq!(
            commits(&event),
            Some(Commits {
                base: base.clone(),
                head
            })
        );
        assert_eq!(commits(r#"{"ref": "refs/heads/main"}"#), None);
        assert_eq!(commits("not json"), None);
        // Anything but a full commit name could be read by git as an option or an expression.
        let option = format!(
            r#"{{"pull_request": {{"base": {{"sha": "--output=/tmp/x"}}, "head": {{"sha": "{base}"}}}}}}"#
        );
        assert_eq!(commits(&option), None);
    }
}
