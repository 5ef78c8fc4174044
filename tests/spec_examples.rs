//! Worked examples whose results come from running KubeVirt's own code, end to end through
//! `check` and `render`.

use kvlint::check::{self, Options, Report};
use kvlint::source::Selection;
use serde_json::Value;

fn run(yaml: &str) -> Report {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("input.yaml"), yaml).unwrap();
    check::run(&Options {
        selection: Selection {
            paths: vec![dir.path().to_path_buf()],
            ..Selection::default()
        },
        ..Options::default()
    })
    .unwrap()
}

/// Codes of the findings other than drift (every admitted VM drifts in machine type and so on).
fn codes(report: &Report) -> Vec<&str> {
    report
        .findings
        .iter()
        .filter(|f| f.rule.category != kvlint::diag::Category::Drift)
        .map(|f| f.rule.code)
        .collect()
}

fn rendered(report: &Report) -> &Value {
    &report.rendered.first().expect("the VM is rendered").value
}

const INSTANCETYPE_2: &str = "
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 2}
  memory: {guest: 2Gi}
";

fn vm(spec_extra: &str, template_spec: &str) -> String {
    format!(
        "---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {{name: vm}}
spec:
  runStrategy: Halted
{spec_extra}
  template:
    spec:
{template_spec}
"
    )
}

/// `pkg/instancetype/apply/nodeselector.go`, `applyNodeSelector`: an empty VM nodeSelector
/// conflicts in expand, but admission (after the
/// mutating webhook's re-serialisation drops it) lets the VM through.
#[test]
fn empty_node_selector_conflicts_in_expand_only() {
    let report = run(&format!(
        "{}  nodeSelector: {{zone: a}}\n{}",
        INSTANCETYPE_2,
        vm(
            "  instancetype: {name: it}",
            "      nodeSelector: {}\n      domain: {devices: {}}"
        )
    ));
    assert!(report.rendered.is_empty());
    assert_eq!(codes(&report), ["KV1010"], "{:#?}", report.findings);
    let expand_failed = report
        .findings
        .iter()
        .find(|f| f.rule.code == "KV1010")
        .unwrap();
    assert_eq!(
        expand_failed.message,
        "VM field(s) spec.template.spec.nodeSelector conflicts with selected instance type"
    );
}

/// `pkg/instancetype/conflict/conflicts.go`, `Conflicts.StatusCauses`: every conflict is
/// reported, with KubeVirt's message and field each.
#[test]
fn conflicts_of_many_sections() {
    let instancetype = "
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  nodeSelector: {a: b}
  schedulerName: other
  cpu: {guest: 2, model: Haswell, dedicatedCPUPlacement: true}
  memory: {guest: 2Gi, hugepages: {pageSize: 1Gi}}
  ioThreadsPolicy: auto
  gpus: [{name: g2, deviceName: nvidia.com/g2}]
  hostDevices: [{name: h2, deviceName: example.com/h2}]
  annotations: {a: '1', b: '3', c: '4'}
";
    let report = run(&format!(
        "{instancetype}---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {{name: vm}}
spec:
  runStrategy: Halted
  instancetype: {{name: it}}
  template:
    metadata:
      annotations: {{a: '1', b: '2'}}
    spec:
      nodeSelector: {{x: y1}}
      schedulerName: foo
      domain:
        cpu: {{sockets: 2, cores: 1, model: host-passthrough}}
        memory: {{guest: 1Gi, hugepages: {{pageSize: 2Mi}}}}
        resources:
          requests: {{cpu: 1, memory: 1Gi}}
          limits: {{cpu: 2, memory: 2Gi}}
        ioThreadsPolicy: shared
        devices:
          gpus: [{{name: g1, deviceName: nvidia.com/g1}}]
          hostDevices: [{{name: h1, deviceName: example.com/h1}}]
"
    ));
    let mut fields: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule.code == "KV1001")
        .filter_map(|f| f.kubevirt_field.as_deref())
        .collect();
    fields.sort_unstable();
    let mut expected = vec![
        "spec.template.spec.nodeSelector",
        "spec.template.spec.schedulerName",
        "spec.template.spec.domain.resources.requests.cpu",
        "spec.template.spec.domain.resources.limits.cpu",
        "spec.template.spec.domain.cpu.sockets",
        "spec.template.spec.domain.cpu.cores",
        "spec.template.spec.domain.cpu.model",
        "spec.template.spec.domain.memory.guest",
        "spec.template.spec.domain.ioThreadsPolicy",
        "spec.template.spec.domain.devices.gpus",
        "spec.template.spec.domain.devices.hostDevices",
        "annotations.b",
    ];
    expected.sort_unstable();
    assert_eq!(fields, expected);
    assert!(report.rendered.is_empty());
}

