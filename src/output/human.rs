//! `--format human` (miette-style reports with source snippets) and `--format concise`.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use crate::check::Report;
use crate::diag::{Finding, Location, Severity};

/// Byte offset of a 1-based line and character column in `text`.
fn byte_offset(text: &str, line: u32, column: u32) -> usize {
    let mut offset = 0;
    for _ in 1..line {
        match text[offset..].find('\n') {
            Some(i) => offset += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[offset..];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let within = rest[..line_end]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(line_end, |(i, _)| i);
    offset + within
}

fn byte_range(text: &str, location: &Location) -> (usize, usize) {
    let span = location.span;
    let start = byte_offset(text, span.start.line, span.start.column);
    let end = byte_offset(text, span.end.line, span.end.column).max(start);
    (start, end)
}

struct HumanDiagnostic {
    message: String,
    code: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Option<NamedSource<Arc<str>>>,
    labels: Vec<LabeledSpan>,
    related: Vec<HumanDiagnostic>,
}

impl fmt::Debug for HumanDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for HumanDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HumanDiagnostic {}

impl Diagnostic for HumanDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.code.is_empty()).then(|| Box::new(&self.code) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        (!self.labels.is_empty())
            .then(|| Box::new(self.labels.iter().cloned()) as Box<dyn Iterator<Item = LabeledSpan>>)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        (!self.related.is_empty()).then(|| {
            Box::new(self.related.iter().map(|d| d as &dyn Diagnostic))
                as Box<dyn Iterator<Item = &dyn Diagnostic>>
        })
    }
}

fn miette_severity(severity: Severity) -> miette::Severity {
    match severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

fn to_diagnostic(finding: &Finding, sources: &HashMap<&str, &Arc<str>>) -> HumanDiagnostic {
    let source = sources.get(&*finding.location.file).copied();
    let label_text = finding.path.clone().unwrap_or_default();
    let mut labels = Vec::new();
    if let Some(text) = source {
        let (start, end) = byte_range(text, &finding.location);
        labels.push(LabeledSpan::new_primary_with_span(
            (!label_text.is_empty()).then_some(label_text),
            (start, end - start),
        ));
    }
    let mut related = Vec::new();
    for item in &finding.related {
        let related_source = sources.get(&*item.location.file).copied();
        let Some(text) = related_source else {
            continue;
        };
        let (start, end) = byte_range(text, &item.location);
        let label = LabeledSpan::new_with_span(Some(item.message.clone()), (start, end - start));
        if item.location.file == finding.location.file && source.is_some() {
            labels.push(label);
        } else {
            related.push(HumanDiagnostic {
                message: item.message.clone(),
                code: String::new(),
                severity: miette::Severity::Advice,
                help: None,
                source: Some(NamedSource::new(&*item.location.file, Arc::clone(text))),
                labels: vec![label],
                related: Vec::new(),
            });
        }
    }
    let position = format!(
        "{}:{}:{}",
        finding.location.file, finding.location.span.start.line, finding.location.span.start.column
    );
    HumanDiagnostic {
        message: if source.is_some() {
            finding.message.clone()
        } else {
            format!("{position}: {}", finding.message)
        },
        code: format!("{}({})", finding.rule.code, finding.rule.name),
        severity: miette_severity(finding.severity),
        help: finding.help.clone(),
        source: source.map(|text| NamedSource::new(&*finding.location.file, Arc::clone(text))),
        labels,
        related,
    }
}

/// Human report: one snippet per finding, then a summary line.
pub fn report(report: &Report, color: bool, width: usize) -> String {
    let sources: HashMap<&str, &Arc<str>> = report
        .sources
        .iter()
        .map(|(name, text)| (&**name, text))
        .collect();
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_links(false)
        .with_show_related_as_nested(true);
    let mut out = String::new();
    for finding in &report.findings {
        // Informational findings (skipped files and the like) stay on one line each.
        if finding.severity == Severity::Info {
            let _ = writeln!(out, "{}", concise_line(finding));
            continue;
        }
        let diagnostic = to_diagnostic(finding, &sources);
        if handler.render_report(&mut out, &diagnostic).is_err() {
            let _ = writeln!(out, "{}", concise_line(finding));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out
}

fn concise_line(finding: &Finding) -> String {
    let start = finding.location.span.start;
    format!(
        "{}:{}:{}: {}[{}] {}",
        finding.location.file,
        start.line,
        start.column,
        finding.severity,
        finding.rule.code,
        finding.message
    )
}

/// One line per finding, then the summary.
pub fn concise(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        out.push_str(&concise_line(finding));
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out
}

fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    format!(
        "{} files, {} objects, {} VMs ({} rendered): {} errors, {} warnings, {} infos\n",
        s.files, s.objects, s.vms, s.rendered, s.errors, s.warnings, s.infos
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_follow_characters() {
        let text = "ab\nné: x\n";
        assert_eq!(byte_offset(text, 2, 1), 3);
        assert_eq!(byte_offset(text, 2, 3), 6);
        assert_eq!(byte_offset(text, 2, 5), 8);
        assert_eq!(byte_offset(text, 9, 1), text.len());
    }
}
