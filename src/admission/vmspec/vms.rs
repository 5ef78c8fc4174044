//! The checks of `vms-admitter.go` itself: `validateRunStrategy` and
//! `validateLiveUpdateFeatures`.

use serde_json::Value;

use super::feature_gates::gate;
use super::read::architecture;
use crate::admission::Cause;
use crate::cluster::profile::ClusterProfile;
use crate::controller::liveupdate::memory::validate_live_update_memory;
use crate::k8s::quantity::Quantity;
use crate::model::value::{is_set_at, present_at, u64_at};

const RUN_STRATEGIES: &[&str] = &["Halted", "Manual", "Always", "RerunOnFailure", "Once"];

/// `validateRunStrategy`.
pub(super) fn run_strategy(vm_spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    let running = is_set_at(vm_spec, &["running"]);
    let strategy = present_at(vm_spec, &["runStrategy"]).map(|v| v.as_str().unwrap_or(""));
    if running && strategy.is_some() {
        causes.push(Cause::new(
            "spec.running",
            "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
        ));
    }
    if !running && strategy.is_none() {
        causes.push(Cause::new("spec.running", "RunStrategy must be specified"));
    }
    match strategy {
        Some("WaitAsReceiver") if !gate(profile, "DecentralizedLiveMigration") => causes.push(Cause::new(
            "spec.runStrategy",
            "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource",
        )),
        Some(strategy) if strategy != "WaitAsReceiver" && !RUN_STRATEGIES.contains(&strategy) => {
            causes.push(Cause::new("spec.runStrategy", format!("Invalid RunStrategy ({strategy})")));
        }
        _ => {}
    }
    causes
}

pub(super) const TOO_MANY_SOCKETS: &str =
    "Number of sockets in CPU topology is greater than the maximum sockets allowed";

pub(super) fn live_update(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = written_hotplug_limits(spec, profile);
    if !rollout_live_update(profile) {
        return causes;
    }
    if let Some(cpu) = present_at(spec, &["domain", "cpu"]) {
        let (sockets, max) = (u64_at(cpu, &["sockets"]), u64_at(cpu, &["maxSockets"]));
        if sockets != 0 && max != 0 && sockets > max {
            causes.push(Cause::new(ts!("domain.cpu.sockets"), TOO_MANY_SOCKETS));
        }
    }
    if let Some(max_guest) = Quantity::at(spec, &["domain", "memory", "maxGuest"]) {
        let architecture = architecture(spec, profile);
        let validated =
            validate_live_update_memory(spec, architecture, Some(&max_guest), profile.version);
        if let Err(unsupported) = validated {
            causes.push(Cause::new(
                ts!("domain.memory.guest"),
                unsupported.to_string(),
            ));
        }
    }
    causes
}

/// Up to v1.1 the hotplug limits belonged to the VM's `liveUpdateFeatures`, and
/// `validateLiveUpdateFeatures` (vms-admitter.go at v1.0.0 and v1.1.0) refuses them written into
/// the template. (`memory.maxGuest` came with v1.1; at v1.0 it is refused earlier, as a field
/// the release does not declare.)
fn written_hotplug_limits(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    if profile.version.at_least(1, 2) {
        return causes;
    }
    if u64_at(spec, &["domain", "cpu", "maxSockets"]) != 0 {
        causes.push(Cause::new(
            ts!("domain.cpu.maxSockets"),
            "CPU topology maxSockets cannot be set directy in VM template",
        ));
    }
    if present_at(spec, &["domain", "memory", "maxGuest"]).is_some() {
        causes.push(Cause::new(
            ts!("domain.memory.maxGuest"),
            "Memory maxGuest cannot be set directy in VM template",
        ));
    }
    causes
}

