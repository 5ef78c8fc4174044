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
