//! The VMs a VirtualMachinePool creates, against kvlint's findings on the pool. Each pool case
//! holds, beside its pool, the VM the pool controller creates from the template, named
//! `<pool>-as-created`: KubeVirt's VM webhooks give its verdict in `expected.jsonl`. Every
//! refusal cause of that VM must be a finding on each judged pool: KV1016 at the cause's field,
//! or KV1015 at the same field of the template when the pool validator refuses it too; kvlint
//! reports no KV1016 KubeVirt does not make, and none on a pool whose VMs are admitted.

use std::collections::BTreeSet;

use serde_json::Value;

use super::rules::{cause_path, get, get_or_empty, text};
use super::score::{Outputs, Scored};

/// How the VM a pool's template creates is named in a pool case.
pub(crate) const CREATED: &str = "-as-created";

/// Where the pool validator names the template's fields.
const TEMPLATE: &str = "spec.virtualMachineTemplate.";

/// One score per judged pool of the case: None when the case holds no created VM.
pub(crate) fn score_pool_vms(
    expected: &[Value],
    verdicts: &[Value],
    outputs: &Outputs,
) -> Option<Vec<Scored>> {
    let created = expected
        .iter()
        .find(|line| text(line, "vm").ends_with(CREATED))?;
    let admission = get_or_empty(created, "admission");
    let causes: Vec<String> = if get(&admission, "allowed") == Some(&Value::Bool(false)) {
        get(&admission, "causes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|cause| cause_path(cause).0)
            .collect()
    } else {
        Vec::new()
    };
    let pools = verdicts
        .iter()
        .filter_map(|verdict| text(verdict, "object").strip_prefix("VirtualMachinePool/"));
    Some(
        pools
            .map(|pool| Scored {
                vm: format!("VirtualMachinePool/{pool}"),
                kind: "pool-vms",
                outcome: outputs
                    .diagnostics
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|findings| disagreements(pool, &causes, findings)),
            })
            .collect(),
    )
}

fn disagreements(pool: &str, causes: &[String], findings: &[Value]) -> Result<(), String> {
    let fields = |code: &str| -> BTreeSet<&str> {
        findings
            .iter()
            .filter(|f| {
                let object = get_or_empty(f, "object");
                text(&object, "kind") == "VirtualMachinePool"
                    && text(&object, "name") == pool
                    && text(f, "code") == code
            })
            .map(|f| text(f, "kubevirt_field"))
            .collect()
    };
    let (vm_refusals, pool_refusals) = (fields("KV1016"), fields("KV1015"));
    let missing: Vec<&String> = causes
        .iter()
        .filter(|field| {
            !vm_refusals.contains(field.as_str())
                && !pool_refusals.contains(format!("{TEMPLATE}{field}").as_str())
        })
        .collect();
    let invented: Vec<&&str> = vm_refusals
        .iter()
        .filter(|field| !causes.iter().any(|cause| cause == *field))
        .collect();
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!(
            "KubeVirt refuses the VMs the pool creates at {missing:?}, kvlint reports it nowhere on the pool (KV1016 at {vm_refusals:?}, KV1015 at {pool_refusals:?})"
        ));
    }
    if !invented.is_empty() {
        why.push(format!(
            "kvlint reports KV1016 at {invented:?}, which KubeVirt's VM webhooks do not refuse"
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}
