//! `kvlint diff` verdicts for a running VM, as KubeVirt v1.9's VM controller
//! (`pkg/virt-controller/watch/vm/vm.go`, `sync`) reaches them. Each case is one that
//! `testdata/liveupdate` found kvlint getting wrong against the controller itself.

use crate::liveupdate_support;

use kvlint::commands::diff::{Effect, EffectKind};
use liveupdate_support::effect_at;

/// A running VM in `apps`: `domain` and `spec` are YAML lines under `domain:` and under the
/// template spec (after `domain`), `top` under the VM spec.
fn vm(top: &str, domain: &str, spec: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  runStrategy: Always\n{top}  template:\n    spec:\n      domain:\n{domain}        devices:\n          disks:\n          - name: root\n            disk: {{bus: virtio}}\n{spec}      volumes:\n      - name: root\n        containerDisk: {{image: quay.io/containerdisks/fedora:41}}\n"
    )
}

const CPU_MEMORY: &str =
    "        cpu: {sockets: 1, cores: 1, threads: 1}\n        memory: {guest: 2Gi}\n";

fn plain(spec: &str) -> String {
    vm("", CPU_MEMORY, spec)
}

fn sized(sockets: u32, guest: &str) -> String {
    vm(
        "",
        &format!(
            "        cpu: {{sockets: {sockets}, cores: 1, threads: 1}}\n        memory: {{guest: {guest}}}\n"
        ),
        "",
    )
}

const STAGE: &str = "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    vmRolloutStrategy: Stage\n";

/// What KubeVirt v1.9 does with the running VM of `base` when it becomes `head`.
fn effect(base: &[&str], head: &[&str]) -> Effect {
    effect_at(base, head, 9)
}

fn applied(effect: &Effect) -> Vec<&str> {
    effect
        .details
        .iter()
        .filter_map(|d| d.strip_prefix("applied live: "))
        .collect()
}

/// `sync` runs `handleCPUChangeRequest` and `handleMemoryHotplugRequest` one after the other:
/// one refusing (`setRestartRequired`) does not stop the other from patching the VMI.
#[test]
fn a_refused_hotplug_handler_does_not_hold_back_the_other() {
    let memory_refused = effect(&[&sized(1, "2Gi")], &[&sized(2, "16Gi")]);
    assert_eq!(memory_refused.kind, EffectKind::RestartRequired);
    assert_eq!(
        memory_refused.message,
        "needs a restart (RestartRequired: memory hotplug not supported, Guest memory is greater than the configured maxGuest memory)"
    );
    assert_eq!(
        applied(&memory_refused),
        ["CPU sockets 1 → 2 (vCPUs 1 → 2); maxSockets 4 (4 × the base sockets)"]
    );
    let cpu_refused = effect(&[&sized(1, "2Gi")], &[&sized(6, "4Gi")]);
    assert_eq!(
        cpu_refused.message,
        "needs a restart (RestartRequired: CPU sockets updated in template spec to a value higher than what's available)"
    );
    assert_eq!(
        applied(&cpu_refused),
        ["guest memory 2Gi → 4Gi; maxGuest 8Gi (4 × the base guest memory)"]
    );
}

const CLAIM: &str = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: apps\nspec:\n  accessModes: [ReadWriteMany]\n  resources:\n    requests:\n      storage: 10Gi\n";

fn with_hotplug_volume(disk: &str) -> String {
    plain("").replace(
        "      volumes:\n",
        "      volumes:\n      - name: data\n        persistentVolumeClaim: {claimName: data, hotpluggable: true}\n",
    ).replace(
        "            disk: {bus: virtio}\n",
        &format!("            disk: {{bus: virtio}}\n          - name: data\n{disk}"),
    )
}

/// `syncRestartRequired` takes hotpluggable volumes and their disks over whatever the rollout
/// strategy (`validLiveUpdateVolumes`, `validLiveUpdateDisks` run before the `LiveUpdate`
/// check), and `handleDeclarativeVolumeHotplug` runs outside the `LiveUpdate` handlers.
#[test]
fn hotplug_volumes_are_applied_with_stage_and_beside_a_restart() {
    let added = with_hotplug_volume("            disk: {bus: scsi}\n");
    let stage = effect(&[&plain(""), STAGE, CLAIM], &[&added, STAGE, CLAIM]);
    assert_eq!(stage.kind, EffectKind::LiveUpdate, "{stage:?}");
    assert_eq!(stage.message, "applied live (hotplug)");
    assert_eq!(stage.details, ["hotpluggable volumes attached or detached"]);
    // Removing a hotplugged CD-ROM needs a restart (`validLiveUpdateDisks`); its volume is
    // detached all the same.
    let cdrom = with_hotplug_volume("            cdrom: {bus: sata}\n");
    let removed = effect(&[&cdrom, CLAIM], &[&plain(""), CLAIM]);
    assert_eq!(removed.kind, EffectKind::RestartRequired, "{removed:?}");
    assert_eq!(
        applied(&removed),
        ["hotpluggable volumes attached or detached"]
    );
}

