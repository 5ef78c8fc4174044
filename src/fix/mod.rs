//! `kvlint fix`: the edits that make a manifest say what the cluster stores.
//!
//! A fix is data on its finding (`Fix`: field-level actions); `edit` turns the actions into
//! minimal text edits of the file, `run` applies them and checks the result again, and `write`
//! writes the files.

mod edit;
mod roots;
mod run;
mod write;

use serde_json::Value;

use crate::drift::Drift;
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;

pub use edit::{TextEdit, apply_edits, plan_edits};
pub use run::{Applied, FileChange, FixOptions, Outcome, Skipped, json, plan, text, unified_diff};
pub use write::write;

/// One field-level change, at a path of the object (the finding's `path` notation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Remove the field (and a parent it leaves empty).
    Remove(FieldPath),
    /// Make the field hold this value: scalars are replaced, maps are merged key by key, a
    /// missing field is inserted.
    Set(FieldPath, Value),
    /// Replace the field by another key of the same parent (a deprecated spelling).
    Rename {
        path: FieldPath,
        key: String,
        value: Value,
    },
}

/// What `kvlint fix` does for one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub description: String,
    pub actions: Vec<Action>,
    /// The lowest KubeVirt minor release (1.x) for which the fix is right; older targets still
    /// need the field (revisionName before v1.5).
    pub since_minor: u32,
}

impl Fix {
    fn new(description: String, actions: Vec<Action>) -> Self {
        Self {
            description,
            actions,
            since_minor: 0,
        }
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Removes a field the cluster writes (status, server metadata, revisionName, restore
/// annotations).
pub fn remove(path: &FieldPath) -> Fix {
    Fix::new(
        format!("remove `{path}`"),
        vec![Action::Remove(path.clone())],
    )
}

/// revisionName: KubeVirt v1.5+ tracks the revision in status, so Git must not carry it.
pub fn remove_revision_name(path: &FieldPath) -> Fix {
    Fix {
        since_minor: 5,
        ..remove(path)
    }
}

/// `spec.running: true|false` becomes `spec.runStrategy: Always|Halted`.
pub fn running_to_run_strategy(path: &FieldPath, running: &Value) -> Option<Fix> {
    let strategy = match running {
        Value::Bool(true) => "Always",
        Value::Bool(false) => "Halted",
        _ => return None,
    };
    Some(Fix::new(
        format!("replace `{path}: {running}` by `runStrategy: {strategy}`"),
        vec![Action::Rename {
            path: path.clone(),
            key: "runStrategy".to_owned(),
            value: Value::String(strategy.to_owned()),
        }],
    ))
}

/// A deprecated spelling of a value, replaced by the current one.
pub fn rename_value(path: &FieldPath, current: &str) -> Fix {
    Fix::new(
        format!("write `{path}` as `{current}`"),
        vec![Action::Set(path.clone(), Value::String(current.to_owned()))],
    )
}

/// `inferFromVolume` committed with the name the cluster inferred: keep the name, as stored.
pub fn drop_inference(matcher: &FieldPath) -> Fix {
    Fix::new(
        format!("remove `{matcher}.inferFromVolume`, keep the inferred name and kind"),
        vec![
            Action::Remove(matcher.key("inferFromVolume")),
            Action::Remove(matcher.key("inferFromVolumeFailurePolicy")),
        ],
    )
}

/// A stable identity for pinning (firmware uuid / serial): UUID-shaped, derived from the
/// object and field so that repeated runs write the same value.
fn pinned_identity(seed: &str) -> String {
    let hash = |salt: u64| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
        for byte in seed.bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    };
    let (high, low) = (hash(0x6b76_6c69_6e74), hash(0x6669_726d_7761_7265));
    let high = (high & 0xffff_ffff_ffff_0fff) | 0x4000; // version 4 layout
    let low = (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        high >> 32,
        (high >> 16) & 0xffff,
        high & 0xffff,
        low >> 48,
        low & 0xffff_ffff_ffff
    )
}

fn pin_identities(value: &mut Value, path: &FieldPath, object: &str) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                pin_identities(child, &path.key(key), object);
            }
        }
        Value::String(text) => *text = pinned_identity(&format!("{object}/{path}")),
        _ => {}
    }
}

/// The fix of a predicted drift: write what the cluster stores at the drift's path (`full` is
/// the path inside the object, `object` identifies it for pinned identities).
pub fn for_drift(drift: &Drift, full: &FieldPath, object: &str) -> Option<Fix> {
    let code = drift.rule.code;
    let stored = drift.stored.as_ref();
    if code == rules::FIRMWARE_IDENTITY_GENERATED.code {
        let mut pinned = stored?.clone();
        pin_identities(&mut pinned, full, object);
        return Some(Fix::new(
            format!("pin `{full}` to a generated identity"),
            vec![Action::Set(full.clone(), pinned)],
        ));
    }
    if code == rules::NORMALIZED_BY_KUBEVIRT.code {
        // Only canonical spellings of a value are safe; a dropped field may be a typo the
        // owner wants to correct instead.
        let (written, stored) = (drift.written.as_ref()?, stored?);
        if written.is_object() || written.is_array() || stored.is_object() || stored.is_array() {
            return None;
        }
        return Some(Fix::new(
            format!("write `{full}` as `{}`", scalar_text(stored)),
            vec![Action::Set(full.clone(), stored.clone())],
        ));
    }
    let settable = [
        &rules::MATCHER_KIND_DEFAULTED,
        &rules::INFERENCE_REWRITTEN,
        &rules::MACHINE_TYPE_DEFAULTED,
        &rules::ARCHITECTURE_DEFAULTED,
        &rules::STORAGE_CLASS_DEFAULTED,
        &rules::PCI_TOPOLOGY_ANNOTATION,
    ];
    if !settable.iter().any(|rule: &&Rule| rule.code == code) {
        return None;
    }
    Some(match stored {
        Some(value) if value.is_object() => Fix::new(
            format!("write `{full}` as KubeVirt stores it"),
            vec![Action::Set(full.clone(), value.clone())],
        ),
        Some(value) => Fix::new(
            format!("set `{full}` to `{}`", scalar_text(value)),
            vec![Action::Set(full.clone(), value.clone())],
        ),
        None => remove(full),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_identities_are_stable_uuids() {
        let a = pinned_identity("default/vm/spec.template.spec.domain.firmware.uuid");
        assert_eq!(
            a,
            pinned_identity("default/vm/spec.template.spec.domain.firmware.uuid")
        );
        assert_ne!(
            a,
            pinned_identity("default/vm/spec.template.spec.domain.firmware.serial")
        );
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }

    #[test]
    fn running_becomes_run_strategy() {
        let fix = running_to_run_strategy(&FieldPath::parse("spec.running"), &Value::Bool(false))
            .unwrap();
        assert_eq!(
            fix.actions,
            [Action::Rename {
                path: FieldPath::parse("spec.running"),
                key: "runStrategy".into(),
                value: Value::String("Halted".into())
            }]
        );
    }
}
