//! Drift: what the cluster stores differently from what Git says (KubeVirt's mutating webhooks,
//! `pkg/virt-api/webhooks/mutating-webhook/mutators/vm-mutator.go` and
//! `pkg/instancetype/webhooks/vm/mutator.go`, `Mutate`).
//! The stored VM is the mutating webhook's output (`admission::mutate`); every leaf that differs
//! from the manifest is reported at that leaf, or at a parent whose leaves all change, with the
//! YAML to commit instead.

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::{Fields, member, present};
use crate::render::shape::{PathSegment, field_path};
use crate::rules::drift::{Change, Explained, normalized_by_kubevirt};
use crate::rules::{self, Rule};
use crate::yaml::{FieldPath, Segment, json_at};

mod classify;
mod kind;
mod widen;

pub(crate) use kind::engine_effect;
pub use kind::{DriftKind, DriftPolicy, GitOps};

/// One predicted change, ready to become a finding.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    pub rule: &'static Rule,
    /// What a GitOps engine makes of it (the most severe kind among its leaves).
    pub kind: DriftKind,
    pub path: FieldPath,
    /// The value the cluster stores at `path` (None when it removes the field).
    pub stored: Option<Value>,
    /// The value written in Git at `path` (None when Git does not have it).
    pub written: Option<Value>,
    pub message: String,
    pub help: String,
    /// The changed fields `path` stands for (itself when it is a single field).
    pub leaves: Vec<FieldPath>,
}

/// The compared parts of a VM, as (path, value) roots: metadata name, labels, annotations and
/// spec (as the conformance suite and GitOps tools compare them; status is not compared).
fn compared(vm: &Value) -> [(PathSegment<'static>, PathSegment<'static>, Option<&Value>); 3] {
    let meta = |key: &str| {
        vm.field("metadata")
            .and_then(|m| m.get(key))
            .filter(|v| !is_empty(v))
    };
    ["name", "labels", "annotations"].map(|key| {
        (
            PathSegment::Key("metadata"),
            PathSegment::Key(key),
            meta(key),
        )
    })
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// Calls `visit` with every leaf path under `value` (empty maps and lists are not leaves) and
/// stops as soon as it returns false; returns whether it never did.
fn each_leaf<'v>(
    value: &'v Value,
    path: &mut Vec<PathSegment<'v>>,
    visit: &mut dyn FnMut(&[PathSegment<'v>]) -> bool,
) -> bool {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                if child.is_null() {
                    continue;
                }
                path.push(PathSegment::Key(key));
                let go_on = each_leaf(child, path, visit);
                path.pop();
                if !go_on {
                    return false;
                }
            }
            true
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, child) in items.iter().enumerate() {
                path.push(PathSegment::Index(i));
                let go_on = each_leaf(child, path, visit);
                path.pop();
                if !go_on {
                    return false;
                }
            }
            true
        }
        Value::Object(_) | Value::Array(_) | Value::Null => true,
        _ => visit(path),
    }
}

/// Every leaf path under `value` into `out`.
fn leaves<'v>(value: &'v Value, path: &mut Vec<PathSegment<'v>>, out: &mut Vec<FieldPath>) {
    each_leaf(value, path, &mut |leaf| {
        out.push(field_path(leaf));
        true
    });
}

fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// Leaves where `before` and `after` differ (a subtree on one side only counts leaf by leaf).
fn changed_leaves<'v>(
    before: &'v Value,
    after: &'v Value,
    path: &mut Vec<PathSegment<'v>>,
    out: &mut Vec<FieldPath>,
) {
    match (before, after) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, was) in old {
                path.push(PathSegment::Key(key));
                match present(member(new, key)) {
                    Some(is) if !was.is_null() => changed_leaves(was, is, path, out),
                    _ => leaves(was, path, out),
                }
                path.pop();
            }
            for (key, is) in new {
                if present(member(old, key)).is_none() {
                    path.push(PathSegment::Key(key));
                    leaves(is, path, out);
                    path.pop();
                }
            }
        }
        (Value::Array(old), Value::Array(new)) if old.len() == new.len() => {
            for (i, (was, is)) in old.iter().zip(new).enumerate() {
                path.push(PathSegment::Index(i));
                changed_leaves(was, is, path, out);
                path.pop();
            }
        }
        _ if same_scalar(before, after) => {}
        _ => {
            leaves(before, path, out);
            leaves(after, path, out);
            if !is_empty(before) || !is_empty(after) {
                out.push(field_path(path));
            }
        }
    }
}

