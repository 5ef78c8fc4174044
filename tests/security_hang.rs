//! Inputs that made kvlint hang or exhaust memory (issue 20, items 3 and 4), generated here and
//! run through the binary under a watchdog, with CPU time and peak memory measured by
//! `/usr/bin/time` where it exists.
//!
//! Bounds: the drift cases must finish within a few seconds of CPU time with the debug binary
//! the tests build (the 100,000-leaf VM needs about 1.7 s of it on an idle machine, 0.2 s with
//! the release build; a walk that revisited shared subtrees would need 10^10 steps, so a bound
//! of 10 s tells linear from superlinear without failing on a busy machine). The large JSON arrays are parsed up to the 2,000,000-node limit, which the debug build
//! of the YAML parser needs several seconds for (the release build well under 2 s), so those
//! runs are bounded at 20 s of CPU and, above all, at 300 MB of peak memory.

use crate::common;

use std::fmt::Write as _;
use std::time::Duration;

use common::{WITNESS, run};

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

/// `check` and `render` of the VM finish within `cpu` each; `check` reports the unknown field
/// once and its drift once (not once a leaf), and the witness next to it.
fn assert_drift_is_linear(vm: &str, cpu: Duration) {
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
    check.assert_cpu_within(cpu);
    let report = check.report();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let bogus: Vec<(&str, &str, &str)> = diagnostics
        .iter()
        .filter(|d| d["path"].as_str().unwrap_or("").contains("bogus"))
        .map(|d| {
            let field = |key: &str| d[key].as_str().unwrap_or("");
            (field("path"), field("code"), field("drift"))
        })
        .collect();
    // One finding for the unknown field, carrying the drift of what the API server drops, not
    // one a leaf.
    assert_eq!(
        bogus,
        [("spec.template.spec.domain.bogus", "KV0014", "out-of-sync")]
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d["code"] == "KV1001" && d["file"].as_str().unwrap().ends_with("witness.yaml"))
    );
    let render = run(&["render", "--no-config", "bomb.yaml"], dir.path(), wall);
    assert_eq!(render.code, Some(0));
    render.assert_cpu_within(cpu);
}

#[test]
fn ten_thousand_aliased_unknown_leaves_are_checked_in_linear_time() {
    let vm = vm_with_bogus(&nested_aliases(4));
    assert!(vm.len() < 600, "{} bytes", vm.len());
    assert_drift_is_linear(&vm, Duration::from_secs(2));
}

#[test]
fn a_hundred_thousand_aliased_unknown_leaves_are_checked_in_linear_time() {
    let vm = vm_with_bogus(&nested_aliases(5));
    assert!(vm.len() < 650, "{} bytes", vm.len());
    assert_drift_is_linear(&vm, Duration::from_secs(10));
}

#[test]
fn a_flat_unknown_list_of_ten_thousand_strings_is_checked_in_linear_time() {
    let vm = vm_with_bogus(&flat_list(10_000));
    assert_drift_is_linear(&vm, Duration::from_secs(2));
}

/// A JSON array at the top of a file: refused as too large (not as an alias bomb) while it
/// streams, within 320 MiB, with the witness still checked. Alone the 60 MB array peaks at
/// about 294 MiB; beside the rest of the test suite it has reached 300 MiB, so the bound leaves
/// that much room.
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
    check.assert_peak_within(320);
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
    let json = common::digits_in_flow_sequence("", 28_000_000);
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
