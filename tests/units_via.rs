//! The `unit` of a rendered finding names the entry point that made the unit (`via`): the
//! Argo CD Application or ApplicationSet, or the Flux Kustomization, with its file and line,
//! and the unit that rendered it when the entry point is itself rendered (design §6).

use crate::common;

use crate::units_support;

use std::path::Path;

use common::kustomize_available;
use serde_json::{Value, json};
use units_support::entry_points::{
    KUSTOMIZATION_OF_VM, VM_WITH_ONE_FINDING, application, check_json, findings, flux_kustomization,
};

/// The `unit` of the one KV1006 finding of a check of `dir`.
fn unit_of_finding(dir: &Path) -> Value {
    let report = check_json(dir);
    let found = findings(&report, "KV1006");
    assert_eq!(found.len(), 1, "{report:#}");
    found[0]["unit"].clone()
}

#[test]
fn a_bare_kustomize_root_has_no_via() {
    if !kustomize_available("a_bare_kustomize_root_has_no_via") {
        return;
    }
    let repo = common::git_repository(&[
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({"kind": "kustomize", "path": "apps/vms", "via": null})
    );
}

#[test]
fn an_argo_cd_application_is_the_via_of_its_unit() {
    if !kustomize_available("an_argo_cd_application_is_the_via_of_its_unit") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "argocd/vms.yaml",
            &format!(
                "# the VMs of production\n{}",
                application("vms", "apps/vms", "vms-prod")
            ),
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({
            "kind": "argocd",
            "path": "apps/vms",
            "via": {
                "kind": "Application",
                "namespace": "argocd",
                "name": "vms",
                "file": "argocd/vms.yaml",
                "line": 3
            }
        })
    );
}

#[test]
fn an_application_set_is_the_via_of_the_units_it_generates() {
    if !kustomize_available("an_application_set_is_the_via_of_the_units_it_generates") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "argocd/fleet.yaml",
            "apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: fleet
  namespace: argocd
spec:
  generators:
    - list:
        elements:
          - env: prod
  template:
    metadata:
      name: 'vms-{{env}}'
    spec:
      project: default
      source:
        repoURL: https://example.invalid/fleet.git
        targetRevision: main
        path: 'apps/{{env}}'
      destination:
        server: https://kubernetes.default.svc
        namespace: 'vms-{{env}}'
",
        ),
        ("apps/prod/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/prod/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({
            "kind": "argocd",
            "path": "apps/prod",
            "via": {
                "kind": "ApplicationSet",
                "namespace": "argocd",
                "name": "fleet",
                "file": "argocd/fleet.yaml",
                "line": 2
            }
        })
    );
}

#[test]
fn a_flux_kustomization_is_the_via_of_its_unit() {
    if !kustomize_available("a_flux_kustomization_is_the_via_of_its_unit") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/apps.yaml",
            &flux_kustomization("apps", "./apps/vms"),
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({
            "kind": "flux",
            "path": "apps/vms",
            "via": {
                "kind": "Kustomization",
                "namespace": "flux-system",
                "name": "apps",
                "file": "clusters/prod/apps.yaml",
                "line": 2
            }
        })
    );
}

/// The Flux Kustomization is applied as the unit `clusters/prod` renders it (its namespace
/// patched there), so `via.unit` names that unit.
#[test]
fn an_entry_point_rendered_by_a_unit_names_that_unit() {
    if !kustomize_available("an_entry_point_rendered_by_a_unit_names_that_unit") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/kustomization.yaml",
            "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
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
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({
            "kind": "flux",
            "path": "apps/vms",
            "via": {
                "kind": "Kustomization",
                "namespace": "flux-system",
                "name": "apps",
                "file": "clusters/prod/apps.yaml",
                "line": 2,
                "unit": "clusters/prod"
            }
        })
    );
}

/// An Argo CD Application rendered by an app of apps names the unit that renders it.
#[test]
fn an_application_rendered_by_an_app_of_apps_names_that_unit() {
    if !kustomize_available("an_application_rendered_by_an_app_of_apps_names_that_unit") {
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
",
        ),
        (
            "argocd/apps/vms.yaml",
            &application("vms", "apps/vms", "vms-prod"),
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM_WITH_ONE_FINDING),
    ]);
    assert_eq!(
        unit_of_finding(repo.path()),
        json!({
            "kind": "argocd",
            "path": "apps/vms",
            "via": {
                "kind": "Application",
                "namespace": "argocd",
                "name": "prod-vms",
                "file": "argocd/apps/vms.yaml",
                "line": 2,
                "unit": "argocd/apps"
            }
        })
    );
}
