//! The GitHub Actions step summary: every finding, one collapsible section per file.
//!
//! GitHub refuses a step summary larger than [`MAX_BYTES`] (1 MiB) and then shows none of it.
//! When the whole report does not fit, it is written to a file the workflow can upload as an
//! artifact, and the summary keeps the counts, a line naming that file, and as many sections
//! as fit, the changed files first.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use crate::check::Report;
use crate::diag::{Finding, Severity};
use crate::error::Error;
use crate::sanitize;
use crate::source::write::OutputPath;

use super::github_context;
use super::markdown::{escape_cell, heading, row};
use super::pull_request::ChangedFiles;

/// GitHub's limit on one step's summary.
pub const MAX_BYTES: usize = 1 << 20;

/// The name of the full report written when the summary cannot hold it.
pub const REPORT_FILE_NAME: &str = "kvlint-report.md";

/// The findings of one file, most severe first, then by line.
struct Section {
    file: String,
    changed: bool,
    findings: Vec<Finding>,
}

impl Section {
    fn worst(&self) -> Severity {
        self.findings
            .iter()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Info)
    }

    fn counts(&self) -> String {
        let count = |severity| {
            self.findings
                .iter()
                .filter(|f| f.severity == severity)
                .count()
        };
        let mut parts = Vec::new();
        for (severity, one, many) in [
            (Severity::Error, "error", "errors"),
            (Severity::Warning, "warning", "warnings"),
            (Severity::Info, "info", "infos"),
        ] {
            match count(severity) {
                0 => {}
                1 => parts.push(format!("1 {one}")),
                n => parts.push(format!("{n} {many}")),
            }
        }
        parts.join(", ")
    }

    fn opening(&self) -> String {
        format!(
            "<details{}><summary>{}{} · {}</summary>\n\n\
             | Severity | Rule | Location | Object | Message |\n\
             | --- | --- | --- | --- | --- |\n",
            if self.changed { " open" } else { "" },
            escape_cell(&self.file),
            if self.changed { " (changed)" } else { "" },
            self.counts(),
        )
    }

    fn rows(&self) -> impl Iterator<Item = String> + '_ {
        self.findings.iter().map(|finding| {
            let mut line = String::new();
            row(&mut line, finding);
            line
        })
    }
}

const CLOSING: &str = "\n</details>\n\n";

/// The findings grouped per file (named by `file`, as the annotations name it), the changed
/// files first, then the files with the most severe findings, then by name.
fn sections(
    findings: &[Finding],
    changed: &ChangedFiles,
    file: &dyn Fn(&Finding) -> String,
) -> Vec<Section> {
    let mut by_file: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    for finding in findings {
        let name = file(finding);
        let mut shown = finding.clone();
        shown.location.file = name.as_str().into();
        by_file.entry(name).or_default().push(shown);
    }
    let mut sections: Vec<Section> = by_file
        .into_iter()
        .map(|(file, mut findings)| {
            findings.sort_by_key(|f| (std::cmp::Reverse(f.severity), f.location.span.start));
            Section {
                changed: changed.contains(&file),
                file,
                findings,
            }
        })
        .collect();
    sections.sort_by(|a, b| {
        (!a.changed, std::cmp::Reverse(a.worst()), &a.file).cmp(&(
            !b.changed,
            std::cmp::Reverse(b.worst()),
            &b.file,
        ))
    });
    sections
}

/// The whole summary: the counts and every finding.
pub fn full(report: &Report, changed: &ChangedFiles, file: &dyn Fn(&Finding) -> String) -> String {
    let mut out = heading(report);
    if report.findings.is_empty() {
        out.push_str("No findings.\n");
    }
    for section in sections(&report.findings, changed, file) {
        out.push_str(&section.opening());
        for line in section.rows() {
            out.push_str(&line);
        }
        out.push_str(CLOSING);
    }
    sanitize::terminal::guard_lines(out)
}

/// A summary that fits in `budget` bytes: the counts, `note` (where the full report is), and
/// the sections that fit, the last one possibly cut, then how many were left out.
pub fn cut(
    report: &Report,
    changed: &ChangedFiles,
    file: &dyn Fn(&Finding) -> String,
    note: &str,
    budget: usize,
) -> String {
    // Room for the lines that say what was left out.
    const RESERVE: usize = 512;
    let mut out = heading(report);
    let _ = writeln!(out, "{note}\n");
    let sections = sections(&report.findings, changed, file);
    let mut listed = 0;
    'sections: for section in &sections {
        let opening = section.opening();
        if out.len() + opening.len() + CLOSING.len() + RESERVE > budget {
            break;
        }
        out.push_str(&opening);
        for (i, line) in section.rows().enumerate() {
            if out.len() + line.len() + CLOSING.len() + RESERVE > budget {
                let rows_left = section.findings.len() - i;
                let _ = writeln!(
                    out,
                    "\n{rows_left} more findings of this file are listed only in the full report."
                );
                out.push_str(CLOSING);
                listed += 1;
                break 'sections;
            }
            out.push_str(&line);
        }
        out.push_str(CLOSING);
        listed += 1;
    }
    let files_left = sections.len() - listed;
    if files_left > 0 {
        let _ = writeln!(
            out,
            "{files_left} more files with findings are listed only in the full report."
        );
    }
    sanitize::terminal::guard_lines(out)
}

