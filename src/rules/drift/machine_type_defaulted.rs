//! KV3003: KubeVirt writes a machine type into the VM.

use super::spec::{
    Change, Changes, Claim, DriftFix, DriftRule, Explained, Gathered, NextSync, describe,
};
use crate::rules::{Category, Rule, Severity};

pub static MACHINE_TYPE_DEFAULTED: Rule = Rule {
    code: "KV3003",
    name: "machine-type-defaulted",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt writes a machine type into the VM spec.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3003.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[Claim::always(&[
            "spec", "template", "spec", "domain", "machine", "type",
        ])],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::CommitStored,
    gathered: Some(Gathered::Field("machine.type")),
};

fn explain(change: &Change<'_>) -> Explained {
    Explained {
        message: format!(
            "KubeVirt {} writes machine type {} into `{}`",
            change.version,
            describe(change.stored),
            change.field
        ),
        help: change.commit_help(
            "pin the machine type (from the preference's preferredMachineType, else the cluster default)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn names_the_machine_type_written() {
        let q35 = json!("q35");
        let field = "spec.template.spec.domain.machine.type";
        let explained = explain_at(explain, field, None, Some(&q35), None);
        assert_eq!(
            explained.message,
            "KubeVirt v1.9 writes machine type `q35` into `spec.template.spec.domain.machine.type`"
        );
        assert!(
            explained.help.ends_with("stores:\n<\"q35\">"),
            "{}",
            explained.help
        );
    }
}
