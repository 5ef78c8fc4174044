//! `--format json`: `{"version": 1, "diagnostics": [...], "summary": {...}}`.

use std::io::Write as _;

use serde::Serialize;

use crate::check::{Report, Summary};
use crate::diag::{Category, Finding, Instance, ObjectRef, Severity, UnitRef};
use crate::sanitize;

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
    /// For predicted drift only: `sync-breaking`, `out-of-sync` or `cluster-default`.
    #[serde(skip_serializing_if = "Option::is_none")]
    drift: Option<&'static str>,
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
    /// The unit the object was rendered in (absent for files checked as written).
    #[serde(skip_serializing_if = "Option::is_none")]
    unit: Option<&'a UnitRef>,
    /// Every rendered object of a finding several units report alike.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    instances: &'a [Instance],
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
        drift: finding
            .drift
            .map(crate::controller::drift::DriftKind::as_str),
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
        url: crate::rules::explain::rule_url(finding.rule),
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
        unit: finding.unit.as_deref(),
        instances: &finding.instances,
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
    sanitize::json::guard_owned(text)
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
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        write_diagnostic(&mut buffer, &diagnostic(finding), "    ");
        match std::str::from_utf8(&buffer).map(sanitize::json::guard) {
            Ok(std::borrow::Cow::Owned(guarded)) => self.write(guarded.as_bytes()),
            _ => self.write(&buffer),
        }
        self.buffer = buffer;
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

/// Writes `diagnostic` as `serde_json::to_writer_pretty` does, every line after the first
/// indented by `indent`. Reports of large repositories are mostly diagnostics, and serde_json
/// escapes strings a byte at a time; this writer copies strings that need no escape whole.
fn write_diagnostic(out: &mut Vec<u8>, d: &JsonDiagnostic<'_>, indent: &str) {
    let mut object = PrettyObject::open(out, indent, 1);
    object.string("code", d.code);
    object.string("name", d.name);
    object.string("category", d.category.as_str());
    if let Some(kind) = d.drift {
        object.string("drift", kind);
    }
    object.string("severity", d.severity.as_str());
    object.string("message", d.message);
    object.location(d.file, [d.line, d.column, d.end_line, d.end_column]);
    match d.object {
        None => object.raw("object", "null"),
        Some(reference) => {
            let out = object.key("object");
            let mut inner = PrettyObject::open(out, indent, 2);
            inner.string("apiVersion", &reference.api_version);
            inner.string("kind", &reference.kind);
            inner.optional_string("namespace", reference.namespace.as_deref());
            inner.string("name", &reference.name);
            inner.close();
        }
    }
    object.optional_string("path", d.path);
    object.optional_string("kubevirt_field", d.kubevirt_field);
    object.optional_string("help", d.help);
    object.string("url", &d.url);
    if d.related.is_empty() {
        object.raw("related", "[]");
    } else {
        let out = object.key("related");
        out.push(b'[');
        for (i, related) in d.related.iter().enumerate() {
            out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
            push_indent(out, indent, 2);
            let mut inner = PrettyObject::open(out, indent, 3);
            inner.location(
                related.file,
                [
                    related.line,
                    related.column,
                    related.end_line,
                    related.end_column,
                ],
            );
            inner.string("message", related.message);
            inner.close();
        }
        out.push(b'\n');
        push_indent(out, indent, 1);
        out.push(b']');
    }
    if let Some(unit) = d.unit {
        nested(object.key("unit"), unit, indent, 1);
    }
    if !d.instances.is_empty() {
        nested(object.key("instances"), &d.instances, indent, 1);
    }
    object.close();
}

/// Writes `value` as serde_json's pretty printer writes it nested `depth` levels deep.
fn nested(out: &mut Vec<u8>, value: &impl Serialize, indent: &str, depth: usize) {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
            push_indent(out, indent, depth);
        }
        out.extend_from_slice(line.as_bytes());
    }
}

/// A JSON object written as serde_json's pretty printer writes it (two spaces per level).
struct PrettyObject<'o> {
    out: &'o mut Vec<u8>,
    indent: &'o str,
    depth: usize,
    empty: bool,
}

impl<'o> PrettyObject<'o> {
    fn open(out: &'o mut Vec<u8>, indent: &'o str, depth: usize) -> Self {
        out.push(b'{');
        Self {
            out,
            indent,
            depth,
            empty: true,
        }
    }

    fn key(&mut self, key: &str) -> &mut Vec<u8> {
        self.out
            .extend_from_slice(if self.empty { b"\n" } else { b",\n" });
        self.empty = false;
        push_indent(self.out, self.indent, self.depth);
        push_json_string(self.out, key);
        self.out.extend_from_slice(b": ");
        self.out
    }

    fn raw(&mut self, key: &str, text: &str) {
        self.key(key).extend_from_slice(text.as_bytes());
    }

    fn string(&mut self, key: &str, value: &str) {
        push_json_string(self.key(key), value);
    }

