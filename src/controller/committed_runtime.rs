//! Runtime-derived data committed to Git (revision names, status, restore annotations): fields
//! the cluster writes and a declarative manifest must not carry.

use serde_json::Value;

use crate::diag::Finding;
use crate::diag::fix;
use crate::k8s::Object;
use crate::model::MatcherRole;
use crate::model::value::{Fields, at_keys, is_set_at};
use crate::rules::drift::Explained;
use crate::rules::runtime::{
    inferred_matcher_committed, restore_annotation_committed, revision_name_in_spec,
    server_metadata_committed, status_committed,
};
use crate::rules::{self, Rule, RuntimeFix};
use crate::yaml::FieldPath;

/// A finding at `path` inside the VM (or object) at `base`.
fn finding(
    object: &Object,
    base: &FieldPath,
    rule: &'static Rule,
    path: &FieldPath,
    explained: Explained,
) -> Finding {
    let full = joined(base, path);
    Finding::new(rule, object.field_location(&full), explained.message)
        .with_object(Some(object.object_ref()))
        .with_path(full.to_string())
        .with_help(explained.help)
}

/// A runtime rule's finding at `path` inside the VM (or object) at `base`, worded and fixed as
/// the rule declares.
fn runtime_finding(
    object: &Object,
    base: &FieldPath,
    rule: &'static Rule,
    path: &FieldPath,
    explained: Explained,
    runtime_fix: RuntimeFix,
) -> Finding {
    finding(object, base, rule, path, explained)
        .with_fix(fix::runtime(runtime_fix, &joined(base, path)))
}

fn joined(base: &FieldPath, path: &FieldPath) -> FieldPath {
    let mut full = base.clone();
    full.0.extend(path.0.iter().cloned());
    full
}

/// `path` (dotted) inside the VM at `base` of its object.
fn within(base: &FieldPath, path: &str) -> FieldPath {
    joined(base, &FieldPath::parse(path))
}

/// Findings about cluster-written data in any object: status and server-set metadata.
pub(crate) fn object_findings(object: &Object) -> Vec<Finding> {
    let root = FieldPath::root();
    let mut out = Vec::new();
    if object.node.get(status_committed::FIELD).is_some_and(|s| {
        !matches!(&s.value, crate::yaml::Value::Null) && s.as_map().is_none_or(|m| !m.is_empty())
    }) {
        out.push(runtime_finding(
            object,
            &root,
            &status_committed::STATUS_COMMITTED,
            &FieldPath::parse(status_committed::FIELD),
            status_committed::explain(&object.kind, &object.name),
            status_committed::FIX,
        ));
    }
    if let Some(metadata) = object.node.get("metadata") {
        for field in server_metadata_committed::SERVER_FIELDS {
            let set = metadata
                .get(field)
                .is_some_and(|v| !matches!(v.value, crate::yaml::Value::Null));
            if set {
                out.push(runtime_finding(
                    object,
                    &root,
                    &server_metadata_committed::SERVER_METADATA_COMMITTED,
                    &FieldPath::parse("metadata").key(field),
                    server_metadata_committed::explain_server_field(field),
                    server_metadata_committed::FIX,
                ));
            }
        }
        let last_applied = server_metadata_committed::LAST_APPLIED;
        if metadata
            .get("annotations")
            .and_then(|a| a.get(last_applied))
            .is_some()
        {
            out.push(runtime_finding(
                object,
                &root,
                &server_metadata_committed::SERVER_METADATA_COMMITTED,
                &FieldPath::parse("metadata.annotations").key(last_applied),
                server_metadata_committed::explain_last_applied(),
                server_metadata_committed::FIX,
            ));
        }
    }
    out
}

/// Findings about runtime-derived data in a VM (at `base` inside its object).
pub(crate) fn vm_findings(object: &Object, base: &FieldPath, vm: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
        let Some(matcher) = vm.field("spec").and_then(|s| s.field(role.field())) else {
            continue;
        };
        let text = |key: &str| {
            matcher
                .get(key)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
        };
        if let Some(revision) = text(revision_name_in_spec::KEY) {
            out.push(runtime_finding(
                object,
                base,
                &revision_name_in_spec::REVISION_NAME_IN_SPEC,
                &FieldPath::parse("spec")
                    .key(role.field())
                    .key(revision_name_in_spec::KEY),
                revision_name_in_spec::explain(revision, role.field(), role.noun()),
                revision_name_in_spec::FIX,
            ));
        }
        if text(inferred_matcher_committed::INFER_KEY).is_some()
            && inferred_matcher_committed::INFERRED_KEYS
                .iter()
                .any(|key| text(key).is_some())
        {
            out.push(runtime_finding(
                object,
                base,
                &inferred_matcher_committed::INFERRED_MATCHER_COMMITTED,
                &FieldPath::parse("spec").key(role.field()),
                inferred_matcher_committed::explain(role.field()),
                inferred_matcher_committed::FIX,
            ));
        }
    }
    if let Some(annotations) = at_keys(vm, &["metadata", "annotations"]).and_then(Value::as_object)
    {
        for key in annotations
            .keys()
            .filter(|k| k.starts_with(restore_annotation_committed::ANNOTATION_PREFIX))
        {
            out.push(runtime_finding(
                object,
                base,
                &restore_annotation_committed::RESTORE_ANNOTATION_COMMITTED,
                &FieldPath::parse("metadata.annotations").key(key),
                restore_annotation_committed::explain(key),
                restore_annotation_committed::FIX,
            ));
        }
    }
    if is_set_at(vm, &["spec", "running"]) {
        let explained = Explained {
            message: "spec.running is deprecated, please use spec.runStrategy instead.".to_owned(),
            help: "replace `running: true` with `runStrategy: Always` and `running: false` with `runStrategy: Halted`".to_owned(),
        };
        out.push(
            finding(
                object,
                base,
                &rules::DEPRECATED_RUNNING,
                &FieldPath::parse("spec.running"),
                explained,
            )
            .with_fix(at_keys(vm, &["spec", "running"]).and_then(|running| {
                fix::running_to_run_strategy(&within(base, "spec.running"), running)
            })),
        );
    }
    out
}
