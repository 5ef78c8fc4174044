//! Hostile repositories: each must end with a finding or a clear error, the rest of the
//! repository still checked, within a time bound and with memory proportional to the input.
//!
//! The binary runs as a child process. Where `/usr/bin/time` exists, its CPU time (user + system)
//! and peak resident set size are measured and bounded: CPU time rather than wall-clock time, so
//! that the bounds hold on a loaded machine. A watchdog kills it after ten times the CPU bound
//! of wall-clock time (a hang fails the test either way).

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::WITNESS;

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak resident set size in KiB, when `/usr/bin/time` could measure it.
    peak_kib: Option<u64>,
}

impl Outcome {
    fn report(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "stdout is not JSON ({err}); exit {:?}, stderr: {}",
                self.code, self.stderr
            )
        })
    }

    fn codes_in(&self, file_suffix: &str) -> Vec<String> {
        self.report()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["file"].as_str().unwrap().ends_with(file_suffix))
            .map(|d| d["code"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The witness VM was checked: its conflict is reported.
    fn assert_witness_checked(&self) {
        let codes = self.codes_in("witness.yaml");
        assert!(
            codes.iter().any(|c| c == "KV1001"),
            "the witness file was not checked: {codes:?}"
        );
    }
}

fn time_binary() -> Option<&'static Path> {
    let path = Path::new("/usr/bin/time");
    path.exists().then_some(path)
}

/// Runs `kvlint check PATH --format json --no-config`, within `cpu_limit` of CPU time.
fn check_bounded(path: &Path, cpu_limit: Duration) -> Outcome {
    let limit = cpu_limit * 10;
    let scratch = tempfile::tempdir().unwrap();
    let rss_file = scratch.path().join("rss");
    let mut command = match time_binary() {
        Some(time) => {
            let mut command = Command::new(time);
            command
                .arg("-f")
                .arg("%M %U %S")
                .arg("-o")
                .arg(&rss_file)
                .arg(env!("CARGO_BIN_EXE_kvlint"));
            command
        }
        None => Command::new(env!("CARGO_BIN_EXE_kvlint")),
    };
    let stdout_file = scratch.path().join("stdout");
    let stderr_file = scratch.path().join("stderr");
    let started = Instant::now();
    let mut child = command
        .args([
            "check",
            "--format",
            "json",
            "--no-config",
            "--fail-on",
            "error",
        ])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_file).unwrap())
        .stderr(std::fs::File::create(&stderr_file).unwrap())
        .spawn()
        .expect("kvlint starts");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kvlint check {} ran longer than {limit:?}", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let measured: Vec<f64> = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|text| {
            let last = text.lines().last()?.to_owned();
            last.split_whitespace().map(|n| n.parse().ok()).collect()
        })
        .unwrap_or_default();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let peak_kib = measured.first().map(|&kib| kib as u64);
    let cpu = (measured.len() == 3).then(|| Duration::from_secs_f64(measured[1] + measured[2]));
    if let Some(cpu) = cpu {
        assert!(
            cpu <= cpu_limit,
            "kvlint check {} used {cpu:?} of CPU time (bound {cpu_limit:?})",
            path.display()
        );
    }
    let outcome = Outcome {
        code: status.code(),
        stdout: std::fs::read_to_string(&stdout_file).unwrap(),
        stderr: std::fs::read_to_string(&stderr_file).unwrap(),
        peak_kib,
    };
    assert!(
        !outcome.stderr.contains("panicked"),
        "kvlint panicked: {}",
        outcome.stderr
    );
    outcome
}

/// Peak memory within `base` MiB plus `per_input_byte` times the input size.
fn assert_memory(outcome: &Outcome, input_bytes: u64, base_mib: u64, per_input_byte: u64) {
    if let Some(peak) = outcome.peak_kib {
        let bound = base_mib * 1024 + input_bytes * per_input_byte / 1024;
        assert!(
            peak <= bound,
            "peak RSS {peak} KiB over the bound {bound} KiB for {input_bytes} input bytes"
        );
    }
}

