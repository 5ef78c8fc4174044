//! The `kubevirt.kubevirt.io/jsonpatch` annotation (`ApplyPatchToSpec`): an RFC 6902 patch HCO
//! applies to the whole generated `KubeVirt` CR, bounded in what it may copy.

use serde_json::Value;

use super::read::annotation;

/// The JSON patch HCO applies to the KubeVirt CR it generates.
pub(super) const KUBEVIRT_JSONPATCH: &str = "kubevirt.kubevirt.io/jsonpatch";

/// Why HCO cannot apply the patch annotation (the message names the annotation).
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("annotation {annotation} is not a JSON patch: {0}", annotation = KUBEVIRT_JSONPATCH)]
    NotAPatch(#[source] serde_json::Error),
    /// An operation's path outside `/spec/`.
    #[error("annotation {annotation}: `{0}`: HCO can only modify spec fields", annotation = KUBEVIRT_JSONPATCH)]
    OutsideSpec(String),
    /// A `copy` (operation `index`, to `path`) over kvlint's bound.
    #[error("annotation {annotation}: operation {index} (copy to `{path}`): {limit}", annotation = KUBEVIRT_JSONPATCH)]
    CopyLimit {
        index: usize,
        path: String,
        #[source]
        limit: CopyLimitExceeded,
    },
    /// Operation `index` failed as json-patch applies it.
    #[error("annotation {annotation}: operation {index} failed at path '{}': {}", source.path, source.kind, annotation = KUBEVIRT_JSONPATCH)]
    Failed {
        index: usize,
        source: json_patch::PatchError,
    },
}

/// A `copy` would make the patch copy more values, or nest them deeper, than kvlint applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "kvlint applies patches that copy at most {COPY_VALUE_LIMIT} values, {COPY_DEPTH_LIMIT} levels deep"
)]
pub struct CopyLimitExceeded;

/// `ApplyPatchToSpec`: RFC 6902 (HCO uses evanphx/json-patch v5) on the whole generated
/// object; every operation's `path` must lie under `/spec/`.
pub(super) fn apply_jsonpatch_annotation(
    object: &Value,
    kubevirt: &Value,
) -> Result<Value, PatchError> {
    let Some(text) = annotation(object, KUBEVIRT_JSONPATCH) else {
        return Ok(kubevirt.clone());
    };
    let patch: json_patch::Patch = serde_json::from_str(text).map_err(PatchError::NotAPatch)?;
    if let Some(outside) = patch
        .0
        .iter()
        .map(operation_path)
        .find(|path| !path.starts_with("/spec/"))
    {
        return Err(PatchError::OutsideSpec(outside));
    }
    let mut patched = kubevirt.clone();
    let mut budget = CopyBudget::default();
    for (index, operation) in patch.0.iter().enumerate() {
        if let json_patch::PatchOperation::Copy(copy) = operation {
            budget
                .spend(&patched, copy)
                .map_err(|limit| PatchError::CopyLimit {
                    index,
                    path: copy.path.to_string(),
                    limit,
                })?;
        }
        json_patch::patch_unsafe(&mut patched, std::slice::from_ref(operation))
            .map_err(|source| PatchError::Failed { index, source })?;
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
    fn spend(
        &mut self,
        document: &Value,
        copy: &json_patch::CopyOperation,
    ) -> Result<(), CopyLimitExceeded> {
        // A missing `from` is json-patch's error to report.
        let Some(from) = document.pointer(copy.from.as_str()) else {
            return Ok(());
        };
        let base = copy.path.count();
        let mut pending = vec![(from, base)];
        while let Some((value, depth)) = pending.pop() {
            self.copied += 1;
            if self.copied > COPY_VALUE_LIMIT || depth > COPY_DEPTH_LIMIT {
                return Err(CopyLimitExceeded);
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
