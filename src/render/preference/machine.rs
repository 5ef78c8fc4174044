//! `preference/apply/machine.go`.

use crate::cluster::profile::KubeVirtVersion;
use crate::model::PreferenceSpec;
use crate::model::value::{Obj, child, str_of};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj, version: KubeVirtVersion) {
    let Some(prefs) = &preference.machine else {
        return;
    };
    // Up to v1.4 a `machine` section with no type still created an empty `machine`.
    if prefs.preferred_machine_type.is_empty() {
        if !version.at_least(1, 5) {
            child(child(spec, "domain"), "machine");
        }
        return;
    }
    let machine = child(child(spec, "domain"), "machine");
    if str_of(machine, "type").is_empty() {
        machine.insert(
            "type".to_owned(),
            prefs.preferred_machine_type.clone().into(),
        );
    }
}
