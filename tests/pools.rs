//! VirtualMachinePools as KubeVirt treats them: the pool object is stored as written (no
//! mutating webhook), its template gets the pool validator's findings under
//! `spec.virtualMachineTemplate`, and `render` shows the VMs the pool controller creates.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::SMALL_CLUSTER_INSTANCETYPE;

const RENDERS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/cases/vm-pool-renders/pool.yaml"
);

fn kvlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .output()
        .expect("kvlint runs")
}

fn diagnostics(args: &[&str]) -> Vec<Value> {
    let output = kvlint(args);
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    report["diagnostics"].as_array().unwrap().clone()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_pool_gets_no_drift_findings() {
    let found = diagnostics(&["check", "--format", "json", RENDERS]);
    let drift: Vec<&Value> = found.iter().filter(|d| d["category"] == "drift").collect();
    assert!(drift.is_empty(), "{drift:#?}");
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn render_shows_the_vms_the_pool_controller_creates() {
    let output = kvlint(&["render", "--format", "json", RENDERS]);
    assert!(output.status.success(), "{output:?}");
    let vms: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let names: Vec<&str> = vms
        .iter()
        .map(|vm| vm["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["web-0", "web-1"]);
    for (index, vm) in vms.iter().enumerate() {
        assert_eq!(vm["kind"], "VirtualMachine");
        assert_eq!(vm["metadata"]["namespace"], "apps");
        assert_eq!(vm["metadata"]["labels"]["app"], "web");
        let spec = &vm["spec"];
        let suffix = format!("-{index}");
        assert_eq!(
            spec["dataVolumeTemplates"][0]["metadata"]["name"],
            format!("root{suffix}")
        );
        let volumes = &spec["template"]["spec"]["volumes"];
        assert_eq!(volumes[0]["dataVolume"]["name"], format!("root{suffix}"));
        // nameGeneration.appendIndexToConfigMapRefs
        assert_eq!(
            volumes[1]["configMap"]["name"],
            format!("web-config{suffix}")
        );
    }
}

#[test]
fn render_selects_a_pools_vms_by_the_pool_or_a_vm_name() {
    for (selector, expected) in [("apps/web", 2), ("apps/web-1", 1)] {
        let output = kvlint(&["render", "--format", "json", "--vm", selector, RENDERS]);
        assert!(output.status.success(), "{selector}: {output:?}");
        let vms: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(vms.len(), expected, "{selector}");
    }
}

#[test]
fn replicas_default_to_one_as_the_pool_controller_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(RENDERS)
        .unwrap()
        .replace("  replicas: 2\n", "");
    let file = write(dir.path(), "pool.yaml", &text);
    let output = kvlint(&["render", "--format", "json", &file]);
    let vms: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(vms.len(), 1);
    assert_eq!(vms[0]["metadata"]["name"], "web-0");
}

#[test]
fn the_pool_validator_names_template_fields_under_the_virtual_machine_template() {
    let dir = tempfile::tempdir().unwrap();
    // A disk without a volume: ValidateVirtualMachineSpec refuses it, and the pool validator
    // names the field under spec.virtualMachineTemplate.spec.
    let text = std::fs::read_to_string(RENDERS).unwrap().replace(
        "                - name: root\n",
        "                - name: nosuch\n",
    );
    let file = write(dir.path(), "pool.yaml", &text);
    let found = diagnostics(&["check", "--format", "json", &file]);
    // They are the pool validator's refusals, not a VM's.
    assert!(found.iter().all(|d| d["code"] != "KV1008"), "{found:#?}");
    let refusals: Vec<&Value> = found.iter().filter(|d| d["code"] == "KV1015").collect();
    assert!(!refusals.is_empty(), "{found:#?}");
    for refusal in refusals {
        let field = refusal["kubevirt_field"].as_str().unwrap();
        let path = refusal["path"].as_str().unwrap();
        let message = refusal["message"].as_str().unwrap();
        assert!(
            field.starts_with("spec.virtualMachineTemplate.spec."),
            "{refusal:#?}"
        );
        assert!(
            path.starts_with("spec.virtualMachineTemplate.spec."),
            "{refusal:#?}"
        );
        assert!(
            !message.contains(" spec.template") && !message.starts_with("spec.template"),
            "{refusal:#?}"
        );
    }
    assert!(found.iter().all(|d| d["category"] != "drift"), "{found:#?}");
}

#[test]
fn a_hostile_replica_count_renders_a_bounded_number_of_vms() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(RENDERS)
        .unwrap()
        .replace("  replicas: 2\n", "  replicas: 2147483647\n");
    let file = write(dir.path(), "pool.yaml", &text);
    let output = kvlint(&["render", "--format", "json", &file]);
    assert!(output.status.success(), "{:?}", output.status);
    let vms: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(vms.len(), 1000);
}

/// A pool whose template takes `small` (2 vCPUs, 2Gi) and adds `domain` (YAML lines) to its
/// domain.
fn pool_with_instancetype(domain: &str) -> String {
    format!(
        "{SMALL_CLUSTER_INSTANCETYPE}apiVersion: pool.kubevirt.io/v1beta1
kind: VirtualMachinePool
metadata:
  name: web
  namespace: apps
spec:
  selector:
    matchLabels:
      app: web
  virtualMachineTemplate:
    metadata:
      labels:
        app: web
    spec:
      runStrategy: Halted
      instancetype:
        name: small
      template:
        spec:
          domain:
{domain}            devices: {{}}
"
    )
}

#[test]
fn a_template_only_its_vms_fail_is_an_admitted_pool_whose_vms_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "pool.yaml",
        &pool_with_instancetype("            cpu:\n              sockets: 4\n"),
    );
    let found = diagnostics(&["check", "--format", "json", &file]);
    // KubeVirt's pool validator does not apply the instance type: it stores the pool, and the
    // VM validator refuses each VM the pool controller creates.
    assert!(
        found.iter().all(|d| d["category"] != "reject"),
        "{found:#?}"
    );
    // One finding: expand's view of the same conflict is not reported again.
    let codes: Vec<&str> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["KV1016"], "{found:#?}");
    let refused = &found[0];
    assert_eq!(refused["category"], "unresolved");
    assert_eq!(refused["severity"], "error");
    assert_eq!(refused["object"]["kind"], "VirtualMachinePool");
    assert_eq!(
        refused["path"],
        "spec.virtualMachineTemplate.spec.template.spec.domain.cpu.sockets"
    );
    assert_eq!(refused["line"], 32);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .starts_with("every VM the pool creates is refused: VM field(s) spec.template.spec.domain.cpu.sockets conflicts"),
        "{refused:#?}"
    );
    assert!(kvlint(&["check", &file]).status.code() == Some(1));
}

