//! `apply/gpus.go`: the whole list, no merging.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child, list_len};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    if instancetype.gpus.is_empty() {
        return None;
    }
    let devices = child(child(spec, "domain"), "devices");
    if list_len(devices, "gpus") > 0 {
        return Some(Conflict::at(prefix, "domain.devices.gpus"));
    }
    devices.insert("gpus".to_owned(), instancetype.gpus.clone().into());
    None
}
