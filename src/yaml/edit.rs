//! Field-level actions → minimal text edits of the source, so that comments, key order, quoting
//! and indentation survive.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::yaml::{Entry, FieldPath, Node, Pos, Segment, is_plain_safe};

/// One field-level change, at a path of the object (the finding's `path` notation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Remove the field (and a parent it leaves empty).
    Remove(FieldPath),
    /// Make the field hold this value: scalars are replaced, maps are merged key by key, a
    /// missing field is inserted.
    Set(FieldPath, Value),
    /// Replace the field by another key of the same parent (a deprecated spelling).
    Rename {
        path: FieldPath,
        key: String,
        value: Value,
    },
}

/// Replace the bytes `start..end` of the file by `text` (an insertion when they are equal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The file being edited: byte offsets of the parser's character positions, and its line
/// ending.
struct Source<'a> {
    text: &'a str,
    /// Byte offset of each character after a byte-order mark (None: ASCII, offset = index).
    offsets: Option<Vec<usize>>,
    bom: usize,
    newline: &'static str,
    /// Built on the first anchor met: most files have none.
    aliases: OnceCell<Aliases<'a>>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        let offsets = (!body.is_ascii()).then(|| {
            body.char_indices()
                .map(|(i, _)| i)
                .chain([body.len()])
                .collect()
        });
        Self {
            text,
            offsets,
            bom,
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
            aliases: OnceCell::new(),
        }
    }

    fn is_aliased(&self, name: &str) -> bool {
        self.aliases
            .get_or_init(|| Aliases::new(self.text))
            .contains(name)
    }

    fn byte(&self, pos: Pos) -> usize {
        let index = pos.index as usize;
        self.bom
            + self.offsets.as_ref().map_or(index, |offsets| {
                offsets.get(index).copied().unwrap_or(self.text.len())
            })
    }

    /// Where a node's text ends: some collection spans run on to the next token, so trailing
    /// whitespace is left out.
    fn end(&self, node: &Node) -> usize {
        let start = self.byte(node.span.start);
        let end = self.byte(node.span.end).max(start);
        start + self.text[start..end].trim_end().len()
    }

    fn entry_end(&self, entry: &Entry) -> usize {
        self.end(&entry.value).max(self.byte(entry.key_span.end))
    }

    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The offset after the line's newline (or the end of the text).
    fn next_line(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i + 1)
    }

    fn first_char(&self, node: &Node) -> Option<char> {
        self.text[self.byte(node.span.start)..].chars().next()
    }

    fn is_flow(&self, node: &Node) -> bool {
        matches!(self.first_char(node), Some('{' | '['))
    }

    fn lines(&self, text: &str) -> String {
        if self.newline == "\n" {
            text.to_owned()
        } else {
            text.replace('\n', self.newline)
        }
    }
}

fn child<'n>(node: &'n Node, segment: &Segment) -> Option<&'n Node> {
    match segment {
        Segment::Key(key) => node.get(key),
        Segment::Index(i) => node.as_seq().and_then(|items| items.get(*i)),
    }
}

fn node_at<'n>(root: &'n Node, path: &[Segment]) -> Option<&'n Node> {
    path.iter().try_fold(root, child)
}

fn children_count(node: &Node) -> usize {
    node.as_map()
        .map(<[_]>::len)
        .or_else(|| node.as_seq().map(<[_]>::len))
        .unwrap_or(0)
}

fn anchor_name(text: &str) -> &str {
    let end = text.find(ends_name).unwrap_or(text.len());
    &text[..end]
}

/// Characters that end an anchor or alias name.
fn ends_name(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}')
}