    fn optional_string(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(value) => self.string(key, value),
            None => self.raw(key, "null"),
        }
    }

    fn number(&mut self, key: &str, value: u32) {
        let out = self.key(key);
        let _ = write!(out, "{value}");
    }

    /// `file`, `line`, `column`, `end_line` and `end_column`, as every location is written.
    fn location(&mut self, file: &str, [line, column, end_line, end_column]: [u32; 4]) {
        self.string("file", file);
        self.number("line", line);
        self.number("column", column);
        self.number("end_line", end_line);
        self.number("end_column", end_column);
    }

    fn close(self) {
        if !self.empty {
            self.out.push(b'\n');
            push_indent(self.out, self.indent, self.depth - 1);
        }
        self.out.push(b'}');
    }
}

fn push_indent(out: &mut Vec<u8>, indent: &str, depth: usize) {
    out.extend_from_slice(indent.as_bytes());
    for _ in 0..depth {
        out.extend_from_slice(b"  ");
    }
}

/// Whether JSON needs `byte` escaped: quotes, backslashes and control characters (serde_json
/// leaves DEL and non-ASCII as they are).
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// `text` as a JSON string, escaped byte for byte as serde_json escapes it.
fn push_json_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.push(b'"');
    // Sixteen bytes at a time without an early exit, so the test compiles to vector compares.
    let clean = bytes
        .chunks(16)
        .all(|chunk| !chunk.iter().fold(false, |hit, &b| hit | needs_escape(b)));
    if clean {
        out.extend_from_slice(bytes);
    } else {
        let mut start = 0;
        for (i, &byte) in bytes.iter().enumerate() {
            if !needs_escape(byte) {
                continue;
            }
            out.extend_from_slice(&bytes[start..i]);
            start = i + 1;
            match byte {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                _ => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[usize::from(byte >> 4)]);
                    out.push(HEX[usize::from(byte & 0xf)]);
                }
            }
        }
        out.extend_from_slice(&bytes[start..]);
    }
    out.push(b'"');
}

impl<W: std::io::Write> crate::check::Sink for JsonStream<W> {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), crate::error::Error> {
        for finding in &findings {
            self.push(finding);
        }
        Ok(())
    }

    fn rendered(&mut self, _rendered: crate::check::vm::Rendered) {}
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

    /// serde_json's pretty output of `value`, every line after the first indented by `indent`.
    fn serde_nested(value: &impl Serialize, indent: &str) -> String {
        serde_json::to_string_pretty(value)
            .unwrap()
            .replace('\n', &format!("\n{indent}"))
    }

    #[test]
    fn diagnostics_are_written_as_serde_json_writes_them() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let awkward = [
            String::new(),
            every_ascii,
            "quotes \" and \\ backslashes, é, 漢字, 🦀 and \u{7f}".to_owned(),
            "sixteen bytes ok\"then more".to_owned(),
            "only a\nnewline".to_owned(),
            "only a \\ backslash".to_owned(),
            "\u{1}".to_owned(),
        ];
        let file: Arc<str> = Arc::from("dir/a \"b\".yaml");
        let location = Location::lines(Arc::clone(&file), (3, 1), (4, 12));
        let mut findings = Vec::new();
        for (i, text) in awkward.iter().enumerate() {
            let rule = rules::ALL[i * 7 % rules::ALL.len()];
            let mut finding = Finding::new(rule, location.clone(), text.clone());
            if i % 2 == 0 {
                finding = finding
                    .with_path(text.clone())
                    .with_kubevirt_field("spec.template")
                    .with_help(text.clone())
                    .with_object(Some(ObjectRef {
                        api_version: "kubevirt.io/v1".to_owned(),
                        kind: "VirtualMachine".to_owned(),
                        namespace: (i == 0).then(|| text.clone()),
                        name: text.clone(),
                    }));
            }
            if i % 3 == 1 {
                finding.drift = Some(crate::rules::DriftKind::OutOfSync);
            }
            for _ in 0..i {
                finding = finding.with_related(Related {
                    location: location.clone(),
                    message: text.clone(),
                });
            }
            findings.push(
                finding.with_severity([Severity::Info, Severity::Warning, Severity::Error][i % 3]),
            );
        }
        for finding in &findings {
            let mut written = Vec::new();
            write_diagnostic(&mut written, &diagnostic(finding), "    ");
            assert_eq!(
                String::from_utf8(written).unwrap(),
                serde_nested(&diagnostic(finding), "    ")
            );
        }
    }

    #[test]
    fn categories_and_severities_are_named_as_serde_names_them() {
        for rule in rules::ALL {
            let category = rule.category;
            assert_eq!(serde_json::to_value(category).unwrap(), category.as_str());
        }
        for severity in [Severity::Info, Severity::Warning, Severity::Error] {
            assert_eq!(serde_json::to_value(severity).unwrap(), severity.as_str());
        }
    }
}