fn networked(extra_interface: bool, extra_spec: &str) -> String {
    let (interface, network) = if extra_interface {
        (
            "          - {name: blue, bridge: {}}\n",
            "      - name: blue\n        multus: {networkName: blue-net}\n",
        )
    } else {
        ("", "")
    };
    vm(
        "",
        &format!("{CPU_MEMORY}{extra_spec}"),
        &format!(
            "          interfaces:\n          - {{name: default, masquerade: {{}}}}\n{interface}      networks:\n      - {{name: default, pod: {{}}}}\n{network}"
        ),
    )
}

/// `netvmliveupdate.IsRestartRequired`: an added secondary interface is hotplugged by the
/// network synchronizer (even with Stage, even beside a restart); a VM that had no interfaces
/// and now lists the pod network needs a restart.
#[test]
fn interfaces_are_hotplugged_unless_the_vmi_interfaces_change() {
    let plugged = effect(&[&networked(false, "")], &[&networked(true, "")]);
    assert_eq!(plugged.kind, EffectKind::LiveUpdate, "{plugged:?}");
    assert_eq!(plugged.details, ["network interfaces hotplugged: blue"]);
    let stage = effect(
        &[&networked(false, ""), STAGE],
        &[&networked(true, ""), STAGE],
    );
    assert_eq!(stage.kind, EffectKind::LiveUpdate, "{stage:?}");
    let machine = "        machine: {type: pc-q35-rhel9.6.0}\n";
    let beside = effect(&[&networked(false, "")], &[&networked(true, machine)]);
    assert_eq!(beside.kind, EffectKind::RestartRequired, "{beside:?}");
    assert_eq!(applied(&beside), ["network interfaces hotplugged: blue"]);
    let pod_network = effect(&[&plain("")], &[&networked(false, "")]);
    assert_eq!(
        pod_network.kind,
        EffectKind::RestartRequired,
        "{pod_network:?}"
    );
}

/// The controller compares the stored templates: the VM mutating webhook has set the
/// architecture and machine type (`SetVirtualMachineDefaults`), so writing KubeVirt's defaults
/// changes nothing; and `ApplyToVM` adds no VMI defaults, so dropping an instance type for the
/// same values written out needs no restart.
#[test]
fn defaults_the_webhook_stored_are_no_change() {
    for head in [
        vm(
            "",
            &format!("{CPU_MEMORY}        machine: {{type: q35}}\n"),
            "",
        ),
        plain("      architecture: amd64\n"),
    ] {
        let effect = effect(&[&plain("")], &[&head]);
        assert_eq!(effect.kind, EffectKind::NoRestart, "{effect:?}");
    }
    let small = "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: small\n  namespace: apps\nspec:\n  cpu: {guest: 1}\n  memory: {guest: 2Gi}\n";
    let typed = vm(
        "  instancetype: {kind: VirtualMachineInstancetype, name: small}\n",
        "",
        "",
    );
    let removed = effect(&[&typed, small], &[&plain(""), small]);
    assert_eq!(removed.kind, EffectKind::NoRestart, "{removed:?}");
}

