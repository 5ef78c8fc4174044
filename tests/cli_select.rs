//! Rule selection (`--select`, `--extend-select`, `--ignore`, `per-file-ignores`),
//! `--statistics`, `--quiet`, the report format in GitHub Actions, `.kvlint.yml` beside
//! `.kvlint.yaml`, and the selectors that match nothing.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

/// The demo repository, checked as written (no Kustomize build), in the project's directory.
fn check(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["check", "examples/demo", "--units", "off"])
        .args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("kvlint runs")
}

fn codes(output: &Output) -> Vec<String> {
    common::json_report(output)["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn select_takes_codes_prefixes_names_and_categories() {
    let all = codes(&check(&["--format", "json"], &[]));
    assert!(all.iter().any(|c| c.starts_with("KV3")) && all.iter().any(|c| c == "KV1001"));
    let drift = codes(&check(&["--format", "json", "--select", "drift"], &[]));
    assert!(!drift.is_empty());
    assert!(drift.iter().all(|c| c.starts_with("KV3")), "{drift:?}");
    let mixed = codes(&check(
        &[
            "--format",
            "json",
            "--select",
            "KV1001,preference-requirement-unmet",
            "--select",
            "KV30",
        ],
        &[],
    ));
    assert!(mixed.contains(&"KV1001".to_owned()) && mixed.contains(&"KV1002".to_owned()));
    assert!(
        mixed
            .iter()
            .all(|c| c == "KV1001" || c == "KV1002" || c.starts_with("KV30")),
        "{mixed:?}"
    );
}

#[test]
fn ignore_removes_and_the_more_specific_selector_wins() {
    let output = check(
        &[
            "--format",
            "json",
            "--ignore",
            "drift",
            "--extend-select",
            "KV3006",
        ],
        &[],
    );
    let found = codes(&output);
    assert!(found.contains(&"KV3006".to_owned()), "{found:?}");
    assert!(!found.contains(&"KV3003".to_owned()), "{found:?}");
    assert!(found.contains(&"KV1001".to_owned()));
    // The summary counts only what is reported.
    let summary = &common::json_report(&output)["summary"];
    let counted = ["errors", "warnings", "infos"]
        .iter()
        .map(|k| summary[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(counted, found.len() as u64);
}

#[test]
fn an_unknown_selector_is_a_usage_error_that_says_why() {
    for selector in ["KV9", "no-such-rule", "dirft"] {
        let output = check(&["--select", selector], &[]);
        assert_eq!(output.status.code(), Some(2), "{selector}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(selector) && stderr.contains("no rule code"),
            "{stderr}"
        );
    }
}

#[test]
fn statistics_count_per_rule_by_count_then_code() {
    let output = check(&["--statistics", "--format", "concise"], &[]);
    let text = stdout(&output);
    let rows: Vec<(usize, &str)> = text
        .lines()
        .filter(|line| {
            line.trim_start().starts_with(|c: char| c.is_ascii_digit()) && line.contains("  KV")
        })
        .map(|line| {
            let mut fields = line.split_whitespace();
            (
                fields.next().unwrap().parse().unwrap(),
                fields.next().unwrap(),
            )
        })
        .collect();
    assert!(rows.len() > 3, "{text}");
    let mut sorted = rows.clone();
    sorted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    assert_eq!(rows, sorted);
    assert!(
        !text.contains("examples/demo/"),
        "findings are replaced by counts: {text}"
    );
    assert!(text.ends_with("infos\n"), "{text}");

    let json = common::json_report(&check(&["--statistics", "--format", "json"], &[]));
    let stats = json["summary"]["statistics"]
        .as_array()
        .expect("statistics");
    let total: u64 = stats.iter().map(|s| s["count"].as_u64().unwrap()).sum();
    assert_eq!(
        usize::try_from(total).unwrap(),
        json["diagnostics"].as_array().unwrap().len()
    );
    assert_eq!(stats[0]["code"], rows[0].1);
    // Additive: absent without the option.
    let plain = common::json_report(&check(&["--format", "json"], &[]));
    assert!(plain["summary"].get("statistics").is_none());
}

#[test]
fn quiet_prints_only_the_findings() {
    let loud = check(
        &["--format", "concise", "--kubevirt-version", "v1.6.99"],
        &[],
    );
    assert!(String::from_utf8_lossy(&loud.stderr).contains("note:"));
    let quiet = check(
        &["--format", "concise", "-q", "--kubevirt-version", "v1.6.99"],
        &[],
    );
    assert_eq!(quiet.status.code(), loud.status.code());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let (loud, quiet) = (stdout(&loud), stdout(&quiet));
    assert!(loud.starts_with(&quiet) && !quiet.is_empty());
    assert_eq!(loud.lines().count(), quiet.lines().count() + 1);
}

#[test]
fn github_actions_default_to_github_annotations_and_output_format_aliases_format() {
    let in_actions = stdout(&check(&[], &[("GITHUB_ACTIONS", "true")]));
    assert!(in_actions.starts_with("::"), "{in_actions}");
    let given = stdout(&check(
        &["--format", "concise"],
        &[("GITHUB_ACTIONS", "true")],
    ));
    assert!(given.starts_with("examples/demo/"), "{given}");
    let alias = stdout(&check(&["--output-format", "concise"], &[]));
    assert_eq!(alias, given);
    let both = check(&["--output-format", "concise", "--format", "json"], &[]);
    assert_eq!(both.status.code(), Some(2));
    let rules = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["rules", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(stdout(&rules).starts_with('['), "{}", stdout(&rules));
}

fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    common::git_repository(files)
}

fn check_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .args(["check", ".", "--units", "off", "--format", "json"])
        .args(args)
        .output()
        .expect("kvlint runs")
}

/// An object of a kind kvlint has no schema for, with a YAML 1.1 boolean where the author may
/// have meant a string: a KV0003 warning and nothing else.
const WIDGET: &str =
    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x\nspec:\n  backup: yes\n";

#[test]
fn configuration_selects_ignores_and_ignores_per_file() {
    let dir = repository(&[
        (
            ".kvlint.yaml",
            "select: [syntax]\nignore: [KV0019]\nper-file-ignores:\n  legacy/**: [KV0003]\n  old-*.yaml: [yaml11-ambiguous-scalar]\n",
        ),
        ("apps/a.yaml", WIDGET),
        ("legacy/b.yaml", WIDGET),
        ("apps/old-c.yaml", WIDGET),
    ]);
    let output = check_in(dir.path(), &[]);
    let report = common::json_report(&output);
    let files: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["apps/a.yaml"], "{report}");
    // The command line's --select replaces the file's selection.
    let all = codes(&check_in(dir.path(), &["--select", "KV0003,KV0019"]));
    assert_eq!(all, ["KV0003"], "per-file-ignores still apply");
}

#[test]
fn off_in_rules_is_an_ignore_the_command_line_can_select_again() {
    let dir = repository(&[
        (".kvlint.yaml", "rules:\n  KV0003: off\n  KV0006: error\n"),
        ("a.yaml", WIDGET),
        ("kustomization.yaml", "resources: [a.yaml]\n"),
    ]);
    let output = check_in(dir.path(), &[]);
    let report = common::json_report(&output);
    let diags = report["diagnostics"].as_array().unwrap();
    assert!(diags.iter().all(|d| d["code"] != "KV0003"), "{report}");
    assert!(
        diags
            .iter()
            .any(|d| d["code"] == "KV0006" && d["severity"] == "error"),
        "{report}"
    );
    let again = common::json_report(&check_in(dir.path(), &["--extend-select", "KV0003"]));
    assert!(
        again["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "KV0003" && d["severity"] == "warning"),
        "{again}"
    );
}

#[test]
fn unknown_selectors_in_the_configuration_are_kv0019_at_their_line() {
    let dir = repository(&[
        (
            ".kvlint.yaml",
            "select:\n  - KV1\n  - nosuch\nper-file-ignores:\n  '[': [KV1]\n  a/**: [dirft]\n",
        ),
        ("a.yaml", WIDGET),
    ]);
    let report = common::json_report(&check_in(dir.path(), &[]));
    let lines: Vec<(u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0019")
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0].0, 3);
    assert!(lines[0].1.contains("nosuch"));
    assert_eq!(lines[1].0, 5);
    assert_eq!(lines[2].0, 6);
    assert!(lines[2].1.contains("dirft"));
}

#[test]
fn kvlint_yml_beside_kvlint_yaml_is_reported_and_not_used() {
    let dir = repository(&[
        (".kvlint.yaml", "rules:\n  KV0003: error\n"),
        (".kvlint.yml", "rules:\n  KV0003: off\n"),
        ("a.yaml", WIDGET),
    ]);
    let report = common::json_report(&check_in(dir.path(), &[]));
    let diags = report["diagnostics"].as_array().unwrap();
    assert!(
        diags.iter().any(|d| d["code"] == "KV0019"
            && d["file"] == ".kvlint.yml"
            && d["message"].as_str().unwrap().contains(".kvlint.yaml")),
        "{report}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d["code"] == "KV0003" && d["severity"] == "error")
    );
}

#[test]
fn diff_base_with_a_path_on_neither_side_exits_2() {
    let dir = repository(&[("a.yaml", WIDGET)]);
    common::git(dir.path(), &["add", "."]);
    common::git(dir.path(), &["commit", "-q", "-m", "base"]);
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir.path())
        .args(["diff", "--base", "HEAD", "nosuchdir"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("nosuchdir: no such file"), "{stderr}");
    // A path deleted in the working tree is a removal, not a mistake.
    std::fs::remove_file(dir.path().join("a.yaml")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir.path())
        .args(["diff", "--base", "HEAD", "a.yaml", "--units", "off"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn render_selectors_that_match_nothing_exit_2() {
    for vm in ["no/such", "badformat"] {
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["render", "examples/demo", "--units", "off", "--vm", vm])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{vm}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(vm));
    }
}
