//! `kvlint fix` never changes the VM that runs: on every fixture repository, the VMs rendered
//! after the safe fixes are the VMs rendered before, except for fields a finding of the check
//! before the fix announced (drift: what KubeVirt would write into the stored VM, which those
//! fixes pin; deprecation: `running` rewritten as the `runStrategy` it means), and the fields
//! KubeVirt's webhook writes on create into a VM that a fix made admissible.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use kvlint::yaml::{FieldPath, Segment};
use serde_json::Value;

fn kvlint(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// The rendered VMs by `namespace/name`.
fn rendered(dir: &Path) -> Vec<(String, Value)> {
    let output = kvlint(dir, &["render", ".", "--format", "json"]);
    let vms: Vec<Value> =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}: {output:?}"));
    let mut vms: Vec<(String, Value)> = vms
        .into_iter()
        .map(|vm| {
            let metadata = &vm["metadata"];
            let key = format!(
                "{}/{}",
                metadata["namespace"].as_str().unwrap_or_default(),
                metadata["name"].as_str().unwrap_or_default()
            );
            (key, vm)
        })
        .collect();
    vms.sort_by(|a, b| a.0.cmp(&b.0));
    vms
}

/// A finding's field path (`a.b[key/with.dots].c`, `list[0]`) as the segments `differences`
/// yields.
fn segments(path: &str) -> Vec<String> {
    FieldPath::parse(path)
        .0
        .into_iter()
        .map(|segment| match segment {
            Segment::Key(key) => key,
            Segment::Index(index) => index.to_string(),
        })
        .collect()
}

/// Every leaf path at which `before` and `after` differ, as segments.
fn differences(before: &Value, after: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match (before, after) {
        (Value::Object(_), Value::Null) | (Value::Null, Value::Object(_)) => {
            // A map one side lacks: each of its leaves is a difference.
            let empty = Value::Object(serde_json::Map::new());
            let (b, a) = if before.is_null() {
                (&empty, after)
            } else {
                (before, &empty)
            };
            differences(b, a, at, out);
        }
        (Value::Object(b), Value::Object(a)) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                at.push(key.clone());
                let none = Value::Null;
                differences(
                    b.get(key).unwrap_or(&none),
                    a.get(key).unwrap_or(&none),
                    at,
                    out,
                );
                at.pop();
            }
        }
        (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
            for (i, (b, a)) in b.iter().zip(a).enumerate() {
                at.push(i.to_string());
                differences(b, a, at, out);
                at.pop();
            }
        }
        _ if before != after => out.push(at.clone()),
        _ => {}
    }
}

/// What KubeVirt's mutating webhook writes into every VM it admits on create (machine type,
/// architecture, firmware identity, PCI topology annotation), as path segments.
const WEBHOOK_WRITES: [&[&str]; 4] = [
    &[
        "spec",
        "template",
        "metadata",
        "annotations",
        "kubevirt.io/pci-topology-version",
    ],
    &["spec", "template", "spec", "architecture"],
    &["spec", "template", "spec", "domain", "machine", "type"],
    &["spec", "template", "spec", "domain", "firmware"],
];

/// The drift and deprecation findings of a check, by object (`namespace/name`) and path
/// segments.
fn announced(dir: &Path) -> Vec<(String, Vec<String>)> {
    let output = kvlint(
        dir,
        &["check", ".", "--format", "json", "--fail-on", "none"],
    );
    let report = common::json_report(&output);
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["category"] == "drift" || d["category"] == "deprecation")
        .flat_map(|d| {
            let object = &d["object"];
            let key = format!(
                "{}/{}",
                object["namespace"].as_str().unwrap_or_default(),
                object["name"].as_str().unwrap_or_default()
            );
            let mut paths = vec![segments(d["path"].as_str().unwrap_or_default())];
            // The deprecated `running` is replaced by the `runStrategy` it means.
            if d["code"] == "KV0016" {
                paths.push(segments("spec.runStrategy"));
            }
            paths.into_iter().map(move |path| (key.clone(), path))
        })
        .collect()
}

/// Fixes `fixture` in a copy and returns what changed in its rendered VMs that no drift finding
/// announced, and the number of fields the fixes changed in them.
fn unannounced_changes(fixture: &Path) -> (Vec<String>, usize) {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("repo");
    common::copy_dir(fixture, &dir);
    let before = rendered(&dir);
    let announced = announced(&dir);
    let fix = kvlint(&dir, &["fix", "."]);
    assert!(
        matches!(fix.status.code(), Some(0 | 1)),
        "{}: {fix:?}",
        fixture.display()
    );
    let after = rendered(&dir);
    let (mut unannounced, mut changed) = (Vec::new(), 0);
    // A VM may render after the fixes that did not before (a fix removed the stale
    // `revisionName` that made it unrenderable); none that rendered may stop rendering.
    for (key, before) in &before {
        let Some((_, after)) = after.iter().find(|(k, _)| k == key) else {
            unannounced.push(format!("{}: {key} no longer renders", fixture.display()));
            continue;
        };
        let mut fields = Vec::new();
        differences(before, after, &mut Vec::new(), &mut fields);
        changed += fields.len();
        for field in fields {
            let covered = announced
                .iter()
                .any(|(object, path)| object == key && field.starts_with(path))
                || WEBHOOK_WRITES
                    .iter()
                    .any(|path| field.len() >= path.len() && field[..path.len()] == **path);
            if !covered {
                unannounced.push(format!("{}: {key}: {}", fixture.display(), field.join(".")));
            }
        }
    }
    (unannounced, changed)
}

fn fixtures() -> Vec<PathBuf> {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir("testdata/cases")
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    fixtures.sort();
    fixtures.push("testdata/integrations/fail".into());
    fixtures
}

#[test]
fn safe_fixes_change_only_what_kubevirt_would_write() {
    let mut unannounced = Vec::new();
    let mut changed = 0;
    for fixture in fixtures() {
        if fixture.join("app/kustomization.yaml").exists()
            && !common::kustomize_available("safe_fixes_change_only_what_kubevirt_would_write")
        {
            continue;
        }
        let (found, fields) = unannounced_changes(&fixture);
        unannounced.extend(found);
        changed += fields;
    }
    assert!(unannounced.is_empty(), "{}", unannounced.join("\n"));
    assert!(
        changed > 0,
        "no fix changed a rendered field: the test checks nothing"
    );
}

#[test]
fn the_demo_runs_the_same_vms_after_its_fixes() {
    if !common::kustomize_available("the_demo_runs_the_same_vms_after_its_fixes") {
        return;
    }
    let (unannounced, changed) = unannounced_changes(Path::new("examples/demo"));
    assert!(unannounced.is_empty(), "{}", unannounced.join("\n"));
    assert!(
        changed > 0,
        "the demo's fixes pin the fields KubeVirt writes"
    );
}
