//! Applying a preference to a VMI spec (`pkg/instancetype/preference/apply/`, KubeVirt v1.9).
//! Preferences only fill gaps; ACPI and `disableHotplug` are the exceptions that overwrite.

mod annotations;
mod architecture;
mod clock;
mod cpu;
mod devices;
mod features;
mod firmware;
mod launchsecurity;
mod machine;
mod subdomain;
mod termination;

use crate::cluster::profile::KubeVirtVersion;
use crate::model::PreferenceSpec;
use crate::model::value::Obj;

/// Why a preference cannot be applied: KubeVirt's own code panics on this input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApplyPanic {
    pub(crate) message: String,
}

/// Applies `preference` in KubeVirt's order.
pub(crate) fn apply(
    preference: &PreferenceSpec,
    spec: &mut Obj,
    metadata: &mut Obj,
    version: KubeVirtVersion,
) -> Result<(), ApplyPanic> {
    cpu::apply(preference, spec)?;
    devices::apply(preference, spec, version);
    features::apply(preference, spec);
    firmware::apply(preference, spec, version);
    machine::apply(preference, spec, version);
    clock::apply(preference, spec);
    subdomain::apply(preference, spec);
    termination::apply(preference, spec);
    if version.at_least(1, 7) {
        architecture::apply(preference, spec);
    }
    if version.at_least(1, 1) {
        annotations::apply(preference, metadata);
    }
    if version.at_least(1, 9) {
        launchsecurity::apply(preference, spec);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
