//! Fields of the VM as written that KubeVirt's VirtualMachine does not have: one finding each
//! (KV0014), which also carries the drift of the field the API server drops, so that a field
//! the cluster never stores is one finding and not an unknown-field and a drop finding.

use std::collections::{BTreeMap, HashMap};

use super::analysis::Analysis;
use super::did_you_mean;
use crate::controller::drift::{Drift, DriftKind, GitOps, engine_effect};
use crate::rules;
use crate::yaml::{FieldPath, Segment};

/// Fields retired from the VM type, with what replaced them: the help of their finding.
const RETIRED: &[(&str, &str)] = &[(
    "spec.flavor",
    "spec.flavor was retired before KubeVirt v1.0; use spec.instancetype",
)];

/// What the cluster makes of an unknown field: the changed fields under it and their drift.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Dropped {
    pub(super) kind: DriftKind,
    pub(super) leaves: Vec<FieldPath>,
}

/// Splits `drifts` into those reported on their own and, per unknown field (by index into
/// `unknown`), the drift that only drops fields at or under it: a drift is taken over when
/// every changed field it stands for lies under an unknown field.
pub(super) fn take_over(
    unknown: &[FieldPath],
    drifts: Vec<Drift>,
) -> (Vec<Drift>, BTreeMap<usize, Dropped>) {
    // The first unknown field a leaf lies at or under, found through the leaf's prefixes: a
    // VM with tens of thousands of unknown fields must not cost their product.
    let mut index: HashMap<&[Segment], usize> = HashMap::with_capacity(unknown.len());
    for (position, field) in unknown.iter().enumerate() {
        index.entry(field.0.as_slice()).or_insert(position);
    }
    let owner = |leaf: &FieldPath| {
        (0..=leaf.0.len())
            .filter_map(|length| index.get(&leaf.0[..length]).copied())
            .min()
    };
    let mut kept = Vec::with_capacity(drifts.len());
    let mut dropped: BTreeMap<usize, Dropped> = BTreeMap::new();
    for drift in drifts {
        let owners: Option<Vec<usize>> = drift.leaves.iter().map(owner).collect();
        let Some(owners) = owners.filter(|owners| !owners.is_empty()) else {
            kept.push(drift);
            continue;
        };
        for (leaf, index) in drift.leaves.into_iter().zip(owners) {
            let entry = dropped.entry(index).or_insert(Dropped {
                kind: drift.kind,
                leaves: Vec::new(),
            });
            entry.kind = entry.kind.min(drift.kind);
            entry.leaves.push(leaf);
        }
    }
    (kept, dropped)
}

/// How the drift of a dropped unknown field reads, and for which engine.
#[derive(Clone, Copy, Debug)]
pub(super) struct DriftContext {
    pub(super) gitops: GitOps,
    pub(super) owns_volumes: bool,
}

/// One KV0014 per unknown field; `dropped` (from [`take_over`]) gives the drift a field carries.
pub(super) fn report(
    analysis: &mut Analysis<'_, '_>,
    unknown: &[FieldPath],
    mut dropped: BTreeMap<usize, Dropped>,
    context: DriftContext,
) {
    for (index, path) in unknown.iter().enumerate() {
        let Some(Segment::Key(name)) = path.0.last() else {
            continue;
        };
        let mut message = format!(
            "`{name}` is not a field of KubeVirt's VirtualMachine here: the API server drops it without an error"
        );
        let drift = dropped.remove(&index);
        if let Some(drift) = &drift {
            message.push_str(&engine_effect(
                drift.kind,
                context.gitops,
                context.owns_volumes,
            ));
        }
        let mut finding = analysis.view.finding(&rules::UNKNOWN_FIELD, path, message);
        if let Some(help) = help(path, name) {
            finding = finding.with_help(help);
        }
        if let Some(drift) = drift {
            finding.drift = Some(drift.kind);
            finding.fields = drift
                .leaves
                .iter()
                .map(|leaf| analysis.view.path(leaf).text())
                .collect();
        }
        analysis.push(finding);
    }
}

/// What replaced a retired field, or the declared field the name is close to.
fn help(path: &FieldPath, name: &str) -> Option<String> {
    let text = path.text();
    if let Some((_, replaced)) = RETIRED.iter().find(|(field, _)| *field == text) {
        return Some((*replaced).to_owned());
    }
    let siblings = crate::render::shape::sibling_fields(path);
    did_you_mean(name, &siblings).map(|suggestion| format!("did you mean `{suggestion}`?"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::profile::KubeVirtVersion;
    use crate::controller::drift::predict;

    fn paths(text: &[&str]) -> Vec<FieldPath> {
        text.iter().map(|t| FieldPath::parse(t)).collect()
    }

    #[test]
    fn the_drop_of_an_unknown_field_is_the_unknown_field_s() {
        let written = json!({"spec": {"template": {"spec": {"domain": {
            "devices": {"disks": [{"name": "root", "bus": "virtio"}]},
            "resources": {"requests": {"memory": "1Gi"}}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {
            "devices": {"disks": [{"name": "root"}]},
            "resources": {"requests": {"memory": "1Gi"}}}}}}});
        let drifts = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        assert_eq!(drifts.len(), 1, "{drifts:?}");
        let unknown = paths(&["spec.template.spec.domain.devices.disks[0].bus"]);
        let (kept, dropped) = take_over(&unknown, drifts);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(
            dropped.get(&0),
            Some(&Dropped {
                kind: DriftKind::OutOfSync,
                leaves: unknown.clone(),
            })
        );
    }

    #[test]
    fn drift_under_no_unknown_field_is_kept() {
        let written = json!({"spec": {"template": {"spec": {"domain": {"devices": {},
            "bogus": {"a": 1}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {"devices": {},
            "machine": {"type": "q35"}}}}}});
        let drifts = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        let unknown = paths(&["spec.template.spec.domain.bogus"]);
        let (kept, dropped) = take_over(&unknown, drifts);
        let kept: Vec<String> = kept.iter().map(|d| d.path.text()).collect();
        assert_eq!(kept, ["spec.template.spec.domain.machine.type"]);
        assert_eq!(
            dropped.get(&0).map(|d| d.leaves.clone()),
            Some(paths(&["spec.template.spec.domain.bogus.a"]))
        );
    }

    #[test]
    fn a_drop_widened_over_two_unknown_fields_goes_to_each() {
        let written = json!({"spec": {"template": {"spec": {"domain": {"devices": {},
            "resources": {"clock": {"utc": {}, "x": 1}, "features": {"y": true}}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
        let drifts = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        let unknown = paths(&[
            "spec.template.spec.domain.resources.clock",
            "spec.template.spec.domain.resources.features",
        ]);
        let (kept, dropped) = take_over(&unknown, drifts);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(
            dropped.get(&0).map(|d| d.leaves.clone()),
            Some(paths(&["spec.template.spec.domain.resources.clock.x"]))
        );
        assert_eq!(
            dropped.get(&1).map(|d| d.leaves.clone()),
            Some(paths(&["spec.template.spec.domain.resources.features.y"]))
        );
    }

    #[test]
    fn a_retired_field_names_its_replacement() {
        let help = help(&FieldPath::parse("spec.flavor"), "flavor");
        assert_eq!(
            help.as_deref(),
            Some("spec.flavor was retired before KubeVirt v1.0; use spec.instancetype")
        );
        let typo = help_of("spec.template.spec.domain.devices.diskz", "diskz");
        assert_eq!(typo.as_deref(), Some("did you mean `disks`?"));
    }

    fn help_of(path: &str, name: &str) -> Option<String> {
        help(&FieldPath::parse(path), name)
    }
}
