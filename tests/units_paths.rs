//! Units checked from inside an overlay: a base reached through `../..` is rendered with its
//! findings on its own lines when it lies in the same git work tree, and is not built when it
//! lies outside.
//!
//! Without kustomize or kubectl these tests say so and pass, unless
//! `KVLINT_REQUIRE_KUSTOMIZE=1` makes the tool's absence a failure.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{git, kustomize_available};

const WALL: Duration = Duration::from_secs(120);

const VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  running: true
  template:
    spec:
      domain:
        devices: {}
        memory:
          guest: 1Gi
";

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn check(dir: &Path) -> serde_json::Value {
    let run = common::run(
        &[
            "check",
            ".",
            "--format",
            "json",
            "--no-cache",
            "--fail-on",
            "none",
            "--catalog",
            "none",
        ],
        dir,
        WALL,
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    run.report()
}

fn places(report: &serde_json::Value) -> Vec<(String, String, u64)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["file"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_base_two_levels_up_is_rendered_from_its_own_lines() {
    if !kustomize_available("a_base_two_levels_up_is_rendered_from_its_own_lines") {
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    write(
        repo.path(),
        &[
            ("vms/base/kustomization.yaml", "resources:\n- vm.yaml\n"),
            ("vms/base/vm.yaml", VM),
            (
                "vms/overlays/dev/kustomization.yaml",
                "resources:\n- ../../base\nnamePrefix: dev-\n",
            ),
        ],
    );
    git(repo.path(), &["init", "-q"]);
    let report = check(&repo.path().join("vms/overlays/dev"));
    assert_eq!(report["summary"]["units"], 1, "{report:#}");
    let deprecated: Vec<_> = places(&report)
        .into_iter()
        .filter(|(code, ..)| code == "KV0016")
        .collect();
    assert_eq!(
        deprecated,
        [("KV0016".to_owned(), "../../base/vm.yaml".to_owned(), 6)],
        "{report:#}"
    );
}

#[test]
fn a_base_outside_the_work_tree_is_not_built() {
    if !kustomize_available("a_base_outside_the_work_tree_is_not_built") {
        return;
    }
    let top = tempfile::tempdir().unwrap();
    write(
        top.path(),
        &[
            ("outside/kustomization.yaml", "resources:\n- vm.yaml\n"),
            ("outside/vm.yaml", VM),
            (
                "repo/apps/dev/kustomization.yaml",
                "resources:\n- ../../../outside\n",
            ),
        ],
    );
    git(&top.path().join("repo"), &["init", "-q"]);
    let report = check(&top.path().join("repo/apps/dev"));
    assert_eq!(report["summary"]["vms"], 0, "{report:#}");
    assert!(
        places(&report).contains(&("KV0022".to_owned(), "kustomization.yaml".to_owned(), 2)),
        "{report:#}"
    );
}

#[cfg(unix)]
#[test]
fn files_reached_through_a_symlinked_directory_are_reported_at_their_own_lines() {
    if !kustomize_available(
        "files_reached_through_a_symlinked_directory_are_reported_at_their_own_lines",
    ) {
        return;
    }
    let repo = tempfile::tempdir().unwrap();
    write(
        repo.path(),
        &[
            // A file through a linked directory inside the unit.
            ("app/shared/vm.yaml", VM),
            ("app/kustomization.yaml", "resources:\n- linked/vm.yaml\n"),
            // A base reached through a link.
            ("base/kustomization.yaml", "resources:\n- vm.yaml\n"),
            ("base/vm.yaml", &VM.replace("name: web", "name: db")),
            ("other/kustomization.yaml", "resources:\n- linkedbase\n"),
        ],
    );
    std::os::unix::fs::symlink("shared", repo.path().join("app/linked")).unwrap();
    std::os::unix::fs::symlink("../base", repo.path().join("other/linkedbase")).unwrap();
    git(repo.path(), &["init", "-q"]);
    let report = check(repo.path());
    let deprecated: Vec<_> = places(&report)
        .into_iter()
        .filter(|(code, ..)| code == "KV0016" || code == "KV0021")
        .collect();
    // Each at its own line, once, rendered in the unit that uses it through the link: not at
    // the unit's kustomization, not again as written, not "never applied", and the linked
    // base is not a unit of its own.
    assert_eq!(
        deprecated,
        [
            ("KV0016".to_owned(), "app/shared/vm.yaml".to_owned(), 6),
            ("KV0016".to_owned(), "base/vm.yaml".to_owned(), 6),
        ],
        "{report:#}"
    );
    let units: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0016")
        .filter_map(|d| d["unit"]["path"].as_str())
        .collect();
    assert_eq!(units, ["app", "other"], "{report:#}");
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
}
