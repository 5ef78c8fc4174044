//! `preference/apply/clock.go`. The clock offset is embedded in `clock` (`utc` or `timezone`)
//! and copied whole, only when the VM sets neither.

use serde_json::Value;

use crate::model::PreferenceSpec;
use crate::model::value::{Fields, Obj, child, is_set};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) {
    let Some(prefs) = &preference.clock else {
        return;
    };
    let clock = child(child(spec, "domain"), "clock");
    if let Some(Value::Object(offset)) = &prefs.preferred_clock_offset {
        let has_offset = is_set(clock, "utc")
            || clock
                .field("timezone")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.is_empty());
        if !has_offset {
            for (key, value) in offset {
                clock.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(timer) = prefs.preferred_timer.as_ref().filter(|v| !v.is_null())
        && !is_set(clock, "timer")
    {
        clock.insert("timer".to_owned(), timer.clone());
    }
}
