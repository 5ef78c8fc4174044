//! `--format junit`: JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure
//! Pipelines, ...).
//!
//! One `<testsuite name="kvlint">`. Each object that has findings, and each VM, is a
//! `<testcase>` (classname: the file; name: `Kind namespace/name`); every error or warning is a
//! `<failure>` of it, infos go to its `<system-out>`. A finding about a file rather than an
//! object (a YAML syntax error, a skipped file) is a test case of its own.
//!
//! Characters XML cannot hold become U+FFFD; DEL, C1 controls and bidirectional overrides are
//! written as character references, and so are the `:` and `#` that would make a line a GitHub
//! workflow command (CI systems print the report in their logs). A parser reads the same text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::check::Report;
use crate::diag::{Finding, Severity};
use crate::rules::explain::rule_url;
use crate::sanitize::{is_hidden_control, workflow};

use super::markdown::object_label;

/// Whether XML 1.0 allows the character at all (even as a character reference).
fn is_xml_char(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r')
        || ('\u{20}'..='\u{D7FF}').contains(&ch)
        || ('\u{E000}'..='\u{FFFD}').contains(&ch)
        || ch >= '\u{10000}'
}

/// Escapes character data; characters XML cannot hold become U+FFFD.
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A parser would read a raw one as a line feed.
            '\r' => out.push_str("&#13;"),
            ch => push_char(&mut out, ch),
        }
    }
    out
}

/// A character of text or an attribute value: hidden ones as references.
fn push_char(out: &mut String, ch: char) {
    if !is_xml_char(ch) {
        out.push('\u{FFFD}');
    } else if is_hidden_control(ch) && !matches!(ch, '\t' | '\n' | '\r') {
        let _ = write!(out, "&#x{:x};", u32::from(ch));
    } else {
        out.push(ch);
    }
}

/// The document with every line a GitHub runner would execute broken by a character reference.
fn guard_lines(xml: String) -> String {
    workflow::rewrite_commands(&xml, |ch| match ch {
        ':' => "&#58;",
        _ => "&#35;",
    })
    .unwrap_or(xml)
}

/// Escapes an attribute value; line breaks and tabs are kept as character references, which
/// attribute-value normalisation would otherwise turn into spaces.
fn escape_attr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            ch => push_char(&mut out, ch),
        }
    }
    out
}

/// `file:line:col: severity[CODE] message`, then the help, the related places and the rule's
/// documentation, one per line.
fn describe(finding: &Finding) -> String {
    let start = finding.location.span.start;
    let mut text = format!(
        "{}:{}:{}: {}[{}] {}",
        finding.location.file,
        start.line,
        start.column,
        finding.severity,
        finding.rule.code,
        finding.message
    );
    if let Some(help) = &finding.help {
        let _ = write!(text, "\nhelp: {}", help.trim_end());
    }
    for related in &finding.related {
        let start = related.location.span.start;
        let _ = write!(
            text,
            "\n{}:{}:{}: {}",
            related.location.file, start.line, start.column, related.message
        );
    }
    let _ = write!(text, "\nsee: {}", rule_url(finding.rule));
    text
}

struct Case<'a> {
    classname: String,
    name: String,
    line: u32,
    findings: Vec<&'a Finding>,
}

impl Case<'_> {
    fn fails(&self) -> bool {
        self.findings.iter().any(|f| f.severity != Severity::Info)
    }
}

