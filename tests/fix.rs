//! `kvlint fix`: before/after snapshots for every fixable rule and for comments, anchors, flow
//! style and CRLF files; on the real-world corpus, the fixed findings are gone, a second run
//! changes nothing, and every changed file holds the same objects apart from the fixed fields.

#![allow(clippy::print_stderr)] // the corpus test prints how many fixes each rule made
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kvlint::check::{self, Options};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::commands::fix::{self, FixOptions, Outcome};
use kvlint::config::ConfigChoice;
use kvlint::rules::{ALL, FixKind};
use kvlint::source::Selection;
use kvlint::yaml::{FieldPath, Limits, Segment, parse_stream};
use serde_json::Value;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/real-world");

fn options(dir: &Path, version: Option<KubeVirtVersion>) -> Options {
    Options {
        selection: Selection {
            paths: vec![dir.to_path_buf()],
            ..Selection::default()
        },
        version,
        config: ConfigChoice::None,
        ..Options::default()
    }
}

fn run_fix(dir: &Path, version: Option<KubeVirtVersion>, unsafe_fixes: bool) -> Outcome {
    let mut outcome = fix::plan(&FixOptions {
        check: options(dir, version),
        unsafe_fixes,
    })
    .unwrap();
    fix::write(&mut outcome).unwrap();
    outcome
}

/// Makes file names relative to the copy and shows carriage returns.
fn describe(outcome: &Outcome, dir: &Path) -> String {
    let prefix = format!("{}/", std::fs::canonicalize(dir).unwrap().display());
    let relative = |file: &str| file.strip_prefix(&prefix).unwrap_or(file).to_owned();
    let mut out = String::new();
    for applied in &outcome.applied {
        let _ = writeln!(
            out,
            "fixed {}:{} {} ({}) {}",
            relative(&applied.file),
            applied.line,
            applied.rule.code,
            applied.kind,
            applied.description
        );
    }
    for skipped in &outcome.skipped {
        let _ = writeln!(
            out,
            "left  {}:{} {} {}",
            relative(&skipped.file),
            skipped.line,
            skipped.rule.code,
            skipped.reason
        );
    }
    for change in &outcome.changes {
        let show = |text: &str| text.replace('\r', "␍");
        let _ = write!(
            out,
            "\n=== {} before\n{}\n=== {} after\n{}",
            relative(&change.file),
            show(&change.before),
            relative(&change.file),
            show(&change.after)
        );
    }
    out
}

/// Fixes a copy of `fixture`, snapshots before/after, and checks the fixed findings are gone and
/// a second run changes nothing.
fn fix_fixture(name: &str, fixture: &Path, version: Option<KubeVirtVersion>) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(fixture, dir.path());
    let outcome = run_fix(dir.path(), version, true);
    insta::assert_snapshot!(name, describe(&outcome, dir.path()));
    let report = check::run(&options(dir.path(), version)).unwrap();
    for applied in &outcome.applied {
        assert!(
            !report
                .findings
                .iter()
                .any(|f| f.rule.code == applied.rule.code
                    && f.object == applied.object
                    && applied.fields.iter().any(|p| Some(p.to_string()) == f.path)),
            "{name}: {} is still reported after the fix",
            applied.rule.code
        );
    }
    let again = run_fix(dir.path(), version, true);
    assert!(
        again.changes.is_empty(),
        "{name}: a second run changed {:?}",
        again.changes.iter().map(|c| &c.file).collect::<Vec<_>>()
    );
    outcome
}

#[test]
fn every_fixable_rule_fixes_its_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
    for rule in ALL.iter().filter(|rule| rule.fix != FixKind::None) {
        let kind = &rule.fix;
        let dir = root.join(rule.code);
        let version = std::fs::read_to_string(dir.join("version"))
            .ok()
            .map(|v| v.trim().parse().unwrap());
        // A rule whose failing fixture has no fixable finding has its own fix fixture.
        let own =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("testdata/fix/rule-{}", rule.code));
        let fixture = if own.is_dir() { own } else { dir.join("fail") };
        let outcome = fix_fixture(&format!("rule_{}", rule.code), &fixture, version);
        assert!(
            outcome.applied.iter().any(|a| a.rule.code == rule.code),
            "{}: no fix was made",
            rule.code
        );
        assert!(
            outcome
                .applied
                .iter()
                .all(|a| a.rule.code != rule.code || a.kind == *kind),
            "{}",
            rule.code
        );
    }
}

