//! The VM the tests start from, and how they run the webhook on it.

use serde_json::{Value, json};

use super::validate;
use crate::cluster::profile::ClusterProfile;
use crate::cluster::profile::KubeVirtVersion;

/// A defaulted VM that every check accepts.
pub(super) fn base_vm() -> Value {
    json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {
            "runStrategy": "Halted",
            "template": {
                "metadata": {},
                "spec": {
                    "architecture": "amd64",
                    "evictionStrategy": "None",
                    "domain": {
                        "cpu": {"sockets": 1, "cores": 1, "threads": 1},
                        "memory": {"guest": "1Gi"},
                        "machine": {"type": "q35"},
                        "resources": {},
                        "devices": {
                            "disks": [{"name": "root", "disk": {"bus": "virtio"}}],
                            "interfaces": [{"name": "default", "masquerade": {}}]
                        }
                    },
                    "networks": [{"name": "default", "pod": {}}],
                    "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]
                }
            }
        }
    })
}

/// JSON merge patch (RFC 7386).
pub(super) fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    if let Value::Object(object) = target {
        for (key, value) in patch {
            if value.is_null() {
                object.remove(key);
            } else {
                merge(object.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
    }
}

pub(super) fn profile(version: (u32, u32), gates: &[&str]) -> ClusterProfile {
    let mut profile = ClusterProfile::new(KubeVirtVersion::new(version.0, version.1));
    profile.feature_gates = gates.iter().map(|g| (*g).to_owned()).collect();
    profile
}

pub(super) fn run_vm(
    vm_patch: &Value,
    profile: &ClusterProfile,
    create: bool,
) -> Vec<(String, String)> {
    let mut vm = base_vm();
    merge(&mut vm, vm_patch);
    validate(&vm, profile, create)
        .into_iter()
        .map(|c| (c.field, c.message))
        .collect()
}

/// Causes for the base VM with `patch` merged into `spec.template.spec`, at v1.9 on CREATE.
pub(super) fn run(patch: &Value) -> Vec<(String, String)> {
    run_with(patch, &ClusterProfile::default())
}

pub(super) fn run_with(patch: &Value, profile: &ClusterProfile) -> Vec<(String, String)> {
    run_vm(
        &json!({"spec": {"template": {"spec": patch}}}),
        profile,
        true,
    )
}

pub(super) fn one(field: &str, message: &str) -> Vec<(String, String)> {
    vec![(field.to_owned(), message.to_owned())]
}
