//! Entry points rendered by other units (design §3.4): a Flux Kustomization or an Argo CD
//! Application that a unit renders is applied as rendered, its options patched or substituted
//! by its parent, and the units it names are built with those options, once.

mod common;

use std::path::Path;
use std::process::Command;

use common::kustomize_available;

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: guest
spec:
  runStrategy: Always
  instancetype:
    name: missing.type
  template:
    spec:
      domain:
        devices: {}
";

const KUSTOMIZATION_OF_VM: &str = "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
";

const GOTK_SYNC: &str = "apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: ssh://git@example.invalid/fleet
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/prod
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
";

fn check(dir: &Path) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
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
        .current_dir(dir)
        .output()
        .unwrap();
    common::json_report(&output)
}

/// The findings of `code` in `report`.
fn findings<'a>(report: &'a serde_json::Value, code: &str) -> Vec<&'a serde_json::Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

#[test]
fn a_flux_kustomization_patched_by_its_parent_is_built_with_the_patched_options() {
    if !kustomize_available(
        "a_flux_kustomization_patched_by_its_parent_is_built_with_the_patched_options",
    ) {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/flux-system/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - gotk-sync.yaml
",
        ),
        ("clusters/prod/flux-system/gotk-sync.yaml", GOTK_SYNC),
        (
            "clusters/prod/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - flux-system
  - apps.yaml
patches:
  - target:
      group: kustomize.toolkit.fluxcd.io
      kind: Kustomization
      name: apps
    patch: |
      - op: add
        path: /spec/targetNamespace
        value: vms-prod
",
        ),
        (
            "clusters/prod/apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/vms
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
",
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
    ]);
    let report = check(repo.path());
    let missing = findings(&report, "KV1006");
    assert_eq!(missing.len(), 1, "{report:#}");
    assert_eq!(missing[0]["file"], "apps/vms/vm.yaml");
    assert_eq!(missing[0]["object"]["namespace"], "vms-prod", "{report:#}");
    assert_eq!(missing[0]["unit"]["kind"], "flux");
    assert_eq!(missing[0]["unit"]["via"]["name"], "apps");
    assert_eq!(missing[0]["unit"]["via"]["file"], "clusters/prod/apps.yaml");
    // clusters/prod (through flux-system) and apps/vms: the bare roots served discovery only.
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
}

#[test]
fn an_application_renamed_and_patched_by_an_app_of_apps_is_built_as_rendered() {
    if !kustomize_available(
        "an_application_renamed_and_patched_by_an_app_of_apps_is_built_as_rendered",
    ) {
        return;
    }
    let repo = common::git_repository(&[
        (
            "argocd/root.yaml",
            "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: root
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://example.invalid/fleet.git
    targetRevision: main
    path: argocd/apps
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
",
        ),
        (
            "argocd/apps/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: prod-
resources:
  - vms.yaml
patches:
  - target:
      group: argoproj.io
      kind: Application
    patch: |
      - op: replace
        path: /spec/destination/namespace
        value: vms-prod
",
        ),
        (
            "argocd/apps/vms.yaml",
            "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vms
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://example.invalid/fleet.git
    targetRevision: main
    path: apps/vms
  destination:
    server: https://kubernetes.default.svc
    namespace: vms-dev
",
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
    ]);
    let report = check(repo.path());
    let missing = findings(&report, "KV1006");
    assert_eq!(missing.len(), 1, "{report:#}");
    assert_eq!(missing[0]["file"], "apps/vms/vm.yaml");
    assert_eq!(missing[0]["object"]["namespace"], "vms-prod", "{report:#}");
    assert_eq!(missing[0]["unit"]["kind"], "argocd");
    assert_eq!(missing[0]["unit"]["via"]["name"], "prod-vms", "{report:#}");
    assert_eq!(missing[0]["unit"]["via"]["file"], "argocd/apps/vms.yaml");
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
}

#[test]
fn a_self_referencing_flux_system_substitutes_its_children_once() {
    if !kustomize_available("a_self_referencing_flux_system_substitutes_its_children_once") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/flux-system/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - gotk-sync.yaml
patches:
  - target:
      group: kustomize.toolkit.fluxcd.io
      kind: Kustomization
      name: flux-system
    patch: |
      - op: add
        path: /spec/postBuild
        value:
          substitute:
            CLUSTER: prod
",
        ),
        ("clusters/prod/flux-system/gotk-sync.yaml", GOTK_SYNC),
        (
            "clusters/prod/apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/${CLUSTER}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
",
        ),
        ("apps/prod/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/prod/vm.yaml", VM),
    ]);
    let report = check(repo.path());
    // The flux-system Kustomization names the directory that holds it: no error, no cycle.
    for code in ["KV0020", "KV0022"] {
        assert!(findings(&report, code).is_empty(), "{report:#}");
    }
    let missing = findings(&report, "KV1006");
    assert_eq!(missing.len(), 1, "{report:#}");
    assert_eq!(missing[0]["file"], "apps/prod/vm.yaml");
    assert_eq!(missing[0]["unit"]["kind"], "flux", "{report:#}");
    assert_eq!(missing[0]["unit"]["path"], "apps/prod");
    assert_eq!(missing[0]["unit"]["via"]["name"], "apps");
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
}

#[test]
fn a_chain_that_keeps_changing_stops_after_eight_rounds_with_an_info() {
    if !kustomize_available("a_chain_that_keeps_changing_stops_after_eight_rounds_with_an_info") {
        return;
    }
    // Built from a, the Kustomization names b; built from b, it names a again.
    let patched = |path: &str| {
        format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../common/loop.yaml
patches:
  - target:
      group: kustomize.toolkit.fluxcd.io
      kind: Kustomization
      name: loop
    patch: |
      - op: replace
        path: /spec/path
        value: ./{path}
"
        )
    };
    let (to_b, to_a) = (patched("b"), patched("a"));
    let repo = common::git_repository(&[
        (
            "common/loop.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: loop
  namespace: flux-system
spec:
  interval: 10m
  path: ./a
  sourceRef:
    kind: GitRepository
    name: flux-system
",
        ),
        ("a/kustomization.yaml", &to_b),
        ("b/kustomization.yaml", &to_a),
    ]);
    let report = check(repo.path());
    let cut: Vec<_> = findings(&report, "KV0022")
        .into_iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("still change after 8 rounds")
        })
        .collect();
    assert_eq!(cut.len(), 1, "{report:#}");
    assert_eq!(cut[0]["file"], "common/loop.yaml");
    assert_eq!(cut[0]["line"], 2);
}
