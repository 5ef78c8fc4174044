//! KV4003: metadata the API server (or `kubectl apply`) sets, committed to Git: a manifest
//! exported from a cluster.

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static SERVER_METADATA_COMMITTED: Rule = Rule {
    code: "KV4003",
    name: "server-metadata-committed",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "Metadata the API server sets (uid, resourceVersion, managedFields, ...) is committed: a manifest exported from a cluster.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4003.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::Remove;

/// The keys of `metadata` the API server sets, in the order the findings are reported.
pub const SERVER_FIELDS: [&str; 6] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];

/// The annotation `kubectl apply` writes.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The finding for `metadata.<field>`, one of [`SERVER_FIELDS`].
pub fn explain_server_field(field: &str) -> Explained {
    Explained {
        message: format!(
            "metadata.{field} is set by the API server: this manifest looks exported from a cluster"
        ),
        help: "remove it; `kubectl get -o yaml` output needs cleaning before it goes into Git"
            .to_owned(),
    }
}

/// The finding for the [`LAST_APPLIED`] annotation.
pub fn explain_last_applied() -> Explained {
    Explained {
        message: format!(
            "the {LAST_APPLIED} annotation is written by kubectl apply: this manifest looks exported from a cluster"
        ),
        help: "remove the annotation".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_server_field_or_the_annotation() {
        assert_eq!(
            explain_server_field("uid").message,
            "metadata.uid is set by the API server: this manifest looks exported from a cluster"
        );
        assert_eq!(
            explain_last_applied().message,
            "the kubectl.kubernetes.io/last-applied-configuration annotation is written by kubectl apply: this manifest looks exported from a cluster"
        );
        assert_eq!(explain_last_applied().help, "remove the annotation");
    }
}