fn repo_with_witness() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("witness.yaml"), WITNESS).unwrap();
    dir
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn size_of(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::symlink_metadata(e.path()).ok())
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len())
        .sum()
}

/// CPU time bound of each run (a debug build; release is several times faster).
const SECONDS: Duration = Duration::from_secs(30);

#[test]
fn nesting_ten_thousand_levels_deep_is_a_finding() {
    let repo = repo_with_witness();
    let depth = 10_000;
    write(
        repo.path(),
        "flow-seq.yaml",
        format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
    );
    write(
        repo.path(),
        "flow-map.yaml",
        format!("{}x{}", "{a: ".repeat(depth), "}".repeat(depth)),
    );
    write(
        repo.path(),
        "block-seq.yaml",
        format!("{}x\n", "- ".repeat(depth)),
    );
    // Block mappings a column deeper on each line (the block-style scanner's own recursion),
    // 2,000 levels: 2 MB of indentation.
    let mut block_map = String::new();
    for level in 0..2_000 {
        block_map.push_str(&" ".repeat(level));
        block_map.push_str("a:\n");
    }
    write(repo.path(), "block-map.yaml", block_map);
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    for file in [
        "flow-seq.yaml",
        "flow-map.yaml",
        "block-seq.yaml",
        "block-map.yaml",
    ] {
        let codes = outcome.codes_in(file);
        assert!(codes.iter().any(|c| c == "KV0001"), "{file}: {codes:?}");
    }
    assert_memory(&outcome, size_of(repo.path()), 200, 64);
}

#[test]
fn a_mapping_of_two_hundred_thousand_keys_is_checked() {
    // A quarter of the keys repeat: finding duplicates must stay linear in the mapping's size.
    let repo = repo_with_witness();
    let mut wide =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\ndata:\n");
    for key in 0..200_000 {
        wide.push_str("  k");
        wide.push_str(&(key % 150_000).to_string());
        wide.push_str(": v\n");
    }
    write(repo.path(), "wide-map.yaml", wide);
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    let codes = outcome.codes_in("wide-map.yaml");
    assert!(codes.iter().any(|c| c == "KV0002"), "{codes:?}");
}

#[test]
fn a_ten_megabyte_line_is_read() {
    let repo = repo_with_witness();
    let mut text =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: \"");
    text.push_str(&"x".repeat(10 * 1024 * 1024));
    text.push_str("\"\n");
    write(repo.path(), "long-line.yaml", &text);
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    assert_eq!(outcome.report()["summary"]["objects"], 3);
    assert_memory(&outcome, size_of(repo.path()), 100, 30);
}

#[test]
fn a_hundred_thousand_documents_in_one_file() {
    let repo = repo_with_witness();
    let mut text = String::new();
    for i in 0..100_000 {
        let _ = write!(
            text,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n"
        );
    }
    write(repo.path(), "many.yaml", &text);
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    let report = outcome.report();
    assert_eq!(report["summary"]["documents"], 100_002);
    assert_eq!(report["summary"]["objects"], 100_002);
    assert_memory(&outcome, size_of(repo.path()), 100, 200);
}

#[test]
fn an_alias_bomb_is_bounded_and_reported() {
    let repo = repo_with_witness();
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..12 {
        let previous = level - 1;
        let _ = writeln!(
            text,
            "a{level}: &a{level} [*a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}]"
        );
    }
    write(repo.path(), "laughs.yaml", &text);
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    let codes = outcome.codes_in("laughs.yaml");
    assert!(codes.iter().any(|c| c == "KV0001"), "{codes:?}");
    assert_memory(&outcome, size_of(repo.path()), 300, 0);
}

