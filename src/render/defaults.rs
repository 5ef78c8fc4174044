//! VMI-spec defaults applied by expand and admission (`pkg/defaults/defaults.go`
//! `SetDefaultVirtualMachineInstanceSpec`, `pkg/network/vmispec/defaults.go`,
//! `pkg/util/util.go` `SetDefaultVolumeDisk`).

use serde_json::{Map, Value, json};

use crate::cluster::backports;
use crate::cluster::profile::{ClusterProfile, PodBinding};
use crate::k8s::quantity::Quantity;
use crate::model::value::{Fields, Obj, child, get_obj, is_set, list, resource, str_of, u64_of};

/// Adds a `{name}` disk for every volume that has no disk or filesystem of that name. The disks
/// it adds do not count: two volumes of one name without a disk get a disk each, as in KubeVirt
/// (`SetDefaultVolumeDisk` reads the names once, before adding any).
pub(crate) fn default_volume_disks(spec: &mut Obj) {
    let volumes: Vec<String> = spec
        .field("volumes")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|v| {
                    v.field("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default();
    if volumes.is_empty() {
        return;
    }
    let devices = child(child(spec, "domain"), "devices");
    let names: Vec<String> = ["disks", "filesystems"]
        .iter()
        .filter_map(|key| devices.get(*key).and_then(Value::as_array))
        .flatten()
        .map(|d| {
            d.field("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        })
        .collect();
    let disks = list(devices, "disks");
    for volume in volumes {
        if !names.contains(&volume) {
            disks.push(json!({ "name": volume }));
        }
    }
}

/// Why KubeVirt's defaulting refuses a VM: the cluster's default binding for the pod network
/// cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DefaultsError {
    /// Up to v1.3 (`SetVMISpecDefaultNetworkInterface` of virt-config) the message is
    /// capitalised.
    #[error("Bridge interface is not enabled in kubevirt-config")]
    BridgeNotEnabled,
    #[error("bridge interface is not enabled in kubevirt-config")]
    BridgeNotPermitted,
    /// Up to v1.2, when `network.permitSlirpInterface` is off.
    #[error("Slirp interface is not enabled in kubevirt-config")]
    SlirpNotEnabled,
    #[error("slirp interface is deprecated as of v1.3")]
    SlirpDiscontinued,
}

/// Adds the default pod network and its interface when the VM has neither.
pub(crate) fn default_pod_network(
    spec: &mut Obj,
    profile: &ClusterProfile,
) -> Result<(), DefaultsError> {
    let devices = get_obj(spec, "domain").and_then(|d| get_obj(d, "devices"));
    if devices
        .and_then(|d| d.field("autoattachPodInterface"))
        .and_then(Value::as_bool)
        == Some(false)
    {
        return Ok(());
    }
    let has = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    if has(spec.field("networks")) || has(devices.and_then(|d| d.field("interfaces"))) {
        return Ok(());
    }
    let version = profile.version;
    let binding = match profile.pod_binding {
        PodBinding::Bridge if !profile.permit_bridge_on_pod_network => {
            return Err(if version.at_least(1, 4) {
                DefaultsError::BridgeNotPermitted
            } else {
                DefaultsError::BridgeNotEnabled
            });
        }
        PodBinding::Bridge => "bridge",
        PodBinding::Masquerade => "masquerade",
        PodBinding::Slirp if version.at_least(1, 3) => {
            return Err(DefaultsError::SlirpDiscontinued);
        }
        PodBinding::Slirp if !profile.permit_slirp_interface => {
            return Err(DefaultsError::SlirpNotEnabled);
        }
        PodBinding::Slirp => "slirp",
    };
    let mut interface = Map::new();
    interface.insert("name".to_owned(), "default".into());
    interface.insert(binding.to_owned(), Value::Object(Map::new()));
    child(child(spec, "domain"), "devices").insert(
        "interfaces".to_owned(),
        Value::Array(vec![Value::Object(interface)]),
    );
    spec.insert(
        "networks".to_owned(),
        json!([{ "name": "default", "pod": {} }]),
    );
    Ok(())
}

fn is_zero_quantity(value: Option<&Value>) -> bool {
    value.is_none_or(|v| Quantity::from_json(v).map_or(true, |q| q.is_zero()))
}

/// `SetDefaultVirtualMachineInstanceSpec`, in KubeVirt's order. The guest memory is defaulted
/// from v1.3 ("virt-api: always set memory.guest"), the eviction strategy from v1.0.1.
pub(crate) fn set_vmi_spec_defaults(
    spec: &mut Obj,
    profile: &ClusterProfile,
) -> Result<(), DefaultsError> {
    let version = profile.version;
    if str_of(spec, "architecture").is_empty() {
        spec.insert(
            "architecture".to_owned(),
            profile.default_architecture.clone().into(),
        );
    }
    let machine_type = profile.machine_type_for(str_of(spec, "architecture"));
    let domain = child(spec, "domain");
    let machine = child(domain, "machine");
    if str_of(machine, "type").is_empty() {
        machine.insert("type".to_owned(), machine_type.into());
    }
    set_resource_requests(domain, profile);
    if !version.has_change(backports::NO_MEMORY_REQUEST_DEFAULT) {
        set_memory_request(domain, profile);
    }
    if version.at_least(1, 3) {
        set_guest_memory(domain);
    }
    set_cpu_topology(domain);
    set_pull_policies(spec);
    if version.has_change(backports::EVICTION_STRATEGY_DEFAULT) && !is_set(spec, "evictionStrategy")
    {
        let strategy = profile.eviction_strategy.as_deref().unwrap_or("None");
        spec.insert("evictionStrategy".to_owned(), strategy.into());
    }
    default_pod_network(spec, profile)?;
    default_volume_disks(spec);
    Ok(())
}

fn set_resource_requests(domain: &mut Obj, profile: &ClusterProfile) {
    let limits_cpu = resource(domain, "limits", "cpu").cloned();
    if !is_zero_quantity(limits_cpu.as_ref())
        && is_zero_quantity(resource(domain, "requests", "cpu"))
        && let Some(limit) = limits_cpu
    {
        child(child(domain, "resources"), "requests").insert("cpu".to_owned(), limit);
    }
    let Some(cpu_request) = &profile.cpu_request else {
        return;
    };
    let is_default = Quantity::from_json(cpu_request)
        .ok()
        .zip(Quantity::parse("100m").ok())
        .is_some_and(|(a, b)| a.cmp_value(&b).is_eq());
    if is_default || resource(domain, "requests", "cpu").is_some() {
        return;
    }
    let dedicated = get_obj(domain, "cpu")
        .and_then(|c| c.field("dedicatedCpuPlacement"))
        .and_then(Value::as_bool)
        == Some(true);
    if !dedicated {
        child(child(domain, "resources"), "requests").insert("cpu".to_owned(), cpu_request.clone());
    }
}

/// The memory request `set_memory_request` derives for `domain` whatever request it has;
/// `None` from v1.6.4 and v1.7, which derive none, or when it derives none.
pub(crate) fn derived_memory_request(domain: &Obj, profile: &ClusterProfile) -> Option<Value> {
    if profile
        .version
        .has_change(backports::NO_MEMORY_REQUEST_DEFAULT)
    {
        return None;
    }
    let mut bare = domain.clone();
    if let Some(Value::Object(requests)) = bare
        .get_mut("resources")
        .and_then(|r| r.get_mut("requests"))
    {
        requests.remove("memory");
    }
    set_memory_request(&mut bare, profile);
    resource(&bare, "requests", "memory").cloned()
}

/// v1.0–v1.6.3 also defaulted `requests.memory`: a non-zero limit replaces a zero or missing
/// request, and a missing one follows the guest memory (or the hugepage size) and the cluster's
/// memory overcommit (v1.6.2: without the overcommit).
fn set_memory_request(domain: &mut Obj, profile: &ClusterProfile) {
    let limit = resource(domain, "limits", "memory").cloned();
    if !is_zero_quantity(limit.as_ref())
        && is_zero_quantity(resource(domain, "requests", "memory"))
        && let Some(limit) = limit
    {
        child(child(domain, "resources"), "requests").insert("memory".to_owned(), limit);
    }
    if resource(domain, "requests", "memory").is_some() {
        return;
    }
    let memory = get_obj(domain, "memory");
    let guest = memory
        .and_then(|m| m.field("guest"))
        .and_then(|g| Quantity::from_json(g).ok())
        .or_else(|| {
            memory
                .and_then(|m| get_obj(m, "hugepages"))
                .and_then(|h| h.field("pageSize"))
                .and_then(|p| Quantity::from_json(p).ok())
        });
    if let Some(guest) = guest.filter(|g| g.value() > 0) {
        let overcommit = if profile.version == backports::MEMORY_REQUEST_WITHOUT_OVERCOMMIT {
            100
        } else {
            profile.memory_overcommit.max(1)
        };
        let bytes = guest.value().saturating_mul(100) / overcommit;
        let request = Quantity::from_i64(bytes, guest.format());
        child(child(domain, "resources"), "requests")
            .insert("memory".to_owned(), request.canonical().into());
    }
}

fn set_guest_memory(domain: &mut Obj) {
    if get_obj(domain, "memory").is_some_and(|m| is_set(m, "guest")) {
        return;
    }
    let requests = resource(domain, "requests", "memory").cloned();
    let limits = resource(domain, "limits", "memory").cloned();
    let memory = child(domain, "memory");
    let guest = if !is_zero_quantity(requests.as_ref()) {
        requests
    } else if !is_zero_quantity(limits.as_ref()) {
        limits
    } else {
        get_obj(memory, "hugepages")
            .and_then(|h| h.field("pageSize"))
            .and_then(Value::as_str)
            .and_then(|p| Quantity::parse(p).ok())
            .map(|q| Value::String(q.canonical()))
    };
    if let Some(guest) = guest {
        memory.insert("guest".to_owned(), guest);
    }
}

fn set_cpu_topology(domain: &mut Obj) {
    let unset = get_obj(domain, "cpu").is_none_or(|cpu| {
        u64_of(cpu, "cores") == 0 && u64_of(cpu, "sockets") == 0 && u64_of(cpu, "threads") == 0
    });
    if !unset {
        return;
    }
    let value_of = |v: Option<&Value>| {
        v.and_then(|v| Quantity::from_json(v).ok())
            .map(|q| q.value())
    };
    let sockets = if let Some(limit) = resource(domain, "limits", "cpu") {
        value_of(Some(limit)).unwrap_or(0)
    } else if let Some(request) = resource(domain, "requests", "cpu") {
        value_of(Some(request)).unwrap_or(0)
    } else {
        1
    };
    // Go converts with uint32(...): wrap-around like the original.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let sockets = sockets as u32;
    let cpu = child(domain, "cpu");
    cpu.insert("sockets".to_owned(), sockets.into());
    cpu.insert("cores".to_owned(), 1.into());
    cpu.insert("threads".to_owned(), 1.into());
}

fn set_pull_policies(spec: &mut Obj) {
    let Some(volumes) = spec.field_mut("volumes").and_then(Value::as_array_mut) else {
        return;
    };
    for volume in volumes {
        let Some(disk) = volume
            .field_mut("containerDisk")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        if !str_of(disk, "imagePullPolicy").is_empty() {
            continue;
        }
        let image = str_of(disk, "image");
        let policy = if image.ends_with(":latest") || !image.contains([':', '@']) {
            "Always"
        } else {
            "IfNotPresent"
        };
        disk.insert("imagePullPolicy".to_owned(), policy.into());
    }
}

#[cfg(test)]
#[path = "defaults_tests.rs"]
mod tests;
