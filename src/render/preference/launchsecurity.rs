//! `preference/apply/launchsecurity.go` (v1.9+): after the instance type, so its value wins.

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, child, is_set};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    if let Some(launch_security) = preference
        .preferred_launch_security
        .as_ref()
        .filter(|v| !v.is_null())
    {
        let domain = child(spec, "domain");
        if !is_set(domain, "launchSecurity") {
            domain.insert("launchSecurity".to_owned(), launch_security.clone());
        }
    }
}
