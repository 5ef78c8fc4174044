//! What a predicted change does under a GitOps engine: the kind of drift (sync-breaking, out of
//! sync, cluster default), its severity, and what each engine does with it.
//!
//! The kinds follow the engines' own code (docs/argocd.md and docs/flux.md cite it):
//! - Argo CD's default diff (gitops-engine `pkg/diff` `Diff` → `ThreeWayDiff`, with
//!   `jsonutil.RemoveMapFields` for types it has no Go struct for) drops every live field that
//!   Git does not set before comparing: a field only KubeVirt writes never shows.
//! - ServerSideDiff (`serverSideDiff`, `removeWebhookMutation`) and Flux (fluxcd/pkg
//!   `ssa.ResourceManager.Apply`: a server-side dry-run compared with the live object) both
//!   compare with what the API server returns, after KubeVirt's mutating webhook has run on
//!   the update too: a value KubeVirt normalises is normalised in the dry-run as well.
//! - With the `ServerSideApply=true` sync option, Argo CD merges Git into the live object with
//!   the CRD's schema (`StructuredMergeDiff`); `spec.dataVolumeTemplates` has no list type in
//!   KubeVirt's CRD, so it is atomic and Git's list replaces the live one whole.

use serde_json::Value;

pub use crate::config::gitops::{DriftPolicy, GitOps};
use crate::model::value::present;
pub use crate::rules::DriftKind;
use crate::rules::Rule;
use crate::yaml::{FieldPath, Segment, json_at};

/// Whether a change of `rule` makes the next apply of the same manifest fail.
fn breaks_sync(rule: &Rule) -> bool {
    rule.drift.is_some_and(|drift| drift.next_sync.is_refused())
}

/// The value at `segments`, a `null` counting as absent (Go's nil).
fn at<'v>(value: &'v Value, segments: &[Segment]) -> Option<&'v Value> {
    present(json_at(value, segments))
}

/// Whether `leaf` is in a matcher KubeVirt removed (inferFromVolume failed and the failure
/// policy is Ignore): the next apply sends `inferFromVolume` alone again, which KubeVirt's
/// mutator infers again on update (`Mutate` → `inferMatchers`) instead of refusing it.
fn in_removed_matcher(leaf: &FieldPath, stored: &Value) -> bool {
    match leaf.0.as_slice() {
        [Segment::Key(spec), matcher @ Segment::Key(name), ..]
            if spec == "spec" && (name == "instancetype" || name == "preference") =>
        {
            at(stored, &[Segment::Key(spec.clone()), matcher.clone()]).is_none()
        }
        _ => false,
    }
}

/// The kind of a changed leaf (`written` and `stored` are the VM as written and as stored):
/// sync-breaking by its rule, out of sync when Git sets the leaf, else a cluster default,
/// except inside an element of Git's `spec.dataVolumeTemplates` under server-side apply, where
/// Git's list replaces the live one whole.
pub(crate) fn leaf_kind(
    rule: &Rule,
    leaf: &FieldPath,
    sides: (&Value, &Value),
    gitops: GitOps,
) -> DriftKind {
    let (written, stored) = sides;
    if breaks_sync(rule) && !in_removed_matcher(leaf, stored) {
        return DriftKind::SyncBreaking;
    }
    if at(written, &leaf.0).is_some() {
        return DriftKind::OutOfSync;
    }
    let in_atomic_list = matches!(
        leaf.0.as_slice(),
        [Segment::Key(spec), Segment::Key(list), Segment::Index(_), ..]
            if spec == "spec" && list == "dataVolumeTemplates"
    ) && at(written, &leaf.0[..3]).is_some();
    if gitops == GitOps::ArgoCdServerSideApply && in_atomic_list {
        return DriftKind::OutOfSync;
    }
    DriftKind::ClusterDefault
}

