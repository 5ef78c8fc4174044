//! `--format human` (a compact report: one source snippet per position) and `--format concise`.
//!
//! Each problem gets its `file:line:column`, severity, rule code and name and message on one
//! line; the findings at one position share one snippet (the line, with carets under the
//! span); help and related places follow, one `= help:` / `= note:` line each.
//!
//! Manifest text goes through [`terminal`]: names, messages and paths on one line,
//! help and source snippets with their line breaks, and the finished report through
//! [`terminal::guard_lines`].

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::check::Report;
use crate::diag::{Finding, Severity};
use crate::output::group::{self, Defaults, Item};
use crate::output::human_snippet::{self as snippet, GUTTER_DIGITS, Paint, Source};
use crate::sanitize::terminal;

/// Where `= help:` and `= note:` start: under the snippet's `|`.
const NOTE_INDENT: usize = GUTTER_DIGITS + 1;

/// The ANSI colours of the report, or none.
#[derive(Clone, Copy)]
struct Style {
    color: bool,
}

impl Style {
    fn severity(self, severity: Severity) -> &'static str {
        match (self.color, severity) {
            (false, _) => "",
            (true, Severity::Error) => "\x1b[1;31m",
            (true, Severity::Warning) => "\x1b[1;33m",
            (true, Severity::Info) => "\x1b[1;36m",
        }
    }

    fn bold(self) -> &'static str {
        if self.color { "\x1b[1m" } else { "" }
    }

    fn reset(self) -> &'static str {
        if self.color { "\x1b[0m" } else { "" }
    }

    fn paint(self, severity: Severity) -> Paint {
        Paint {
            carets: self.severity(severity),
            gutter: if self.color { "\x1b[34m" } else { "" },
            reset: self.reset(),
        }
    }
}

/// The sources the findings show, escaped once each.
fn sources(report: &Report) -> HashMap<&str, Source<'_>> {
    let shown: std::collections::HashSet<&str> = report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| &*f.location.file)
        .collect();
    report
        .sources
        .iter()
        .filter(|(name, _)| shown.contains(&**name))
        .map(|(name, text)| (&**name, Source::new(text)))
        .collect()
}

/// Human report: the findings at one position under one snippet, then a summary line that
/// counts what the report shows.
pub fn report(report: &Report, color: bool, width: usize) -> String {
    let sources = sources(report);
    let style = Style { color };
    let items = group::report_items(report);
    let mut out = String::new();
    let mut index = 0;
    while index < items.len() {
        let finding = match &items[index] {
            Item::Defaults(defaults) => {
                out.push_str(&defaults_block(defaults));
                index += 1;
                continue;
            }
            Item::Single(finding) => *finding,
        };
        index += 1;
        // Informational findings (skipped files and the like) stay on one line each.
        if finding.severity == Severity::Info {
            let _ = writeln!(out, "{}", concise_line(finding));
            continue;
        }
        let mut here = vec![finding];
        while let Some(Item::Single(next)) = items.get(index)
            && next.severity != Severity::Info
            && same_position(next, finding)
        {
            here.push(next);
            index += 1;
        }
        out.push_str(&position_block(&here, &sources, style, width));
    }
    out.push_str(&shown_summary_line(report, &items));
    terminal::guard_lines(out)
}

fn same_position(a: &Finding, b: &Finding) -> bool {
    a.location.file == b.location.file && a.location.span.start == b.location.span.start
}

/// The findings at one position: a line each, their snippet, then each one's help and related
/// places (tagged with its code when several share the snippet).
fn position_block(
    findings: &[&Finding],
    sources: &HashMap<&str, Source<'_>>,
    style: Style,
    width: usize,
) -> String {
    let mut out = String::new();
    for finding in findings {
        out.push_str(&message_line(finding, style));
        out.push('\n');
    }
    let first = findings[0];
    if let Some(source) = sources.get(&*first.location.file) {
        let mut labels: Vec<String> = Vec::new();
        for finding in findings {
            if let Some(path) = finding.path.as_deref().filter(|p| !p.is_empty())
                && !labels.iter().any(|l| l == path)
            {
                labels.push(path.to_owned());
            }
        }
        out.push_str(&snippet::render(
            source,
            &first.location,
            &labels.join(", "),
            width,
            style.paint(first.severity),
        ));
    }
    for finding in findings {
        let tag = if findings.len() > 1 {
            format!("[{}]", finding.rule.code)
        } else {
            String::new()
        };
        if let Some(help) = &finding.help {
            out.push_str(&snippet::note(
                &format!("help{tag}"),
                &terminal::block(help),
                NOTE_INDENT,
            ));
        }
        for related in &finding.related {
            let start = related.location.span.start;
            let text = format!(
                "{}: {}:{}:{}",
                terminal::line(&related.message),
                snippet::file(&related.location),
                start.line,
                start.column
            );
            out.push_str(&snippet::note(&format!("note{tag}"), &text, NOTE_INDENT));
        }
    }
    out.push('\n');
    out
}

