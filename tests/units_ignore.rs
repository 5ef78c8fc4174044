//! `kvlint ignore-differences` with units: one entry per rendered object, named and placed as
//! the overlay renders it, also for a finding on a base that several overlays share.

use crate::common;
use crate::units_support;

use common::kustomize_available;
use units_support::{BASE_VM, Repo};

const CORES_PATCH: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        cpu:
          cores: 2
";

/// The base VM writes its guest memory as `1024Mi`, which the cluster stores as `1Gi`: Argo CD
/// shows the difference for the VM of every overlay.
fn repository() -> Repo {
    let repo = Repo::new();
    repo.write(
        "apps/web/base/vm.yaml",
        &BASE_VM.replace("guest: 1Gi", "guest: 1024Mi"),
    );
    for overlay in ["dev", "prod"] {
        repo.write(
            &format!("apps/web/overlays/{overlay}/patch.yaml"),
            CORES_PATCH,
        );
    }
    repo
}

fn ignore(repo: &Repo, args: &[&str]) -> String {
    let mut all = vec!["ignore-differences", "--catalog", "none"];
    all.extend_from_slice(args);
    let output = repo.kvlint(&all);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn without_comments(yaml: &str) -> String {
    yaml.lines()
        .filter(|line| !line.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn argocd_entries_name_every_rendered_vm_of_a_shared_base() {
    if !kustomize_available("argocd_entries_name_every_rendered_vm_of_a_shared_base") {
        return;
    }
    let repo = repository();
    let yaml = ignore(&repo, &["."]);
    assert_eq!(
        without_comments(&yaml),
        "ignoreDifferences:
- group: kubevirt.io
  kind: VirtualMachine
  name: dev-web
  namespace: web-dev
  jsonPointers:
  - /spec/template/spec/domain/memory/guest
- group: kubevirt.io
  kind: VirtualMachine
  name: prod-web
  namespace: web-prod
  jsonPointers:
  - /spec/template/spec/domain/memory/guest",
        "{yaml}"
    );
}

#[test]
fn json_entries_name_every_rendered_vm_of_a_shared_base() {
    if !kustomize_available("json_entries_name_every_rendered_vm_of_a_shared_base") {
        return;
    }
    let repo = repository();
    let json: serde_json::Value = serde_json::from_str(&ignore(
        &repo,
        &[".", "--format", "json", "--gitops", "argocd-ssa"],
    ))
    .unwrap();
    let names: Vec<(String, String)> = json["ignoreDifferences"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"))
        .iter()
        .map(|entry| {
            (
                entry["namespace"].as_str().unwrap().to_owned(),
                entry["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("web-dev".to_owned(), "dev-web".to_owned()),
            ("web-prod".to_owned(), "prod-web".to_owned())
        ]
    );
}
