//! Rule documentation from the registry: `kvlint rules`, `kvlint explain`, docs/rules.md.

use std::fmt::Write as _;

use serde::Serialize;

use super::{ALL, Category, FixKind, Rule, Severity, fix_kind};

/// Where a rule is documented (the anchor of docs/rules.md).
pub(crate) fn rule_url(rule: &Rule) -> String {
    format!(
        "https://github.com/kvlint/kvlint/blob/main/docs/rules.md#{}-{}",
        rule.code.to_ascii_lowercase(),
        rule.name
    )
}

#[derive(Serialize)]
struct RuleJson<'a> {
    code: &'a str,
    name: &'a str,
    category: Category,
    severity: Severity,
    fix: FixKind,
    since: &'a str,
    summary: &'a str,
    url: String,
    explanation: &'a str,
}

fn to_json(rule: &Rule) -> RuleJson<'_> {
    RuleJson {
        code: rule.code,
        name: rule.name,
        category: rule.category,
        severity: rule.severity,
        fix: fix_kind(rule),
        since: rule.since,
        summary: rule.summary,
        url: rule_url(rule),
        explanation: rule.explanation,
    }
}

/// `kvlint rules`: one line per rule.
pub fn rules_text() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<7} {:<32} {:<12} {:<8} {:<6} summary",
        "code", "name", "category", "severity", "fix"
    );
    for rule in ALL {
        let _ = writeln!(
            out,
            "{:<7} {:<32} {:<12} {:<8} {:<6} {}",
            rule.code,
            rule.name,
            rule.category.to_string(),
            rule.severity.to_string(),
            fix_kind(rule).to_string(),
            rule.summary
        );
    }
    out
}

/// `kvlint rules --format json`.
pub fn rules_json() -> String {
    let rules: Vec<RuleJson<'_>> = ALL.iter().map(|r| to_json(r)).collect();
    serde_json::to_string_pretty(&rules).unwrap_or_default() + "\n"
}

/// What `kvlint fix` does with a rule's findings, in words.
fn fix_text(rule: &Rule) -> &'static str {
    match fix_kind(rule) {
        FixKind::None => "none",
        FixKind::Safe => "safe (`kvlint fix` applies it)",
        FixKind::Unsafe => "unsafe (`kvlint fix --unsafe-fixes` applies it)",
    }
}

/// `kvlint explain CODE`: the rule's metadata and explanation.
pub fn explain_text(rule: &Rule) -> String {
    format!(
        "{} {}\ncategory: {}, default severity: {}, fix: {}, since kvlint {}\n{}\n\n{}\nMore: {}\n",
        rule.code,
        rule.name,
        rule.category,
        rule.severity,
        fix_text(rule),
        rule.since,
        rule.summary,
        rule.explanation.trim_end(),
        rule_url(rule)
    )
}

/// `kvlint explain CODE --format json`.
pub fn explain_json(rule: &Rule) -> String {
    serde_json::to_string_pretty(&to_json(rule)).unwrap_or_default() + "\n"
}

/// docs/rules.md, generated; `tests/docs.rs` fails when the committed file differs.
pub fn rules_markdown() -> String {
    let mut out = String::from(
        "# kvlint rules\n\n<!-- Generated from src/rules (the registry and src/rules/docs/*.md). Do not edit: run `KVLINT_UPDATE_DOCS=1 cargo test --test integration registry::`. -->\n\n",
    );
    out.push_str(
        "| code | name | category | severity | fix | summary |\n| --- | --- | --- | --- | --- | --- |\n",
    );
    for rule in ALL {
        let _ = writeln!(
            out,
            "| [{}](#{}-{}) | `{}` | {} | {} | {} | {} |",
            rule.code,
            rule.code.to_ascii_lowercase(),
            rule.name,
            rule.name,
            rule.category,
            rule.severity,
            fix_kind(rule),
            rule.summary
        );
    }
    for rule in ALL {
        let _ = write!(
            out,
            "\n## {} {}\n\nCategory `{}`, default severity `{}`, fix: {}, since kvlint {}. {}\n\n{}\n",
            rule.code,
            rule.name,
            rule.category,
            rule.severity,
            fix_text(rule),
            rule.since,
            rule.summary,
            rule.explanation.trim_end()
        );
    }
    out
}
