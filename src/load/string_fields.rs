//! Values that must be strings: an object's name and namespace, every label and annotation
//! value (`map[string]string` in Kubernetes' ObjectMeta), and the values of a ConfigMap's
//! `data` and `binaryData` and a Secret's `data` and `stringData` (`map[string]string` and
//! `map[string][]byte`, written as base64 text). Kubernetes reads YAML 1.1, so an unquoted `no`,
//! `on` or `1` is a boolean or a number there, and the API server (or, for a template's
//! metadata, KubeVirt's webhook decoding it) refuses the object.

use std::sync::Arc;

use crate::diag::{Finding, Location, ObjectRef};
use crate::rules;
use crate::yaml::{FieldPath, Node, Span, Value};

/// A metadata value that is not a string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NonString {
    /// The field, as a path (`metadata.labels.backup`, `spec.template.metadata.annotations.x`).
    pub(crate) path: String,
    /// The key under its map (`backup`), or the field name (`name`).
    pub(crate) key: String,
    /// What the value is to Kubernetes (`boolean false`, `integer 1`).
    pub(crate) read_as: String,
    pub(crate) span: Span,
    /// Which map it sits in.
    pub(crate) place: Place,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Name,
    Label,
    Annotation,
    /// A key of a ConfigMap's or Secret's data map (`data`, `binaryData`, `stringData`).
    Data(&'static str),
}

impl NonString {
    pub(crate) fn message(&self) -> String {
        let what = match self.place {
            Place::Name => format!("`{}`", self.path),
            Place::Label => format!("the value of label `{}`", self.key),
            Place::Annotation => format!("the value of annotation `{}`", self.key),
            Place::Data(map) => format!("the value of `{}` in `{map}`", self.key),
        };
        format!(
            "{what} is {} to Kubernetes (YAML 1.1), not a string: the API server refuses the object",
            self.read_as
        )
    }
}

/// The finding of a value that is not a string: a name the object cannot have (KV0007), or a
/// label or annotation the schema refuses (KV0015), at the value.
pub(crate) fn finding(file: &Arc<str>, object: Option<&ObjectRef>, field: &NonString) -> Finding {
    let rule = match field.place {
        Place::Name => &rules::INVALID_OBJECT,
        Place::Label | Place::Annotation | Place::Data(_) => &rules::SCHEMA_VIOLATION,
    };
    let location = Location {
        file: Arc::clone(file),
        span: field.span,
    };
    Finding::new(rule, location, field.message())
        .with_object(object.cloned())
        .with_path(field.path.clone())
        .with_help("quote the value (`key: \"no\"`) so that it stays the text you wrote")
}

/// Whether a finding is one of this module's refusals.
pub(crate) fn is_refusal(finding: &Finding) -> bool {
    finding.path.is_some()
        && [&rules::SCHEMA_VIOLATION, &rules::INVALID_OBJECT].contains(&finding.rule)
}

/// What a scalar is, when it is not a string (nulls are left alone: Kubernetes reads them as
/// an absent or empty value).
fn read_as(value: &Value) -> Option<String> {
    match value {
        Value::Bool(b) => Some(format!("boolean {b}")),
        Value::Int(i) => Some(format!("integer {i}")),
        Value::Float(f) => Some(format!("number {f}")),
        _ => None,
    }
}

/// The object's own `metadata.name`, `metadata.generateName` and `metadata.namespace` when they
/// are not strings.
pub(crate) fn identity(root: &Node) -> Vec<NonString> {
    let Some(metadata) = root.get("metadata") else {
        return Vec::new();
    };
    ["name", "generateName", "namespace"]
        .into_iter()
        .filter_map(|field| {
            let node = metadata.get(field)?;
            Some(NonString {
                path: format!("metadata.{field}"),
                key: field.to_owned(),
                read_as: read_as(&node.value)?,
                span: node.span,
                place: Place::Name,
            })
        })
        .collect()
}

/// Every label and annotation value that is not a string, in any `metadata` of the document
/// (the object's and its templates'), in document order.
pub(crate) fn labels_and_annotations(root: &Node) -> Vec<NonString> {
    let mut found = Vec::new();
    // An explicit stack: a hostile document's depth must not exhaust the thread's stack.
    let mut stack: Vec<(&Node, FieldPath)> = vec![(root, FieldPath::root())];
    while let Some((node, path)) = stack.pop() {
        match &node.value {
            Value::Map(_) => {
                for entry in node.as_map().unwrap_or_default().iter().rev() {
                    let child = path.key(&entry.key);
                    if entry.key == "metadata" {
                        metadata_values(&entry.value, &child, &mut found);
                    }
                    stack.push((&entry.value, child));
                }
            }
            Value::Seq(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, path.index(index)));
                }
            }
            _ => {}
        }
    }
    found
}

