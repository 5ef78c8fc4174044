//! Helpers shared by the integration tests. Each test file compiles its own copy of this module
//! and uses only part of it, so every item allows `dead_code`.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// A cluster instance type `small` (2 vCPUs, 2Gi) and a document separator, to put before the
/// objects that use it.
pub(crate) const SMALL_CLUSTER_INSTANCETYPE: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 2
  memory:
    guest: 2Gi
---
";

/// A VM whose memory.guest conflicts with its instance type: an error finding (KV1001) that
/// proves the file next to a hostile one was still checked.
#[allow(dead_code)]
pub(crate) const WITNESS: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 1
  memory:
    guest: 128Mi
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: witness
spec:
  runStrategy: Halted
  instancetype:
    kind: VirtualMachineInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {}
        memory:
          guest: 128Mi
";

/// Runs git in `dir` with a fixed identity and no signing, isolated from any repository the
/// test itself runs in; asserts success and returns standard output.
/// A new git repository holding `files` (path relative to its root, text).
#[allow(dead_code)]
pub(crate) fn git_repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    git(dir.path(), &["init", "-q"]);
    dir
}

#[allow(dead_code)]
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
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
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A `TMPDIR` that does not exist: any temporary file or directory kvlint tried to create
/// would fail the run.
#[allow(dead_code)]
pub(crate) fn no_tmp() -> PathBuf {
    PathBuf::from("/nonexistent/kvlint-writes-nothing")
}

#[allow(dead_code)]
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[allow(dead_code)]
pub(crate) fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

/// `head`, then a flow sequence of the digits 0 to 9 over and over, about `bytes` long in all.
#[allow(dead_code)]
pub(crate) fn digits_in_flow_sequence(head: &str, bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 2);
    text.push_str(head);
    text.push('[');
    for digit in (0..10).cycle() {
        if text.len() >= bytes {
            break;
        }
        text.push(char::from(b'0' + digit));
        text.push(',');
    }
    text.pop();
    text.push_str("]\n");
    text
}

/// Waits for `child`; kills it and fails, naming `what`, after `wall` of wall-clock time.
#[allow(dead_code)]
fn wait_within(child: &mut Child, wall: Duration, what: impl Debug) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > wall {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kvlint {what:?} ran longer than {wall:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `command` (the kvlint binary with its arguments, directory and environment set) with
/// no standard input, under a watchdog of `wall`; asserts it did not panic.
#[allow(dead_code)]
pub(crate) fn output_within(command: &mut Command, wall: Duration) -> Output {
    let args: Vec<_> = command.get_args().map(ToOwned::to_owned).collect();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kvlint starts");
    wait_within(&mut child, wall, args);
    let output = child.wait_with_output().unwrap();
    assert!(!text(&output.stderr).contains("panicked"), "{output:?}");
    output
}

/// Starts `command` (the kvlint binary with its arguments, directory and environment set),
/// sends it SIGTERM after `delay` and waits for it to end.
#[allow(dead_code)]
pub(crate) fn terminate_after(command: &mut Command, delay: Duration) {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait_with_output();
}

/// One run of the kvlint binary, with its CPU time and peak memory where `/usr/bin/time`
/// could measure them.
#[allow(dead_code)]
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) cpu: Option<Duration>,
    pub(crate) peak_kib: Option<u64>,
}

#[allow(dead_code)]
impl Run {
    pub(crate) fn report(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).expect("the report is JSON")
    }

    pub(crate) fn diagnostics(&self) -> Vec<serde_json::Value> {
        self.report()["diagnostics"].as_array().unwrap().clone()
    }

    pub(crate) fn assert_cpu_within(&self, bound: Duration) {
        if let Some(cpu) = self.cpu {
            assert!(cpu <= bound, "used {cpu:?} of CPU time (bound {bound:?})");
        }
    }

    pub(crate) fn assert_peak_within(&self, mib: u64) {
        if let Some(peak) = self.peak_kib {
            assert!(peak <= mib * 1024, "peak RSS {peak} KiB (bound {mib} MiB)");
        }
    }

    pub(crate) fn assert_within(&self, cpu: Duration, mib: u64) {
        self.assert_cpu_within(cpu);
        self.assert_peak_within(mib);
    }
}

