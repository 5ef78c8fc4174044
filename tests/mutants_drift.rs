//! Drift of the VM's own metadata: labels and annotations are compared like the spec (tests that
//! kill mutants of the drift prediction, docs/testing/mutants.md).

use std::process::Command;

/// A VM whose only drift is a null label value, which KubeVirt stores as the empty string.
const NULL_LABEL: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  namespace: apps
  labels:
    app: null
    tier: web
spec:
  runStrategy: Halted
  template:
    metadata:
      annotations:
        kubevirt.io/pci-topology-version: v3
    spec:
      architecture: amd64
      domain:
        machine: {type: q35}
        firmware: {uuid: 5d307ca9-b3ef-428c-8861-06e72d69f223, serial: s1}
        devices: {}
        memory: {guest: 1Gi}
";

#[test]
fn a_changed_label_of_the_vm_is_drift_at_that_label() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vm.yaml"), NULL_LABEL).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir.path())
        .args(["check", "vm.yaml"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let findings: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("vm.yaml:"))
        .collect();
    assert_eq!(
        findings,
        [
            "vm.yaml:7:5: info[KV3008] KubeVirt stores `metadata.labels.app` as `` (written as `null`)"
        ],
        "{stdout}"
    );
}
