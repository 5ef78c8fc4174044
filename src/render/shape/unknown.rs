//! Fields that are not part of KubeVirt's Go types. The API server prunes them from the VM (its
//! CRD schema has no such field) and Go's decoder ignores them, so they never reach the cluster.

use serde_json::Value;

use super::{PathSegment, Shape, VIRTUAL_MACHINE};
use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::same_key;
use crate::yaml::FieldPath;

/// Walks `value` along `shape`; `path` holds the segments above `value`, which are cloned only
/// for the (rare) unknown fields.
fn walk<'v>(
    shape: &Shape,
    value: &'v Value,
    path: &mut Vec<PathSegment<'v>>,
    out: &mut Vec<FieldPath>,
) {
    match (shape, value) {
        (Shape::Struct(fields) | Shape::PtrStruct(fields), Value::Object(map)) => {
            for (key, child) in map {
                path.push(PathSegment::Key(key));
                match fields.iter().find(|field| same_key(field.json, key)) {
                    Some(field) => walk(&field.shape, child, path, out),
                    None => out.push(super::field_path(path)),
                }
                path.pop();
            }
        }
        (Shape::Slice(element), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                path.push(PathSegment::Index(i));
                walk(element, item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Paths of the fields of `vm` that KubeVirt's `VirtualMachine` type does not have, in
/// document order.
pub(crate) fn unknown_fields(vm: &Value) -> Vec<FieldPath> {
    let mut out = Vec::new();
    walk(&VIRTUAL_MACHINE, vm, &mut Vec::new(), &mut out);
    out
}

/// The field names KubeVirt's VM type has next to the (unknown) field at `path`.
pub(crate) fn sibling_fields(path: &FieldPath) -> Vec<&'static str> {
    let Some((_, parent)) = path.0.split_last() else {
        return Vec::new();
    };
    match super::shape_at(&super::segments(parent)) {
        Some(Shape::Struct(fields) | Shape::PtrStruct(fields)) => {
            fields.iter().map(|f| f.json).collect()
        }
        _ => Vec::new(),
    }
}

/// Fields of `vm` that `version`'s VM type does not have yet (`crate::schema` lists them).
pub(crate) fn newer_fields(vm: &Value, version: KubeVirtVersion) -> Vec<FieldPath> {
    crate::schema::newer_vm_fields(vm, version)
        .into_iter()
        .map(|(path, _)| path)
        .collect()
}

/// Removes the fields `unknown_fields` finds (and those `version` does not know yet), as the
/// API server's pruning does.
pub(crate) fn prune_unknown(vm: &mut Value, version: KubeVirtVersion) {
    let newer = newer_fields(vm, version);
    prune_unknown_and(vm, newer);
}

/// [`prune_unknown`] for a caller that already has `version`'s [`newer_fields`] of `vm`.
pub(crate) fn prune_unknown_and(vm: &mut Value, newer: Vec<FieldPath>) {
    let mut paths = unknown_fields(vm);
    paths.extend(newer);
    for path in paths.iter().rev() {
        let Some((crate::yaml::Segment::Key(key), parent)) = path.0.split_last() else {
            continue;
        };
        let pointer = crate::yaml::json_pointer(&FieldPath(parent.to_vec()));
        if let Some(map) = vm.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            map.shift_remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn finds_and_prunes_misspelled_fields() {
        let mut vm = json!({"spec": {"runStrategy": "Always", "runstrategy": "x", "template": {"spec": {
            "domain": {"devices": {"disks": [{"name": "a", "bootorder": 1}]}, "cpus": {"cores": 2}},
            "nodeSelector": {"anything.goes/here": "yes"}}}}, "status": {"whatever": 1}});
        let found: Vec<String> = unknown_fields(&vm)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "spec.runstrategy",
                "spec.template.spec.domain.devices.disks[0].bootorder",
                "spec.template.spec.domain.cpus",
            ]
        );
        prune_unknown(&mut vm, KubeVirtVersion::LATEST);
        assert!(unknown_fields(&vm).is_empty());
        assert_eq!(vm["spec"]["runStrategy"], "Always");
    }

    #[test]
    fn pruning_with_the_newer_fields_known_prunes_the_same() {
        let vm = json!({"spec": {"runstrategy": "x", "updateVolumesStrategy": "Migration",
            "template": {"spec": {"domain": {"cpus": {}}}}}});
        let v1_2 = KubeVirtVersion::new(1, 2);
        let newer = newer_fields(&vm, v1_2);
        assert_eq!(newer.len(), 1, "{newer:?}");
        let (mut known, mut computed) = (vm.clone(), vm);
        prune_unknown_and(&mut known, newer);
        prune_unknown(&mut computed, v1_2);
        assert_eq!(known, computed);
        assert_eq!(
            known,
            json!({"spec": {"template": {"spec": {"domain": {}}}}})
        );
    }

    #[test]
    fn the_siblings_of_an_unknown_field_are_its_parents_fields() {
        let vm = json!({"spec": {"runstrategy": "x", "template": {"spec": {"domain": {"cpus": {}},
            "nodeSelector": {"a": "b"}}}}});
        let found = unknown_fields(&vm);
        assert_eq!(found.len(), 2, "{found:?}");
        let spec = sibling_fields(&found[0]);
        assert!(
            spec.contains(&"runStrategy") && !spec.contains(&"kind"),
            "{spec:?}"
        );
        let domain = sibling_fields(&found[1]);
        assert!(
            domain.contains(&"cpu") && domain.contains(&"memory"),
            "{domain:?}"
        );
        assert!(!domain.contains(&"spec"), "{domain:?}");
        let below_a_map = FieldPath::parse("spec.template.spec.nodeSelector.a");
        assert_eq!(sibling_fields(&below_a_map), Vec::<&str>::new());
        assert_eq!(sibling_fields(&FieldPath(Vec::new())), Vec::<&str>::new());
    }
}
