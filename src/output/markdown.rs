//! `--format markdown`: a compact report for pull-request comments and GitHub step summaries.
//!
//! A heading, the counts, and one table row per finding: errors first, then warnings, then
//! infos, each in the report's order. A pull-request comment holds at most 65,536 characters,
//! so the table stops after [`MAX_ROWS`] rows and says how many findings it left out.

use std::fmt::Write as _;

use crate::check::Report;
use crate::diag::{Finding, ObjectRef, Severity};
use crate::output::group::{self, Item};
use crate::rules::Rule;
use crate::rules::explain::rule_url;
use crate::sanitize::{
    self,
    markdown::{Piece, split_code_spans},
};

/// The most findings listed in the table.
pub const MAX_ROWS: usize = 100;

/// `Kind namespace/name`, or `Kind name` for a cluster-scoped object.
pub(crate) fn object_label(object: &ObjectRef) -> String {
    match &object.namespace {
        Some(namespace) => format!("{} {namespace}/{}", object.kind, object.name),
        None => format!("{} {}", object.kind, object.name),
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Escapes text for a table cell. Code spans (paired as CommonMark pairs backtick runs) stay
/// code: `|` is escaped as tables need and a line break becomes a space. Outside them `|` never
/// ends the cell, a line break becomes `<br>`, `<`, `>`, `&` and `\\` are shown as written,
/// a `]` before `(` opens no link or image, unpaired backticks are literal, and mentions,
/// issue references and bare links are broken ([`sanitize::markdown`]).
pub(crate) fn escape_cell(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    for piece in split_code_spans(&text) {
        match piece {
            Piece::Code { fence, content } => {
                let fence = "`".repeat(fence);
                out.push_str(&fence);
                for ch in content.chars() {
                    match ch {
                        '|' => out.push_str("\\|"),
                        '\n' => out.push(' '),
                        ch if sanitize::markdown::is_hidden(ch) => {
                            sanitize::markdown::push_hidden(&mut out, ch, true);
                        }
                        _ => out.push(ch),
                    }
                }
                out.push_str(&fence);
            }
            Piece::Backticks(count) => out.push_str(&"\\`".repeat(count)),
            Piece::Text(part) => out.push_str(&sanitize::markdown::defuse(&escape_text(part))),
        }
    }
    out
}

/// Escapes table-cell text outside code spans (see [`escape_cell`]).
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("<br>"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' => out.push_str("\\\\"),
            ']' if chars.peek() == Some(&'(') => out.push_str("\\]"),
            ch if sanitize::markdown::is_hidden(ch) => {
                sanitize::markdown::push_hidden(&mut out, ch, false);
            }
            _ => out.push(ch),
        }
    }
    out
}

fn severity_rank(severity: Severity) -> u8 {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

pub(crate) fn row(out: &mut String, finding: &Finding) {
    row_for(out, finding, &[finding.rule]);
}

/// A row for `finding` that names every rule in `rules`.
fn row_for(out: &mut String, finding: &Finding, rules: &[&Rule]) {
    let line = finding.location.span.start.line;
    let location = if line == 0 {
        finding.location.file.to_string()
    } else {
        format!("{}:{line}", finding.location.file)
    };
    let object = finding
        .object
        .as_ref()
        .map_or_else(String::new, object_label);
    let named: Vec<String> = rules
        .iter()
        .map(|rule| format!("[{}]({}) {}", rule.code, rule_url(rule), rule.name))
        .collect();
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} |",
        finding.severity,
        named.join("<br>"),
        escape_cell(&location),
        escape_cell(&object),
        escape_cell(&finding.message),
    );
}

fn item_severity(item: &Item<'_>) -> Severity {
    match item {
        Item::Single(finding) => finding.severity,
        Item::Defaults(defaults) => defaults.anchor().severity,
    }
}

/// The YAML a defaults row asks to commit, under its file and VM, in a fence no line of it can
/// close.
fn defaults_snippet(out: &mut String, finding: &Finding, defaults: &group::Defaults<'_>) {
    let snippet = defaults.snippet();
    let start = finding.location.span.start;
    let object = finding
        .object
        .as_ref()
        .map_or_else(String::new, object_label);
    let _ = writeln!(
        out,
        "\n{}:{} · {}\n",
        escape_cell(&finding.location.file),
        start.line,
        escape_cell(&object)
    );
    if !snippet.is_empty() {
        let longest_run = snippet.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let fence = "`".repeat(longest_run.max(2) + 1);
        let _ = writeln!(out, "{fence}yaml\n{}\n{fence}", snippet.trim_end());
    }
    for note in defaults.notes() {
        let _ = writeln!(out, "\n{}", escape_cell(&note));
    }
}

/// The heading and the counts, each followed by a blank line.
pub(crate) fn heading(report: &Report) -> String {
    let summary = &report.summary;
    let mut out = String::from("## kvlint\n\n");
    let errors = plural(summary.errors, "error", "errors");
    let _ = writeln!(
        out,
        "{}, {}, {} · {} checked · {} of {} rendered",
        if summary.errors > 0 {
            format!("**{errors}**")
        } else {
            errors
        },
        plural(summary.warnings, "warning", "warnings"),
        plural(summary.infos, "info", "infos"),
        plural(summary.files, "file", "files"),
        summary.rendered,
        plural(summary.vms, "VM", "VMs"),
    );
    out.push('\n');
    out
}

