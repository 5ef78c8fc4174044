//! Inline suppressions: `# kvlint: ignore[RULE, ...] reason` on the line of a finding, on the
//! line above it, or above an object (then it covers the whole document). The object sent to
//! the cluster is unchanged; a reason is required; a suppression that matches nothing is
//! reported.

use std::sync::Arc;

use crate::diag::{Finding, Location};
use crate::rules::{self, Rule};

/// What a suppression covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    Line(u32),
    /// First and last line of a document.
    Document(u32, u32),
}

#[derive(Clone, Debug)]
pub struct Suppression {
    pub file: Arc<str>,
    /// Where the comment is.
    pub line: u32,
    pub column: u32,
    pub scope: Scope,
    pub rules: Vec<&'static Rule>,
    pub reason: String,
}

fn location(file: &Arc<str>, line: u32, column: u32, width: u32) -> Location {
    Location::lines(Arc::clone(file), (line, column), (line, column + width))
}

/// Finds the suppression comments of one file. `documents` are the first and last line of
/// each document. Malformed comments become findings.
pub fn scan(
    file: &Arc<str>,
    text: &str,
    documents: &[(u32, u32)],
) -> (Vec<Suppression>, Vec<Finding>) {
    let mut suppressions = Vec::new();
    let mut findings = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(hash) = line.find("# kvlint:").or_else(|| line.find("#kvlint:")) else {
            continue;
        };
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let column = u32::try_from(line[..hash].chars().count() + 1).unwrap_or(u32::MAX);
        let width = u32::try_from(line[hash..].chars().count()).unwrap_or(1);
        let problem = |message: String| {
            Finding::new(
                &rules::INVALID_SUPPRESSION,
                location(file, line_no, column, width),
                message,
            )
        };
        let body = line[hash..]
            .split_once("kvlint:")
            .map_or("", |(_, rest)| rest)
            .trim_start();
        let Some(rest) = body.strip_prefix("ignore[") else {
            findings.push(problem(
                "expected `# kvlint: ignore[RULE, ...] reason`".to_owned(),
            ));
            continue;
        };
        let Some((names, reason)) = rest.split_once(']') else {
            findings.push(problem("unclosed `[` in the suppression".to_owned()));
            continue;
        };
        let reason = reason.trim().to_owned();
        let mut suppressed = Vec::new();
        let mut unknown = Vec::new();
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match rules::find(name) {
                Some(rule) => suppressed.push(rule),
                None => unknown.push(name.to_owned()),
            }
        }
        if !unknown.is_empty() {
            findings.push(problem(format!("no rule is called {}", unknown.join(", "))));
        }
        if reason.is_empty() {
            findings.push(problem(
                "a suppression needs a reason after the rule list; this one is not applied"
                    .to_owned(),
            ));
            continue;
        }
        if suppressed.is_empty() {
            continue;
        }
        let trailing = !line[..hash].trim().is_empty();
        let scope = if trailing {
            Scope::Line(line_no)
        } else {
            target_of_own_line(&lines, i, documents)
        };
        suppressions.push(Suppression {
            file: Arc::clone(file),
            line: line_no,
            column,
            scope,
            rules: suppressed,
            reason,
        });
    }
    (suppressions, findings)
}

/// A comment on its own line covers the next line with content, or the whole document when
/// that line starts one.
fn target_of_own_line(lines: &[&str], index: usize, documents: &[(u32, u32)]) -> Scope {
    let next = lines
        .iter()
        .enumerate()
        .skip(index + 1)
        .find(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && t != "---"
        })
        .map_or(u32::MAX, |(j, _)| u32::try_from(j + 1).unwrap_or(u32::MAX));
    match documents.iter().find(|(start, _)| *start == next) {
        Some(&(start, end)) => Scope::Document(start, end),
        None => Scope::Line(next),
    }
}

