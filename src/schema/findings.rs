//! Turns JSON Schema validation errors into findings at the offending YAML node, with messages
//! worded as the API server words them.

use std::collections::HashSet;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules::{self, Rule};
use crate::yaml::{FieldPath, Segment};

/// What to say about an unknown field the schema knows nothing more about (such as the release
/// that added it), overriding the did-you-mean suggestion.
pub(super) type Hint<'a> = &'a dyn Fn(&FieldPath) -> Option<String>;

/// Validates the object's JSON (without `null` object fields) and reports every error.
pub(super) fn validate(
    object: &Object,
    schema: &Value,
    validator: &Validator,
    hint: Hint<'_>,
) -> Vec<Finding> {
    validate_instance(object, object.node.to_json(), schema, validator, hint)
}

/// Like [`validate`], for `instance`: the object's JSON, or the part of it the schema describes.
pub(super) fn validate_instance(
    object: &Object,
    mut instance: Value,
    schema: &Value,
    validator: &Validator,
    hint: Hint<'_>,
) -> Vec<Finding> {
    drop_null_fields(&mut instance);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for error in validator.iter_errors(&instance) {
        let path = field_path(&instance, &error);
        for finding in error_findings(object, schema, &error, &path, hint) {
            let key = (
                finding.rule.code,
                finding.path.clone(),
                finding.message.clone(),
            );
            if seen.insert(key) {
                out.push(finding);
            }
        }
    }
    out.sort_by(|a, b| {
        (a.location.span.start, &a.path, &a.message).cmp(&(
            b.location.span.start,
            &b.path,
            &b.message,
        ))
    });
    out
}

/// Removes the object fields whose value is `null`, at every depth, as the API server does before
/// it validates a custom resource (list items are kept).
fn drop_null_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_null_fields);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_fields),
        _ => {}
    }
}

/// The instance path of an error as a field path. A segment of digits is a list index only where
/// the instance has a list (a map key such as `"8080"` stays a key).
fn field_path(instance: &Value, error: &ValidationError<'_>) -> FieldPath {
    let mut node = Some(instance);
    let mut segments = Vec::new();
    for segment in error.instance_path().segments() {
        let key = match segment {
            LocationSegment::Property(key) => key.into_owned(),
            LocationSegment::Index(index) => index.to_string(),
        };
        match (node, key.parse::<usize>()) {
            (Some(Value::Array(items)), Ok(index)) => {
                node = items.get(index);
                segments.push(Segment::Index(index));
            }
            (current, _) => {
                node = current.and_then(|n| n.get(&key));
                segments.push(Segment::Key(key));
            }
        }
    }
    FieldPath(segments)
}

fn display(path: &FieldPath) -> String {
    if path.is_empty() {
        "<root>".to_owned()
    } else {
        path.to_string()
    }
}

fn finding(
    object: &Object,
    rule: &'static Rule,
    at: &FieldPath,
    path: &FieldPath,
    message: String,
) -> Finding {
    Finding::new(rule, object.field_location(at), message)
        .with_object(Some(object.object_ref()))
        .with_path(display(path))
}

/// A value as Go's `%v` shows it in a field error: strings quoted, numbers and booleans bare,
/// collections as compact JSON.
fn shown(value: &Value) -> String {
    match value {
        Value::String(_) | Value::Array(_) | Value::Object(_) => value.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
    }
}

/// The JSON type of a value, with integers told apart from other numbers.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn expected_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(single) => single.to_string(),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// `field: Invalid value: <value>: field in body <detail>`, the API server's wording.
fn invalid(path: &str, value: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {value}: {path} in body {detail}")
}

/// The types an `anyOf` of plain type schemas allows (`integer,string` for a quantity), or
/// `None` when a branch is more than a type.
fn any_of_types(schema: &Value, error: &ValidationError<'_>) -> Option<String> {
    let pointer = error.schema_path().as_str();
    let branches = schema.pointer(pointer)?.as_array()?;
    let names: Option<Vec<&str>> = branches
        .iter()
        .map(|branch| {
            let object = branch.as_object()?;
            (object.len() == 1).then(|| object.get("type")?.as_str())?
        })
        .collect();
    names.map(|names| names.join(","))
}