/// What goes where: the summary to append, and the full report to write to a file when the
/// summary had to be cut.
#[derive(Debug)]
pub struct Plan {
    pub summary: String,
    pub full_report: Option<String>,
}

/// The summary for a step whose summary file already holds `used` bytes; `report_file` is how
/// the summary names the full report's file.
pub fn plan(
    report: &Report,
    changed: &ChangedFiles,
    file: &dyn Fn(&Finding) -> String,
    used: usize,
    report_file: &str,
) -> Plan {
    let budget = MAX_BYTES.saturating_sub(used);
    let whole = full(report, changed, file);
    if whole.len() <= budget {
        return Plan {
            summary: whole,
            full_report: None,
        };
    }
    let note = format!(
        "The report ({} KiB) is larger than a step summary may be (1 MiB): the full report is in \
         `{}` (the action's `report-file` output), ready to upload as an artifact.",
        whole.len() / 1024,
        escape_cell(report_file),
    );
    Plan {
        summary: cut(report, changed, file, &note, budget),
        full_report: Some(whole),
    }
}

/// Appends the summary to `$GITHUB_STEP_SUMMARY`, when set; when the summary cannot hold the
/// report, the full report is written to [`REPORT_FILE_NAME`] in `$RUNNER_TEMP` (else in the
/// working directory) first.
pub fn append(report: &Report) -> Result<(), Error> {
    let Some(summary_path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty())
    else {
        return Ok(());
    };
    let summary_path = PathBuf::from(summary_path);
    let context = github_context::current();
    let used = std::fs::metadata(&summary_path)
        .map_or(0, |meta| usize::try_from(meta.len()).unwrap_or(usize::MAX));
    let report_path = std::env::var_os("RUNNER_TEMP")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
        .join(REPORT_FILE_NAME);
    let plan = plan(
        report,
        &context.changed,
        &|finding| context.file(finding),
        used,
        &report_path.display().to_string(),
    );
    if let Some(full_report) = &plan.full_report {
        OutputPath::from_argument(&report_path)?.write(full_report.as_bytes())?;
        let _ = writeln!(
            std::io::stderr(),
            "kvlint: the report is larger than a step summary may be; the full report is in {}",
            report_path.display()
        );
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&summary_path)
        .and_then(|mut file| file.write_all(plan.summary.as_bytes()))
        .map_err(|err| Error::file(&summary_path, err))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::Location;
    use crate::rules;

    fn at(rule: &'static rules::Rule, file: &str, line: u32, message: &str) -> Finding {
        Finding::new(
            rule,
            Location::lines(Arc::from(file), (line, 1), (line, 4)),
            message,
        )
    }

    fn name(finding: &Finding) -> String {
        finding.location.file.to_string()
    }

    #[test]
    fn every_finding_in_a_section_per_file_changed_files_first() {
        let findings: Vec<Finding> = (1..=150)
            .map(|line| at(&rules::YAML_SYNTAX, "old.yaml", line, "old"))
            .chain([at(&rules::DEPRECATED_RUNNING, "new.yaml", 4, "new")])
            .collect();
        let report = Report {
            findings,
            ..Report::default()
        };
        let changed: ChangedFiles = ["new.yaml".to_owned()].into();
        let text = full(&report, &changed, &name);
        assert_eq!(text.matches("| error |").count(), 150, "no row cap");
        let new = text.find("<details open><summary>new.yaml (changed) · 1 warning");
        let old = text.find("<details><summary>old.yaml · 150 errors</summary>");
        assert!(new.unwrap() < old.unwrap(), "{text}");
        assert_eq!(text.matches("</details>").count(), 2);
    }

    #[test]
    fn a_report_over_the_limit_goes_to_a_file_and_the_summary_fits() {
        let long = "x".repeat(2000);
        let findings: Vec<Finding> = (1..=700)
            .map(|i| {
                at(
                    &rules::YAML_SYNTAX,
                    &format!("f{:03}.yaml", i % 300),
                    i,
                    &long,
                )
            })
            .collect();
        let report = Report {
            findings,
            ..Report::default()
        };
        let used = 1000;
        let plan = plan(
            &report,
            &ChangedFiles::new(),
            &name,
            used,
            "/tmp/kvlint-report.md",
        );
        let full_report = plan.full_report.expect("over 1 MiB");
        assert!(full_report.len() > MAX_BYTES);
        assert_eq!(full_report.matches("| error |").count(), 700);
        assert!(
            plan.summary.len() + used <= MAX_BYTES,
            "{}",
            plan.summary.len()
        );
        assert!(plan.summary.contains("`/tmp/kvlint-report.md`"));
        assert!(
            plan.summary
                .contains("more files with findings are listed only in the full report")
        );
        assert_eq!(
            plan.summary.matches("<details").count(),
            plan.summary.matches("</details>").count()
        );

        let small = plan_of_clean();
        assert!(small.full_report.is_none());
        assert!(small.summary.ends_with("No findings.\n"));
    }

    fn plan_of_clean() -> Plan {
        plan(&Report::default(), &ChangedFiles::new(), &name, 0, "r.md")
    }
}