#[test]
fn unsafe_fixes_wait_for_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rules/KV3006/fail"),
        dir.path(),
    );
    let outcome = run_fix(dir.path(), None, false);
    assert!(outcome.applied.iter().all(|a| a.kind == FixKind::Safe));
    assert!(outcome.unsafe_available > 0);
}

#[test]
fn comments_survive() {
    let outcome = fix_fixture(
        "comments",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix/comments"),
        None,
    );
    let after = &outcome.changes[0].after;
    for comment in [
        "# Exported from the cluster",
        "# the VM's name",
        "# Start it right away.",
        "# the instance type",
        "# pinned",
        "# Devices come from",
    ] {
        assert!(after.contains(comment), "{comment} was lost");
    }
}

#[test]
fn anchors_used_elsewhere_are_left_alone() {
    let outcome = fix_fixture(
        "anchors",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix/anchors"),
        None,
    );
    assert!(
        outcome
            .skipped
            .iter()
            .any(|s| s.rule.code == "KV4004" && s.reason.contains("anchor")),
        "{:?}",
        outcome.skipped
    );
    assert!(outcome.changes[0].after.contains("&shared"));
}

#[test]
fn flow_style_is_edited_in_place() {
    let outcome = fix_fixture(
        "flow",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix/flow"),
        None,
    );
    assert!(
        outcome.changes[0]
            .after
            .contains("metadata: {name: flow, labels: {app: flow}}")
    );
}

#[test]
fn crlf_files_stay_crlf() {
    let outcome = fix_fixture(
        "crlf",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix/crlf"),
        None,
    );
    let after = &outcome.changes[0].after;
    assert_eq!(
        after.matches('\n').count(),
        after.matches("\r\n").count(),
        "a bare LF was written"
    );
}

fn corpus_available() -> bool {
    if Path::new(CORPUS).is_dir() {
        return true;
    }
    assert!(
        std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
        "{CORPUS} is missing but KVLINT_REQUIRE_SHARED is set"
    );
    eprintln!("skipped: {CORPUS} not present");
    false
}

/// Every leaf path of a JSON value (empty maps and lists count as leaves).
fn leaves(value: &Value, path: &mut Vec<Segment>, out: &mut BTreeMap<FieldPath, Value>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                path.push(Segment::Key(key.clone()));
                leaves(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, child) in items.iter().enumerate() {
                path.push(Segment::Index(i));
                leaves(child, path, out);
                path.pop();
            }
        }
        other => {
            out.insert(FieldPath(path.clone()), other.clone());
        }
    }
}

/// The objects of a file: each document, and each item of a List.
fn objects(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for document in parse_stream(text, Limits::default()) {
        let value = document.expect("the fixed file parses").root.to_json();
        match value.get("items").and_then(Value::as_array) {
            Some(items) => out.extend(items.iter().cloned()),
            None => out.push(value),
        }
    }
    out
}