/// The changed leaves between two VMs, over the compared parts, sorted and without repeats.
pub(crate) fn changed_between(written: &Value, stored: &Value) -> Vec<FieldPath> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    let empty = Value::Object(serde_json::Map::new());
    for ((parent, key, was), (_, _, is)) in compared(written).into_iter().zip(compared(stored)) {
        path.push(parent);
        path.push(key);
        changed_leaves(
            was.unwrap_or(&empty),
            is.unwrap_or(&empty),
            &mut path,
            &mut out,
        );
        path.clear();
    }
    path.push(PathSegment::Key("spec"));
    changed_leaves(
        present(written.field("spec")).unwrap_or(&empty),
        present(stored.field("spec")).unwrap_or(&empty),
        &mut path,
        &mut out,
    );
    // One sort of the whole list costs less than keeping a set ordered leaf by leaf.
    out.sort_unstable();
    out.dedup();
    out
}

/// A changed leaf's rule and drift kind: changes widen to a common parent only within one class.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Class {
    pub rule: &'static Rule,
    pub kind: DriftKind,
}

impl PartialEq for Class {
    fn eq(&self, other: &Self) -> bool {
        self.rule == other.rule && self.kind == other.kind
    }
}

impl Eq for Class {}

/// The class of a changed leaf between the VM as written and as stored.
pub(crate) fn class_of(leaf: &FieldPath, sides: (&Value, &Value), gitops: GitOps) -> Class {
    let rule = classify::rule_of(leaf, sides.0);
    Class {
        rule,
        kind: kind::leaf_kind(rule, leaf, sides, gitops),
    }
}

/// The entries of `changed` (sorted by path) at or under `path`.
fn under_path<'c>(changed: &'c [(FieldPath, Class)], path: &[Segment]) -> &'c [(FieldPath, Class)] {
    let start = changed.partition_point(|(leaf, _)| leaf.0.as_slice() < path);
    let len = changed[start..].partition_point(|(leaf, _)| leaf.0.starts_with(path));
    &changed[start..start + len]
}

/// A YAML snippet that sets `path` to `value` (what to commit).
pub(crate) fn snippet(path: &FieldPath, value: &Value) -> String {
    let keys: Vec<std::borrow::Cow<'_, str>> = path
        .0
        .iter()
        .map(|segment| match segment {
            Segment::Key(key) => key.as_str().into(),
            Segment::Index(i) => format!("[{i}]").into(),
        })
        .collect();
    crate::yaml::emit::nested_to_yaml(&keys, value)
}

/// The firmware UUID KubeVirt's VM controller writes when the field is empty (v1.6+,
/// `pkg/virt-controller/watch/vm/firmware.go`, `CalculateLegacyUUID`): UUIDv5 of the VM name,
/// the same in every namespace and cluster.
pub fn legacy_firmware_uuid(vm_name: &str) -> uuid::Uuid {
    const NAMESPACE: uuid::Uuid = uuid::uuid!("6a1a24a1-4061-4607-8bf4-a3963d0c5895");
    uuid::Uuid::new_v5(&NAMESPACE, vm_name.as_bytes())
}

