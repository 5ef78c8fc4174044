//! The rule registry stays honest: docs/rules.md is generated from it, every explanation has
//! the fixed headings, and every rule fires in at least one fixture.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use kvlint::check::{self, Options};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::config::ConfigChoice;
use kvlint::rules::ALL;
use kvlint::source::Selection;

const DOCS: &str = "docs/rules.md";

/// Regenerate with `KVLINT_UPDATE_DOCS=1 cargo test --test integration registry::`.
#[test]
fn docs_rules_md_is_current() {
    let generated = kvlint::rules::explain::rules_markdown();
    if std::env::var_os("KVLINT_UPDATE_DOCS").is_some() {
        std::fs::write(DOCS, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(DOCS).unwrap_or_default();
    assert!(
        committed == generated,
        "{DOCS} is stale: run `KVLINT_UPDATE_DOCS=1 cargo test --test integration registry::` and commit it"
    );
}

#[test]
fn explanations_use_the_fixed_headings() {
    let headings = [
        "### What it flags",
        "### Why it matters",
        "### Example",
        "### Fix",
        "### References",
    ];
    for rule in ALL {
        let found: Vec<&str> = rule
            .explanation
            .lines()
            .filter(|l| l.starts_with('#'))
            .collect();
        assert_eq!(found, headings, "{} {}", rule.code, rule.name);
    }
}

fn codes_in(dir: &Path, version: Option<KubeVirtVersion>) -> BTreeSet<&'static str> {
    let report = check::run(&Options {
        selection: Selection {
            paths: vec![dir.to_path_buf()],
            ..Selection::default()
        },
        version,
        config: ConfigChoice::Discover,
        ..Options::default()
    })
    .unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    report.findings.iter().map(|f| f.rule.code).collect()
}

/// Every rule has `testdata/rules/<CODE>/fail` (where it fires) and `pass` (the same input
/// fixed, where it does not); an optional `version` file names the KubeVirt release.
#[test]
fn every_rule_fires_on_its_failing_fixture_and_not_on_its_passing_one() {
    let mut missing = Vec::new();
    let mut wrong = Vec::new();
    for rule in ALL {
        let dir = Path::new("testdata/rules").join(rule.code);
        // The unit rules need Kustomize to build their fixtures.
        let unit_rule = ["KV0020", "KV0021", "KV0022"].contains(&rule.code);
        if unit_rule && dir.is_dir() && !common::kustomize_available(rule.code) {
            continue;
        }
        if !dir.is_dir() {
            missing.push(rule.code);
            continue;
        }
        let version = std::fs::read_to_string(dir.join("version"))
            .ok()
            .map(|v| v.trim().parse().expect("a version such as v1.6"));
        let failing = codes_in(&dir.join("fail"), version);
        if !failing.contains(rule.code) {
            wrong.push(format!(
                "{} does not fire on its failing fixture: {failing:?}",
                rule.code
            ));
        }
        let passing = codes_in(&dir.join("pass"), version);
        if passing.contains(rule.code) {
            wrong.push(format!("{} fires on its passing fixture", rule.code));
        }
    }
    assert!(missing.is_empty(), "rules without fixtures: {missing:?}");
    assert!(wrong.is_empty(), "{wrong:#?}");
}
