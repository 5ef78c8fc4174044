//! `kvlint ignore-differences`: the ignore rules of the GitOps engine (`--gitops`) for the drift
//! kvlint predicts, and only those that change what the engine shows or applies.
//!
//! - Argo CD's default diff shows a value Git sets that the cluster stores differently (out of
//!   sync); ignoring it hides the difference. It never shows a field only the cluster writes
//!   (gitops-engine `pkg/diff` drops live fields Git does not set), so cluster defaults get no
//!   entry. With the `ServerSideApply=true` sync option, a default written inside Git's
//!   `dataVolumeTemplates` shows too (the list is atomic).
//! - A sync-breaking rewrite (`inferFromVolume`) needs its matcher ignored *and*
//!   `RespectIgnoreDifferences=true`: argo-cd `controller/sync.go` `normalizeTargetResources`
//!   then copies the live values of ignored paths into what it applies, for objects that
//!   exist, so the stored matcher is sent instead of `inferFromVolume`. ServerSideDiff runs its
//!   dry-run on the manifest before any ignore rule, so nothing prevents that refusal.
//! - Flux compares a server-side dry-run with the live object; the dry-run goes through
//!   KubeVirt's webhook and keeps fields nobody owns, so no predicted drift shows, and its
//!   `.spec.ignore` (kustomize-controller v1.9+) applies only after a dry-run that succeeded.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::check::Report;
use crate::controller::drift::{DriftKind, GitOps};
use crate::diag::{Finding, ObjectRef, UnitRef};
use crate::yaml::{FieldPath, json_pointer};

/// The namespace kvlint gives an object whose manifest (and Kustomize) sets none.
const FALLBACK_NAMESPACE: &str = "default";

/// What an ignore rule for a finding does under `gitops`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// Hides a difference the engine shows.
    Hides,
    /// Hides it and, with RespectIgnoreDifferences, keeps a sync from being refused.
    KeepsSyncWorking,
    /// The engine shows nothing: an entry would change nothing.
    Nothing,
    /// The refusal happens before any ignore rule applies.
    CannotPrevent,
}

fn effect(finding: &Finding, gitops: GitOps) -> Effect {
    let Some(kind) = finding.drift else {
        return Effect::Nothing;
    };
    match (kind, gitops) {
        // The controller removed the matchers: ignoring them cannot bring them back.
        (DriftKind::SyncBreaking, _) if finding.rule.refuses_sync_whatever_ignored() => {
            Effect::CannotPrevent
        }
        (DriftKind::SyncBreaking, GitOps::ArgoCd | GitOps::ArgoCdServerSideApply) => {
            Effect::KeepsSyncWorking
        }
        (DriftKind::SyncBreaking, GitOps::ArgoCdServerSideDiff | GitOps::Flux) => {
            Effect::CannotPrevent
        }
        (DriftKind::OutOfSync, GitOps::ArgoCd | GitOps::ArgoCdServerSideApply) => Effect::Hides,
        (DriftKind::OutOfSync | DriftKind::ClusterDefault, _) => Effect::Nothing,
    }
}

/// One object's ignore rule.
#[derive(Debug, Default)]
struct Entry {
    pointers: BTreeSet<String>,
    /// Needs RespectIgnoreDifferences (a sync-breaking matcher).
    respect: bool,
    /// The object's namespace is the one its unit's engine places it in, even `default`.
    placed: bool,
}

/// The objects a finding is about: each rendered object it stands for (a finding on a base
/// shared by several units names every overlay's VM in `instances`), with its unit.
fn objects_of(finding: &Finding) -> Vec<(&ObjectRef, Option<&UnitRef>)> {
    if finding.instances.is_empty() {
        return finding
            .object
            .iter()
            .map(|object| (object, finding.unit.as_deref()))
            .collect();
    }
    finding
        .instances
        .iter()
        .map(|instance| (&instance.object, Some(&instance.unit)))
        .collect()
}

