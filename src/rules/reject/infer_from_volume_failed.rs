//! KV1005: inferFromVolume cannot be resolved and the failure policy is Reject (found by
//! `admission::mutate`).

use super::spec::{At, Matcher, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static INFERENCE_FAILED: Rule = Rule {
    code: "KV1005",
    name: "infer-from-volume-failed",
    category: Category::Reject,
    severity: Severity::Error,
    summary: "inferFromVolume cannot be resolved and the failure policy is Reject.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1005.md"),
    fix: FixKind::None,
    drift: None,
};

/// The inference of `matcher` failed with `message`.
pub fn failed(matcher: Matcher, message: String) -> Reported {
    Reported::new(
        &INFERENCE_FAILED,
        At::Field(format!("spec.{}.inferFromVolume", matcher.field())),
        message,
    )
    .with_help("kvlint resolves inferFromVolume from the PVCs, DataVolumes, DataSources and VolumeSnapshots in the repository; set inferFromVolumeFailurePolicy: Ignore to tolerate a missing label, or name the instance type directly")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_at_inference_and_says_how_to_tolerate_it() {
        let reported = failed(Matcher::Preference, "no label".to_owned());
        assert_eq!(
            reported.at,
            At::Field("spec.preference.inferFromVolume".to_owned())
        );
        assert_eq!(reported.message, "no label");
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "kvlint resolves inferFromVolume from the PVCs, DataVolumes, DataSources and VolumeSnapshots in the repository; set inferFromVolumeFailurePolicy: Ignore to tolerate a missing label, or name the instance type directly"
            )
        );
    }
}
