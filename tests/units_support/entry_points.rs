//! Entry points that make units (Argo CD Applications, Flux Kustomizations), a VM with exactly
//! one finding and the check that finds it, for the tests of units made by entry points.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A VM with one finding: an instance type that exists nowhere (KV1006).
pub(crate) const VM_WITH_ONE_FINDING: &str = "apiVersion: kubevirt.io/v1
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

/// The kustomization of a directory that holds `vm.yaml`.
pub(crate) const KUSTOMIZATION_OF_VM: &str = "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
";

/// The Flux GitRepository `flux-system` and the Kustomization `flux-system` that applies
/// `./clusters/prod` from it, as `flux bootstrap` writes them into `gotk-sync.yaml`.
pub(crate) fn flux_bootstrap() -> String {
    format!(
        "apiVersion: source.toolkit.fluxcd.io/v1
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
{}",
        flux_kustomization("flux-system", "./clusters/prod")
    )
}

/// A Flux Kustomization in `flux-system` that applies `path` of the `flux-system` source.
pub(crate) fn flux_kustomization(name: &str, path: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: {name}
  namespace: flux-system
spec:
  interval: 10m
  path: {path}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
"
    )
}

/// An Argo CD Application in `argocd` that syncs `path` of the fleet repository into the
/// namespace `destination` of the local cluster.
pub(crate) fn application(name: &str, path: &str, destination: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://example.invalid/fleet.git
    targetRevision: main
    path: {path}
  destination:
    server: https://kubernetes.default.svc
    namespace: {destination}
"
    )
}

/// `kvlint check .` in `dir`: the JSON report, with no catalog and no cache.
pub(crate) fn check_json(dir: &Path) -> Value {
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
    crate::common::json_report(&output)
}

/// The findings of `code` in `report`.
pub(crate) fn findings<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}
