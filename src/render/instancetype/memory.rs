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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn instancetype(memory: Value) -> InstancetypeSpec {
        let mut spec = json!({"cpu": {"guest": 1}});
        spec["memory"] = memory;
        crate::model::decode(&spec).unwrap()
    }

    /// The conflict's path and the VM's domain after applying `instancetype` to it.
    fn applied(
        instancetype: &InstancetypeSpec,
        domain: Value,
        version: KubeVirtVersion,
    ) -> (Option<String>, Value) {
        let mut spec = Obj::new();
        spec.insert("domain".to_owned(), domain);
        let conflict = apply("spec", instancetype, &mut spec, version);
        (conflict.map(|c| c.path), spec["domain"].clone())
    }

    /// KubeVirt `pkg/instancetype/apply/memory.go`: guest memory, hugepages and maxGuest (from
    /// v1.3) are copied, and overcommitPercent lowers the memory request.
    #[test]
    fn the_instancetype_memory_is_copied_with_its_overcommitted_request() {
        let it = instancetype(json!({
            "guest": "4Gi", "hugepages": {"pageSize": "2Mi"}, "maxGuest": "8Gi",
            "overcommitPercent": 25
        }));
        let (conflict, domain) = applied(&it, json!({}), KubeVirtVersion::LATEST);
        assert_eq!(conflict, None);
        assert_eq!(
            domain,
            json!({
                "memory": {"guest": "4Gi", "hugepages": {"pageSize": "2Mi"}, "maxGuest": "8Gi"},
                "resources": {"requests": {"memory": "3Gi"}}
            })
        );
        let it = instancetype(json!({"guest": "4Gi", "maxGuest": "8Gi"}));
        let (_, domain) = applied(&it, json!({}), KubeVirtVersion::new(1, 2));
        assert_eq!(domain, json!({"memory": {"guest": "4Gi"}}));
    }

    /// From v1.7 the VM's memory conflicts field by field, hugepages and maxGuest only where
    /// the instance type sets them too; before, any memory object of the VM conflicts.
    #[test]
    fn memory_conflicts_field_by_field_from_v1_7_and_as_a_whole_before() {
        let conflict = |it: &InstancetypeSpec, domain: Value, minor| {
            applied(it, domain, KubeVirtVersion::new(1, minor)).0
        };
        let vm = json!({"memory": {"hugepages": {"pageSize": "1Gi"}, "maxGuest": "2Gi"}});
        let plain = instancetype(json!({"guest": "1Gi"}));
        assert_eq!(conflict(&plain, vm.clone(), 7), None);
        assert_eq!(
            conflict(&plain, vm.clone(), 6).as_deref(),
            Some("spec.domain.memory")
        );
        assert_eq!(conflict(&plain, json!({"memory": null}), 6), None);
        assert_eq!(
            conflict(&plain, json!({"memory": {"guest": "1Gi"}}), 9).as_deref(),
            Some("spec.domain.memory.guest")
        );
        let hugepages = instancetype(json!({"guest": "1Gi", "hugepages": {"pageSize": "2Mi"}}));
        assert_eq!(
            conflict(&hugepages, vm.clone(), 9).as_deref(),
            Some("spec.domain.memory.hugepages")
        );
        let max_guest = instancetype(json!({"guest": "1Gi", "maxGuest": "4Gi"}));
        assert_eq!(
            conflict(&max_guest, vm, 9).as_deref(),
            Some("spec.domain.memory.maxGuest")
        );
    }
}