/// Whether the engine of `unit` places every object it applies in a namespace the rendered
/// object already names: an Argo CD Application's `spec.destination.namespace` for objects
/// whose manifests set none (the units stage gives rendered objects that namespace). Other
/// units' objects keep what Kustomize set, and kvlint's fallback namespace is not known.
fn places_in_destination(unit: Option<&UnitRef>) -> bool {
    unit.and_then(|unit| unit.via.as_ref())
        .is_some_and(|via| via.kind == "Application" || via.kind == "ApplicationSet")
}

/// What the findings ask of the engine.
#[derive(Debug, Default)]
struct Plan {
    entries: BTreeMap<ObjectRef, Entry>,
    /// Objects with a refusal no ignore rule prevents, and the paths.
    unpreventable: BTreeMap<ObjectRef, BTreeSet<String>>,
}

fn plan(report: &Report) -> Plan {
    let gitops = report.drift_policy.gitops;
    let mut plan = Plan::default();
    for finding in &report.findings {
        let Some(path) = &finding.path else {
            continue;
        };
        for (object, unit) in objects_of(finding) {
            add(&mut plan, finding, object, unit, path, gitops);
        }
    }
    // A pointer under another one of the same object adds nothing.
    for entry in plan.entries.values_mut() {
        let mut kept: BTreeSet<String> = BTreeSet::new();
        for pointer in std::mem::take(&mut entry.pointers) {
            let covered = kept.iter().any(|outer| {
                pointer.starts_with(outer.as_str()) && pointer[outer.len()..].starts_with('/')
            });
            if !covered {
                kept.insert(pointer);
            }
        }
        entry.pointers = kept;
    }
    plan
}

/// What one finding asks of the engine for one object.
fn add(
    plan: &mut Plan,
    finding: &Finding,
    object: &ObjectRef,
    unit: Option<&UnitRef>,
    path: &str,
    gitops: GitOps,
) {
    match effect(finding, gitops) {
        Effect::Nothing => {}
        Effect::CannotPrevent => {
            plan.unpreventable
                .entry(object.clone())
                .or_default()
                .insert(path.to_owned());
        }
        Effect::KeepsSyncWorking => {
            // The whole matcher: the live one is what a sync must send back.
            let entry = plan.entries.entry(object.clone()).or_default();
            entry.placed |= places_in_destination(unit);
            entry.pointers.insert(json_pointer(&FieldPath::parse(path)));
            entry.respect = true;
        }
        Effect::Hides => {
            let entry = plan.entries.entry(object.clone()).or_default();
            entry.placed |= places_in_destination(unit);
            let path = path.to_owned();
            let fields = if finding.fields.is_empty() {
                std::slice::from_ref(&path)
            } else {
                finding.fields.as_slice()
            };
            // A set: a finding may stand for many thousand fields.
            entry.pointers.extend(
                fields
                    .iter()
                    .map(|field| json_pointer(&FieldPath::parse(field))),
            );
        }
    }
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// The namespace the engine will use, when kvlint knows it: the manifest's or Kustomize's.
/// Without one, Argo CD uses the Application's destination namespace, which kvlint does not
/// know, and an entry without a namespace matches the object in any namespace.
fn known_namespace<'a>(object: &'a ObjectRef, entry: &Entry) -> Option<&'a str> {
    object
        .namespace
        .as_deref()
        .filter(|namespace| entry.placed || *namespace != FALLBACK_NAMESPACE)
}

fn unknown_namespaces(plan: &Plan) -> Vec<String> {
    plan.entries
        .iter()
        .filter(|(object, entry)| {
            object.namespace.is_some() && known_namespace(object, entry).is_none()
        })
        .map(|(object, _)| object)
        .map(|object| plain(&object.name))
        .collect()
}

