//! Flux HelmRelease post renderers (testdata/units/helm-postrender): each `kustomize` post
//! renderer runs, in order, over the `helm template` output with the real Kustomize. A field a
//! patch wrote points at the patch line in the HelmRelease, a field it left at its template
//! line; a post renderer Kustomize refuses is KV0020 at it; without Kustomize the release is
//! checked as rendered and an info finding says the post renderers were not applied.
//!
//! Without helm (or Kustomize) on PATH these tests say so and pass, unless
//! `KVLINT_REQUIRE_HELM=1` (`KVLINT_REQUIRE_KUSTOMIZE=1`) makes its absence a failure.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const FIXTURE: &str = "testdata/units/helm-postrender";

/// The findings of `kvlint check` over the fixture, one line each: code, file, line,
/// object name, path and the start of the message.
fn findings(path: Option<&Path>) -> Vec<String> {
    let dir = common::git_repository(&[]);
    common::copy_dir(Path::new(FIXTURE), dir.path());
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
    command
        .args([
            "check",
            ".",
            "--format",
            "json",
            "--fail-on",
            "none",
            "--catalog",
            "none",
            "--no-cache",
        ])
        .current_dir(dir.path());
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let output = command.output().expect("kvlint runs");
    let report = common::json_report(&output);
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["code"].as_str().unwrap().starts_with("KV3"))
        .map(|d| {
            format!(
                "{} {}:{} {} {} {}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap(),
                d["line"],
                d["object"]["name"].as_str().unwrap_or("-"),
                d["path"].as_str().unwrap_or("-"),
                message(d),
            )
        })
        .collect()
}

/// A finding's message; Kustomize's own words (after the first colon) left out of KV0020,
/// since they change between Kustomize releases.
fn message(finding: &Value) -> &str {
    let message = finding["message"].as_str().unwrap();
    if finding["code"] == "KV0020" {
        return message.split(':').next().unwrap();
    }
    message
}

#[test]
fn post_renderer_patches_are_applied_and_point_at_their_lines() {
    let test = "post_renderer_patches_are_applied_and_point_at_their_lines";
    if common::helm_dir(test).is_none() || !common::kustomize_available(test) {
        return;
    }
    let found = findings(None);
    let expected = [
        // Untouched by the patches: at the template line, for every release.
        "KV1007 charts/vm/templates/vm.yaml:9 broken spec.preference virtualmachineclusterpreferences.instancetype.kubevirt.io \"standard.linux\" not found",
        // The second post renderer's patch, applied over the first's.
        "KV1006 clusters/prod/vms.yaml:43 web spec.instancetype virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"patched.missing\" not found",
        // A JSON 6902 operation: its value line.
        "KV1006 clusters/prod/vms.yaml:68 db spec.instancetype virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"json.missing\" not found",
        "KV0020 clusters/prod/vms.yaml:84 - - post renderer 1 of HelmRelease vms/broken cannot be applied",
        // A deprecated field of v2beta2: at its post renderer.
        "KV1006 clusters/prod/vms.yaml:109 legacy spec.instancetype virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"legacy.missing\" not found",
    ];
    assert_eq!(found, expected, "{found:#?}");
}

#[test]
fn without_kustomize_releases_are_checked_without_their_post_renderers() {
    let test = "without_kustomize_releases_are_checked_without_their_post_renderers";
    let Some(helm) = common::helm_dir(test) else {
        return;
    };
    // PATH holds helm alone.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(helm.join("helm"), bin.path().join("helm")).unwrap();
    let found = findings(Some(bin.path()));
    let not_applied = |line: u32, name: &str| {
        format!(
            "KV0022 clusters/prod/vms.yaml:{line} - - post renderers not applied: neither kustomize nor kubectl is on PATH; the objects of HelmRelease vms/{name} are checked as `helm template` renders them, without its spec.postRenderers"
        )
    };
    let expected = [
        "KV1007 charts/vm/templates/vm.yaml:9 broken spec.preference virtualmachineclusterpreferences.instancetype.kubevirt.io \"standard.linux\" not found".to_owned(),
        not_applied(15, "web"),
        not_applied(59, "db"),
        not_applied(83, "broken"),
        not_applied(108, "legacy"),
        not_applied(132, "pruned"),
    ];
    assert_eq!(found, expected, "{found:#?}");
}