/// Every `*name` of a text that is followed by whitespace, `,`, `]`, `}` or the end: the
/// aliases an anchor may be used by. Indexed once per file, so that the fixes of many objects
/// do not each search the whole text.
struct Aliases<'a> {
    /// The part after the last `*` of each run of name characters that holds one → the runs.
    by_tail: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Aliases<'a> {
    fn new(text: &'a str) -> Self {
        let mut seen = HashSet::new();
        let mut by_tail: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if !ends_name(c) && chars.peek().is_some_and(|&(_, next)| !ends_name(next)) {
                continue;
            }
            let (run, after) = if ends_name(c) {
                (&text[start..at], Some(c))
            } else {
                (
                    &text[start..at + c.len_utf8()],
                    chars.peek().map(|&(_, n)| n),
                )
            };
            start = at + c.len_utf8();
            let closes = after.is_none_or(|n| n.is_whitespace() || matches!(n, ',' | ']' | '}'));
            if closes
                && let Some(star) = run.rfind('*')
                && seen.insert(run)
            {
                by_tail.entry(&run[star + 1..]).or_default().push(run);
            }
        }
        Self { by_tail }
    }

    /// Whether `*name` occurs as an alias (`name` holds no character that ends a name).
    fn contains(&self, name: &str) -> bool {
        let tail = name.rfind('*').map_or(name, |star| &name[star + 1..]);
        let needle = format!("*{name}");
        self.by_tail
            .get(tail)
            .is_some_and(|runs| runs.iter().any(|run| run.ends_with(&needle)))
    }
}