#[test]
fn binary_and_wrongly_encoded_files_are_findings() {
    let repo = repo_with_witness();
    let mut binary: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    binary[..4].copy_from_slice(b"\x7fELF");
    write(repo.path(), "binary.yaml", &binary);
    write(
        repo.path(),
        "latin1.yaml",
        b"kind: ConfigMap\nname: caf\xe9\n",
    );
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(
        "kind: ConfigMap\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    write(repo.path(), "utf16.yaml", &utf16);
    write(repo.path(), "nul.yaml", b"kind: ConfigMap\x00\n");
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    for file in ["binary.yaml", "latin1.yaml", "utf16.yaml", "nul.yaml"] {
        assert_eq!(outcome.codes_in(file), ["KV0005"], "{file}");
    }
    assert_eq!(outcome.report()["summary"]["skipped"], 4);
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_out_of_the_tree_or_into_loops() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.yaml", WITNESS);
    let repo = repo_with_witness();
    symlink(
        outside.path().join("secret.yaml"),
        repo.path().join("link.yaml"),
    )
    .unwrap();
    symlink(outside.path(), repo.path().join("outside-dir")).unwrap();
    symlink(repo.path(), repo.path().join("loop")).unwrap();
    symlink("self.yaml", repo.path().join("self.yaml")).unwrap();
    symlink("missing.yaml", repo.path().join("dangling.yaml")).unwrap();
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    let report = outcome.report();
    assert_eq!(report["summary"]["files"], 1, "only witness.yaml is read");
    let files: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert!(
        files.iter().all(|f| f.ends_with("witness.yaml")),
        "{files:?}"
    );
}

#[cfg(unix)]
#[test]
fn special_files_do_not_block_the_walk() {
    use std::os::unix::net::UnixListener;
    let repo = repo_with_witness();
    let fifo = repo.path().join("pipe.yaml");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let _socket = UnixListener::bind(repo.path().join("socket.yaml")).unwrap();
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    assert_eq!(outcome.report()["summary"]["files"], 1);
    assert!(
        made.is_err() || fifo.exists(),
        "mkfifo ran but made no FIFO"
    );
}

/// Root reads files and lists directories whatever their mode, so for root the same tree is
/// simply checked in full; for anyone else the unreadable entries are findings.
#[cfg(unix)]
#[test]
fn unreadable_files_and_directories_are_findings() {
    use std::os::unix::fs::PermissionsExt;
    let repo = repo_with_witness();
    let file = write(
        repo.path(),
        "locked.yaml",
        WITNESS.replace("witness", "locked"),
    );
    let dir = repo.path().join("locked-dir");
    std::fs::create_dir(&dir).unwrap();
    write(&dir, "inner.yaml", WITNESS.replace("witness", "inner"));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o000)).unwrap();
    let privileged = std::fs::read(&file).is_ok();
    let outcome = check_bounded(repo.path(), SECONDS);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    if privileged {
        assert!(
            outcome
                .codes_in("locked.yaml")
                .contains(&"KV1001".to_owned())
        );
        assert!(
            outcome
                .codes_in("inner.yaml")
                .contains(&"KV1001".to_owned())
        );
    } else {
        assert_eq!(outcome.codes_in("locked.yaml"), ["KV0005"]);
        assert_eq!(outcome.codes_in("locked-dir"), ["KV0005"]);
    }
}

/// A file listed by the walk and gone before it is read (deleted in between): a finding, and
/// the other files are still loaded.
#[test]
fn a_file_that_disappears_during_the_walk_is_a_finding() {
    use kvlint::load::{LoadOptions, load};
    use kvlint::source::{Input, Selection, discover};
    let repo = repo_with_witness();
    let gone = write(repo.path(), "gone.yaml", WITNESS.replace("witness", "gone"));
    let inputs = discover(&Selection {
        paths: vec![repo.path().to_path_buf()],
        ..Selection::default()
    })
    .unwrap();
    assert_eq!(inputs.len(), 2);
    std::fs::remove_file(&gone).unwrap();
    let loaded = load(&inputs, &LoadOptions::default());
    assert_eq!(loaded.skipped, 1);
    assert_eq!(loaded.objects.len(), 2, "the witness file is still loaded");
    let unreadable: Vec<_> = loaded
        .findings
        .iter()
        .filter(|f| f.rule.code == "KV0005")
        .collect();
    assert_eq!(unreadable.len(), 1);
    assert!(unreadable[0].location.file.ends_with("gone.yaml"));
    assert!(matches!(&inputs[0], Input::File { .. }));
}

