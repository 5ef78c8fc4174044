//! `--format github`: GitHub Actions workflow commands that annotate the changed files.
//!
//! GitHub shows at most 10 error, 10 warning and 10 notice annotations per step; which
//! findings get them, and in which order, is [`super::annotation_budget`]'s choice (the pull
//! request's changed files first), and a closing notice says how many were left out. File names
//! are relative to the workspace ([`super::workspace`]). The full report belongs in the step
//! summary ([`super::step_summary`]) and the SARIF upload.
//!
//! Manifest text (file names, messages, help) is escaped for the terminal first (control
//! characters shown, one line where kvlint writes one), `##[` is broken, and then the runner's
//! own escaping applies (`%`, `\r`, `\n`; in properties `:` and `,` as well, as
//! `@actions/core` escapes them): an annotation is always exactly one line that starts with
//! kvlint's `::`.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::check::Report;
use crate::diag::{Finding, Severity};
use crate::output::group::{self, Item};
use crate::sanitize::terminal;

use super::annotation_budget;
use super::github_context::{self, Context};

/// Manifest text as it may appear in a command: control characters shown, `##[` broken.
fn shown(text: &str, one_line: bool) -> String {
    let text = if one_line {
        terminal::line(text)
    } else {
        terminal::block(text)
    };
    terminal::guard_lines(text.into_owned())
}

/// Escapes the message of a workflow command.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes the value of a workflow command property (`file=`, `title=`, ...).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// Whether kvlint's name for a source is a placeholder (`<stdin>`, `<built-in catalog …>`)
/// rather than a path in the repository.
fn is_placeholder(file: &str) -> bool {
    file.starts_with('<') && file.ends_with('>')
}

/// The findings as annotations show them: one per item of the grouped report (a VM's webhook
/// defaults in one, titled with every rule it stands for), each with its title.
fn grouped(report: &Report) -> Vec<(Cow<'_, Finding>, String)> {
    group::report_items(report)
        .into_iter()
        .map(|item| match item {
            Item::Single(finding) => (
                Cow::Borrowed(finding),
                format!("{} {}", finding.rule.code, finding.rule.name),
            ),
            Item::Defaults(defaults) => (
                Cow::Owned(defaults.as_finding()),
                format!("{} webhook defaults", defaults.codes()),
            ),
        })
        .collect()
}

fn annotation_titled(finding: &Finding, title: &str) -> String {
    let mut properties = Vec::new();
    let file = &*finding.location.file;
    let span = finding.location.span;
    if !is_placeholder(file) {
        properties.push(format!("file={}", escape_property(&shown(file, true))));
        if span.start.line > 0 {
            // kvlint's end is exclusive: a span that ends at column 1 ends on the line before.
            let end_line = if span.end.line > span.start.line && span.end.column <= 1 {
                span.end.line - 1
            } else {
                span.end.line.max(span.start.line)
            };
            properties.push(format!("line={}", span.start.line));
            // GitHub accepts columns only for an annotation on one line; its end column is the
            // last character, kvlint's the one after it.
            if span.end.line == span.start.line && span.start.column > 0 {
                let col = span.start.column;
                let end_column = span.end.column.saturating_sub(1).max(col);
                properties.push(format!("col={col}"));
                properties.push(format!("endLine={end_line}"));
                properties.push(format!("endColumn={end_column}"));
            } else {
                properties.push(format!("endLine={end_line}"));
            }
        }
    }
    properties.push(format!("title={}", escape_property(title)));
    let mut message = shown(&finding.message, true);
    if is_placeholder(file) {
        message = format!("{}: {message}", shown(file, true));
    }
    if let Some(help) = &finding.help {
        let _ = write!(message, "\nhelp: {}", shown(help, false));
    }
    if let Some(note) = finding.unit_note() {
        let _ = write!(message, "\nnote: {}", shown(&note, true));
    }
    for related in &finding.related {
        let start = related.location.span.start;
        let _ = write!(
            message,
            "\n{}:{}:{}: {}",
            shown(&related.location.file, true),
            start.line,
            start.column,
            shown(&related.message, true)
        );
    }
    format!(
        "::{} {}::{}\n",
        command(finding.severity),
        properties.join(","),
        escape_data(message.trim_end())
    )
}

/// The workflow commands for the report, in this run's context (see [`annotations`]).
pub fn report(report: &Report) -> String {
    annotations(report, github_context::current())
}

