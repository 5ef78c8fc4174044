//! KV1004: spec.instancetype or spec.preference is not accepted by KubeVirt's mutating webhook
//! (found by `admission::mutate`).

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static INVALID_MATCHER: Rule = Rule {
    code: "KV1004",
    name: "invalid-matcher",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "spec.instancetype or spec.preference is not accepted by KubeVirt's mutating webhook.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1004.md"),
    fix: FixKind::None,
    drift: None,
};

/// The webhook's cause: its field (a VM field) and its message.
pub fn refused(field: &str, message: String) -> Reported {
    Reported::new(&INVALID_MATCHER, At::Field(field.to_owned()), message).with_kubevirt_field(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_cause_s_field() {
        let reported = refused(
            "spec.preference.kind",
            "unsupported preference kind Foo".to_owned(),
        );
        assert_eq!(reported.at, At::Field("spec.preference.kind".to_owned()));
        assert_eq!(reported.message, "unsupported preference kind Foo");
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.preference.kind")
        );
        assert_eq!(reported.help, None);
    }
}
