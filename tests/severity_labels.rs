//! Labels, annotations and names are strings to the API server: a value YAML 1.1 reads as a
//! boolean or a number is an error at that value, not a YAML-version warning.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: NAME
  namespace: apps
  labels:
    backup: no
    tier: 1
    ok: \"no\"
  annotations:
    note: yes
spec:
  runStrategy: Halted
  template:
    metadata:
      labels:
        flag: on
    spec:
      domain:
        devices: {}
        memory:
          guest: 1Gi
";

fn check(dir: &Path, text: &str) -> (Output, Vec<Value>) {
    let path = dir.join("vm.yaml");
    std::fs::write(&path, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", "--format", "json"])
        .arg(&path)
        .output()
        .expect("kvlint runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let found = report["diagnostics"].as_array().unwrap().clone();
    (output, found)
}

fn at(found: &[Value], line: u64) -> Vec<&Value> {
    found.iter().filter(|d| d["line"] == line).collect()
}

#[test]
fn non_string_labels_and_annotations_are_errors_at_their_value() {
    let dir = tempfile::tempdir().unwrap();
    let (output, found) = check(dir.path(), &VM.replace("NAME", "vm1"));
    assert_eq!(output.status.code(), Some(1), "{found:#?}");
    for (line, column, path) in [
        (7, 13, "metadata.labels.backup"),
        (8, 11, "metadata.labels.tier"),
        (11, 11, "metadata.annotations.note"),
        (17, 15, "spec.template.metadata.labels.flag"),
    ] {
        let here = at(&found, line);
        assert_eq!(here.len(), 1, "one finding at line {line}: {here:#?}");
        let finding = here[0];
        assert_eq!(finding["code"], "KV0015", "{finding:#?}");
        assert_eq!(finding["severity"], "error");
        assert_eq!(finding["column"], column);
        assert_eq!(finding["path"], path);
        assert_eq!(finding["object"]["name"], "vm1");
    }
    assert!(at(&found, 9).is_empty(), "a quoted value is a string");
}

#[test]
fn a_name_yaml_reads_as_a_boolean_is_reported_at_the_name() {
    let dir = tempfile::tempdir().unwrap();
    let (output, found) = check(dir.path(), &VM.replace("NAME", "off"));
    assert_eq!(output.status.code(), Some(1));
    let name = at(&found, 4);
    assert_eq!(name.len(), 1, "{found:#?}");
    assert_eq!(name[0]["code"], "KV0007");
    assert_eq!(name[0]["column"], 9);
    assert!(
        name[0]["message"]
            .as_str()
            .unwrap()
            .contains("`metadata.name` is boolean false"),
        "{name:#?}"
    );
    assert!(
        !found.iter().any(|d| d["code"] == "KV0006"),
        "the document is a manifest, not skipped: {found:#?}"
    );
    assert!(
        !found.iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .contains("has no metadata.name")),
        "{found:#?}"
    );
    // The rest of the document's YAML 1.1 values are still reported.
    assert_eq!(at(&found, 7).len(), 1, "{found:#?}");
}

/// A ConfigMap's data values are strings too: `kubectl apply` of `enabled: yes` is refused.
#[test]
fn config_map_data_yaml_reads_as_booleans_or_numbers_are_errors_at_their_value() {
    let dir = tempfile::tempdir().unwrap();
    let config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  enabled: yes\n  port: 8080\n  mode: \"0644\"\n";
    let (output, found) = check(dir.path(), config_map);
    assert_eq!(output.status.code(), Some(1), "{found:#?}");
    let refused: Vec<(u64, &str, &str)> = found
        .iter()
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap(),
                d["path"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        refused,
        [(6, "KV0015", "data.enabled"), (7, "KV0015", "data.port")],
        "one error a value, no YAML 1.1 notice beside it"
    );
}
