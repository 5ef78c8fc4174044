//! Helm releases of raw-manifest charts: the manifests a Flux HelmRelease or an Argo CD helm
//! source gives the `raw` chart in its values are checked in place, with positions in the
//! release's file, identities in the release namespace, and a `helm` unit naming the release.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::kustomize_available;
use serde_json::Value;

const FIXTURE: &str = "testdata/units/helm-raw";

fn kvlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .output()
        .expect("kvlint runs")
}

fn check(path: &str, format: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "check",
        path,
        "--format",
        format,
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ];
    args.extend_from_slice(extra);
    let output = kvlint(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn diagnostics(path: &str, extra: &[&str]) -> Vec<Value> {
    let report = common::json_report(&check(path, "json", extra));
    report["diagnostics"].as_array().unwrap().clone()
}

/// The diagnostics of `code` whose file ends with `file`.
fn find<'a>(diagnostics: &'a [Value], code: &str, file: &str) -> Vec<&'a Value> {
    diagnostics
        .iter()
        .filter(|d| d["code"] == code && d["file"].as_str().unwrap().ends_with(file))
        .collect()
}

fn at(diagnostic: &Value) -> (u64, u64) {
    (
        diagnostic["line"].as_u64().unwrap(),
        diagnostic["column"].as_u64().unwrap(),
    )
}

#[test]
fn raw_chart_values_are_checked_in_place() {
    let text = |format: &str| String::from_utf8(check(FIXTURE, format, &[]).stdout).unwrap();
    insta::assert_snapshot!("helm-raw-json", text("json"));
    insta::assert_snapshot!("helm-raw-human", text("human"));
}

#[test]
fn positions_identities_and_units_are_those_of_the_release() {
    let all = diagnostics(FIXTURE, &[]);
    // dysnix-style `values.resources`: the misspelled instance type at its line in the
    // HelmRelease file, the VM named in the release's target namespace.
    let typo = find(&all, "KV1006", "clusters/prod/vms.yaml");
    assert_eq!(typo.len(), 1, "{typo:#?}");
    assert_eq!(at(typo[0]), (25, 11), "the VM's `instancetype:`");
    assert!(
        typo[0]["message"]
            .as_str()
            .unwrap()
            .contains("standard.smal")
    );
    assert_eq!(typo[0]["object"]["kind"], "VirtualMachine");
    assert_eq!(typo[0]["object"]["namespace"], "vms");
    assert_eq!(typo[0]["object"]["name"], "web");
    let unit = &typo[0]["unit"];
    assert_eq!(unit["kind"], "helm");
    assert_eq!(
        unit["path"],
        "testdata/units/helm-raw/clusters/prod/vms.yaml"
    );
    assert_eq!(unit["via"]["kind"], "HelmRelease");
    assert_eq!(unit["via"]["namespace"], "flux-system");
    assert_eq!(unit["via"]["name"], "vms");
    assert_eq!(unit["via"]["line"], 2);
    // The db VM's namespaced instance type is defined in another file, in the release
    // namespace; the cache VM's finding is suppressed by the comment above its manifest,
    // which covers the whole manifest.
    let names: Vec<&str> = all
        .iter()
        .filter(|d| d["code"] == "KV1006")
        .filter_map(|d| d["object"]["name"].as_str())
        .collect();
    assert_eq!(names, ["web"]);
    assert!(find(&all, "KV0017", "vms.yaml").is_empty(), "{all:#?}");
    // bedag-style `values.templates`: a string without template actions is checked at its
    // lines; one with actions is one info at that item.
    let builder = find(&all, "KV3007", "clusters/prod/templates.yaml");
    assert_eq!(builder.len(), 1, "{builder:#?}");
    assert_eq!(at(builder[0]), (30, 11));
    assert_eq!(builder[0]["object"]["namespace"], "vms");
    assert_eq!(builder[0]["object"]["name"], "builder");
    assert_eq!(builder[0]["unit"]["via"]["name"], "templated");
    let not_rendered = find(&all, "KV0022", "clusters/prod/templates.yaml");
    let places: Vec<(u64, u64)> = not_rendered.iter().map(|d| at(d)).collect();
    assert_eq!(places, [(41, 9), (58, 14)], "{not_rendered:#?}");
    assert!(
        not_rendered[0]["message"]
            .as_str()
            .unwrap()
            .contains("Helm template actions")
    );
    assert!(
        not_rendered[1]["message"]
            .as_str()
            .unwrap()
            .contains("`kubevirt-vm`")
    );
    // Argo CD: `helm.valuesObject` maps and `helm.values` strings, in the destination
    // namespace.
    let lab = find(&all, "KV3007", "argocd/vm-app.yaml");
    assert_eq!(lab.len(), 1, "{lab:#?}");
    assert_eq!(at(lab[0]), (28, 15));
    assert_eq!(lab[0]["object"]["namespace"], "lab");
    assert_eq!(lab[0]["unit"]["via"]["kind"], "Application");
    let memory = find(&all, "KV0015", "argocd/vm-app.yaml");
    assert_eq!(memory.len(), 1, "{memory:#?}");
    assert_eq!(
        at(memory[0]),
        (64, 17),
        "the `guest: 1Gii` inside `helm.values`"
    );
    assert_eq!(memory[0]["object"]["name"], "lab.small");
    assert_eq!(memory[0]["unit"]["via"]["name"], "lab-extra");
}

