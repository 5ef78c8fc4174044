//! The Markdown format.

use std::fmt::Write as _;

use super::relation_text;
use crate::commands::diff::model::{
    Diff, DiffFinding, Effect, EffectKind, ObjectDiff, VmDiff, VmStatus,
};
use crate::sanitize::{self, terminal};

/// Lines of a VM's unified diff that the Markdown format shows before cutting it short.
const MARKDOWN_DIFF_LINES: usize = 300;

/// Escapes text for Markdown outside code (tables included); mentions, issue references and
/// bare links are broken and control characters shown ([`sanitize::markdown`]).
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut out, c, false);
            }
            _ => out.push(c),
        }
    }
    sanitize::markdown::defuse(&out)
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// A code span that holds any text; pipes are escaped as GitHub tables need.
fn md_code(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => shown.push(' '),
            '|' => shown.push_str("\\|"),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut shown, c, true);
            }
            _ => shown.push(c),
        }
    }
    let text = shown;
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Escapes text for HTML (inside `<summary>`), mentions and references broken.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut out, c, true);
            }
            _ => out.push(c),
        }
    }
    sanitize::markdown::defuse(&out)
}

fn fenced(out: &mut String, language: &str, body: &str, max_lines: usize) {
    let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
    let _ = writeln!(out, "{fence}{language}");
    let total = body.lines().count();
    for line in body.lines().take(max_lines) {
        let _ = writeln!(out, "{}", terminal::block(line));
    }
    if total > max_lines {
        let _ = writeln!(
            out,
            "… {} more lines (see `kvlint diff` output)",
            total - max_lines
        );
    }
    let _ = writeln!(out, "{fence}");
}

fn effect_md(effect: &Effect) -> String {
    match effect.kind {
        EffectKind::Rejected | EffectKind::CannotStart | EffectKind::RestartRequired => {
            format!("**{}**", md(&effect.message))
        }
        _ => md(&effect.message),
    }
}

fn findings_table(out: &mut String, findings: &[DiffFinding]) {
    let _ = writeln!(out, "| severity | rule | object | message | location |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for f in findings {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            f.severity,
            md_code(&format!("{} {}", f.code, f.name)),
            md(&f.subject()),
            md(&f.message),
            md_code(&format!("{}:{}", f.file, f.line)),
        );
    }
}

/// The Markdown format for pull-request comments and step summaries: a summary table, a table
/// of the VMs that differ, a collapsible section per VM, then instance types and preferences
/// and the findings.
pub fn markdown(diff: &Diff) -> String {
    let c = &diff.counts;
    let mut out = String::new();
    let _ = writeln!(out, "### kvlint diff\n");
    let _ = writeln!(out, "| added | removed | changed | unchanged |");
    let _ = writeln!(out, "|---:|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} |\n",
        c.added, c.removed, c.changed, c.unchanged
    );
    let _ = writeln!(out, "> Assumes {}.\n", md(&diff.assumptions.join("; ")));
    let differing: Vec<&VmDiff> = diff
        .vms
        .iter()
        .filter(|vm| vm.status != VmStatus::Unchanged)
        .collect();
    if differing.is_empty() {
        let _ = writeln!(out, "No VM changes.\n");
    } else {
        let _ = writeln!(out, "| VM | change | what KubeVirt does |");
        let _ = writeln!(out, "|---|---|---|");
        for vm in &differing {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                md_code(&vm.key().to_string()),
                vm.status,
                effect_md(&vm.effect)
            );
        }
        out.push('\n');
        for vm in &differing {
            vm_section(&mut out, vm);
        }
    }
    unchanged_vms(&mut out, diff);
    if !diff.objects.is_empty() {
        let _ = writeln!(out, "#### Instance types and preferences\n");
        for object in &diff.objects {
            object_section(&mut out, object);
        }
    }
    findings_sections(&mut out, diff);
    terminal::guard_lines(out)
}

