//! KV1010: KubeVirt cannot expand the VM with this cluster configuration (found by `render`,
//! KubeVirt's expand).

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static EXPAND_FAILED: Rule = Rule {
    code: "KV1010",
    name: "expand-failed",
    category: Category::Unresolved,
    severity: Severity::Error,
    summary: "KubeVirt cannot expand the VM with this cluster configuration.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1010.md"),
    fix: FixKind::None,
    drift: None,
};

/// Expand finds VM fields that the instance type also sets (KubeVirt's fields `fields`, at
/// least one) where admission does not: `message`.
pub fn conflicts(fields: &[&str], message: String) -> Reported {
    let first = fields.first().copied().unwrap_or_default();
    Reported::new(&EXPAND_FAILED, At::Cause(first.to_owned()), message)
        .with_kubevirt_field(fields.join(", "))
        .with_help("KubeVirt admits this VM, but its expand (virtctl expand, referencePolicy: expand) fails on the fields as written")
}

/// Expand cannot find the object the VM's field `field` names: `message`.
pub fn not_found(field: String, message: String) -> Reported {
    Reported::new(&EXPAND_FAILED, At::Field(field.clone()), message)
        .with_kubevirt_field(field)
        .with_help("up to KubeVirt v1.3, expand (virtctl expand) looks the preference up as written, before the mutating webhook defaults its kind: write the kind")
}

/// The template's defaults cannot be applied: `error`.
pub fn defaults_failed(error: String) -> Reported {
    Reported::new(
        &EXPAND_FAILED,
        At::Field("spec.template.spec".to_owned()),
        error,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicts_point_at_the_first_field_and_name_them_all() {
        let reported = conflicts(
            &[
                "spec.template.spec.domain.cpu",
                "spec.template.spec.nodeSelector",
            ],
            "VM field(s) … conflicts with selected instance type".to_owned(),
        );
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.cpu".to_owned())
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.template.spec.domain.cpu, spec.template.spec.nodeSelector")
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "KubeVirt admits this VM, but its expand (virtctl expand, referencePolicy: expand) fails on the fields as written"
            )
        );
    }

    #[test]
    fn a_preference_not_found_says_to_write_the_kind() {
        let reported = not_found("spec.preference".to_owned(), "not found".to_owned());
        assert_eq!(reported.at, At::Field("spec.preference".to_owned()));
        assert_eq!(reported.kubevirt_field.as_deref(), Some("spec.preference"));
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "up to KubeVirt v1.3, expand (virtctl expand) looks the preference up as written, before the mutating webhook defaults its kind: write the kind"
            )
        );
        assert_eq!(defaults_failed("bad".to_owned()).help, None);
    }
}
