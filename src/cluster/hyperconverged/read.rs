//! How HCO reads a HyperConverged object: the first of several spellings of a field, and
//! its annotations.

use serde_json::Value;

/// The first of several paths (the `v1beta1` one, then the `v1` one) that is set.
pub(super) fn first<'v>(spec: &'v Value, pointers: &[&str]) -> Option<&'v Value> {
    pointers
        .iter()
        .find_map(|p| spec.pointer(p).filter(|v| !v.is_null()))
}

pub(super) fn annotation<'v>(object: &'v Value, name: &str) -> Option<&'v str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(name))
        .and_then(Value::as_str)
}
