//! Scores one case's kvlint outputs against KubeVirt's: render, reject and drift per VM, as
//! run.py's `check_case` scores them, and the instance type and preference verdicts as
//! tests/conformance_objects.rs does.

use std::collections::BTreeSet;

use serde_json::Value;

use super::rules::{
    cause_path, covers, differences, get, get_or_empty, leaf_differences, leaves, matches_cause,
    render_target, strip_object, text, truthy,
};

pub(crate) const FAILURE_CATEGORIES: [&str; 4] = ["reject", "unresolved", "schema", "syntax"];

pub(crate) struct Outputs {
    pub(crate) rendered: Result<Vec<Value>, String>,
    pub(crate) diagnostics: Result<Vec<Value>, String>,
}

pub(crate) fn vm_key(object: &Value) -> String {
    let namespace = text(object, "namespace");
    let namespace = if namespace.is_empty() {
        "default"
    } else {
        namespace
    };
    format!("{namespace}/{}", text(object, "name"))
}

/// One (VM, score) result: `Err` holds why it failed.
pub(crate) struct Scored {
    pub(crate) vm: String,
    pub(crate) kind: &'static str,
    pub(crate) outcome: Result<(), String>,
}

pub(crate) fn score_render(
    expected: &Value,
    outputs: &Outputs,
    rendered: Option<&Value>,
    findings: &[&Value],
) -> Result<(), String> {
    outputs.rendered.as_ref().map_err(Clone::clone)?;
    if let Some(target) = render_target(expected) {
        let got = rendered.ok_or("VM missing from render output")?;
        let diff = differences(&strip_object(&target), &strip_object(got), "");
        return if diff.is_empty() {
            Ok(())
        } else {
            Err(format!("differs at {:?}", &diff[..diff.len().min(6)]))
        };
    }
    outputs.diagnostics.as_ref().map_err(Clone::clone)?;
    if rendered.is_some() {
        return Err("rendered although KubeVirt cannot expand it".to_owned());
    }
    let flagged = findings.iter().any(|f| {
        text(f, "severity") == "error" && FAILURE_CATEGORIES.contains(&text(f, "category"))
    });
    if flagged {
        Ok(())
    } else {
        Err(format!(
            "no error (reject/unresolved/schema/syntax) for a VM KubeVirt cannot expand: {}",
            text(expected, "expand_error")
                .chars()
                .take(120)
                .collect::<String>()
        ))
    }
}

