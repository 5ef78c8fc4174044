//! The `kubevirt.kubevirt.io/jsonpatch` annotation (`ApplyPatchToSpec`): an RFC 6902 patch HCO
//! applies to the whole generated `KubeVirt` CR, bounded in what it may copy.

use serde_json::Value;

use super::read::annotation;

/// The JSON patch HCO applies to the KubeVirt CR it generates.
pub(super) const KUBEVIRT_JSONPATCH: &str = "kubevirt.kubevirt.io/jsonpatch";

/// `ApplyPatchToSpec`: RFC 6902 (HCO uses evanphx/json-patch v5) on the whole generated
/// object; every operation's `path` must lie under `/spec/`.
pub(super) fn apply_jsonpatch_annotation(
    object: &Value,
    kubevirt: &Value,
) -> Result<Value, String> {
    let Some(text) = annotation(object, KUBEVIRT_JSONPATCH) else {
        return Ok(kubevirt.clone());
    };
    let patch: json_patch::Patch = serde_json::from_str(text)
        .map_err(|err| format!("annotation {KUBEVIRT_JSONPATCH} is not a JSON patch: {err}"))?;
    if let Some(outside) = patch
        .0
        .iter()
        .map(operation_path)
        .find(|path| !path.starts_with("/spec/"))
    {
        return Err(format!(
            "annotation {KUBEVIRT_JSONPATCH}: `{outside}`: HCO can only modify spec fields"
        ));
    }
    let mut patched = kubevirt.clone();
    let mut budget = CopyBudget::default();
    for (index, operation) in patch.0.iter().enumerate() {
        if let json_patch::PatchOperation::Copy(copy) = operation {
            budget.spend(&patched, copy).map_err(|limit| {
                format!(
                    "annotation {KUBEVIRT_JSONPATCH}: operation {index} (copy to `{}`): {limit}",
                    copy.path
                )
            })?;
        }
        json_patch::patch_unsafe(&mut patched, std::slice::from_ref(operation)).map_err(|err| {
            format!(
                "annotation {KUBEVIRT_JSONPATCH}: operation {index} failed at path '{}': {}",
                err.path, err.kind
            )
        })?;
    }
    Ok(patched)
}

/// Values a patch may copy in all, and how deep a copy may nest: each `copy` can double the
/// document, so a short annotation could otherwise grow it without bound (evanphx/json-patch
/// v5 has no limit by default either; HCO would exhaust its memory).
pub(super) const COPY_VALUE_LIMIT: usize = 10_000;

pub(super) const COPY_DEPTH_LIMIT: usize = 256;

#[derive(Default)]
pub(super) struct CopyBudget {
    copied: usize,
}

impl CopyBudget {
    /// Counts the values a `copy` adds (without recursion), failing once the patch has copied
    /// more than [`COPY_VALUE_LIMIT`] or the copy would nest deeper than [`COPY_DEPTH_LIMIT`].
    fn spend(&mut self, document: &Value, copy: &json_patch::CopyOperation) -> Result<(), String> {
        let exceeded = || {
            format!(
                "kvlint applies patches that copy at most {COPY_VALUE_LIMIT} values, {COPY_DEPTH_LIMIT} levels deep"
            )
        };
        // A missing `from` is json-patch's error to report.
        let Some(from) = document.pointer(copy.from.as_str()) else {
            return Ok(());
        };
        let base = copy.path.count();
        let mut pending = vec![(from, base)];
        while let Some((value, depth)) = pending.pop() {
            self.copied += 1;
            if self.copied > COPY_VALUE_LIMIT || depth > COPY_DEPTH_LIMIT {
                return Err(exceeded());
            }
            match value {
                Value::Array(items) => pending.extend(items.iter().map(|v| (v, depth + 1))),
                Value::Object(fields) => pending.extend(fields.values().map(|v| (v, depth + 1))),
                _ => {}
            }
        }
        Ok(())
    }
}

pub(super) fn operation_path(operation: &json_patch::PatchOperation) -> String {
    use json_patch::PatchOperation as Op;
    match operation {
        Op::Add(op) => op.path.to_string(),
        Op::Remove(op) => op.path.to_string(),
        Op::Replace(op) => op.path.to_string(),
        Op::Move(op) => op.path.to_string(),
        Op::Copy(op) => op.path.to_string(),
        Op::Test(op) => op.path.to_string(),
    }
}
