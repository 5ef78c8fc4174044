//! `--format json`: `{"version": 1, "diagnostics": [...], "summary": {...}}`.

use serde::Serialize;

use crate::check::{Report, Summary};
use crate::diag::{Category, Finding, ObjectRef, Severity};

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    category: Category,
    severity: Severity,
    message: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    object: Option<&'a ObjectRef>,
    path: Option<&'a str>,
    kubevirt_field: Option<&'a str>,
    help: Option<&'a str>,
    url: String,
    related: Vec<JsonRelated<'a>>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: &'a Summary,
}

fn diagnostic(finding: &Finding) -> JsonDiagnostic<'_> {
    let span = finding.location.span;
    JsonDiagnostic {
        code: finding.rule.code,
        name: finding.rule.name,
        category: finding.rule.category,
        severity: finding.severity,
        message: &finding.message,
        file: &finding.location.file,
        line: span.start.line,
        column: span.start.column,
        end_line: span.end.line,
        end_column: span.end.column,
        object: finding.object.as_ref(),
        path: finding.path.as_deref(),
        kubevirt_field: finding.kubevirt_field.as_deref(),
        help: finding.help.as_deref(),
        url: crate::docs::rule_url(finding.rule),
        related: finding
            .related
            .iter()
            .map(|r| JsonRelated {
                file: &r.location.file,
                line: r.location.span.start.line,
                column: r.location.span.start.column,
                end_line: r.location.span.end.line,
                end_column: r.location.span.end.column,
                message: &r.message,
            })
            .collect(),
    }
}

/// The report as pretty-printed JSON, newline-terminated.
pub fn report(report: &Report) -> String {
    let json = JsonReport {
        version: 1,
        diagnostics: report.findings.iter().map(diagnostic).collect(),
        summary: &report.summary,
    };
    let mut text = serde_json::to_string_pretty(&json)
        .unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"));
    text.push('\n');
    text
}