/// The Argo CD `ignoreDifferences` entries.
fn argocd_entries(plan: &Plan) -> Vec<Value> {
    plan.entries
        .iter()
        .map(|(object, entry)| {
            let mut value = json!({
                "group": group_of(&object.api_version),
                "kind": object.kind,
                "name": object.name,
            });
            if let Some(namespace) = known_namespace(object, entry) {
                value["namespace"] = json!(namespace);
            }
            value["jsonPointers"] = json!(entry.pointers);
            value
        })
        .collect()
}

/// Flux `.spec.ignore` rules.
fn flux_rules(plan: &Plan) -> Vec<Value> {
    plan.entries
        .iter()
        .map(|(object, entry)| {
            let (group, version) = object
                .api_version
                .rsplit_once('/')
                .unwrap_or(("", object.api_version.as_str()));
            let mut target = json!({"group": group, "version": version, "kind": object.kind, "name": object.name});
            if let Some(namespace) = known_namespace(object, entry) {
                target["namespace"] = json!(namespace);
            }
            json!({"paths": entry.pointers, "target": target})
        })
        .collect()
}

/// A name as a comment shows it: as written when it is a plain Kubernetes name, else quoted
/// and escaped, so that no name can end the comment line.
fn plain(name: &str) -> String {
    let is_plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if is_plain {
        name.to_owned()
    } else {
        serde_json::to_string(name).unwrap_or_default()
    }
}

/// A field path as a comment shows it (paths hold map keys, which may hold anything).
fn plain_path(path: &str) -> String {
    if path.chars().any(char::is_control) {
        serde_json::to_string(path).unwrap_or_default()
    } else {
        path.to_owned()
    }
}

fn comment_lines(out: &mut String, text: &str) {
    for line in text.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
}

fn unpreventable_note(plan: &Plan, gitops: GitOps, out: &mut String) {
    for (object, paths) in &plan.unpreventable {
        let paths: Vec<String> = paths.iter().map(|path| plain_path(path)).collect();
        let why = match gitops {
            GitOps::ArgoCdServerSideDiff => {
                "ServerSideDiff dry-runs the manifest before any ignore rule applies: the refusal is a ComparisonError"
            }
            GitOps::Flux => {
                "Flux's dry-run sends the manifest before any ignore rule applies: the Kustomization stays Ready=False"
            }
            GitOps::ArgoCd | GitOps::ArgoCdServerSideApply => {
                "KubeVirt's controller removed the matchers: ignoring them does not bring them back"
            }
        };
        let _ = writeln!(
            out,
            "# {} {}: no ignore rule prevents the refusal of `{}` ({why}); commit what `kvlint check` says instead.",
            plain(&object.kind),
            plain(&object.name),
            paths.join("`, `"),
        );
    }
}

fn argocd_yaml(plan: &Plan, gitops: GitOps) -> String {
    let mut out = String::new();
    comment_lines(
        &mut out,
        &format!(
            "Predicted drift (kvlint, --gitops {}): add to the Argo CD Application's spec.\nOnly differences Argo CD shows are listed; fields only the cluster writes never show.\nPer-name entries are valid in an Application, not in argocd-cm resource.customizations.\nBetter still: commit the values instead (see `kvlint check`), and this block shrinks.",
            gitops.as_str()
        ),
    );
    unpreventable_note(plan, gitops, &mut out);
    let entries = argocd_entries(plan);
    if entries.is_empty() {
        out.push_str("# Argo CD shows no predicted drift: nothing to ignore.\n");
        return out;
    }
    let respect: Vec<String> = plan
        .entries
        .iter()
        .filter(|(_, entry)| entry.respect)
        .map(|(object, _)| plain(&object.name))
        .collect();
    let unknown = unknown_namespaces(plan);
    if !unknown.is_empty() {
        comment_lines(
            &mut out,
            &format!(
                "No namespace for {}: the manifest sets none, so Argo CD uses the Application's\ndestination namespace; the entry then matches that name in any namespace.",
                unknown.join(", ")
            ),
        );
    }
    let mut block = json!({ "ignoreDifferences": entries });
    if !respect.is_empty() {
        comment_lines(
            &mut out,
            &format!(
                "RespectIgnoreDifferences=true is needed for {}: a sync then applies the live values\nof the ignored paths (the matcher KubeVirt stored) instead of Git's inferFromVolume, which\nKubeVirt refuses once the VM exists. It does so for every ignored path of the Application,\nso Argo CD applies (and with server-side apply co-owns) those live values too.",
                respect.join(", ")
            ),
        );
        block["syncPolicy"] = json!({"syncOptions": ["RespectIgnoreDifferences=true"]});
    }
    out.push_str(&crate::yaml::emit::to_yaml(&block));
    out
}