fn error_findings(
    object: &Object,
    schema: &Value,
    error: &ValidationError<'_>,
    path: &FieldPath,
    hint: Hint<'_>,
) -> Vec<Finding> {
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected
            .iter()
            .map(|key| unknown_field(object, schema, path, key, hint))
            .collect(),
        ValidationErrorKind::Required { property } => {
            let missing = path.key(property.as_str().unwrap_or_default());
            vec![finding(
                object,
                &rules::SCHEMA_VIOLATION,
                path,
                &missing,
                format!("{}: Required value", display(&missing)),
            )]
        }
        _ => vec![finding(
            object,
            &rules::SCHEMA_VIOLATION,
            path,
            path,
            violation_message(schema, error, &display(path)),
        )],
    }
}

/// The API server's message for the value at `name` that the schema refuses.
fn violation_message(schema: &Value, error: &ValidationError<'_>, name: &str) -> String {
    let value = error.instance();
    if let Some(detail) = bound_detail(error.kind()) {
        return invalid(name, &shown(value), &detail);
    }
    match error.kind() {
        ValidationErrorKind::Type { kind } => {
            let actual = format!("\"{}\"", type_name(value));
            let detail = format!("must be of type {}: {actual}", expected_types(kind));
            invalid(name, &actual, &detail)
        }
        ValidationErrorKind::AnyOf { .. } => {
            let actual = format!("\"{}\"", type_name(value));
            match any_of_types(schema, error) {
                Some(types) => {
                    let detail = format!("must be of type {types}: {actual}");
                    invalid(name, &actual, &detail)
                }
                None => invalid(
                    name,
                    &shown(value),
                    "must validate at least one schema (anyOf)",
                ),
            }
        }
        ValidationErrorKind::OneOfNotValid { .. } => invalid(
            name,
            &shown(value),
            "must validate one and only one schema (oneOf)",
        ),
        ValidationErrorKind::OneOfMultipleValid { .. } => invalid(
            name,
            &shown(value),
            "must validate one and only one schema (oneOf). Found more than one valid schema",
        ),
        ValidationErrorKind::MultipleOf { .. } => invalid(name, &shown(value), &error.to_string()),
        ValidationErrorKind::MaxItems { limit } => {
            format!("{name}: Too many: must have at most {limit} items")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("{name}: Too many: must have at most {limit} properties")
        }
        ValidationErrorKind::UniqueItems => format!("{name}: Duplicate value: {}", shown(value)),
        ValidationErrorKind::Enum { options } => {
            let supported = options.as_array().map_or_else(
                || shown(options),
                |values| values.iter().map(shown).collect::<Vec<_>>().join(", "),
            );
            format!(
                "{name}: Unsupported value: {}: supported values: {supported}",
                shown(value)
            )
        }
        ValidationErrorKind::Constant { expected_value } => format!(
            "{name}: Unsupported value: {}: supported values: {}",
            shown(value),
            shown(expected_value)
        ),
        ValidationErrorKind::Format { format } => invalid(
            name,
            &shown(value),
            &format!("must be of type {format}: {}", shown(value)),
        ),
        ValidationErrorKind::FalseSchema => {
            format!("{name}: Forbidden: the schema allows no value here")
        }
        _ => format!("{name}: Invalid value: {}: {error}", shown(value)),
    }
}

/// What the API server says of a value outside a bound the schema sets (a limit, a length, a
/// pattern); `None` for another kind of error.
fn bound_detail(kind: &ValidationErrorKind) -> Option<String> {
    Some(match kind {
        ValidationErrorKind::Maximum { limit } => {
            format!("should be less than or equal to {limit}")
        }
        ValidationErrorKind::Minimum { limit } => {
            format!("should be greater than or equal to {limit}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("should be less than {limit}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("should be greater than {limit}")
        }
        ValidationErrorKind::Pattern { pattern } => format!("should match '{pattern}'"),
        ValidationErrorKind::MaxLength { limit } => format!("should be at most {limit} chars long"),
        ValidationErrorKind::MinLength { limit } => {
            format!("should be at least {limit} chars long")
        }
        ValidationErrorKind::MinItems { limit } => format!("should have at least {limit} items"),
        ValidationErrorKind::MinProperties { limit } => {
            format!("should have at least {limit} properties")
        }
        _ => return None,
    })
}

fn unknown_field(
    object: &Object,
    schema: &Value,
    parent: &FieldPath,
    key: &str,
    hint: Hint<'_>,
) -> Finding {
    let path = parent.key(key);
    let known = known_fields(schema, parent);
    let mut found = Finding::new(
        &rules::UNKNOWN_FIELD,
        object.field_location(&path),
        format!(
            "unknown field \"{}\": the API server drops it without an error",
            display(&path)
        ),
    )
    .with_object(Some(object.object_ref()))
    .with_path(display(&path));
    let help = if let Some(hint) = hint(&path) {
        Some(hint)
    } else if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        Some(format!("did you mean `{same}`?"))
    } else if let Some(elsewhere) = declared_elsewhere(schema, key) {
        Some(format!(
            "did you mean `{elsewhere}`? `{key}` is declared there (check the indentation)"
        ))
    } else {
        suggest(key, &known).map(|close| format!("did you mean `{close}`?"))
    };
    if let Some(help) = help {
        found = found.with_help(help);
    }
    found
}

