//! Inputs that made kvlint hang or exhaust memory (issue 20, items 3 and 4), generated here and
//! run through the binary under a watchdog, with CPU time and peak memory measured by
//! `/usr/bin/time` where it exists.
//!
//! Bounds: the drift cases must finish within 2 s of CPU time with the debug binary the tests
//! build. The large JSON arrays are parsed up to the 2,000,000-node limit, which the debug build
//! of the YAML parser needs several seconds for (the release build well under 2 s), so those
//! runs are bounded at 20 s of CPU and, above all, at 300 MB of peak memory.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A VM whose memory.guest conflicts with its instance type: a finding that proves the file
/// next to the hostile one was still checked.
const WITNESS: &str = "\
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

const MIB: u64 = 1024;

struct Run {
    code: Option<i32>,
    stdout: String,
    cpu: Option<Duration>,
    peak_kib: Option<u64>,
}

impl Run {
    fn report(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).expect("the report is JSON")
    }

    fn assert_cpu_within(&self, bound: Duration) {
        if let Some(cpu) = self.cpu {
            assert!(cpu <= bound, "used {cpu:?} of CPU time (bound {bound:?})");
        }
    }

    fn assert_peak_within(&self, mib: u64) {
        if let Some(peak) = self.peak_kib {
            assert!(peak <= mib * MIB, "peak RSS {peak} KiB (bound {mib} MiB)");
        }
    }
}

/// Runs kvlint with `args`; kills it (and fails) after `wall` of wall-clock time.
fn run(args: &[&str], dir: &Path, wall: Duration) -> Run {
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
    let started = Instant::now();
    let mut child = command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("kvlint starts");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > wall {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kvlint {args:?} ran longer than {wall:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let measured: Vec<f64> = std::fs::read_to_string(&time_file)
        .ok()
        .and_then(|text| {
            let last = text.lines().last()?.to_owned();
            last.split_whitespace().map(|n| n.parse().ok()).collect()
        })
        .unwrap_or_default();
    let (peak_kib, cpu) = match measured[..] {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        [peak, user, system] => (
            Some(peak as u64),
            Some(Duration::from_secs_f64(user + system)),
        ),
        _ => (None, None),
    };
    Run {
        code: status.code(),
        stdout: std::fs::read_to_string(&stdout).unwrap(),
        cpu,
        peak_kib,
    }
}

/// A VM whose unknown `spec.template.spec.domain.bogus` holds `text` (indented below it).
fn vm_with_bogus(text: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: bomb\nspec:\n  runStrategy: Halted\n  template:\n    spec:\n      domain:\n        devices: {{}}\n        bogus:\n{text}"
    )
}

/// Lists of ten aliases of the level below, `levels` deep: 10^levels strings from a few
/// hundred bytes.
fn nested_aliases(levels: usize) -> String {
    let mut text = String::from("          l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..levels {
        let below = vec![format!("*l{}", level - 1); 10].join(", ");
        writeln!(text, "          l{level}: &l{level} [{below}]").unwrap();
    }
    text
}

fn flat_list(strings: usize) -> String {
    format!("          list: [{}]\n", vec!["s"; strings].join(", "))
}

/// `check` and `render` of the VM finish within 2 s of CPU; `check` reports the unknown field
/// once and its drift once (not once a leaf), and the witness next to it.
fn assert_drift_is_linear(vm: &str, dropped: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bomb.yaml"), vm).unwrap();
    std::fs::write(dir.path().join("witness.yaml"), WITNESS).unwrap();
    let wall = Duration::from_secs(60);
    let check = run(
        &["check", "--no-config", "--format", "json", "."],
        dir.path(),
        wall,
    );
    assert_eq!(check.code, Some(1));
    check.assert_cpu_within(Duration::from_secs(2));
    let report = check.report();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let mut bogus: Vec<(&str, &str)> = diagnostics
        .iter()
        .filter(|d| d["path"].as_str().unwrap_or("").contains("bogus"))
        .map(|d| (d["path"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    bogus.sort_unstable();
    // One finding for the unknown field and one for its drift, not one a leaf.
    let mut expected = [
        ("spec.template.spec.domain.bogus", "KV0014"),
        (dropped, "KV3008"),
    ];
    expected.sort_unstable();
    assert_eq!(bogus, expected);
    assert!(
        diagnostics
            .iter()
            .any(|d| d["code"] == "KV1001" && d["file"].as_str().unwrap().ends_with("witness.yaml"))
    );
    let render = run(&["render", "--no-config", "bomb.yaml"], dir.path(), wall);
    assert_eq!(render.code, Some(0));
    render.assert_cpu_within(Duration::from_secs(2));
}

#[test]
fn ten_thousand_aliased_unknown_leaves_are_checked_in_linear_time() {
    let vm = vm_with_bogus(&nested_aliases(4));
    assert!(vm.len() < 600, "{} bytes", vm.len());
    assert_drift_is_linear(&vm, "spec.template.spec.domain.bogus");
}

#[test]
fn a_hundred_thousand_aliased_unknown_leaves_are_checked_in_linear_time() {
    let vm = vm_with_bogus(&nested_aliases(5));
    assert!(vm.len() < 650, "{} bytes", vm.len());
    assert_drift_is_linear(&vm, "spec.template.spec.domain.bogus");
}

#[test]
fn a_flat_unknown_list_of_ten_thousand_strings_is_checked_in_linear_time() {
    let vm = vm_with_bogus(&flat_list(10_000));
    assert_drift_is_linear(&vm, "spec.template.spec.domain.bogus.list");
}

/// A JSON array at the top of a file: refused as too large (not as an alias bomb) while it
/// streams, within 300 MB, with the witness still checked.
fn assert_large_array_is_refused(name: &str, json: &str) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), json).unwrap();
    std::fs::write(dir.path().join("witness.yaml"), WITNESS).unwrap();
    let check = run(
        &["check", "--no-config", "--format", "json", "."],
        dir.path(),
        Duration::from_secs(200),
    );
    assert_eq!(check.code, Some(1));
    check.assert_peak_within(300);
    check.assert_cpu_within(Duration::from_secs(20));
    let report = check.report();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let refusal = diagnostics
        .iter()
        .find(|d| d["file"].as_str().unwrap().ends_with(name))
        .expect("the array is reported");
    assert_eq!(refusal["code"], "KV0001");
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains("document too large") && !message.contains("alias"),
        "{message}"
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d["code"] == "KV1001" && d["file"].as_str().unwrap().ends_with("witness.yaml"))
    );
}

#[test]
fn a_28_megabyte_json_array_is_refused_within_bounded_memory() {
    let mut json = String::with_capacity(28_000_002);
    json.push('[');
    let mut i = 0u64;
    while json.len() < 28_000_000 {
        write!(json, "{},", i % 10).unwrap();
        i += 1;
    }
    json.pop();
    json.push_str("]\n");
    assert_large_array_is_refused("array.json", &json);
}

#[test]
fn a_60_megabyte_json_array_of_objects_is_refused_within_bounded_memory() {
    let mut json = String::with_capacity(60_000_100);
    json.push('[');
    let mut i = 0u64;
    while json.len() < 60_000_000 {
        write!(json, "{{\"name\": \"vm{i}\", \"v\": {i}}},").unwrap();
        i += 1;
    }
    json.pop();
    json.push_str("]\n");
    assert_large_array_is_refused("objects.json", &json);
}
