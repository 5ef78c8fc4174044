//! KV4001: a revisionName the cluster created, committed in `spec.instancetype` or
//! `spec.preference`.

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static REVISION_NAME_IN_SPEC: Rule = Rule {
    code: "KV4001",
    name: "revision-name-in-spec",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "spec.instancetype.revisionName / spec.preference.revisionName is runtime-derived data committed to Git.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4001.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::RemoveRevisionName;

/// The key the rule reports, in the matcher (`spec.instancetype`, `spec.preference`).
pub const KEY: &str = "revisionName";

/// The finding for `spec.<matcher>.revisionName: <revision>`; `noun` names what the matcher
/// references ("instance type").
pub fn explain(revision: &str, matcher: &str, noun: &str) -> Explained {
    Explained {
        message: format!(
            "revisionName `{revision}` names a ControllerRevision the cluster created (it contains the {noun}'s UID); a later change of spec.{matcher}.name that keeps it is refused: `the Matcher Name has been updated without updating the RevisionName`"
        ),
        help: "remove revisionName from Git: KubeVirt v1.5+ tracks the revision in status, and older releases write it themselves".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_revision_and_the_refused_rename() {
        let explained = explain("vm-small-abc-1", "preference", "preference");
        assert_eq!(
            explained.message,
            "revisionName `vm-small-abc-1` names a ControllerRevision the cluster created (it contains the preference's UID); a later change of spec.preference.name that keeps it is refused: `the Matcher Name has been updated without updating the RevisionName`"
        );
        assert!(explained.help.starts_with("remove revisionName from Git"));
        assert_eq!(REVISION_NAME_IN_SPEC.fix, crate::rules::FixKind::Safe);
    }
}