pub(crate) fn score_reject(admission: &Value, findings: &[&Value]) -> Result<(), String> {
    let rejects: Vec<&&Value> = findings
        .iter()
        .filter(|f| text(f, "category") == "reject")
        .collect();
    if get(admission, "allowed").is_none_or(|a| a != &Value::Bool(false)) {
        return if rejects.is_empty() {
            Ok(())
        } else {
            let paths: Vec<&str> = rejects.iter().take(4).map(|f| text(f, "path")).collect();
            Err(format!("KubeVirt admits it, kvlint rejects: {paths:?}"))
        };
    }
    let errors: Vec<&&Value> = findings
        .iter()
        .filter(|f| {
            text(f, "severity") == "error" && matches!(text(f, "category"), "reject" | "schema")
        })
        .collect();
    let causes = get(admission, "causes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let missing: Vec<String> = causes
        .iter()
        .map(cause_path)
        .filter(|want| !errors.iter().any(|f| matches_cause(f, want)))
        .map(|(field, _)| field)
        .collect();
    let ok = missing.is_empty()
        && (!causes.is_empty() || errors.iter().any(|f| text(f, "category") == "reject"));
    if ok {
        return Ok(());
    }
    let have: BTreeSet<&str> = errors
        .iter()
        .map(|f| {
            let field = text(f, "kubevirt_field");
            if field.is_empty() {
                text(f, "path")
            } else {
                field
            }
        })
        .collect();
    Err(format!("missing reject fields {missing:?} (have {have:?})"))
}

pub(crate) fn score_drift(
    source: &Value,
    mutated: &Value,
    findings: &[&Value],
) -> Result<(), String> {
    let (before, after) = (strip_object(source), strip_object(mutated));
    let changed = leaf_differences(&before, &after, "", true);
    let every: BTreeSet<String> = leaves(&before, "", true)
        .into_iter()
        .chain(leaves(&after, "", true))
        .collect();
    let drift_paths: Vec<&str> = findings
        .iter()
        .filter(|f| text(f, "category") == "drift")
        .map(|f| text(f, "path"))
        .collect();
    let missing: Vec<&String> = changed
        .iter()
        .filter(|c| !drift_paths.iter().any(|p| covers(p, c)))
        .collect();
    let (mut false_drift, mut broad) = (Vec::new(), Vec::new());
    for path in &drift_paths {
        if !changed.iter().any(|c| covers(path, c)) {
            false_drift.push(*path);
        } else if every
            .iter()
            .any(|leaf| covers(path, leaf) && !changed.contains(leaf))
        {
            broad.push(*path);
        }
    }
    let mut why = Vec::new();
    if !missing.is_empty() {
        why.push(format!(
            "uncovered changes {:?}",
            &missing[..missing.len().min(5)]
        ));
    }
    if !false_drift.is_empty() {
        why.push(format!("drift KubeVirt does not cause {false_drift:?}"));
    }
    if !broad.is_empty() {
        why.push(format!("drift paths too broad {broad:?}"));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

/// render, reject and drift for every VM of a case, as run.py's `check_case` scores them.
pub(crate) fn score_case(expected: &[Value], outputs: &Outputs) -> Vec<Scored> {
    let rendered: Vec<Value> = outputs.rendered.clone().unwrap_or_default();
    let findings: &[Value] = outputs.diagnostics.as_deref().unwrap_or_default();
    let mut scores = Vec::new();
    for exp in expected {
        let vm = text(exp, "vm").to_owned();
        let of_vm: Vec<&Value> = findings
            .iter()
            .filter(|f| {
                let object = get_or_empty(f, "object");
                text(&object, "kind") == "VirtualMachine" && vm_key(&object) == vm
            })
            .collect();
        let rendered_vm = rendered
            .iter()
            .find(|o| vm_key(&get_or_empty(o, "metadata")) == vm);
        let admission = get_or_empty(exp, "admission");
        scores.push(Scored {
            vm: vm.clone(),
            kind: "render",
            outcome: score_render(exp, outputs, rendered_vm, &of_vm),
        });
        scores.push(Scored {
            vm: vm.clone(),
            kind: "reject",
            outcome: outputs
                .diagnostics
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|_| score_reject(&admission, &of_vm)),
        });
        let source = get(exp, "input").filter(|v| truthy(v));
        let mutated = get(exp, "mutated").filter(|v| truthy(v));
        if let (Some(source), Some(mutated)) = (source, mutated)
            && get(&admission, "allowed").is_some_and(truthy)
        {
            scores.push(Scored {
                vm,
                kind: "drift",
                outcome: outputs
                    .diagnostics
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(|_| score_drift(source, mutated, &of_vm)),
            });
        }
    }
    scores
}

/// KubeVirt's verdict on each instance type, preference and VirtualMachinePool of the case
/// (expected-objects.jsonl) against kvlint's findings: a refusal is a `reject`/`schema` error at each cause's field, an
/// admitted object has none, each warning is a finding with its message.
pub(crate) fn score_objects(verdicts: &[Value], outputs: &Outputs) -> Vec<Scored> {
    let findings: &[Value] = outputs.diagnostics.as_deref().unwrap_or_default();
    verdicts
        .iter()
        .map(|verdict| {
            let object = text(verdict, "object").to_owned();
            let admission = get_or_empty(verdict, "admission");
            let outcome = outputs
                .diagnostics
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|_| object_disagreements(&object, &admission, findings));
            // The pool validator's verdicts are counted apart: only some releases have them.
            let kind = if object.starts_with("VirtualMachinePool/") {
                "pool"
            } else {
                "object"
            };
            Scored {
                vm: object,
                kind,
                outcome,
            }
        })
        .collect()
}

pub(crate) fn object_disagreements(
    object: &str,
    admission: &Value,
    findings: &[Value],
) -> Result<(), String> {
    let of_object: Vec<&Value> = findings
        .iter()
        .filter(|f| {
            let o = get_or_empty(f, "object");
            format!("{}/{}", text(&o, "kind"), text(&o, "name")) == object
        })
        .collect();
    let refusals: BTreeSet<&str> = of_object
        .iter()
        .filter(|f| {
            text(f, "severity") == "error" && matches!(text(f, "category"), "reject" | "schema")
        })
        .map(|f| {
            let field = text(f, "kubevirt_field");
            if field.is_empty() {
                text(f, "path")
            } else {
                field
            }
        })
        .collect();
    let messages: BTreeSet<&str> = of_object.iter().map(|f| text(f, "message")).collect();
    let mut out = Vec::new();
    if get(admission, "allowed") == Some(&Value::Bool(true)) {
        if !refusals.is_empty() {
            out.push(format!(
                "admitted by KubeVirt, refused by kvlint at {refusals:?}"
            ));
        }
    } else {
        let causes = get(admission, "causes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        // A refusal without causes (KubeVirt's webhook code panics) is any refusal.
        if causes.is_empty() && refusals.is_empty() {
            out.push(format!(
                "KubeVirt refuses it without causes ({}), kvlint does not",
                text(admission, "panic")
            ));
        }
        for cause in &causes {
            let field = text(cause, "field");
            if !refusals.contains(field) {
                out.push(format!(
                    "KubeVirt refuses {field} ({}), kvlint at {refusals:?}",
                    text(cause, "message")
                ));
            }
        }
    }
    for warning in get(admission, "warnings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let warning = warning.as_str().unwrap_or_default();
        if !messages.contains(warning) {
            out.push(format!("KubeVirt warns {warning:?}, kvlint does not"));
        }
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(out.join("; "))
    }
}
