//! KubeVirt's `ValidateLiveUpdateMemory` as each release has it, seen through its two users in
//! kvlint: the VM admitter (`check`, a template that sets `maxGuest`) and the VM controller's
//! handling of a running VM whose guest memory changed (`diff`).

use kvlint::check;
use kvlint::commands::diff::EffectKind;

use crate::liveupdate_support::{effect_at as effect, options, write_side};

/// A `KubeVirt` object: the gate arm64 VMs need on some releases, and `configuration`.
fn kubevirt(configuration: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    developerConfiguration:\n      featureGates: [MultiArchitecture, VMLiveUpdateFeatures]\n{configuration}"
    )
}

/// A running VM of `architecture` with `memory` (YAML lines under `domain.memory`).
fn vm(architecture: &str, memory: &str) -> String {
    let machine = if architecture == "amd64" {
        "q35"
    } else {
        "virt"
    };
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  namespace: apps\nspec:\n  runStrategy: Always\n  template:\n    spec:\n      architecture: {architecture}\n      domain:\n        machine:\n          type: {machine}\n        memory:\n{memory}\n        devices: {{}}\n"
    )
}

/// The messages of the findings of `files` checked at v1.`minor`.
fn check_messages(files: &[&str], minor: u32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    write_side(dir.path(), files);
    let report = check::run(&options(dir.path(), minor)).expect("check runs");
    report.findings.iter().map(|f| f.message.clone()).collect()
}

fn memory_findings(messages: &[String]) -> Vec<&str> {
    messages
        .iter()
        .map(String::as_str)
        .filter(|m| m.contains("Memory hotplug"))
        .collect()
}

#[test]
fn the_vm_admitter_accepts_arm64_memory_hotplug_up_to_v1_6() {
    let arm = vm("arm64", "          guest: 2Gi\n          maxGuest: 8Gi");
    let files = [arm.as_str(), &kubevirt("")];
    assert_eq!(
        memory_findings(&check_messages(&files, 6)),
        Vec::<&str>::new()
    );
    let v1_7 = check_messages(&files, 7);
    let refused = memory_findings(&v1_7);
    assert_eq!(refused.len(), 1, "{v1_7:?}");
    assert!(
        refused[0].contains("Memory hotplug is only available for x86_64 VMs"),
        "{refused:?}"
    );
    let s390x = vm("s390x", "          guest: 2Gi\n          maxGuest: 8Gi");
    let v1_6 = check_messages(&[s390x.as_str(), &kubevirt("")], 6);
    let refused = memory_findings(&v1_6);
    assert_eq!(refused.len(), 1, "{v1_6:?}");
    assert!(
        refused[0].contains("Memory hotplug is only available for x86_64 and arm64 VMs"),
        "{refused:?}"
    );
}

const LIVE_UPDATE: &str = "    vmRolloutStrategy: LiveUpdate\n";

#[test]
fn arm64_vms_get_no_memory_hotplug_from_v1_6() {
    let base = vm("arm64", "          guest: 4Gi");
    let head = vm("arm64", "          guest: 8Gi");
    let cluster = kubevirt(LIVE_UPDATE);
    let at = |minor| effect(&[&base, &cluster], &[&head, &cluster], minor);
    let v1_5 = at(5);
    assert_eq!(v1_5.kind, EffectKind::LiveUpdate, "{v1_5:?}");
    let v1_6 = at(6);
    assert_eq!(v1_6.kind, EffectKind::RestartRequired, "{v1_6:?}");
    // KubeVirt's message does not say why; the details do.
    assert_eq!(
        v1_6.message,
        "needs a restart (RestartRequired: memory updated in template spec. Memory-hotplug is not available for this VM configuration)"
    );
    assert!(
        v1_6.details
            .contains(&"memory hotplug is not available for architecture arm64".to_owned()),
        "{v1_6:?}"
    );
}

#[test]
fn a_cluster_max_guest_below_the_guest_memory_turns_hotplug_off() {
    let base = vm("amd64", "          guest: 4Gi");
    let head = vm("amd64", "          guest: 6Gi");
    let cluster = kubevirt(
        "    vmRolloutStrategy: LiveUpdate\n    liveUpdateConfiguration:\n      maxGuest: 2Gi\n",
    );
    let effect = effect(&[&base, &cluster], &[&head, &cluster], 9);
    assert_eq!(effect.kind, EffectKind::RestartRequired, "{effect:?}");
    // KubeVirt's message does not say why; the details do.
    assert_eq!(
        effect.message,
        "needs a restart (RestartRequired: memory updated in template spec. Memory-hotplug is not available for this VM configuration)"
    );
    assert!(
        effect.details.contains(
            &"memory hotplug is not available for guest memory above maxGuest".to_owned()
        ),
        "{effect:?}"
    );
}

#[test]
fn the_controller_validates_the_new_guest_memory() {
    let base = vm("amd64", "          guest: 4Gi");
    let cluster = kubevirt(LIVE_UPDATE);
    // Not a multiple of the 2Mi block.
    let head = vm("amd64", "          guest: 4097Mi");
    let effect = effect(&[&base, &cluster], &[&head, &cluster], 9);
    assert_eq!(effect.kind, EffectKind::RestartRequired, "{effect:?}");
    assert_eq!(
        effect.message,
        "needs a restart (RestartRequired: memory hotplug not supported, Guest memory must be 2Mi aligned)"
    );
    assert_eq!(
        effect.details,
        ["guest memory 4Gi → 4097Mi; maxGuest 16Gi (4 × the base guest memory)"]
    );
}

#[test]
fn v1_3_has_no_minimum_guest_memory() {
    let base = vm("amd64", "          guest: 512Mi");
    let head = vm("amd64", "          guest: 768Mi");
    let cluster = kubevirt(LIVE_UPDATE);
    let at = |minor| effect(&[&base, &cluster], &[&head, &cluster], minor);
    let v1_3 = at(3);
    assert_eq!(v1_3.kind, EffectKind::LiveUpdate, "{v1_3:?}");
    let v1_4 = at(4);
    // KubeVirt's message does not say why; the details do.
    assert_eq!(
        v1_4.message,
        "needs a restart (RestartRequired: memory updated in template spec. Memory-hotplug is not available for this VM configuration)"
    );
    assert!(
        v1_4.details.contains(
            &"memory hotplug is not available for less than 1Gi of guest memory".to_owned()
        ),
        "{v1_4:?}"
    );
}
