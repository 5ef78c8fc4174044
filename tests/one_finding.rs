//! One problem, one finding, in `--format json` too: a field the API server drops is one
//! unknown-field finding that carries the drift.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn check_json(dir: &Path, target: &str) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", target, "--format", "json", "--fail-on", "none"])
        .current_dir(dir)
        .env("KVLINT_CACHE_DIR", dir.join(".cache"))
        .output()
        .expect("kvlint runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON report")
}

fn diagnostics(report: &Value) -> &[Value] {
    report["diagnostics"].as_array().expect("diagnostics")
}

/// The codes of the findings at each (file, line, column) that holds more than one.
fn crowded(report: &Value) -> BTreeMap<(String, u64, u64), Vec<String>> {
    let mut at: BTreeMap<(String, u64, u64), Vec<String>> = BTreeMap::new();
    for d in diagnostics(report) {
        let key = (
            d["file"].as_str().unwrap_or_default().to_owned(),
            d["line"].as_u64().unwrap_or_default(),
            d["column"].as_u64().unwrap_or_default(),
        );
        at.entry(key)
            .or_default()
            .push(d["code"].as_str().unwrap_or_default().to_owned());
    }
    at.retain(|_, codes| codes.len() > 1);
    at
}

/// A VM KubeVirt admits, with fields its VirtualMachine type does not have: a misplaced disk
/// bus, a label key written as a field of the template's metadata, the retired `spec.flavor`
/// and a `resources` map in a data volume template's spec (whose leaf the API server drops).
const VM_WITH_UNKNOWN_FIELDS: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: typo
spec:
  runStrategy: Halted
  flavor:
    name: small
  dataVolumeTemplates:
    - metadata:
        name: root
      spec:
        source:
          blank: {}
        storage:
          resources:
            requests:
              storage: 1Gi
        resources:
          requests:
            storage: 2Gi
  template:
    metadata:
      kubevirt.io/domain: typo
    spec:
      architecture: amd64
      domain:
        machine:
          type: q35
        firmware:
          uuid: 5a9fc181-957e-5c32-9e5a-2de5e9673531
          serial: fixed
        devices:
          disks:
            - name: root
              bus: virtio
        memory:
          guest: 1Gi
      volumes:
        - name: root
          dataVolume:
            name: root
";

#[test]
fn a_dropped_unknown_field_is_one_finding_that_carries_its_drift() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vm.yaml"), VM_WITH_UNKNOWN_FIELDS).unwrap();
    let report = check_json(dir.path(), "vm.yaml");
    assert_eq!(crowded(&report), BTreeMap::new());
    let unknown: Vec<(&str, &str)> = diagnostics(&report)
        .iter()
        .filter(|d| d["code"] == "KV0014")
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default(),
                d["drift"].as_str().unwrap_or("none"),
            )
        })
        .collect();
    assert_eq!(
        unknown,
        [
            ("spec.flavor", "out-of-sync"),
            ("spec.dataVolumeTemplates[0].spec.resources", "out-of-sync"),
            ("spec.template.metadata[kubevirt.io/domain]", "out-of-sync"),
            (
                "spec.template.spec.domain.devices.disks[0].bus",
                "out-of-sync"
            ),
        ]
    );
    let others: Vec<&str> = diagnostics(&report)
        .iter()
        .filter(|d| d["code"] != "KV0014")
        .map(|d| d["code"].as_str().unwrap_or_default())
        .collect();
    assert!(
        !others
            .iter()
            .any(|code| ["KV3008", "KV0010"].contains(code)),
        "{others:?}"
    );
    let flavor = diagnostics(&report)
        .iter()
        .find(|d| d["path"] == "spec.flavor")
        .unwrap();
    assert_eq!(
        flavor["message"],
        "`flavor` is not a field of KubeVirt's VirtualMachine here: the API server drops it without an error; Argo CD shows it OutOfSync"
    );
    assert_eq!(
        flavor["help"],
        "spec.flavor was retired before KubeVirt v1.0; use spec.instancetype"
    );
    assert_eq!(flavor["severity"], "error");
}

#[test]
fn a_refused_vm_s_unknown_field_carries_no_drift() {
    let dir = tempfile::tempdir().unwrap();
    // A VM KubeVirt refuses (an instance type that cannot be found, up to v1.5) never reaches
    // the cluster: its unknown field is reported without a drift kind.
    let vm = VM_WITH_UNKNOWN_FIELDS.replace(
        "  runStrategy: Halted\n",
        "  runStrategy: Halted\n  instancetype:\n    name: nowhere\n",
    );
    std::fs::write(dir.path().join("vm.yaml"), vm).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", "vm.yaml", "--format", "json", "--fail-on", "none"])
        .args(["--kubevirt-version", "v1.5"])
        .current_dir(dir.path())
        .output()
        .expect("kvlint runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    let unknown: Vec<&Value> = diagnostics(&report)
        .iter()
        .filter(|d| d["code"] == "KV0014")
        .collect();
    assert_eq!(unknown.len(), 4, "{report:#}");
    assert!(
        unknown.iter().all(|d| d.get("drift").is_none()),
        "{report:#}"
    );
    assert!(
        diagnostics(&report)
            .iter()
            .any(|d| d["category"] == "reject"),
        "{report:#}"
    );
}
