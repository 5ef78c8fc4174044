//! `preference/apply/subdomain.go`.

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, str_of};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    if let Some(subdomain) = preference
        .preferred_subdomain
        .as_ref()
        .filter(|s| !s.is_empty())
        && str_of(spec, "subdomain").is_empty()
    {
        spec.insert("subdomain".to_owned(), subdomain.clone().into());
    }
}
