//! `kvlint diff` verdicts for a running VM where KubeVirt's VM controller
//! (`pkg/virt-controller/watch/vm/vm.go`) differs between releases, as `testdata/liveupdate`
//! found them with the controller built at v1.6.0 and v1.7.0.

use crate::liveupdate_support;

use kvlint::commands::diff::EffectKind;
use liveupdate_support::effect_at;

/// A running VM in `apps` with one socket and 2Gi; `disks` and `volumes` are extra YAML lines
/// under the disks and the volumes.
fn vm(disks: &str, volumes: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  runStrategy: Always\n  template:\n    spec:\n      domain:\n        cpu: {{sockets: 1, cores: 1, threads: 1}}\n        memory: {{guest: 2Gi}}\n        devices:\n          disks:\n          - name: root\n            disk: {{bus: virtio}}\n{disks}      volumes:\n      - name: root\n        containerDisk: {{image: quay.io/containerdisks/fedora:41}}\n{volumes}"
    )
}

const HOTPLUG_VOLUME: &str =
    "      - name: data\n        persistentVolumeClaim: {claimName: data, hotpluggable: true}\n";

const CLAIM: &str = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: apps\nspec:\n  accessModes: [ReadWriteMany]\n  resources:\n    requests:\n      storage: 10Gi\n";

const STAGE: &str = "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    vmRolloutStrategy: Stage\n";

fn plain() -> String {
    vm("", "")
}

fn with_hotplug(disk: &str) -> String {
    vm(&format!("          - name: data\n{disk}"), HOTPLUG_VOLUME)
}

/// KubeVirt v1.6.0 `handleVolumeUpdateRequest`: with the `Replacement` volume strategy a
/// template volume the VMI does not have yet sets "the volumes replacement is effective only
/// after restart"; v1.7.0 dropped that case ("not handling replacement update volumes
/// strategy"). A hotpluggable volume leaving the template is an unplug and no restart at v1.6.
#[test]
fn a_hotplug_volume_added_to_the_template_needs_a_restart_before_v1_7() {
    let added = with_hotplug("            disk: {bus: scsi}\n");
    let at_1_6 = effect_at(&[&plain(), CLAIM], &[&added, CLAIM], 6);
    assert_eq!(at_1_6.kind, EffectKind::RestartRequired, "{at_1_6:?}");
    assert_eq!(
        at_1_6.message,
        "needs a restart (RestartRequired: the volumes replacement is effective only after restart)"
    );
    assert!(
        at_1_6
            .details
            .contains(&"volumes replaced: data".to_owned()),
        "{at_1_6:?}"
    );
    let at_1_7 = effect_at(&[&plain(), CLAIM], &[&added, CLAIM], 7);
    assert_ne!(at_1_7.kind, EffectKind::RestartRequired, "{at_1_7:?}");
}

/// KubeVirt v1.6.0 `addRestartRequiredIfNeeded` takes volumes and disks over only with
/// `LiveUpdate` (with `Stage` only when the VMI already has them); v1.7.0 takes them over
/// whatever the rollout strategy.
#[test]
fn stage_takes_template_volume_changes_over_only_from_v1_7() {
    let added = with_hotplug("            disk: {bus: scsi}\n");
    let at_1_6 = effect_at(&[&plain(), STAGE, CLAIM], &[&added, STAGE, CLAIM], 6);
    assert_eq!(at_1_6.kind, EffectKind::RestartRequired, "{at_1_6:?}");
    assert_eq!(
        at_1_6.message,
        "needs a restart (RestartRequired: a non-live-updatable field was changed in the template spec)"
    );
    let at_1_7 = effect_at(&[&plain(), STAGE, CLAIM], &[&added, STAGE, CLAIM], 7);
    assert_ne!(at_1_7.kind, EffectKind::RestartRequired, "{at_1_7:?}");
}

/// KubeVirt v1.7.0 `validLiveUpdateDisks`: "if a CDRom disk was removed from VM spec, a
/// restart is required"; v1.6.0 has no such case, and its `handleVolumeUpdateRequest` sees
/// the VMI's hotplugged volume gone from the template as an unplug.
#[test]
fn removing_a_hotplug_cdrom_needs_a_restart_only_from_v1_7() {
    let cdrom = with_hotplug("            cdrom: {bus: sata}\n");
    let at_1_6 = effect_at(&[&cdrom, CLAIM], &[&plain(), CLAIM], 6);
    assert_ne!(at_1_6.kind, EffectKind::RestartRequired, "{at_1_6:?}");
    let at_1_7 = effect_at(&[&cdrom, CLAIM], &[&plain(), CLAIM], 7);
    assert_eq!(at_1_7.kind, EffectKind::RestartRequired, "{at_1_7:?}");
}

fn instancetype(name: &str, cpus: u32, guest: &str) -> String {
    format!(
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  cpu: {{guest: {cpus}}}\n  memory: {{guest: {guest}}}\n"
    )
}