/// Runs kvlint with `args` in `dir`, measured by `/usr/bin/time` where it exists; kills it (and
/// fails) after `wall` of wall-clock time.
#[allow(dead_code)]
pub(crate) fn run(args: &[&str], dir: &Path, wall: Duration) -> Run {
    let scratch = tempfile::tempdir().unwrap();
    let time_file = scratch.path().join("time");
    let time = Path::new("/usr/bin/time");
    let mut command = if time.exists() {
        let mut command = Command::new(time);
        command
            .args(["-f", "%M %U %S", "-o"])
            .arg(&time_file)
            .arg(env!("CARGO_BIN_EXE_kvlint"));
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_kvlint"))
    };
    let stdout = scratch.path().join("stdout");
    let mut child = command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("kvlint starts");
    let status = wait_within(&mut child, wall, args);
    let (peak_kib, cpu) = measured(&time_file);
    Run {
        code: status.code(),
        stdout: std::fs::read_to_string(&stdout).unwrap(),
        cpu,
        peak_kib,
    }
}

/// Peak RSS in KiB and CPU time (user + system) from the `%M %U %S` line `/usr/bin/time`
/// wrote last, if it wrote one.
#[allow(dead_code)]
fn measured(time_file: &Path) -> (Option<u64>, Option<Duration>) {
    let numbers: Vec<f64> = std::fs::read_to_string(time_file)
        .ok()
        .and_then(|text| {
            let last = text.lines().last()?.to_owned();
            last.split_whitespace().map(|n| n.parse().ok()).collect()
        })
        .unwrap_or_default();
    match numbers[..] {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        [peak, user, system] => (
            Some(peak as u64),
            Some(Duration::from_secs_f64(user + system)),
        ),
        _ => (None, None),
    }
}

/// The JSON report a kvlint run printed; a run that printed none fails the test with both
/// outputs.
#[allow(dead_code)]
pub(crate) fn json_report(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{err}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Whether a Kustomize (kustomize or kubectl) is on PATH. Without one, a test that needs it
/// says so and passes, unless `KVLINT_REQUIRE_KUSTOMIZE` (set by .ci/run) is set.
#[allow(dead_code)]
pub(crate) fn kustomize_available(test: &str) -> bool {
    let found = ["kustomize", "kubectl"].iter().any(|tool| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
    });
    if !found {
        assert!(
            std::env::var_os("KVLINT_REQUIRE_KUSTOMIZE").is_none(),
            "KVLINT_REQUIRE_KUSTOMIZE is set but neither kustomize nor kubectl is on PATH"
        );
        #[allow(clippy::print_stderr)] // a skipped test says why
        {
            eprintln!("{test}: skipped, neither kustomize nor kubectl is on PATH");
        }
    }
    found
}

/// The directory of `helm` on PATH. Without one, a test that needs it says so and passes (None),
/// unless `KVLINT_REQUIRE_HELM` (set by .ci/run) is set.
#[allow(dead_code)]
pub(crate) fn helm_dir(test: &str) -> Option<std::path::PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).find(|dir| dir.join("helm").is_file()));
    if found.is_none() {
        assert!(
            std::env::var_os("KVLINT_REQUIRE_HELM").is_none(),
            "KVLINT_REQUIRE_HELM is set but helm is not on PATH"
        );
        #[allow(clippy::print_stderr)] // a skipped test says why
        {
            eprintln!("{test}: skipped, helm is not on PATH");
        }
    }
    found
}

/// A report with the Kustomize that built its units left out (it differs between machines):
/// the JSON summary's `version` line and the command and version in text reports.
#[allow(dead_code)]
pub(crate) fn without_kustomize_version(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("\"version\": \"v") {
            continue;
        }
        let mut line = line
            .replace("kubectl kustomize", "KUSTOMIZE")
            .replace("kustomize build", "KUSTOMIZE");
        while let Some(start) = line.find("KUSTOMIZE v") {
            let end = line[start + 10..]
                .find(|c: char| c == ')' || c.is_whitespace())
                .map_or(line.len(), |e| start + 10 + e);
            line.replace_range(start..end, "KUSTOMIZE");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Copies the tree `from` into `to` (directories and regular files) as a working copy: every
/// copied file is writable by its owner, since a checkout may be read-only and `fix` leaves
/// read-only files alone.
#[allow(dead_code)]
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let mode = std::fs::metadata(&target).unwrap().permissions().mode();
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode | 0o200))
                .unwrap();
        }
    }
}
