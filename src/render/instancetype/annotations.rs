//! `apply/annotations.go`. KubeVirt iterates a Go map (random order); kvlint reports the
//! conflicts in key order so that output is stable.

use crate::model::InstancetypeSpec;
use crate::model::value::{Obj, child};
use crate::render::conflict::Conflict;

pub(super) fn apply(instancetype: &InstancetypeSpec, metadata: &mut Obj) -> Vec<Conflict> {
    let Some(wanted) = &instancetype.annotations else {
        return Vec::new();
    };
    let annotations = child(metadata, "annotations");
    let mut keys: Vec<&String> = wanted.keys().collect();
    keys.sort();
    let mut conflicts = Vec::new();
    for key in keys {
        let value = &wanted[key];
        match annotations.get(key) {
            Some(existing) if existing.as_str() == Some(value.as_str()) => {}
            Some(_) => conflicts.push(Conflict::annotation(key)),
            None => {
                annotations.insert(key.clone(), value.clone().into());
            }
        }
    }
    conflicts
}