/// The Markdown report, newline-terminated.
pub fn report(report: &Report) -> String {
    let mut out = heading(report);
    if report.findings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    let mut items = group::report_items(report);
    items.sort_by_key(|item| severity_rank(item_severity(item)));
    out.push_str("| Severity | Rule | Location | Object | Message |\n");
    out.push_str("| --- | --- | --- | --- | --- |\n");
    let mut snippets = String::new();
    for item in items.iter().take(MAX_ROWS) {
        match item {
            Item::Single(finding) => row(&mut out, finding),
            Item::Defaults(defaults) => {
                let finding = defaults.as_finding();
                let rules: Vec<&Rule> = defaults.findings.iter().map(|f| f.rule).collect();
                row_for(&mut out, &finding, &rules);
                defaults_snippet(&mut snippets, &finding, defaults);
            }
        }
    }
    if items.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "\n{} not listed; run `kvlint check` for the full report.",
            plural(
                items.len() - MAX_ROWS,
                "more finding is",
                "more findings are"
            )
        );
    }
    if !snippets.is_empty() {
        out.push_str("\n### What to commit\n");
        out.push_str(&snippets);
    }
    // The report is printed in CI logs too.
    sanitize::terminal::guard_lines(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::check::Summary;
    use crate::diag::Location;
    use crate::rules;

    fn location(file: &str, line: u32) -> Location {
        Location::lines(Arc::from(file), (line, 3), (line, 9))
    }

    fn counted(findings: Vec<Finding>) -> Report {
        let count = |severity| findings.iter().filter(|f| f.severity == severity).count();
        let summary = Summary {
            files: 2,
            vms: 2,
            rendered: 1,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            ..Summary::default()
        };
        Report {
            findings,
            summary,
            ..Report::default()
        }
    }

    #[test]
    fn clean_report() {
        let report_ = Report {
            summary: Summary {
                files: 1,
                vms: 1,
                rendered: 1,
                ..Summary::default()
            },
            ..Report::default()
        };
        assert_eq!(
            report(&report_),
            "## kvlint\n\n0 errors, 0 warnings, 0 infos · 1 file checked · 1 of 1 VM rendered\n\nNo findings.\n"
        );
    }

    #[test]
    fn table_sorted_by_severity() {
        let vm = ObjectRef {
            api_version: "kubevirt.io/v1".into(),
            kind: "VirtualMachine".into(),
            namespace: Some("db".into()),
            name: "postgres".into(),
        };
        let report_ = counted(vec![
            Finding::new(&rules::SKIPPED_FILE, location("a.yaml", 1), "skipped"),
            Finding::new(
                &rules::DEPRECATED_RUNNING,
                location("vm.yaml", 5),
                "spec.running is deprecated",
            )
            .with_object(Some(vm.clone())),
            Finding::new(
                &rules::INSTANCETYPE_CONFLICT,
                location("vm.yaml", 17),
                "conflicts",
            )
            .with_object(Some(vm)),
        ]);
        let text = report(&report_);
        let expected = format!(
            "## kvlint\n\n**1 error**, 1 warning, 1 info · 2 files checked · 1 of 2 VMs rendered\n\n\
             | Severity | Rule | Location | Object | Message |\n\
             | --- | --- | --- | --- | --- |\n\
             | error | [KV1001]({}) instancetype-conflict | vm.yaml:17 | VirtualMachine db/postgres | conflicts |\n\
             | warning | [KV0016]({}) deprecated-running | vm.yaml:5 | VirtualMachine db/postgres | spec.running is deprecated |\n\
             | info | [KV0006]({}) not-a-manifest | a.yaml:1 |  | skipped |\n",
            rule_url(&rules::INSTANCETYPE_CONFLICT),
            rule_url(&rules::DEPRECATED_RUNNING),
            rule_url(&rules::SKIPPED_FILE),
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn escapes_cells() {
        assert_eq!(escape_cell("a | b\nc\r\nd"), "a \\| b<br>c<br>d");
        assert_eq!(escape_cell("<built-in> & co"), "&lt;built-in&gt; &amp; co");
        assert_eq!(escape_cell("set `a|b <c>` here"), "set `a\\|b <c>` here");
        assert_eq!(escape_cell("odd ` tick <x>"), "odd \\` tick &lt;x&gt;");
        assert_eq!(escape_cell("C:\\dir"), "C:\\\\dir");
        let report_ = counted(vec![Finding::new(
            &rules::YAML_SYNTAX,
            location("x|y.yaml", 2),
            "line one\nline | two",
        )]);
        let text = report(&report_);
        assert!(
            text.contains(" | x\\|y.yaml:2 |  | line one<br>line \\| two |\n"),
            "{text}"
        );
    }

    #[test]
    fn long_tables_are_cut() {
        let rows = u32::try_from(MAX_ROWS).unwrap();
        let findings = (1..=rows + 3)
            .map(|line| Finding::new(&rules::YAML_SYNTAX, location("a.yaml", line), "bad"))
            .collect();
        let text = report(&counted(findings));
        assert_eq!(text.matches("| error |").count(), MAX_ROWS);
        assert!(
            text.ends_with(
                "\n3 more findings are not listed; run `kvlint check` for the full report.\n"
            ),
            "{text}"
        );
    }
}