/// `validateMatcherUpdate` (`pkg/instancetype/webhooks/vm/mutator.go`) refuses a renamed
/// matcher that keeps its `revisionName`, also when that revision makes both sides render
/// alike.
#[test]
fn a_rename_pinned_by_its_revision_is_refused() {
    let instancetype = |name: &str| {
        format!(
            "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: {name}\n  namespace: apps\nspec:\n  cpu: {{guest: 1}}\n  memory: {{guest: 2Gi}}\n"
        )
    };
    let revision = "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: web-small-v1\n  namespace: apps\n  labels:\n    instancetype.kubevirt.io/object-kind: VirtualMachineInstancetype\n    instancetype.kubevirt.io/object-name: small\ndata:\n  apiVersion: instancetype.kubevirt.io/v1beta1\n  kind: VirtualMachineInstancetype\n  metadata: {name: small, namespace: apps}\n  spec:\n    cpu: {guest: 1}\n    memory: {guest: 2Gi}\nrevision: 1\n";
    let pinned = |name: &str| {
        vm(
            &format!(
                "  instancetype: {{kind: VirtualMachineInstancetype, name: {name}, revisionName: web-small-v1}}\n"
            ),
            "",
            "",
        )
    };
    let objects = [instancetype("small"), instancetype("medium")];
    let effect = effect(
        &[&pinned("small"), &objects[0], &objects[1], revision],
        &[&pinned("medium"), &objects[0], &objects[1], revision],
    );
    assert_eq!(effect.kind, EffectKind::Rejected, "{effect:?}");
    assert_eq!(
        effect.message,
        "rejected: the Matcher Name has been updated without updating the RevisionName"
    );
}

fn gates(gates: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    developerConfiguration:\n      featureGates: [{gates}]\n"
    )
}

/// `handleDeclarativeVolumeHotplug` acts only with the DeclarativeHotplugVolumes gate (Alpha
/// at v1.6 to v1.8, Beta and on by default at v1.9); `netvmliveupdate.IsRestartRequired`
/// ignores a changed Multus network name only with LiveUpdateNADRef (Beta, off, at v1.8; GA
/// at v1.9).
#[test]
fn v1_8_needs_its_gates_for_volume_hotplug_and_network_renames() {
    let added = with_hotplug_volume("            disk: {bus: scsi}\n");
    let v1_8 = effect_at(&[&plain(""), CLAIM], &[&added, CLAIM], 8);
    assert_eq!(v1_8.kind, EffectKind::NoRestart, "{v1_8:?}");
    assert_eq!(
        v1_8.message,
        "updated without a restart (the running VM is not changed)"
    );
    assert_eq!(
        v1_8.details,
        [
            "the template's hotpluggable volumes changed; KubeVirt v1.8 attaches them only with the DeclarativeHotplugVolumes gate (else virtctl addvolume does)"
        ]
    );
    let gate = gates("DeclarativeHotplugVolumes");
    let with_gate = effect_at(&[&plain(""), CLAIM, &gate], &[&added, CLAIM, &gate], 8);
    assert_eq!(
        with_gate.details,
        ["hotpluggable volumes attached or detached"]
    );

    let renamed = networked(true, "").replace("blue-net", "green-net");
    let v1_8 = effect_at(&[&networked(true, "")], &[&renamed], 8);
    assert_eq!(v1_8.kind, EffectKind::RestartRequired, "{v1_8:?}");
    let gate = gates("LiveUpdateNADRef");
    let with_gate = effect_at(&[&networked(true, ""), &gate], &[&renamed, &gate], 8);
    assert_eq!(with_gate.kind, EffectKind::LiveUpdate, "{with_gate:?}");
    let v1_9 = effect(&[&networked(true, "")], &[&renamed]);
    assert_eq!(v1_9.kind, EffectKind::LiveUpdate, "{v1_9:?}");
}

/// Without DeclarativeHotplugVolumes (Alpha, off, at v1.6 to v1.8) `sync` never calls
/// `handleDeclarativeVolumeHotplug`: beside a restart the added volume is not applied live
/// either (KubeVirt v1.8.0 `pkg/virt-controller/watch/vm/vm.go`).
#[test]
fn an_unattached_hotplug_volume_is_not_applied_live_beside_a_restart() {
    let added = with_hotplug_volume("            disk: {bus: scsi}\n");
    let model = |vm: &str| {
        vm.replace(
            "cpu: {sockets: 1, cores: 1, threads: 1}",
            "cpu: {sockets: 1, cores: 1, threads: 1, model: host-passthrough}",
        )
    };
    let restart = effect_at(&[&plain(""), CLAIM], &[&model(&added), CLAIM], 8);
    assert_eq!(restart.kind, EffectKind::RestartRequired, "{restart:?}");
    assert!(applied(&restart).is_empty(), "{restart:?}");
    assert_eq!(
        restart.details.last().map(String::as_str),
        Some(
            "the template's hotpluggable volumes changed; KubeVirt v1.8 attaches them only with the DeclarativeHotplugVolumes gate (else virtctl addvolume does)"
        ),
        "{restart:?}"
    );
}
