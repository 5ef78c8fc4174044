//! Entry points rendered by other units (design §3.4): a Flux Kustomization or an Argo CD
//! Application that a unit renders is applied as rendered, its options patched or substituted
//! by its parent, and the units it names are built with those options, once.

use crate::common;

use crate::units_support;

use common::kustomize_available;
use units_support::entry_points::{
    KUSTOMIZATION_OF_VM, VM_WITH_ONE_FINDING, application, check_json, findings, flux_bootstrap,
    flux_kustomization,
};

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
        (
            "clusters/prod/flux-system/gotk-sync.yaml",
            &flux_bootstrap(),
        ),
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
            &flux_kustomization("apps", "./apps/vms"),
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    let report = check_json(repo.path());
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
            &application("root", "argocd/apps", "argocd"),
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
            &application("vms", "apps/vms", "vms-dev"),
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    let report = check_json(repo.path());
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
        (
            "clusters/prod/flux-system/gotk-sync.yaml",
            &flux_bootstrap(),
        ),
        (
            "clusters/prod/apps.yaml",
            &flux_kustomization("apps", "./apps/${CLUSTER}"),
        ),
        ("apps/prod/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/prod/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    let report = check_json(repo.path());
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
    let report = check_json(repo.path());
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
