//! Flux Kustomizations as units: the directory `spec.path` names is built with the
//! Kustomization's options and its post-build variables, as the kustomize-controller does, and
//! not a second time as a plain Kustomize root.

use crate::common;
use crate::units_support;

use common::kustomize_available;
use units_support::entry_points::check_json;

const FILES: &[(&str, &str)] = &[
    (
        "clusters/prod/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/web/prod
  targetNamespace: web-prod
  namePrefix: flux-
  prune: true
  postBuild:
    substitute:
      SIZE: standard.huge
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: db
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/db
  postBuild:
    substitute:
      UNUSED: x
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: elsewhere
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: other
  path: ./not/in/this/repository
",
    ),
    (
        "clusters/prod/vars.yaml",
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  PREFERENCE: linux-server
",
    ),
    (
        "apps/web/prod/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
",
    ),
    (
        "apps/web/prod/vm.yaml",
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  instancetype:
    name: ${SIZE}
  preference:
    name: ${PREFERENCE}
  template:
    spec:
      domain:
        devices: {}
",
    ),
    (
        "apps/db/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
",
    ),
    (
        "apps/db/vm.yaml",
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: db
spec:
  runStrategy: Always
  instancetype:
    name: ${MISSING}
  template:
    spec:
      domain:
        devices: {}
",
    ),
    (
        "platform/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - types.yaml
",
    ),
    (
        "platform/types.yaml",
        "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: linux-server
spec:
  devices:
    preferredDiskBus: virtio
",
    ),
];

#[test]
fn a_flux_kustomization_is_built_with_its_options_and_variables() {
    if !kustomize_available("a_flux_kustomization_is_built_with_its_options_and_variables") {
        return;
    }
    let repo = common::git_repository(FILES);
    let report = check_json(repo.path());
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let code = |code: &str| -> Vec<&serde_json::Value> {
        diagnostics.iter().filter(|d| d["code"] == code).collect()
    };
    // targetNamespace and namePrefix name the VM; `${SIZE}` came from `substitute`, and
    // `${PREFERENCE}` from the ConfigMap (no finding: that preference exists).
    let huge: Vec<_> = code("KV1006")
        .into_iter()
        .filter(|d| d["file"] == "apps/web/prod/vm.yaml")
        .collect();
    assert_eq!(huge.len(), 1, "{report:#}");
    assert!(
        huge[0]["message"]
            .as_str()
            .unwrap()
            .contains("standard.huge")
    );
    assert_eq!(huge[0]["file"], "apps/web/prod/vm.yaml");
    assert_eq!(huge[0]["object"]["namespace"], "web-prod");
    assert_eq!(huge[0]["object"]["name"], "flux-web");
    assert_eq!(huge[0]["unit"]["kind"], "flux");
    assert_eq!(huge[0]["unit"]["path"], "apps/web/prod");
    assert_eq!(huge[0]["unit"]["via"]["name"], "apps");
    assert_eq!(huge[0]["unit"]["via"]["file"], "clusters/prod/apps.yaml");
    assert!(code("KV1007").is_empty(), "{report:#}");
    // A variable no source defines fails the Flux build (strict, kustomize-controller v1.9).
    let failed = code("KV0020");
    assert_eq!(failed.len(), 1, "{report:#}");
    assert_eq!(failed[0]["file"], "clusters/prod/apps.yaml");
    assert_eq!(failed[0]["line"], 33, "at the db Kustomization's postBuild");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("variable not set (strict mode): \"MISSING\""),
        "{report:#}"
    );
    // A path outside the repository is named, not silently skipped.
    let elsewhere = code("KV0022");
    assert_eq!(elsewhere.len(), 1, "{report:#}");
    assert!(
        elsewhere[0]["message"]
            .as_str()
            .unwrap()
            .contains("not in this repository")
    );
    // apps/web/prod was built once, as Flux builds it: no `default/web` from a plain root.
    assert!(
        diagnostics.iter().all(|d| d["object"]["name"] != "web"),
        "{report:#}"
    );
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
}
