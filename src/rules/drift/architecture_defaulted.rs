//! KV3004: KubeVirt writes an architecture into the VM.

use super::spec::{
    Change, Changes, Claim, DriftFix, DriftRule, Explained, Gathered, NextSync, describe,
};
use crate::rules::{Category, Rule, Severity};

pub static ARCHITECTURE_DEFAULTED: Rule = Rule {
    code: "KV3004",
    name: "architecture-defaulted",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt writes an architecture into the VM spec.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3004.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[Claim::always(&["spec", "template", "spec", "architecture"])],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::CommitStored,
    gathered: Some(Gathered::Field("architecture")),
};

fn explain(change: &Change<'_>) -> Explained {
    Explained {
        message: format!(
            "KubeVirt {} writes architecture {} into `{}`",
            change.version,
            describe(change.stored),
            change.field
        ),
        help: change.commit_help("pin the architecture"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn names_the_architecture_written() {
        let amd64 = json!("amd64");
        let explained = explain_at(
            explain,
            "spec.template.spec.architecture",
            None,
            Some(&amd64),
            None,
        );
        assert_eq!(
            explained.message,
            "KubeVirt v1.9 writes architecture `amd64` into `spec.template.spec.architecture`"
        );
        assert_eq!(
            explained.help,
            "pin the architecture; commit what the cluster stores:\n<\"amd64\">"
        );
    }
}
