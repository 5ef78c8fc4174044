//! The list and whole-value steps of `pkg/instancetype/apply/` (KubeVirt v1.9): `gpu.go`,
//! `hostdevices.go`, `iothreads.go`, `launchsecurity.go`. Each copies the instance type's value
//! into a VM that has none and is a conflict where the VM has its own.

use serde_json::{Value, json};

use super::apply;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::InstancetypeSpec;
use crate::model::value::Obj;

/// The VMI spec's domain and the conflicts' paths after applying `instancetype` at v1.`minor`.
fn applied(minor: u32, instancetype: Value, domain: Value) -> (Value, Vec<String>) {
    let mut instancetype = instancetype;
    instancetype["cpu"] = json!({"guest": 1});
    instancetype["memory"] = json!({"guest": "1Gi"});
    let instancetype: InstancetypeSpec = crate::model::decode(&instancetype).unwrap();
    let mut spec = Obj::new();
    spec.insert("domain".to_owned(), domain);
    let conflicts = apply(
        "spec",
        &instancetype,
        None,
        &mut spec,
        &mut Obj::new(),
        KubeVirtVersion::new(1, minor),
    );
    let paths = conflicts.into_iter().map(|c| c.path).collect();
    (spec["domain"].clone(), paths)
}

#[test]
fn gpus_and_host_devices_are_copied_unless_the_vm_lists_its_own() {
    let instancetype = json!({
        "gpus": [{"name": "g", "deviceName": "nvidia.com/A"}],
        "hostDevices": [{"name": "h", "deviceName": "vendor.com/B"}]
    });
    let copied = json!({
        "gpus": [{"name": "g", "deviceName": "nvidia.com/A"}],
        "hostDevices": [{"name": "h", "deviceName": "vendor.com/B"}]
    });
    for vm_devices in [json!({}), json!({"gpus": [], "hostDevices": []})] {
        let (domain, conflicts) = applied(9, instancetype.clone(), json!({"devices": vm_devices}));
        assert_eq!(domain["devices"], copied);
        assert!(conflicts.is_empty(), "{conflicts:?}");
    }
    let own = json!({
        "gpus": [{"name": "mine", "deviceName": "x"}],
        "hostDevices": [{"name": "mine", "deviceName": "y"}]
    });
    let (domain, conflicts) = applied(9, instancetype, json!({"devices": own.clone()}));
    assert_eq!(domain["devices"], own);
    assert_eq!(
        conflicts,
        [
            "spec.domain.devices.gpus",
            "spec.domain.devices.hostDevices"
        ]
    );
}

#[test]
fn supplemental_pool_threads_from_v1_7_and_launch_security_are_copied_unless_the_vm_sets_them() {
    let instancetype = json!({
        "ioThreads": {"supplementalPoolThreadCount": 4},
        "launchSecurity": {"sev": {}}
    });
    let (domain, conflicts) = applied(9, instancetype.clone(), json!({}));
    assert_eq!(
        domain["ioThreads"],
        json!({"supplementalPoolThreadCount": 4})
    );
    assert_eq!(domain["launchSecurity"], json!({"sev": {}}));
    assert!(conflicts.is_empty(), "{conflicts:?}");

    let (domain, _) = applied(6, instancetype.clone(), json!({}));
    assert_eq!(domain.get("ioThreads"), None);

    let own =
        json!({"ioThreads": {"supplementalPoolThreadCount": 2}, "launchSecurity": {"snp": {}}});
    let (domain, conflicts) = applied(9, instancetype, own);
    assert_eq!(
        domain["ioThreads"],
        json!({"supplementalPoolThreadCount": 2})
    );
    assert_eq!(domain["launchSecurity"], json!({"snp": {}}));
    assert_eq!(
        conflicts,
        [
            "spec.domain.ioThreads.supplementalPoolThreadCount",
            "spec.domain.launchSecurity"
        ]
    );
}
