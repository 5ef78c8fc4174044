//! The Helm that renders chart directories: `helm` on PATH, or `--helm-command`; run as
//! `helm template`, bounded like the Kustomize builds.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::units::cache::{Store, ToolIdentity};
use crate::units::outcome::BuildError;
use crate::units::tool::{find_program, run_bounded, run_for_output, semantic_version};

/// A `helm` program, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Helm {
    program: PathBuf,
    /// How the report names it: `helm template`.
    pub label: String,
    /// The version it reports (`v3.17.3`), when it says.
    pub version: Option<String>,
    timeout: Duration,
}

impl Helm {
    /// `command` (a program), else `helm` on PATH; None when none is found. The version is
    /// asked of the program, or read from `versions` when it was asked before.
    pub(crate) fn find(
        command: Option<&str>,
        timeout: Duration,
        versions: Option<&Store>,
    ) -> Result<Option<Self>, String> {
        let program = match command.map(str::trim) {
            Some("") => return Err("--helm-command is empty".to_owned()),
            Some(command) => find_program(command)
                .ok_or_else(|| format!("--helm-command: `{command}` is not found"))?,
            None => match find_program("helm") {
                Some(found) => found,
                None => return Ok(None),
            },
        };
        let probe = || probe_version(&program);
        let version = match versions {
            Some(store) => store.tool_version(&program, probe),
            None => probe(),
        };
        Ok(Some(Self {
            program,
            label: "helm template".to_owned(),
            version,
            timeout,
        }))
    }

    /// The program as the units cache keys it.
    pub(crate) fn identity(&self) -> ToolIdentity {
        ToolIdentity {
            program: std::fs::canonicalize(&self.program).unwrap_or_else(|_| self.program.clone()),
            label: self.label.clone(),
            version: self.version.clone(),
        }
    }

    /// Runs `helm template` with `arguments` (after `template`).
    pub(crate) fn template(&self, arguments: &[OsString]) -> Result<String, BuildError> {
        let mut command = Command::new(&self.program);
        command
            .arg("template")
            .args(arguments)
            .env("HELM_NO_PLUGINS", "1");
        run_for_output(command, &self.label, self.timeout, error_message)
    }
}

/// Helm's message: its `Error: …` line, without the leading `Error: `.
pub(super) fn error_message(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("Error: "))
        .map(str::trim);
    match line {
        Some(message) => message.to_owned(),
        None if stderr.trim().is_empty() => "helm failed without a message".to_owned(),
        None => stderr.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// `helm version --template {{.Version}}`: `v3.17.3`.
fn probe_version(program: &Path) -> Option<String> {
    let child = Command::new(program)
        .args(["version", "--template", "{{.Version}}"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let finished = run_bounded(child, Duration::from_secs(10)).ok()?;
    semantic_version(&String::from_utf8_lossy(&finished.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_errors_are_read_from_their_error_line() {
        assert_eq!(
            error_message(
                "walk.go:75: found symbolic link\nError: template: vm/templates/vm.yaml:3:12: executing \"vm/templates/vm.yaml\" at <.Values.x.y>: nil pointer\n"
            ),
            "template: vm/templates/vm.yaml:3:12: executing \"vm/templates/vm.yaml\" at <.Values.x.y>: nil pointer"
        );
        assert_eq!(error_message("  \n"), "helm failed without a message");
        assert_eq!(error_message("broken\nchart\n"), "broken chart");
    }
}