#[test]
fn units_off_leaves_the_values_as_written() {
    let on = diagnostics(FIXTURE, &[]);
    assert_eq!(find(&on, "KV1006", "vms.yaml").len(), 1);
    let off = diagnostics(FIXTURE, &["--units", "off"]);
    assert!(off.iter().all(|d| d["unit"].is_null()), "{off:#?}");
    assert!(find(&off, "KV1006", "vms.yaml").is_empty());
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const VM_RELEASE: &str = "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: NAME
spec:
  chart:
    spec:
      chart: raw
  values:
    resources:
      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: OTHER
";

#[test]
fn duplicates_are_judged_within_one_release() {
    let dir = tempfile::tempdir().unwrap();
    let release =
        |name: &str, other: &str| VM_RELEASE.replace("NAME", name).replace("OTHER", other);
    write(
        dir.path(),
        &[
            ("one.yaml", &release("one", "settings")),
            ("two.yaml", &release("two", "extra")),
        ],
    );
    let all = diagnostics(dir.path().to_str().unwrap(), &["--namespace", "apps"]);
    let duplicates: Vec<(&str, (u64, u64))> = all
        .iter()
        .filter(|d| d["code"] == "KV0008")
        .map(|d| (d["file"].as_str().unwrap(), at(d)))
        .collect();
    assert_eq!(duplicates.len(), 1, "{all:#?}");
    assert!(duplicates[0].0.ends_with("one.yaml"), "{duplicates:?}");
    assert_eq!(
        duplicates[0].1.0, 16,
        "the second `settings` of the release"
    );
}

#[test]
fn a_release_a_kustomization_lists_is_read_as_rendered() {
    if !kustomize_available("a_release_a_kustomization_lists_is_read_as_rendered") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "apps/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: apps
resources:
  - release.yaml
",
            ),
            (
                "apps/release.yaml",
                "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vms
spec:
  chart:
    spec:
      chart: raw
  values:
    resources:
      # kvlint: ignore[KV3007] the annotation is added on purpose
      - apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata:
          name: web
        spec:
          runStrategy: Always
          instancetype:
            name: missing.type
          template:
            spec:
              domain:
                devices: {}
",
            ),
        ],
    );
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir.path())
        .args([
            "check",
            "apps",
            "--format",
            "json",
            "--fail-on",
            "none",
            "--catalog",
            "none",
        ])
        .output()
        .unwrap();
    let report = common::json_report(&output);
    let all = report["diagnostics"].as_array().unwrap();
    let typo = find(all, "KV1006", "apps/release.yaml");
    assert_eq!(typo.len(), 1, "{all:#?}");
    assert_eq!(at(typo[0]), (18, 11), "the VM's `instancetype:`");
    // The kustomization's namespace is the HelmRelease's, so the release namespace.
    assert_eq!(typo[0]["object"]["namespace"], "apps");
    assert_eq!(typo[0]["unit"]["kind"], "helm");
    assert_eq!(typo[0]["unit"]["via"]["namespace"], "apps");
    assert!(find(all, "KV3007", "release.yaml").is_empty(), "{all:#?}");
    assert!(find(all, "KV0017", "release.yaml").is_empty(), "{all:#?}");
}
