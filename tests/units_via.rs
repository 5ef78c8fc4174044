//! The `unit` of a rendered finding names the entry point that made the unit (`via`): the
//! Argo CD Application or ApplicationSet, or the Flux Kustomization, with its file and line,
//! and the unit that rendered it when the entry point is itself rendered (design §6).

mod common;

use std::path::Path;
use std::process::Command;

use common::kustomize_available;
use serde_json::{Value, json};

/// A VM with one finding (an instance type that exists nowhere, KV1006).
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

const FLUX_APPS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
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
";

/// The `unit` of the one KV1006 finding of a check of `dir`.
fn unit_of_finding(dir: &Path) -> Value {
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
    let report = common::json_report(&output);
    let found: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV1006")
        .collect();
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
        ("apps/vms/vm.yaml", VM),
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
            "# the VMs of production
apiVersion: argoproj.io/v1alpha1
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
    namespace: vms-prod
",
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
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
        ("apps/prod/vm.yaml", VM),
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
        ("clusters/prod/apps.yaml", FLUX_APPS),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
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
        ("clusters/prod/apps.yaml", FLUX_APPS),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
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
    namespace: vms-prod
",
        ),
        ("apps/vms/kustomization.yaml", KUSTOMIZATION_OF_VM),
        ("apps/vms/vm.yaml", VM),
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
