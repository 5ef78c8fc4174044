//! KV4002: a status written by the cluster, committed to Git.

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static STATUS_COMMITTED: Rule = Rule {
    code: "KV4002",
    name: "status-committed",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "A status written by the cluster is committed to Git.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4002.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::Remove;

/// The field the rule reports, at the object's root (when it holds anything).
pub const FIELD: &str = "status";

/// The finding for a status in the object `kind` `name`.
pub fn explain(kind: &str, name: &str) -> Explained {
    Explained {
        message: format!("{kind} {name} carries a status, which the cluster writes"),
        help: "remove status from the manifest: the API server ignores it on create and GitOps tools show it as drift".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_object() {
        let explained = explain("VirtualMachine", "web");
        assert_eq!(
            explained.message,
            "VirtualMachine web carries a status, which the cluster writes"
        );
        assert!(
            explained
                .help
                .starts_with("remove status from the manifest:")
        );
    }
}
