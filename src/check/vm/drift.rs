//! Predicted drift as findings, and the fix that commits what the cluster would store.

use serde_json::Value;

use super::view::VmView;
use crate::controller::drift::{Drift, DriftPolicy};
use crate::diag::Finding;
use crate::diag::fix::{Fix, remove};
use crate::rules::drift::DriftFix;
use crate::yaml::FieldPath;
use crate::yaml::edit::Action;

pub(super) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A stable identity for pinning (firmware uuid / serial): UUID-shaped, derived from the
/// object and field so that repeated runs write the same value.
pub(super) fn pinned_identity(seed: &str) -> String {
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

pub(super) fn pin_identities(value: &mut Value, path: &FieldPath, object: &str) {
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

/// The finding of a predicted change. Drift (not the runtime data the controller writes) gets
/// its kind, the severity `policy` gives the kind, and what the engine does with it.
pub(super) fn drift_finding(
    view: &VmView<'_>,
    drift: Drift,
    policy: DriftPolicy,
    owns_volumes: bool,
) -> Finding {
    let is_drift = drift.rule.category == crate::diag::Category::Drift;
    let mut message = drift.message;
    if is_drift {
        message.push_str(&crate::controller::drift::engine_effect(
            drift.kind,
            policy.gitops,
            owns_volumes,
        ));
    }
    let mut finding = view
        .finding(drift.rule, &drift.path, message)
        .with_help(drift.help);
    if is_drift {
        finding.drift = Some(drift.kind);
        finding.severity = policy.severity(drift.kind);
    }
    finding.fields = drift
        .leaves
        .iter()
        .map(|leaf| view.path(leaf).text())
        .collect();
    finding
}

/// The fix of a predicted drift, the way its rule fixes it: write what the cluster stores at
/// the drift's path (`full` is the path inside the object, `object` identifies it for pinned
/// identities).
pub(super) fn for_drift(drift: &Drift, full: &FieldPath, object: &str) -> Option<Fix> {
    let stored = drift.stored.as_ref();
    match drift.rule.drift.map_or(DriftFix::None, |rule| rule.fix) {
        DriftFix::None => None,
        DriftFix::PinIdentity => {
            let mut pinned = stored?.clone();
            pin_identities(&mut pinned, full, object);
            Some(Fix::new(
                format!("pin `{full}` to a generated identity"),
                vec![Action::Set(full.clone(), pinned)],
            ))
        }
        DriftFix::CanonicalScalar => {
            let (written, stored) = (drift.written.as_ref()?, stored?);
            if written.is_object() || written.is_array() || stored.is_object() || stored.is_array()
            {
                return None;
            }
            Some(Fix::new(
                format!("write `{full}` as `{}`", scalar_text(stored)),
                vec![Action::Set(full.clone(), stored.clone())],
            ))
        }
        DriftFix::CommitStored => Some(match stored {
            Some(value) if value.is_object() => Fix::new(
                format!("write `{full}` as KubeVirt stores it"),
                vec![Action::Set(full.clone(), value.clone())],
            ),
            Some(value) => Fix::new(
                format!("set `{full}` to `{}`", scalar_text(value)),
                vec![Action::Set(full.clone(), value.clone())],
            ),
            None => remove(full),
        }),
    }
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
}
