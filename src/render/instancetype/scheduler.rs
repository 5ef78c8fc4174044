//! `apply/scheduler.go`.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, str_of};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    if instancetype.scheduler_name.is_empty() {
        return None;
    }
    if !str_of(spec, "schedulerName").is_empty() {
        return Some(Conflict::at(prefix, "schedulerName"));
    }
    spec.insert(
        "schedulerName".to_owned(),
        serde_json::Value::String(instancetype.scheduler_name.clone()),
    );
    None
}
