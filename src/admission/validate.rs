//! The instance-type part of KubeVirt's VM validating webhook (`vms-admitter.go`,
//! `Admit`; `pkg/instancetype/webhooks/vm/admitter.go`, `ApplyToVM`), on the mutated VM.

use serde_json::Value;

use super::Cause;
use crate::cluster::backports;
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::model::{InstancetypeSpec, MatcherRole, PreferenceSpec};
use crate::render::{self, Conflict, DefaultsError, Specs, defaults, requirements, with_template};

/// What the validating webhook refuses, one entry per status cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// A VM field the instance type also sets.
    Conflict(Conflict),
    /// `CheckSpreadCPUTopology`: the cause field is `instancetype.spec.cpu.guest`.
    Spread(Cause),
    /// A preference requirement; `role` names where the provided value came from.
    Requirement { cause: Cause, by_instancetype: bool },
    /// A ≤ v1.5 refusal of a reference that cannot be found.
    FindFailure { role: MatcherRole, cause: Cause },
    /// Full VM spec validation on the expanded copy.
    VmSpec(Cause),
    /// KubeVirt's own code panics (no cause; the webhook call fails).
    Panic(String),
    /// Defaulting failed (an error without causes).
    Defaults(DefaultsError),
}

/// Find errors as the webhook sees them (≤ v1.5 they refuse the VM).
#[derive(Clone, Debug, Default)]
pub(crate) struct FindErrors {
    pub(crate) instancetype: Option<String>,
    pub(crate) preference: Option<String>,
}

/// Validates `vm` (already mutated) with the specs its matchers resolved to.
pub(crate) fn validate(
    vm: Value,
    specs: Specs<'_>,
    find_errors: &FindErrors,
    profile: &ClusterProfile,
    create: bool,
) -> Vec<Rejection> {
    let version = profile.version;
    if !version.at_least(1, 6) {
        let mut refusals = Vec::new();
        for (role, error) in [
            (MatcherRole::Instancetype, &find_errors.instancetype),
            (MatcherRole::Preference, &find_errors.preference),
        ] {
            if let Some(error) = error {
                let what = match role {
                    MatcherRole::Instancetype => "instancetype",
                    MatcherRole::Preference => "preference",
                };
                refusals.push(Rejection::FindFailure {
                    role,
                    cause: Cause::new(
                        format!("spec.{}", role.field()),
                        format!("Failure to find {what}: {error}"),
                    ),
                });
                break;
            }
        }
        if !refusals.is_empty() {
            return refusals;
        }
    }
    let mut copy = vm;
    if specs.instancetype.is_some() || specs.preference.is_some() {
        if let Some(preference) = specs.preference
            && let Some(rejection) = spread_rejection(specs.instancetype, preference, version)
        {
            return vec![rejection];
        }
        let applied = with_template(&mut copy, |spec, metadata| {
            render::apply_to_vmi("spec.template.spec", specs, spec, metadata, profile)
        });
        match applied {
            Some(Err(panic)) => return vec![Rejection::Panic(panic.message)],
            Some(Ok(conflicts)) if !conflicts.is_empty() => {
                return conflicts.into_iter().map(Rejection::Conflict).collect();
            }
            _ => {}
        }
    }
    // v1.0.0 checks the preference's requirements before the VMI-spec defaults (`Admit` in
    // vms-admitter.go at v1.0.0), so a VM without domain.cpu has no CPU to offer yet.
    let requirements_first = !version.has_change(backports::REQUIREMENTS_AFTER_DEFAULTS);
    if requirements_first && let Some(rejection) = requirement_rejection(specs, &mut copy, version)
    {
        return vec![rejection];
    }
    let defaulted = with_template(&mut copy, |spec, _| {
        let defaulted = defaults::set_vmi_spec_defaults(spec, profile);
        if !version.at_least(1, 4) {
            super::vm_defaults::set_disk_defaults(spec);
        }
        defaulted
    });
    if let Some(Err(error)) = defaulted {
        return vec![Rejection::Defaults(error)];
    }
    if !requirements_first && let Some(rejection) = requirement_rejection(specs, &mut copy, version)
    {
        return vec![rejection];
    }
    super::vmspec::validate(&copy, profile, create)
        .into_iter()
        .map(Rejection::VmSpec)
        .collect()
}

/// What the VirtualMachinePool validator refuses of a pool's VM template (`vm`, the template as
/// a VirtualMachine, as written): the pool validator neither mutates, nor applies instance types
/// and preferences, nor sets defaults. `Err` holds why KubeVirt's code panics instead.
pub(crate) fn validate_pool_template(
    vm: &Value,
    profile: &ClusterProfile,
) -> Result<Vec<Cause>, String> {
    super::vmspec::validate_pool_template(vm, profile)
}

/// The preference's unmet requirement, checked on the VM template as it stands.
fn requirement_rejection(
    specs: Specs<'_>,
    vm: &mut Value,
    version: KubeVirtVersion,
) -> Option<Rejection> {
    let preference = specs.preference?;
    let unmet = with_template(vm, |spec, _| {
        requirements::check(specs.instancetype, preference, spec, version)
    })
    .flatten()?;
    let by_instancetype = unmet
        .fields
        .first()
        .is_some_and(|f| f == "spec.instancetype");
    Some(Rejection::Requirement {
        cause: Cause::new(unmet.field(), unmet.message()),
        by_instancetype,
    })
}

fn spread_rejection(
    instancetype: Option<&InstancetypeSpec>,
    preference: &PreferenceSpec,
    version: KubeVirtVersion,
) -> Option<Rejection> {
    if preference.topology(version.topology_names()) != crate::model::Topology::Spread {
        return None;
    }
    let Some(instancetype) = instancetype else {
        // v1.1 reads the instance type's vCPUs without checking that there is one
        // (`applyInstancetypeToVm` at v1.1.0 and v1.1.1; v1.2.0 checks).
        return (!version.at_least(1, 2)).then(|| {
            Rejection::Panic(
                "a spread preference without an instance type makes KubeVirt dereference a nil instance type while checking the spread; the webhook call fails".to_owned(),
            )
        });
    };
    if requirements::spread_options(preference, version).0 == 0 {
        return Some(Rejection::Panic(
            "spreadOptions.ratio 0 makes KubeVirt divide by zero while checking the spread topology; the webhook call fails".to_owned(),
        ));
    }
    requirements::check_spread(instancetype, preference, version)
        .map(|message| Rejection::Spread(Cause::new("instancetype.spec.cpu.guest", message)))
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
