//! The primitive changes of one object (removals, scalars, insertions), and the YAML text of
//! what is inserted.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::source::{children_count, node_at};
use super::{Action, Refusal};
use crate::yaml::{FieldPath, Node, Segment, is_plain_safe};

/// The primitive changes one object needs, after expanding `Set` into its parts.
#[derive(Default)]
pub(super) struct Changes {
    pub(super) removals: BTreeSet<Vec<Segment>>,
    pub(super) scalars: BTreeMap<Vec<Segment>, Value>,
    /// Map path → the keys to add below it (a nested object).
    pub(super) inserts: BTreeMap<Vec<Segment>, Map<String, Value>>,
    pub(super) renames: BTreeMap<Vec<Segment>, (String, Value)>,
}

pub(super) fn same_scalar(node: &Node, value: &Value) -> bool {
    let written = node.to_json();
    match (&written, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => written == *value,
    }
}

pub(super) fn deep_merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) => deep_merge(existing, more),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

impl Changes {
    pub(super) fn set(
        &mut self,
        root: &Node,
        path: &[Segment],
        value: &Value,
    ) -> Result<(), Refusal> {
        if let Some(node) = node_at(root, path) {
            return match (value, node.as_map()) {
                (Value::Object(wanted), Some(entries)) => {
                    for (key, child) in wanted {
                        let mut sub = path.to_vec();
                        sub.push(Segment::Key(key.clone()));
                        self.set(root, &sub, child)?;
                    }
                    for entry in entries.iter().filter(|e| !wanted.contains_key(&e.key)) {
                        let mut sub = path.to_vec();
                        sub.push(Segment::Key(entry.key.clone()));
                        self.removals.insert(sub);
                    }
                    Ok(())
                }
                (Value::Object(_) | Value::Array(_), _) => {
                    Err(Refusal::DifferentKind(FieldPath(path.to_vec())))
                }
                (_, Some(_)) => Err(Refusal::IsMapping(FieldPath(path.to_vec()))),
                _ if node.as_seq().is_some() => Err(Refusal::IsList(FieldPath(path.to_vec()))),
                _ if same_scalar(node, value) => Ok(()),
                _ => {
                    self.scalars.insert(path.to_vec(), value.clone());
                    Ok(())
                }
            };
        }
        // Insert below the deepest existing ancestor, which must be a mapping.
        let mut depth = path.len();
        while depth > 0 && node_at(root, &path[..depth]).is_none() {
            depth -= 1;
        }
        let parent = node_at(root, &path[..depth]).filter(|n| n.as_map().is_some());
        if parent.is_none() {
            return Err(Refusal::NotAMapping(FieldPath(path[..depth].to_vec())));
        }
        let mut nested = value.clone();
        for segment in path[depth..].iter().rev() {
            let Segment::Key(key) = segment else {
                return Err(Refusal::MissingListItem(FieldPath(path.to_vec())));
            };
            let mut map = Map::new();
            map.insert(key.clone(), nested);
            nested = Value::Object(map);
        }
        let Value::Object(map) = nested else {
            unreachable!("at least one key was added")
        };
        deep_merge(self.inserts.entry(path[..depth].to_vec()).or_default(), map);
        Ok(())
    }

    pub(super) fn add(&mut self, root: &Node, action: &Action) -> Result<(), Refusal> {
        match action {
            Action::Remove(path) => {
                if node_at(root, &path.0).is_some() {
                    self.removals.insert(path.0.clone());
                }
                Ok(())
            }
            Action::Set(path, value) => self.set(root, &path.0, value),
            Action::Rename { path, key, value } => {
                let Some((Segment::Key(_), parent)) = path.0.split_last() else {
                    return Err(Refusal::NotAMappingKey(path.clone()));
                };
                if node_at(root, parent).and_then(|p| p.get(key)).is_some() {
                    return Err(Refusal::BothSet {
                        path: path.clone(),
                        key: key.clone(),
                    });
                }
                self.renames
                    .insert(path.0.clone(), (key.clone(), value.clone()));
                Ok(())
            }
        }
    }

    /// A parent whose children are all removed is removed itself (an emptied `annotations:`
    /// would read as null), up to the object root; nothing is removed below a removed path.
    pub(super) fn collapse(&mut self, root: &Node) {
        loop {
            let mut grew = false;
            let parents: BTreeSet<Vec<Segment>> = self
                .removals
                .iter()
                .filter(|p| p.len() > 1)
                .map(|p| p[..p.len() - 1].to_vec())
                .collect();
            for parent in parents {
                let Some(node) = node_at(root, &parent) else {
                    continue;
                };
                let removed = self
                    .removals
                    .iter()
                    .filter(|p| p.len() == parent.len() + 1 && p.starts_with(&parent))
                    .count();
                let kept_by_other_change = self.inserts.keys().any(|p| p.starts_with(&parent))
                    || self.scalars.keys().any(|p| p.starts_with(&parent))
                    || self.renames.keys().any(|p| p.starts_with(&parent));
                if removed == children_count(node) && !kept_by_other_change {
                    self.removals.retain(|p| !p.starts_with(&parent));
                    self.removals.insert(parent);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let all: Vec<Vec<Segment>> = self.removals.iter().cloned().collect();
        self.removals
            .retain(|p| !all.iter().any(|other| other != p && p.starts_with(other)));
    }
}

pub(super) fn quote_like(original: Option<char>, text: &str) -> String {
    match original {
        Some('\'') => format!("'{}'", text.replace('\'', "''")),
        Some('"') => serde_json::to_string(text).unwrap_or_default(),
        _ if is_plain_safe(text) => text.to_owned(),
        _ => serde_json::to_string(text).unwrap_or_default(),
    }
}

pub(super) fn scalar(value: &Value, original: Option<char>) -> String {
    match value {
        Value::String(s) => quote_like(original, s),
        other => other.to_string(),
    }
}

pub(super) fn key_text(key: &str) -> String {
    quote_like(None, key)
}

/// A value in flow style: JSON, with plain keys where they are safe.
pub(super) fn flow(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", key_text(k), flow(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        other => scalar(other, None),
    }
}