/// Turns a comment on its own line just above an object embedded in another (a manifest of a
/// HelmRelease's values; `objects` are the first and last line of each) into one that covers
/// the whole object, as a comment above a document covers the document.
pub fn cover_embedded(suppressions: &mut [Suppression], file: &str, objects: &[(u32, u32)]) {
    if objects.is_empty() {
        return;
    }
    let last_line: std::collections::HashMap<u32, u32> = objects.iter().copied().collect();
    for suppression in suppressions.iter_mut().filter(|s| &*s.file == file) {
        let Scope::Line(target) = suppression.scope else {
            continue;
        };
        // A comment at the end of a line covers that line only.
        if suppression.line >= target {
            continue;
        }
        if let Some(&last) = last_line.get(&target) {
            suppression.scope = Scope::Document(target, last);
        }
    }
}

fn covers(suppression: &Suppression, finding: &Finding) -> bool {
    if suppression.file != finding.location.file || !suppression.rules.contains(&finding.rule) {
        return false;
    }
    let line = finding.location.span.start.line;
    match suppression.scope {
        Scope::Line(target) => line == target,
        Scope::Document(start, end) => (start..=end).contains(&line),
    }
}

/// Removes suppressed findings and reports the suppressions that matched nothing.
pub fn apply(findings: &mut Vec<Finding>, suppressions: &[Suppression]) {
    let mut used = vec![false; suppressions.len()];
    findings.retain(|finding| {
        let hit = suppressions.iter().position(|s| covers(s, finding));
        if let Some(i) = hit {
            used[i] = true;
        }
        hit.is_none()
    });
    for (suppression, used) in suppressions.iter().zip(used) {
        if !used {
            let names: Vec<&str> = suppression.rules.iter().map(|r| r.name).collect();
            findings.push(
                Finding::new(
                    &rules::UNUSED_SUPPRESSION,
                    location(&suppression.file, suppression.line, suppression.column, 1),
                    format!(
                        "this suppression of {} matches no finding",
                        names.join(", ")
                    ),
                )
                .with_help("remove it: a stale suppression would hide a future regression"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static Rule, line: u32) -> Finding {
        Finding::new(rule, location(&Arc::from("vm.yaml"), line, 3, 1), "x")
    }

    #[test]
    fn line_document_and_unused_suppressions() {
        let text = "# kvlint: ignore[status-committed] exported on purpose for the demo\napiVersion: v1\nkind: X\nspec:\n  a: 1 # kvlint: ignore[KV3003] pinned elsewhere\n  # kvlint: ignore[revision-name-in-spec] restored from a snapshot\n  b: 2\n  # kvlint: ignore[KV3004]\n  c: 3\n";
        let (suppressions, problems) = scan(&Arc::from("vm.yaml"), text, &[(2, 9)]);
        assert_eq!(problems.len(), 1, "the reasonless one");
        assert_eq!(suppressions.len(), 3);
        assert_eq!(suppressions[0].scope, Scope::Document(2, 9));
        assert_eq!(suppressions[1].scope, Scope::Line(5));
        assert_eq!(suppressions[2].scope, Scope::Line(7));
        let mut findings = vec![
            finding(&rules::STATUS_COMMITTED, 4),
            finding(&rules::MACHINE_TYPE_DEFAULTED, 5),
            finding(&rules::MACHINE_TYPE_DEFAULTED, 6),
        ];
        apply(&mut findings, &suppressions);
        let left: Vec<(&str, u32)> = findings
            .iter()
            .map(|f| (f.rule.code, f.location.span.start.line))
            .collect();
        assert_eq!(left, [("KV3003", 6), ("KV0017", 6)]);
    }

    #[test]
    fn a_comment_above_an_embedded_object_covers_it() {
        let suppression = |line, target| Suppression {
            file: Arc::from("hr.yaml"),
            line,
            column: 7,
            scope: Scope::Line(target),
            rules: vec![&rules::UNRESOLVED_INSTANCETYPE],
            reason: "r".to_owned(),
        };
        let mut suppressions = vec![suppression(12, 13), suppression(13, 13), suppression(1, 2)];
        cover_embedded(&mut suppressions, "hr.yaml", &[(13, 40)]);
        assert_eq!(suppressions[0].scope, Scope::Document(13, 40));
        assert_eq!(suppressions[1].scope, Scope::Line(13), "a trailing comment");
        assert_eq!(suppressions[2].scope, Scope::Line(2));
    }
}
