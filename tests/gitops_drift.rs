//! Drift as GitOps engines see it: the kind of each drift finding (sync-breaking, out of sync,
//! cluster default), its severity under `--gitops` and `reproducible:`, and the ignore rules
//! `kvlint ignore-differences` prints.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const INSTANCE_TYPES: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: small
spec:
  cpu: {guest: 1}
  memory: {guest: 2Gi}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: root
  namespace: apps
  labels:
    instancetype.kubevirt.io/default-instancetype: small
spec:
  resources: {requests: {storage: 10Gi}}
";

/// inferFromVolume: KubeVirt stores the inferred name instead.
const INFERRED: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: inferred
  namespace: apps
spec:
  runStrategy: Halted
  instancetype:
    inferFromVolume: rootdisk
  template:
    spec:
      domain:
        machine: {type: q35}
        firmware: {uuid: 5d307ca9-b3ef-428c-8861-06e72d69f223, serial: s1}
        devices: {}
      architecture: amd64
      volumes:
        - name: rootdisk
          persistentVolumeClaim: {claimName: root}
";

/// A quantity KubeVirt stores in canonical form; no namespace in the manifest.
const QUANTITY: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: quantity
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        machine: {type: q35}
        firmware: {uuid: 5d307ca9-b3ef-428c-8861-06e72d69f224, serial: s2}
        memory: {guest: 1024Mi}
        devices: {}
      architecture: amd64
";

/// Only fields KubeVirt fills in (machine type, architecture, firmware identity).
const DEFAULTS_ONLY: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: defaults
  namespace: apps
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        memory: {guest: 1Gi}
        devices: {}
";

fn kvlint(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("kvlint runs");
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// A repository with `files`, and no configuration file above it that could apply.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// (code, drift kind, severity) of every drift finding, in report order.
fn drift(dir: &Path, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["check", ".", "--format", "json", "--fail-on", "none"];
    args.extend_from_slice(extra);
    let report: Value = serde_json::from_str(&kvlint(dir, &args)).unwrap();
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["category"] == "drift")
        .map(|d| {
            let text = |key: &str| d[key].as_str().unwrap_or("-").to_owned();
            (text("code"), text("drift"), text("severity"))
        })
        .collect()
}

fn triple(code: &str, kind: &str, severity: &str) -> (String, String, String) {
    (code.to_owned(), kind.to_owned(), severity.to_owned())
}

#[test]
fn drift_findings_carry_their_kind_and_its_severity() {
    let dir = repo(&[
        ("types.yaml", INSTANCE_TYPES),
        ("inferred.yaml", INFERRED),
        ("quantity.yaml", QUANTITY),
        ("defaults.yaml", DEFAULTS_ONLY),
    ]);
    let found = drift(dir.path(), &[]);
    for expected in [
        triple("KV3002", "sync-breaking", "error"),
        triple("KV3008", "out-of-sync", "warning"),
        triple("KV3003", "cluster-default", "info"),
        triple("KV3004", "cluster-default", "info"),
        triple("KV3006", "cluster-default", "info"),
    ] {
        assert!(found.contains(&expected), "{expected:?} not in {found:?}");
    }
    // Non-drift findings get no `drift` key: the JSON stays as it was for them.
    let report = kvlint(
        dir.path(),
        &["check", ".", "--format", "json", "--fail-on", "none"],
    );
    let parsed: Value = serde_json::from_str(&report).unwrap();
    for diagnostic in parsed["diagnostics"].as_array().unwrap() {
        assert_eq!(
            diagnostic.get("drift").is_some(),
            diagnostic["category"] == "drift",
            "{diagnostic}"
        );
    }
}

#[test]
fn the_engine_and_reproducible_change_severities_not_kinds() {
    let dir = repo(&[
        ("quantity.yaml", QUANTITY),
        ("defaults.yaml", DEFAULTS_ONLY),
    ]);
    let flux = drift(dir.path(), &["--gitops", "flux"]);
    assert!(
        flux.contains(&triple("KV3008", "out-of-sync", "info")),
        "{flux:?}"
    );
    assert!(
        flux.contains(&triple("KV3003", "cluster-default", "info")),
        "{flux:?}"
    );
    std::fs::write(
        dir.path().join(".kvlint.yaml"),
        "reproducible: true\ngitops: argocd-ssd\n",
    )
    .unwrap();
    let configured = drift(dir.path(), &[]);
    assert!(
        configured.contains(&triple("KV3003", "cluster-default", "warning")),
        "{configured:?}"
    );
    assert!(
        configured.contains(&triple("KV3008", "out-of-sync", "info")),
        "{configured:?}"
    );
    // The command line wins over the configuration.
    let argocd = drift(dir.path(), &["--gitops", "argocd"]);
    assert!(
        argocd.contains(&triple("KV3008", "out-of-sync", "warning")),
        "{argocd:?}"
    );
}

