//! `apply/launchsecurity.go`.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child, is_set};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    let launch_security = instancetype
        .launch_security
        .as_ref()
        .filter(|v| !v.is_null())?;
    let domain = child(spec, "domain");
    if is_set(domain, "launchSecurity") {
        return Some(Conflict::at(prefix, "domain.launchSecurity"));
    }
    domain.insert("launchSecurity".to_owned(), launch_security.clone());
    None
}