/// `pkg/instancetype/preference/apply/cpu.go`, `applyCPUPreferences`: preferred CPU features
/// on a VM without instance type and without
/// `domain.cpu` make KubeVirt's webhook panic.
#[test]
fn cpu_features_without_domain_cpu_fail_the_webhook() {
    let report = run(&format!(
        "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {{name: p}}
spec:
  cpu:
    preferredCPUFeatures: [{{name: vmx, policy: require}}]
{}",
        vm(
            "  preference: {name: p}",
            "      domain: {devices: {}, memory: {guest: 1Gi}}"
        )
    ));
    assert!(codes(&report).contains(&"KV1009"), "{:#?}", report.findings);
}

/// `pkg/instancetype/preference/apply/features.go`: preferredAcpi overwrites a VM's own ACPI
/// setting.
#[test]
fn preferred_acpi_overwrites_the_vm() {
    let report = run(&format!(
        "{}---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {{name: p}}
spec:
  features:
    preferredAcpi: {{}}
{}",
        INSTANCETYPE_2,
        vm(
            "  instancetype: {name: it}\n  preference: {name: p}",
            "      domain: {devices: {}, features: {acpi: {enabled: false}}}"
        )
    ));
    let features = &rendered(&report)["spec"]["template"]["spec"]["domain"]["features"];
    assert_eq!(features, &serde_json::json!({"acpi": {}}));
}

/// `pkg/instancetype/preference/apply/firmware.go`, `applyFirmwarePreferences`: a firmware
/// preference creates `firmware.bootloader` even when nothing else
/// applies.
#[test]
fn firmware_preference_creates_the_bootloader() {
    let report = run(&format!(
        "{}---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {{name: p}}
spec:
  firmware:
    preferredUseBiosSerial: true
{}",
        INSTANCETYPE_2,
        vm(
            "  instancetype: {name: it}\n  preference: {name: p}",
            "      domain: {devices: {}}"
        )
    ));
    let firmware = &rendered(&report)["spec"]["template"]["spec"]["domain"]["firmware"];
    assert_eq!(firmware, &serde_json::json!({"bootloader": {}}));
}

/// `pkg/instancetype/preference/requirements/cpu.go`, `checkCPU`, after
/// `pkg/defaults/defaults.go`, `SetDefaultGuestCPUTopology`: defaults fill the topology only
/// when sockets, cores and threads are all 0;
/// a VM with only `cores: 1` provides 0 sockets to a sockets preference.
#[test]
fn requirement_sees_the_defaulted_topology() {
    let report = run(&format!(
        "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {{name: p}}
spec:
  requirements:
    cpu: {{guest: 1}}
{}",
        vm(
            "  preference: {name: p}",
            "      domain: {devices: {}, cpu: {cores: 1}, memory: {guest: 1Gi}}"
        )
    ));
    let finding = report
        .findings
        .iter()
        .find(|f| f.rule.code == "KV1002")
        .expect("requirement");
    assert_eq!(
        finding.message,
        "failure checking preference requirements: insufficient CPU resources of 0 vCPU provided by VirtualMachine, preference requires 1 vCPU provided as sockets"
    );
    assert_eq!(
        finding.kubevirt_field.as_deref(),
        Some("spec.template.spec.domain.cpu.sockets")
    );
}

/// `pkg/instancetype/preference/validation/cpu.go`, `CheckSpreadCPUTopology`: the spread check
/// runs before the 1-vCPU shortcut: a 1-vCPU instance type with
/// a spread preference is refused although it would render as 1/1/1.
#[test]
fn one_vcpu_spread_is_refused_but_renders() {
    let report = run("apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi}
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {name: p}
spec:
  cpu: {preferredCPUTopology: spread}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: vm}
spec:
  runStrategy: Halted
  instancetype: {name: it}
  preference: {name: p}
  template:
    spec:
      domain: {devices: {}}
");
    let finding = report
        .findings
        .iter()
        .find(|f| f.rule.code == "KV1003")
        .expect("spread");
    assert_eq!(
        finding.kubevirt_field.as_deref(),
        Some("instancetype.spec.cpu.guest")
    );
    let cpu = &rendered(&report)["spec"]["template"]["spec"]["domain"]["cpu"];
    assert_eq!(
        cpu,
        &serde_json::json!({"cores": 1, "sockets": 1, "threads": 1})
    );
}

