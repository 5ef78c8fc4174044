//! One problem, one finding, in `--format json` too: a field the API server drops is one
//! unknown-field finding that carries the drift; an instance type without a spec is refused
//! once; a base that fails to build is reported once, naming every unit that uses it.

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
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

#[test]
fn an_instance_type_without_a_spec_is_refused_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for (name, spec) in [
        ("absent", ""),
        ("empty", "spec: null\n"),
        ("listed", "spec: []\n"),
    ] {
        let _ = write!(
            text,
            "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterPreference\nmetadata:\n  name: {name}\n{spec}---\n"
        );
    }
    std::fs::write(dir.path().join("preferences.yaml"), text).unwrap();
    let report = check_json(dir.path(), "preferences.yaml");
    let found: Vec<(u64, &str, &str)> = diagnostics(&report)
        .iter()
        .map(|d| {
            (
                d["line"].as_u64().unwrap_or_default(),
                d["code"].as_str().unwrap_or_default(),
                d["path"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (1, "KV0015", "spec"),
            (6, "KV0015", "spec"),
            (16, "KV0015", "spec")
        ]
    );
}

#[test]
fn a_value_the_schema_refuses_is_not_refused_again_by_the_webhook() {
    let dir = tempfile::tempdir().unwrap();
    let instancetype = |name: &str, cpu: &str, memory: &str| {
        format!(
            "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: {name}\nspec:\n  cpu:\n    guest: {cpu}\n  memory:\n    guest: 1Gi\n{memory}---\n"
        )
    };
    let text = [
        instancetype("over", "1", "    overcommitPercent: 150\n"),
        instancetype("typed", "two", ""),
        // The schema accepts these; KubeVirt's webhook refuses them.
        instancetype("negative", "-1", ""),
        instancetype(
            "hugepages",
            "1",
            "    overcommitPercent: 10\n    hugepages:\n      pageSize: 2Mi\n",
        ),
    ]
    .concat();
    std::fs::write(dir.path().join("instancetypes.yaml"), text).unwrap();
    let report = check_json(dir.path(), "instancetypes.yaml");
    let found: Vec<(&str, &str)> = diagnostics(&report)
        .iter()
        .map(|d| {
            (
                d["object"]["name"].as_str().unwrap_or_default(),
                d["code"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("over", "KV0015"),
            ("typed", "KV0015"),
            ("negative", "KV1012"),
            ("hugepages", "KV1013")
        ]
    );
}

#[test]
fn a_base_that_does_not_build_is_one_finding_naming_every_unit() {
    if !common::kustomize_available("a_base_that_does_not_build_is_one_finding_naming_every_unit") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "base/kustomization.yaml",
        "resources:\n  - vm.yaml\n  - missing.yaml\n",
    );
    write("base/vm.yaml", common::WITNESS);
    for overlay in ["dev", "prod"] {
        write(
            &format!("overlays/{overlay}/kustomization.yaml"),
            &format!("namePrefix: {overlay}-\nresources:\n  - ../../base\n"),
        );
    }
    let report = check_json(dir.path(), ".");
    let failed: Vec<&Value> = diagnostics(&report)
        .iter()
        .filter(|d| d["code"] == "KV0020")
        .collect();
    assert_eq!(failed.len(), 1, "{report:#}");
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot build overlays/dev and overlays/prod: "),
        "{message}"
    );
    assert_eq!(failed[0]["file"], "base/kustomization.yaml");
    assert_eq!(failed[0]["line"], 3);
}