/// A collapsible section for a VM that differs.
fn vm_section(out: &mut String, vm: &VmDiff) {
    let _ = writeln!(out, "<details>");
    let _ = writeln!(
        out,
        "<summary><code>{}</code> {}: {}</summary>\n",
        html(&vm.key().to_string()),
        vm.status,
        html(&vm.effect.message)
    );
    let place = vm.place();
    if !place.is_empty() {
        let _ = writeln!(out, "{} {}\n", md(&vm.kind), md_code(&place));
    }
    for change in &vm.changes {
        let _ = writeln!(
            out,
            "- **{}**: {}",
            change.aspect.label(),
            md(&change.summary)
        );
    }
    if !vm.changes.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "**What KubeVirt does:** {}\n", effect_md(&vm.effect));
    for detail in &vm.effect.details {
        let _ = writeln!(out, "- {}", md(detail));
    }
    if !vm.effect.details.is_empty() {
        out.push('\n');
    }
    for note in &vm.notes {
        let _ = writeln!(out, "> {}\n", md(note));
    }
    if !vm.diff.is_empty() {
        fenced(out, "diff", &vm.diff, MARKDOWN_DIFF_LINES);
        out.push('\n');
    }
    let _ = writeln!(out, "</details>\n");
}

/// The unchanged VMs, collapsed.
fn unchanged_vms(out: &mut String, diff: &Diff) {
    let unchanged: Vec<String> = diff
        .vms
        .iter()
        .filter(|vm| vm.status == VmStatus::Unchanged)
        .map(|vm| {
            format!(
                "- {} {}",
                md_code(&vm.key().to_string()),
                md_code(&vm.place())
            )
        })
        .collect();
    if !unchanged.is_empty() {
        let _ = writeln!(
            out,
            "<details>\n<summary>Unchanged VMs: {}</summary>\n\n{}\n\n</details>\n",
            unchanged.len(),
            unchanged.join("\n")
        );
    }
}

/// A collapsible section for an instance type or preference that differs.
fn object_section(out: &mut String, object: &ObjectDiff) {
    let users: Vec<String> = object
        .used_by
        .iter()
        .map(|u| {
            format!(
                "{} ({})",
                md_code(&u.key().to_string()),
                md(relation_text(u.relation))
            )
        })
        .collect();
    let _ = writeln!(out, "<details>");
    let _ = writeln!(
        out,
        "<summary><code>{}</code> {}: used by {} VM(s)</summary>\n",
        html(&object.key().to_string()),
        object.status,
        object.used_by.len()
    );
    let _ = writeln!(
        out,
        "{}\n",
        md_code(&format!("{}:{}", object.file, object.line))
    );
    if users.is_empty() {
        let _ = writeln!(out, "Used by no VM of the repository.\n");
    } else {
        let _ = writeln!(out, "Used by: {}\n", users.join(", "));
    }
    let _ = writeln!(out, "> {}\n", md(&object.note));
    fenced(out, "diff", &object.diff, MARKDOWN_DIFF_LINES);
    let _ = writeln!(out, "\n</details>\n");
}

/// The findings introduced, then those fixed (collapsed).
fn findings_sections(out: &mut String, diff: &Diff) {
    let _ = writeln!(
        out,
        "#### Findings introduced by this change: {}\n",
        diff.introduced.len()
    );
    if !diff.introduced.is_empty() {
        findings_table(out, &diff.introduced);
        out.push('\n');
    }
    if !diff.fixed.is_empty() {
        let _ = writeln!(out, "<details>");
        let _ = writeln!(
            out,
            "<summary>Findings fixed by this change: {}</summary>\n",
            diff.fixed.len()
        );
        findings_table(out, &diff.fixed);
        let _ = writeln!(out, "\n</details>");
    }
}

#[cfg(test)]
mod tests {
    use super::{html, md_code};

    #[test]
    fn code_spans_and_html_hold_any_text() {
        assert_eq!(md_code("a`b|c"), "``a`b\\|c``");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(html("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