/// `IsVMRolloutStrategyLiveUpdate` with the default rollout strategy.
pub(super) fn rollout_live_update(profile: &ClusterProfile) -> bool {
    profile.version.at_least(1, 6)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_vm, run_with};
    use crate::cluster::profile::ClusterProfile;
    use crate::cluster::profile::KubeVirtVersion;

    #[test]
    fn run_strategy() {
        let default = ClusterProfile::default();
        assert_eq!(
            run_vm(&json!({"spec": {"runStrategy": null}}), &default, true),
            one("spec.running", "RunStrategy must be specified")
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": null, "running": false}}),
                &default,
                true
            ),
            Vec::new()
        );
        assert_eq!(
            run_vm(&json!({"spec": {"running": true}}), &default, true),
            one(
                "spec.running",
                "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead"
            )
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": "Sometimes"}}),
                &default,
                true
            ),
            one("spec.runStrategy", "Invalid RunStrategy (Sometimes)")
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": "RerunOnFailure"}}),
                &default,
                true
            ),
            Vec::new()
        );
        let wait = json!({"spec": {"runStrategy": "WaitAsReceiver"}});
        assert_eq!(
            run_vm(
                &wait,
                &profile((1, 9), &["DecentralizedLiveMigration"]),
                true
            ),
            Vec::new()
        );
        assert_eq!(
            run_vm(&wait, &default, true),
            one(
                "spec.runStrategy",
                "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource"
            )
        );
        assert_eq!(
            run_vm(&wait, &profile((1, 8), &[]), true),
            one(
                "spec.runStrategy",
                "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource"
            )
        );
    }

    #[test]
    fn memory_hotplug_on_arm64_is_refused_from_v1_6_1() {
        let arm = json!({"architecture": "arm64", "domain": {"machine": {"type": "virt"}, "memory": {"guest": "2Gi", "maxGuest": "8Gi"}}});
        let hotplug = |version: KubeVirtVersion| {
            run_with(&arm, &ClusterProfile::new(version))
                .into_iter()
                .filter(|(_, message)| message.starts_with("Memory hotplug"))
                .map(|(_, message)| message)
                .collect::<Vec<_>>()
        };
        assert!(hotplug(KubeVirtVersion::new(1, 6)).is_empty());
        assert_eq!(
            hotplug(KubeVirtVersion::release(1, 6, 1)),
            ["Memory hotplug is only available for x86_64 VMs"]
        );
        let s390x = json!({"architecture": "s390x", "domain": {"memory": {"guest": "2Gi", "maxGuest": "8Gi"}}});
        let at_v1_6_0 = run_with(&s390x, &ClusterProfile::new(KubeVirtVersion::new(1, 6)));
        assert!(
            at_v1_6_0
                .iter()
                .any(|(_, m)| m == "Memory hotplug is only available for x86_64 and arm64 VMs"),
            "{at_v1_6_0:?}"
        );
    }

    /// vms-admitter.go at v1.0.0 and v1.1.0, `validateLiveUpdateFeatures`.
    #[test]
    fn up_to_v1_1_hotplug_limits_written_into_the_template_are_refused() {
        let limits = json!({"domain": {"cpu": {"sockets": 2, "maxSockets": 4}, "memory": {"guest": "1Gi", "maxGuest": "4Gi"}}});
        let at = |minor| run_with(&limits, &profile((1, minor), &[]));
        let expected = [
            (
                "spec.template.spec.domain.cpu.maxSockets".to_owned(),
                "CPU topology maxSockets cannot be set directy in VM template".to_owned(),
            ),
            (
                "spec.template.spec.domain.memory.maxGuest".to_owned(),
                "Memory maxGuest cannot be set directy in VM template".to_owned(),
            ),
        ];
        for minor in [0, 1] {
            let causes = at(minor);
            assert!(
                expected.iter().all(|cause| causes.contains(cause)),
                "v1.{minor}: {causes:?}"
            );
        }
        assert!(
            at(2)
                .iter()
                .all(|(_, m)| !m.contains("cannot be set directy")),
            "{:?}",
            at(2)
        );
    }

    #[test]
    fn live_update_memory() {
        let field = "spec.template.spec.domain.memory.guest";
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "4Gi", "maxGuest": "2Gi"}}})),
            one(
                field,
                "Guest memory is greater than the configured maxGuest memory"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "2Gi", "maxGuest": "8Gi"}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "1025Mi", "maxGuest": "8Gi"}}})),
            one(field, "Guest memory must be 2Mi aligned")
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "512Mi", "maxGuest": "8Gi"}}})),
            one(
                field,
                "Memory hotplug is only available for VMs with at least 1Gi of guest memory"
            )
        );
        assert_eq!(
            run_with(
                &json!({"domain": {"memory": {"guest": "4Gi", "maxGuest": "2Gi"}}}),
                &profile((1, 5), &[])
            ),
            Vec::new()
        );
    }
}
