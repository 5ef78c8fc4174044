//! KV3001: KubeVirt up to v1.6 writes the default kind into a matcher that sets none.

use super::spec::{Change, Changes, Claim, DriftFix, DriftRule, Explained, NextSync, describe};
use crate::rules::{Category, Rule, Severity};

pub static MATCHER_KIND_DEFAULTED: Rule = Rule {
    code: "KV3001",
    name: "matcher-kind-defaulted",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt up to v1.6 writes a lower-case default kind into spec.instancetype / spec.preference.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3001.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[
            Claim::always(&["spec", "instancetype", "**", "kind"]),
            Claim::always(&["spec", "preference", "**", "kind"]),
        ],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::CommitStored,
    gathered: None,
};

fn explain(change: &Change<'_>) -> Explained {
    Explained {
        message: format!(
            "KubeVirt {} writes {} into `{}` when the kind is empty",
            change.version,
            describe(change.stored),
            change.field
        ),
        help: change.commit_help(
            "write the lower-case kind KubeVirt defaults to (v1.7+ no longer writes it)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn names_the_kind_written_and_the_yaml_to_commit() {
        let kind = json!("virtualmachineclusterinstancetype");
        let explained = explain_at(explain, "spec.instancetype.kind", None, Some(&kind), None);
        assert_eq!(
            explained.message,
            "KubeVirt v1.9 writes `virtualmachineclusterinstancetype` into `spec.instancetype.kind` when the kind is empty"
        );
        assert!(
            explained.help.ends_with(
                "commit what the cluster stores:\n<\"virtualmachineclusterinstancetype\">"
            ),
            "{}",
            explained.help
        );
    }
}
