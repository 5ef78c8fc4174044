//! Units: the summary counts every kind of unit, a Flux unit attributes the fields its overlay's
//! patches write as a plain Kustomize root does, and a staged `substituteFrom` source re-checks
//! the Flux unit that reads it.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::kustomize_available;
use serde_json::Value;

fn kvlint(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .args(["--fail-on", "none", "--catalog", "none", "--no-cache"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn report(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    common::json_report(&kvlint(dir, &all))
}

fn summary_line(dir: &Path) -> String {
    let output = kvlint(dir, &["check", ".", "--format", "concise"]);
    common::text(&output.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned()
}

/// `code` findings as `file:line:column`.
fn places(report: &Value, code: &str) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| format!("{}:{}:{}", d["file"], d["line"], d["column"]).replace('"', ""))
        .collect()
}

const HELM_RELEASE: &str = "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vms
  namespace: flux-system
spec:
  interval: 30m
  chart:
    spec:
      chart: raw
      sourceRef:
        kind: HelmRepository
        name: dysnix-charts
  targetNamespace: vms
  values:
    resources:
      - apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata:
          name: web
        spec:
          runStrategy: Always
          instancetype:
            name: standard.huge
          template:
            spec:
              domain:
                devices: {}
";

const DIRECTORY_APP: &str = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: plain
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: plain
  source:
    repoURL: https://example.invalid/repo.git
    path: apps/plain
";

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  instancetype:
    name: standard.small
  template:
    spec:
      domain:
        devices: {}
";

#[test]
fn helm_raw_chart_releases_are_counted_as_units() {
    let repo = common::git_repository(&[("clusters/prod/vms.yaml", HELM_RELEASE)]);
    let json = report(repo.path(), &["."]);
    assert_eq!(json["summary"]["units"], 1, "{json:#}");
    let line = summary_line(repo.path());
    assert!(line.starts_with("1 files, 2 objects in 1 unit, "), "{line}");
}

#[test]
fn the_summary_names_units_of_every_kind_with_the_tool() {
    if !kustomize_available("the_summary_names_units_of_every_kind_with_the_tool") {
        return;
    }
    let repo = common::git_repository(&[
        ("clusters/prod/vms.yaml", HELM_RELEASE),
        ("argocd/plain.yaml", DIRECTORY_APP),
        ("apps/plain/vm.yaml", VM),
        (
            "apps/web/kustomization.yaml",
            "resources:\n  - vm.yaml\nnamespace: web\n",
        ),
        ("apps/web/vm.yaml", VM),
    ]);
    let json = report(repo.path(), &["."]);
    // The Kustomize root, the Argo CD Directory source and the raw-chart release.
    assert_eq!(json["summary"]["units"], 3, "{json:#}");
    let tool = json["summary"]["kustomize"]["command"].as_str().unwrap();
    let line = summary_line(repo.path());
    assert!(line.contains(" in 3 units ("), "{line}");
    assert!(line.contains(&format!("units ({tool}")), "{line}");
    assert!(!line.contains("Kustomize units"), "{line}");
}

const FLUX_ENTRY: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: web
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/web/prod
  prune: true
";

/// A base VM, and an overlay whose patch file sets its instance type and adds a `status`.
const OVERLAY: &[(&str, &str)] = &[
    (
        "apps/web/base/kustomization.yaml",
        "resources:\n  - vm.yaml\n",
    ),
    ("apps/web/base/vm.yaml", VM),
    (
        "apps/web/prod/kustomization.yaml",
        "resources:
  - ../base
patches:
  - path: patch.yaml
  - patch: |-
      - op: replace
        path: /spec/preference
        value:
          name: missing-preference
    target:
      kind: VirtualMachine
",
    ),
    (
        "apps/web/prod/patch.yaml",
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  instancetype:
    name: standard.huge
",
    ),
];

#[test]
fn a_flux_unit_attributes_patched_fields_as_a_plain_root_does() {
    if !kustomize_available("a_flux_unit_attributes_patched_fields_as_a_plain_root_does") {
        return;
    }
    let plain = common::git_repository(OVERLAY);
    let mut with_flux = OVERLAY.to_vec();
    with_flux.push(("clusters/prod/web.yaml", FLUX_ENTRY));
    let flux = common::git_repository(&with_flux);
    let plain_report = report(plain.path(), &["."]);
    let flux_report = report(flux.path(), &["."]);
    for code in ["KV1006", "KV1007"] {
        let expected = places(&plain_report, code);
        assert!(
            !expected.is_empty()
                && expected
                    .iter()
                    .all(|place| place.starts_with("apps/web/prod/")),
            "{code} of the plain root at the patch: {plain_report:#}"
        );
        assert_eq!(
            places(&flux_report, code),
            expected,
            "{code}: {flux_report:#}"
        );
    }
}

const FLUX_WITH_VARIABLES: &[(&str, &str)] = &[
    (
        "clusters/prod/web.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: web
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/web
  postBuild:
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
",
    ),
    (
        "clusters/vars/vars.yaml",
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  RUN_STRATEGY: Always
",
    ),
    ("apps/web/kustomization.yaml", "resources:\n  - vm.yaml\n"),
    (
        "apps/web/vm.yaml",
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: ${RUN_STRATEGY}
  instancetype:
    name: standard.huge
  template:
    spec:
      domain:
        devices: {}
",
    ),
];

#[test]
fn a_staged_substitute_from_source_rechecks_its_flux_unit() {
    if !kustomize_available("a_staged_substitute_from_source_rechecks_its_flux_unit") {
        return;
    }
    let repo = common::git_repository(FLUX_WITH_VARIABLES);
    let whole = report(repo.path(), &["."]);
    let expected = places(&whole, "KV1006");
    assert_eq!(expected, ["apps/web/vm.yaml:7:3"], "{whole:#}");
    let staged = report(repo.path(), &["--index", ".", "clusters/vars/vars.yaml"]);
    assert_eq!(places(&staged, "KV1006"), expected, "{staged:#}");
    // A file no unit reads still re-checks nothing.
    std::fs::write(
        repo.path().join("clusters/other.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata: {}\n",
    )
    .unwrap();
    let unrelated = report(repo.path(), &["--index", ".", "clusters/other.yaml"]);
    assert!(places(&unrelated, "KV1006").is_empty(), "{unrelated:#}");
}
