//! The Kustomize that builds units: `kustomize build`, or `kubectl kustomize` (the same build
//! command compiled into kubectl), found on PATH or given with `--kustomize-command`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::outcome::BuildError;

/// Output a build may print before it is stopped (as the largest input file kvlint reads).
const MAX_OUTPUT_BYTES: u64 = crate::source::MAX_FILE_BYTES;
/// Error output kept for the message.
const MAX_ERROR_BYTES: u64 = 64 * 1024;

/// A build command, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Tool {
    program: PathBuf,
    /// Arguments before the directory (`build`, or `kustomize` for kubectl).
    arguments: Vec<String>,
    /// How the report names it: `kustomize build` or `kubectl kustomize`.
    pub label: String,
    /// The Kustomize version it reports (`v5.5.0`), when it says.
    pub version: Option<String>,
    pub timeout: Duration,
}

impl Tool {
    /// The tool to use: `command` (a program and its arguments before the directory, such as
    /// `kustomize build` or `kubectl kustomize`; a bare `kustomize` or `kubectl` gets its build
    /// argument), else `kustomize` on PATH, else `kubectl` on PATH. None when none is found.
    /// The version is asked of the program, or read from `versions` when it was asked before.
    pub(crate) fn find(
        command: Option<&str>,
        timeout: Duration,
        versions: Option<&super::cache::Store>,
    ) -> Result<Option<Self>, String> {
        let (program, mut arguments) = match command {
            Some(command) => {
                let mut words = command.split_whitespace().map(str::to_owned);
                let Some(program) = words.next() else {
                    return Err("--kustomize-command is empty".to_owned());
                };
                let found = find_program(&program)
                    .ok_or_else(|| format!("--kustomize-command: `{program}` is not found"))?;
                (found, words.collect::<Vec<_>>())
            }
            None => match find_program("kustomize").or_else(|| find_program("kubectl")) {
                Some(found) => (found, Vec::new()),
                None => return Ok(None),
            },
        };
        let kubectl = is_named(&program, "kubectl");
        if arguments.is_empty() {
            arguments.push(if kubectl { "kustomize" } else { "build" }.to_owned());
        }
        let name = program
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let label = std::iter::once(name.as_str())
            .chain(arguments.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        let probe = || probe_version(&program, kubectl);
        let version = match versions {
            Some(store) => store.tool_version(&program, probe),
            None => probe(),
        };
        Ok(Some(Self {
            program,
            arguments,
            label,
            version,
            timeout,
        }))
    }

    /// The tool as the units cache keys it: the program resolved, its label and version.
    pub(crate) fn identity(&self) -> super::cache::ToolIdentity {
        super::cache::ToolIdentity {
            program: std::fs::canonicalize(&self.program).unwrap_or_else(|_| self.program.clone()),
            label: self.label.clone(),
            version: self.version.clone(),
        }
    }

    /// Builds the kustomization in `dir` (run from `dir`) and returns its output.
    pub(crate) fn build(&self, dir: &Path, options: &[&str]) -> Result<String, BuildError> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.arguments)
            .arg(".")
            .args(options)
            .current_dir(dir);
        run_for_output(command, &self.label, self.timeout, error_message)
    }
}

#[derive(Debug)]
pub(super) struct Finished {
    pub(super) success: bool,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: String,
}

/// Runs a renderer (`label` in messages) for its standard output, bounded by `timeout`: a run
/// that fails is `Refused` with the message `message` reads from its error output; one that
/// cannot run or overruns a bound is `Failed`.
pub(super) fn run_for_output(
    mut command: Command,
    label: &str,
    timeout: Duration,
    message: fn(&str) -> String,
) -> Result<String, BuildError> {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| BuildError::Failed(format!("cannot run {label}: {err}")))?;
    let finished = run_bounded(child, timeout)
        .map_err(|problem| BuildError::Failed(format!("{label}: {problem}")))?;
    if finished.success {
        String::from_utf8(finished.stdout)
            .map_err(|_| BuildError::Failed(format!("{label} printed invalid UTF-8")))
    } else {
        Err(BuildError::Refused(message(&finished.stderr)))
    }
}

/// Why a tool's run gave no result.
#[derive(Debug, thiserror::Error)]
pub(super) enum RunError {
    #[error("stopped after {} s (--kustomize-timeout)", .0.as_secs())]
    TimedOut(Duration),
    #[error("{0}")]
    Wait(std::io::Error),
    #[error("printed more than {MAX_OUTPUT_BYTES} bytes")]
    TooMuchOutput,
}