/// `file:line:column: severity[CODE] name: message (where it was rendered)`.
fn message_line(finding: &Finding, style: Style) -> String {
    let start = finding.location.span.start;
    let mut line = format!(
        "{}:{}:{}: {}{}[{}]{} {}{}:{} {}",
        snippet::file(&finding.location),
        start.line,
        start.column,
        style.severity(finding.severity),
        finding.severity,
        finding.rule.code,
        style.reset(),
        style.bold(),
        finding.rule.name,
        style.reset(),
        terminal::line(&finding.message)
    );
    if let Some(note) = finding.unit_note() {
        let _ = write!(line, " ({})", terminal::line(&note));
    }
    line
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
    out.push('\n');
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

/// The closing line of the concise report (and of `--statistics`): every finding counted.
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    format!(
        "{}: {} errors, {} warnings, {} infos\n",
        scope(s),
        s.errors,
        s.warnings,
        s.infos
    )
}

/// The closing line of the human report: the problems it shows, by severity, and the findings
/// it folds into them (`--format json` lists every one).
pub fn human_summary_line(report: &Report) -> String {
    shown_summary_line(report, &group::report_items(report))
}

fn shown_summary_line(report: &Report, items: &[Item<'_>]) -> String {
    let s = &report.summary;
    let shown = Shown::of(items, &report.findings);
    // The summary may count findings the list does not hold: only the list's are replaced by
    // the items that show them.
    let count = |total: usize, severity: Severity| {
        let index = severity_index(severity);
        total.saturating_sub(shown.listed[index]) + shown.items[index]
    };
    let mut folded = Vec::new();
    if shown.defaults_blocks > 0 {
        folded.push(format!(
            "{} webhook defaults in {} block{}",
            shown.defaults_findings,
            shown.defaults_blocks,
            plural(shown.defaults_blocks)
        ));
    }
    let repeats = report.findings.len().saturating_sub(shown.represented);
    if repeats > 0 {
        folded.push(format!(
            "{repeats} repeat{} of a shown finding left out",
            plural(repeats)
        ));
    }
    let folded = if folded.is_empty() {
        String::new()
    } else {
        format!(" ({})", folded.join(", "))
    };
    format!(
        "{}: {} errors, {} warnings, {} infos{folded}\n",
        scope(s),
        count(s.errors, Severity::Error),
        count(s.warnings, Severity::Warning),
        count(s.infos, Severity::Info),
    )
}

/// What the grouped report shows of the listed findings: items per severity (error, warning,
/// info), the findings listed per severity, how many of them the items stand for, and the
/// webhook-default blocks.
#[derive(Default)]
struct Shown {
    items: [usize; 3],
    listed: [usize; 3],
    represented: usize,
    defaults_blocks: usize,
    defaults_findings: usize,
}

impl Shown {
    fn of(items: &[Item<'_>], all: &[Finding]) -> Self {
        let mut shown = Self::default();
        for finding in all {
            shown.listed[severity_index(finding.severity)] += 1;
        }
        for item in items {
            match item {
                Item::Single(finding) => {
                    shown.items[severity_index(finding.severity)] += 1;
                    shown.represented += 1;
                }
                Item::Defaults(defaults) => {
                    shown.items[severity_index(defaults.anchor().severity)] += 1;
                    shown.represented += defaults.findings.len();
                    shown.defaults_blocks += 1;
                    shown.defaults_findings += defaults.findings.len();
                }
            }
        }
        shown
    }
}

fn severity_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `25 files, 28 objects in 5 units (kubectl kustomize v5.5.0), 9 VMs (6 rendered)`.
fn scope(s: &crate::check::Summary) -> String {
    let units = match s.units {
        0 => String::new(),
        n => format!(" in {n} unit{}{}", plural(n), tool(s)),
    };
    format!(
        "{} files, {} objects{units}, {} VMs ({} rendered)",
        s.files, s.objects, s.vms, s.rendered
    )
}

/// The tools that built the run's units, ` (kubectl kustomize v5.5.0, helm template v3.17.3)`;
/// empty when none ran (Helm raw-chart releases and Argo CD Directory sources need none).
fn tool(summary: &crate::check::Summary) -> String {
    let tools: Vec<String> = [&summary.kustomize, &summary.helm]
        .into_iter()
        .flatten()
        .map(|tool| {
            format!(
                "{}{}",
                tool.command,
                tool.version
                    .as_deref()
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    if tools.is_empty() {
        String::new()
    } else {
        format!(" ({})", tools.join(", "))
    }
}
