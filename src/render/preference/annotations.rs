//! `preference/apply/annotations.go`: keys already present win; no conflicts.

use crate::model::PreferenceSpec;
use crate::model::value::{Obj, child};

pub(super) fn apply(preference: &PreferenceSpec, metadata: &mut Obj) {
    let annotations = child(metadata, "annotations");
    let Some(wanted) = &preference.annotations else {
        return;
    };
    for (key, value) in wanted {
        if !annotations.contains_key(key) {
            annotations.insert(key.clone(), value.clone().into());
        }
    }
}
