//! `render --index DIR PATH...` and `diff --base REF --index DIR PATH...`: the whole repository
//! is read, and only what the given paths hold (or the units that read them) is shown.

use crate::common;
use crate::units_support;

use std::path::Path;
use std::process::{Command, Output};

use common::{git_repository, kustomize_available};
use units_support::Repo;

const INSTANCETYPE: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: small
spec:
  cpu:
    guest: 2
  memory:
    guest: 1Gi
";

/// A VM named `name` that uses the instance type `small`, with a label `tier: <tier>`.
fn vm(name: &str, tier: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {name}
  labels:
    tier: {tier}
spec:
  runStrategy: Halted
  instancetype:
    kind: VirtualMachineInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {{}}
"
    )
}

fn repository() -> tempfile::TempDir {
    let repo = git_repository(&[
        ("platform/instancetype.yaml", INSTANCETYPE),
        ("apps/a.yaml", &vm("a", "one")),
        ("apps/b.yaml", &vm("b", "one")),
    ]);
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "one"]);
    repo
}

fn kvlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .args(args)
        .args(["--catalog", "none", "--units", "off"])
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("kvlint runs")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}: {output:?}"))
}

/// `namespace/name` of each rendered VM of `render --format json`.
fn rendered_names(output: &Output) -> Vec<String> {
    json(output)
        .as_array()
        .unwrap()
        .iter()
        .map(|vm| {
            format!(
                "{}/{}",
                vm["metadata"]["namespace"].as_str().unwrap_or_default(),
                vm["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// `(namespace/name, status)` of each VM of `diff --format json`.
fn diff_statuses(report: &serde_json::Value) -> Vec<(String, String)> {
    report["vms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|vm| {
            (
                format!(
                    "{}/{}",
                    vm["namespace"].as_str().unwrap(),
                    vm["name"].as_str().unwrap()
                ),
                vm["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn render_index_renders_the_given_files_vms_with_the_rest_of_the_repository() {
    let repo = repository();
    let output = kvlint(
        repo.path(),
        &["render", "--index", ".", "apps/a.yaml", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(rendered_names(&output), ["default/a"]);
    let vm = &json(&output)[0];
    assert_eq!(
        vm["spec"]["template"]["spec"]["domain"]["cpu"]["sockets"],
        2
    );

    // On its own, the file's VM cannot find its instance type.
    let alone = kvlint(repo.path(), &["render", "apps/a.yaml", "--format", "json"]);
    assert_eq!(alone.status.code(), Some(1), "{alone:?}");
}

#[test]
fn render_index_of_a_file_without_vms_renders_nothing() {
    let repo = repository();
    let output = kvlint(
        repo.path(),
        &[
            "render",
            "--index",
            ".",
            "platform/instancetype.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(rendered_names(&output), Vec::<String>::new());
}

#[test]
fn render_index_with_a_vm_outside_the_paths_exits_2() {
    let repo = repository();
    let output = kvlint(
        repo.path(),
        &["render", "--index", ".", "--vm", "default/b", "apps/a.yaml"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        common::text(&output.stderr).contains("--vm default/b"),
        "{output:?}"
    );
}

#[test]
fn render_index_renders_the_units_that_read_the_given_file() {
    if !kustomize_available("render_index_renders_the_units_that_read_the_given_file") {
        return;
    }
    let repo = Repo::new();
    let output = repo.kvlint(&[
        "render",
        "--index",
        ".",
        "apps/web/overlays/prod/patch.yaml",
        "--format",
        "json",
        "--catalog",
        "none",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(rendered_names(&output), ["web-prod/prod-web"]);
}

#[test]
fn diff_index_lists_only_the_given_files_vms() {
    let repo = repository();
    std::fs::write(repo.path().join("apps/a.yaml"), vm("a", "two")).unwrap();
    std::fs::write(repo.path().join("apps/b.yaml"), vm("b", "two")).unwrap();
    let output = kvlint(
        repo.path(),
        &[
            "diff",
            "--base",
            "HEAD",
            "--index",
            ".",
            "apps/a.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    assert_eq!(
        diff_statuses(&report),
        [("default/a".to_owned(), "changed".to_owned())]
    );
    assert_eq!(report["vms"][0]["effect"]["kind"], "no-restart", "{report}");
    assert_eq!(report["counts"]["changed"], 1);
    assert_eq!(report["counts"]["unchanged"], 0);
    assert_eq!(report["counts"]["objects"], 0);
}

#[test]
fn diff_index_of_an_instance_type_lists_it_and_the_vms_that_use_it() {
    let repo = repository();
    std::fs::write(
        repo.path().join("platform/instancetype.yaml"),
        INSTANCETYPE.replace("guest: 2", "guest: 4"),
    )
    .unwrap();
    std::fs::write(
        repo.path().join("apps/c.yaml"),
        vm("c", "one").replace("small", "none"),
    )
    .unwrap();
    let output = kvlint(
        repo.path(),
        &[
            "diff",
            "--base",
            "HEAD",
            "--index",
            ".",
            "platform/instancetype.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    assert_eq!(report["counts"]["objects"], 1, "{report}");
    assert_eq!(report["objects"][0]["name"], "small");
    assert_eq!(
        diff_statuses(&report),
        [
            ("default/a".to_owned(), "changed".to_owned()),
            ("default/b".to_owned(), "changed".to_owned()),
        ]
    );
    assert_eq!(
        report["vms"][0]["effect"]["kind"], "keeps-revision",
        "{report}"
    );
    assert_eq!(report["introduced"], serde_json::json!([]), "{report}");
}

#[test]
fn diff_index_needs_base() {
    let repo = repository();
    let output = kvlint(repo.path(), &["diff", "--index", ".", "apps", "apps"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = common::text(&output.stderr);
    assert!(
        stderr.contains("required arguments were not provided") && stderr.contains("--base"),
        "{output:?}"
    );
}
