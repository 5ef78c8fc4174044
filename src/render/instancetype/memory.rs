//! `apply/memory.go`: guest memory, overcommit, hugepages and maxGuest.

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::quantity::{self, Quantity};
use crate::model::InstancetypeSpec;
use crate::model::value::{Fields, Obj, child, get_obj, is_set, resource};
use crate::render::conflict::Conflict;

/// The first conflict only (KubeVirt returns at the first hit). Before v1.7 any VM `memory`
/// object conflicted as a whole.
fn conflict(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    domain: &Obj,
    version: KubeVirtVersion,
) -> Option<Conflict> {
    let memory = get_obj(domain, "memory");
    if !version.at_least(1, 7) {
        if domain.field("memory").is_some_and(|m| !m.is_null()) {
            return Some(Conflict::at(prefix, "domain.memory"));
        }
    } else if let Some(memory) = memory {
        if is_set(memory, "guest") {
            return Some(Conflict::at(prefix, "domain.memory.guest"));
        }
        if is_set(memory, "hugepages")
            && instancetype
                .memory
                .hugepages
                .as_ref()
                .is_some_and(|h| !h.is_null())
        {
            return Some(Conflict::at(prefix, "domain.memory.hugepages"));
        }
        if is_set(memory, "maxGuest")
            && instancetype
                .memory
                .max_guest
                .as_ref()
                .is_some_and(|m| !m.is_null())
        {
            return Some(Conflict::at(prefix, "domain.memory.maxGuest"));
        }
    }
    if resource(domain, "requests", "memory").is_some() {
        return Some(Conflict::at(prefix, "domain.resources.requests.memory"));
    }
    if resource(domain, "limits", "memory").is_some() {
        return Some(Conflict::at(prefix, "domain.resources.limits.memory"));
    }
    None
}

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
    version: KubeVirtVersion,
) -> Option<Conflict> {
    let domain = child(spec, "domain");
    let found = conflict(prefix, instancetype, domain, version);
    child(domain, "memory");
    if found.is_some() {
        return found;
    }
    let it = &instancetype.memory;
    let guest = Quantity::from_json(&it.guest).ok();
    let memory = child(domain, "memory");
    memory.insert("guest".to_owned(), it.guest.clone());
    if let Some(hugepages) = it.hugepages.as_ref().filter(|v| !v.is_null()) {
        memory.insert("hugepages".to_owned(), hugepages.clone());
    }
    if version.at_least(1, 3)
        && let Some(max_guest) = it.max_guest.as_ref().filter(|v| !v.is_null())
    {
        memory.insert("maxGuest".to_owned(), max_guest.clone());
    }
    if it.overcommit_percent > 0
        && let Some(guest) = guest
    {
        let request = quantity::overcommitted(&guest, it.overcommit_percent);
        child(child(domain, "resources"), "requests")
            .insert("memory".to_owned(), Value::String(request.canonical()));
    }
    None
}
