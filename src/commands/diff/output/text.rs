//! The terminal format.

use std::fmt::Write as _;

use super::{counts_line, finding_line, relation_text, status_mark, vm_heading};
use crate::commands::diff::changes::describe;
use crate::commands::diff::model::{Diff, VmDiff, VmStatus};
use crate::sanitize::terminal;

/// The terminal format: a summary, each VM that differs with its semantic summary, what
/// KubeVirt does and the unified diff, then instance types and preferences and the findings.
/// Text from the manifests is escaped with [`terminal`]: one line per item, control characters
/// shown, no line a GitHub runner would execute.
pub fn text(diff: &Diff) -> String {
    let line = terminal::line;
    let mut out = String::new();
    let _ = writeln!(out, "kvlint diff: {}", counts_line(diff));
    let _ = writeln!(out, "assumes {}", line(&diff.assumptions.join("; ")));
    if diff.vms.iter().all(|vm| vm.status == VmStatus::Unchanged) {
        let _ = writeln!(out, "\nno VM changes");
    }
    for vm in diff
        .vms
        .iter()
        .filter(|vm| vm.status != VmStatus::Unchanged)
    {
        let _ = writeln!(out, "\n{}", line(&vm_heading(vm)));
        for change in &vm.changes {
            let label = change.aspect.label();
            let _ = writeln!(out, "    {label:<15}{}", line(&change.summary));
        }
        let _ = writeln!(out, "    {:<15}{}", "KubeVirt", line(&vm.effect.message));
        for detail in &vm.effect.details {
            let _ = writeln!(out, "    {:<15}- {}", "", line(detail));
        }
        for note in &vm.notes {
            let _ = writeln!(out, "    {:<15}{}", "note", line(note));
        }
        for diff_line in vm.diff.lines() {
            let _ = writeln!(out, "    {}", terminal::block(diff_line));
        }
    }
    let unchanged: Vec<&VmDiff> = diff
        .vms
        .iter()
        .filter(|vm| vm.status == VmStatus::Unchanged)
        .collect();
    if !unchanged.is_empty() {
        let _ = writeln!(out, "\nunchanged:");
        for vm in unchanged {
            let _ = writeln!(out, "{}", line(&vm_heading(vm)));
        }
    }
    if !diff.objects.is_empty() {
        let _ = writeln!(out, "\ninstance types and preferences:");
        for object in &diff.objects {
            let heading = format!(
                "{} {} ({}:{}): {}",
                status_mark(object.status),
                object.key(),
                object.file,
                object.line,
                object.status
            );
            let _ = writeln!(out, "\n{}", line(&heading));
            for field in &object.fields {
                let _ = writeln!(out, "    {}", line(&describe(field, "")));
            }
            if object.used_by.is_empty() {
                let _ = writeln!(out, "    used by no VM of the repository");
            }
            for user in &object.used_by {
                let _ = writeln!(
                    out,
                    "    used by {} ({})",
                    line(&user.key().to_string()),
                    relation_text(user.relation)
                );
            }
            let _ = writeln!(out, "    note: {}", line(&object.note));
        }
    }
    for (title, findings) in [
        ("introduced by this change", &diff.introduced),
        ("fixed by this change", &diff.fixed),
    ] {
        let _ = writeln!(out, "\nfindings {title}: {}", findings.len());
        for finding in findings {
            let _ = writeln!(out, "  {}", line(&finding_line(finding)));
        }
    }
    terminal::guard_lines(out)
}
