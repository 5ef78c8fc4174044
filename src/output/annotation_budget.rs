//! Which findings become GitHub annotations, and in which order.
//!
//! GitHub shows at most [`MAX_PER_KIND`] error, warning and notice annotations per step and
//! drops the rest silently, so the slots go where a reviewer looks: the files the pull request
//! changes first, then the rest of the repository; inside each group the most severe first,
//! then by file, line and column. Notes about what kvlint did rather than problems (a file
//! skipped as not a manifest, a unit not rendered) never take a slot; the step summary lists
//! them. When anything is left out, one notice says so, and it takes a notice slot itself.

use std::cmp::Reverse;

use crate::diag::{Finding, Severity};
use crate::rules::Category;

use super::pull_request::ChangedFiles;

/// GitHub's limit of annotations of one kind (error, warning, notice) per step.
pub const MAX_PER_KIND: usize = 10;

/// The annotations to emit.
#[derive(Debug, Default)]
pub struct Selection<'a> {
    /// In the order to emit them.
    pub shown: Vec<&'a Finding>,
    /// Problems that did not get a slot.
    pub left_out: usize,
    /// Notes that take no slot.
    pub notes: usize,
}

/// Whether a finding only notes what kvlint did (an info of a rule of the `info` category, such
/// as KV0006 "skipped: kustomization"), rather than a problem in the repository.
pub fn is_note(finding: &Finding) -> bool {
    finding.severity == Severity::Info
        && finding.rule.category == Category::Info
        && finding.rule.severity == Severity::Info
}

fn kind_index(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

/// A finding with what it is ranked by.
struct Ranked<'a> {
    finding: &'a Finding,
    outside_changes: bool,
    file: String,
}

impl Ranked<'_> {
    fn key(&self) -> (bool, Reverse<Severity>, &str, u32, u32) {
        let start = self.finding.location.span.start;
        (
            self.outside_changes,
            Reverse(self.finding.severity),
            &self.file,
            start.line,
            start.column,
        )
    }
}

/// Picks the annotations; `file` names a finding's file as the changed files name theirs.
pub fn select<'a>(
    findings: &'a [Finding],
    changed: &ChangedFiles,
    file: impl Fn(&Finding) -> String,
) -> Selection<'a> {
    let notes = findings.iter().filter(|f| is_note(f)).count();
    let mut ranked: Vec<Ranked<'a>> = findings
        .iter()
        .filter(|f| !is_note(f))
        .map(|finding| {
            let file = file(finding);
            Ranked {
                finding,
                outside_changes: !changed.contains(&file),
                file,
            }
        })
        .collect();
    // Stable: findings at one position keep the report's order.
    ranked.sort_by(|a, b| a.key().cmp(&b.key()));
    let mut per_kind = [0; 3];
    for entry in &ranked {
        per_kind[kind_index(entry.finding.severity)] += 1;
    }
    let mut slots = [MAX_PER_KIND; 3];
    // The closing notice needs a notice slot of its own whenever something is left out.
    if per_kind.iter().any(|&count| count > MAX_PER_KIND) {
        slots[kind_index(Severity::Info)] -= 1;
    }
    let total = ranked.len();
    let mut shown = Vec::new();
    for entry in ranked {
        let slot = &mut slots[kind_index(entry.finding.severity)];
        if *slot > 0 {
            *slot -= 1;
            shown.push(entry.finding);
        }
    }
    Selection {
        left_out: total - shown.len(),
        shown,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::Location;
    use crate::rules::{self, Rule};

    fn at(rule: &'static Rule, file: &str, line: u32) -> Finding {
        Finding::new(
            rule,
            Location::lines(Arc::from(file), (line, 1), (line, 4)),
            format!("{file}:{line}"),
        )
    }

    fn names(selection: &Selection<'_>) -> Vec<String> {
        selection.shown.iter().map(|f| f.message.clone()).collect()
    }

    fn changed(files: &[&str]) -> ChangedFiles {
        files.iter().map(|f| (*f).to_owned()).collect()
    }

    fn file(finding: &Finding) -> String {
        finding.location.file.to_string()
    }

    #[test]
    fn changed_files_first_then_severity_then_path() {
        let findings = vec![
            at(&rules::DEPRECATED_RUNNING, "old/b.yaml", 3),
            at(&rules::YAML_SYNTAX, "old/a.yaml", 9),
            at(&rules::DEPRECATED_RUNNING, "new/z.yaml", 2),
            at(&rules::YAML_SYNTAX, "new/z.yaml", 5),
            at(&rules::YAML_SYNTAX, "new/y.yaml", 7),
        ];
        let selection = select(&findings, &changed(&["new/z.yaml", "new/y.yaml"]), file);
        assert_eq!(
            names(&selection),
            [
                "new/y.yaml:7",
                "new/z.yaml:5",
                "new/z.yaml:2",
                "old/a.yaml:9",
                "old/b.yaml:3"
            ]
        );
        assert_eq!(selection.left_out, 0);
    }

    #[test]
    fn a_changed_file_wins_the_slot_of_an_older_error() {
        let mut findings: Vec<Finding> = (1..=12)
            .map(|line| at(&rules::YAML_SYNTAX, "a/old.yaml", line))
            .collect();
        findings.push(at(&rules::YAML_SYNTAX, "z/new.yaml", 40));
        let selection = select(&findings, &changed(&["z/new.yaml"]), file);
        assert_eq!(selection.shown.len(), MAX_PER_KIND);
        assert_eq!(selection.shown[0].message, "z/new.yaml:40");
        assert_eq!(selection.left_out, 3);
        // Without the pull request, the file sorts last and loses its slot.
        let selection = select(&findings, &ChangedFiles::new(), file);
        assert!(names(&selection).iter().all(|n| n.starts_with("a/old")));
    }

    #[test]
    fn notes_take_no_slot_and_the_closing_notice_takes_one() {
        let mut findings: Vec<Finding> = (1..=11)
            .map(|line| at(&rules::SKIPPED_FILE, "skipped.yaml", line))
            .collect();
        let selection = select(&findings, &ChangedFiles::new(), file);
        assert!(selection.shown.is_empty());
        assert_eq!((selection.left_out, selection.notes), (0, 11));

        // Ten drift infos fit exactly; an eleventh leaves nine and the closing notice.
        findings.extend((1..=10).map(|line| at(&rules::MACHINE_TYPE_DEFAULTED, "vm.yaml", line)));
        let selection = select(&findings, &ChangedFiles::new(), file);
        assert_eq!((selection.shown.len(), selection.left_out), (10, 0));
        findings.push(at(&rules::MACHINE_TYPE_DEFAULTED, "vm.yaml", 11));
        let selection = select(&findings, &ChangedFiles::new(), file);
        assert_eq!((selection.shown.len(), selection.left_out), (9, 2));
        // Too many errors also need the closing notice: nine notices then.
        let mut findings: Vec<Finding> = (1..=11)
            .map(|line| at(&rules::YAML_SYNTAX, "a.yaml", line))
            .collect();
        findings.extend((1..=10).map(|line| at(&rules::MACHINE_TYPE_DEFAULTED, "vm.yaml", line)));
        let selection = select(&findings, &ChangedFiles::new(), file);
        assert_eq!((selection.shown.len(), selection.left_out), (19, 2));
    }
}
