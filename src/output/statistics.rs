//! `check --statistics`: how many findings each rule reported, and `--quiet`'s report without
//! its summary line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::check::vm::Rendered;
use crate::check::{Report, RuleCount, Sink, rule_counts};
use crate::diag::Finding;
use crate::error::Error;

/// One line per rule: the count (right-aligned), the code and the name; then the summary line.
pub fn text(report: &Report) -> String {
    let counts = report
        .summary
        .statistics
        .clone()
        .unwrap_or_else(|| rule_counts(&report.findings));
    let width = counts
        .iter()
        .map(|count| count.count.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for RuleCount { code, name, count } in &counts {
        let _ = writeln!(out, "{count:>width$}  {code}  {name}");
    }
    out.push_str(&super::human::summary_line(report));
    out
}

/// A text report without its closing summary line (`--quiet`): the concise one or the human
/// report's.
pub fn without_summary(text: String, report: &Report) -> String {
    let summaries = [
        super::human::summary_line(report),
        super::human::human_summary_line(report),
    ];
    match summaries
        .iter()
        .find_map(|summary| text.strip_suffix(summary.as_str()))
    {
        Some(findings) => findings.to_owned(),
        None => text,
    }
}

/// Passes findings on to another sink, counting them per rule.
pub struct Counting<'a> {
    inner: &'a mut dyn Sink,
    counts: BTreeMap<&'static str, (&'static str, usize)>,
}

impl<'a> Counting<'a> {
    pub fn new(inner: &'a mut dyn Sink) -> Self {
        Self {
            inner,
            counts: BTreeMap::new(),
        }
    }

    /// The counts, by count (highest first) then code.
    pub fn counts(&self) -> Vec<RuleCount> {
        let mut counts: Vec<RuleCount> = self
            .counts
            .iter()
            .map(|(code, (name, count))| RuleCount {
                code,
                name,
                count: *count,
            })
            .collect();
        counts.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
        counts
    }
}

impl Sink for Counting<'_> {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), Error> {
        for finding in &findings {
            self.counts
                .entry(finding.rule.code)
                .or_insert((finding.rule.name, 0))
                .1 += 1;
        }
        self.inner.findings(findings)
    }

    fn rendered(&mut self, rendered: Rendered) {
        self.inner.rendered(rendered);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::Location;
    use crate::yaml::{Pos, Span};

    fn finding(code: &str) -> Finding {
        let start = Pos {
            line: 1,
            column: 1,
            index: 0,
        };
        Finding::new(
            crate::rules::find(code).unwrap(),
            Location {
                file: Arc::from("a.yaml"),
                span: Span { start, end: start },
            },
            "m",
        )
    }

    #[test]
    fn counts_sort_by_count_then_code() {
        let findings: Vec<Finding> = ["KV3006", "KV1001", "KV3006", "KV1002"]
            .into_iter()
            .map(finding)
            .collect();
        let report = Report {
            findings,
            ..Report::default()
        };
        let text = text(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("2  KV3006  "), "{text}");
        assert!(lines[1].starts_with("1  KV1001  "), "{text}");
        assert!(lines[2].starts_with("1  KV1002  "), "{text}");
    }
}
