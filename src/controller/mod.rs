//! What KubeVirt's VM controller writes into a stored VM: the revision names of v1.0–v1.4
//! (`pkg/instancetype/instancetype.go`, `GenerateRevisionNamePatch`) and the expanded spec of
//! `referencePolicy: expand` / `expandAll` (`pkg/instancetype/controller/vm/controller.go`,
//! `handleExpand`). Unlike `drift`, these are not the mutating webhook's output, so a
//! server-side dry run does not show them; they appear once the controller has seen the VM.
//!
//! Beside it, what else the cluster stores differently from Git: `drift`, the mutating
//! webhook's rewrites, and `committed_runtime`, fields the cluster writes that were committed;
//! and what the controller applies to a running VM whose template changed: `vm`, with
//! `liveupdate` (the cluster's settings, the hotplug limits, memory hotplug's conditions).

pub(crate) mod committed_runtime;
pub mod drift;
pub(crate) mod liveupdate;
pub(crate) mod vm;

use serde_json::Value;

use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::model::value::Fields;
use crate::model::{Matcher, MatcherRole};
use crate::render::{self, Specs};
use crate::rules;
use crate::rules::runtime::revision_name_written;
use crate::yaml::FieldPath;
use drift::Drift;

/// How the controller treats VMs with matchers (`instancetype.referencePolicy`, v1.4+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReferencePolicy {
    Reference,
    /// Expands VMs that do not reference a revision yet.
    Expand,
    /// Expands every VM.
    ExpandAll,
}

impl ReferencePolicy {
    /// The policy in effect: the setting exists from v1.4; unknown values behave as the default.
    pub(crate) fn of(profile: &ClusterProfile) -> Self {
        if !profile.version.at_least(1, 4) {
            return Self::Reference;
        }
        match profile.reference_policy.as_str() {
            "expand" => Self::Expand,
            "expandAll" => Self::ExpandAll,
            _ => Self::Reference,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::Expand => "expand",
            Self::ExpandAll => "expandAll",
        }
    }
}

fn matchers(vm: &Value) -> Vec<(MatcherRole, Matcher)> {
    [MatcherRole::Instancetype, MatcherRole::Preference]
        .into_iter()
        .filter_map(|role| {
            let matcher = vm.field("spec")?.field(role.field())?;
            Matcher::from_json(matcher).map(|m| (role, m))
        })
        .collect()
}

/// Everything the controller writes into the admitted VM `stored` (the mutating webhook's
/// output for the manifest `written`). `specs` are the resolved instance type and preference;
/// the controller does nothing but report a sync error while one cannot be found.
pub(crate) fn predict(
    written: &Value,
    stored: &Value,
    specs: Specs<'_>,
    profile: &ClusterProfile,
) -> Vec<Drift> {
    let matchers = matchers(stored);
    if matchers.is_empty() {
        return Vec::new();
    }
    let resolved = matchers.iter().all(|(role, _)| match role {
        MatcherRole::Instancetype => specs.instancetype.is_some(),
        MatcherRole::Preference => specs.preference.is_some(),
    });
    if !resolved {
        return Vec::new();
    }
    let policy = ReferencePolicy::of(profile);
    let expands = match policy {
        ReferencePolicy::Reference => false,
        ReferencePolicy::ExpandAll => true,
        // v1.4 skips VMs whose spec already names a revision (v1.5+ looks at status refs, which
        // a manifest never sets).
        ReferencePolicy::Expand => {
            profile.version.at_least(1, 5)
                || matchers.iter().all(|(_, m)| m.revision_name.is_empty())
        }
    };
    if expands {
        return expansion(written, stored, specs, profile, policy)
            .into_iter()
            .collect();
    }
    if profile.version.at_least(1, 5) {
        return Vec::new();
    }
    matchers
        .iter()
        .filter(|(_, matcher)| matcher.revision_name.is_empty() && !matcher.name.is_empty())
        .map(|(role, matcher)| revision_name_written(stored, *role, matcher, profile.version))
        .collect()
}