/// Numbers KubeVirt's arithmetic cannot take, in every numeric field of an instance type, a
/// preference and a VM, with the errors each gets (as `CODE path`): the API server refuses the
/// instance type or preference whose field its schema does not allow (KV0015, and the VM then
/// names a missing object), KubeVirt's webhooks refuse the rest; never a panic.
const EDGES: &[(&str, &[&str])] = &[
    (
        "4294967296",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1012 spec",
        ],
    ),
    (
        "18446744073709551616",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1012 spec",
        ],
    ),
    (
        "-1",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1008 spec.template.spec.domain.resources.requests.cpu",
            "KV1008 spec.template.spec.domain.resources.requests.memory",
            "KV1012 spec",
        ],
    ),
    (
        "1e309",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
        ],
    ),
    (
        "-1e309",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1008 spec.template.spec.domain.resources.requests.cpu",
            "KV1008 spec.template.spec.domain.resources.requests.memory",
        ],
    ),
    (
        "0x",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.guest",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
        ],
    ),
    (
        "0x7fffffffffffffff",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1012 spec",
        ],
    ),
    (
        "0o777",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1001 spec.template.spec.domain.cpu.cores",
            "KV1001 spec.template.spec.domain.cpu.sockets",
            "KV1001 spec.template.spec.domain.resources.requests.cpu",
            "KV1001 spec.template.spec.domain.resources.requests.memory",
        ],
    ),
    (
        "0777",
        &[
            "KV0015 spec.memory.overcommitPercent",
            "KV1001 spec.template.spec.domain.cpu.cores",
            "KV1001 spec.template.spec.domain.cpu.sockets",
            "KV1001 spec.template.spec.domain.resources.requests.cpu",
            "KV1001 spec.template.spec.domain.resources.requests.memory",
        ],
    ),
    (
        ".nan",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.memory.guest",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1012 spec",
        ],
    ),
    (
        "9Ei",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
        ],
    ),
    (
        "-9Ei",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1008 spec.template.spec.domain.resources.requests.cpu",
            "KV1008 spec.template.spec.domain.resources.requests.memory",
        ],
    ),
    (
        "99999999999999999999Gi",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
        ],
    ),
    (
        "1e-309",
        &[
            "KV0015 spec.cpu.guest",
            "KV0015 spec.cpu.maxSockets",
            "KV0015 spec.cpu.spreadOptions.ratio",
            "KV0015 spec.memory.guest",
            "KV0015 spec.memory.overcommitPercent",
            "KV0015 spec.preferSpreadSocketToCoreRatio",
            "KV1006 spec.instancetype",
            "KV1007 spec.preference",
            "KV1008 spec.template.spec.domain.resources.requests.memory",
        ],
    ),
    (
        "0",
        &[
            "KV1009 spec",
            "KV1010 spec.template.spec.domain.resources.requests.cpu",
        ],
    ),
];

#[test]
fn numbers_at_the_edges_are_findings() {
    let repo = repo_with_witness();
    let values: Vec<&str> = EDGES.iter().map(|(value, _)| *value).collect();
    for (i, value) in values.iter().enumerate() {
        let text = format!(
            "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: it-{i}
spec:
  cpu:
    guest: {value}
    maxSockets: {value}
  memory:
    guest: {value}
    overcommitPercent: {value}
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata:
  name: pref-{i}
spec:
  cpu:
    preferredCPUTopology: spread
    spreadOptions:
      ratio: {value}
  preferSpreadSocketToCoreRatio: {value}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{i}
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineInstancetype
    name: it-{i}
  preference:
    kind: VirtualMachinePreference
    name: pref-{i}
  template:
    spec:
      domain:
        devices: {{}}
        cpu:
          sockets: {value}
          cores: {value}
        resources:
          requests:
            cpu: {value}
            memory: {value}
"
        );
        write(repo.path(), &format!("edge-{i}.yaml"), text);
    }
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    let report = outcome.report();
    for (i, (value, expected)) in EDGES.iter().enumerate() {
        let file = format!("edge-{i}.yaml");
        let mut errors: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["file"].as_str().unwrap().ends_with(&file) && d["severity"] == "error")
            .map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap(),
                    d["path"].as_str().unwrap()
                )
            })
            .collect();
        errors.sort();
        errors.dedup();
        assert_eq!(errors, *expected, "{value}");
    }
}