fn typed(name: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  runStrategy: Always\n  instancetype: {{kind: VirtualMachineInstancetype, name: {name}}}\n  template:\n    spec:\n      domain:\n        devices:\n          disks:\n          - name: root\n            disk: {{bus: virtio}}\n      volumes:\n      - name: root\n        containerDisk: {{image: quay.io/containerdisks/fedora:41}}\n"
    )
}

/// Up to v1.6.3 expand's VMI defaults derive `requests.memory` from the guest memory, but the
/// VM controller compares templates with the instance type applied and no VMI defaults
/// (KubeVirt v1.6.0 `addRestartRequiredIfNeeded`, `instancetypeController.ApplyToVM`): a
/// bigger instance type is CPU and memory hotplug, not a restart for the request.
#[test]
fn a_bigger_instance_type_is_hotplug_at_v1_6() {
    let (small, medium) = (
        instancetype("small", 1, "2Gi"),
        instancetype("medium", 2, "4Gi"),
    );
    let bigger = effect_at(
        &[&typed("small"), &small, &medium],
        &[&typed("medium"), &small, &medium],
        6,
    );
    assert_eq!(bigger.kind, EffectKind::LiveUpdate, "{bigger:?}");
    assert!(
        bigger
            .details
            .iter()
            .any(|d| d.starts_with("guest memory 2Gi → 4Gi")),
        "{bigger:?}"
    );
}

fn kubevirt(configuration: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n{configuration}"
    )
}

fn sockets(count: u32) -> String {
    plain().replace("sockets: 1,", &format!("sockets: {count},"))
}

/// KubeVirt v1.4.0 `IsVMRolloutStrategyLiveUpdate`: a configured `LiveUpdate` counts only
/// with the `VMLiveUpdateFeatures` gate (GA from v1.5.0, `featuregate/inactive.go`).
#[test]
fn live_update_needs_its_feature_gate_before_v1_5() {
    let live = kubevirt("    vmRolloutStrategy: LiveUpdate\n");
    let gated = kubevirt(
        "    vmRolloutStrategy: LiveUpdate\n    developerConfiguration:\n      featureGates: [VMLiveUpdateFeatures]\n",
    );
    let without_gate = effect_at(&[&plain(), &live], &[&sockets(2), &live], 4);
    assert_eq!(
        without_gate.kind,
        EffectKind::RestartRequired,
        "{without_gate:?}"
    );
    let with_gate = effect_at(&[&plain(), &gated], &[&sockets(2), &gated], 4);
    assert_eq!(with_gate.kind, EffectKind::LiveUpdate, "{with_gate:?}");
    let at_1_5 = effect_at(&[&plain(), &live], &[&sockets(2), &live], 5);
    assert_eq!(at_1_5.kind, EffectKind::LiveUpdate, "{at_1_5:?}");
}

fn networked(blue: bool) -> String {
    let (interface, network) = if blue {
        (
            "          - {name: blue, bridge: {}}\n",
            "      - name: blue\n        multus: {networkName: blue-net}\n",
        )
    } else {
        ("", "")
    };
    plain().replace(
        "      volumes:\n",
        &format!(
            "          interfaces:\n          - {{name: default, masquerade: {{}}}}\n{interface}      networks:\n      - {{name: default, pod: {{}}}}\n{network}      volumes:\n"
        ),
    )
}

/// KubeVirt v1.5.0's network synchronizer (`pkg/network/controllers/vm.go`) hotplugs a new
/// interface into the VMI although the restart check of that release still counts it as a
/// restart (`netvmliveupdate.IsRestartRequired` joined it in v1.6).
#[test]
fn interfaces_are_hotplugged_beside_the_restart_at_v1_5() {
    let added = effect_at(&[&networked(false)], &[&networked(true)], 5);
    assert_eq!(added.kind, EffectKind::RestartRequired, "{added:?}");
    assert!(
        added
            .details
            .contains(&"applied live: network interfaces hotplugged: blue".to_owned()),
        "{added:?}"
    );
}

/// KubeVirt v1.4.0 `handleVolumeUpdateRequest` returns at once without the
/// `VolumesUpdateStrategy` gate (GA from v1.5.0): no "volumes replacement" restart.
#[test]
fn the_volumes_replacement_restart_needs_its_gate_at_v1_4() {
    let gates = |list: &str| {
        kubevirt(&format!(
            "    vmRolloutStrategy: LiveUpdate\n    developerConfiguration:\n      featureGates: [{list}]\n"
        ))
    };
    let added = with_hotplug("            disk: {bus: scsi}\n");
    let live = gates("VMLiveUpdateFeatures");
    let without = effect_at(&[&plain(), &live, CLAIM], &[&added, &live, CLAIM], 4);
    assert_ne!(without.kind, EffectKind::RestartRequired, "{without:?}");
    let strategy = gates("VMLiveUpdateFeatures, VolumesUpdateStrategy");
    let with = effect_at(
        &[&plain(), &strategy, CLAIM],
        &[&added, &strategy, CLAIM],
        4,
    );
    assert_eq!(
        with.message,
        "needs a restart (RestartRequired: the volumes replacement is effective only after restart)"
    );
}