/// Waits for `child` at most `timeout`, its output bounded; past either bound it is killed.
pub(super) fn run_bounded(mut child: Child, timeout: Duration) -> Result<Finished, RunError> {
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out = std::thread::spawn(move || read_bounded(stdout, MAX_OUTPUT_BYTES + 1));
    let err = std::thread::spawn(move || read_bounded(stderr, MAX_ERROR_BYTES));
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(RunError::TimedOut(timeout));
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(error) => return Err(RunError::Wait(error)),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if stdout.len() as u64 > MAX_OUTPUT_BYTES {
        return Err(RunError::TooMuchOutput);
    }
    Ok(Finished {
        success: status.success(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

fn read_bounded(stream: Option<impl Read>, limit: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(stream) = stream {
        let mut limited = stream.take(limit);
        let _ = limited.read_to_end(&mut bytes);
        // Keep draining so the process never blocks on a full pipe.
        let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
    }
    bytes
}

/// Kustomize's message from its error output: `Error: MSG` (kustomize), or the klog line
/// `… "command failed" err="MSG"` with MSG Go-quoted (kubectl).
pub(crate) fn error_message(stderr: &str) -> String {
    for line in stderr.lines().rev() {
        if let Some(message) = line.strip_prefix("Error: ") {
            return message.trim().to_owned();
        }
        if let Some(start) = line.find(" err=\"") {
            let quoted = &line[start + 5..];
            if let Some(message) = unquote_go(quoted) {
                return message;
            }
        }
    }
    let text = stderr
        .lines()
        .filter(|l| !l.starts_with("# Warning:"))
        .collect::<Vec<_>>()
        .join(" ");
    if text.trim().is_empty() {
        "the build failed without a message".to_owned()
    } else {
        text.trim().to_owned()
    }
}

/// The content of a Go-quoted string at the start of `text` (`"a \"b\""`).
fn unquote_go(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            other => out.push(other),
        }
    }
    None
}

fn is_named(program: &Path, name: &str) -> bool {
    program
        .file_stem()
        .is_some_and(|stem| stem.eq_ignore_ascii_case(name))
}

/// `program` itself when it is a path, else the first executable of that name on PATH.
pub(super) fn find_program(program: &str) -> Option<PathBuf> {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file().then(|| path.to_path_buf());
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| {
            let exe = dir.join(format!("{program}{}", std::env::consts::EXE_SUFFIX));
            [dir.join(program), exe]
        })
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The Kustomize version of the tool: `kubectl version --client -o json`'s `kustomizeVersion`,
/// or the first `vX.Y.Z` that `kustomize version` prints.
fn probe_version(program: &Path, kubectl: bool) -> Option<String> {
    let mut command = Command::new(program);
    if kubectl {
        command.args(["version", "--client", "-o", "json"]);
    } else {
        command.arg("version");
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let finished = run_bounded(command.spawn().ok()?, Duration::from_secs(10)).ok()?;
    let text = String::from_utf8_lossy(&finished.stdout);
    if kubectl {
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        return json.get("kustomizeVersion")?.as_str().map(str::to_owned);
    }
    semantic_version(&text)
}

/// The first `vX.Y.Z` (or `X.Y.Z`) in `text`, with a leading `v`.
pub(super) fn semantic_version(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find_map(|start| {
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'.') {
            return None;
        }
        let rest = text[start..].strip_prefix('v').unwrap_or(&text[start..]);
        let parts: Vec<&str> = rest.splitn(4, '.').collect();
        if parts.len() < 3 {
            return None;
        }
        let digits = |s: &str| -> usize { s.bytes().take_while(u8::is_ascii_digit).count() };
        let patch = digits(parts[2]);
        (digits(parts[0]) == parts[0].len()
            && !parts[0].is_empty()
            && digits(parts[1]) == parts[1].len()
            && !parts[1].is_empty()
            && patch > 0)
            .then(|| format!("v{}.{}.{}", parts[0], parts[1], &parts[2][..patch]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_of_kustomize_and_kubectl() {
        assert_eq!(
            error_message("# Warning: 'bases' is deprecated\nError: accumulating resources: x\n"),
            "accumulating resources: x"
        );
        assert_eq!(
            error_message(
                "E1201 16:53:49.780018   19905 run.go:72] \"command failed\" err=\"accumulating resources from 'missing.yaml': \\\"quoted\\\" end\"\n"
            ),
            "accumulating resources from 'missing.yaml': \"quoted\" end"
        );
        assert_eq!(error_message("plain failure\n"), "plain failure");
        assert_eq!(error_message(""), "the build failed without a message");
    }

    #[test]
    fn versions_as_kustomize_prints_them() {
        assert_eq!(semantic_version("v5.5.0\n").as_deref(), Some("v5.5.0"));
        assert_eq!(
            semantic_version("{Version:kustomize/v4.5.7 GitCommit:abc}").as_deref(),
            Some("v4.5.7")
        );
        assert_eq!(semantic_version("unknown"), None);
        assert_eq!(semantic_version("1.2"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_build_past_its_timeout_is_stopped() {
        let child = Command::new("sh")
            .args(["-c", "sleep 5"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let outcome = run_bounded(child, Duration::from_millis(200));
        let error = outcome.unwrap_err();
        assert!(matches!(error, RunError::TimedOut(_)), "{error:?}");
        assert_eq!(error.to_string(), "stopped after 0 s (--kustomize-timeout)");
        assert!(start.elapsed() < Duration::from_secs(3));
    }
}