#[test]
fn an_invalid_gitops_setting_is_a_finding_in_the_configuration() {
    let dir = repo(&[
        ("defaults.yaml", DEFAULTS_ONLY),
        (".kvlint.yaml", "gitops: argo\nreproducible: yes please\n"),
    ]);
    let report: Value = serde_json::from_str(&kvlint(
        dir.path(),
        &["check", ".", "--format", "json", "--fail-on", "none"],
    ))
    .unwrap();
    let problems: Vec<(u64, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0019")
        .map(|d| (d["line"].as_u64().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, 1);
    assert!(problems[0].1.contains("argocd-ssd"), "{problems:?}");
    assert_eq!(problems[1].0, 2);
}

#[test]
fn ignore_differences_for_an_inferred_matcher_respects_the_live_matcher() {
    let dir = repo(&[("types.yaml", INSTANCE_TYPES), ("inferred.yaml", INFERRED)]);
    let yaml = kvlint(dir.path(), &["ignore-differences", "."]);
    let block = yaml
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        block,
        "ignoreDifferences:
- group: kubevirt.io
  kind: VirtualMachine
  name: inferred
  namespace: apps
  jsonPointers:
  - /spec/instancetype
syncPolicy:
  syncOptions:
  - RespectIgnoreDifferences=true"
    );
    assert!(yaml.contains("RespectIgnoreDifferences=true is needed for inferred"));
    // ServerSideDiff refuses in its dry-run, before any ignore rule: nothing to print.
    let ssd = kvlint(
        dir.path(),
        &["ignore-differences", ".", "--gitops", "argocd-ssd"],
    );
    assert!(!ssd.contains("ignoreDifferences:"), "{ssd}");
    assert!(ssd.contains("ComparisonError"), "{ssd}");
}

#[test]
fn ignore_differences_for_a_quantity_has_no_namespace_when_the_manifest_sets_none() {
    let dir = repo(&[("quantity.yaml", QUANTITY)]);
    let json: Value = serde_json::from_str(&kvlint(
        dir.path(),
        &["ignore-differences", ".", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        json,
        serde_json::json!({"ignoreDifferences": [{
            "group": "kubevirt.io",
            "kind": "VirtualMachine",
            "name": "quantity",
            "jsonPointers": ["/spec/template/spec/domain/memory/guest"],
        }]})
    );
    let yaml = kvlint(dir.path(), &["ignore-differences", "."]);
    assert!(yaml.contains("No namespace for quantity"), "{yaml}");
    assert!(!yaml.contains("RespectIgnoreDifferences=true\n"), "{yaml}");
    // Flux's dry-run normalises the quantity as KubeVirt stored it: nothing to ignore.
    let flux: Value = serde_json::from_str(&kvlint(
        dir.path(),
        &[
            "ignore-differences",
            ".",
            "--format",
            "json",
            "--gitops",
            "flux",
        ],
    ))
    .unwrap();
    assert_eq!(flux, serde_json::json!({"ignore": []}));
}

#[test]
fn ignore_differences_for_cluster_defaults_only_is_empty() {
    let dir = repo(&[("defaults.yaml", DEFAULTS_ONLY)]);
    assert!(!drift(dir.path(), &[]).is_empty());
    for gitops in ["argocd", "argocd-ssd", "argocd-ssa", "flux"] {
        let json: Value = serde_json::from_str(&kvlint(
            dir.path(),
            &[
                "ignore-differences",
                ".",
                "--format",
                "json",
                "--gitops",
                gitops,
            ],
        ))
        .unwrap();
        let list = json
            .get("ignoreDifferences")
            .or_else(|| json.get("ignore"))
            .unwrap();
        assert_eq!(list, &serde_json::json!([]), "{gitops}");
    }
    let yaml = kvlint(dir.path(), &["ignore-differences", "."]);
    assert!(yaml.contains("nothing to ignore"), "{yaml}");
}

/// The apply an engine sends once the VM exists: Git's matcher merged into the stored one
/// (a JSON merge patch keeps the stored `name`, which Git does not set). KubeVirt's webhook
/// refuses it: the claim behind the sync-breaking kind.
#[test]
fn the_next_apply_of_an_inferred_matcher_is_refused() {
    let merged = INFERRED.replace(
        "    inferFromVolume: rootdisk\n",
        "    inferFromVolume: rootdisk\n    name: small\n    kind: virtualmachineclusterinstancetype\n",
    );
    let dir = repo(&[("types.yaml", INSTANCE_TYPES), ("inferred.yaml", &merged)]);
    let out = kvlint(dir.path(), &["check", ".", "--format", "concise"]);
    assert!(
        out.contains("Name already set, should be cleared before setting inferFromVolume"),
        "{out}"
    );
    // With RespectIgnoreDifferences, Argo CD applies the live matcher at the ignored pointer
    // instead (argo-cd controller/sync.go normalizeTargetResources): accepted.
    let respected = INFERRED.replace(
        "    inferFromVolume: rootdisk\n",
        "    name: small\n    kind: virtualmachineclusterinstancetype\n",
    );
    let dir = repo(&[
        ("types.yaml", INSTANCE_TYPES),
        ("inferred.yaml", &respected),
    ]);
    let out = kvlint(dir.path(), &["check", ".", "--format", "concise"]);
    assert!(!out.contains("error["), "{out}");
}