/// A spread ratio of 0 makes KubeVirt divide by zero (`pkg/instancetype/apply/cpu.go`,
/// `applyGuestCPUTopology`); CPU counts at the
/// top of u32 make its products overflow.
#[test]
fn cpu_counts_that_break_kubevirt_arithmetic_are_findings() {
    let repo = repo_with_witness();
    for (name, guest, ratio, across) in [
        ("ratio-zero", "4", "0", "SocketsCores"),
        ("ratio-zero-threads", "4", "0", "SocketsCoresThreads"),
        (
            "max-guest",
            "4294967295",
            "4294967295",
            "SocketsCoresThreads",
        ),
        ("zero-guest", "0", "2", "CoresThreads"),
    ] {
        write(
            repo.path(),
            &format!("{name}.yaml"),
            format!(
                "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: {name}
spec:
  cpu:
    guest: {guest}
  memory:
    guest: 1Gi
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata:
  name: {name}
spec:
  cpu:
    preferredCPUTopology: spread
    spreadOptions:
      across: {across}
      ratio: {ratio}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {name}
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineInstancetype
    name: {name}
  preference:
    kind: VirtualMachinePreference
    name: {name}
  template:
    spec:
      domain:
        devices: {{}}
"
            ),
        );
    }
    let outcome = check_bounded(repo.path(), SECONDS);
    assert_eq!(outcome.code, Some(1));
    outcome.assert_witness_checked();
    for name in ["ratio-zero", "ratio-zero-threads"] {
        let codes = outcome.codes_in(&format!("{name}.yaml"));
        assert!(codes.iter().any(|c| c == "KV1009"), "{name}: {codes:?}");
    }
    let codes = outcome.codes_in("max-guest.yaml");
    assert!(codes.iter().any(|c| c == "KV1003"), "max-guest: {codes:?}");
    let report = outcome.report();
    assert_eq!(report["summary"]["vms"], 5);
    let codes = outcome.codes_in("zero-guest.yaml");
    assert!(
        codes.iter().any(|c| c == "KV3003"),
        "zero-guest is rendered: {codes:?}"
    );
}

/// `config.kubernetes.io/origin` names the file an object of `kustomize build` output came
/// from; the annotation is part of the scanned input, so files outside the working directory
/// (absolute paths, `..`, symlinks) are never read through it.
#[test]
fn origin_annotations_do_not_read_outside_the_working_directory() {
    use kvlint::load::{LoadOptions, load};
    use kvlint::source::Input;
    let outside = tempfile::tempdir().unwrap();
    let secret = write(outside.path(), "vm.yaml", WITNESS);
    let cwd = std::env::current_dir().unwrap();
    let climb = "../".repeat(cwd.components().count());
    let relative = format!("{climb}{}", secret.display());
    let repo = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for (i, path) in [secret.display().to_string(), relative].iter().enumerate() {
        let _ = write!(
            text,
            "---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: witness\n  namespace: ns{i}\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {path}\nspec:\n  runStrategy: Halted\n"
        );
    }
    let built = write(repo.path(), "built.yaml", &text);
    let inputs = [Input::File {
        display: built.display().to_string().into(),
        path: built,
    }];
    let loaded = load(&inputs, &LoadOptions::default());
    assert_eq!(loaded.objects.len(), 2);
    assert!(loaded.objects.iter().all(|o| o.origin.is_none()));
    assert!(
        loaded.sources.is_empty(),
        "no source text was read from outside"
    );
}
