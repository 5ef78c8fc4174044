//! `kvlint diff` with units: both sides rendered, the base side from the revision's files
//! written to a private temporary directory; VMs are named by their rendered identities, so a
//! change to a base shows on every overlay and a change to one overlay's patch on that overlay.

use crate::common;
use crate::units_support;

use common::kustomize_available;
use units_support::{Repo, memory_patch};

/// `(namespace/name, status)` of each VM of a JSON diff.
fn statuses(report: &serde_json::Value) -> Vec<(String, String)> {
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

fn diff(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["diff", "--format", "json", "--catalog", "none"];
    all.extend_from_slice(args);
    let output = repo.kvlint(&all);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        !text.contains("kvlint-revision-"),
        "the temporary tree's names leak into the report: {text}"
    );
    common::json_report(&output)
}

#[test]
fn a_change_to_a_base_shows_on_every_overlay() {
    if !kustomize_available("a_change_to_a_base_shows_on_every_overlay") {
        return;
    }
    let repo = Repo::committed();
    repo.write(
        "apps/web/base/vm.yaml",
        &units_support::BASE_VM.replace("cores: 1", "cores: 2"),
    );
    let report = diff(&repo, &["--base", "HEAD", "apps/web/overlays"]);
    assert_eq!(
        statuses(&report),
        [
            ("web-dev/dev-web".to_owned(), "changed".to_owned()),
            ("web-prod/prod-web".to_owned(), "changed".to_owned())
        ]
    );
    for vm in report["vms"].as_array().unwrap() {
        // Both sides name the base file the VM comes from as the working tree does.
        assert_eq!(vm["base"]["file"], "apps/web/base/vm.yaml", "{vm:#}");
        assert_eq!(vm["head"]["file"], "apps/web/base/vm.yaml", "{vm:#}");
    }
    // The temporary tree is gone.
    assert_eq!(std::fs::read_dir(repo.tmp()).unwrap().count(), 0);
}

#[test]
fn a_change_to_one_overlay_shows_on_that_overlay() {
    if !kustomize_available("a_change_to_one_overlay_shows_on_that_overlay") {
        return;
    }
    let repo = Repo::committed();
    repo.write("apps/web/overlays/prod/patch.yaml", &memory_patch("4Gi"));
    repo.commit_all("prod gets more memory");
    // Both sides from git, named from a subdirectory of the repository.
    let report = {
        let mut all = vec![
            "diff",
            "--format",
            "json",
            "--catalog",
            "none",
            "--base",
            "HEAD~1",
            "--head",
            "HEAD",
            "web",
        ];
        all.shrink_to_fit();
        let output = repo.kvlint_in(&repo.path().join("apps"), &all);
        assert!(
            output.status.code() == Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!String::from_utf8_lossy(&output.stdout).contains("kvlint-revision-"));
        common::json_report(&output)
    };
    assert_eq!(
        statuses(&report),
        [
            ("web-dev/dev-web".to_owned(), "unchanged".to_owned()),
            ("web-prod/prod-web".to_owned(), "changed".to_owned())
        ]
    );
    let prod = &report["vms"][1];
    assert_eq!(prod["base"]["file"], "web/base/vm.yaml");
    assert_eq!(prod["effect"]["kind"], "live-update", "{prod:#}");
}

#[test]
fn findings_of_a_unit_compare_across_sides() {
    if !kustomize_available("findings_of_a_unit_compare_across_sides") {
        return;
    }
    // A unit that does not build on either side: its finding names the unit's directory, as
    // the working tree names it on both sides, so it is neither introduced nor fixed.
    let repo = Repo::new();
    repo.write(
        "apps/web/overlays/dev/kustomization.yaml",
        &units_support::overlay_kustomization("dev")
            .replace("  - ../../base\n", "  - ../../base\n  - missing.yaml\n"),
    );
    repo.git(&["init", "-q", "-b", "main"]);
    repo.commit_all("one");
    repo.write("apps/web/overlays/prod/patch.yaml", &memory_patch("3Gi"));
    let report = diff(&repo, &["--base", "HEAD", "."]);
    assert_eq!(report["counts"]["introduced"], 0, "{report:#}");
    assert_eq!(report["counts"]["fixed"], 0, "{report:#}");
    assert_eq!(
        statuses(&report),
        [("web-prod/prod-web".to_owned(), "changed".to_owned())]
    );
    let head = repo.kvlint(&["check", ".", "--format", "json", "--catalog", "none"]);
    let failed: Vec<String> = common::json_report(&head)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0020")
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        failed.iter().any(|m| m.contains("apps/web/overlays/dev")),
        "the build failure names the unit: {failed:?}"
    );
}

#[cfg(unix)]
#[test]
fn links_in_the_revision_are_not_followed() {
    if !kustomize_available("links_in_the_revision_are_not_followed") {
        return;
    }
    let repo = Repo::committed();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("vm.yaml"),
        units_support::BASE_VM.replace("name: web", "name: leaked"),
    )
    .unwrap();
    std::fs::remove_file(repo.path().join("apps/web/base/vm.yaml")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("vm.yaml"),
        repo.path().join("apps/web/base/vm.yaml"),
    )
    .unwrap();
    repo.commit_all("a link out of the repository");
    let output = repo.kvlint(&[
        "diff",
        "--format",
        "json",
        "--catalog",
        "none",
        "--base",
        "HEAD~1",
        "--head",
        "HEAD",
        ".",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("leaked"), "{text}");
    assert!(!text.contains("kvlint-revision-"), "{text}");
    let report = common::json_report(&output);
    // The head revision's base has no VM: both rendered VMs are gone from it.
    assert_eq!(report["counts"]["removed"], 2, "{report:#}");
}

#[test]
fn without_a_temporary_directory_the_revision_is_checked_as_written() {
    if !kustomize_available("without_a_temporary_directory_the_revision_is_checked_as_written") {
        return;
    }
    let repo = Repo::committed();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "diff",
            "--format",
            "json",
            "--catalog",
            "none",
            "--base",
            "HEAD",
        ])
        .args(["--head", "HEAD", "."])
        .current_dir(repo.path())
        .env("TMPDIR", common::no_tmp())
        .env("KVLINT_CACHE_DIR", repo.tmp())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    assert!(
        stderr.contains("the units of HEAD are not built, its kustomizations are checked as written: cannot create a temporary directory"),
        "{stderr}"
    );
    common::json_report(&output);
}
