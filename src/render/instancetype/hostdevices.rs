//! `apply/hostdevices.go`: the whole list, no merging.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child, list_len};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    if instancetype.host_devices.is_empty() {
        return None;
    }
    let devices = child(child(spec, "domain"), "devices");
    if list_len(devices, "hostDevices") > 0 {
        return Some(Conflict::at(prefix, "domain.devices.hostDevices"));
    }
    devices.insert(
        "hostDevices".to_owned(),
        instancetype.host_devices.clone().into(),
    );
    None
}
