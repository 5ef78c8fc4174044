//! KV3005: KubeVirt writes the preference's storage class into a DataVolume template.

use super::spec::{Change, Changes, Claim, DriftFix, DriftRule, Explained, NextSync, describe};
use crate::rules::{Category, Rule, Severity};

pub static STORAGE_CLASS_DEFAULTED: Rule = Rule {
    code: "KV3005",
    name: "storage-class-defaulted",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt writes the preference's storage class into dataVolumeTemplates.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3005.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[
            Claim::always(&[
                "spec",
                "dataVolumeTemplates",
                "[]",
                "spec",
                "pvc",
                "storageClassName",
            ]),
            Claim::always(&[
                "spec",
                "dataVolumeTemplates",
                "[]",
                "spec",
                "storage",
                "storageClassName",
            ]),
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
            "KubeVirt {} writes the preference's storage class {} into `{}`",
            change.version,
            describe(change.stored),
            change.field
        ),
        help: change.commit_help("write the storage class explicitly"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn names_the_storage_class_written() {
        let fast = json!("fast");
        let field = "spec.dataVolumeTemplates[0].spec.storage.storageClassName";
        let explained = explain_at(explain, field, None, Some(&fast), None);
        assert_eq!(
            explained.message,
            format!("KubeVirt v1.9 writes the preference's storage class `fast` into `{field}`")
        );
        assert!(
            explained
                .help
                .starts_with("write the storage class explicitly; ")
        );
    }
}