fn cases(report: &Report) -> Vec<Case<'_>> {
    // Objects by (file, `Kind namespace/name`); file-level findings each on their own.
    let mut objects: BTreeMap<(String, String), Case<'_>> = BTreeMap::new();
    let mut files: Vec<Case<'_>> = Vec::new();
    for rendered in &report.rendered {
        let kind = rendered
            .value
            .get("kind")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("VirtualMachine");
        let name = if rendered.namespace.is_empty() {
            format!("{kind} {}", rendered.name)
        } else {
            format!("{kind} {}/{}", rendered.namespace, rendered.name)
        };
        let key = (rendered.file.to_string(), name.clone());
        objects.entry(key).or_insert_with(|| Case {
            classname: rendered.file.to_string(),
            name,
            line: rendered.line,
            findings: Vec::new(),
        });
    }
    for finding in &report.findings {
        let file = finding.location.file.to_string();
        let line = finding.location.span.start.line;
        if let Some(object) = &finding.object {
            let name = object_label(object);
            let case = objects
                .entry((file.clone(), name.clone()))
                .or_insert_with(|| Case {
                    classname: file,
                    name,
                    line,
                    findings: Vec::new(),
                });
            case.line = case.line.min(line);
            case.findings.push(finding);
        } else {
            let name = if line == 0 {
                format!("{} {}", finding.rule.code, finding.rule.name)
            } else {
                format!("{} {} at line {line}", finding.rule.code, finding.rule.name)
            };
            files.push(Case {
                classname: file,
                name,
                line,
                findings: vec![finding],
            });
        }
    }
    let mut all: Vec<Case<'_>> = objects.into_values().chain(files).collect();
    all.sort_by(|a, b| (&a.classname, a.line, &a.name).cmp(&(&b.classname, b.line, &b.name)));
    all
}

