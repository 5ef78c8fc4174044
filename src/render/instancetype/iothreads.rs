//! `apply/iothreads.go` (v1.7+).

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child, get_obj, is_set};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    let count = instancetype
        .io_threads
        .as_ref()
        .and_then(|t| t.supplemental_pool_thread_count)?;
    let domain = child(spec, "domain");
    if get_obj(domain, "ioThreads").is_some_and(|t| is_set(t, "supplementalPoolThreadCount")) {
        return Some(Conflict::at(
            prefix,
            "domain.ioThreads.supplementalPoolThreadCount",
        ));
    }
    child(domain, "ioThreads").insert("supplementalPoolThreadCount".to_owned(), count.into());
    None
}
