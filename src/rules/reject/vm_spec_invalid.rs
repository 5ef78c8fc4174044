//! KV1008: KubeVirt's VM validation refuses the spec once the instance type and preference are
//! applied (found by `admission::vmspec`).

use std::fmt::Display;

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static VM_SPEC_INVALID: Rule = Rule {
    code: "KV1008",
    name: "vm-spec-invalid",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "KubeVirt's VM validation refuses the spec once the instance type and preference are applied.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1008.md"),
    fix: FixKind::None,
    drift: None,
};

/// A cause of KubeVirt `version`'s validation.
pub struct Cause {
    /// The cause's field, as the VM validator names it.
    pub field: String,
    /// The field and the message as the object's validator says them (a pool's validator
    /// names the template's fields).
    pub shown_field: String,
    pub shown_message: String,
}

/// The validation refuses the spec for `cause`.
pub fn refused(cause: Cause, version: &dyn Display) -> Reported {
    refused_as(&VM_SPEC_INVALID, cause, version)
}

/// `rule`'s finding for a cause of the VM validation (the pool validator runs it on its
/// template).
pub(super) fn refused_as(rule: &'static Rule, cause: Cause, version: &dyn Display) -> Reported {
    let help = feature_gate_help(&cause.shown_message, version);
    let reported = Reported::new(rule, At::Cause(cause.field), cause.shown_message)
        .with_kubevirt_field(cause.shown_field);
    match help {
        Some(help) => reported.with_help(help),
        None => reported,
    }
}

/// The template's defaults cannot be applied: `error`.
pub fn defaults_failed(error: String) -> Reported {
    Reported::new(
        &VM_SPEC_INVALID,
        At::Field("spec.template.spec".to_owned()),
        error,
    )
}

/// How to tell kvlint that the cluster enables a feature gate a refusal names.
pub fn feature_gate_help(message: &str, version: &dyn Display) -> Option<String> {
    message.contains("feature gate").then(|| {
        format!(
            "kvlint checks against KubeVirt {version} with the feature gates it is told of: if the cluster enables this one, declare them under `cluster: developerConfiguration: featureGates: [...]` in .kvlint.yaml, or commit the cluster's KubeVirt object (spec.configuration.developerConfiguration.featureGates) or HyperConverged object with the checked files"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_that_names_a_feature_gate_says_how_to_declare_it() {
        let reported = refused(
            Cause {
                field: "spec.template.spec.domain.devices.gpus".to_owned(),
                shown_field: "spec.virtualMachineTemplate.spec.template.spec.domain.devices.gpus"
                    .to_owned(),
                shown_message: "GPUs feature gate is not enabled".to_owned(),
            },
            &"v1.9",
        );
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.devices.gpus".to_owned())
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.virtualMachineTemplate.spec.template.spec.domain.devices.gpus")
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "kvlint checks against KubeVirt v1.9 with the feature gates it is told of: if the cluster enables this one, declare them under `cluster: developerConfiguration: featureGates: [...]` in .kvlint.yaml, or commit the cluster's KubeVirt object (spec.configuration.developerConfiguration.featureGates) or HyperConverged object with the checked files"
            )
        );
        let plain = refused(
            Cause {
                field: "spec.running".to_owned(),
                shown_field: "spec.running".to_owned(),
                shown_message: "must not be set".to_owned(),
            },
            &"v1.9",
        );
        assert_eq!(plain.help, None);
        assert_eq!(
            defaults_failed("bad".to_owned()).at,
            At::Field("spec.template.spec".to_owned())
        );
    }
}
