//! Rendering the effective VM exactly as KubeVirt's expand does (`pkg/instancetype/expand`,
//! `pkg/instancetype/apply/vmi.go`, KubeVirt v1.9, with the per-release differences of the
//! same files at older tags).

pub(crate) mod conflict;
pub(crate) mod defaults;
mod instancetype;
pub(crate) mod preference;
pub(crate) mod requirements;
pub(crate) mod shape;

use serde_json::Value;

pub use conflict::{Conflict, conflicts_message};
pub use defaults::DefaultsError;
pub(crate) use instancetype::apply as apply_instancetype;
pub(crate) use preference::ApplyPanic;

use crate::cluster::profile::ClusterProfile;
use crate::cluster::version::KubeVirtVersion;
use crate::model::value::{Fields, Obj, child};
use crate::model::{InstancetypeSpec, PreferenceSpec};
use crate::model::{Matcher, MatcherRole};

/// The instance type and preference a VM resolved to.
#[derive(Clone, Copy, Debug, Default)]
pub struct Specs<'s> {
    pub instancetype: Option<&'s InstancetypeSpec>,
    pub preference: Option<&'s PreferenceSpec>,
}

/// Why expand fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandError {
    Conflicts(Vec<Conflict>),
    /// A cluster-configuration error while defaulting (e.g. slirp as default binding).
    Defaults(DefaultsError),
    /// KubeVirt's code panics.
    Panic(String),
    /// The instance type or preference of the VM as sent cannot be looked up.
    Find {
        field: String,
        message: String,
    },
}

#[cfg(test)]
impl ExpandError {
    pub(crate) fn message(&self) -> String {
        match self {
            Self::Conflicts(conflicts) => conflicts_message(conflicts),
            Self::Defaults(error) => error.to_string(),
            Self::Panic(message) | Self::Find { message, .. } => message.clone(),
        }
    }
}

/// `ApplyToVMI`: the instance type, then (only without conflicts, v1.5+) the preference.
pub(crate) fn apply_to_vmi(
    prefix: &str,
    specs: Specs<'_>,
    spec: &mut Obj,
    metadata: &mut Obj,
    profile: &ClusterProfile,
) -> Result<Vec<Conflict>, ApplyPanic> {
    let version = profile.version;
    if let Some(instancetype) = specs.instancetype {
        let conflicts = apply_instancetype(
            prefix,
            instancetype,
            specs.preference,
            spec,
            metadata,
            version,
        );
        if !conflicts.is_empty() {
            // Up to v1.4 the preference was still applied to the (discarded) result.
            if !version.at_least(1, 5)
                && let Some(preference) = specs.preference
            {
                preference::apply(preference, spec, metadata, version)?;
            }
            return Ok(conflicts);
        }
    }
    if let Some(preference) = specs.preference {
        preference::apply(preference, spec, metadata, version)?;
    }
    Ok(Vec::new())
}

fn take_obj(parent: &mut Obj, key: &str) -> Obj {
    match parent.remove(key) {
        Some(Value::Object(map)) => map,
        _ => Obj::new(),
    }
}

/// Runs `edit` on the template spec and metadata of a VM (both created when absent).
pub(crate) fn with_template<R>(
    vm: &mut Value,
    edit: impl FnOnce(&mut Obj, &mut Obj) -> R,
) -> Option<R> {
    let template = child(child(vm.as_object_mut()?, "spec"), "template");
    let mut metadata = take_obj(template, "metadata");
    let mut spec = take_obj(template, "spec");
    let result = edit(&mut spec, &mut metadata);
    template.insert("metadata".to_owned(), Value::Object(metadata));
    template.insert("spec".to_owned(), Value::Object(spec));
    Some(result)
}

/// Expand (KubeVirt `pkg/instancetype/expand/expand.go`, `Expand`): the VM with its instance
/// type and preference applied, defaulted,
/// and without matchers. A VM without matchers comes back unchanged.
pub fn expand(
    vm: Value,
    specs: Specs<'_>,
    has_matchers: bool,
    profile: &ClusterProfile,
) -> Result<Value, ExpandError> {
    let mut expanded = vm;
    if !has_matchers {
        return Ok(expanded);
    }
    let version = profile.version;
    if let Some(error) = preference_kind_refused_as_sent(&expanded, version) {
        return Err(error);
    }
    with_template(&mut expanded, |spec, metadata| {
        if version.at_least(1, 4) {
            defaults::default_volume_disks(spec);
            defaults::default_pod_network(spec, profile).map_err(ExpandError::Defaults)?;
        }
        let conflicts = apply_to_vmi("spec.template.spec", specs, spec, metadata, profile)
            .map_err(|panic| ExpandError::Panic(panic.message))?;
        if !conflicts.is_empty() {
            return Err(ExpandError::Conflicts(conflicts));
        }
        if version.at_least(1, 4) {
            defaults::set_vmi_spec_defaults(spec, profile).map_err(ExpandError::Defaults)?;
        }
        Ok(())
    })
    .unwrap_or(Ok(()))?;
    if let Some(spec) = expanded.field_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("instancetype");
        spec.remove("preference");
    }
    if let Some(status) = expanded.field_mut("status").and_then(Value::as_object_mut) {
        status.remove("instancetypeRef");
        status.remove("preferenceRef");
    }
    Ok(expanded)
}