fn metadata_values(metadata: &Node, path: &FieldPath, found: &mut Vec<NonString>) {
    for (field, place) in [("labels", Place::Label), ("annotations", Place::Annotation)] {
        string_map(metadata, path, field, place, found);
    }
}

/// The non-string values of the map `field` of `parent` (at `path`).
fn string_map(
    parent: &Node,
    path: &FieldPath,
    field: &str,
    place: Place,
    found: &mut Vec<NonString>,
) {
    let Some(entries) = parent.get(field).and_then(Node::as_map) else {
        return;
    };
    for entry in entries {
        if let Some(read_as) = read_as(&entry.value.value) {
            found.push(NonString {
                path: path.key(field).key(&entry.key).to_string(),
                key: entry.key.clone(),
                read_as,
                span: entry.value.span,
                place,
            });
        }
    }
}

/// The non-string values of a core ConfigMap's `data` and `binaryData` or a Secret's `data`
/// and `stringData`.
pub(crate) fn data_values(root: &Node) -> Vec<NonString> {
    let text = |key: &str| root.get(key).and_then(Node::as_str);
    let maps: &[&'static str] = match (text("apiVersion"), text("kind")) {
        (Some("v1"), Some("ConfigMap")) => &["data", "binaryData"],
        (Some("v1"), Some("Secret")) => &["data", "stringData"],
        _ => return Vec::new(),
    };
    let mut found = Vec::new();
    for map in maps {
        string_map(root, &FieldPath::root(), map, Place::Data(map), &mut found);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::first_root as root;

    #[test]
    fn keys_that_are_not_identifiers_are_bracketed_in_paths() {
        let doc = root("metadata:\n  annotations:\n    example.com/enabled: on\n");
        let paths: Vec<String> = labels_and_annotations(&doc)
            .into_iter()
            .map(|n| n.path)
            .collect();
        assert_eq!(paths, ["metadata.annotations[example.com/enabled]"]);
    }

    #[test]
    fn config_map_and_secret_values_must_be_strings() {
        let config_map = root(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  enabled: yes\n  port: 8080\n  name: \"ok\"\nbinaryData:\n  blob: 1\n",
        );
        let found: Vec<(String, String)> = data_values(&config_map)
            .into_iter()
            .map(|n| (n.path.clone(), n.message()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "data.enabled".to_owned(),
                    "the value of `enabled` in `data` is boolean true to Kubernetes (YAML 1.1), not a string: the API server refuses the object".to_owned()
                ),
                (
                    "data.port".to_owned(),
                    "the value of `port` in `data` is integer 8080 to Kubernetes (YAML 1.1), not a string: the API server refuses the object".to_owned()
                ),
                (
                    "binaryData.blob".to_owned(),
                    "the value of `blob` in `binaryData` is integer 1 to Kubernetes (YAML 1.1), not a string: the API server refuses the object".to_owned()
                ),
            ]
        );
        let secret =
            root("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  debug: off\n");
        assert_eq!(data_values(&secret).len(), 1);
        // Another kind's `data` is its own business.
        let other = root("apiVersion: example.com/v1\nkind: ConfigMap\ndata:\n  enabled: yes\n");
        assert!(data_values(&other).is_empty());
    }

    #[test]
    fn non_string_label_and_annotation_values_are_found_in_every_metadata() {
        let doc = root(
            "metadata:\n  labels:\n    backup: no\n    tier: 1\n    ok: \"no\"\n    empty:\n  annotations:\n    ratio: 0.5\nspec:\n  template:\n    metadata:\n      labels:\n        flag: on\n",
        );
        let found: Vec<(String, String)> = labels_and_annotations(&doc)
            .into_iter()
            .map(|n| (n.path, n.read_as))
            .collect();
        assert_eq!(
            found,
            vec![
                (
                    "metadata.labels.backup".to_owned(),
                    "boolean false".to_owned()
                ),
                ("metadata.labels.tier".to_owned(), "integer 1".to_owned()),
                (
                    "metadata.annotations.ratio".to_owned(),
                    "number 0.5".to_owned()
                ),
                (
                    "spec.template.metadata.labels.flag".to_owned(),
                    "boolean true".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_non_string_name_is_found_at_its_value() {
        let doc = root("metadata:\n  name: off\n  namespace: apps\n");
        let found = identity(&doc);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "metadata.name");
        assert_eq!(found[0].span.start.line, 2);
        assert_eq!(found[0].span.start.column, 9);
        assert_eq!(
            found[0].message(),
            "`metadata.name` is boolean false to Kubernetes (YAML 1.1), not a string: the API server refuses the object"
        );
    }
}
