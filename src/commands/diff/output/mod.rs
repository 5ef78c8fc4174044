//! The formats of `kvlint diff`: `text` for terminals, `markdown` for pull-request comments
//! and step summaries, `json` for tools; below, what the first two share.

mod json;
mod markdown;
mod text;

pub use json::json;
pub use markdown::markdown;
pub use text::text;

use super::model::{Diff, DiffFinding, Relation, VmDiff, VmStatus};

pub(super) fn finding_line(finding: &DiffFinding) -> String {
    let subject = finding.subject();
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!(" {subject}:")
    };
    format!(
        "{} {} {}:{}{subject} {}",
        finding.severity, finding.code, finding.file, finding.line, finding.message
    )
}

pub(super) fn relation_text(relation: Relation) -> &'static str {
    match relation {
        Relation::NewVm => "new VM: gets the new values",
        Relation::Switches => "switches to it: gets the new values",
        Relation::KeepsRevision => "keeps its stored ControllerRevision",
    }
}

pub(super) fn status_mark(status: VmStatus) -> char {
    match status {
        VmStatus::Added => '+',
        VmStatus::Removed => '-',
        VmStatus::Changed => '~',
        VmStatus::Unchanged => '=',
    }
}

pub(super) fn counts_line(diff: &Diff) -> String {
    let c = &diff.counts;
    format!(
        "{} added, {} removed, {} changed, {} unchanged",
        c.added, c.removed, c.changed, c.unchanged
    )
}

/// `~ apps/web (VirtualMachine, vms/web.yaml:1)`
pub(super) fn vm_heading(vm: &VmDiff) -> String {
    let place = vm.place();
    format!(
        "{} {} ({}{}{})",
        status_mark(vm.status),
        vm.key(),
        vm.kind,
        if place.is_empty() { "" } else { ", " },
        place
    )
}
