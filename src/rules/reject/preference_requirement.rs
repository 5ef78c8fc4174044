//! KV1002: the VM or its instance type does not meet the preference's requirements (found by
//! admission's instance-type validation).

use super::spec::{At, Matcher, RelatedField, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static PREFERENCE_REQUIREMENT: Rule = Rule {
    code: "KV1002",
    name: "preference-requirement-unmet",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "The VM or its instance type does not meet the preference's requirements.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1002.md"),
    fix: FixKind::None,
    drift: None,
};

/// The requirement KubeVirt refuses with `message` at its fields `fields` (`a, b` when several);
/// `by_instancetype` when the instance type provides what falls short.
pub fn unmet(fields: String, message: String, by_instancetype: bool) -> Reported {
    let first = fields.split(", ").next().unwrap_or("").to_owned();
    let reported = Reported::new(&PREFERENCE_REQUIREMENT, At::Cause(first), message)
        .with_kubevirt_field(fields);
    let reported = if by_instancetype {
        reported.with_related(
            Matcher::Instancetype,
            RelatedField::Field(""),
            "the instance type provides",
        )
    } else {
        reported
    };
    reported.with_related(
        Matcher::Preference,
        RelatedField::Field("requirements"),
        "the preference requires",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_first_field_and_at_both_objects() {
        let reported = unmet(
            "spec.template.spec.domain.cpu.sockets, spec.instancetype".to_owned(),
            "insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU".to_owned(),
            true,
        );
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.cpu.sockets".to_owned())
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.template.spec.domain.cpu.sockets, spec.instancetype")
        );
        let labels: Vec<&str> = reported.related.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["the instance type provides", "the preference requires"]
        );
        let by_vm = unmet("spec.x".to_owned(), String::new(), false);
        assert_eq!(by_vm.related.len(), 1);
        assert_eq!(by_vm.related[0].field, RelatedField::Field("requirements"));
    }
}
