//! KubeVirt's own judgement of instance types and preferences: the `expected-objects.jsonl`
//! files of ../shared/conformance (recorded by KubeVirt's instance-type and preference admitters;
//! the shared runner does not score them). For each object kvlint must agree: a refused object
//! carries, for each cause, an error of category `reject` or `schema` at the cause's field; an
//! admitted object carries no such error; each warning KubeVirt returns is a finding with its
//! message.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const CASES: &str = "../shared/conformance/cases";
const CATALOG: &str = "../shared/catalog";

fn cases_with_object_verdicts() -> Option<Vec<PathBuf>> {
    if !Path::new(CASES).is_dir() {
        assert!(
            std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
            "KVLINT_REQUIRE_SHARED is set but {CASES} does not exist"
        );
        #[allow(clippy::print_stderr)] // a skipped test says why
        {
            eprintln!("conformance_objects: skipped, {CASES} is absent");
        }
        return None;
    }
    let mut cases: Vec<PathBuf> = std::fs::read_dir(CASES)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|case| case.join("expected-objects.jsonl").is_file())
        .collect();
    cases.sort();
    Some(cases)
}

/// The files the shared runner gives kvlint for a case: its input, and the catalog bundles when
/// the case uses them.
fn inputs(case: &Path) -> Vec<String> {
    let mut files = vec![case.join("input.yaml").display().to_string()];
    if case.join("uses-catalog").exists() {
        let mut bundles: Vec<String> = std::fs::read_dir(CATALOG)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
            .map(|path| path.display().to_string())
            .collect();
        bundles.sort();
        files.extend(bundles);
    }
    files
}

fn check(case: &Path) -> Vec<Value> {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            "--no-config",
            "--format",
            "json",
            "--fail-on",
            "none",
        ])
        .args(inputs(case))
        .output()
        .unwrap();
    common::json_report(&output)["diagnostics"]
        .as_array()
        .unwrap()
        .clone()
}

/// `Kind/name` of a finding's object.
fn object_of(finding: &Value) -> String {
    let object = &finding["object"];
    format!(
        "{}/{}",
        object["kind"].as_str().unwrap_or_default(),
        object["name"].as_str().unwrap_or_default()
    )
}

fn is_refusal(finding: &Value) -> bool {
    finding["severity"] == "error"
        && matches!(finding["category"].as_str(), Some("reject" | "schema"))
}

/// Where a refusal points, as KubeVirt names fields: its `kubevirt_field`, else its path.
fn field_of(finding: &Value) -> &str {
    finding["kubevirt_field"]
        .as_str()
        .or_else(|| finding["path"].as_str())
        .unwrap_or_default()
}

/// What kvlint says of one object, against KubeVirt's verdict; empty when they agree.
fn disagreements(object: &str, admission: &Value, findings: &[&Value]) -> Vec<String> {
    let refusals: BTreeSet<&str> = findings
        .iter()
        .filter(|f| is_refusal(f))
        .map(|f| field_of(f))
        .collect();
    let messages: BTreeSet<&str> = findings
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    let mut out = Vec::new();
    if admission["allowed"] == true {
        if !refusals.is_empty() {
            out.push(format!(
                "{object}: admitted by KubeVirt, refused by kvlint at {refusals:?}"
            ));
        }
    } else {
        let causes = admission["causes"].as_array().unwrap();
        assert!(!causes.is_empty(), "{object}: a refusal without causes");
        for cause in causes {
            let field = cause["field"].as_str().unwrap();
            if !refusals.contains(field) {
                out.push(format!(
                    "{object}: KubeVirt refuses {field} ({}), kvlint at {refusals:?}",
                    cause["message"]
                ));
            }
        }
    }
    for warning in admission["warnings"].as_array().into_iter().flatten() {
        let warning = warning.as_str().unwrap();
        if !messages.contains(warning) {
            out.push(format!(
                "{object}: KubeVirt warns {warning:?}, kvlint does not"
            ));
        }
    }
    out
}

#[test]
fn instance_types_and_preferences_are_judged_as_kubevirt_judges_them() {
    let Some(cases) = cases_with_object_verdicts() else {
        return;
    };
    let (mut scored, mut refused, mut warned) = (0, 0, 0);
    let mut problems = Vec::new();
    for case in &cases {
        let diagnostics = check(case);
        let text = std::fs::read_to_string(case.join("expected-objects.jsonl")).unwrap();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let verdict: Value = serde_json::from_str(line).unwrap();
            let object = verdict["object"].as_str().unwrap();
            let admission = &verdict["admission"];
            let findings: Vec<&Value> = diagnostics
                .iter()
                .filter(|f| object_of(f) == object)
                .collect();
            scored += 1;
            refused += usize::from(admission["allowed"] == false);
            warned += usize::from(admission["warnings"].is_array());
            let case = case.file_name().unwrap().to_string_lossy();
            problems.extend(
                disagreements(object, admission, &findings)
                    .into_iter()
                    .map(|problem| format!("{case}: {problem}")),
            );
        }
    }
    // The shared set holds 8 cases with 12 verdicts; a runner that scored none would pass on
    // nothing.
    assert!(
        cases.len() >= 8 && scored >= 12 && refused >= 3 && warned >= 5,
        "{} cases, {scored} verdicts ({refused} refusals, {warned} with warnings)",
        cases.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
