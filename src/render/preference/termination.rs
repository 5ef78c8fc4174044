//! `preference/apply/termination.go`.

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, is_set};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    if let Some(seconds) = preference.preferred_termination_grace_period_seconds
        && !is_set(spec, "terminationGracePeriodSeconds")
    {
        spec.insert("terminationGracePeriodSeconds".to_owned(), seconds.into());
    }
}
