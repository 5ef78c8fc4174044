//! Chart releases rendered by units (testdata/units/helm-chain): a Flux Kustomization
//! substitutes `${ns}` in the HelmReleases of apps/prod, whose overlay patches the values of
//! one of them; an Argo CD Application renders argocd/apps, whose overlay patches the values
//! of the Application that installs the chart. The chart is rendered from the release as
//! rendered, once: its namespace is the substituted one, its values the patched ones, its unit
//! names the unit that renders it, and findings about the HelmRelease itself point at the file
//! it is written in.
//!
//! Without kustomize and helm on PATH these tests say so and pass, unless
//! `KVLINT_REQUIRE_KUSTOMIZE` / `KVLINT_REQUIRE_HELM` make their absence a failure.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const FIXTURE: &str = "testdata/units/helm-chain";

fn tools_available(test: &str) -> bool {
    common::kustomize_available(test) && common::helm_dir(test).is_some()
}

/// The report of `kvlint check <paths>` in a copy of the fixture.
fn check(paths: &[&str]) -> Value {
    check_in(FIXTURE, paths)
}

/// The report of `kvlint check <paths>` in a copy of `fixture`.
fn check_in(fixture: &str, paths: &[&str]) -> Value {
    let dir = common::git_repository(&[]);
    common::copy_dir(Path::new(fixture), dir.path());
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .arg("check")
        .args(paths)
        .args(["--format", "json", "--fail-on", "none"])
        .args(["--catalog", "none", "--no-cache"])
        .current_dir(dir.path())
        .output()
        .expect("kvlint runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    common::json_report(&output)
}

/// One line per finding of `code`: position, rendered identity, unit, what names it and the
/// unit that renders that.
fn findings(report: &Value, code: &str) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| {
            let object = match &d["object"] {
                Value::Null => "-".to_owned(),
                o => format!(
                    "{}/{}",
                    o["namespace"].as_str().unwrap_or(""),
                    o["name"].as_str().unwrap_or("")
                ),
            };
            let unit = &d["unit"];
            let via = &unit["via"];
            format!(
                "{}:{}:{}-{}:{} {object} [{}:{} via {} {}/{} ({}:{}) rendered by {}] {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["end_line"],
                d["end_column"],
                unit["kind"].as_str().unwrap_or("-"),
                unit["path"].as_str().unwrap_or("-"),
                via["kind"].as_str().unwrap_or("-"),
                via["namespace"].as_str().unwrap_or("-"),
                via["name"].as_str().unwrap_or("-"),
                via["file"].as_str().unwrap_or("-"),
                via["line"],
                via["unit"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap(),
            )
        })
        .collect()
}

const PATCHED_SIZE: &str = "charts/vm/templates/vm.yaml:7:3-8:29 vms-prod/db [helm:charts/vm via HelmRelease flux-system/vms (apps/base/helmrelease.yaml:2) rendered by apps/prod] virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"standard.huge\" not found";

#[test]
fn a_helm_release_is_rendered_as_the_unit_that_applies_it_renders_it() {
    if !tools_available("a_helm_release_is_rendered_as_the_unit_that_applies_it_renders_it") {
        return;
    }
    let report = check(&["."]);
    // Only the patched sizes are unknown: each release is rendered once, with the patched
    // values, in the substituted namespace.
    assert_eq!(
        findings(&report, "KV1006"),
        [
            PATCHED_SIZE,
            "charts/vm/templates/vm.yaml:7:3-8:29 argo-vms/argo-db [helm:charts/vm via Application argocd/vm-app (argocd/apps/vm-app.yaml:2) rendered by argocd/apps] virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"standard.xlarge\" not found",
        ]
    );
    // The values source is named as substituted, at the line of the file that writes it.
    assert_eq!(
        findings(&report, "KV0022"),
        [
            "apps/base/web.yaml:18:7-19:22 - [-:- via - -/- (-:null) rendered by -] not rendered: HelmRelease flux-system/web takes values from ConfigMap `web-vms-prod`, which is not in the checked files; the chart `charts/vm` is not rendered and its files are checked as written"
        ]
    );
    let vms: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["object"]["kind"] == "VirtualMachine")
        .map(|d| &d["object"])
        .collect();
    assert!(
        vms.iter()
            .all(|vm| vm["namespace"] == "vms-prod" || vm["namespace"] == "argo-vms"),
        "{vms:?}"
    );
    // The Flux and Argo CD units, and one helm release of each.
    assert_eq!(report["summary"]["units"], 4);
}

#[test]
fn a_helm_release_only_a_unit_renders_is_rendered() {
    if !tools_available("a_helm_release_only_a_unit_renders_is_rendered") {
        return;
    }
    // Only the Flux Kustomization is checked: the HelmRelease is in its unit's output alone.
    let report = check(&["clusters"]);
    assert_eq!(findings(&report, "KV1006"), [PATCHED_SIZE]);
}

#[test]
fn a_changed_overlay_of_a_helm_release_reports_the_findings_of_its_chart() {
    if !tools_available("a_changed_overlay_of_a_helm_release_reports_the_findings_of_its_chart") {
        return;
    }
    // The patch that writes the unknown size is the change: the chart's finding is its.
    let report = check(&["--index", ".", "apps/prod/kustomization.yaml"]);
    assert_eq!(findings(&report, "KV1006"), [PATCHED_SIZE]);
}

/// testdata/units/helm-clusters: the `apps` Kustomization of two clusters (one name, two paths)
/// builds each cluster's overlay, and one HelmRelease (same namespace and name) that the two
/// overlays patch differently is installed twice, each with its own values, and is no
/// duplicate: each cluster applies one.
#[test]
fn entry_points_each_cluster_renders_differently_are_applied_for_each() {
    if !tools_available("entry_points_each_cluster_renders_differently_are_applied_for_each") {
        return;
    }
    let report = check_in("testdata/units/helm-clusters", &["."]);
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .filter(|code| !code.starts_with("KV3"))
        .collect();
    assert_eq!(codes, ["KV1006", "KV1006", "KV1006"], "{report:#}");
    // The VM of apps/base, in both clusters' `apps` units: each built as its own Flux
    // Kustomization renders it (both are named `apps`), one finding for the two.
    let base: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "apps/base/vm.yaml" && d["code"] == "KV1006")
        .flat_map(|d| d["instances"].as_array().unwrap())
        .map(|i| {
            let unit = &i["unit"];
            format!(
                "{} {} via {} rendered by {}",
                unit["kind"].as_str().unwrap(),
                unit["path"].as_str().unwrap(),
                unit["via"]["file"].as_str().unwrap_or("-"),
                unit["via"]["unit"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        base,
        [
            "flux apps/production via clusters/production/apps.yaml rendered by clusters/production",
            "flux apps/staging via clusters/staging/apps.yaml rendered by clusters/staging",
        ]
    );
    assert_eq!(
        findings(&report, "KV1006"),
        [
            "apps/base/vm.yaml:7:3-8:16 web/db [flux:apps/production via Kustomization flux-system/apps (clusters/production/apps.yaml:2) rendered by clusters/production] virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"it-db\" not found",
            "charts/vm/templates/vm.yaml:7:3-8:29 web/web [helm:charts/vm via HelmRelease web/web (apps/base/release.yaml:2) rendered by apps/production] virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"it-production\" not found",
            "charts/vm/templates/vm.yaml:7:3-8:29 web/web [helm:charts/vm via HelmRelease web/web (apps/base/release.yaml:2) rendered by apps/staging] virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"it-staging\" not found",
        ]
    );
}
