//! `preference/apply/cpu.go`: preferred CPU features.

use serde_json::Value;

use super::ApplyPanic;
use crate::model::PreferenceSpec;
use crate::model::value::{Fields, Obj, child, get_obj, list};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj) -> Result<(), ApplyPanic> {
    let Some(features) = preference
        .cpu
        .as_ref()
        .map(|c| &c.preferred_cpu_features)
        .filter(|f| !f.is_empty())
    else {
        return Ok(());
    };
    let domain = child(spec, "domain");
    if get_obj(domain, "cpu").is_none() {
        return Err(ApplyPanic {
            message: "KubeVirt dereferences a nil domain.cpu when preferredCPUFeatures is applied to a VM without domain.cpu and without an instance type".to_owned(),
        });
    }
    let cpu = child(domain, "cpu");
    let existing: Vec<String> = cpu
        .field("features")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|f| f.field("name").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let target = list(cpu, "features");
    for feature in features {
        let name = feature.field("name").and_then(Value::as_str).unwrap_or("");
        if !existing.iter().any(|e| e == name) {
            target.push(feature.clone());
        }
    }
    Ok(())
}
