//! KV1014: a spread ratio of 0, which KubeVirt's preference webhook accepts but its VM webhook
//! divides by (found by `admission::objects`).

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static SPREAD_RATIO_ZERO: Rule = Rule {
    code: "KV1014",
    name: "spread-ratio-zero",
    category: Category::Reject,
    severity: Severity::Warning,
    summary: "A spread ratio of 0 makes KubeVirt's webhook fail for every VM that uses the preference with an instance type.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1014.md"),
    fix: FixKind::None,
    drift: None,
};

/// The preference's spread ratio is 0.
pub fn ratio_zero() -> Reported {
    Reported::new(
        &SPREAD_RATIO_ZERO,
        At::Field("spec.cpu.spreadOptions.ratio".to_owned()),
        "a spread ratio of 0 is accepted here, but KubeVirt divides by it: every VM that uses this preference with an instance type is refused with a webhook failure",
    )
    .with_help("remove the ratio (the default is 2) or set a positive one")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_every_vm_with_an_instance_type_is_refused() {
        let reported = ratio_zero();
        assert_eq!(
            reported.at,
            At::Field("spec.cpu.spreadOptions.ratio".to_owned())
        );
        assert_eq!(
            reported.message,
            "a spread ratio of 0 is accepted here, but KubeVirt divides by it: every VM that uses this preference with an instance type is refused with a webhook failure"
        );
        assert_eq!(
            reported.help.as_deref(),
            Some("remove the ratio (the default is 2) or set a positive one")
        );
        assert_eq!(reported.kubevirt_field, None);
    }
}