#[test]
fn a_template_the_pool_validator_refuses_is_reported_once_as_the_pool_s_refusal() {
    let dir = tempfile::tempdir().unwrap();
    // The memory request above the limit is refused by the pool validator on the template as
    // written, and again by the VM validator on each VM: one finding, the pool's.
    let text = pool_with_instancetype(
        "            resources:\n              requests:\n                memory: 2Gi\n              limits:\n                memory: 1Gi\n",
    )
    .replace("      instancetype:\n        name: small\n", "");
    let file = write(dir.path(), "pool.yaml", &text);
    let found = diagnostics(&["check", "--format", "json", &file]);
    let codes: Vec<&str> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["KV1015"], "{found:#?}");
    assert_eq!(found[0]["category"], "reject");
    assert_eq!(
        found[0]["kubevirt_field"],
        "spec.virtualMachineTemplate.spec.template.spec.domain.resources.requests.memory"
    );
}

#[test]
fn a_template_spec_without_a_vm_template_is_refused_by_the_api_server_alone() {
    let dir = tempfile::tempdir().unwrap();
    let text = pool_with_instancetype("").replace(
        "      template:\n        spec:\n          domain:\n            devices: {}\n",
        "",
    );
    let file = write(dir.path(), "pool.yaml", &text);
    let found = diagnostics(&["check", "--format", "json", &file]);
    // The CRD requires `template` in the template's spec: the API server refuses the pool before
    // any webhook, and no VM is ever created.
    let codes: Vec<&str> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["KV0015"], "{found:#?}");
    assert_eq!(
        found[0]["message"],
        "spec.virtualMachineTemplate.spec.template: Required value"
    );
}