/// `pkg/instancetype/expand/expand.go`, `Expand` (`SetDefaultNetworkInterface` before
/// `ApplyToVMI`): the default interface gets its bridge binding before preferences, so
/// preferredInterfaceMasquerade does not apply to it, while preferredInterfaceModel does.
#[test]
fn default_interface_keeps_bridge_but_takes_the_model() {
    let report = run(&format!(
        "{}---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {{name: p}}
spec:
  devices:
    preferredInterfaceMasquerade: {{}}
    preferredInterfaceModel: e1000e
{}",
        INSTANCETYPE_2,
        vm(
            "  instancetype: {name: it}\n  preference: {name: p}",
            "      domain: {devices: {}}"
        )
    ));
    let interfaces =
        &rendered(&report)["spec"]["template"]["spec"]["domain"]["devices"]["interfaces"];
    assert_eq!(
        interfaces,
        &serde_json::json!([{"name": "default", "model": "e1000e", "bridge": {}}])
    );
}

/// `pkg/instancetype/apply/memory.go`, `applyMemory`, and apimachinery's `Quantity.String`:
/// the overcommitted request is computed in single precision and printed
/// canonically; memory.guest keeps its canonical form.
#[test]
fn overcommit_in_single_precision() {
    let report = run(&format!(
        "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {{name: it}}
spec:
  cpu: {{guest: 1}}
  memory: {{guest: 2048Mi, overcommitPercent: 10}}
{}",
        vm("  instancetype: {name: it}", "      domain: {devices: {}}")
    ));
    let domain = &rendered(&report)["spec"]["template"]["spec"]["domain"];
    assert_eq!(domain["memory"]["guest"], "2Gi");
    assert_eq!(domain["resources"]["requests"]["memory"], "1932735232");
}

/// The expand endpoint (`pkg/virt-api/rest/expand.go`) on `u1.medium` and `fedora` from the
/// built-in catalog (v1.7.0
/// content), a containerDisk and a cloud-init volume, default cluster.
#[test]
fn worked_example_u1_medium_fedora() {
    let report = run("apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: vm}
spec:
  runStrategy: Always
  instancetype: {name: u1.medium}
  preference: {name: fedora}
  template:
    spec:
      domain: {devices: {}}
      volumes:
      - name: rootdisk
        containerDisk: {image: \"quay.io/containerdisks/fedora:41\"}
      - name: cloudinit
        cloudInitNoCloud: {userData: \"#cloud-config\"}
");
    let spec = &rendered(&report)["spec"];
    let expected = serde_json::json!({
        "runStrategy": "Always",
        "template": {
            "metadata": {"annotations": {"vm.kubevirt.io/os": "linux"}},
            "spec": {
                "architecture": "amd64",
                "domain": {
                    "cpu": {"cores": 1, "sockets": 1, "threads": 1},
                    "devices": {
                        "disks": [
                            {"disk": {"bus": "virtio"}, "name": "rootdisk"},
                            {"disk": {"bus": "virtio"}, "name": "cloudinit"}
                        ],
                        "interfaces": [{"bridge": {}, "model": "virtio", "name": "default"}],
                        "rng": {}
                    },
                    "features": {"acpi": {}, "smm": {}},
                    "firmware": {"bootloader": {"efi": {"secureBoot": true}}},
                    "machine": {"type": "q35"},
                    "memory": {"guest": "4Gi"},
                    "resources": {}
                },
                "evictionStrategy": "None",
                "networks": [{"name": "default", "pod": {}}],
                "volumes": [
                    {"containerDisk": {"image": "quay.io/containerdisks/fedora:41", "imagePullPolicy": "IfNotPresent"}, "name": "rootdisk"},
                    {"cloudInitNoCloud": {"userData": "#cloud-config"}, "name": "cloudinit"}
                ]
            }
        }
    });
    assert_eq!(spec, &expected);
}
