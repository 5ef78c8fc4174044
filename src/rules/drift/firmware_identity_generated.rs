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

fn explain(change: &Change<'_>) -> Explained {
    let field = change.field;
    let what = if change.last_key == "firmware" {
        format!("`{field}.uuid` and `{field}.serial`")
    } else {
        format!("`{field}`")
    };
    let uuid_missing = change.last_key != "serial";
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
            "KubeVirt {} generates a random {what} when the VM is created; they differ on every cluster and every re-creation{legacy_message}",
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