/// Up to v1.3 expand finds the preference of the VM as sent, before the mutating webhook
/// has defaulted its kind, and that lookup has no case for an empty kind (KubeVirt v1.3.0
/// `pkg/instancetype/instancetype.go`, `FindPreferenceSpec`; the instance type lookup has
/// always taken an empty kind as the cluster kind). A revision name is looked up without the
/// kind.
fn preference_kind_refused_as_sent(vm: &Value, version: KubeVirtVersion) -> Option<ExpandError> {
    if version.at_least(1, 4) {
        return None;
    }
    let matcher = vm
        .field("spec")
        .and_then(|spec| spec.field(MatcherRole::Preference.field()))
        .and_then(Matcher::from_json)?;
    (matcher.kind.is_empty() && matcher.revision_name.is_empty()).then(|| ExpandError::Find {
        field: "spec.preference.kind".to_owned(),
        message: format!(
            "got unexpected kind in {}: ",
            MatcherRole::Preference.go_type()
        ),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// KubeVirt `pkg/instancetype/conflict/conflicts.go`, `Conflicts.Error`: the expand error
    /// lists the conflicts in KubeVirt's collection order.
    #[test]
    fn conflict_error_lists_paths_in_collection_order() {
        let instancetype: InstancetypeSpec = crate::model::decode(&json!({
            "nodeSelector": {"a": "b"}, "schedulerName": "other",
            "cpu": {"guest": 2, "model": "Haswell", "dedicatedCPUPlacement": true},
            "memory": {"guest": "2Gi", "hugepages": {"pageSize": "1Gi"}},
            "ioThreadsPolicy": "auto", "gpus": [{"name": "g2"}], "hostDevices": [{"name": "h2"}],
            "annotations": {"a": "1", "b": "3", "c": "4"}
        }))
        .unwrap();
        let vm = json!({"spec": {"template": {
            "metadata": {"annotations": {"a": "1", "b": "2"}},
            "spec": {
                "nodeSelector": {"x": "y1"}, "schedulerName": "foo",
                "domain": {
                    "cpu": {"sockets": 2, "cores": 1, "model": "host-passthrough"},
                    "memory": {"guest": "1Gi", "hugepages": {"pageSize": "2Mi"}},
                    "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "2Gi"}},
                    "ioThreadsPolicy": "shared",
                    "devices": {"gpus": [{"name": "g1"}], "hostDevices": [{"name": "h1"}]}
                }
            }
        }}});
        let specs = Specs {
            instancetype: Some(&instancetype),
            preference: None,
        };
        let error = expand(vm, specs, true, &ClusterProfile::default()).unwrap_err();
        assert_eq!(
            error.message(),
            "VM field(s) spec.template.spec.nodeSelector, spec.template.spec.schedulerName, spec.template.spec.domain.resources.requests.cpu, spec.template.spec.domain.resources.limits.cpu, spec.template.spec.domain.cpu.sockets, spec.template.spec.domain.cpu.cores, spec.template.spec.domain.cpu.model, spec.template.spec.domain.memory.guest, spec.template.spec.domain.ioThreadsPolicy, spec.template.spec.domain.devices.gpus, spec.template.spec.domain.devices.hostDevices, annotations.b conflicts with selected instance type"
        );
    }

    /// KubeVirt v1.3.0 `pkg/instancetype/instancetype.go`, `FindPreferenceSpec`: no case for an
    /// empty kind, so expand of a VM as sent fails; v1.4.0 takes it as the cluster kind.
    #[test]
    fn up_to_v1_3_expand_refuses_a_preference_without_kind() {
        let preference = PreferenceSpec::default();
        let specs = Specs {
            instancetype: None,
            preference: Some(&preference),
        };
        let vm =
            |matcher: Value| json!({"spec": {"preference": matcher, "template": {"spec": {}}}});
        let at = |minor, matcher: Value| {
            let profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
            expand(vm(matcher), specs, true, &profile)
        };
        for minor in 0..=3 {
            assert_eq!(
                at(minor, json!({"name": "p"})).unwrap_err(),
                ExpandError::Find {
                    field: "spec.preference.kind".to_owned(),
                    message: "got unexpected kind in PreferenceMatcher: ".to_owned(),
                },
                "v1.{minor}"
            );
            let kinds = json!({"name": "p", "kind": "VirtualMachineClusterPreference"});
            assert!(at(minor, kinds).is_ok(), "v1.{minor}");
            assert!(at(minor, json!({"name": "p", "revisionName": "r"})).is_ok());
        }
        assert!(at(4, json!({"name": "p"})).is_ok());
    }

    #[test]
    fn a_vm_without_matchers_comes_back_unchanged() {
        let vm = json!({"spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
        let out = expand(
            vm.clone(),
            Specs::default(),
            false,
            &ClusterProfile::default(),
        )
        .unwrap();
        assert_eq!(out, vm);
    }
}
