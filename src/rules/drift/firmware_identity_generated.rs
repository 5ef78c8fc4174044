//! KV3006: KubeVirt generates a random firmware UUID and serial when the VM is created.

use super::spec::{Change, Changes, Claim, DriftFix, DriftRule, Explained, Gathered, NextSync};
use crate::rules::{Category, Rule, Severity};

pub static FIRMWARE_IDENTITY_GENERATED: Rule = Rule {
    code: "KV3006",
    name: "firmware-identity-generated",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt generates a random firmware UUID (v1.6+) and serial (v1.7+) on create.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3006.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[
            Claim::always(&["spec", "template", "spec", "domain", "firmware", "uuid"]),
            Claim::always(&["spec", "template", "spec", "domain", "firmware", "serial"]),
        ],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::PinIdentity,
    gathered: Some(Gathered::Generated {
        one: "a random firmware uuid",
        several: "a random firmware uuid and serial",
    }),
};

/// The generated fields a change names: the leaf itself, or those of `uuid` and `serial` the
/// cluster stores in a firmware the manifest does not write (only the uuid up to v1.6).
fn generated_fields(change: &Change<'_>) -> Vec<String> {
    let field = change.field;
    if change.last_key != "firmware" {
        return vec![field.to_owned()];
    }
    let stored = change.stored.and_then(serde_json::Value::as_object);
    let written = change.written.and_then(serde_json::Value::as_object);
    let generated: Vec<String> = ["uuid", "serial"]
        .into_iter()
        .filter(|key| {
            stored.is_none_or(|s| s.get(*key).is_some_and(|v| !v.is_null()))
                && written.is_none_or(|w| w.get(*key).is_none_or(serde_json::Value::is_null))
        })
        .map(|key| format!("{field}.{key}"))
        .collect();
    if generated.is_empty() {
        vec![field.to_owned()]
    } else {
        generated
    }
}

fn explain(change: &Change<'_>) -> Explained {
    let field = change.field;
    let generated = generated_fields(change);
    let (what, differ) = match generated.as_slice() {
        [one] => (format!("`{one}`"), "it differs"),
        several => (
            several
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            "they differ",
        ),
    };
    let uuid_missing = generated.iter().any(|f| !f.ends_with(".serial"));
    let (legacy_message, legacy_help) = change
        .legacy_uuid
        .as_ref()
        .filter(|_| uuid_missing)
        .map(|(name, uuid)| {
            (
                format!(
                    "; a VM created before v1.6 (or whose uuid is removed later) gets `{uuid}`, derived from its name, from the VM controller"
                ),
                format!(
                    "; `uuid: {uuid}` keeps the identity a VM named {name} created before v1.6 has"
                ),
            )
        })
        .unwrap_or_default();
    Explained {
        message: format!(
            "KubeVirt {} generates a random {what} when the VM is created; {differ} on every cluster and every re-creation{legacy_message}",
            change.version
        ),
        help: format!(
            "generate a UUID once (e.g. `uuidgen`) and commit it at `{field}`{legacy_help}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn a_whole_firmware_names_both_fields_and_the_legacy_uuid() {
        let stored = json!({"uuid": "u", "serial": "s"});
        let legacy = Some(("testvm", "5a9fc181-957e-5c32-9e5a-2de5e9673531".to_owned()));
        let field = "spec.template.spec.domain.firmware";
        let explained = explain_at(explain, field, None, Some(&stored), legacy);
        assert!(
            explained
                .message
                .contains(&format!("a random `{field}.uuid` and `{field}.serial`")),
            "{}",
            explained.message
        );
        assert!(
            explained
                .message
                .contains("gets `5a9fc181-957e-5c32-9e5a-2de5e9673531`")
        );
        assert!(
            explained.help.ends_with("created before v1.6 has"),
            "{}",
            explained.help
        );
    }

    #[test]
    fn one_generated_field_is_worded_in_the_singular_two_in_the_plural() {
        let firmware = "spec.template.spec.domain.firmware";
        let uuid = format!("{firmware}.uuid");
        let one = explain_at(explain, &uuid, None, Some(&json!("u")), None);
        assert_eq!(
            one.message,
            format!(
                "KubeVirt v1.9 generates a random `{uuid}` when the VM is created; it differs on every cluster and every re-creation"
            )
        );
        // Up to v1.6 the firmware the webhook adds holds the uuid alone.
        let only_uuid = explain_at(explain, firmware, None, Some(&json!({"uuid": "u"})), None);
        assert_eq!(only_uuid.message, one.message);
        let both = explain_at(
            explain,
            firmware,
            None,
            Some(&json!({"uuid": "u", "serial": "s"})),
            None,
        );
        assert_eq!(
            both.message,
            format!(
                "KubeVirt v1.9 generates a random `{firmware}.uuid` and `{firmware}.serial` when the VM is created; they differ on every cluster and every re-creation"
            )
        );
    }

    #[test]
    fn a_serial_alone_has_no_legacy_uuid() {
        let legacy = Some(("testvm", "5a9fc181-957e-5c32-9e5a-2de5e9673531".to_owned()));
        let field = "spec.template.spec.domain.firmware.serial";
        let explained = explain_at(explain, field, None, Some(&json!("s")), legacy);
        assert!(
            !explained.message.contains("5a9fc181"),
            "{}",
            explained.message
        );
        assert_eq!(
            explained.help,
            format!("generate a UUID once (e.g. `uuidgen`) and commit it at `{field}`")
        );
    }
}
