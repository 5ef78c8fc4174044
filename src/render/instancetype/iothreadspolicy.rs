//! `apply/iothreadspolicy.go`.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child, is_set};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    let policy = instancetype.io_threads_policy.as_ref()?;
    let domain = child(spec, "domain");
    if is_set(domain, "ioThreadsPolicy") {
        return Some(Conflict::at(prefix, "domain.ioThreadsPolicy"));
    }
    domain.insert("ioThreadsPolicy".to_owned(), policy.clone().into());
    None
}
