//! KV2003: the target release deploys an older catalog than the one kvlint renders with (found
//! by `resolve::catalog_source`).

use std::fmt::Display;

use super::spec::{At, Matcher, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static CATALOG_CONTENT_APPROXIMATED: Rule = Rule {
    code: "KV2003",
    name: "catalog-content-approximated",
    category: Category::Catalog,
    severity: Severity::Info,
    summary: "The target release deploys an older catalog; kvlint rendered with v1.7.0 content.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV2003.md"),
    fix: FixKind::None,
    drift: None,
};

/// What the catalog entry a matcher resolved to is rendered with.
pub struct Approximated<'a> {
    pub matcher: Matcher,
    /// The catalog object's kind and name.
    pub kind: &'a str,
    pub name: &'a str,
    /// The common-instancetypes release kvlint renders with.
    pub rendered_with: &'a str,
    /// The KubeVirt release, and the common-instancetypes release it deploys.
    pub version: &'a dyn Display,
    pub deployed: &'a dyn Display,
}

pub fn approximated(approximated: &Approximated<'_>) -> Reported {
    let Approximated {
        matcher,
        kind,
        name,
        rendered_with,
        version,
        deployed,
    } = approximated;
    Reported::new(
        &CATALOG_CONTENT_APPROXIMATED,
        At::Field(format!("spec.{}.name", matcher.field())),
        format!(
            "{kind} {name} is rendered with the content of common-instancetypes {rendered_with}; KubeVirt {version} deploys {deployed}, whose content may differ"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_both_catalog_releases() {
        let reported = approximated(&Approximated {
            matcher: Matcher::Instancetype,
            kind: "VirtualMachineClusterInstancetype",
            name: "u1.small",
            rendered_with: "v1.7.0",
            version: &"v1.4",
            deployed: &"v1.2.0",
        });
        assert_eq!(reported.at, At::Field("spec.instancetype.name".to_owned()));
        assert_eq!(
            reported.message,
            "VirtualMachineClusterInstancetype u1.small is rendered with the content of common-instancetypes v1.7.0; KubeVirt v1.4 deploys v1.2.0, whose content may differ"
        );
        assert_eq!(reported.help, None);
    }
}
