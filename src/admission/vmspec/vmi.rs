//! `vmi-create-admitter.go`: `ValidateVirtualMachineInstanceMetadata` and
//! `ValidateVirtualMachineInstanceSpec`, which runs the checks of the modules beside this one in
//! KubeVirt's order.

use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::access_credentials::access_credentials;
use super::context::Ctx;
use super::cpu::{
    cpu_feature_policies, cpu_hotplug, cpu_pinning, cpu_request_within_limit,
    cpu_requests_not_negative, io_threads_policy, isolate_emulator_thread, numa, realtime,
};
use super::devices::{
    downward_metrics, gpus, host_devices, input_devices, panic_devices, persistent_reservation,
    persistent_state, sound, video, virtiofs, vsock,
};
use super::dns::dns;
use super::dra::dra;
use super::feature_gates::gate;
use super::launch_security::launch_security;
use super::lifecycle::{eviction_strategy, probes, reboot_policy, start_strategy};
use super::machine::{architecture_gate, domain_spec, emulated_machine, firmware_acpi};
use super::memory::{
    guest_memory_limit, hugepages, memory_limits, memory_requests, reserved_overhead,
};
use super::names::{hostname, service_account_name, subdomain};
use super::network::network;
use super::storage::disks::boot_order;
use super::storage::volumes::{container_disk_paths, utility_volumes, volumes};
use crate::admission::list_limits::List;
use crate::admission::{Cause, list_limits};
use crate::cluster::profile::ClusterProfile;
use crate::model::value::present_at;

const RESTRICTED_LABELS: &[&str] = &[
    "kubevirt.io/created-by",
    "kubevirt.io/migrationJobUID",
    "kubevirt.io/nodeName",
    "kubevirt.io/migrationTargetNodeName",
    "kubevirt.io/schedulable",
    "kubevirt.io/install-strategy",
];

/// `ValidateVirtualMachineInstanceMetadata` for a request from an ordinary user.
pub(super) fn template_metadata(template: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    let labels = present_at(template, &["metadata", "labels"]).and_then(Value::as_object);
    if labels.is_some_and(|labels| {
        labels
            .keys()
            .any(|key| RESTRICTED_LABELS.contains(&key.as_str()))
    }) {
        causes.push(Cause::new(
            "spec.template.metadata.labels",
            "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
        ));
    }
    let annotation = |key: &str| {
        present_at(template, &["metadata", "annotations"])
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .is_some_and(|v| !v.is_empty())
    };
    if annotation("kubevirt.io/ignitiondata") && !gate(profile, "ExperimentalIgnitionSupport") {
        causes.push(Cause::new(
            "spec.template.metadata.annotations",
            "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.kubevirt.io/ignitiondata",
        ));
    }
    if annotation("hooks.kubevirt.io/hookSidecars") && !gate(profile, "Sidecar") {
        causes.push(Cause::new(
            "spec.template.metadata.annotations",
            "sidecar feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.hooks.kubevirt.io/hookSidecars",
        ));
    }
    causes
}

