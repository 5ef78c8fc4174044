//! KV1003: the instance type's vCPUs cannot be spread as the preference asks (found by
//! admission's instance-type validation).

use super::spec::{At, Matcher, RelatedField, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static SPREAD_NOT_DIVISIBLE: Rule = Rule {
    code: "KV1003",
    name: "spread-not-divisible",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "The instance type's vCPUs cannot be spread as the preference asks.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1003.md"),
    fix: FixKind::None,
    drift: None,
};

/// The spread KubeVirt refuses with `message`, naming its field `field`.
pub fn not_divisible(field: String, message: String) -> Reported {
    Reported::new(
        &SPREAD_NOT_DIVISIBLE,
        At::Field("spec.preference".to_owned()),
        message,
    )
    .with_kubevirt_field(field)
    .with_related(
        Matcher::Instancetype,
        RelatedField::Field("cpu.guest"),
        "vCPUs of the instance type",
    )
    .with_related(
        Matcher::Preference,
        RelatedField::Field("cpu"),
        "spread preference",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_preference_and_names_the_vcpus_and_the_spread() {
        let reported = not_divisible(
            "spec.template.spec.domain.cpu".to_owned(),
            "3 vCPUs cannot be spread".to_owned(),
        );
        assert_eq!(reported.at, At::Field("spec.preference".to_owned()));
        assert_eq!(reported.message, "3 vCPUs cannot be spread");
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.template.spec.domain.cpu")
        );
        assert_eq!(reported.help, None);
        let related: Vec<(Matcher, &str)> = reported
            .related
            .iter()
            .map(|r| (r.object, r.label.as_str()))
            .collect();
        assert_eq!(
            related,
            [
                (Matcher::Instancetype, "vCPUs of the instance type"),
                (Matcher::Preference, "spread preference")
            ]
        );
    }
}
