//! `preference/apply/architecture.go` (v1.7+).

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, str_of};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    if let Some(arch) = preference
        .preferred_architecture
        .as_ref()
        .filter(|a| !a.is_empty())
        && str_of(spec, "architecture").is_empty()
    {
        spec.insert("architecture".to_owned(), arch.clone().into());
    }
}
