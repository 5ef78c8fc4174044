//! KV3007: KubeVirt v1.8+ adds the PCI topology annotation to the template on create.

use serde_json::Value;

use super::spec::{Change, Changes, Claim, DriftFix, DriftRule, Explained, Gathered, NextSync};
use crate::rules::{Category, Rule, Severity};

pub static PCI_TOPOLOGY_ANNOTATION: Rule = Rule {
    code: "KV3007",
    name: "pci-topology-annotation-added",
    category: Category::Drift,
    severity: Severity::Info,
    summary: "KubeVirt v1.8+ adds the kubevirt.io/pci-topology-version annotation to the template on create.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3007.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    changes: Some(Changes {
        claims: &[Claim::always(&[
            "spec",
            "template",
            "metadata",
            "annotations",
            "kubevirt.io/pci-topology-version",
        ])],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::CommitStored,
    gathered: Some(Gathered::Field(
        "annotation kubevirt.io/pci-topology-version",
    )),
};

fn explain(change: &Change<'_>) -> Explained {
    Explained {
        message: format!(
            "KubeVirt {} adds `{}: {}` on create",
            change.version,
            change.field,
            change.stored.and_then(Value::as_str).unwrap_or("v3")
        ),
        help: change.commit_help("add the annotation to the template"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn names_the_annotation_and_its_value() {
        let field = "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]";
        let explained = explain_at(explain, field, None, Some(&json!("v4")), None);
        assert_eq!(
            explained.message,
            format!("KubeVirt v1.9 adds `{field}: v4` on create")
        );
        let unknown = explain_at(explain, field, None, Some(&json!(3)), None);
        assert!(
            unknown.message.ends_with(": v3` on create"),
            "{}",
            unknown.message
        );
    }
}
