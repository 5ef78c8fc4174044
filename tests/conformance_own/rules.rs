//! `../shared/conformance/run.py`'s comparison rules, restated: nulls dropped, strict JSON
//! types, leaf paths in Kubernetes notation, what covers what, and the render target of a VM.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

// JSON helpers: Python's truthiness and dictionary walks, as run.py relies on them.

pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `value.get(key)` when value is a map.
pub(crate) fn get<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.as_object().and_then(|map| map.get(key))
}

/// `value.get(key) or {}`.
pub(crate) fn get_or_empty(value: &Value, key: &str) -> Value {
    get(value, key)
        .filter(|v| truthy(v))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()))
}

pub(crate) fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    get(value, key).and_then(Value::as_str).unwrap_or_default()
}

/// Nulls dropped recursively; empty maps and lists kept (`bridge: {}` matters).
pub(crate) fn normalise(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), normalise(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(normalise).collect()),
        other => other.clone(),
    }
}

/// What is compared of a VM: metadata name/labels/annotations and spec.
pub(crate) fn strip_object(vm: &Value) -> Value {
    let vm = normalise(vm);
    let meta = get_or_empty(&vm, "metadata");
    let kept: Map<String, Value> = ["name", "labels", "annotations"]
        .iter()
        .filter_map(|&k| {
            get(&meta, k)
                .filter(|v| truthy(v))
                .map(|v| (k.to_owned(), v.clone()))
        })
        .collect();
    serde_json::json!({"metadata": kept, "spec": get_or_empty(&vm, "spec")})
}

/// Strict: same JSON type and value; numbers compare by value (`2` equals `2.0`).
pub(crate) fn scalar_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Bool(_), _) | (_, Value::Bool(_)) => false,
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Field paths where a and b differ.
pub(crate) fn differences(left: &Value, right: &Value, path: &str) -> Vec<String> {
    match (left, right) {
        (Value::Object(lmap), Value::Object(rmap)) => {
            let keys: BTreeSet<&String> = lmap.keys().chain(rmap.keys()).collect();
            keys.into_iter()
                .flat_map(|key| match (lmap.get(key), rmap.get(key)) {
                    (Some(l), Some(r)) => differences(l, r, &join(path, key)),
                    _ => vec![join(path, key)],
                })
                .collect()
        }
        (Value::Array(litems), Value::Array(ritems)) if litems.len() == ritems.len() => litems
            .iter()
            .zip(ritems)
            .enumerate()
            .flat_map(|(i, (l, r))| differences(l, r, &format!("{path}[{i}]")))
            .collect(),
        _ if scalar_equal(left, right) => Vec::new(),
        _ => vec![path.to_owned()],
    }
}

/// Map keys with dots or slashes are written `[key]`.
pub(crate) fn leaf_key(path: &str, key: &str) -> String {
    if key.contains('.') || key.contains('/') {
        format!("{path}[{key}]")
    } else {
        join(path, key)
    }
}

pub(crate) fn is_empty_container(value: &Value) -> bool {
    matches!(value, Value::Object(m) if m.is_empty())
        || matches!(value, Value::Array(a) if a.is_empty())
}

/// Every leaf path under value.
pub(crate) fn leaves(value: &Value, path: &str, skip_empty: bool) -> Vec<String> {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let keys: BTreeSet<&String> = map.keys().collect();
            keys.into_iter()
                .flat_map(|key| leaves(&map[key], &leaf_key(path, key), skip_empty))
                .collect()
        }
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .flat_map(|(i, item)| leaves(item, &format!("{path}[{i}]"), skip_empty))
            .collect(),
        _ if skip_empty && is_empty_container(value) => Vec::new(),
        _ => vec![path.to_owned()],
    }
}

/// Leaf paths where a and b differ; a subtree on one side only yields all its leaves.
pub(crate) fn leaf_differences(
    left: &Value,
    right: &Value,
    path: &str,
    skip_empty: bool,
) -> Vec<String> {
    match (left, right) {
        (Value::Object(lmap), Value::Object(rmap)) => {
            let keys: BTreeSet<&String> = lmap.keys().chain(rmap.keys()).collect();
            keys.into_iter()
                .flat_map(|key| {
                    let sub = leaf_key(path, key);
                    match (lmap.get(key), rmap.get(key)) {
                        (Some(l), Some(r)) => leaf_differences(l, r, &sub, skip_empty),
                        (Some(only), None) | (None, Some(only)) => leaves(only, &sub, skip_empty),
                        (None, None) => Vec::new(),
                    }
                })
                .collect()
        }
        (Value::Array(litems), Value::Array(ritems)) if litems.len() == ritems.len() => litems
            .iter()
            .zip(ritems)
            .enumerate()
            .flat_map(|(i, (l, r))| leaf_differences(l, r, &format!("{path}[{i}]"), skip_empty))
            .collect(),
        _ if scalar_equal(left, right) => Vec::new(),
        _ => vec![path.to_owned()],
    }
}

