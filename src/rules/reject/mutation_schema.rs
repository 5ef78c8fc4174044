//! KV0015's findings from KubeVirt's mutating webhook: its schema refuses a field the release
//! does not have yet, or a list longer than it allows, or the API server's CRD validation of
//! the mutated VM a missing required field (found by `admission::mutate`; KV0015 itself is the
//! schema's rule).

use std::fmt::Display;

use super::spec::{At, Reported};
use crate::rules::SCHEMA_VIOLATION;

/// The release's schema does not have the VM field `field` yet: `message`.
pub fn unknown_to_release(field: &str, message: String, version: &dyn Display) -> Reported {
    Reported::new(&SCHEMA_VIOLATION, At::Field(field.to_owned()), message).with_help(format!(
        "KubeVirt {version} does not have this field yet: remove it or target a newer release"
    ))
}

/// The list at the VM field `field` is longer than the webhook allows: `message`.
pub fn too_many(field: &str, message: String) -> Reported {
    Reported::new(&SCHEMA_VIOLATION, At::Field(field.to_owned()), message)
}

/// The CRD requires the VM field `field`, which is missing: the API server refuses the VM.
pub fn required(field: &str) -> Reported {
    Reported::new(
        &SCHEMA_VIOLATION,
        At::Field(field.to_owned()),
        format!("{field}: Required value"),
    )
    .with_kubevirt_field(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_of_a_later_release_says_to_remove_it_or_target_a_newer_one() {
        let reported = unknown_to_release(
            "spec.template.spec.domain.rebootPolicy",
            "forbidden".to_owned(),
            &"v1.4",
        );
        assert_eq!(reported.rule, &SCHEMA_VIOLATION);
        assert_eq!(
            reported.at,
            At::Field("spec.template.spec.domain.rebootPolicy".to_owned())
        );
        assert_eq!(
            reported.help.as_deref(),
            Some("KubeVirt v1.4 does not have this field yet: remove it or target a newer release")
        );
        let missing = required("spec.template");
        assert_eq!(missing.at, At::Field("spec.template".to_owned()));
        assert_eq!(missing.message, "spec.template: Required value");
        assert_eq!(missing.kubevirt_field.as_deref(), Some("spec.template"));
        let listed = too_many("spec.template.spec.volumes", "too many".to_owned());
        assert_eq!(listed.help, None);
        assert_eq!(listed.message, "too many");
    }
}