/// The one place in the schema that declares a field of this name (case-insensitively), as a
/// path with `[*]` for list items; `None` when there is no such place or more than one.
fn declared_elsewhere(root: &Value, key: &str) -> Option<String> {
    fn walk(
        root: &Value,
        node: &Value,
        path: &str,
        key: &str,
        depth: usize,
        found: &mut Vec<String>,
    ) {
        let Some(node) = resolve(root, node) else {
            return;
        };
        if depth > 12 || found.len() > 1 {
            return;
        }
        for option in alternatives(root, node) {
            if let Some(properties) = option.get("properties").and_then(Value::as_object) {
                for (name, child) in properties {
                    let child_path = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}.{name}")
                    };
                    if name.eq_ignore_ascii_case(key) && !found.contains(&child_path) {
                        found.push(child_path.clone());
                    }
                    walk(root, child, &child_path, key, depth + 1, found);
                }
            }
            if let Some(items) = option.get("items").filter(|i| i.is_object()) {
                walk(root, items, &format!("{path}[*]"), key, depth + 1, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(root, root, "", key, 0, &mut found);
    (found.len() == 1).then(|| found.remove(0))
}

/// The closest known field name to an unknown one: a case-insensitive match first, then the
/// smallest Damerau-Levenshtein distance (case-insensitive), at most a third of the length.
pub(super) fn suggest<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(unknown)) {
        return Some(same);
    }
    let lower = unknown.to_lowercase();
    let limit = (lower.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, k)| k)
}

/// Follows local `$ref`s (`#/...`) of a schema node.
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> Option<&'a Value> {
    for _ in 0..32 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(reference) => node = root.pointer(reference.strip_prefix('#')?)?,
            None => return Some(node),
        }
    }
    None
}

/// A node and the branches of its `allOf`, `anyOf` and `oneOf`, resolved.
fn alternatives<'a>(root: &'a Value, node: &'a Value) -> Vec<&'a Value> {
    let mut out = vec![node];
    for keyword in ["allOf", "anyOf", "oneOf"] {
        if let Some(branches) = node.get(keyword).and_then(Value::as_array) {
            out.extend(branches.iter().filter_map(|b| resolve(root, b)));
        }
    }
    out
}

/// The schema node describing the value at `path`, if the schema can be followed there.
fn schema_at<'a>(root: &'a Value, path: &FieldPath) -> Option<&'a Value> {
    let mut node = resolve(root, root)?;
    for segment in &path.0 {
        let options = alternatives(root, node);
        let next = match segment {
            Segment::Key(key) => options
                .iter()
                .find_map(|n| n.get("properties").and_then(|p| p.get(key)))
                .or_else(|| {
                    options
                        .iter()
                        .find_map(|n| n.get("additionalProperties").filter(|a| a.is_object()))
                }),
            Segment::Index(_) => options
                .iter()
                .find_map(|n| n.get("items").filter(|i| i.is_object())),
        }?;
        node = resolve(root, next)?;
    }
    Some(node)
}

/// The field names the schema declares for the object at `path`.
fn known_fields<'a>(root: &'a Value, path: &FieldPath) -> Vec<&'a str> {
    let Some(node) = schema_at(root, path) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for option in alternatives(root, node) {
        if let Some(properties) = option.get("properties").and_then(Value::as_object) {
            names.extend(properties.keys().map(String::as_str));
        }
    }
    names
}
