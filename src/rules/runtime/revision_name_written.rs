//! KV4006: up to v1.4, KubeVirt's VM controller writes a revisionName into the VM after create
//! (`controller` predicts it; the value holds the cluster's UID, so it cannot be committed).

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static REVISION_NAME_WRITTEN: Rule = Rule {
    code: "KV4006",
    name: "revision-name-written",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "KubeVirt up to v1.4 writes spec.instancetype.revisionName / spec.preference.revisionName into the VM after create.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4006.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::None;

/// The key the rule reports, in the matcher (`spec.instancetype`, `spec.preference`).
pub const KEY: &str = "revisionName";

/// What the controller writes at `spec.<matcher>.revisionName`.
pub struct Written<'a> {
    /// The KubeVirt release (`v1.4`).
    pub version: &'a dyn std::fmt::Display,
    /// `instancetype` or `preference`.
    pub matcher: &'a str,
    /// What the matcher references ("instance type").
    pub noun: &'a str,
    /// The name of the instance type or preference.
    pub name: &'a str,
    /// The revision name's shape, with `<uid>` and `<generation>` placeholders.
    pub pattern: &'a str,
}

pub fn explain(written: &Written<'_>) -> Explained {
    let Written {
        version,
        matcher,
        noun,
        name,
        pattern,
    } = written;
    Explained {
        message: format!(
            "KubeVirt {version}'s VM controller writes `spec.{matcher}.revisionName: {pattern}` after create (`<uid>` and `<generation>` are those of the {noun} {name} in the cluster); a later change of spec.{matcher}.name alone is then refused: `the Matcher Name has been updated without updating the RevisionName`"
        ),
        help: format!(
            "the value cannot be written in Git beforehand: leave it out and ignore `/spec/{matcher}/revisionName` in the GitOps tool (Argo CD: ignoreDifferences with RespectIgnoreDifferences=true); to switch {noun}s, clear revisionName in the same update as the name (KubeVirt v1.5+ no longer writes it)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_pattern_and_how_to_ignore_it() {
        let explained = explain(&Written {
            version: &"v1.4",
            matcher: "instancetype",
            noun: "instance type",
            name: "small",
            pattern: "vm-small-v1beta1-<uid>-<generation>",
        });
        assert_eq!(
            explained.message,
            "KubeVirt v1.4's VM controller writes `spec.instancetype.revisionName: vm-small-v1beta1-<uid>-<generation>` after create (`<uid>` and `<generation>` are those of the instance type small in the cluster); a later change of spec.instancetype.name alone is then refused: `the Matcher Name has been updated without updating the RevisionName`"
        );
        assert!(
            explained
                .help
                .contains("ignore `/spec/instancetype/revisionName`")
        );
        assert!(explained.help.contains("to switch instance types,"));
        assert_eq!(REVISION_NAME_WRITTEN.fix, crate::rules::FixKind::None);
    }
}
