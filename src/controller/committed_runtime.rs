//! Runtime-derived data committed to Git (revision names, status, restore annotations): fields
//! the cluster writes and a declarative manifest must not carry.

use serde_json::Value;

use crate::diag::Finding;
use crate::diag::fix;
use crate::k8s::Object;
use crate::model::MatcherRole;
use crate::model::value::{Fields, at_keys, is_set_at};
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;

const SERVER_FIELDS: [&str; 6] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

fn finding(
    object: &Object,
    base: &FieldPath,
    rule: &'static Rule,
    path: &FieldPath,
    message: String,
    help: &str,
) -> Finding {
    let mut full = base.clone();
    full.0.extend(path.0.iter().cloned());
    Finding::new(rule, object.field_location(&full), message)
        .with_object(Some(object.object_ref()))
        .with_path(full.to_string())
        .with_help(help)
}

/// `path` (dotted) inside the VM at `base` of its object.
fn within(base: &FieldPath, path: &str) -> FieldPath {
    let mut full = base.clone();
    full.0.extend(FieldPath::parse(path).0);
    full
}

/// Findings about cluster-written data in any object: status and server-set metadata.
pub(crate) fn object_findings(object: &Object) -> Vec<Finding> {
    let root = FieldPath::root();
    let mut out = Vec::new();
    if object.node.get("status").is_some_and(|s| {
        !matches!(&s.value, crate::yaml::Value::Null) && s.as_map().is_none_or(|m| !m.is_empty())
    }) {
        out.push(finding(
            object,
            &root,
            &rules::STATUS_COMMITTED,
            &FieldPath::parse("status"),
            format!("{} {} carries a status, which the cluster writes", object.kind, object.name),
            "remove status from the manifest: the API server ignores it on create and GitOps tools show it as drift",
        ).with_fix(Some(fix::remove(&FieldPath::parse("status")))));
    }
    if let Some(metadata) = object.node.get("metadata") {
        for field in SERVER_FIELDS {
            let set = metadata
                .get(field)
                .is_some_and(|v| !matches!(v.value, crate::yaml::Value::Null));
            if set {
                out.push(finding(
                    object,
                    &root,
                    &rules::SERVER_METADATA_COMMITTED,
                    &FieldPath::parse("metadata").key(field),
                    format!("metadata.{field} is set by the API server: this manifest looks exported from a cluster"),
                    "remove it; `kubectl get -o yaml` output needs cleaning before it goes into Git",
                ).with_fix(Some(fix::remove(&FieldPath::parse("metadata").key(field)))));
            }
        }
        if metadata
            .get("annotations")
            .and_then(|a| a.get(LAST_APPLIED))
            .is_some()
        {
            out.push(finding(
                object,
                &root,
                &rules::SERVER_METADATA_COMMITTED,
                &FieldPath::parse("metadata.annotations").key(LAST_APPLIED),
                format!("the {LAST_APPLIED} annotation is written by kubectl apply: this manifest looks exported from a cluster"),
                "remove the annotation",
            ).with_fix(Some(fix::remove(&FieldPath::parse("metadata.annotations").key(LAST_APPLIED)))));
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
        if let Some(revision) = text("revisionName") {
            out.push(finding(
                object,
                base,
                &rules::REVISION_NAME_IN_SPEC,
                &FieldPath::parse(&format!("spec.{}.revisionName", role.field())),
                format!(
                    "revisionName `{revision}` names a ControllerRevision the cluster created (it contains the {}'s UID); a later change of spec.{}.name that keeps it is refused: `the Matcher Name has been updated without updating the RevisionName`",
                    role.noun(),
                    role.field()
                ),
                "remove revisionName from Git: KubeVirt v1.5+ tracks the revision in status, and older releases write it themselves",
            ).with_fix(Some(fix::remove_revision_name(&within(base, &format!("spec.{}.revisionName", role.field()))))));
        }
        if text("inferFromVolume").is_some() && (text("name").is_some() || text("kind").is_some()) {
            out.push(finding(
                object,
                base,
                &rules::INFERRED_MATCHER_COMMITTED,
                &FieldPath::parse(&format!("spec.{}", role.field())),
                format!(
                    "spec.{} has both inferFromVolume and the name the cluster inferred from it: the cluster's result was committed back",
                    role.field()
                ),
                "keep either inferFromVolume (and let KubeVirt resolve it) or the resolved name and kind, not both",
            ).with_fix(Some(fix::drop_inference(&within(base, &format!("spec.{}", role.field()))))));
        }
    }
    if let Some(annotations) = at_keys(vm, &["metadata", "annotations"]).and_then(Value::as_object)
    {
        for key in annotations
            .keys()
            .filter(|k| k.starts_with("restore.kubevirt.io/"))
        {
            out.push(finding(
                object,
                base,
                &rules::RESTORE_ANNOTATION_COMMITTED,
                &FieldPath::parse("metadata.annotations").key(key),
                format!("{key} is written by a VirtualMachineRestore"),
                "remove it from Git; a restored VM also carries revisionName values, which must go too",
            ).with_fix(Some(fix::remove(&within(base, "metadata.annotations").key(key)))));
        }
    }
    if is_set_at(vm, &["spec", "running"]) {
        out.push(finding(
            object,
            base,
            &rules::DEPRECATED_RUNNING,
            &FieldPath::parse("spec.running"),
            "spec.running is deprecated, please use spec.runStrategy instead.".to_owned(),
            "replace `running: true` with `runStrategy: Always` and `running: false` with `runStrategy: Halted`",
        ).with_fix(at_keys(vm, &["spec", "running"]).and_then(|running| fix::running_to_run_strategy(&within(base, "spec.running"), running))));
    }
    out
}
