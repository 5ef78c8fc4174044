use std::fmt;
use std::ops::Deref;

use foldhash::{HashMap, HashMapExt};

/// A position in a source text: 1-based line, 1-based column counted in Unicode characters, and
/// the 0-based character index from the start of the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
    pub index: u32,
}

/// A range of characters; `end` is exclusive (the character after the last one), as in SARIF.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A resolved YAML node. Scalars are resolved with YAML 1.1 rules (see `scalar.rs`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Mapping),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: Span,
}

/// A mapping entry. The key is kept as the text Kubernetes would see (a YAML 1.1 boolean key
/// `on` becomes `"true"`, as `sigs.k8s.io/yaml` turns keys into JSON strings).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

/// Mappings with this many entries find a key through an index instead of a scan.
pub(crate) const INDEXED_FROM: usize = 64;

/// Where each key of a wide mapping stands (its first entry).
pub(crate) type KeyIndex = HashMap<Box<str>, usize>;

#[cfg(test)]
thread_local! {
    /// Keys compared on this thread by lookups and merges (a hash lookup counts one): tests bound
    /// the cost of hostile mappings with it, which does not depend on the machine's load as a
    /// time does.
    static KEYS_COMPARED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `count` key comparisons; nothing outside tests.
#[inline]
pub(crate) fn count_compared_keys(count: u64) {
    #[cfg(test)]
    KEYS_COMPARED.with(|compared| compared.set(compared.get() + count));
    #[cfg(not(test))]
    let _ = count;
}

/// The keys compared on this thread so far.
#[cfg(test)]
pub(crate) fn keys_compared() -> u64 {
    KEYS_COMPARED.with(std::cell::Cell::get)
}

/// The entries of a mapping, in document order. A mapping of [`INDEXED_FROM`] entries or more
/// keeps an index of its keys, so that looking a key up (every finding looks its path up) does
/// not scan a mapping of a hundred thousand keys; smaller ones are scanned, which is faster.
#[derive(Clone, Default)]
pub struct Mapping {
    entries: Vec<Entry>,
    index: Option<Box<KeyIndex>>,
}

impl Mapping {
    pub fn new(entries: Vec<Entry>) -> Self {
        let index = (entries.len() >= INDEXED_FROM).then(|| {
            let mut index = KeyIndex::with_capacity(entries.len());
            for (at, entry) in entries.iter().enumerate() {
                index.entry(entry.key.as_str().into()).or_insert(at);
            }
            Box::new(index)
        });
        Self { entries, index }
    }

    /// `entries` with the index the builder kept while it read them, which must give every
    /// key's first entry.
    pub(crate) fn with_index(entries: Vec<Entry>, index: Option<KeyIndex>) -> Self {
        match index {
            Some(index) if entries.len() >= INDEXED_FROM && index.len() == entries.len() => Self {
                entries,
                index: Some(Box::new(index)),
            },
            _ => Self::new(entries),
        }
    }

    /// The first entry of `key`.
    pub fn by_key(&self, key: &str) -> Option<&Entry> {
        self.position(key).and_then(|at| self.entries.get(at))
    }

    /// The value of the first entry of `key`, to change (keys stay as they are).
    pub fn value_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.position(key)
            .and_then(|at| self.entries.get_mut(at))
            .map(|entry| &mut entry.value)
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => {
                count_compared_keys(1);
                index.get(key).copied()
            }
            None => self.entries.iter().position(|e| {
                count_compared_keys(1);
                e.key == key
            }),
        }
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, keep: impl FnMut(&Entry) -> bool) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.retain(keep);
        *self = Self::new(entries);
    }

    /// The capacity of the entries' vector.
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }

    pub fn into_vec(self) -> Vec<Entry> {
        self.entries
    }
}

impl From<Vec<Entry>> for Mapping {
    fn from(entries: Vec<Entry>) -> Self {
        Self::new(entries)
    }
}

impl Deref for Mapping {
    type Target = [Entry];

    fn deref(&self) -> &[Entry] {
        &self.entries
    }
}

impl PartialEq for Mapping {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl fmt::Debug for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.entries.fmt(f)
    }
}

impl IntoIterator for Mapping {
    type Item = Entry;
    type IntoIter = std::vec::IntoIter<Entry>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Mapping {
    type Item = &'a Entry;
    type IntoIter = std::slice::Iter<'a, Entry>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Map(entries) => entries.by_key(key),
            _ => None,
        }
    }

    /// Whether `key` is the boolean `true`: a flag of a controller's API, off when absent or
    /// of another value (Go's zero value).
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).is_some_and(|n| n.value == Value::Bool(true))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(entries) => Some(&entries[..]),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The JSON value `sigs.k8s.io/yaml` would produce for this node.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => float_to_json(*f),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Seq(items) => {
                serde_json::Value::Array(items.iter().map(Node::to_json).collect())
            }
            Value::Map(entries) => serde_json::Value::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Go marshals a float64 without a fraction as an integer (`1e3` becomes `1000`), which then
/// decodes into integer fields; NaN and infinities cannot be JSON and become null.
#[allow(clippy::cast_possible_truncation)]
fn float_to_json(f: f64) -> serde_json::Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return serde_json::Value::from(f as i64);
    }
    serde_json::Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_set_only_by_the_boolean_true() {
        let node = crate::yaml::first_root("a: true\nb: false\nc: \"true\"\nd: yes\ne:\n");
        let flags: Vec<bool> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|key| node.flag(key))
            .collect();
        // `yes` is YAML 1.1's true, as Kubernetes reads it.
        assert_eq!(flags, [true, false, false, true, false, false]);
    }

    fn wide(keys: usize) -> Node {
        let entries = (0..keys)
            .map(|i| Entry {
                key: format!("k{i}"),
                key_span: Span::default(),
                value: Node {
                    value: Value::Int(i64::try_from(i).unwrap()),
                    span: Span::default(),
                },
            })
            .collect::<Vec<_>>();
        Node {
            value: Value::Map(entries.into()),
            span: Span::default(),
        }
    }

    #[test]
    fn every_key_of_a_wide_mapping_is_found_without_a_scan() {
        let keys = 200_000;
        let node = wide(keys);
        let before = keys_compared();
        for i in 0..keys {
            let key = format!("k{i}");
            assert_eq!(
                node.get(&key).map(|n| &n.value),
                Some(&Value::Int(i64::try_from(i).unwrap()))
            );
        }
        assert!(node.get("missing").is_none());
        // One comparison per lookup; a scan per key would compare 2 * 10^10 keys.
        let compared = keys_compared() - before;
        assert_eq!(compared, keys as u64 + 1);
    }

    #[test]
    fn the_first_entry_of_a_duplicated_key_is_found_in_any_mapping() {
        for keys in [3, INDEXED_FROM + 3] {
            let Value::Map(mapping) = wide(keys).value else {
                unreachable!()
            };
            let mut entries = mapping.into_vec();
            let mut duplicate = entries[1].clone();
            duplicate.value.value = Value::Null;
            entries.push(duplicate);
            let mut mapping = Mapping::from(entries);
            assert_eq!(mapping.by_key("k1").unwrap().value.value, Value::Int(1));
            mapping.retain(|e| e.key != "k0");
            assert!(mapping.by_key("k0").is_none());
            assert_eq!(mapping.by_key("k2").unwrap().value.value, Value::Int(2));
        }
    }
}
