//! The text edits that perform an object's changes on its source.

use serde_json::{Map, Value};

use super::changes::{flow, key_text, scalar};
use super::source::{Source, children_count, node_at};
use super::{Refusal, TextEdit};
use crate::yaml::{FieldPath, Node, Segment};

pub(super) struct Planner<'a, 's> {
    pub(super) source: &'a Source<'s>,
    pub(super) root: &'a Node,
    pub(super) edits: Vec<TextEdit>,
}

impl Planner<'_, '_> {
    pub(super) fn entry_span(&self, parent: &Node, index: usize) -> (usize, usize) {
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

    pub(super) fn remove(&mut self, path: &[Segment]) -> Result<(), Refusal> {
        let shown = || FieldPath(path.to_vec());
        let Some((last, parent_path)) = path.split_last() else {
            return Err(Refusal::WholeObject);
        };
        let parent = node_at(self.root, parent_path).ok_or_else(|| Refusal::Moved(shown()))?;
        let index = match (last, parent.as_map(), parent.as_seq()) {
            (Segment::Key(key), Some(entries), _) => entries.iter().position(|e| &e.key == key),
            (Segment::Index(i), _, Some(items)) if *i < items.len() => Some(*i),
            _ => None,
        }
        .ok_or_else(|| Refusal::NotThere(shown()))?;
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
                return Err(Refusal::UnexpectedLayout(shown()));
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
            return Err(Refusal::SharesLine(shown()));
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
        Err(Refusal::UnexpectedLayout(shown()))
    }

    pub(super) fn replace_scalar(
        &mut self,
        path: &[Segment],
        value: &Value,
    ) -> Result<(), Refusal> {
        let node = node_at(self.root, path).ok_or(Refusal::FieldMoved)?;
        let original = self.source.first_char(node);
        if matches!(original, Some('|' | '>' | '&' | '!' | '*')) {
            return Err(Refusal::Style(FieldPath(path.to_vec())));
        }
        self.edits.push(TextEdit {
            start: self.source.byte(node.span.start),
            end: self.source.end(node),
            text: scalar(value, original),
        });
        Ok(())
    }

    pub(super) fn rename(
        &mut self,
        path: &[Segment],
        key: &str,
        value: &Value,
    ) -> Result<(), Refusal> {
        let Some((Segment::Key(old), parent_path)) = path.split_last() else {
            return Err(Refusal::NotAKey);
        };
        let entry = node_at(self.root, parent_path)
            .and_then(|p| p.entry(old))
            .ok_or(Refusal::FieldMoved)?;
        if entry.value.as_map().is_some() || entry.value.as_seq().is_some() {
            return Err(Refusal::NotAScalar(FieldPath(path.to_vec())));
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
    pub(super) fn merge_insertions(&mut self) {
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

    pub(super) fn insert(
        &mut self,
        map_path: &[Segment],
        keys: &Map<String, Value>,
    ) -> Result<(), Refusal> {
        let map = node_at(self.root, map_path).ok_or(Refusal::MappingMoved)?;
        let entries = map.as_map().ok_or(Refusal::InsertIntoNonMapping)?;
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
        let first = entries.first().ok_or(Refusal::EmptyBlockMapping)?;
        let key_start = self.source.byte(first.key_span.start);
        let line_start = self.source.line_start(key_start);
        let indent = &self.source.text[line_start..key_start];
        let indent = if indent.trim().is_empty() || indent.trim() == "-" {
            " ".repeat(indent.chars().count())
        } else {
            return Err(Refusal::UnreadableIndentation);
        };
        let end = self.source.end(map);
        let rest_end = self.source.next_line(end);
        let rest = self.source.text[end..rest_end].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return Err(Refusal::MappingSharesLastLine);
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