fn name_of(object: &Value) -> Option<(String, String)> {
    let field = |key: &str| {
        object
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let name = match field("name") {
        name if name.is_empty() => format!("{}*", field("generateName")),
        name => name,
    };
    object.get("kind").map(|_| (field("namespace"), name))
}

#[test]
fn real_world_corpus_is_fixed_idempotently_and_only_where_intended() {
    if !corpus_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(Path::new(CORPUS), dir.path());
    let before = check::run(&options(dir.path(), None)).unwrap();
    let outcome = run_fix(dir.path(), None, true);
    assert!(!outcome.applied.is_empty());

    let mut per_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for finding in &before.findings {
        if finding.fix.is_some() {
            per_rule.entry(finding.rule.code).or_default().0 += 1;
        }
    }
    for applied in &outcome.applied {
        per_rule.entry(applied.rule.code).or_default().1 += 1;
    }
    eprintln!("rule    fixable-findings fixes-made");
    for (code, (found, fixed)) in &per_rule {
        eprintln!("{code}  {found:>16} {fixed:>10}");
    }
    eprintln!(
        "{} fixes in {} files, {} left as they are",
        outcome.applied.len(),
        outcome.changes.len(),
        outcome.skipped.len()
    );

    // None of the fixed findings is reported any more.
    let after = check::run(&options(dir.path(), None)).unwrap();
    let canonical = |file: &str| -> PathBuf { std::fs::canonicalize(file).unwrap() };
    for applied in &outcome.applied {
        let file = canonical(&applied.file);
        for finding in after.findings.iter().filter(|f| {
            f.rule.code == applied.rule.code
                && f.object == applied.object
                && canonical(&f.location.file) == file
        }) {
            assert!(
                !applied
                    .fields
                    .iter()
                    .any(|p| Some(p.to_string()) == finding.path),
                "{} at {:?} in {} survived the fix",
                finding.rule.code,
                finding.path,
                applied.file
            );
        }
    }

    // A refused fix leaves its finding for the owner.
    for skipped in &outcome.skipped {
        assert!(
            after
                .findings
                .iter()
                .any(|f| f.rule.code == skipped.rule.code && f.location.file == skipped.file),
            "{}: refused {} but its finding is gone",
            skipped.file,
            skipped.rule.code
        );
    }

    // Idempotent.
    let again = run_fix(dir.path(), None, true);
    assert!(again.changes.is_empty(), "a second run changed files");

    // Same objects apart from the fixed fields.
    for change in &outcome.changes {
        let (old, new) = (objects(&change.before), objects(&change.after));
        assert_eq!(old.len(), new.len(), "{}: objects differ", change.file);
        for (was, is) in old.iter().zip(&new) {
            assert_eq!(name_of(was), name_of(is), "{}", change.file);
            let fixed: Vec<&FieldPath> = outcome
                .applied
                .iter()
                .filter(|a| {
                    a.file == change.file
                        && a.object.as_ref().map(|o| &o.name)
                            == name_of(is).map(|(_, name)| name).as_ref()
                })
                .flat_map(|a| &a.fields)
                .collect();
            let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
            leaves(was, &mut Vec::new(), &mut a);
            leaves(is, &mut Vec::new(), &mut b);
            let changed: BTreeSet<&FieldPath> = a
                .keys()
                .chain(b.keys())
                .filter(|p| a.get(*p) != b.get(*p))
                .collect();
            for path in changed {
                assert!(
                    fixed
                        .iter()
                        .any(|f| path.starts_with(f) || f.starts_with(path)),
                    "{}: `{path}` changed but no fix targets it",
                    change.file
                );
            }
        }
    }
}

fn kvlint(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .output()
        .expect("kvlint runs")
}

#[test]
fn cli_check_and_diff_write_nothing_and_exit_1_then_fix_writes_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fix/comments"),
        dir.path(),
    );
    let file = dir.path().join("vm.yaml");
    let original = std::fs::read_to_string(&file).unwrap();
    let path = dir.path().to_str().unwrap();

    let check = kvlint(&["fix", "--check", path]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("KV4002 remove `status`"));
    let diff = kvlint(&["fix", "--diff", path]);
    assert_eq!(diff.status.code(), Some(1));
    let diff_text = String::from_utf8_lossy(&diff.stdout);
    assert!(diff_text.contains("-status:"), "{diff_text}");
    assert!(diff_text.contains("+  runStrategy: Always"), "{diff_text}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), original);

    let json_run = kvlint(&["fix", "--check", "--format", "json", path]);
    let value: Value = serde_json::from_slice(&json_run.stdout).unwrap();
    let listed = value["fixes"].as_array().unwrap();
    assert!(
        listed
            .iter()
            .any(|f| f["rule"] == "KV4001" && f["line"] == 25 && f["kind"] == "safe")
    );
    assert_eq!(value["written"], false);

    let fixed = kvlint(&["fix", path]);
    assert_eq!(fixed.status.code(), Some(0));
    assert_ne!(std::fs::read_to_string(&file).unwrap(), original);
    let again = kvlint(&["fix", "--check", path]);
    assert_eq!(again.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&again.stdout).contains("would fix 0 findings"));

    let stdin = kvlint(&["fix", "-"]);
    assert_eq!(stdin.status.code(), Some(2));
}
