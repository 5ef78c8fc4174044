//! Hostile list and mapping sizes (issue 20): a VM with thousands of disks of one name, and a
//! mapping with tens of thousands of unknown keys. Inputs are generated here and run through
//! the binary under a watchdog, with CPU time and peak memory measured by `/usr/bin/time` where
//! it exists.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use common::{Run, run};

/// Runs `kvlint check --format json` on `dir` with `extra` arguments; kills it (and fails)
/// after five minutes. The wall limit only catches a hang: the bounds are on CPU time, which a
/// busy machine does not inflate the way it stretches wall time.
fn check(dir: &Path, extra: &[&str]) -> Run {
    let args: Vec<&str> = ["check", "--no-config", "--format", "json"]
        .into_iter()
        .chain(extra.iter().copied())
        .chain(["."])
        .collect();
    run(&args, dir, Duration::from_secs(300))
}

const VM_HEAD: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: many
spec:
  runStrategy: Halted
  template:
    spec:
";

/// A VM with `count` disks all named `root`, and the volume they name.
fn vm_with_disks_of_one_name(count: usize) -> String {
    let mut vm = format!("{VM_HEAD}      domain:\n        devices:\n          disks:\n");
    for _ in 0..count {
        vm.push_str("          - name: root\n            disk: {bus: virtio}\n");
    }
    vm.push_str("      volumes:\n      - name: root\n        containerDisk: {image: os}\n");
    vm
}

fn codes_and_messages(run: &Run) -> Vec<(String, String, String)> {
    run.diagnostics()
        .iter()
        .map(|d| {
            let text = |key: &str| d[key].as_str().unwrap_or("").to_owned();
            (text("code"), text("path"), text("message"))
        })
        .collect()
}

fn dir_with(vm: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vm.yaml"), vm).unwrap();
    dir
}

/// From v1.3 on the CRD limits the disks to 256: the API server refuses the VM before the
/// webhook would compare 10,000 disks pairwise (50 million causes).
#[test]
fn ten_thousand_disks_of_one_name_are_refused_by_the_crd_limit() {
    let dir = dir_with(&vm_with_disks_of_one_name(10_000));
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, Some(1));
    run.assert_within(Duration::from_secs(2), 300);
    let field = "spec.template.spec.domain.devices.disks";
    assert_eq!(
        codes_and_messages(&run),
        [(
            "KV0015".to_owned(),
            field.to_owned(),
            format!("{field}: Too many: must have at most 256 items")
        )]
    );
}

/// Up to v1.2 the webhook itself refuses more than 256 disks, with no other cause.
#[test]
fn ten_thousand_disks_of_one_name_exceed_the_webhook_limit_of_v1_2() {
    let dir = dir_with(&vm_with_disks_of_one_name(10_000));
    let run = check(dir.path(), &["--kubevirt-version", "v1.2"]);
    assert_eq!(run.code, Some(1));
    run.assert_within(Duration::from_secs(2), 300);
    let field = "spec.template.spec.domain.devices.disks";
    assert_eq!(
        codes_and_messages(&run),
        [(
            "KV1008".to_owned(),
            field.to_owned(),
            format!("{field} list exceeds the 256 element limit in length")
        )]
    );
}

/// At the limit, KubeVirt reports each disk against every earlier disk of its name: 256 disks
/// of one name give 256 * 255 / 2 causes, found without comparing every pair of disks.
#[test]
fn two_hundred_fifty_six_disks_of_one_name_are_reported_per_pair() {
    let dir = dir_with(&vm_with_disks_of_one_name(256));
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, Some(1));
    run.assert_within(Duration::from_secs(6), 300);
    let found = codes_and_messages(&run);
    assert_eq!(found.len(), 256 * 255 / 2);
    assert!(found.iter().all(|(code, ..)| code == "KV1008"));
    let disks = "spec.template.spec.domain.devices.disks";
    assert!(found.contains(&(
        "KV1008".to_owned(),
        format!("{disks}[255].name"),
        format!("{disks}[255] and {disks}[254] must not have the same Name.")
    )));
}

/// Every finding looks its path up in the tree: in a mapping of 50,000 keys that was a scan of
/// the mapping per finding (26 s of CPU with the debug binary for the 100,000 findings).
#[test]
fn fifty_thousand_unknown_keys_are_looked_up_through_an_index() {
    let mut vm = format!("{VM_HEAD}      domain:\n        devices: {{}}\n");
    for i in 0..50_000 {
        writeln!(vm, "        unknown{i}: v").unwrap();
    }
    let dir = dir_with(&vm);
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, Some(1));
    // The debug binary spends about 90 us on each of the 100,000 findings (messages, help,
    // escaping); the bound is what is left once the lookups are constant-time.
    run.assert_within(Duration::from_secs(15), 300);
    let unknown = run
        .diagnostics()
        .iter()
        .filter(|d| d["code"] == "KV0014")
        .count();
    assert_eq!(unknown, 50_000);
}

/// A 28 MB flow sequence after a `---` line of its own: the scanner used to read all of it as
/// tokens before the first node (over 5 GB) since it could still be a mapping key; it is now
/// refused at the node limit as it streams, and the file next to it is still checked.
#[test]
fn a_28_megabyte_flow_sequence_after_a_marker_line_is_refused_within_bounded_memory() {
    let yaml = common::digits_in_flow_sequence("---\n", 28_000_000);
    let dir = dir_with(&vm_with_disks_of_one_name(2));
    std::fs::write(dir.path().join("array.yaml"), yaml).unwrap();
    let run = check(dir.path(), &[]);
    assert_eq!(run.code, Some(1));
    // The debug build of the parser needs several seconds for the 2,000,000 nodes it reads.
    run.assert_within(Duration::from_secs(20), 300);
    let diagnostics = run.diagnostics();
    let refusal = diagnostics
        .iter()
        .find(|d| d["file"].as_str().unwrap().ends_with("array.yaml"))
        .expect("the sequence is reported");
    assert_eq!(refusal["code"], "KV0001");
    let message = refusal["message"].as_str().unwrap();
    assert!(message.contains("document too large"), "{message}");
    assert!(
        diagnostics
            .iter()
            .any(|d| d["code"] == "KV1008" && d["file"].as_str().unwrap().ends_with("vm.yaml"))
    );
}
