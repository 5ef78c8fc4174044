//! KV1001: a VM field the selected instance type also sets (`render::Conflict`, found by
//! admission's instance-type validation).

use super::spec::{At, Matcher, RelatedField, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static INSTANCETYPE_CONFLICT: Rule = Rule {
    code: "KV1001",
    name: "instancetype-conflict",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "A VM field is also set by the selected instance type.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1001.md"),
    fix: FixKind::None,
    drift: None,
};

/// The conflict at KubeVirt's field `field`, refused with `message`; `set_by` is the kind and
/// name of the instance type found, if it was.
pub fn conflict(field: &str, message: String, set_by: Option<(&str, &str)>) -> Reported {
    let reported = Reported::new(&INSTANCETYPE_CONFLICT, At::Cause(field.to_owned()), message)
        .with_kubevirt_field(field)
        .with_help("remove the field from the VM: the instance type sets it, and KubeVirt refuses to override either");
    match set_by {
        Some((kind, name)) => reported.with_related(
            Matcher::Instancetype,
            RelatedField::SettingOf(field.to_owned()),
            format!("set by {kind} {name}"),
        ),
        None => reported,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_the_field_and_at_the_instance_type_that_sets_it() {
        let reported = conflict(
            "spec.template.spec.domain.cpu.sockets",
            "VM field spec.template.spec.domain.cpu.sockets conflicts with selected instance type"
                .to_owned(),
            Some(("VirtualMachineClusterInstancetype", "u1.small")),
        );
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.cpu.sockets".to_owned())
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "remove the field from the VM: the instance type sets it, and KubeVirt refuses to override either"
            )
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.template.spec.domain.cpu.sockets")
        );
        assert_eq!(reported.related.len(), 1);
        assert_eq!(
            reported.related[0].label,
            "set by VirtualMachineClusterInstancetype u1.small"
        );
        assert!(conflict("spec.x", String::new(), None).related.is_empty());
    }
}
