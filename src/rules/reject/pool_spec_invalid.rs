//! KV1015: KubeVirt's VirtualMachinePool validator refuses the pool (found by
//! `check::pool_admission`, and by `admission::vmspec` for the VM template it validates).

use std::fmt::Display;

use super::spec::Reported;
use super::vm_spec_invalid::{Cause, refused_as};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static POOL_SPEC_INVALID: Rule = Rule {
    code: "KV1015",
    name: "pool-spec-invalid",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "KubeVirt's VirtualMachinePool validation refuses the pool: its selector, strategies or VM template.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1015.md"),
    fix: FixKind::None,
    drift: None,
};

/// The pool validator refuses the pool for `cause` of the VM validation of its template,
/// named as the pool names the template's fields.
pub fn template_refused(cause: Cause, version: &dyn Display) -> Reported {
    refused_as(&POOL_SPEC_INVALID, cause, version)
}

#[cfg(test)]
mod tests {
    use super::super::spec::At;
    use super::*;

    #[test]
    fn a_template_refusal_is_the_pool_s_at_the_pool_s_field() {
        let reported = template_refused(
            Cause {
                field: "spec.template.spec.domain.devices.gpus".to_owned(),
                shown_field: "spec.virtualMachineTemplate.spec.template.spec.domain.devices.gpus"
                    .to_owned(),
                shown_message: "GPUs feature gate is not enabled".to_owned(),
            },
            &"v1.9",
        );
        assert_eq!(reported.rule.code, "KV1015");
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.devices.gpus".to_owned())
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.virtualMachineTemplate.spec.template.spec.domain.devices.gpus")
        );
        assert!(reported.help.is_some(), "the feature-gate help stays");
    }
}