/// The workflow commands for the findings that get a slot ([`annotation_budget::select`]),
/// named as `context` names files, then a notice counting the problems left out.
pub fn annotations(report: &Report, context: &Context) -> String {
    // One item per problem (the webhook's defaults of a VM as one), then the slots.
    let (findings, titles): (Vec<Finding>, Vec<String>) = grouped(report)
        .into_iter()
        .map(|(finding, title)| (finding.into_owned(), title))
        .unzip();
    let selection = annotation_budget::select(&findings, &context.changed, |f| context.file(f));
    let mut out = String::new();
    for finding in &selection.shown {
        let index = findings
            .iter()
            .position(|f| std::ptr::eq(f, *finding))
            .unwrap_or_default();
        out.push_str(&annotation_titled(
            &context.localised(finding),
            &titles[index],
        ));
    }
    if selection.left_out > 0 {
        let _ = writeln!(
            out,
            "::notice title=kvlint::{} more findings not shown as annotations; see the step summary",
            selection.left_out
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::{Location, Related};
    use crate::rules;

    /// The annotations outside any workspace or pull request, whatever the environment of the
    /// test run.
    fn report(report_: &Report) -> String {
        annotations(report_, &Context::default())
    }

    fn location(file: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Location {
        Location::lines(Arc::from(file), (line, column), (end_line, end_column))
    }

    fn at_line(rule: &'static rules::Rule, line: u32) -> Finding {
        Finding::new(
            rule,
            location("vm.yaml", line, 3, line, 8),
            format!("line {line}"),
        )
    }

    #[test]
    fn one_line_annotation() {
        let finding = Finding::new(
            &rules::INSTANCETYPE_CONFLICT,
            location("apps/db/vm.yaml", 17, 11, 17, 22),
            "VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type",
        );
        let report_ = Report {
            findings: vec![finding],
            ..Report::default()
        };
        assert_eq!(
            report(&report_),
            "::error file=apps/db/vm.yaml,line=17,col=11,endLine=17,endColumn=21,title=KV1001 instancetype-conflict::VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type\n"
        );
    }

    #[test]
    fn multi_line_spans_have_no_columns() {
        let finding = Finding::new(
            &rules::STATUS_COMMITTED,
            location("vm.yaml", 20, 1, 25, 7),
            "status",
        );
        let text = report(&Report {
            findings: vec![finding],
            ..Report::default()
        });
        assert_eq!(
            text,
            "::warning file=vm.yaml,line=20,endLine=25,title=KV4002 status-committed::status\n"
        );
    }

    #[test]
    fn a_span_ending_at_column_one_ends_on_the_line_before() {
        let findings = vec![
            Finding::new(
                &rules::UNRESOLVED_PREFERENCE,
                location("vm.yaml", 10, 3, 12, 1),
                "a",
            )
            .with_help("trailing newline\n"),
            Finding::new(
                &rules::UNRESOLVED_PREFERENCE,
                location("vm.yaml", 14, 3, 15, 1),
                "b",
            ),
        ];
        let text = report(&Report {
            findings,
            ..Report::default()
        });
        assert_eq!(
            text,
            "::error file=vm.yaml,line=10,endLine=11,title=KV1007 unresolved-preference::a%0Ahelp: trailing newline\n\
             ::error file=vm.yaml,line=14,endLine=14,title=KV1007 unresolved-preference::b\n"
        );
    }

    #[test]
    fn escapes_messages_and_properties() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\nd"), "a%3Ab%2Cc%25%0Ad");
        let finding = Finding::new(
            &rules::MACHINE_TYPE_DEFAULTED,
            location("dir,with:odd%name.yaml", 1, 1, 1, 2),
            "100% skipped\nsecond line",
        )
        .with_help("use: this,\nthat");
        let text = report(&Report {
            findings: vec![finding],
            ..Report::default()
        });
        assert_eq!(
            text,
            "::notice file=dir%2Cwith%3Aodd%25name.yaml,line=1,col=1,endLine=1,endColumn=1,title=KV3003 machine-type-defaulted::100%25 skipped\\nsecond line%0Ahelp: use: this,%0Athat\n"
        );
    }

    #[test]
    fn related_locations_are_listed_in_the_message() {
        let finding = Finding::new(
            &rules::DUPLICATE_OBJECT,
            location("b.yaml", 1, 1, 1, 5),
            "defined twice",
        )
        .with_related(Related {
            location: location("a.yaml", 3, 2, 3, 6),
            message: "first defined here".into(),
        });
        let text = report(&Report {
            findings: vec![finding],
            ..Report::default()
        });
        assert!(
            text.ends_with("::defined twice%0Aa.yaml:3:2: first defined here\n"),
            "{text}"
        );
    }

    #[test]
    fn placeholder_sources_have_no_file() {
        let finding = Finding::new(&rules::YAML_SYNTAX, location("<stdin>", 2, 1, 2, 3), "bad");
        let text = report(&Report {
            findings: vec![finding],
            ..Report::default()
        });
        assert_eq!(text, "::error title=KV0001 yaml-syntax::<stdin>: bad\n");
    }

    #[test]
    fn most_severe_first_at_most_ten_of_each() {
        let mut findings = Vec::new();
        for line in 1..=12 {
            findings.push(at_line(&rules::MACHINE_TYPE_DEFAULTED, line));
        }
        for line in 13..=25 {
            findings.push(at_line(&rules::DEPRECATED_RUNNING, line));
        }
        for line in 26..=28 {
            findings.push(at_line(&rules::YAML_SYNTAX, line));
        }
        let text = report(&Report {
            findings,
            ..Report::default()
        });
        let lines: Vec<&str> = text.lines().collect();
        // The closing notice takes the tenth notice slot.
        assert_eq!(lines.len(), 3 + 10 + 9 + 1);
        assert!(lines[..3].iter().all(|l| l.starts_with("::error ")));
        assert!(lines[0].ends_with("::line 26"), "{}", lines[0]);
        assert!(lines[2].ends_with("::line 28"));
        assert!(lines[3..13].iter().all(|l| l.starts_with("::warning ")));
        assert!(lines[3].ends_with("::line 13"));
        assert!(lines[12].ends_with("::line 22"));
        assert!(
            lines[13..22]
                .iter()
                .all(|l| l.starts_with("::notice file="))
        );
        assert!(lines[13].ends_with("::line 1"));
        assert!(lines[21].ends_with("::line 9"));
        // 3 warnings and 3 infos were left out.
        assert_eq!(
            lines[22],
            "::notice title=kvlint::6 more findings not shown as annotations; see the step summary"
        );
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("::notice")).count(),
            10
        );
    }

    #[test]
    fn notes_take_no_slot() {
        let findings = (1..=11)
            .map(|line| at_line(&rules::SKIPPED_FILE, line))
            .collect();
        assert_eq!(
            report(&Report {
                findings,
                ..Report::default()
            }),
            ""
        );
    }

    #[test]
    fn absolute_names_in_the_workspace_are_relative() {
        let base = super::super::workspace::Base::new(
            std::path::Path::new("/home/runner/work/vms/vms"),
            None,
            std::path::Path::new("/home/runner/work/vms/vms"),
            true,
        );
        let context = Context {
            base: Some(base),
            changed: ["apps/b.yaml".to_owned()].into(),
        };
        let findings = vec![
            Finding::new(
                &rules::YAML_SYNTAX,
                location("/home/runner/work/vms/vms/apps/a.yaml", 1, 1, 1, 2),
                "a",
            ),
            Finding::new(
                &rules::DEPRECATED_RUNNING,
                location("/home/runner/work/vms/vms/apps/b.yaml", 2, 1, 2, 2),
                "b",
            )
            .with_related(Related {
                location: location("/home/runner/work/vms/vms/apps/a.yaml", 3, 2, 3, 6),
                message: "there".into(),
            }),
        ];
        let text = annotations(
            &Report {
                findings,
                ..Report::default()
            },
            &context,
        );
        assert_eq!(
            text,
            "::warning file=apps/b.yaml,line=2,col=1,endLine=2,endColumn=1,title=KV0016 deprecated-running::b%0Aapps/a.yaml:3:2: there\n\
             ::error file=apps/a.yaml,line=1,col=1,endLine=1,endColumn=1,title=KV0001 yaml-syntax::a\n"
        );
    }

    #[test]
    fn no_closing_notice_when_everything_fits() {
        let findings = (1..=10)
            .map(|line| at_line(&rules::YAML_SYNTAX, line))
            .collect();
        let text = report(&Report {
            findings,
            ..Report::default()
        });
        assert_eq!(text.lines().count(), 10);
        assert!(!text.contains("more findings"));
        assert_eq!(report(&Report::default()), "");
    }
}
