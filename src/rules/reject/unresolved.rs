//! KV1006 and KV1007: the instance type or preference a VM references cannot be found or used
//! (found by `resolve`). One producer reports both, by the matcher.

use std::fmt::Display;

use super::spec::{At, Matcher, RelatedField, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static UNRESOLVED_INSTANCETYPE: Rule = Rule {
    code: "KV1006",
    name: "unresolved-instancetype",
    category: Category::Unresolved,
    severity: Severity::Error,
    summary: "The referenced instance type cannot be found.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1006.md"),
    fix: FixKind::None,
    drift: None,
};

pub static UNRESOLVED_PREFERENCE: Rule = Rule {
    code: "KV1007",
    name: "unresolved-preference",
    category: Category::Unresolved,
    severity: Severity::Error,
    summary: "The referenced preference cannot be found.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1007.md"),
    fix: FixKind::None,
    drift: None,
};

/// The rule that reports a matcher whose object cannot be found or used.
pub const fn rule(matcher: Matcher) -> &'static Rule {
    match matcher {
        Matcher::Instancetype => &UNRESOLVED_INSTANCETYPE,
        Matcher::Preference => &UNRESOLVED_PREFERENCE,
    }
}

/// The VM condition KubeVirt sets when it cannot find the object a matcher names.
pub const fn failed_find_condition(matcher: Matcher) -> &'static str {
    match matcher {
        Matcher::Instancetype => "FailedFindInstancetype",
        Matcher::Preference => "FailedFindPreference",
    }
}

/// Why the object cannot be found.
pub struct NotFound {
    pub matcher: Matcher,
    /// Whether the revision the matcher names is what is missing.
    pub revision: bool,
    pub message: String,
    /// What the lookup adds (where it looked).
    pub note: Option<String>,
}

/// The object of `matcher` cannot be found. KubeVirt `version` admits the VM, unless a rule
/// (`rejected_by`, its code) finds the VM refused.
pub fn not_found(
    not_found: &NotFound,
    version: &dyn Display,
    rejected_by: Option<&str>,
) -> Reported {
    let NotFound {
        matcher,
        revision,
        message,
        note,
    } = not_found;
    let mut field = format!("spec.{}", matcher.field());
    if *revision {
        field.push_str(".revisionName");
    }
    let help = crate::rules::verdict::unresolved_help(
        version,
        failed_find_condition(*matcher),
        rejected_by,
    );
    let help = match note {
        Some(note) => format!("{note}; {help}"),
        None => help,
    };
    Reported::new(rule(*matcher), At::Field(field), message.clone()).with_help(help)
}

/// The object of `matcher` (its `kind` and `name`) is found but cannot be decoded: `error`.
pub fn unusable(matcher: Matcher, kind: &str, name: &str, error: &dyn Display) -> Reported {
    Reported::new(
        rule(matcher),
        At::Field(format!("spec.{}", matcher.field())),
        format!("{kind} {name} cannot be used: {error}"),
    )
    .with_related(matcher, RelatedField::Field(""), "invalid object")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_object_says_the_vm_is_admitted_but_cannot_start() {
        let missing = NotFound {
            matcher: Matcher::Preference,
            revision: true,
            message: "revision not found".to_owned(),
            note: Some("looked in the repository".to_owned()),
        };
        let reported = not_found(&missing, &"v1.9", None);
        assert_eq!(reported.rule, &UNRESOLVED_PREFERENCE);
        assert_eq!(
            reported.at,
            At::Field("spec.preference.revisionName".to_owned())
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "looked in the repository; KubeVirt v1.9 admits the VM, but it cannot start (condition FailedFindPreference) until the object exists"
            )
        );
        let refused = not_found(&missing, &"v1.9", Some("KV1001"));
        assert_eq!(
            refused.help.as_deref(),
            Some(
                "looked in the repository; KubeVirt v1.9 rejects the VM (KV1001); fixed for that, it would be admitted but could not start (condition FailedFindPreference) until the object exists"
            )
        );
    }

    #[test]
    fn an_undecodable_object_is_named_and_pointed_at() {
        let reported = unusable(
            Matcher::Instancetype,
            "VirtualMachineInstancetype",
            "small",
            &"unknown field `cpus`",
        );
        assert_eq!(reported.rule, &UNRESOLVED_INSTANCETYPE);
        assert_eq!(reported.at, At::Field("spec.instancetype".to_owned()));
        assert_eq!(
            reported.message,
            "VirtualMachineInstancetype small cannot be used: unknown field `cpus`"
        );
        assert_eq!(reported.related[0].label, "invalid object");
        assert_eq!(reported.help, None);
    }
}
