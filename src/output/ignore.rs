//! Argo CD `ignoreDifferences` (and the Flux equivalent) for the drift kvlint predicts — only
//! predicted drift, never a path kvlint does not expect the cluster to change.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::check::Report;
use crate::diag::{Category, ObjectRef};
use crate::rules::{self, Rule};
use crate::yaml::{FieldPath, json_pointer};

/// Whether an ignore rule is the workaround for a finding: predicted drift, and the revision
/// names the controller writes up to v1.4 (spec drift.md D-1). The expansion of
/// `referencePolicy: expand` is not: it removes the matchers themselves (D-12).
fn ignorable(rule: &Rule) -> bool {
    if rule.code == rules::REFERENCE_POLICY_EXPAND.code {
        return false;
    }
    rule.category == Category::Drift || rule.code == rules::REVISION_NAME_WRITTEN.code
}

/// Predicted drift per object: JSON pointers, sorted.
fn drift_by_object(report: &Report) -> BTreeMap<ObjectRef, BTreeSet<String>> {
    let mut out: BTreeMap<ObjectRef, BTreeSet<String>> = BTreeMap::new();
    for finding in &report.findings {
        if !ignorable(finding.rule) {
            continue;
        }
        let (Some(object), Some(path)) = (&finding.object, &finding.path) else {
            continue;
        };
        let pointers = out.entry(object.clone()).or_default();
        let fields = if finding.fields.is_empty() {
            std::slice::from_ref(path)
        } else {
            finding.fields.as_slice()
        };
        // A set: a finding may stand for many thousand fields.
        pointers.extend(
            fields
                .iter()
                .map(|field| json_pointer(&FieldPath::parse(field))),
        );
    }
    out
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// The `ignoreDifferences` entries, one per object with predicted drift.
pub fn entries(report: &Report) -> Vec<Value> {
    drift_by_object(report)
        .into_iter()
        .map(|(object, pointers)| {
            let mut entry = json!({
                "group": group_of(&object.api_version),
                "kind": object.kind,
                "name": object.name,
            });
            if let Some(namespace) = &object.namespace {
                entry["namespace"] = json!(namespace);
            }
            entry["jsonPointers"] = json!(pointers);
            entry
        })
        .collect()
}

/// YAML for an Argo CD Application, with the sync option it needs and a note for Flux.
pub fn argocd_yaml(report: &Report) -> String {
    let entries = entries(report);
    let mut out = String::from(
        "# Predicted drift (kvlint): add to the Argo CD Application's spec.\n# RespectIgnoreDifferences keeps a sync from pushing the ignored Git values back.\n# Better still: commit the values instead (see `kvlint check`), and this block shrinks.\n",
    );
    if entries.is_empty() {
        out.push_str("# No drift is predicted: nothing to ignore.\n");
        return out;
    }
    let block = json!({
        "ignoreDifferences": entries,
        "syncPolicy": {"syncOptions": ["RespectIgnoreDifferences=true"]},
    });
    out.push_str(&crate::yaml::emit::to_yaml(&block));
    out.push_str(
        "# Flux: kustomize-controller applies server-side and its dry-run reproduces KubeVirt's\n# deterministic webhook writes; the random firmware uuid/serial and controller-written\n# fields still differ. Pin them in Git, or list the same JSON pointers in your Flux\n# version's drift-ignore rules.\n",
    );
    out
}

/// JSON: `{"ignoreDifferences": [...]}`.
pub fn argocd_json(report: &Report) -> String {
    let text = serde_json::to_string_pretty(&json!({"ignoreDifferences": entries(report)}))
        .unwrap_or_default();
    crate::sanitize::json::guard_owned(text + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_controller_revision_names_but_not_the_expansion() {
        assert!(ignorable(&rules::MACHINE_TYPE_DEFAULTED));
        assert!(ignorable(&rules::REVISION_NAME_WRITTEN));
        assert!(!ignorable(&rules::REFERENCE_POLICY_EXPAND));
        assert!(!ignorable(&rules::REVISION_NAME_IN_SPEC));
    }
}
