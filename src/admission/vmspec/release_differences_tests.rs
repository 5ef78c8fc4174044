//! Per-release webhook differences found by the project's own conformance cases
//! (testdata/conformance/own), each checked against KubeVirt's source at the tags named.

use serde_json::json;

use super::test_support::{one, profile, run_with};

/// vmi-create-admitter.go: no virtiofs gate at v1.4.0; config and storage volumes gated (or the
/// old ExperimentalVirtiofsSupport gate) at v1.5.0–v1.7.0; only storage volumes at v1.8.0.
#[test]
fn virtiofs_volumes_are_gated_per_release() {
    let on = |volume: serde_json::Value| {
        json!({
            "domain": {"devices": {"filesystems": [{"name": "fs", "virtiofs": {}}]}},
            "volumes": [
                {"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}},
                volume
            ]
        })
    };
    let config = on(json!({"name": "fs", "configMap": {"name": "settings"}}));
    let pvc = on(json!({"name": "fs", "persistentVolumeClaim": {"claimName": "data"}}));
    let field = "spec.template.spec.domain.devices.filesystems";
    let config_refused = one(
        field,
        "virtiofs is not allowed: virtiofs feature gate is not enabled for config volumes",
    );
    let pvc_refused = one(
        field,
        "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC",
    );
    assert_eq!(run_with(&pvc, &profile((1, 4), &[])), vec![]);
    assert_eq!(run_with(&config, &profile((1, 4), &[])), vec![]);
    for minor in 5..=7 {
        assert_eq!(run_with(&config, &profile((1, minor), &[])), config_refused);
        assert_eq!(run_with(&pvc, &profile((1, minor), &[])), pvc_refused);
        let old = profile((1, minor), &["ExperimentalVirtiofsSupport"]);
        assert_eq!(run_with(&config, &old), vec![]);
        assert_eq!(run_with(&pvc, &old), vec![]);
        let config_gate = profile((1, minor), &["EnableVirtioFsConfigVolumes"]);
        assert_eq!(run_with(&config, &config_gate), vec![]);
    }
    for minor in 8..=9 {
        assert_eq!(run_with(&config, &profile((1, minor), &[])), vec![]);
        assert_eq!(run_with(&pvc, &profile((1, minor), &[])), pvc_refused);
    }
}

/// pkg/network/admitter/admit.go, `validateInterfaceStateValue`: v1.4.0 accepts only `absent`;
/// v1.5.0 adds the link states `up` and `down`.
#[test]
fn link_state_is_accepted_from_v1_5() {
    let down = json!({"domain": {"devices": {"interfaces": [
        {"name": "default", "masquerade": {}, "state": "down"}
    ]}}});
    assert_eq!(
        run_with(&down, &profile((1, 4), &[])),
        one(
            "spec.template.spec.domain.devices.interfaces[0].state",
            "logical default interface state value is unsupported: down"
        )
    );
    assert_eq!(run_with(&down, &profile((1, 5), &[])), vec![]);
}

/// virt-config.go at v1.6.0 (`DefaultPPC64LEEmulatedMachines = "pseries*"`); v1.7.0 removed
/// ppc64le.
#[test]
fn ppc64le_machines_are_pseries_up_to_v1_6() {
    let pseries = json!({"architecture": "ppc64le", "domain": {"machine": {"type": "pseries"}}});
    let gate = |minor| profile((1, minor), &["MultiArchitecture"]);
    assert_eq!(run_with(&pseries, &gate(4)), vec![]);
    assert_eq!(run_with(&pseries, &gate(6)), vec![]);
    assert_eq!(
        run_with(&pseries, &gate(7)).first().map(|c| c.0.as_str()),
        Some("spec.template.spec.domain.machine.type")
    );
}

/// An empty CD-ROM: v1.5.0 reports its missing volume like any disk's; v1.6.0
/// (vmi-create-admitter.go, DeclarativeHotplugVolumes) allows it behind the gate.
#[test]
fn an_empty_cdrom_is_a_missing_volume_before_v1_6() {
    let cdrom = json!({"domain": {"devices": {"disks": [
        {"name": "root", "disk": {"bus": "virtio"}},
        {"name": "cd", "cdrom": {"bus": "sata"}}
    ]}}});
    let field = "spec.template.spec.domain.devices.disks[1].name";
    for gates in [&[][..], &["DeclarativeHotplugVolumes"][..]] {
        assert_eq!(
            run_with(&cdrom, &profile((1, 5), gates)),
            one(
                field,
                "spec.template.spec.domain.devices.disks[1].Name 'cd' not found."
            )
        );
    }
    assert_eq!(
        run_with(&cdrom, &profile((1, 6), &[])),
        one(
            field,
            "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk"
        )
    );
    assert_eq!(
        run_with(&cdrom, &profile((1, 6), &["DeclarativeHotplugVolumes"])),
        vec![]
    );
}