/// What the engine does with a finding of `kind`, as a sentence to add to its message (empty
/// when the message says enough). `deletes_volumes` is whether the VM owns DataVolumes (its
/// `dataVolumeTemplates`), which a recreation deletes with it.
pub(crate) fn engine_effect(kind: DriftKind, gitops: GitOps, deletes_volumes: bool) -> String {
    match (kind, gitops) {
        (DriftKind::SyncBreaking, GitOps::ArgoCd) => {
            "; Argo CD shows the VM OutOfSync and every sync of it fails with this refusal"
                .to_owned()
        }
        (DriftKind::SyncBreaking, GitOps::ArgoCdServerSideDiff) => {
            "; Argo CD's ServerSideDiff dry-run is refused too: a ComparisonError (sync status Unknown) that ignoreDifferences cannot prevent".to_owned()
        }
        (DriftKind::SyncBreaking, GitOps::ArgoCdServerSideApply) => {
            "; Argo CD shows the VM OutOfSync and every server-side apply of it is refused"
                .to_owned()
        }
        (DriftKind::SyncBreaking, GitOps::Flux) => format!(
            "; Flux's server-side dry-run is refused: the Kustomization goes Ready=False and retries, and with `spec.force: true` Flux deletes and recreates the VM on every reconciliation{}",
            if deletes_volumes {
                " (and with it the DataVolumes of its dataVolumeTemplates)"
            } else {
                ""
            }
        ),
        (DriftKind::OutOfSync, GitOps::ArgoCd) => "; Argo CD shows it OutOfSync".to_owned(),
        (DriftKind::OutOfSync, GitOps::ArgoCdServerSideApply) => {
            "; Argo CD shows it OutOfSync (with server-side apply, Git's dataVolumeTemplates replace the live list whole)".to_owned()
        }
        (DriftKind::OutOfSync, GitOps::ArgoCdServerSideDiff | GitOps::Flux) => {
            "; the server-side dry-run stores it the same way, so no drift shows".to_owned()
        }
        (DriftKind::ClusterDefault, _) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rules;

    fn kind(rule: &Rule, leaf: &str, written: &Value, gitops: GitOps) -> DriftKind {
        let stored = json!({"spec": {"instancetype": {"name": "small"}}});
        leaf_kind(rule, &FieldPath::parse(leaf), (written, &stored), gitops)
    }

    #[test]
    fn a_field_git_omits_is_a_cluster_default_and_one_it_sets_is_out_of_sync() {
        let written =
            json!({"spec": {"template": {"spec": {"domain": {"memory": {"guest": "1024Mi"}}}}}});
        assert_eq!(
            kind(
                &rules::MACHINE_TYPE_DEFAULTED,
                "spec.template.spec.domain.machine.type",
                &written,
                GitOps::ArgoCd
            ),
            DriftKind::ClusterDefault
        );
        assert_eq!(
            kind(
                &rules::NORMALIZED_BY_KUBEVIRT,
                "spec.template.spec.domain.memory.guest",
                &written,
                GitOps::Flux
            ),
            DriftKind::OutOfSync
        );
        assert_eq!(
            kind(
                &rules::INFERENCE_REWRITTEN,
                "spec.instancetype.name",
                &written,
                GitOps::ArgoCd
            ),
            DriftKind::SyncBreaking
        );
    }

    #[test]
    fn a_matcher_removed_after_an_ignored_failure_is_out_of_sync_not_sync_breaking() {
        let written = json!({"spec": {"instancetype": {"inferFromVolume": "root",
            "inferFromVolumeFailurePolicy": "Ignore"}}});
        let leaf = FieldPath::parse("spec.instancetype.inferFromVolume");
        let removed = json!({"spec": {}});
        let inferred = json!({"spec": {"instancetype": {"name": "small"}}});
        let rule = &rules::INFERENCE_REWRITTEN;
        assert_eq!(
            leaf_kind(rule, &leaf, (&written, &removed), GitOps::ArgoCd),
            DriftKind::OutOfSync
        );
        assert_eq!(
            leaf_kind(rule, &leaf, (&written, &inferred), GitOps::ArgoCd),
            DriftKind::SyncBreaking
        );
    }

    #[test]
    fn server_side_apply_shows_defaults_inside_data_volume_templates() {
        let written = json!({"spec": {"dataVolumeTemplates": [{"spec": {"storage": {}}}]}});
        let leaf = "spec.dataVolumeTemplates[0].spec.storage.storageClassName";
        let rule = &rules::STORAGE_CLASS_DEFAULTED;
        assert_eq!(
            kind(rule, leaf, &written, GitOps::ArgoCd),
            DriftKind::ClusterDefault
        );
        assert_eq!(
            kind(rule, leaf, &written, GitOps::ArgoCdServerSideApply),
            DriftKind::OutOfSync
        );
        assert_eq!(
            kind(rule, leaf, &written, GitOps::Flux),
            DriftKind::ClusterDefault
        );
    }

    /// gitops-engine's default diff for a type without a Go struct, as a set of leaves: the live
    /// object loses every map field the manifest does not have (`RemoveMapFields`, by index in
    /// lists), then the manifest is merged in; a leaf shows when the merge changes it.
    fn argocd_default_diff(
        config: &Value,
        live: &Value,
        path: &mut Vec<Segment>,
        out: &mut Vec<FieldPath>,
    ) {
        match (config, live) {
            (Value::Object(config), Value::Object(live)) => {
                for (key, value) in config {
                    path.push(Segment::Key(key.clone()));
                    match live.get(key) {
                        Some(live) => argocd_default_diff(value, live, path, out),
                        None => scalar_leaves(value, path, out),
                    }
                    path.pop();
                }
            }
            (Value::Array(config), Value::Array(live)) if config.len() == live.len() => {
                for (i, (value, live)) in config.iter().zip(live).enumerate() {
                    path.push(Segment::Index(i));
                    argocd_default_diff(value, live, path, out);
                    path.pop();
                }
            }
            (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => {}
            (config, live) if config == live => {}
            (config, _) => scalar_leaves(config, path, out),
        }
    }

    fn scalar_leaves(value: &Value, path: &mut Vec<Segment>, out: &mut Vec<FieldPath>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    path.push(Segment::Key(key.clone()));
                    scalar_leaves(child, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    path.push(Segment::Index(i));
                    scalar_leaves(child, path, out);
                    path.pop();
                }
            }
            Value::Null => {}
            _ => out.push(FieldPath(path.clone())),
        }
    }

    #[test]
    fn argocd_default_diff_shows_exactly_the_out_of_sync_leaves() {
        use super::super::predict_for;
        use crate::cluster::profile::KubeVirtVersion;
        // (as written, as stored): each a change KubeVirt's webhook makes.
        let cases = [
            (
                json!({"spec": {"template": {"spec": {"domain": {"memory": {"guest": "1024Mi"}, "devices": {}}}}}}),
                json!({"spec": {"template": {"spec": {"architecture": "amd64", "domain": {"memory": {"guest": "1Gi"}, "devices": {},
                    "machine": {"type": "q35"}, "firmware": {"uuid": "u", "serial": "s"}}}}}}),
            ),
            (
                json!({"spec": {"template": {"spec": {"domain": {"machine": {"type": ""}, "devices": {"autoattachSerialConsole": true},
                    "resources": {"requests": {"cpu": 2}}}, "subdomain": ""}}}}),
                json!({"spec": {"template": {"spec": {"domain": {"machine": {"type": "q35"}, "devices": {"autoattachSerialConsole": true},
                    "resources": {"requests": {"cpu": "2"}}}}}}}),
            ),
            (
                json!({"spec": {"instancetype": {"inferFromVolume": "root"}, "dataVolumeTemplates": [{"spec": {"storage": {}}}],
                    "template": {"spec": {"domain": {"devices": {}}}}}}),
                json!({"spec": {"instancetype": {"name": "small", "kind": "virtualmachineclusterinstancetype"},
                    "dataVolumeTemplates": [{"spec": {"storage": {"storageClassName": "fast"}}}],
                    "template": {"metadata": {"annotations": {"kubevirt.io/pci-topology-version": "v3"}},
                        "spec": {"domain": {"devices": {}}}}}}),
            ),
        ];
        for (written, stored) in cases {
            let mut shown = Vec::new();
            argocd_default_diff(&written, &stored, &mut Vec::new(), &mut shown);
            let drift = predict_for(
                &written,
                &stored,
                KubeVirtVersion::LATEST,
                None,
                GitOps::ArgoCd,
            );
            let leaves_of = |wanted: &[DriftKind]| -> Vec<FieldPath> {
                let mut leaves: Vec<FieldPath> = drift
                    .iter()
                    .filter(|d| wanted.contains(&d.kind))
                    .flat_map(|d| d.leaves.iter().cloned())
                    .collect();
                leaves.sort();
                leaves
            };
            let breaking_or_out = leaves_of(&[DriftKind::SyncBreaking, DriftKind::OutOfSync]);
            let out_of_sync = leaves_of(&[DriftKind::OutOfSync]);
            let defaults = leaves_of(&[DriftKind::ClusterDefault]);
            for leaf in &shown {
                assert!(
                    breaking_or_out.contains(leaf),
                    "{leaf} shows but is {drift:?}"
                );
            }
            for leaf in &out_of_sync {
                assert!(
                    shown.contains(leaf),
                    "{leaf} is out of sync but does not show"
                );
            }
            for leaf in &defaults {
                assert!(
                    !shown.contains(leaf),
                    "{leaf} is a cluster default but shows"
                );
            }
            assert!(!shown.is_empty(), "{written}");
        }
    }

    /// Only a matcher KubeVirt removed (the instance type's or the preference's) spares a
    /// sync-breaking change: one elsewhere stays sync-breaking when the stored VM lacks its
    /// parent too.
    #[test]
    fn a_sync_breaking_change_outside_the_matchers_stays_sync_breaking() {
        let written = json!({"metadata": {"name": "vm"}, "spec": {"template": {"spec": {}},
            "preference": {"inferFromVolume": "root", "inferFromVolumeFailurePolicy": "Ignore"}}});
        let stored = json!({"spec": {}});
        let leaf = FieldPath::parse("spec.preference.inferFromVolume");
        assert_eq!(
            leaf_kind(
                &rules::INFERENCE_REWRITTEN,
                &leaf,
                (&written, &stored),
                GitOps::ArgoCd
            ),
            DriftKind::OutOfSync
        );
        let rule = &rules::REFERENCE_POLICY_EXPAND;
        for leaf in [
            "spec.template.spec.domain.cpu.sockets",
            "metadata.annotations.expanded",
        ] {
            assert_eq!(
                leaf_kind(
                    rule,
                    &FieldPath::parse(leaf),
                    (&written, &stored),
                    GitOps::ArgoCd
                ),
                DriftKind::SyncBreaking,
                "{leaf}"
            );
        }
    }
}