/// The ControllerRevision name the controller writes (KubeVirt `pkg/instancetype/revision/
/// store.go`, `GenerateName`): it holds the cluster-assigned
/// UID and generation of the instance type or preference, so only its shape is known offline.
fn revision_name_pattern(vm_name: &str, object_name: &str, version: KubeVirtVersion) -> String {
    if version.at_least(1, 3) {
        format!("{vm_name}-{object_name}-v1beta1-<uid>-<generation>")
    } else {
        format!("{vm_name}-{object_name}-<uid>-<generation>")
    }
}

fn revision_name_written(
    stored: &Value,
    role: MatcherRole,
    matcher: &Matcher,
    version: KubeVirtVersion,
) -> Drift {
    let vm_name = stored
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("<vm>");
    let pattern = revision_name_pattern(vm_name, &matcher.name, version);
    let field = role.field();
    let path = FieldPath::parse("spec")
        .key(field)
        .key(revision_name_written::KEY);
    let explained = revision_name_written::explain(&revision_name_written::Written {
        version: &version,
        matcher: field,
        noun: role.noun(),
        name: &matcher.name,
        pattern: &pattern,
    });
    Drift {
        rule: &revision_name_written::REVISION_NAME_WRITTEN,
        kind: drift::DriftKind::ClusterDefault,
        leaves: vec![path.clone()],
        path,
        stored: Some(Value::String(pattern)),
        written: None,
        message: explained.message,
        help: explained.help,
    }
}

/// Expand as the controller runs it, with the result as kvlint renders VMs.
fn expand(vm: &Value, specs: Specs<'_>, profile: &ClusterProfile) -> Option<Value> {
    let mut expanded = render::expand(vm.clone(), specs, true, profile).ok()?;
    render::shape::prune_unknown(&mut expanded, profile.version);
    render::shape::normalize_vm_at(&mut expanded, profile.version, &|v| {
        crate::k8s::quantity::canonical_json(v)
    });
    Some(expanded)
}