fn flux_yaml(plan: &Plan) -> String {
    let mut out = String::new();
    comment_lines(
        &mut out,
        "Predicted drift (kvlint, --gitops flux): Flux Kustomization spec.ignore\n(kustomize-controller v1.9+). Flux compares a server-side dry-run, which KubeVirt's webhook\nnormalises as it did on create, with the live VM, and keeps fields nobody owns: values\nKubeVirt rewrites or adds do not show as drift.",
    );
    unpreventable_note(plan, GitOps::Flux, &mut out);
    let rules = flux_rules(plan);
    if rules.is_empty() {
        out.push_str("# Flux shows no predicted drift: nothing to ignore.\n");
        return out;
    }
    out.push_str(&crate::yaml::emit::to_yaml(&json!({ "ignore": rules })));
    out
}

/// The engine's ignore rules as YAML, with comments on what they do.
/// The VMs kvlint predicts no drift for because KubeVirt refuses them or their instance type
/// or preference cannot be resolved (so they get no ignore rule): one note each, with the
/// first reason, in report order.
pub fn left_out(report: &Report) -> Vec<String> {
    let mut seen = BTreeSet::new();
    report
        .findings
        .iter()
        .filter(|f| {
            f.severity == crate::diag::Severity::Error
                && matches!(
                    f.rule.category,
                    crate::diag::Category::Reject | crate::diag::Category::Unresolved
                )
        })
        .filter_map(|f| {
            let object = f.object.as_ref()?;
            if !matches!(object.kind.as_str(), "VirtualMachine" | "VirtualMachinePool") {
                return None;
            }
            let name = format!(
                "{}/{}",
                object.namespace.as_deref().unwrap_or(FALLBACK_NAMESPACE),
                object.name
            );
            seen.insert(name.clone()).then(|| {
                format!(
                    "{name} ({}:{}) is left out: kvlint predicts no drift for a VM it cannot render ({} {}: {})",
                    f.location.file,
                    f.location.span.start.line,
                    f.rule.code,
                    f.rule.name,
                    f.message
                )
            })
        })
        .collect()
}

pub fn yaml(report: &Report) -> String {
    let gitops = report.drift_policy.gitops;
    let plan = plan(report);
    let text = if gitops == GitOps::Flux {
        flux_yaml(&plan)
    } else {
        argocd_yaml(&plan, gitops)
    };
    crate::sanitize::terminal::guard_lines(text)
}

