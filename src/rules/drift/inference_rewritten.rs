//! KV3002: KubeVirt replaces inferFromVolume with the name and kind it infers (or, with the
//! failure policy Ignore, removes what it could not infer).

use super::spec::{
    Change, Changes, Claim, DriftFix, DriftRule, Explained, NextSync, Written, describe,
};
use crate::rules::{Category, Rule, Severity};

pub static INFERENCE_REWRITTEN: Rule = Rule {
    code: "KV3002",
    name: "infer-from-volume-rewritten",
    category: Category::Drift,
    severity: Severity::Error,
    summary: "KubeVirt replaces inferFromVolume with the inferred name and kind; the next sync of the same manifest is refused.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3002.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[
            Claim::when(
                &["spec", "instancetype", "**"],
                Written::NonEmpty(&["spec", "instancetype", "inferFromVolume"]),
            ),
            Claim::when(
                &["spec", "preference", "**"],
                Written::NonEmpty(&["spec", "preference", "inferFromVolume"]),
            ),
            // A successful inference with the policy Ignore drops the VM's own memory.
            Claim::when(
                &["spec", "template", "spec", "domain", "memory", "**"],
                Written::Is(
                    &["spec", "instancetype", "inferFromVolumeFailurePolicy"],
                    "Ignore",
                ),
            ),
        ],
        explain,
    }),
    next_sync: NextSync::Refused,
    fix: DriftFix::CommitStored,
    gathered: None,
};

fn explain(change: &Change<'_>) -> Explained {
    let (version, field) = (change.version, change.field);
    if change.stored.is_none() {
        return Explained {
            message: format!(
                "KubeVirt {version} removes `{field}` because of inferFromVolumeFailurePolicy: Ignore (the inference {})",
                if field.ends_with("memory") {
                    "succeeded, so the VM's own memory is dropped"
                } else {
                    "failed and was ignored"
                }
            ),
            help: format!("commit the VM as KubeVirt stores it: without `{field}`"),
        };
    }
    Explained {
        message: format!(
            "KubeVirt {version} resolves inferFromVolume on create and stores {} at `{field}` instead of {}: the next sync of this manifest is refused (`Name already set, should be cleared before setting inferFromVolume`)",
            describe(change.stored),
            describe(change.written)
        ),
        help: change.commit_help("commit the inferred matcher instead of inferFromVolume"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn a_removed_field_says_why_the_policy_removed_it() {
        let memory = json!({"guest": "1Gi"});
        let dropped = explain_at(
            explain,
            "spec.template.spec.domain.memory",
            Some(&memory),
            None,
            None,
        );
        assert!(
            dropped
                .message
                .ends_with("(the inference succeeded, so the VM's own memory is dropped)"),
            "{}",
            dropped.message
        );
        assert_eq!(
            dropped.help,
            "commit the VM as KubeVirt stores it: without `spec.template.spec.domain.memory`"
        );
        let matcher = json!({"inferFromVolume": "root"});
        let failed = explain_at(explain, "spec.instancetype", Some(&matcher), None, None);
        assert!(
            failed
                .message
                .ends_with("(the inference failed and was ignored)")
        );
    }

    #[test]
    fn an_inferred_matcher_quotes_the_refusal_of_the_next_sync() {
        let (written, stored) = (
            json!({"inferFromVolume": "root"}),
            json!({"name": "u1.small"}),
        );
        let explained = explain_at(
            explain,
            "spec.instancetype",
            Some(&written),
            Some(&stored),
            None,
        );
        assert!(
            explained
                .message
                .contains("`Name already set, should be cleared before setting inferFromVolume`"),
            "{}",
            explained.message
        );
        assert!(explained.help.starts_with("commit the inferred matcher instead of inferFromVolume; commit what the cluster stores:"));
    }
}
