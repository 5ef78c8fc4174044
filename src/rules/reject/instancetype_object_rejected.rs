//! KV1013: KubeVirt's instance-type or preference webhook refuses the object (found by
//! `admission::objects`, which reproduces the webhooks and their causes' words).

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static OBJECT_REJECTED: Rule = Rule {
    code: "KV1013",
    name: "instancetype-object-rejected",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "KubeVirt's instance-type or preference webhook refuses the object.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1013.md"),
    fix: FixKind::None,
    drift: None,
};

/// The webhook's cause: its field (a field of the object) and its message.
pub fn refused(field: &str, message: impl Into<String>) -> Reported {
    Reported::new(&OBJECT_REJECTED, At::Field(field.to_owned()), message).with_kubevirt_field(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_cause_s_field() {
        let reported = refused(
            "spec.cpu.spreadOptions.across",
            "across SocketsThreads is not supported",
        );
        assert_eq!(
            reported.at,
            At::Field("spec.cpu.spreadOptions.across".to_owned())
        );
        assert_eq!(reported.message, "across SocketsThreads is not supported");
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.cpu.spreadOptions.across")
        );
        assert_eq!(reported.help, None);
    }
}
