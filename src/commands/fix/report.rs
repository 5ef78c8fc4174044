//! What `kvlint fix` reports of a run: text lines, JSON, a unified diff.

use std::fmt::Write as _;

use super::run::Outcome;
use crate::rules::FixKind;

/// The fixes as text lines, `file:line: CODE description`, and a summary line.
pub fn text(outcome: &Outcome, written: bool) -> String {
    let mut out = String::new();
    for finding in &outcome.configuration {
        let _ = writeln!(
            out,
            "{}:{}: {} {}: {}",
            finding.location.file,
            finding.location.span.start.line,
            finding.rule.code,
            finding.severity,
            finding.message
        );
    }
    for fix in &outcome.applied {
        let unsafe_note = if fix.kind == FixKind::Unsafe {
            " (unsafe)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{}:{}: {} {}{unsafe_note}",
            fix.file, fix.line, fix.rule.code, fix.description
        );
    }
    for skip in &outcome.skipped {
        let _ = writeln!(
            out,
            "{}:{}: {} not fixed: {}",
            skip.file, skip.line, skip.rule.code, skip.reason
        );
    }
    let verb = if written { "fixed" } else { "would fix" };
    let _ = write!(
        out,
        "kvlint: {verb} {} finding{} in {} file{}",
        outcome.applied.len(),
        if outcome.applied.len() == 1 { "" } else { "s" },
        outcome.changes.len(),
        if outcome.changes.len() == 1 { "" } else { "s" },
    );
    if !outcome.skipped.is_empty() {
        let _ = write!(out, "; {} left as they are", outcome.skipped.len());
    }
    if outcome.unsafe_available > 0 {
        let _ = write!(
            out,
            "; {} more with --unsafe-fixes",
            outcome.unsafe_available
        );
    }
    out.push('\n');
    out
}

/// The stable machine-readable form.
pub fn json(outcome: &Outcome, written: bool) -> String {
    let files: Vec<&str> = outcome.changes.iter().map(|c| &*c.file).collect();
    let mut value = serde_json::json!({
        "version": 1,
        "written": written,
        "fixes": outcome.applied,
        "skipped": outcome.skipped,
        "files": files,
        "unsafe_available": outcome.unsafe_available,
    });
    // Only when there is something to say, so that the usual output keeps its shape.
    if !outcome.configuration.is_empty() {
        value["configuration"] = outcome
            .configuration
            .iter()
            .map(|finding| {
                serde_json::json!({
                    "file": &*finding.location.file,
                    "line": finding.location.span.start.line,
                    "column": finding.location.span.start.column,
                    "rule": finding.rule.code,
                    "severity": finding.severity.as_str(),
                    "message": finding.message,
                })
            })
            .collect();
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The unified diff of every changed file.
pub fn unified_diff(outcome: &Outcome) -> String {
    let mut out = String::new();
    for change in &outcome.changes {
        out.push_str(
            &similar::TextDiff::from_lines(&change.before, &change.after)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", change.file), &format!("b/{}", change.file))
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::commands::fix::run::{Applied, FileChange, Skipped};
    use crate::rules;

    fn applied(line: u32, kind: FixKind) -> Applied {
        Applied {
            file: Arc::from("vm.yaml"),
            line,
            rule: &rules::MACHINE_TYPE_DEFAULTED,
            kind,
            description: "write the machine type".to_owned(),
            object: None,
            fields: Vec::new(),
        }
    }

    #[test]
    fn the_text_marks_unsafe_fixes_and_sums_up_only_what_there_is() {
        let mut outcome = Outcome {
            applied: vec![applied(3, FixKind::Safe)],
            changes: vec![FileChange {
                file: Arc::from("vm.yaml"),
                before: String::new(),
                after: String::new(),
            }],
            ..Outcome::default()
        };
        assert_eq!(
            text(&outcome, true),
            "vm.yaml:3: KV3003 write the machine type\nkvlint: fixed 1 finding in 1 file\n"
        );
        outcome.applied.push(applied(9, FixKind::Unsafe));
        outcome.skipped.push(Skipped {
            file: Arc::from("vm.yaml"),
            line: 12,
            rule: &rules::MACHINE_TYPE_DEFAULTED,
            reason: "the check refused it".to_owned(),
        });
        outcome.unsafe_available = 2;
        assert_eq!(
            text(&outcome, false),
            "vm.yaml:3: KV3003 write the machine type\n\
             vm.yaml:9: KV3003 write the machine type (unsafe)\n\
             vm.yaml:12: KV3003 not fixed: the check refused it\n\
             kvlint: would fix 2 findings in 1 file; 1 left as they are; 2 more with --unsafe-fixes\n"
        );
    }

    #[test]
    fn the_json_lists_fixes_and_files_and_configuration_only_when_there_is_some() {
        let outcome = Outcome {
            applied: vec![applied(3, FixKind::Safe)],
            changes: vec![FileChange {
                file: Arc::from("vm.yaml"),
                before: String::new(),
                after: String::new(),
            }],
            ..Outcome::default()
        };
        let value: serde_json::Value = serde_json::from_str(&json(&outcome, true)).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value["written"], true);
        assert_eq!(value["fixes"][0]["rule"], "KV3003");
        assert_eq!(value["fixes"][0]["line"], 3);
        assert_eq!(value["files"], serde_json::json!(["vm.yaml"]));
        assert!(value.get("configuration").is_none(), "{value}");
    }

    #[test]
    fn the_diff_names_each_changed_file() {
        let outcome = Outcome {
            changes: vec![FileChange {
                file: Arc::from("vm.yaml"),
                before: "a: 1\n".to_owned(),
                after: "a: 2\n".to_owned(),
            }],
            ..Outcome::default()
        };
        assert_eq!(
            unified_diff(&outcome),
            "--- a/vm.yaml\n+++ b/vm.yaml\n@@ -1 +1 @@\n-a: 1\n+a: 2\n"
        );
    }
}
