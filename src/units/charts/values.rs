//! The values a Flux HelmRelease gives its chart: `spec.valuesFrom` (ConfigMaps and Secrets
//! of the repository) merged in order, then `spec.values` over them, as helm-controller's
//! `chartutil.ChartValuesFromReferences` does.

use serde_json::{Map, Value as Json};

use crate::units::flux::VariableSource;
use crate::yaml::{Limits, Node, Span};

/// The default `valuesKey`.
const DEFAULT_KEY: &str = "values.yaml";

/// A `valuesFrom` reference that cannot be read: where it is, and what it takes values from.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Unreadable {
    pub span: Span,
    pub what: String,
}

/// The merged values of a HelmRelease whose `spec` is given, in namespace `namespace`; the
/// first required reference whose source is not among `sources` when there is one.
pub(super) fn flux_values(
    spec: &Node,
    namespace: Option<&str>,
    sources: &[VariableSource],
) -> Result<Json, Unreadable> {
    let mut merged = Json::Object(Map::new());
    for reference in spec
        .get("valuesFrom")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let field = |key: &str| {
            reference
                .get(key)
                .and_then(Node::as_str)
                .unwrap_or_default()
        };
        let (kind, name) = (field("kind"), field("name"));
        let key = Some(field("valuesKey"))
            .filter(|k| !k.is_empty())
            .unwrap_or(DEFAULT_KEY);
        let optional = reference.flag("optional");
        let missing = |what: String| Unreadable {
            span: reference.span,
            what,
        };
        let source = sources.iter().find(|source| {
            source.kind == kind
                && source.name == name
                && source
                    .namespace
                    .as_deref()
                    .is_none_or(|ns| Some(ns) == namespace)
        });
        let Some(source) = source else {
            if optional {
                continue;
            }
            return Err(missing(format!(
                "{kind} `{name}`, which is not in the checked files"
            )));
        };
        if source.sealed.iter().any(|sealed| sealed == key) {
            return Err(missing(format!(
                "the encrypted key `{key}` of {kind} `{name}`, which kvlint cannot read offline"
            )));
        }
        let Some((_, text)) = source.data.iter().find(|(k, _)| k == key) else {
            if optional {
                continue;
            }
            return Err(missing(format!(
                "{kind} `{name}`, which has no key `{key}`"
            )));
        };
        let target = reference
            .get("targetPath")
            .and_then(Node::as_str)
            .filter(|p| !p.is_empty());
        match target {
            Some(path) => set_path(&mut merged, path, Json::String(text.clone())),
            None => match parse_text(text) {
                Ok(values) => merge(&mut merged, values),
                Err(problem) => {
                    return Err(missing(format!(
                        "key `{key}` of {kind} `{name}`, which is not valid YAML ({problem})"
                    )));
                }
            },
        }
    }
    if let Some(values) = spec.get("values") {
        merge(&mut merged, values.to_json());
    }
    Ok(merged)
}

/// A values text that is not YAML: where and why.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub(super) struct InvalidValues {
    line: u32,
    message: String,
}

/// A YAML text of values as JSON (an empty text is no values).
pub(super) fn parse_text(text: &str) -> Result<Json, InvalidValues> {
    match crate::yaml::parse_stream(text, Limits::default())
        .into_iter()
        .next()
    {
        None => Ok(Json::Object(Map::new())),
        Some(Ok(document)) => Ok(match document.root.to_json() {
            Json::Null => Json::Object(Map::new()),
            values => values,
        }),
        Some(Err(error)) => Err(InvalidValues {
            line: error.pos.line,
            message: error.message,
        }),
    }
}

/// Merges `over` into `base`: maps key by key, recursively; anything else replaced.
pub(super) fn merge(base: &mut Json, over: Json) {
    match (base, over) {
        (Json::Object(base), Json::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value);
                    }
                    _ => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, over) => *base = over,
    }
}

/// Sets the value at a dotted path (`a.b.c`), making the maps on the way.
fn set_path(values: &mut Json, path: &str, value: Json) {
    let mut node = values;
    let keys: Vec<&str> = path.split('.').collect();
    for (n, key) in keys.iter().enumerate() {
        if !node.is_object() {
            *node = Json::Object(Map::new());
        }
        let Json::Object(map) = node else { return };
        if n + 1 == keys.len() {
            map.insert((*key).to_owned(), value);
            return;
        }
        node = map
            .entry((*key).to_owned())
            .or_insert_with(|| Json::Object(Map::new()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_merge_key_by_key_and_other_values_are_replaced() {
        let mut base = json!({"vm": {"size": "u1.small", "disks": [1, 2]}, "a": 1});
        merge(&mut base, json!({"vm": {"disks": [3]}, "a": {"b": 2}}));
        assert_eq!(
            base,
            json!({"vm": {"size": "u1.small", "disks": [3]}, "a": {"b": 2}})
        );
    }

    #[test]
    fn a_target_path_sets_the_text_at_its_keys() {
        let mut values = json!({"vm": "plain"});
        set_path(&mut values, "vm.size", json!("u1.large"));
        set_path(&mut values, "top", json!("x"));
        assert_eq!(values, json!({"vm": {"size": "u1.large"}, "top": "x"}));
    }

    use crate::yaml::first_root as spec;

    #[test]
    fn values_from_are_merged_in_order_under_the_release_values() {
        let file: std::sync::Arc<str> = std::sync::Arc::from("cm.yaml");
        let source = crate::units::flux::variable_sources(
            &file,
            &spec("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\ndata:\n  values.yaml: 'vm: {size: s, name: a}'\n  other: 'x'\n"),
        )
        .unwrap();
        let release = spec(
            "valuesFrom:\n- {kind: ConfigMap, name: a}\n- {kind: ConfigMap, name: a, valuesKey: other, targetPath: vm.size}\n- {kind: Secret, name: gone, optional: true}\nvalues: {vm: {name: b}}\n",
        );
        assert_eq!(
            flux_values(&release, Some("ns"), std::slice::from_ref(&source)).unwrap(),
            json!({"vm": {"size": "x", "name": "b"}})
        );
        // In another namespace the ConfigMap is not the one Flux reads.
        let missing = flux_values(&release, Some("elsewhere"), &[source]).unwrap_err();
        assert_eq!(
            missing.what,
            "ConfigMap `a`, which is not in the checked files"
        );
        assert_eq!(missing.span.start.line, 2);
    }

    #[test]
    fn an_empty_values_text_is_no_values() {
        assert_eq!(parse_text("").unwrap(), json!({}));
        assert_eq!(parse_text("a: 1\n").unwrap(), json!({"a": 1}));
        assert_eq!(
            parse_text("a: [\n").unwrap_err().to_string(),
            "line 1: while parsing a node, did not find expected node content"
        );
    }
}
