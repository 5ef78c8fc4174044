//! `--format human` (miette-style reports with source snippets) and `--format concise`.
//!
//! Manifest text goes through [`terminal`]: names, messages and paths on one line,
//! help and source snippets with their line breaks, and the finished report through
//! [`terminal::guard_lines`].

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use crate::check::Report;
use crate::diag::{Finding, Location, Severity};
use crate::output::group::{self, Defaults, Item};
use crate::sanitize::terminal;

/// Byte offset of a 1-based line and character column in `text`, lines ending as YAML ends
/// them (`\n`, `\r\n` or a lone `\r`).
fn byte_offset(text: &str, line: u32, column: u32) -> usize {
    let mut offset = 0;
    for _ in 1..line {
        match text[offset..].find(['\n', '\r']) {
            Some(i) if text[offset + i..].starts_with("\r\n") => offset += i + 2,
            Some(i) => offset += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[offset..];
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let within = rest[..line_end]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(line_end, |(i, _)| i);
    offset + within
}

/// A source file as the snippets show it: control characters escaped.
struct Snippet<'a> {
    original: &'a str,
    escaped: terminal::EscapedSource<'a>,
    shown: Arc<str>,
}

impl<'a> Snippet<'a> {
    fn new(original: &'a Arc<str>) -> Self {
        let escaped = terminal::EscapedSource::new(original);
        let shown = match &escaped.text {
            std::borrow::Cow::Borrowed(_) => Arc::clone(original),
            std::borrow::Cow::Owned(text) => Arc::from(text.as_str()),
        };
        Self {
            original,
            escaped,
            shown,
        }
    }

    /// The span of `location` in the shown text, as `(offset, length)`.
    fn span(&self, location: &Location) -> (usize, usize) {
        let span = location.span;
        let start = byte_offset(self.original, span.start.line, span.start.column);
        let end = byte_offset(self.original, span.end.line, span.end.column).max(start);
        let (start, end) = (self.escaped.offset(start), self.escaped.offset(end));
        (start, end - start)
    }

    fn named(&self, file: &str) -> NamedSource<Arc<str>> {
        NamedSource::new(terminal::line(file), Arc::clone(&self.shown))
    }
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

fn to_diagnostic(finding: &Finding, sources: &HashMap<&str, Snippet<'_>>) -> HumanDiagnostic {
    let file = &*finding.location.file;
    let source = sources.get(file);
    let label_text = terminal::line(finding.path.as_deref().unwrap_or_default()).into_owned();
    let mut labels = Vec::new();
    if let Some(snippet) = source {
        labels.push(LabeledSpan::new_primary_with_span(
            (!label_text.is_empty()).then_some(label_text),
            snippet.span(&finding.location),
        ));
    }
    // A related place in the same file is labelled in the snippet; one elsewhere is named on
    // one line, `file:line:column`, after the help.
    let mut elsewhere = Vec::new();
    for item in &finding.related {
        let message = terminal::line(&item.message).into_owned();
        match sources.get(&*item.location.file) {
            Some(snippet) if item.location.file == finding.location.file && source.is_some() => {
                labels.push(LabeledSpan::new_with_span(
                    Some(message),
                    snippet.span(&item.location),
                ));
            }
            _ => {
                let start = item.location.span.start;
                elsewhere.push(format!(
                    "{message}: {}:{}:{}",
                    terminal::line(&item.location.file),
                    start.line,
                    start.column
                ));
            }
        }
    }
    let message = terminal::line(&finding.message);
    HumanDiagnostic {
        message: if source.is_some() {
            message.into_owned()
        } else {
            let start = finding.location.span.start;
            format!(
                "{}:{}:{}: {message}",
                terminal::line(file),
                start.line,
                start.column
            )
        },
        code: format!("{}({})", finding.rule.code, finding.rule.name),
        severity: miette_severity(finding.severity),
        help: with_lines(help_with_unit(finding), &elsewhere),
        source: source.map(|snippet| snippet.named(file)),
        labels,
        related: Vec::new(),
    }
}

/// `help` followed by `lines`, one a line.
fn with_lines(help: Option<String>, lines: &[String]) -> Option<String> {
    if lines.is_empty() {
        return help;
    }
    let mut text = help.unwrap_or_default();
    for line in lines {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
    Some(text)
}

/// The finding's help, then where its object was rendered.
fn help_with_unit(finding: &Finding) -> Option<String> {
    let help = finding.help.as_deref().map(terminal::block);
    match (help, finding.unit_note()) {
        (Some(help), Some(note)) => Some(format!("{help}\nnote: {}", terminal::line(&note))),
        (Some(help), None) => Some(help.into_owned()),
        (None, Some(note)) => Some(format!("note: {}", terminal::line(&note))),
        (None, None) => None,
    }
}

/// The sources the findings show, escaped once each.
fn snippets(report: &Report) -> HashMap<&str, Snippet<'_>> {
    let shown: std::collections::HashSet<&str> = report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .flat_map(|f| {
            std::iter::once(&*f.location.file).chain(f.related.iter().map(|r| &*r.location.file))
        })
        .collect();
    report
        .sources
        .iter()
        .filter(|(name, _)| shown.contains(&**name))
        .map(|(name, text)| (&**name, Snippet::new(text)))
        .collect()
}

/// Human report: one snippet per finding, then a summary line.
pub fn report(report: &Report, color: bool, width: usize) -> String {
    let sources = snippets(report);
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
    for item in group::items(&report.findings) {
        let finding = match item {
            Item::Single(finding) => finding,
            Item::Defaults(defaults) => {
                out.push_str(&defaults_block(&defaults));
                continue;
            }
        };
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
    terminal::guard_lines(out)
}

/// A VM's webhook defaults: one line, then the YAML to commit, indented.
fn defaults_block(defaults: &Defaults<'_>) -> String {
    let finding = defaults.as_finding();
    let mut out = line_with_codes(&finding, &defaults.codes());
    out.push('\n');
    if let Some(help) = &finding.help {
        for line in terminal::block(help).lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}

fn concise_line(finding: &Finding) -> String {
    line_with_codes(finding, finding.rule.code)
}

fn line_with_codes(finding: &Finding, codes: &str) -> String {
    let start = finding.location.span.start;
    let mut line = format!(
        "{}:{}:{}: {}[{codes}] {}",
        terminal::line(&finding.location.file),
        start.line,
        start.column,
        finding.severity,
        terminal::line(&finding.message)
    );
    if let Some(note) = finding.unit_note() {
        let _ = write!(line, " ({})", terminal::line(&note));
    }
    line
}

/// One line per finding, then the summary.
pub fn concise(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        out.push_str(&concise_line(finding));
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    terminal::guard_lines(out)
}

/// The closing line of the human and concise reports.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let units = match s.units {
        0 => String::new(),
        n => format!(" in {n} unit{}{}", if n == 1 { "" } else { "s" }, tool(s)),
    };
    format!(
        "{} files, {} objects{units}, {} VMs ({} rendered): {} errors, {} warnings, {} infos\n",
        s.files, s.objects, s.vms, s.rendered, s.errors, s.warnings, s.infos
    )
}

/// The Kustomize that built the run's units, ` (kubectl kustomize v5.5.0)`; empty when none ran
/// (Helm raw-chart releases and Argo CD Directory sources need none).
fn tool(summary: &crate::check::Summary) -> String {
    summary.kustomize.as_ref().map_or_else(String::new, |tool| {
        format!(
            " ({}{})",
            tool.command,
            tool.version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default()
        )
    })
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
