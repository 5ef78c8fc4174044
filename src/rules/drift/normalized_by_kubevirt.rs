//! KV3008: KubeVirt stores a field differently than written; every changed field no other
//! drift rule claims is this rule's.

use serde_json::Value;

use super::spec::{Change, Changes, DriftFix, DriftRule, Explained, NextSync, describe};
use crate::rules::{Category, Rule, Severity};

pub static NORMALIZED_BY_KUBEVIRT: Rule = Rule {
    code: "KV3008",
    name: "normalized-by-kubevirt",
    category: Category::Drift,
    severity: Severity::Warning,
    summary: "KubeVirt stores a field differently than written: a non-canonical quantity, an empty value, a pruned field.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV3008.md"),
    fix: DRIFT.fix.kind(),
    drift: Some(&DRIFT),
};

static DRIFT: DriftRule = DriftRule {
    // No claims: the fields no other rule claims.
    changes: Some(Changes {
        claims: &[],
        explain,
    }),
    next_sync: NextSync::Applies,
    fix: DriftFix::CanonicalScalar,
    gathered: None,
};

/// The words of a change no other rule claims (also those of a change whose rule has no
/// words of its own).
pub fn explain(change: &Change<'_>) -> Explained {
    let field = change.field;
    let message = match (change.written, change.stored) {
        (Some(w), Some(s)) => {
            let (stored, written) = describe_apart(s, w);
            format!("KubeVirt stores `{field}` as {stored} (written as {written})")
        }
        (Some(w), None) => format!(
            "KubeVirt drops `{field}` ({} is empty, the default or not a field of the VM type)",
            describe(Some(w))
        ),
        (None, Some(s)) => format!("KubeVirt adds `{field}`: {}", describe(Some(s))),
        (None, None) => format!("KubeVirt rewrites `{field}`"),
    };
    Explained {
        message,
        help: change.commit_help("write it the way KubeVirt stores it"),
    }
}

/// Two different values as a message shows them: plainly, or with their types where they
/// would read alike (the string `"2"` and the number `2`).
fn describe_apart(a: &Value, b: &Value) -> (String, String) {
    let (plain_a, plain_b) = (describe(Some(a)), describe(Some(b)));
    if plain_a != plain_b {
        return (plain_a, plain_b);
    }
    let typed = |value: &Value| {
        let kind = match value {
            Value::Null => "the value",
            Value::Bool(_) => "the boolean",
            Value::Number(_) => "the number",
            Value::String(_) => "the string",
            Value::Array(_) => "the list",
            Value::Object(_) => "the map",
        };
        format!("{kind} `{value}`")
    };
    (typed(a), typed(b))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::testing::explain_at;
    use super::*;

    #[test]
    fn values_that_read_alike_are_shown_with_their_types() {
        let (stored, written) = describe_apart(&json!(2), &json!("2"));
        assert_eq!(stored, "the number `2`");
        assert_eq!(written, "the string `\"2\"`");
        let (stored, written) = describe_apart(&json!("2Gi"), &json!("2048Mi"));
        assert_eq!((stored.as_str(), written.as_str()), ("`2Gi`", "`2048Mi`"));
    }

    #[test]
    fn says_what_kubevirt_does_with_the_field() {
        let field = "spec.template.spec.domain.memory.guest";
        let (written, stored) = (json!("1024Mi"), json!("1Gi"));
        let restored = explain_at(explain, field, Some(&written), Some(&stored), None);
        assert_eq!(
            restored.message,
            format!("KubeVirt stores `{field}` as `1Gi` (written as `1024Mi`)")
        );
        let drops = explain_at(explain, field, Some(&written), None, None);
        assert!(
            drops
                .message
                .starts_with(&format!("KubeVirt drops `{field}` (`1024Mi` is empty"))
        );
        assert_eq!(
            drops.help,
            format!("write it the way KubeVirt stores it; remove `{field}` from the manifest")
        );
        let adds = explain_at(explain, field, None, Some(&stored), None);
        assert_eq!(adds.message, format!("KubeVirt adds `{field}`: `1Gi`"));
        assert_eq!(
            explain_at(explain, field, None, None, None).message,
            format!("KubeVirt rewrites `{field}`")
        );
    }
}
