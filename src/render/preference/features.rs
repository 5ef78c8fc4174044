//! `preference/apply/features.go`.

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, child, copy_if_unset};

const HYPERV_FEATURES: [&str; 14] = [
    "evmcs",
    "frequencies",
    "ipi",
    "reenlightenment",
    "relaxed",
    "reset",
    "runtime",
    "spinlocks",
    "synic",
    "synictimer",
    "tlbflush",
    "vapic",
    "vpindex",
    "vendorid",
];

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    let Some(prefs) = &preference.features else {
        return;
    };
    let features = child(child(spec, "domain"), "features");
    if let Some(acpi) = prefs.preferred_acpi.as_ref().filter(|v| !v.is_null()) {
        features.insert("acpi".to_owned(), acpi.clone());
    }
    copy_if_unset(features, "apic", prefs.preferred_apic.as_ref());
    copy_if_unset(features, "kvm", prefs.preferred_kvm.as_ref());
    copy_if_unset(features, "pvspinlock", prefs.preferred_pvspinlock.as_ref());
    copy_if_unset(features, "smm", prefs.preferred_smm.as_ref());
    if let Some(preferred) = &prefs.preferred_hyperv {
        let hyperv = child(features, "hyperv");
        for key in HYPERV_FEATURES {
            copy_if_unset(hyperv, key, preferred.get(key));
        }
    }
}
