//! Patch releases: `--kubevirt-version vX.Y.Z` reproduces what KubeVirt backported to that patch
//! release, `vX.Y` means the newest patch release kvlint knows and is shown as `vX.Y`, and a
//! patch release newer than the newest known is checked as that one, with a note.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// A VM that sets none of the fields the webhook fills in: the drift it gets is exactly what
/// the release's webhook writes on create.
const VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
  namespace: apps
spec:
  runStrategy: Halted
  instancetype:
    kind: VirtualMachineClusterInstancetype
    name: u1.small
  preference:
    kind: VirtualMachineClusterPreference
    name: fedora
  template:
    spec:
      domain:
        devices: {}
      volumes:
        - name: root
          containerDisk:
            image: quay.io/containerdisks/fedora:41
";

fn kvlint(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .arg("--no-config")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kvlint starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("stdin written");
    let output = child.wait_with_output().expect("kvlint ends");
    assert!(
        output.status.code().is_some_and(|code| code < 2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The drift findings of `manifest` at `version`: `CODE path message`, in report order.
fn drift(manifest: &str, version: &str) -> Vec<String> {
    let output = kvlint(
        &[
            "check",
            "-",
            "--stdin-filename",
            "vm.yaml",
            "--format",
            "json",
            "--fail-on",
            "none",
            "--kubevirt-version",
            version,
        ],
        manifest,
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON report");
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["category"] == "drift")
        .map(|d| {
            format!(
                "{} {} {}",
                d["code"].as_str().unwrap_or(""),
                d["path"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or("")
            )
        })
        .collect()
}

const ARCH: &str = "spec.template.spec.architecture";
const MACHINE: &str = "spec.template.spec.domain.machine.type";
const FIRMWARE: &str = "spec.template.spec.domain.firmware";
const PCI: &str = "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]";

fn architecture(version: &str) -> String {
    format!("KV3004 {ARCH} KubeVirt {version} writes architecture `amd64` into `{ARCH}`")
}

fn machine_type(version: &str) -> String {
    format!("KV3003 {MACHINE} KubeVirt {version} writes machine type `q35` into `{MACHINE}`")
}

/// What the VM controller of older releases derives from the VM's name (not under test here).
fn legacy_uuid() -> String {
    kvlint::controller::drift::legacy_firmware_uuid("web").to_string()
}

fn uuid_only(version: &str) -> String {
    format!(
        "KV3006 {FIRMWARE}.uuid KubeVirt {version} generates a random `{FIRMWARE}.uuid` when the VM is created; it differs on every cluster and every re-creation; a VM created before v1.6 (or whose uuid is removed later) gets `{}`, derived from its name, from the VM controller",
        legacy_uuid()
    )
}

fn uuid_and_serial(version: &str) -> String {
    format!(
        "KV3006 {FIRMWARE} KubeVirt {version} generates a random `{FIRMWARE}.uuid` and `{FIRMWARE}.serial` when the VM is created; they differ on every cluster and every re-creation; a VM created before v1.6 (or whose uuid is removed later) gets `{}`, derived from its name, from the VM controller",
        legacy_uuid()
    )
}

fn pci_topology(version: &str) -> String {
    format!("KV3007 {PCI} KubeVirt {version} adds `{PCI}: v3` on create")
}

#[test]
fn v1_6_0_generates_the_uuid_only_and_no_pci_topology_annotation() {
    assert_eq!(
        drift(VM, "v1.6.0"),
        [
            architecture("v1.6.0"),
            machine_type("v1.6.0"),
            uuid_only("v1.6.0")
        ]
    );
}

#[test]
fn v1_6_4_also_generates_the_serial_and_adds_the_pci_topology_annotation() {
    assert_eq!(
        drift(VM, "v1.6.4"),
        [
            pci_topology("v1.6.4"),
            architecture("v1.6.4"),
            machine_type("v1.6.4"),
            uuid_and_serial("v1.6.4")
        ]
    );
}

#[test]
fn v1_7_0_adds_no_pci_topology_annotation() {
    assert_eq!(
        drift(VM, "v1.7.0"),
        [
            architecture("v1.7.0"),
            machine_type("v1.7.0"),
            uuid_and_serial("v1.7.0")
        ]
    );
}

#[test]
fn v1_7_2_adds_the_pci_topology_annotation() {
    assert_eq!(
        drift(VM, "v1.7.2"),
        [
            pci_topology("v1.7.2"),
            architecture("v1.7.2"),
            machine_type("v1.7.2"),
            uuid_and_serial("v1.7.2")
        ]
    );
}

#[test]
fn the_serial_came_with_v1_6_1_and_v1_5_3() {
    assert!(drift(VM, "v1.6.1").contains(&uuid_and_serial("v1.6.1")));
    let v1_5_3 = drift(VM, "v1.5.3");
    assert!(
        v1_5_3.contains(&format!(
            "KV3006 {FIRMWARE}.serial KubeVirt v1.5.3 generates a random `{FIRMWARE}.serial` when the VM is created; it differs on every cluster and every re-creation"
        )),
        "{v1_5_3:#?}"
    );
    assert!(!drift(VM, "v1.5.2").iter().any(|d| d.starts_with("KV3006")));
}

#[test]
fn a_minor_line_means_its_first_release_and_is_shown_as_given() {
    // v1.6 is v1.6.0 (as the conformance sets name releases): no annotation, no serial; each
    // message names the release as the user wrote it.
    assert_eq!(
        drift(VM, "v1.6"),
        drift(VM, "v1.6.0")
            .iter()
            .map(|d| d.replace("v1.6.0", "v1.6"))
            .collect::<Vec<_>>()
    );
    assert!(!drift(VM, "v1.7").contains(&pci_topology("v1.7")));
    assert!(drift(VM, "1.8").contains(&pci_topology("v1.8")));
}

#[test]
fn a_patch_release_newer_than_known_is_checked_as_the_newest_known_with_a_note() {
    let output = kvlint(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--kubevirt-version",
            "v1.7.9",
        ],
        VM,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "kvlint: note: KubeVirt v1.7.9 is newer than the releases kvlint knows: it is checked as v1.7.4"
        ),
        "{stderr}"
    );
    assert_eq!(drift(VM, "v1.7.9"), drift(VM, "v1.7.4"));
}

#[test]
fn refuses_a_version_that_is_not_a_release() {
    for version in ["v1.7.0-rc.1", "v1.7.y", "v1.10.0", "v1"] {
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args(["check", "--no-config", "--kubevirt-version", version, "-"])
            .stdin(Stdio::null())
            .output()
            .expect("kvlint runs");
        assert_eq!(output.status.code(), Some(2), "{version}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("kvlint: error: "), "{version}: {stderr}");
    }
}

/// The pci-topology annotation's gates: by architecture from v1.6.5 / v1.7.3 / v1.8.2, by
/// machine type from v1.6.6 / v1.7.4 / v1.8.3.
#[test]
fn the_pci_topology_annotation_follows_its_architecture_and_machine_type_gates() {
    // No preference (fedora requires amd64); the gate lets v1.6 and v1.7 admit s390x at all.
    let s390x = format!(
        "{}---\napiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    developerConfiguration:\n      featureGates: [MultiArchitecture]\n",
        VM.replace(
            "  preference:\n    kind: VirtualMachineClusterPreference\n    name: fedora\n",
            "",
        )
        .replace(
            "      domain:\n",
            "      architecture: s390x\n      domain:\n"
        )
    );
    let has_pci = |manifest: &str, version: &str| {
        drift(manifest, version)
            .iter()
            .any(|d| d.starts_with("KV3007"))
    };
    assert!(has_pci(&s390x, "v1.6.4") && !has_pci(&s390x, "v1.6.5"));
    assert!(has_pci(&s390x, "v1.7.2") && !has_pci(&s390x, "v1.7.3"));
    assert!(has_pci(&s390x, "v1.8.1") && !has_pci(&s390x, "v1.8.2"));

    // A machine type that is neither q35 nor virt (allowed because the cluster configures it).
    let i440fx = format!(
        "{VM}---\napiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    machineType: pc-i440fx-rhel7.6.0\n"
    );
    assert!(has_pci(&i440fx, "v1.7.3") && !has_pci(&i440fx, "v1.7.4"));
    assert!(has_pci(&i440fx, "v1.6.5") && !has_pci(&i440fx, "v1.6.6"));
    assert!(has_pci(&i440fx, "v1.8.2") && !has_pci(&i440fx, "v1.8.3"));
}

/// The memory request of the rendered VM: defaulted with the overcommit up to v1.6.1 and in
/// v1.6.3 (the backport was reverted), without it in v1.6.2, not at all from v1.6.4.
#[test]
fn the_memory_request_default_follows_the_v1_6_patch_releases() {
    let overcommit = format!(
        "{VM}---\napiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    developerConfiguration:\n      memoryOvercommit: 200\n"
    );
    let request = |version: &str| {
        let output = kvlint(
            &[
                "render",
                "-",
                "--format",
                "json",
                "--kubevirt-version",
                version,
            ],
            &overcommit,
        );
        let rendered: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON render");
        rendered[0]
            .pointer("/spec/template/spec/domain/resources/requests/memory")
            .cloned()
    };
    let half = Some(serde_json::json!("1Gi"));
    let whole = Some(serde_json::json!("2Gi"));
    assert_eq!(request("v1.6.1"), half);
    assert_eq!(request("v1.6.2"), whole);
    assert_eq!(request("v1.6.3"), half);
    assert_eq!(request("v1.6.4"), None);
    // `v1.6` is v1.6.0, which still had the default.
    assert_eq!(request("v1.6"), half);
}

/// A revision the VM's status references, captured from another instance type: v1.5.0 and
/// v1.5.1 use it anyway, v1.5.2 (and v1.6+) only when it is of the instance type the matcher
/// names, else the instance type itself.
#[test]
fn a_status_revision_of_another_object_is_used_only_before_v1_5_2() {
    const MANIFEST: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: vm-large-rev
  namespace: default
  labels:
    instancetype.kubevirt.io/object-name: large
data:
  apiVersion: instancetype.kubevirt.io/v1beta1
  kind: VirtualMachineClusterInstancetype
  metadata:
    name: large
  spec:
    cpu:
      guest: 4
    memory:
      guest: 1Gi
revision: 1
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  namespace: default
spec:
  runStrategy: Halted
  instancetype:
    kind: VirtualMachineClusterInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {}
status:
  instancetypeRef:
    kind: VirtualMachineClusterInstancetype
    name: large
    controllerRevisionRef:
      name: vm-large-rev
";
    let sockets = |version: &str| {
        let output = kvlint(
            &[
                "render",
                "-",
                "--format",
                "json",
                "--kubevirt-version",
                version,
            ],
            MANIFEST,
        );
        let rendered: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("JSON render");
        rendered[0]
            .pointer("/spec/template/spec/domain/cpu/sockets")
            .cloned()
    };
    assert_eq!(sockets("v1.5.1"), Some(serde_json::json!(4)));
    assert_eq!(sockets("v1.5.2"), Some(serde_json::json!(1)));
    // `v1.5` is v1.5.0.
    assert_eq!(sockets("v1.5"), Some(serde_json::json!(4)));
}
