//! `apply/nodeselector.go`.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, map_is_set};
use crate::render::conflict::Conflict;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    spec: &mut Obj,
) -> Option<Conflict> {
    let selector = instancetype.node_selector.as_ref()?;
    // A VM map that is present, even empty, conflicts.
    if map_is_set(spec, "nodeSelector") {
        return Some(Conflict::at(prefix, "nodeSelector"));
    }
    let copy = selector
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    spec.insert("nodeSelector".to_owned(), serde_json::Value::Object(copy));
    None
}
