//! `kvlint check ../shared/bench/sample-200` reports every defect the generator injected, at
//! its object and field, and no error on any other object except where KubeVirt's own code
//! refuses what the generator believes valid.

#![allow(clippy::print_stderr)] // a skipped run says why
use std::collections::BTreeSet;
use std::path::Path;

use kvlint::check::{self, Options};
use kvlint::diag::Severity;
use kvlint::source::Selection;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bench/sample-200");
const EXPECTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/bench/sample-200.expected.json"
);

fn shared_available() -> bool {
    if Path::new(SAMPLE).is_dir() {
        return true;
    }
    assert!(
        std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
        "{SAMPLE} is missing but KVLINT_REQUIRE_SHARED is set"
    );
    eprintln!("skipped: {SAMPLE} not present");
    false
}

/// Whether a finding's path is the field or a parent of it.
fn covers(path: &str, field: &str) -> bool {
    field == path
        || field.starts_with(&format!("{path}."))
        || field.starts_with(&format!("{path}["))
}

/// What kvlint must report for each kind of defect the generator injects: the rule, the path
/// the finding is at (the defect's own field when it names one, covered by the path), and the
/// values the message must quote (from the defect's detail).
fn expectation(defect: &Value) -> (&'static str, &'static str, Vec<String>) {
    let detail = &defect["detail"];
    let text = |key: &str| match &detail[key] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match defect["type"].as_str().unwrap() {
        "inferred_name_committed" => ("KV4005", "spec.preference", vec![]),
        "committed_status" => ("KV4002", "status", vec![]),
        "revision_name" => ("KV4001", "spec.instancetype.revisionName", vec![]),
        "conflict_memory" | "conflict_cpu" => ("KV1001", "", vec![]),
        "missing_instancetype" => ("KV1006", "spec.instancetype", vec![text("ref")]),
        "missing_preference" => ("KV1007", "spec.preference", vec![text("ref")]),
        "infer_missing_labels" => ("KV1005", "spec.instancetype.inferFromVolume", vec![]),
        "unmet_cpu" => (
            "KV1002",
            "spec.instancetype",
            vec![
                format!("{} vCPU provided", text("provided")),
                format!("requires {} vCPU", text("required")),
            ],
        ),
        "unmet_memory" => (
            "KV1002",
            "spec.instancetype",
            vec![
                format!("{} provided", text("provided")),
                format!("requires {}", text("required")),
            ],
        ),
        "unmet_architecture" => (
            "KV1002",
            "spec.template.spec.architecture",
            vec![
                format!("requires architecture {}", text("required")),
                format!("but {} is being requested", text("provided")),
            ],
        ),
        other => panic!("a defect kind this test does not know: {other}"),
    }
}

#[test]
fn sample_200_defects_are_reported_and_nothing_else() {
    if !shared_available() {
        return;
    }
    let report = check::run(&Options {
        selection: Selection {
            paths: vec![SAMPLE.into()],
            ..Selection::default()
        },
        ..Options::default()
    })
    .expect("runs");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(EXPECTED).unwrap()).unwrap();
    let defects = expected["defects"].as_array().unwrap();
    assert_eq!(defects.len(), 11);
    let mut defective = BTreeSet::new();
    for defect in defects {
        let (namespace, name) = (
            defect["namespace"].as_str().unwrap(),
            defect["name"].as_str().unwrap(),
        );
        defective.insert((namespace.to_owned(), name.to_owned()));
        let field = defect["detail"]["field"].as_str();
        let (code, at, quoted) = expectation(defect);
        let found = report.findings.iter().any(|f| {
            f.rule.code == code
                && f.severity >= Severity::Warning
                && f.object
                    .as_ref()
                    .is_some_and(|o| o.namespace.as_deref() == Some(namespace) && o.name == name)
                && f.path.as_deref().is_some_and(|path| {
                    (at.is_empty() || path == at) && field.is_none_or(|field| covers(path, field))
                })
                && quoted
                    .iter()
                    .all(|value| f.message.contains(value.as_str()))
        });
        assert!(
            found,
            "defect {} of {namespace}/{name} (field {field:?}): no {code} at {at:?} quoting {quoted:?}",
            defect["type"]
        );
    }
    for finding in report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
    {
        let object = finding.object.as_ref().expect("errors name their object");
        let key = (
            object.namespace.clone().unwrap_or_default(),
            object.name.clone(),
        );
        if defective.contains(&key) {
            continue;
        }
        // The generator writes some VMs without runStrategy or running, and spreads a 1-vCPU
        // instance type; KubeVirt v1.9 refuses both (vms-admitter.go validateRunStrategy;
        // preference/validation/cpu.go CheckSpreadCPUTopology, result obtained by running
        // KubeVirt's code).
        // inferFromVolume is accepted on create, but every later apply of the same manifest is
        // refused (a sync-breaking drift, an error by design).
        let refused_by_kubevirt = finding.message == "RunStrategy must be specified"
            || (finding.rule.code == "KV1003" && finding.message.starts_with("1 vCPUs"))
            || finding.drift == Some(kvlint::rules::DriftKind::SyncBreaking);
        assert!(
            refused_by_kubevirt,
            "unexpected error on {key:?}: {} {}",
            finding.rule.code, finding.message
        );
    }
}
