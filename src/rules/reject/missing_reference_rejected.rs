//! KV1011: up to KubeVirt v1.5, a VM whose instance type or preference cannot be found is
//! refused (found by admission's instance-type validation).

use super::spec::{At, Matcher, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static REFERENCE_REJECTED: Rule = Rule {
    code: "KV1011",
    name: "missing-reference-rejected",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "Up to KubeVirt v1.5, a VM whose instance type or preference cannot be found is refused.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1011.md"),
    fix: FixKind::None,
    drift: None,
};

/// The webhook refuses the VM because `matcher`'s object is missing: its cause's field and
/// message.
pub fn refused(matcher: Matcher, field: String, message: String) -> Reported {
    Reported::new(
        &REFERENCE_REJECTED,
        At::Field(format!("spec.{}", matcher.field())),
        message,
    )
    .with_kubevirt_field(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_matcher() {
        let reported = refused(
            Matcher::Instancetype,
            "spec.instancetype".to_owned(),
            "Failure to find instancetype: not found".to_owned(),
        );
        assert_eq!(reported.at, At::Field("spec.instancetype".to_owned()));
        assert_eq!(reported.message, "Failure to find instancetype: not found");
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.instancetype")
        );
    }
}