/// The words of the change at `path`, from its rule.
fn explain(
    rule: &'static Rule,
    path: &FieldPath,
    written: Option<&Value>,
    stored: Option<&Value>,
    version: KubeVirtVersion,
    vm_name: Option<&str>,
) -> Explained {
    let explain: fn(&Change<'_>) -> Explained = rule
        .drift
        .and_then(|drift| drift.changes.as_ref())
        .map_or(normalized_by_kubevirt::explain, |changes| changes.explain);
    let last_key = match path.0.last() {
        Some(Segment::Key(key)) => key.as_str(),
        Some(Segment::Index(_)) => "[]",
        None => "",
    };
    explain(&Change {
        version: &version,
        field: &path.text(),
        last_key,
        written,
        stored,
        legacy_uuid: vm_name.map(|name| (name, legacy_firmware_uuid(name).to_string())),
        snippet: &|value| snippet(path, value),
    })
}

/// Every predicted change between the manifest and what KubeVirt stores, judged for Argo CD's
/// default diff. `vm_name` is the name of the VM the manifest creates, when it has one of its
/// own (not a pool's template). The tests' shorthand: the pipeline asks `predict_for`.
#[cfg(test)]
pub(crate) fn predict(
    written_vm: &Value,
    stored_vm: &Value,
    version: KubeVirtVersion,
    vm_name: Option<&str>,
) -> Vec<Drift> {
    predict_for(written_vm, stored_vm, version, vm_name, GitOps::default())
}

/// [`predict`], with the drift kinds of `gitops`.
pub(crate) fn predict_for(
    written_vm: &Value,
    stored_vm: &Value,
    version: KubeVirtVersion,
    vm_name: Option<&str>,
    gitops: GitOps,
) -> Vec<Drift> {
    let changed_set = changed_between(written_vm, stored_vm);
    if changed_set.is_empty() {
        return Vec::new();
    }
    let (before, after) = (written_vm, stored_vm);
    let changed: Vec<(FieldPath, Class)> = changed_set
        .into_iter()
        .map(|leaf| {
            let class = class_of(&leaf, (written_vm, stored_vm), gitops);
            (leaf, class)
        })
        .collect();
    let mut widened: Vec<(&[Segment], &'static Rule, DriftKind)> =
        widen::widest_paths(&changed, (before, after))
            .into_iter()
            .zip(&changed)
            .map(|(path, (_, class))| (path, class.rule, class.kind))
            .collect();
    widened.sort_unstable_by_key(|&(path, rule, kind)| (path, rule.code, kind));
    widened.dedup();
    let mut out = Vec::new();
    // The widened paths seen so far that are prefixes of the current one, shortest first.
    let mut enclosing: Vec<&[Segment]> = Vec::new();
    for &(path, widened_rule, kind) in &widened {
        while enclosing
            .last()
            .is_some_and(|other| !path.starts_with(other))
        {
            enclosing.pop();
        }
        let repeated = enclosing.last() == Some(&path);
        if enclosing.len() > usize::from(repeated) {
            continue;
        }
        if !repeated {
            enclosing.push(path);
        }
        let under = under_path(&changed, path);
        let rule = under
            .iter()
            .find(|(_, class)| class.rule == widened_rule)
            .map_or(&rules::NORMALIZED_BY_KUBEVIRT, |(_, class)| class.rule);
        let path = FieldPath(path.to_vec());
        let written = json_at(before, &path.0).cloned();
        let stored = json_at(after, &path.0).cloned();
        let Explained { message, help } = explain(
            rule,
            &path,
            written.as_ref(),
            stored.as_ref(),
            version,
            vm_name,
        );
        let leaves = under.iter().map(|(leaf, _)| leaf.clone()).collect();
        out.push(Drift {
            rule,
            kind,
            path,
            stored,
            written,
            message,
            help,
            leaves,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reports_each_change_at_the_narrowest_sufficient_path() {
        let written = json!({"metadata": {"name": "vm"}, "spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
        let stored = json!({"metadata": {"name": "vm"}, "spec": {"template": {
            "metadata": {"annotations": {"kubevirt.io/pci-topology-version": "v3"}},
            "spec": {"architecture": "amd64", "domain": {"devices": {}, "resources": {},
                "firmware": {"uuid": "u", "serial": "s"}, "machine": {"type": "q35"}}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        let paths: Vec<String> = drift.iter().map(|d| d.path.to_string()).collect();
        assert_eq!(
            paths,
            [
                "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]",
                "spec.template.spec.architecture",
                "spec.template.spec.domain.firmware",
                "spec.template.spec.domain.machine.type",
            ]
        );
        assert_eq!(drift[3].rule, &rules::MACHINE_TYPE_DEFAULTED);
        assert!(drift[3].help.contains("type: q35"), "{}", drift[3].help);
    }

    #[test]
    fn does_not_widen_over_unchanged_fields() {
        let written = json!({"spec": {"template": {"spec": {"domain": {"firmware": {"bootloader": {"efi": {}}}, "devices": {}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {"firmware": {"bootloader": {"efi": {}}, "uuid": "u"}, "devices": {}}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(drift.len(), 1);
        assert_eq!(
            drift[0].path.to_string(),
            "spec.template.spec.domain.firmware.uuid"
        );
    }

    #[test]
    fn names_the_legacy_uuid_the_controller_writes() {
        // The same UUIDv5 as Python's uuid.uuid5(namespace, "testvm").
        assert_eq!(
            legacy_firmware_uuid("testvm").to_string(),
            "5a9fc181-957e-5c32-9e5a-2de5e9673531"
        );
        let written = json!({"metadata": {"name": "testvm"}, "spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
        let stored = json!({"metadata": {"name": "testvm"}, "spec": {"template": {"spec": {"domain": {"devices": {}, "firmware": {"uuid": "u"}}}}}});
        let drift = predict(
            &written,
            &stored,
            KubeVirtVersion::new(1, 6),
            Some("testvm"),
        );
        assert!(
            drift[0]
                .message
                .contains("5a9fc181-957e-5c32-9e5a-2de5e9673531"),
            "{}",
            drift[0].message
        );
        assert!(
            drift[0]
                .help
                .contains("uuid: 5a9fc181-957e-5c32-9e5a-2de5e9673531"),
            "{}",
            drift[0].help
        );
    }

    #[test]
    fn non_canonical_quantities_are_normalized() {
        let written =
            json!({"spec": {"template": {"spec": {"domain": {"memory": {"guest": "1024Mi"}}}}}});
        let stored =
            json!({"spec": {"template": {"spec": {"domain": {"memory": {"guest": "1Gi"}}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(drift[0].rule, &rules::NORMALIZED_BY_KUBEVIRT);
        assert!(drift[0].message.contains("`1Gi`"), "{}", drift[0].message);
    }

    fn paths(drift: &[Drift]) -> Vec<String> {
        drift.iter().map(|d| d.path.to_string()).collect()
    }

    #[test]
    fn the_vms_own_name_labels_and_annotations_are_compared() {
        // A null label value is stored as the empty string.
        let written = json!({"metadata": {"name": "vm", "labels": {"app": null, "tier": "web"},
            "annotations": {"note": "a"}}, "spec": {"runStrategy": "Halted"}});
        let stored = json!({"metadata": {"name": "vm", "labels": {"app": "", "tier": "web"},
            "annotations": {"note": "b"}}, "spec": {"runStrategy": "Halted"}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, Some("vm"));
        assert_eq!(
            paths(&drift),
            ["metadata.annotations.note", "metadata.labels.app"]
        );
        let renamed = json!({"metadata": {"name": "other"}, "spec": {"runStrategy": "Halted"}});
        let drift = predict(&written, &renamed, KubeVirtVersion::LATEST, Some("vm"));
        assert!(
            paths(&drift).contains(&"metadata.name".to_owned()),
            "{:?}",
            paths(&drift)
        );
    }

    #[test]
    fn empty_values_the_cluster_stores_as_other_empty_values_are_no_drift() {
        // Labels written empty or null and not stored at all; list items written as an empty
        // map, an empty list or null that come back as null or `{}` (Go's zero struct).
        for labels in [json!({}), Value::Null] {
            let written = json!({"metadata": {"name": "vm", "labels": labels}, "spec": {}});
            let stored = json!({"metadata": {"name": "vm"}, "spec": {}});
            let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
            assert_eq!(paths(&drift), Vec::<String>::new(), "labels: {labels}");
        }
        let written = json!({"spec": {"template": {"spec": {"bogus": [{}, [], null]}}}});
        let stored = json!({"spec": {"template": {"spec": {"bogus": [null, null, {}]}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(paths(&drift), Vec::<String>::new());
    }

    #[test]
    fn a_list_the_cluster_empties_is_reported_at_the_list() {
        let written =
            json!({"spec": {"template": {"spec": {"bogus": {"list": ["a"], "kept": "x"}}}}});
        let stored = json!({"spec": {"template": {"spec": {"bogus": {"list": [], "kept": "x"}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(paths(&drift), ["spec.template.spec.bogus.list"]);
        assert_eq!(drift[0].stored, Some(json!([])));
        assert_eq!(drift[0].written, Some(json!(["a"])));
    }

    #[test]
    fn numbers_compare_by_value() {
        let vm = |cores: Value, sockets: Value| json!({"spec": {"template": {"spec": {"domain": {"cpu": {"cores": cores, "sockets": sockets}}}}}});
        let written = vm(json!(2.0), json!(1));
        let drift = predict(
            &written,
            &vm(json!(2), json!(1)),
            KubeVirtVersion::LATEST,
            None,
        );
        assert_eq!(paths(&drift), Vec::<String>::new());
        let drift = predict(
            &written,
            &vm(json!(4), json!(1)),
            KubeVirtVersion::LATEST,
            None,
        );
        assert_eq!(paths(&drift), ["spec.template.spec.domain.cpu.cores"]);
    }

    #[test]
    fn a_list_the_cluster_shortens_is_reported_at_the_list() {
        let written =
            json!({"spec": {"template": {"spec": {"bogus": {"list": ["a", "b"], "kept": "x"}}}}});
        let stored =
            json!({"spec": {"template": {"spec": {"bogus": {"list": ["a"], "kept": "x"}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(paths(&drift), ["spec.template.spec.bogus.list"]);
    }

    #[test]
    fn a_field_written_as_null_is_reported_at_the_leaves_the_cluster_writes_there() {
        let written = json!({"spec": {"template": {"spec": {"domain": {"firmware": null}}}}});
        let stored =
            json!({"spec": {"template": {"spec": {"domain": {"firmware": {"uuid": "u"}}}}}});
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(paths(&drift), ["spec.template.spec.domain.firmware.uuid"]);
        assert_eq!(drift[0].rule, &rules::FIRMWARE_IDENTITY_GENERATED);
    }
}