/// The report as JUnit XML, newline-terminated.
pub fn report(report: &Report) -> String {
    let cases = cases(report);
    let tests = cases.len();
    let failures = cases.iter().filter(|c| c.fails()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"kvlint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"kvlint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    for case in &cases {
        let open = format!(
            "    <testcase classname=\"{}\" name=\"{}\"",
            escape_attr(&case.classname),
            escape_attr(&case.name)
        );
        if case.findings.is_empty() {
            let _ = writeln!(out, "{open}/>");
            continue;
        }
        let _ = writeln!(out, "{open}>");
        for finding in case
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
        {
            let _ = writeln!(
                out,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                escape_attr(&finding.message),
                escape_attr(finding.rule.code),
                escape_text(&describe(finding))
            );
        }
        let infos: Vec<String> = case
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Info)
            .map(|f| describe(f))
            .collect();
        if !infos.is_empty() {
            let _ = writeln!(
                out,
                "      <system-out>{}</system-out>",
                escape_text(&infos.join("\n"))
            );
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    guard_lines(out)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::check::vm::Rendered;
    use crate::diag::{Location, ObjectRef, Related};
    use crate::rules;

    fn location(file: &str, line: u32, column: u32) -> Location {
        Location::lines(Arc::from(file), (line, column), (line, column + 4))
    }

    fn vm(name: &str) -> ObjectRef {
        ObjectRef {
            api_version: "kubevirt.io/v1".into(),
            kind: "VirtualMachine".into(),
            namespace: Some("db".into()),
            name: name.into(),
        }
    }

    fn rendered(file: &str, name: &str, line: u32) -> Rendered {
        Rendered {
            namespace: "db".into(),
            name: name.into(),
            file: Arc::from(file),
            line,
            value: json!({"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine"}),
            origins: Vec::new(),
            unit: None,
            pool: None,
        }
    }

    #[test]
    fn empty_report_is_an_empty_suite() {
        assert_eq!(
            report(&Report::default()),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"kvlint\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n  \
             <testsuite name=\"kvlint\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n  \
             </testsuite>\n</testsuites>\n"
        );
    }

    #[test]
    fn cases_per_object_and_per_file_finding() {
        let report_ = Report {
            findings: vec![
                Finding::new(
                    &rules::SKIPPED_FILE,
                    location("a.yaml", 1, 1),
                    "not a manifest",
                ),
                Finding::new(
                    &rules::INSTANCETYPE_CONFLICT,
                    location("vm.yaml", 17, 11),
                    "conflicts",
                )
                .with_object(Some(vm("postgres")))
                .with_help("remove it")
                .with_related(Related {
                    location: location("it.yaml", 8, 5),
                    message: "set here".into(),
                }),
                Finding::new(
                    &rules::CATALOG_CONTENT_APPROXIMATED,
                    location("vm.yaml", 20, 3),
                    "approximated",
                )
                .with_object(Some(vm("postgres"))),
            ],
            rendered: vec![
                rendered("vm.yaml", "postgres", 1),
                rendered("web.yaml", "web", 1),
            ],
            ..Report::default()
        };
        let text = report(&report_);
        let url = rule_url(&rules::INSTANCETYPE_CONFLICT);
        let info_url = rule_url(&rules::CATALOG_CONTENT_APPROXIMATED);
        let skipped_url = rule_url(&rules::SKIPPED_FILE);
        let expected = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <testsuites name=\"kvlint\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\">\n  \
             <testsuite name=\"kvlint\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\">\n    \
             <testcase classname=\"a.yaml\" name=\"KV0006 not-a-manifest at line 1\">\n      \
             <system-out>a.yaml:1:1: info[KV0006] not a manifest\nsee: {skipped_url}</system-out>\n    \
             </testcase>\n    \
             <testcase classname=\"vm.yaml\" name=\"VirtualMachine db/postgres\">\n      \
             <failure message=\"conflicts\" type=\"KV1001\">vm.yaml:17:11: error[KV1001] conflicts\nhelp: remove it\nit.yaml:8:5: set here\nsee: {url}</failure>\n      \
             <system-out>vm.yaml:20:3: info[KV2003] approximated\nsee: {info_url}</system-out>\n    \
             </testcase>\n    \
             <testcase classname=\"web.yaml\" name=\"VirtualMachine db/web\"/>\n  \
             </testsuite>\n</testsuites>\n"
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn one_failure_per_error_or_warning() {
        let report_ = Report {
            findings: vec![
                Finding::new(&rules::DEPRECATED_RUNNING, location("vm.yaml", 5, 3), "w")
                    .with_object(Some(vm("a"))),
                Finding::new(
                    &rules::INSTANCETYPE_CONFLICT,
                    location("vm.yaml", 9, 3),
                    "e",
                )
                .with_object(Some(vm("a"))),
                Finding::new(
                    &rules::INSTANCETYPE_CONFLICT,
                    location("vm.yaml", 30, 3),
                    "e",
                )
                .with_object(Some(vm("b"))),
            ],
            ..Report::default()
        };
        let text = report(&report_);
        assert_eq!(text.matches("<failure ").count(), 3);
        assert_eq!(text.matches("<testcase ").count(), 2);
        assert!(text.contains("tests=\"2\" failures=\"2\""));
        assert!(text.contains("type=\"KV0016\""));
    }

    #[test]
    fn escapes_xml() {
        assert_eq!(
            escape_text("a < b && c > d"),
            "a &lt; b &amp;&amp; c &gt; d"
        );
        assert_eq!(escape_text("bell\u{7}"), "bell\u{FFFD}");
        assert_eq!(
            escape_attr("say \"hi\" & 'bye'\n<x>\t"),
            "say &quot;hi&quot; &amp; &apos;bye&apos;&#10;&lt;x&gt;&#9;"
        );
        let report_ = Report {
            findings: vec![Finding::new(
                &rules::YAML_SYNTAX,
                location("<stdin>", 2, 1),
                "expected ']' but found \"<\" & more",
            )],
            ..Report::default()
        };
        let text = report(&report_);
        assert!(text.contains(
            "<testcase classname=\"&lt;stdin&gt;\" name=\"KV0001 yaml-syntax at line 2\">"
        ));
        assert!(text.contains(
            "<failure message=\"expected &apos;]&apos; but found &quot;&lt;&quot; &amp; more\" type=\"KV0001\">&lt;stdin&gt;:2:1: error[KV0001] expected ']' but found \"&lt;\" &amp; more\n"
        ), "{text}");
    }
}