/// Byte ranges of anchored nodes that an alias uses: editing inside one changes every use.
fn aliased_regions(source: &Source<'_>, root: &Node) -> Vec<(usize, usize)> {
    fn walk(source: &Source<'_>, node: &Node, out: &mut Vec<(usize, usize)>) {
        let start = source.byte(node.span.start);
        if source.text[start..].starts_with('&') {
            let name = anchor_name(&source.text[start + 1..]);
            if !name.is_empty() && source.is_aliased(name) {
                out.push((start, source.end(node)));
            }
        }
        if let Some(entries) = node.as_map() {
            for entry in entries {
                walk(source, &entry.value, out);
            }
        } else if let Some(items) = node.as_seq() {
            for item in items {
                walk(source, item, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(source, root, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Refuses a change whose path passes through an alias (`*name`, `<<: *name`) or into an
/// anchored node used elsewhere.
fn check_path(
    source: &Source<'_>,
    root: &Node,
    path: &[Segment],
    regions: &[(usize, usize)],
) -> Result<(), String> {
    let mut node = root;
    for segment in path {
        let Some(next) = child(node, segment) else {
            return Ok(());
        };
        let start = source.byte(next.span.start);
        let container = (source.byte(node.span.start), source.end(node));
        let outside_parent = node.as_map().is_some()
            && !(container.0 <= start && start <= container.1)
            && node.span != root.span;
        if source.text[start..].starts_with('*') || outside_parent {
            return Err(format!(
                "`{}` comes from an alias (edit the anchor by hand)",
                FieldPath(path.to_vec())
            ));
        }
        if regions.iter().any(|(s, e)| *s <= start && start <= *e) {
            return Err(format!(
                "`{}` is inside an anchor that is used elsewhere (edit it by hand)",
                FieldPath(path.to_vec())
            ));
        }
        node = next;
    }
    Ok(())
}

/// The primitive changes one object needs, after expanding `Set` into its parts.
#[derive(Default)]
struct Changes {
    removals: BTreeSet<Vec<Segment>>,
    scalars: BTreeMap<Vec<Segment>, Value>,
    /// Map path → the keys to add below it (a nested object).
    inserts: BTreeMap<Vec<Segment>, Map<String, Value>>,
    renames: BTreeMap<Vec<Segment>, (String, Value)>,
}

fn same_scalar(node: &Node, value: &Value) -> bool {
    let written = node.to_json();
    match (&written, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => written == *value,
    }
}

fn deep_merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
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
    fn set(&mut self, root: &Node, path: &[Segment], value: &Value) -> Result<(), String> {
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
                (Value::Object(_) | Value::Array(_), _) => Err(format!(
                    "`{}` is written as a different kind of value",
                    FieldPath(path.to_vec())
                )),
                (_, Some(_)) => Err(format!("`{}` is a mapping", FieldPath(path.to_vec()))),
                _ if node.as_seq().is_some() => {
                    Err(format!("`{}` is a list", FieldPath(path.to_vec())))
                }
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
            return Err(format!(
                "`{}` is not a mapping",
                FieldPath(path[..depth].to_vec())
            ));
        }
        let mut nested = value.clone();
        for segment in path[depth..].iter().rev() {
            let Segment::Key(key) = segment else {
                return Err(format!(
                    "`{}` is missing a list item",
                    FieldPath(path.to_vec())
                ));
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

    fn add(&mut self, root: &Node, action: &Action) -> Result<(), String> {
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
                    return Err(format!("`{path}` is not a mapping key"));
                };
                if node_at(root, parent).and_then(|p| p.get(key)).is_some() {
                    return Err(format!("both `{path}` and `{key}` are set"));
                }
                self.renames
                    .insert(path.0.clone(), (key.clone(), value.clone()));
                Ok(())
            }
        }
    }

    /// A parent whose children are all removed is removed itself (an emptied `annotations:`
    /// would read as null), up to the object root; nothing is removed below a removed path.
    fn collapse(&mut self, root: &Node) {
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

fn quote_like(original: Option<char>, text: &str) -> String {
    match original {
        Some('\'') => format!("'{}'", text.replace('\'', "''")),
        Some('"') => serde_json::to_string(text).unwrap_or_default(),
        _ if is_plain_safe(text) => text.to_owned(),
        _ => serde_json::to_string(text).unwrap_or_default(),
    }
}

fn scalar(value: &Value, original: Option<char>) -> String {
    match value {
        Value::String(s) => quote_like(original, s),
        other => other.to_string(),
    }
}

fn key_text(key: &str) -> String {
    quote_like(None, key)
}

/// A value in flow style: JSON, with plain keys where they are safe.
fn flow(value: &Value) -> String {
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

struct Planner<'a, 's> {
    source: &'a Source<'s>,
    root: &'a Node,
    edits: Vec<TextEdit>,
}

impl Planner<'_, '_> {
    fn entry_span(&self, parent: &Node, index: usize) -> (usize, usize) {
        match (parent.as_map(), parent.as_seq()) {
            (Some(entries), _) => {
                let e = &entries[index];
                (self.source.byte(e.key_span.start), self.source.entry_end(e))
            }
            (_, Some(items)) => (
                self.source.byte(items[index].span.start),
                self.source.end(&items[index]),
            ),
            _ => (0, 0),
        }
    }

    fn remove(&mut self, path: &[Segment]) -> Result<(), String> {
        let shown = || FieldPath(path.to_vec()).to_string();
        let Some((last, parent_path)) = path.split_last() else {
            return Err("cannot remove the whole object".to_owned());
        };
        let parent =
            node_at(self.root, parent_path).ok_or_else(|| format!("`{}` moved", shown()))?;
        let index = match (last, parent.as_map(), parent.as_seq()) {
            (Segment::Key(key), Some(entries), _) => entries.iter().position(|e| &e.key == key),
            (Segment::Index(i), _, Some(items)) if *i < items.len() => Some(*i),
            _ => None,
        }
        .ok_or_else(|| format!("`{}` is not there", shown()))?;
        let count = children_count(parent);
        let (start, end) = self.entry_span(parent, index);
        if self.source.is_flow(parent) {
            let (start, end) = if index + 1 < count {
                (start, self.entry_span(parent, index + 1).0)
            } else if index > 0 {
                (self.entry_span(parent, index - 1).1, end)
            } else {
                (start, end)
            };
            self.edits.push(TextEdit {
                start,
                end,
                text: String::new(),
            });
            return Ok(());
        }
        // Block style: the item's dash, when a sequence item is removed.
        let start = if parent.as_seq().is_some() {
            let before = self.source.text[..start].trim_end_matches([' ', '\t']);
            if !before.ends_with('-') {
                return Err(format!("`{}` has an unexpected layout", shown()));
            }
            before.len() - 1
        } else {
            start
        };
        let line_start = self.source.line_start(start);
        let prefix = &self.source.text[line_start..start];
        let rest_end = self.source.next_line(end);
        let rest = self.source.text[end..rest_end].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Err(format!("`{}` shares its line with other content", shown()));
        }
        if prefix.trim().is_empty() {
            self.edits.push(TextEdit {
                start: line_start,
                end: rest_end,
                text: String::new(),
            });
            return Ok(());
        }
        // The first key of a block sequence item (`- key: value`): the next key moves up.
        if prefix.trim() == "-" && index + 1 < count {
            let next = self.entry_span(parent, index + 1).0;
            self.edits.push(TextEdit {
                start,
                end: next,
                text: String::new(),
            });
            return Ok(());
        }
        Err(format!("`{}` has an unexpected layout", shown()))
    }

    fn replace_scalar(&mut self, path: &[Segment], value: &Value) -> Result<(), String> {
        let node = node_at(self.root, path).ok_or("the field moved")?;
        let original = self.source.first_char(node);
        if matches!(original, Some('|' | '>' | '&' | '!' | '*')) {
            return Err(format!(
                "`{}` is written in a style kvlint does not rewrite",
                FieldPath(path.to_vec())
            ));
        }
        self.edits.push(TextEdit {
            start: self.source.byte(node.span.start),
            end: self.source.end(node),
            text: scalar(value, original),
        });
        Ok(())
    }

    fn rename(&mut self, path: &[Segment], key: &str, value: &Value) -> Result<(), String> {
        let Some((Segment::Key(old), parent_path)) = path.split_last() else {
            return Err("not a key".to_owned());
        };
        let entry = node_at(self.root, parent_path)
            .and_then(|p| p.entry(old))
            .ok_or("the field moved")?;
        if entry.value.as_map().is_some() || entry.value.as_seq().is_some() {
            return Err(format!("`{}` is not a scalar", FieldPath(path.to_vec())));
        }
        let original = self.source.first_char(&entry.value);
        let original = original.filter(|c| matches!(c, '\'' | '"'));
        self.edits.push(TextEdit {
            start: self.source.byte(entry.key_span.start),
            end: self.source.entry_end(entry),
            text: format!("{}: {}", key_text(key), scalar(value, original)),
        });
        Ok(())
    }

    /// Insertions at one offset become one edit; at the end of a file without a final newline,
    /// the edit starts with one.
    fn merge_insertions(&mut self) {
        let mut merged: Vec<TextEdit> = Vec::new();
        for edit in std::mem::take(&mut self.edits) {
            match merged
                .iter_mut()
                .find(|m| m.start == m.end && edit.start == edit.end && m.start == edit.start)
            {
                Some(existing) => existing.text.push_str(&edit.text),
                None => merged.push(edit),
            }
        }
        for edit in &mut merged {
            let at_unterminated_end = edit.start == edit.end
                && edit.start == self.source.text.len()
                && !self.source.text.is_empty()
                && !self.source.text.ends_with('\n')
                && edit.text.ends_with(self.source.newline);
            if at_unterminated_end {
                edit.text.insert_str(0, self.source.newline);
                edit.text
                    .truncate(edit.text.len() - self.source.newline.len());
            }
        }
        self.edits = merged;
    }

    fn insert(&mut self, map_path: &[Segment], keys: &Map<String, Value>) -> Result<(), String> {
        let map = node_at(self.root, map_path).ok_or("the mapping moved")?;
        let entries = map.as_map().ok_or("not a mapping")?;
        if self.source.is_flow(map) {
            let pairs: Vec<String> = keys
                .iter()
                .map(|(k, v)| format!("{}: {}", key_text(k), flow(v)))
                .collect();
            let (at, text) = match entries.last() {
                Some(last) => (
                    self.source.entry_end(last),
                    format!(", {}", pairs.join(", ")),
                ),
                // `{}`: write inside the braces.
                None => (self.source.byte(map.span.start) + 1, pairs.join(", ")),
            };
            self.edits.push(TextEdit {
                start: at,
                end: at,
                text,
            });
            return Ok(());
        }
        let first = entries.first().ok_or("an empty block mapping")?;
        let key_start = self.source.byte(first.key_span.start);
        let line_start = self.source.line_start(key_start);
        let indent = &self.source.text[line_start..key_start];
        let indent = if indent.trim().is_empty() || indent.trim() == "-" {
            " ".repeat(indent.chars().count())
        } else {
            return Err("the mapping's indentation cannot be read".to_owned());
        };
        let end = self.source.end(map);
        let rest_end = self.source.next_line(end);
        let rest = self.source.text[end..rest_end].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Err("the mapping shares its last line with other content".to_owned());
        }
        let mut text = String::new();
        let yaml = crate::yaml::emit::to_yaml(&Value::Object(keys.clone()));
        for line in yaml.lines() {
            if !line.is_empty() {
                text.push_str(&indent);
            }
            text.push_str(line);
            text.push('\n');
        }
        self.edits.push(TextEdit {
            start: rest_end,
            end: rest_end,
            text: self.source.lines(&text),
        });
        Ok(())
    }
}

/// The text edits that perform `actions` on the object at `root` of `text`. Fails (with the
/// reason) when an edit would touch an anchored node used elsewhere, or when the layout is one
/// kvlint does not edit.
pub fn plan_edits(text: &str, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, String> {
    EditableText::new(text).plan(root, actions)
}

/// A file prepared once for the edits of all its objects: planning an object's edits then
/// costs time in the object's size, not the file's.
pub(crate) struct EditableText<'a> {
    source: Source<'a>,
}

impl<'a> EditableText<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            source: Source::new(text),
        }
    }

    /// `plan_edits` for the object at `root` of this text.
    pub(crate) fn plan(&self, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, String> {
        plan_in(&self.source, root, actions)
    }
}

fn plan_in(source: &Source<'_>, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, String> {
    let mut changes = Changes::default();
    for action in actions {
        changes.add(root, action)?;
    }
    changes.collapse(root);
    for path in changes
        .scalars
        .keys()
        .chain(changes.inserts.keys())
        .chain(changes.renames.keys())
    {
        if changes.removals.iter().any(|r| path.starts_with(r)) {
            return Err(format!(
                "`{}` is both removed and changed",
                FieldPath(path.clone())
            ));
        }
    }
    let mut planner = Planner {
        source,
        root,
        edits: Vec::new(),
    };
    let regions = aliased_regions(planner.source, root);
    for path in changes
        .removals
        .iter()
        .chain(changes.scalars.keys())
        .chain(changes.inserts.keys())
        .chain(changes.renames.keys())
    {
        check_path(planner.source, root, path, &regions)?;
    }
    for path in &changes.removals {
        planner.remove(path)?;
    }
    for (path, value) in &changes.scalars {
        planner.replace_scalar(path, value)?;
    }
    for (path, (key, value)) in &changes.renames {
        planner.rename(path, key, value)?;
    }
    // Mappings that end on the same line take their new keys innermost first, so that each
    // key lands after the deeper content it must not join.
    let mut inserts: Vec<_> = changes.inserts.iter().collect();
    inserts.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    for (path, keys) in inserts {
        planner.insert(path, keys)?;
    }
    planner.merge_insertions();
    for edit in &planner.edits {
        let touches = |(start, end): &(usize, usize)| {
            if edit.start == edit.end {
                *start < edit.start && edit.start <= planner.source.next_line(*end)
            } else {
                edit.start < *end && *start < edit.end
            }
        };
        if regions.iter().any(touches) {
            return Err(
                "the edit touches an anchor that is used elsewhere (edit it by hand)".to_owned(),
            );
        }
    }
    Ok(planner.edits)
}

/// Applies non-overlapping edits, back to front; insertions at one offset keep their order.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> Result<String, String> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    for pair in sorted.windows(2) {
        if pair[0].end > pair[1].start {
            return Err("two fixes edit the same text".to_owned());
        }
    }
    let mut out = text.to_owned();
    for edit in sorted.iter().rev() {
        out.replace_range(edit.start..edit.end, &edit.text);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};

    fn fix(text: &str, actions: &[Action]) -> Result<String, String> {
        let docs = parse_stream(text, Limits::default());
        let root = &docs[0].as_ref().unwrap().root;
        let edits = plan_edits(text, root, actions)?;
        apply_edits(text, &edits)
    }

    /// The definition the index replaces: `*name` followed by whitespace, `,`, `]`, `}` or the
    /// end, searched in the whole text.
    fn aliased_by_search(text: &str, name: &str) -> bool {
        let needle = format!("*{name}");
        text.match_indices(&needle).any(|(at, _)| {
            text[at + needle.len()..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
        })
    }

    #[test]
    fn the_alias_index_agrees_with_a_search_of_the_text() {
        let texts = [
            "a: &x 1\nb: *x\n",
            "a: &x 1\nb: *xy\n",
            "a: [*x, *y]\nb: {k: *z}",
            "a: *x[1]\n",
            "a: p*x\n",
            "a: *a*b\n",
            "a: **x\n",
            "a: *é\u{a0}b",
            "*x",
            "",
        ];
        let names = ["x", "y", "z", "xy", "a", "b", "a*b", "*x", "é", "q"];
        for text in texts {
            let aliases = Aliases::new(text);
            for name in names {
                assert_eq!(
                    aliases.contains(name),
                    aliased_by_search(text, name),
                    "{text:?} {name:?}"
                );
            }
        }
    }

    fn remove(path: &str) -> Action {
        Action::Remove(FieldPath::parse(path))
    }

    fn set(path: &str, value: Value) -> Action {
        Action::Set(FieldPath::parse(path), value)
    }

    #[test]
    fn removes_whole_lines_and_emptied_parents() {
        let text = "metadata:\n  name: a # keep\n  uid: x\n  annotations:\n    k: v\nstatus:\n  ready: true\nspec: {}\n";
        let out = fix(
            text,
            &[
                remove("metadata.uid"),
                remove("metadata.annotations.k"),
                remove("status"),
            ],
        )
        .unwrap();
        assert_eq!(out, "metadata:\n  name: a # keep\nspec: {}\n");
    }

    #[test]
    fn removes_from_flow_mappings() {
        let text = "spec: {instancetype: {name: u1, revisionName: r1}, b: 1}\n";
        let out = fix(text, &[remove("spec.instancetype.revisionName")]).unwrap();
        assert_eq!(out, "spec: {instancetype: {name: u1}, b: 1}\n");
        let out = fix(text, &[remove("spec.instancetype")]).unwrap();
        assert_eq!(out, "spec: {b: 1}\n");
    }

    #[test]
    fn inserts_with_sibling_indentation_and_crlf() {
        let text = "spec:\r\n    template:\r\n        spec:\r\n            domain: {}\r\n";
        let out = fix(
            text,
            &[set(
                "spec.template.spec.architecture",
                Value::String("amd64".into()),
            )],
        )
        .unwrap();
        assert_eq!(
            out,
            "spec:\r\n    template:\r\n        spec:\r\n            domain: {}\r\n            architecture: amd64\r\n"
        );
    }

    #[test]
    fn replaces_a_matcher_keeping_its_place() {
        let text = "spec:\n  instancetype:\n    inferFromVolume: root\n  running: true\n";
        let out = fix(
            text,
            &[set(
                "spec.instancetype",
                serde_json::json!({"name": "u1.small", "kind": "virtualmachineclusterinstancetype"}),
            )],
        )
        .unwrap();
        assert_eq!(
            out,
            "spec:\n  instancetype:\n    name: u1.small\n    kind: virtualmachineclusterinstancetype\n  running: true\n"
        );
    }

    #[test]
    fn keeps_quoting_style_of_scalars() {
        let text = "a:\n  memory: '1024Mi'\n  cpu: 2\n";
        let out = fix(
            text,
            &[
                set("a.memory", Value::String("1Gi".into())),
                set("a.cpu", Value::String("2".into())),
            ],
        )
        .unwrap();
        assert_eq!(out, "a:\n  memory: '1Gi'\n  cpu: \"2\"\n");
    }

    #[test]
    fn refuses_edits_inside_used_anchors() {
        let text = "base: &b\n  uid: x\n  name: n\nmetadata: *b\n";
        let err = fix(text, &[remove("metadata.uid")]).unwrap_err();
        assert!(err.contains("anchor"), "{err}");
    }

    #[test]
    fn a_one_item_sequence_is_not_an_alias() {
        let text = "spec:\n  items:\n  - name: a\n    x: {}\n  other: 1\n";
        assert_eq!(
            fix(text, &[set("spec.added", Value::Bool(true))]).unwrap(),
            "spec:\n  items:\n  - name: a\n    x: {}\n  other: 1\n  added: true\n"
        );
    }

    #[test]
    fn refuses_edits_through_aliases_and_merge_keys() {
        let text = "base: &b\n  x: 1\nvm:\n  <<: *b\n  y: 2\nother: *b\n";
        let err = fix(text, &[set("vm.x", Value::from(3))]).unwrap_err();
        assert!(err.contains("alias"), "{err}");
        let err = fix(text, &[set("other.x", Value::from(3))]).unwrap_err();
        assert!(err.contains("alias"), "{err}");
        let err = fix(text, &[set("base.z", Value::from(3))]).unwrap_err();
        assert!(err.contains("anchor"), "{err}");
        // An anchor nobody uses is ordinary text.
        let text = "vm: &lonely\n  x: 1\n\nnext: 1\n";
        assert_eq!(
            fix(text, &[set("vm.z", Value::from(2))]).unwrap(),
            "vm: &lonely\n  x: 1\n  z: 2\n\nnext: 1\n"
        );
    }

    #[test]
    fn first_key_of_a_sequence_item() {
        let text = "items:\n  - a: 1\n    b: 2\n";
        assert_eq!(
            fix(text, &[remove("items[0].a")]).unwrap(),
            "items:\n  - b: 2\n"
        );
    }
}