fn expansion(
    written: &Value,
    stored: &Value,
    specs: Specs<'_>,
    profile: &ClusterProfile,
    policy: ReferencePolicy,
) -> Option<Drift> {
    // An expand error leaves the VM as stored (the controller reports a sync error); kvlint
    // reports the error itself when it renders the manifest.
    let expanded_stored = expand(stored, specs, profile)?;
    let to_commit = expand(written, specs, profile)?;
    let leaves = drift::changed_between(stored, &expanded_stored);
    if leaves.is_empty() {
        return None;
    }
    let first_matcher = ["instancetype", "preference"]
        .into_iter()
        .find(|field| stored.pointer(&format!("/spec/{field}")).is_some())?;
    let path = FieldPath::parse(&format!("spec.{first_matcher}"));
    let version = profile.version;
    let which = match policy {
        ReferencePolicy::Expand => {
            "every VM that does not reference a ControllerRevision yet (a VM created before the policy was set keeps its matchers)"
        }
        _ => "every VM with an instance type or preference",
    };
    let spec = to_commit.field("spec").cloned().unwrap_or(Value::Null);
    Some(Drift {
        rule: &rules::REFERENCE_POLICY_EXPAND,
        kind: drift::DriftKind::SyncBreaking,
        path: path.clone(),
        stored: None,
        written: stored.pointer(&format!("/spec/{first_matcher}")).cloned(),
        message: format!(
            "the cluster's referencePolicy is `{}`: KubeVirt {version}'s VM controller rewrites {which}, removing spec.instancetype and spec.preference and writing the expanded domain ({} fields change); the next sync re-adds the matchers next to the expanded fields and is refused as a conflict with the instance type",
            policy.name(),
            leaves.len()
        ),
        help: format!(
            "commit the expanded VM instead of the matchers (`kvlint render` prints it), or use referencePolicy: reference for GitOps-managed VMs; the spec to commit:\n{}",
            drift::snippet(&FieldPath::parse("spec"), &spec)
        ),
        leaves: leaves.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::{InstancetypeSpec, PreferenceSpec};

    fn instancetype() -> InstancetypeSpec {
        serde_json::from_value(json!({"cpu": {"guest": 2}, "memory": {"guest": "2Gi"}})).unwrap()
    }

    fn vm() -> Value {
        json!({
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "vm", "namespace": "default"},
            "spec": {
                "runStrategy": "Halted",
                "instancetype": {"name": "u1.medium"},
                "template": {"spec": {"domain": {"devices": {}}}}
            }
        })
    }

    fn profile(version: KubeVirtVersion, policy: &str) -> ClusterProfile {
        let mut profile = ClusterProfile::new(version);
        profile.configure(&json!({"instancetype": {"referencePolicy": policy}}));
        profile
    }

    fn specs(instancetype: &InstancetypeSpec) -> Specs<'_> {
        Specs {
            instancetype: Some(instancetype),
            preference: None::<&PreferenceSpec>,
        }
    }

    #[test]
    fn revision_names_are_written_up_to_v1_4() {
        let it = instancetype();
        let old = predict(
            &vm(),
            &vm(),
            specs(&it),
            &profile(KubeVirtVersion::new(1, 4), "reference"),
        );
        assert_eq!(old.len(), 1);
        assert_eq!(old[0].rule.code, rules::REVISION_NAME_WRITTEN.code);
        assert_eq!(old[0].path.to_string(), "spec.instancetype.revisionName");
        assert_eq!(
            old[0].stored,
            Some(json!("vm-u1.medium-v1beta1-<uid>-<generation>"))
        );
        let v1_2 = predict(
            &vm(),
            &vm(),
            specs(&it),
            &profile(KubeVirtVersion::new(1, 2), "reference"),
        );
        assert_eq!(
            v1_2[0].stored,
            Some(json!("vm-u1.medium-<uid>-<generation>"))
        );
        let new = predict(
            &vm(),
            &vm(),
            specs(&it),
            &profile(KubeVirtVersion::new(1, 5), "reference"),
        );
        assert!(new.is_empty());
    }

    #[test]
    fn no_controller_writes_while_a_reference_is_unresolved() {
        let none = Specs {
            instancetype: None,
            preference: None,
        };
        assert!(
            predict(
                &vm(),
                &vm(),
                none,
                &profile(KubeVirtVersion::new(1, 4), "reference")
            )
            .is_empty()
        );
        assert!(
            predict(
                &vm(),
                &vm(),
                none,
                &profile(KubeVirtVersion::LATEST, "expandAll")
            )
            .is_empty()
        );
    }

    #[test]
    fn expand_policies_rewrite_the_vm_from_v1_4() {
        let it = instancetype();
        for policy in ["expand", "expandAll"] {
            let drift = predict(
                &vm(),
                &vm(),
                specs(&it),
                &profile(KubeVirtVersion::LATEST, policy),
            );
            assert_eq!(drift.len(), 1, "{policy}");
            assert_eq!(drift[0].rule.code, rules::REFERENCE_POLICY_EXPAND.code);
            assert_eq!(drift[0].path.to_string(), "spec.instancetype");
            assert!(drift[0].help.contains("sockets: 2"), "{}", drift[0].help);
            assert!(
                !drift[0].help.contains("instancetype:"),
                "{}",
                drift[0].help
            );
            assert!(
                drift[0]
                    .leaves
                    .iter()
                    .any(|l| l.to_string() == "spec.instancetype.name"),
                "{:?}",
                drift[0].leaves
            );
        }
        // Before v1.4 the setting does not exist: revision names are written instead.
        let v1_3 = predict(
            &vm(),
            &vm(),
            specs(&it),
            &profile(KubeVirtVersion::new(1, 3), "expandAll"),
        );
        assert_eq!(v1_3[0].rule.code, rules::REVISION_NAME_WRITTEN.code);
    }

    #[test]
    fn expand_on_v1_4_leaves_vms_with_a_revision_name_alone() {
        let it = instancetype();
        let mut with_revision = vm();
        with_revision["spec"]["instancetype"]["revisionName"] = json!("vm-u1.medium-v1beta1-x-1");
        let v1_4 = profile(KubeVirtVersion::new(1, 4), "expand");
        assert!(predict(&with_revision, &with_revision, specs(&it), &v1_4).is_empty());
        let all = profile(KubeVirtVersion::new(1, 4), "expandAll");
        assert_eq!(
            predict(&with_revision, &with_revision, specs(&it), &all).len(),
            1
        );
    }
}
