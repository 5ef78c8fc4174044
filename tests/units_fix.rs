//! `kvlint fix` on rendered units: fixes edit the base or patch line their finding points at;
//! an edit that cannot be right for every VM rendered from a shared file is refused and listed
//! with its reason.

use crate::common;
use crate::units_support;

use common::kustomize_available;
use units_support::{BASE_VM, Repo, memory_patch};

fn fix(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["fix", "--format", "json", "--catalog", "none"];
    all.extend_from_slice(args);
    let output = repo.kvlint(&all);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = common::json_report(&output);
    let text = report.to_string();
    assert!(!text.contains("kvlint-fix-"), "{text}");
    report
}

/// `(file, rule, reason)` of each fix left alone.
fn skipped(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_owned(),
                s["rule"].as_str().unwrap().to_owned(),
                s["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_fix_is_made_at_the_patch_line_and_in_the_shared_base() {
    if !kustomize_available("a_fix_is_made_at_the_patch_line_and_in_the_shared_base") {
        return;
    }
    let repo = Repo::new();
    repo.write(
        "apps/web/base/vm.yaml",
        &BASE_VM.replace("  runStrategy: Always\n", "  running: true\n"),
    );
    let patch = format!("{}status:\n  ready: true\n", memory_patch("4Gi"));
    repo.write("apps/web/overlays/prod/patch.yaml", &patch);
    let report = fix(&repo, &["."]);
    let fixes: Vec<(String, String, String)> = report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| matches!(f["rule"].as_str(), Some("KV0016" | "KV4002")))
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_owned(),
                f["rule"].as_str().unwrap().to_owned(),
                // The object as the edited file writes it, not as rendered.
                f["object"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        fixes,
        [
            (
                "apps/web/base/vm.yaml".to_owned(),
                "KV0016".to_owned(),
                "web".to_owned()
            ),
            (
                "apps/web/overlays/prod/patch.yaml".to_owned(),
                "KV4002".to_owned(),
                "web".to_owned()
            )
        ],
        "{report:#}"
    );
    assert_eq!(
        repo.read("apps/web/overlays/prod/patch.yaml"),
        memory_patch("4Gi")
    );
    assert!(
        repo.read("apps/web/base/vm.yaml")
            .contains("  runStrategy: Always\n")
    );
    // Fixed in every unit: the check finds neither again.
    let check = repo.kvlint(&["check", ".", "--format", "json", "--catalog", "none"]);
    let left: Vec<String> = common::json_report(&check)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str().map(str::to_owned))
        .filter(|code| matches!(code.as_str(), "KV0016" | "KV4002"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_value_that_differs_between_the_units_of_a_base_is_not_written_into_it() {
    if !kustomize_available(
        "a_value_that_differs_between_the_units_of_a_base_is_not_written_into_it",
    ) {
        return;
    }
    // prod runs on arm64, where KubeVirt's default machine type is `virt`; dev's is `q35`. The
    // finding about the machine type points at the shared base's `domain:`.
    let repo = Repo::new();
    repo.write(
        "apps/web/overlays/prod/patch.yaml",
        &memory_patch("4Gi").replace(
            "      domain:\n",
            "      architecture: arm64\n      domain:\n",
        ),
    );
    let report = fix(&repo, &["."]);
    let machine: Vec<_> = skipped(&report)
        .into_iter()
        .filter(|(_, rule, _)| rule == "KV3003")
        .collect();
    assert_eq!(
        machine,
        [(
            "apps/web/base/vm.yaml".to_owned(),
            "KV3003".to_owned(),
            "apps/web/base/vm.yaml is shared by apps/web/overlays/dev (web-dev/dev-web), apps/web/overlays/prod (web-prod/prod-web), which need different values here; set the value in each overlay".to_owned()
        )],
        "{report:#}"
    );
    assert!(!repo.read("apps/web/base/vm.yaml").contains("machine:"));
}

#[test]
fn a_generated_identity_is_never_written_into_a_shared_base() {
    if !kustomize_available("a_generated_identity_is_never_written_into_a_shared_base") {
        return;
    }
    let repo = Repo::new();
    let report = fix(&repo, &["--unsafe-fixes", "."]);
    let identity: Vec<_> = skipped(&report)
        .into_iter()
        .filter(|(_, rule, _)| rule == "KV3006")
        .collect();
    assert_eq!(identity.len(), 1, "{report:#}");
    assert_eq!(identity[0].0, "apps/web/base/vm.yaml");
    assert!(
        identity[0]
            .2
            .starts_with("a generated identity is never written into apps/web/base/vm.yaml, which several VMs are rendered from (apps/web/overlays/dev (web-dev/dev-web), apps/web/overlays/prod (web-prod/prod-web))"),
        "{identity:?}"
    );
    assert!(!repo.read("apps/web/base/vm.yaml").contains("firmware"));

    // A base only one overlay is built from takes it.
    std::fs::remove_dir_all(repo.path().join("apps/web/overlays/dev")).unwrap();
    let report = fix(&repo, &["--unsafe-fixes", "."]);
    assert!(
        skipped(&report).iter().all(|(_, rule, _)| rule != "KV3006"),
        "{report:#}"
    );
    assert!(repo.read("apps/web/base/vm.yaml").contains("firmware"));
}

#[test]
fn a_value_from_a_kustomization_is_not_edited_as_the_object() {
    if !kustomize_available("a_value_from_a_kustomization_is_not_edited_as_the_object") {
        return;
    }
    let repo = Repo::new();
    let inline = units_support::overlay_kustomization("prod").replace(
        "  - path: patch.yaml\n",
        "  - path: patch.yaml\n  - patch: |-\n      apiVersion: kubevirt.io/v1\n      kind: VirtualMachine\n      metadata:\n        name: web\n      status:\n        ready: true\n",
    );
    repo.write("apps/web/overlays/prod/kustomization.yaml", &inline);
    let report = fix(&repo, &["."]);
    let status: Vec<_> = skipped(&report)
        .into_iter()
        .filter(|(_, rule, _)| rule == "KV4002")
        .collect();
    assert_eq!(status.len(), 1, "{report:#}");
    assert_eq!(status[0].0, "apps/web/overlays/prod/kustomization.yaml");
    assert!(
        status[0].2.contains("which kvlint does not edit"),
        "{status:?}"
    );
    assert_eq!(
        repo.read("apps/web/overlays/prod/kustomization.yaml"),
        inline
    );
}

#[test]
fn a_value_a_fix_uncovers_in_the_base_is_fixed_in_the_next_pass() {
    if !kustomize_available("a_value_a_fix_uncovers_in_the_base_is_fixed_in_the_next_pass") {
        return;
    }
    // Every overlay's patch writes over the base's status: the check reports the patches'
    // lines, and only their fix uncovers the base's, which the next pass removes.
    let repo = Repo::new();
    repo.write(
        "apps/web/base/vm.yaml",
        &format!("{BASE_VM}status:\n  ready: true\n"),
    );
    let patch = format!("{}status:\n  ready: false\n", memory_patch("2Gi"));
    for overlay in ["dev", "prod"] {
        repo.write(&format!("apps/web/overlays/{overlay}/patch.yaml"), &patch);
    }
    let report = fix(&repo, &["."]);
    let mut status: Vec<String> = report["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "KV4002")
        .map(|f| f["file"].as_str().unwrap().to_owned())
        .collect();
    status.dedup();
    assert_eq!(
        status,
        [
            "apps/web/overlays/dev/patch.yaml",
            "apps/web/overlays/prod/patch.yaml",
            "apps/web/base/vm.yaml"
        ],
        "{report:#}"
    );
    for file in [
        "apps/web/base/vm.yaml",
        "apps/web/overlays/dev/patch.yaml",
        "apps/web/overlays/prod/patch.yaml",
    ] {
        assert!(!repo.read(file).contains("status:"), "{file}");
    }
}

#[test]
fn an_unsafe_fix_left_for_its_flag_is_not_judged() {
    if !kustomize_available("an_unsafe_fix_left_for_its_flag_is_not_judged") {
        return;
    }
    // Without --unsafe-fixes the shared base's generated identity is only counted, not listed
    // as refused: nobody asked for it.
    let repo = Repo::new();
    let report = fix(&repo, &["."]);
    assert_eq!(skipped(&report), [], "{report:#}");
    assert_eq!(report["unsafe_available"], 2, "{report:#}");
    assert!(!repo.read("apps/web/base/vm.yaml").contains("firmware"));
}
