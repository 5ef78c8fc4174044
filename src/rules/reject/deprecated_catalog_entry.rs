//! KV2002: the VM references a catalog entry labelled deprecated in the target release (found
//! by `cluster::catalog`).

use std::fmt::Display;

use super::spec::{At, Matcher, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static CATALOG_DEPRECATED: Rule = Rule {
    code: "KV2002",
    name: "deprecated-catalog-entry",
    category: Category::Catalog,
    severity: Severity::Warning,
    summary: "The VM references a catalog entry labelled deprecated in the target release.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV2002.md"),
    fix: FixKind::None,
    drift: None,
};

/// `matcher` names `name`, which the catalog KubeVirt `version` deploys labels deprecated.
pub fn deprecated(matcher: Matcher, name: &str, version: &dyn Display) -> Reported {
    Reported::new(
        &CATALOG_DEPRECATED,
        At::Field(format!("spec.{}.name", matcher.field())),
        format!(
            "{name} is labelled deprecated in the common-instancetypes catalog KubeVirt {version} deploys, and a later release removes it"
        ),
    )
    .with_help("switch to a current catalog entry (for example the u1 or o1 series, or the OS's current preference)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_entry_and_the_release() {
        let reported = deprecated(Matcher::Preference, "centos.7", &"v1.9");
        assert_eq!(reported.at, At::Field("spec.preference.name".to_owned()));
        assert_eq!(
            reported.message,
            "centos.7 is labelled deprecated in the common-instancetypes catalog KubeVirt v1.9 deploys, and a later release removes it"
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "switch to a current catalog entry (for example the u1 or o1 series, or the OS's current preference)"
            )
        );
    }
}