pub(super) fn vmi_spec(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut cx = Ctx {
        spec,
        profile,
        causes: Vec::new(),
    };
    // Up to v1.2 the webhook limits the lists itself (later the CRD does, before it runs).
    let webhook_limits = !profile.version.at_least(1, 3);
    for list in [List::Disks, List::Volumes] {
        if webhook_limits && list_limits::exceeds(spec, list) {
            return vec![list_limits::webhook_cause(TEMPLATE_SPEC, list)];
        }
    }
    let before_network: &[fn(&mut Ctx)] = &[
        hostname,
        subdomain,
        memory_requests,
        memory_limits,
        hugepages,
        guest_memory_limit,
        emulated_machine,
        firmware_acpi,
        cpu_requests_not_negative,
        cpu_request_within_limit,
        cpu_pinning,
        numa,
        isolate_emulator_thread,
        cpu_feature_policies,
        cpu_hotplug,
        start_strategy,
        realtime,
        architecture_gate,
    ];
    for check in before_network {
        check(&mut cx);
    }
    for list in [List::Interfaces, List::Networks] {
        if webhook_limits && list_limits::exceeds(spec, list) {
            cx.causes
                .push(list_limits::webhook_cause(TEMPLATE_SPEC, list));
            return cx.causes;
        }
    }
    let checks: &[fn(&mut Ctx)] = &[
        network,
        dra,
        boot_order,
        input_devices,
        io_threads_policy,
        probes,
        domain_spec,
        volumes,
        container_disk_paths,
        utility_volumes,
        access_credentials,
        dns,
        eviction_strategy,
        gpus,
        host_devices,
        sound,
        launch_security,
        vsock,
        persistent_reservation,
        persistent_state,
        downward_metrics,
        virtiofs,
        video,
        panic_devices,
        reboot_policy,
        reserved_overhead,
        service_account_name,
    ];
    for check in checks {
        check(&mut cx);
    }
    cx.causes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_vm, run_with};
    use crate::cluster::profile::ClusterProfile;

    #[test]
    fn template_metadata() {
        let default = ClusterProfile::default();
        let labelled = json!({"spec": {"template": {"metadata": {"labels": {"kubevirt.io/nodeName": "n1", "app": "x"}}}}});
        assert_eq!(
            run_vm(&labelled, &default, true),
            one(
                "spec.template.metadata.labels",
                "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited"
            )
        );
        let ignition = json!({"spec": {"template": {"metadata": {"annotations": {"kubevirt.io/ignitiondata": "{}"}}}}});
        assert_eq!(
            run_vm(&ignition, &default, true),
            one(
                "spec.template.metadata.annotations",
                "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.kubevirt.io/ignitiondata"
            )
        );
        assert_eq!(
            run_vm(
                &ignition,
                &profile((1, 9), &["ExperimentalIgnitionSupport"]),
                true
            ),
            Vec::new()
        );
    }

    #[test]
    fn lists_over_the_webhook_limit_of_v1_2() {
        let v1_2 = profile((1, 2), &[]);
        let many = |len: usize| vec![json!({"name": "default", "masquerade": {}}); len];
        let interfaces =
            json!({"hostname": "Bad_Name", "domain": {"devices": {"interfaces": many(257)}}});
        let causes = run_with(&interfaces, &v1_2);
        assert_eq!(causes.len(), 2, "{causes:?}");
        assert_eq!(causes[0].0, "spec.template.spec.hostname");
        assert_eq!(
            causes[1],
            (
                "spec.template.spec.domain.devices.interfaces".to_owned(),
                "spec.template.spec.domain.devices.interfaces list exceeds the 256 element limit in length".to_owned()
            )
        );
        let volumes = json!({"hostname": "Bad_Name", "volumes": many(257)});
        assert_eq!(
            run_with(&volumes, &v1_2),
            one(
                "spec.template.spec.volumes",
                "spec.template.spec.volumes list exceeds the 256 element limit in length"
            )
        );
        // From v1.3 on the CRD limits them, before the webhook runs.
        assert!(
            run(&json!({"domain": {"devices": {"disks": many(257)}}}))
                .iter()
                .all(|c| !c.1.contains("element limit"))
        );
    }

    #[test]
    fn a_sidecar_annotation_needs_only_the_sidecar_gate() {
        let sidecar = json!({"spec": {"template": {"metadata": {"annotations":
            {"hooks.kubevirt.io/hookSidecars": "[]"}}}}});
        assert_eq!(
            run_vm(&sidecar, &profile((1, 9), &["Sidecar"]), true),
            Vec::new()
        );
        assert_eq!(
            run_vm(&sidecar, &profile((1, 9), &[]), true),
            one(
                "spec.template.metadata.annotations",
                "sidecar feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.hooks.kubevirt.io/hookSidecars"
            )
        );
    }
}
