//! Rendered VMs that the units stage leaves unread (documents that plainly hold a VM) and the
//! VM pass reads: what reading them leaves for the report (suppression comments of the files
//! they come from, counts) is the same as when they were read with the rest of their unit.
//!
//! Without kustomize or kubectl these tests say so and pass, unless
//! `KVLINT_REQUIRE_KUSTOMIZE=1` makes the tool's absence a failure.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::kustomize_available;

const FIXTURE: &str = "testdata/units/kustomize";

fn check(dir: &Path) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            &dir.to_string_lossy(),
            "--format",
            "json",
            "--fail-on",
            "none",
            "--catalog",
            "none",
            "--no-cache",
        ])
        .output()
        .expect("kvlint runs");
    common::json_report(&output)
}

fn codes_in(report: &serde_json::Value, file_suffix: &str) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"].as_str().unwrap().ends_with(file_suffix))
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

/// The base VM is rendered by two overlays: its file is scanned for suppression comments
/// once (a second scan would leave an unused copy of each comment), and each comment still
/// applies.
#[test]
fn a_base_read_by_two_units_is_scanned_once() {
    if !kustomize_available("a_base_read_by_two_units_is_scanned_once") {
        return;
    }
    let temp = tempfile::tempdir_in(".").unwrap();
    let root = temp.path();
    common::copy_dir(Path::new(FIXTURE), root);
    let vm = root.join("apps/web/base/vm.yaml");
    let text = std::fs::read_to_string(&vm).unwrap();
    assert!(text.starts_with("apiVersion: kubevirt.io/v1\n"), "{text}");
    let before = check(root);
    assert_eq!(codes_in(&before, "apps/web/base/vm.yaml"), ["KV3007"]);

    std::fs::write(
        &vm,
        format!(
            "# kvlint: ignore[KV3007] the platform team pins it\n# kvlint: ignore[KV3004]\n{text}"
        ),
    )
    .unwrap();
    let after = check(root);
    assert_eq!(
        codes_in(&after, "apps/web/base/vm.yaml"),
        ["KV0018"],
        "the suppression applies, the reasonless one is reported once, none is unused: {after:#}"
    );
    for count in ["files", "documents", "objects", "vms", "rendered", "units"] {
        assert_eq!(
            after["summary"][count], before["summary"][count],
            "{count}: {after:#}"
        );
    }
}

/// The counts of a run with units are those of the objects rendered, whether the units stage
/// read their documents or left them for the VM pass.
#[test]
fn rendered_vms_left_unread_are_counted() {
    if !kustomize_available("rendered_vms_left_unread_are_counted") {
        return;
    }
    let report = check(Path::new(FIXTURE));
    let summary = &report["summary"];
    assert_eq!(
        (
            &summary["units"],
            &summary["documents"],
            &summary["objects"],
            &summary["vms"]
        ),
        (
            &serde_json::json!(3),
            &serde_json::json!(9),
            &serde_json::json!(9),
            &serde_json::json!(5)
        ),
        "{report:#}"
    );
}
