//! Small helpers for editing JSON trees the way KubeVirt edits its Go structs.

use serde_json::{Map, Value};

pub(crate) type Obj = Map<String, Value>;

/// Objects up to this size are searched by comparing keys rather than hashing the key.
const SCAN_LIMIT: usize = 12;

/// `a == b` for short keys: most keys of the same length already differ in their first byte,
/// which spares the call to `memcmp`.
#[inline]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// `map[key]`. KubeVirt objects are small, and comparing a few short keys is cheaper than
/// hashing one with the SipHash that `serde_json`'s maps are built with.
#[inline]
pub(crate) fn member<'a>(map: &'a Obj, key: &str) -> Option<&'a Value> {
    if map.len() <= SCAN_LIMIT {
        map.iter().find(|(k, _)| same_key(k, key)).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// `map[key]`, mutably (see `member`).
#[inline]
pub(crate) fn member_mut<'a>(map: &'a mut Obj, key: &str) -> Option<&'a mut Value> {
    if map.len() <= SCAN_LIMIT {
        map.iter_mut()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v)
    } else {
        map.get_mut(key)
    }
}

/// `get(key)` and `get_mut(key)` with a string key on JSON values and objects, by `member`:
/// the hot paths look keys up in small objects, where hashing costs more than comparing.
pub(crate) trait Fields {
    fn field(&self, key: &str) -> Option<&Value>;
    fn field_mut(&mut self, key: &str) -> Option<&mut Value>;
}

impl Fields for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        field(self, key)
    }

    #[inline]
    fn field_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self {
            Value::Object(map) => member_mut(map, key),
            _ => None,
        }
    }
}

impl Fields for Obj {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        member(self, key)
    }

    #[inline]
    fn field_mut(&mut self, key: &str) -> Option<&mut Value> {
        member_mut(self, key)
    }
}

/// `value[key]` when `value` is an object; as `Value::get` with a string key.
#[inline]
pub(crate) fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => member(map, key),
        _ => None,
    }
}

/// The value under the object keys `path`, as `Value::pointer` for a path of plain keys, without
/// its unescaping allocations or hashing.
pub(crate) fn at_keys<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |node, key| field(node, key))
}

/// A value as Go's decoder leaves it: a JSON `null` is nil, as if the field were absent.
#[inline]
pub(crate) fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

/// The value under the object keys `path`, a `null` counting as absent (Go's nil).
pub(crate) fn present_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    present(at_keys(value, path))
}

/// Go's view of an optional field at `path`: present and not null.
pub(crate) fn is_set_at(value: &Value, path: &[&str]) -> bool {
    present_at(value, path).is_some()
}

/// Go's view of a string field at `path`: the empty string when absent or not a string.
pub(crate) fn str_at<'a>(value: &'a Value, path: &[&str]) -> &'a str {
    present_at(value, path)
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Go's view of a `*bool` field at `path`: `None` when absent or not a bool.
pub(crate) fn bool_at(value: &Value, path: &[&str]) -> Option<bool> {
    present_at(value, path).and_then(Value::as_bool)
}

/// Go's view of an unsigned number field at `path`: 0 when absent.
pub(crate) fn u64_at(value: &Value, path: &[&str]) -> u64 {
    present_at(value, path).and_then(Value::as_u64).unwrap_or(0)
}

/// Go's view of a signed number field at `path`: 0 when absent.
pub(crate) fn i64_at(value: &Value, path: &[&str]) -> i64 {
    present_at(value, path).and_then(Value::as_i64).unwrap_or(0)
}

/// Go's view of a slice at `path`: empty when absent or not a list.
pub(crate) fn array_at<'a>(value: &'a Value, path: &[&str]) -> &'a [Value] {
    present_at(value, path)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Go's view of a `[]string` at `path`: an item that is not a string reads as empty.
pub(crate) fn strs_at<'a>(value: &'a Value, path: &[&str]) -> Vec<&'a str> {
    array_at(value, path)
        .iter()
        .map(|v| v.as_str().unwrap_or(""))
        .collect()
}

/// `at_keys`, mutably.
pub(crate) fn at_keys_mut<'a>(value: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |node, key| node.field_mut(key))
}

/// The object under `key`, created when absent. A value of another JSON type is replaced (the
/// schema check reports such values; KubeVirt could not have decoded them).
pub(crate) fn child<'a>(parent: &'a mut Obj, key: &str) -> &'a mut Obj {
    if !member(parent, key).is_some_and(Value::is_object) {
        // Replaces a value of another type where it stands, or appends the new object.
        parent.insert(key.to_owned(), Value::Object(Map::new()));
    }
    match member_mut(parent, key) {
        Some(Value::Object(map)) => map,
        _ => unreachable!("just made an object"),
    }
}

/// The object under `key` if it is one.
pub(crate) fn get_obj<'a>(parent: &'a Obj, key: &str) -> Option<&'a Obj> {
    member(parent, key).and_then(Value::as_object)
}

/// Go's view of an optional pointer field: present and not null.
pub(crate) fn is_set(parent: &Obj, key: &str) -> bool {
    member(parent, key).is_some_and(|v| !v.is_null())
}

/// Go's view of a string field: the empty string when absent or not a string.
pub(crate) fn str_of<'a>(parent: &'a Obj, key: &str) -> &'a str {
    member(parent, key).and_then(Value::as_str).unwrap_or("")
}

/// Go's view of an unsigned number field: 0 when absent.
pub(crate) fn u64_of(parent: &Obj, key: &str) -> u64 {
    member(parent, key).and_then(Value::as_u64).unwrap_or(0)
}

/// Go's view of a plain bool field.
pub(crate) fn bool_of(parent: &Obj, key: &str) -> bool {
    member(parent, key)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Go's view of a slice: empty when absent.
pub(crate) fn list_len(parent: &Obj, key: &str) -> usize {
    member(parent, key)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// The array under `key`, created when absent.
pub(crate) fn list<'a>(parent: &'a mut Obj, key: &str) -> &'a mut Vec<Value> {
    let slot = parent
        .entry(key.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !slot.is_array() {
        *slot = Value::Array(Vec::new());
    }
    match slot {
        Value::Array(items) => items,
        _ => unreachable!("just made an array"),
    }
}

/// `domain.resources.<list>.<key>` (e.g. `requests.cpu`), if written.
pub(crate) fn resource<'a>(domain: &'a Obj, list: &str, key: &str) -> Option<&'a Value> {
    get_obj(domain, "resources")
        .and_then(|r| get_obj(r, list))
        .and_then(|m| member(m, key))
}

/// Copies a preferred value into `target[key]` when the VM leaves it unset (nil for Go).
pub(crate) fn copy_if_unset(target: &mut Obj, key: &str, value: Option<&Value>) {
    if let Some(value) = value.filter(|v| !v.is_null())
        && !is_set(target, key)
    {
        target.insert(key.to_owned(), value.clone());
    }
}

/// Whether a Go map field is non-nil: present and an object (even an empty one).
pub(crate) fn map_is_set(parent: &Obj, key: &str) -> bool {
    member(parent, key).is_some_and(Value::is_object)
}
