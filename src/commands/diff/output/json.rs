//! The JSON format.

use serde::Serialize;

use crate::commands::diff::model::Diff;

#[derive(Serialize)]
struct JsonDiff<'a> {
    version: u32,
    #[serde(flatten)]
    diff: &'a Diff,
}

/// The JSON format: `{"version": 1, "assumptions": [...], "rollout", "kubevirt_version",
/// "counts", "vms", "objects", "introduced", "fixed"}`; see README.
pub fn json(diff: &Diff) -> String {
    let mut text = serde_json::to_string_pretty(&JsonDiff { version: 1, diff })
        .unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"));
    text.push('\n');
    crate::sanitize::json::guard_owned(text)
}