/// JSON: `{"ignoreDifferences": [...]}` for Argo CD, `{"ignore": [...]}` for Flux.
pub fn json(report: &Report) -> String {
    let plan = plan(report);
    let value = if report.drift_policy.gitops == GitOps::Flux {
        json!({ "ignore": flux_rules(&plan) })
    } else {
        json!({ "ignoreDifferences": argocd_entries(&plan) })
    };
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    crate::sanitize::json::guard_owned(text + "\n")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::Location;
    use crate::rules;

    fn finding(rule: &'static rules::Rule, kind: DriftKind, path: &str) -> Finding {
        let mut finding = Finding::new(
            rule,
            Location::lines(Arc::from("vm.yaml"), (1, 1), (1, 1)),
            "m",
        )
        .with_path(path)
        .with_object(Some(ObjectRef {
            api_version: "kubevirt.io/v1".to_owned(),
            kind: "VirtualMachine".to_owned(),
            namespace: Some("default".to_owned()),
            name: "vm".to_owned(),
        }));
        finding.drift = Some(kind);
        finding
    }

    #[test]
    fn only_what_the_engine_shows_gets_an_entry() {
        let inference = finding(
            &rules::INFERENCE_REWRITTEN,
            DriftKind::SyncBreaking,
            "spec.instancetype",
        );
        let quantity = finding(
            &rules::NORMALIZED_BY_KUBEVIRT,
            DriftKind::OutOfSync,
            "spec.template.spec.domain.memory.guest",
        );
        let default = finding(
            &rules::MACHINE_TYPE_DEFAULTED,
            DriftKind::ClusterDefault,
            "spec.template.spec.domain.machine.type",
        );
        assert_eq!(effect(&inference, GitOps::ArgoCd), Effect::KeepsSyncWorking);
        assert_eq!(
            effect(&inference, GitOps::ArgoCdServerSideDiff),
            Effect::CannotPrevent
        );
        assert_eq!(effect(&inference, GitOps::Flux), Effect::CannotPrevent);
        assert_eq!(effect(&quantity, GitOps::ArgoCd), Effect::Hides);
        assert_eq!(effect(&quantity, GitOps::Flux), Effect::Nothing);
        assert_eq!(effect(&default, GitOps::ArgoCd), Effect::Nothing);
        let mut expand = finding(
            &rules::REFERENCE_POLICY_EXPAND,
            DriftKind::SyncBreaking,
            "spec.instancetype",
        );
        assert_eq!(effect(&expand, GitOps::ArgoCd), Effect::CannotPrevent);
        expand.drift = None;
        assert_eq!(effect(&expand, GitOps::ArgoCd), Effect::Nothing);
    }

    #[test]
    fn pointers_under_another_pointer_are_dropped() {
        let mut report = Report::default();
        let mut inference = finding(
            &rules::INFERENCE_REWRITTEN,
            DriftKind::SyncBreaking,
            "spec.instancetype",
        );
        inference.fields = vec!["spec.instancetype.name".to_owned()];
        let mut kind = finding(
            &rules::NORMALIZED_BY_KUBEVIRT,
            DriftKind::OutOfSync,
            "spec.instancetype.kind",
        );
        kind.fields = vec!["spec.instancetype.kind".to_owned()];
        report.findings = vec![inference, kind];
        let plan = plan(&report);
        let entry = plan.entries.values().next().unwrap();
        assert_eq!(
            entry.pointers.iter().collect::<Vec<_>>(),
            ["/spec/instancetype"]
        );
        assert!(entry.respect);
    }

    #[test]
    fn an_argo_cd_destination_namespace_is_known_even_when_default() {
        let quantity = |via: Option<&str>| {
            let mut finding = finding(
                &rules::NORMALIZED_BY_KUBEVIRT,
                DriftKind::OutOfSync,
                "spec.template.spec.domain.memory.guest",
            );
            finding.unit = Some(Arc::new(UnitRef {
                kind: crate::diag::UnitKind::Kustomize,
                path: "apps/web".to_owned(),
                via: via.map(|kind| crate::diag::Via {
                    kind: kind.to_owned(),
                    namespace: Some("argocd".to_owned()),
                    name: "web".to_owned(),
                    file: "apps.yaml".to_owned(),
                    line: 1,
                    unit: None,
                }),
            }));
            let report = Report {
                findings: vec![finding],
                ..Report::default()
            };
            argocd_entries(&plan(&report))
        };
        assert_eq!(quantity(Some("Application"))[0]["namespace"], "default");
        assert!(
            quantity(Some("Kustomization"))[0]
                .get("namespace")
                .is_none()
        );
        assert!(quantity(None)[0].get("namespace").is_none());
    }
}
