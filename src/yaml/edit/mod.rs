//! Field-level actions → minimal text edits of the source, so that comments, key order, quoting
//! and indentation survive.

use serde_json::Value;

use crate::yaml::{FieldPath, Node};

pub use refusal::Refusal;

use changes::Changes;
use planner::Planner;
use source::{Source, aliased_regions, check_path};

mod changes;
mod planner;
mod refusal;
mod source;

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

/// The text edits that perform `actions` on the object at `root` of `text`. Fails (with the
/// reason) when an edit would touch an anchored node used elsewhere, or when the layout is one
/// kvlint does not edit.
pub fn plan_edits(text: &str, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, Refusal> {
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
    pub(crate) fn plan(&self, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, Refusal> {
        plan_in(&self.source, root, actions)
    }
}

fn plan_in(source: &Source<'_>, root: &Node, actions: &[Action]) -> Result<Vec<TextEdit>, Refusal> {
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
            return Err(Refusal::RemovedAndChanged(FieldPath(path.clone())));
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
            return Err(Refusal::TouchesAnchor);
        }
    }
    Ok(planner.edits)
}

/// Applies non-overlapping edits, back to front; insertions at one offset keep their order.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> Result<String, Refusal> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    for pair in sorted.windows(2) {
        if pair[0].end > pair[1].start {
            return Err(Refusal::Overlap);
        }
    }
    let mut out = text.to_owned();
    for edit in sorted.iter().rev() {
        out.replace_range(edit.start..edit.end, &edit.text);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
