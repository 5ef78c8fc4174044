//! KV4005: inferFromVolume committed together with the name (and kind) the cluster inferred.

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static INFERRED_MATCHER_COMMITTED: Rule = Rule {
    code: "KV4005",
    name: "inferred-matcher-committed",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "inferFromVolume is committed together with the name (and kind) the cluster inferred from it.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4005.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::DropInference;

/// The matcher's key that asks for inference, and the keys that hold what was inferred: the
/// rule reports a matcher where the first and one of the others are non-empty strings.
pub const INFER_KEY: &str = "inferFromVolume";
pub const INFERRED_KEYS: [&str; 2] = ["name", "kind"];

/// The finding for the matcher `spec.<matcher>`.
pub fn explain(matcher: &str) -> Explained {
    Explained {
        message: format!(
            "spec.{matcher} has both inferFromVolume and the name the cluster inferred from it: the cluster's result was committed back"
        ),
        help: "keep either inferFromVolume (and let KubeVirt resolve it) or the resolved name and kind, not both".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_matcher() {
        let explained = explain("instancetype");
        assert_eq!(
            explained.message,
            "spec.instancetype has both inferFromVolume and the name the cluster inferred from it: the cluster's result was committed back"
        );
        assert!(explained.help.ends_with("not both"));
    }
}
