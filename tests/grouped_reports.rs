//! The human, GitHub and Markdown reports show one item per problem: a VM's webhook defaults in
//! one block with one snippet to commit, and an unknown field once. `--format json` keeps a
//! finding for every field that changes.

use std::path::Path;
use std::process::Command;

/// A VM that KubeVirt fills with its defaults, with a field at the wrong level (`bus` belongs
/// under `disk:`), which KubeVirt drops.
const VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
  namespace: apps
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        memory:
          guest: 1Gi
        devices:
          disks:
            - name: root
              bus: virtio
      volumes:
        - name: root
          containerDisk:
            image: quay.io/containerdisks/fedora:41
";

fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("vm.yaml"), VM).expect("the VM is written");
    dir
}

fn check(dir: &Path, format: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", ".", "--format", format, "--color", "never"])
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_ACTIONS")
        .env("COLUMNS", "100")
        .output()
        .expect("kvlint runs");
    assert_eq!(output.status.code(), Some(1), "{format}: {output:?}");
    String::from_utf8(output.stdout).expect("the report is UTF-8")
}

#[test]
fn human() {
    let dir = repository();
    insta::assert_snapshot!(check(dir.path(), "human"));
}

#[test]
fn github() {
    let dir = repository();
    insta::assert_snapshot!(check(dir.path(), "github"));
}

#[test]
fn markdown() {
    let dir = repository();
    insta::assert_snapshot!(check(dir.path(), "markdown"));
}

#[test]
fn one_item_per_problem_in_every_grouped_report() {
    let dir = repository();
    for format in ["human", "github", "markdown"] {
        let text = check(dir.path(), format);
        assert!(
            text.contains("KubeVirt v1.9 will write"),
            "{format}: {text}"
        );
        for code in ["KV3003", "KV3004", "KV3007"] {
            assert_eq!(text.matches(code).count(), 1, "{format}, {code}: {text}");
        }
        assert!(text.contains("KV0014"), "{format}: {text}");
        assert!(!text.contains("KV3008"), "{format}: {text}");
    }
}

#[test]
fn json_keeps_a_finding_for_every_changed_field() {
    let dir = repository();
    let report: serde_json::Value =
        serde_json::from_str(&check(dir.path(), "json")).expect("the report is JSON");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    for code in ["KV0014", "KV3003", "KV3004", "KV3006", "KV3007"] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    // The dropped field is the unknown-field finding's, which carries its drift.
    assert!(!codes.contains(&"KV3008"), "{codes:?}");
    let unknown = diagnostics.iter().find(|d| d["code"] == "KV0014").unwrap();
    assert_eq!(unknown["drift"], "out-of-sync");
}
