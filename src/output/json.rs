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

/// Writes the JSON report while the check runs, a finding at a time, byte for byte as
/// [`report`] writes it: the report of a large repository is never held in memory.
pub struct JsonStream<W: std::io::Write> {
    out: W,
    empty: bool,
    buffer: Vec<u8>,
    failed: Option<std::io::Error>,
}

impl<W: std::io::Write> JsonStream<W> {
    pub fn new(out: W) -> Self {
        let mut stream = Self {
            out,
            empty: true,
            buffer: Vec::new(),
            failed: None,
        };
        stream.write(b"{\n  \"version\": 1,\n  \"diagnostics\": [");
        stream
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.failed.is_none()
            && let Err(err) = self.out.write_all(bytes)
        {
            self.failed = Some(err);
        }
    }

    /// Writes `value` pretty-printed, every line after the first indented by `indent`.
    fn write_nested(&mut self, value: &impl Serialize, indent: &[u8]) {
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        if let Err(err) = serde_json::to_writer_pretty(&mut buffer, value) {
            self.failed.get_or_insert(std::io::Error::other(err));
        }
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', &buffer) {
            self.write(&buffer[start..=newline]);
            self.write(indent);
            start = newline + 1;
        }
        self.write(&buffer[start..]);
        self.buffer = buffer;
    }

    pub fn push(&mut self, finding: &Finding) {
        self.write(if self.empty { b"\n    " } else { b",\n    " });
        self.empty = false;
        self.write_nested(&diagnostic(finding), b"    ");
    }

    /// Ends the report with its summary and flushes it.
    pub fn finish(mut self, summary: &Summary) -> std::io::Result<W> {
        self.write(if self.empty {
            b"],\n  \"summary\": "
        } else {
            b"\n  ],\n  \"summary\": "
        });
        self.write_nested(summary, b"  ");
        self.write(b"\n}\n");
        if self.failed.is_none()
            && let Err(err) = self.out.flush()
        {
            self.failed = Some(err);
        }
        match self.failed {
            Some(err) => Err(err),
            None => Ok(self.out),
        }
    }
}

impl<W: std::io::Write> crate::check::Sink for JsonStream<W> {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), crate::error::Error> {
        for finding in &findings {
            self.push(finding);
        }
        Ok(())
    }

    fn rendered(&mut self, _rendered: crate::analyze::Rendered) {}
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::{Location, Related};
    use crate::rules;

    fn streamed(report_: &Report) -> String {
        let mut stream = JsonStream::new(Vec::new());
        for finding in &report_.findings {
            stream.push(finding);
        }
        String::from_utf8(stream.finish(&report_.summary).unwrap()).unwrap()
    }

    #[test]
    fn streaming_writes_the_same_bytes() {
        let file: Arc<str> = Arc::from("a.yaml");
        let location = Location::lines(Arc::clone(&file), (1, 1), (1, 5));
        let finding = Finding::new(
            &rules::DUPLICATE_KEY,
            location.clone(),
            "two \"keys\"\nhere",
        )
        .with_path("spec.template")
        .with_related(Related {
            location,
            message: "first".to_owned(),
        });
        let mut report_ = Report::default();
        assert_eq!(streamed(&report_), report(&report_));
        report_.findings = vec![finding.clone(), finding];
        report_.summary.errors = 2;
        assert_eq!(streamed(&report_), report(&report_));
    }
}
