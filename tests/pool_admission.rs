//! A VirtualMachinePool's own fields as KubeVirt's pool validator judges them: the selector
//! against the template's labels, `maxUnavailable` (v1.6+) and one update and one scale-in
//! strategy at a time (v1.7+), each refusal at its field with KubeVirt's message.

use std::process::Command;

use serde_json::Value;

const POOL: &str = "\
apiVersion: pool.kubevirt.io/v1beta1
kind: VirtualMachinePool
metadata:
  name: web
  namespace: apps
spec:
  replicas: 2
  maxUnavailable: 0
  updateStrategy:
    unmanaged: {}
    proactive: {}
  selector:
    matchLabels:
      app: other
  virtualMachineTemplate:
    metadata:
      labels:
        app: web
    spec:
      runStrategy: Always
      template:
        spec:
          domain:
            memory:
              guest: 1Gi
            devices: {}
";

/// The pool refusals of `text` at `version`: `(line, column, field, message)`.
fn refusals(text: &str, version: &str) -> Vec<(u64, u64, String, String)> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("pool.yaml"), text).expect("the pool is written");
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            ".",
            "--format",
            "json",
            "--kubevirt-version",
            version,
        ])
        .current_dir(dir.path())
        .output()
        .expect("kvlint runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "KV1015" || d["code"] == "KV0015")
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["path"].as_str().unwrap_or_default().to_owned(),
                d["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn row(line: u64, column: u64, field: &str, message: &str) -> (u64, u64, String, String) {
    (line, column, field.to_owned(), message.to_owned())
}

#[test]
fn each_refusal_is_at_its_field_with_kubevirt_s_message() {
    assert_eq!(
        refusals(POOL, "v1.9"),
        [
            row(
                8,
                3,
                "spec.maxUnavailable",
                "maxUnavailable must be greater than 0"
            ),
            row(
                9,
                3,
                "spec.updateStrategy",
                "only one strategy can be configured at a time: but found unmanaged, proactive strategies"
            ),
            row(12, 3, "spec.selector", "selector does not match labels."),
        ]
    );
}

#[test]
fn older_releases_check_less() {
    // pool.kubevirt.io/v1beta1 is served from v1.7: older releases take v1alpha1.
    let alpha = POOL.replace("pool.kubevirt.io/v1beta1", "pool.kubevirt.io/v1alpha1");
    assert_eq!(
        refusals(&alpha, "v1.6"),
        [
            row(
                8,
                3,
                "spec.maxUnavailable",
                "maxUnavailable must be greater than 0"
            ),
            row(12, 3, "spec.selector", "selector does not match labels."),
        ]
    );
    assert_eq!(
        refusals(&alpha, "v1.5"),
        [row(
            12,
            3,
            "spec.selector",
            "selector does not match labels."
        )]
    );
}

#[test]
fn a_pool_without_a_selector_is_refused_by_the_api_server() {
    let without = POOL.replace("  selector:\n    matchLabels:\n      app: other\n", "");
    assert_eq!(
        refusals(&without, "v1.9"),
        [row(6, 1, "spec.selector", "spec.selector: Required value")]
    );
}

#[test]
fn a_matching_pool_is_admitted() {
    let matching = POOL
        .replace("app: other", "app: web")
        .replace("maxUnavailable: 0", "maxUnavailable: 25%")
        .replace("    unmanaged: {}\n", "");
    assert_eq!(refusals(&matching, "v1.9"), []);
}