/// A field path as tokens: dots separate fields, `[N]` is an index, `[key]` a map key.
pub(crate) fn tokens(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let (mut out, mut current, mut i) = (Vec::new(), String::new(), 0);
    while i < chars.len() {
        match chars[i] {
            '[' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == ']')
                    .map_or(chars.len(), |p| i + p);
                out.push(chars[i + 1..end].iter().collect());
                i = end + 1;
                continue;
            }
            '.' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
        i += 1;
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// A finding's path covers a changed leaf when it is the leaf or a parent of it.
pub(crate) fn covers(finding_path: &str, changed: &str) -> bool {
    if finding_path.is_empty() {
        return false;
    }
    let (d, c) = (tokens(finding_path), tokens(changed));
    if c.starts_with(&d) {
        return true;
    }
    let plain = c.join(".");
    plain == finding_path || plain.starts_with(&format!("{finding_path}."))
}

/// A cause's field and whether it came from a schema message (`FIELD in body ...`).
pub(crate) fn cause_path(cause: &Value) -> (String, bool) {
    let field = text(cause, "field");
    if !field.is_empty() {
        return (field.to_owned(), false);
    }
    let message = text(cause, "message");
    match message.split_once(' ') {
        Some((first, rest)) if rest.starts_with("in body ") && !first.is_empty() => {
            (first.to_owned(), true)
        }
        _ => (message.to_owned(), true),
    }
}

pub(crate) fn without_indices(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|c| open + c);
        match close {
            Some(close)
                if close > open + 1
                    && rest[open + 1..close].bytes().all(|b| b.is_ascii_digit()) =>
            {
                out.push_str(&rest[..open]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `[kubevirt.io/domain]` written as `.kubevirt.io/domain`.
pub(crate) fn map_keys_dotted(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push('.');
        out.push_str(&rest[open + 1..close]);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn matches_cause(finding: &Value, (field, from_schema): &(String, bool)) -> bool {
    if *from_schema {
        let path = without_indices(text(finding, "path"));
        return &path == field || &map_keys_dotted(&path) == field;
    }
    text(finding, "kubevirt_field") == field || text(finding, "path") == field
}

/// Written by the mutating webhook only, absent from expand of the file.
pub(crate) const WEBHOOK_ONLY: [&[&str]; 3] = [
    &["spec", "template", "spec", "domain", "firmware", "uuid"],
    &["spec", "template", "spec", "domain", "firmware", "serial"],
    &[
        "spec",
        "template",
        "metadata",
        "annotations",
        "kubevirt.io/pci-topology-version",
    ],
];

/// What `kvlint render` must print for the VM, or None when it must leave it out: expand of the
/// VM as written; for inferFromVolume VMs, expand of the stored VM less what only the mutating
/// webhook writes.
pub(crate) fn render_target(expected: &Value) -> Option<Value> {
    if let Some(expanded) = get(expected, "expanded") {
        return (!expanded.is_null()).then(|| expanded.clone());
    }
    let input = get_or_empty(expected, "input");
    let spec = get_or_empty(&input, "spec");
    let infers = ["instancetype", "preference"]
        .iter()
        .any(|m| get(&get_or_empty(&spec, m), "inferFromVolume").is_some_and(truthy));
    let stored = get(expected, "expanded_stored").filter(|v| truthy(v))?;
    if !infers {
        return None;
    }
    let mut target = stored.clone();
    for path in WEBHOOK_ONLY {
        let (parents, last) = path.split_at(path.len() - 1);
        let mut source = Some(&input);
        for key in parents {
            source = source.and_then(|s| get(s, key));
        }
        let in_source = source
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(last[0]));
        let mut node = Some(&mut target);
        for key in parents {
            node = node
                .and_then(|n| n.as_object_mut())
                .and_then(|m| m.get_mut(*key));
        }
        if let Some(map) = node.and_then(Value::as_object_mut)
            && !in_source
        {
            map.remove(last[0]);
        }
    }
    let written = get(&spec, "dataVolumeTemplates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let templates = target
        .get_mut("spec")
        .and_then(|s| s.get_mut("dataVolumeTemplates"))
        .and_then(Value::as_array_mut);
    for (template, source) in templates.into_iter().flatten().zip(&written) {
        for kind in ["pvc", "storage"] {
            let had = get_or_empty(&get_or_empty(source, "spec"), kind);
            if let Some(got) = template
                .get_mut("spec")
                .and_then(|s| s.get_mut(kind))
                .and_then(Value::as_object_mut)
                && get(&had, "storageClassName").is_none()
            {
                got.remove("storageClassName");
            }
        }
    }
    Some(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_are_covered_by_themselves_and_their_parents_only() {
        assert!(covers(
            "spec.template.metadata.annotations",
            "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]"
        ));
        assert!(covers(
            "spec.template.metadata.annotations.kubevirt.io/pci-topology-version",
            "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]"
        ));
        assert!(!covers(
            "spec.template.spec.domain.cpu",
            "spec.template.spec.domain.cpuModel"
        ));
        assert!(!covers("", "spec"));
    }

    #[test]
    fn comparison_is_strict_about_types_and_empty_maps() {
        assert_eq!(
            differences(&json!({"a": 1}), &json!({"a": 1.0}), ""),
            Vec::<String>::new()
        );
        assert_eq!(
            differences(&json!({"a": "1"}), &json!({"a": 1}), ""),
            vec!["a"]
        );
        assert_eq!(differences(&json!({"a": {}}), &json!({}), ""), vec!["a"]);
        assert_eq!(
            differences(&json!({"a": true}), &json!({"a": 1}), ""),
            vec!["a"]
        );
        assert_eq!(
            leaf_differences(&json!({}), &json!({"b": {}}), "", true),
            Vec::<String>::new()
        );
        assert_eq!(
            leaf_differences(&json!({}), &json!({"b": {"c.d": 1}}), "", true),
            vec!["b[c.d]"]
        );
    }

    #[test]
    fn schema_causes_name_their_field_in_the_message() {
        let cause = json!({"message": "spec.template.spec.domain.memory.x in body is a forbidden property"});
        assert_eq!(
            cause_path(&cause),
            ("spec.template.spec.domain.memory.x".to_owned(), true)
        );
        let finding = json!({"path": "spec.template.spec.domain.devices.disks[0].x"});
        assert!(matches_cause(
            &finding,
            &("spec.template.spec.domain.devices.disks.x".to_owned(), true)
        ));
        assert_eq!(map_keys_dotted("a[b.c/d].e"), "a.b.c/d.e");
    }
}
