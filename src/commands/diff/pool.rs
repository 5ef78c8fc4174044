//! The pool validator's rule for an update (`vmpool-admitter.go`, `ValidateVMPoolSpec`, the
//! same in every supported release): a VirtualMachinePool's `spec.selector` cannot change.

use serde_json::{Map, Value};

/// KubeVirt's message when an update changes a pool's selector.
pub(super) const SELECTOR_IMMUTABLE: &str = "selector is immutable after creation.";

/// The refusal's detail when the pool `head` (as written) changes the selector of the live
/// pool `base` (as written: no webhook rewrites a pool); `None` when it keeps it.
pub(super) fn selector_change(base: &Value, head: &Value) -> Option<String> {
    let (old, new) = (
        base.pointer("/spec/selector"),
        head.pointer("/spec/selector"),
    );
    if as_go_reads(old) == as_go_reads(new) {
        return None;
    }
    let shown = |selector: Option<&Value>| match selector {
        None | Some(Value::Null) => "(none)".to_owned(),
        Some(value) => value.to_string(),
    };
    Some(format!(
        "spec.selector {} → {}: a pool keeps the selector it was created with; to change it, delete the pool and create it again",
        shown(old),
        shown(new)
    ))
}

/// A `metav1.LabelSelector` as Go decodes it, in a form whose equality is
/// `equality.Semantic.DeepEqual`'s: unknown fields dropped, a missing string empty, an empty
/// map or list the same as none, labels in no order, expressions and values in theirs. A value
/// of the wrong type is kept as written (the schema refuses it before any webhook).
fn as_go_reads(selector: Option<&Value>) -> Value {
    let Some(Value::Object(selector)) = selector else {
        return selector.cloned().unwrap_or(Value::Null);
    };
    let labels = match selector.get("matchLabels") {
        Some(Value::Object(labels)) if labels.is_empty() => Value::Null,
        Some(labels) => labels.clone(),
        None => Value::Null,
    };
    let expressions = match selector.get("matchExpressions") {
        Some(Value::Array(list)) if list.is_empty() => Value::Null,
        Some(Value::Array(list)) => list.iter().map(requirement).collect(),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let mut read = Map::new();
    read.insert("matchLabels".to_owned(), labels);
    read.insert("matchExpressions".to_owned(), expressions);
    Value::Object(read)
}

fn requirement(expression: &Value) -> Value {
    let Value::Object(expression) = expression else {
        return expression.clone();
    };
    let text = |key: &str| match expression.get(key) {
        None | Some(Value::Null) => Value::String(String::new()),
        Some(value) => value.clone(),
    };
    let values = match expression.get("values") {
        Some(Value::Array(values)) if values.is_empty() => Value::Null,
        Some(values) => values.clone(),
        None => Value::Null,
    };
    let mut read = Map::new();
    read.insert("key".to_owned(), text("key"));
    read.insert("operator".to_owned(), text("operator"));
    read.insert("values".to_owned(), values);
    Value::Object(read)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pool(selector: &Value) -> Value {
        json!({"kind": "VirtualMachinePool", "spec": {"selector": selector, "replicas": 1}})
    }

    #[test]
    fn a_changed_selector_is_refused() {
        let base = pool(&json!({"matchLabels": {"app": "web"}}));
        let head = pool(&json!({"matchLabels": {"app": "web", "tier": "front"}}));
        assert_eq!(
            selector_change(&base, &head).as_deref(),
            Some(
                "spec.selector {\"matchLabels\":{\"app\":\"web\"}} → {\"matchLabels\":{\"app\":\"web\",\"tier\":\"front\"}}: a pool keeps the selector it was created with; to change it, delete the pool and create it again"
            )
        );
        // The same requirement written another way is another selector to Go.
        let expression = pool(
            &json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}),
        );
        assert!(selector_change(&base, &expression).is_some());
        let reordered = pool(
            &json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]}),
        );
        let other_order = pool(
            &json!({"matchExpressions": [{"key": "app", "operator": "In", "values": ["api", "web"]}]}),
        );
        assert!(selector_change(&reordered, &other_order).is_some());
    }

    #[test]
    fn a_selector_go_reads_the_same_is_kept() {
        let base = pool(&json!({"matchLabels": {"app": "web", "tier": "front"}}));
        let head = pool(
            &json!({"matchLabels": {"tier": "front", "app": "web"}, "matchExpressions": [], "unknown": 1}),
        );
        assert_eq!(selector_change(&base, &head), None);
        let exists = pool(
            &json!({"matchExpressions": [{"key": "app", "operator": "Exists", "values": null}]}),
        );
        let exists_empty = pool(
            &json!({"matchLabels": null, "matchExpressions": [{"key": "app", "operator": "Exists", "values": []}]}),
        );
        assert_eq!(selector_change(&exists, &exists_empty), None);
        // Only the selector counts: the rest of the pool may change.
        let mut scaled = base.clone();
        scaled["spec"]["replicas"] = json!(3);
        assert_eq!(selector_change(&base, &scaled), None);
    }
}
