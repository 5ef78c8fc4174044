//! The patches of a kustomization: strategic-merge patches (files and inline) and JSON 6902
//! operations (`patches[]`, `patchesJson6902`), searched for the one that wrote the field.

use std::sync::Arc;

use serde_json::Value as Json;

use super::{Found, Layer, LazyOuter, Mechanism, PatchFile, Search, entry_span, value_at};
use crate::yaml::{FieldPath, Limits, Node, Segment, Span, Value};

impl Search<'_, '_> {
    pub(super) fn patches_strategic_merge(
        &self,
        layer: &Layer<'_>,
        outer: &LazyOuter<'_>,
    ) -> Option<Found> {
        Self::list(layer, "patchesStrategicMerge")
            .iter()
            .rev()
            .find_map(|item| {
                let (patch, inline) = self.load(layer, outer, item)?;
                let mechanism = if inline {
                    Mechanism::StrategicMergeInline
                } else {
                    Mechanism::StrategicMergeFile
                };
                patch.documents.iter().rev().find_map(|document| {
                    let span = self
                        .identity
                        .named_by(document)
                        .then(|| self.strategic_merge(document))??;
                    Some(Found {
                        file: Arc::clone(&patch.file),
                        span,
                        mechanism,
                    })
                })
            })
    }

    /// `patches[]`: each entry is a strategic-merge patch or a JSON 6902 patch, decided as
    /// Kustomize's PatchTransformer does: a list of operations is JSON 6902, documents of
    /// objects are strategic-merge patches.
    pub(super) fn patches(&self, layer: &Layer<'_>, outer: &LazyOuter<'_>) -> Option<Found> {
        Self::list(layer, "patches").iter().rev().find_map(|entry| {
            let (patch, inline) = match (entry.get("patch"), entry.get("path")) {
                (Some(text), None) => (Self::inline(layer, outer, text)?, true),
                (None, Some(path)) => (self.file(layer, path.as_str()?)?, false),
                _ => return None,
            };
            let target = entry.get("target");
            if patch.documents.first()?.as_seq().is_some() {
                let mechanism = if inline {
                    Mechanism::Json6902Inline
                } else {
                    Mechanism::Json6902File
                };
                // Kustomize applies a JSON 6902 patch only with a target.
                if !target.is_some_and(|t| self.identity.selected_by(t)) {
                    return None;
                }
                let span = self.json6902(patch.documents.first()?)?;
                return Some(Found {
                    file: patch.file,
                    span,
                    mechanism,
                });
            }
            let mechanism = if inline {
                Mechanism::StrategicMergeInline
            } else {
                Mechanism::StrategicMergeFile
            };
            patch.documents.iter().rev().find_map(|document| {
                let selected = match target {
                    Some(target) => self.identity.selected_by(target),
                    None => self.identity.named_by(document),
                };
                let span = selected.then(|| self.strategic_merge(document))??;
                Some(Found {
                    file: Arc::clone(&patch.file),
                    span,
                    mechanism,
                })
            })
        })
    }

    pub(super) fn patches_json6902(
        &self,
        layer: &Layer<'_>,
        outer: &LazyOuter<'_>,
    ) -> Option<Found> {
        Self::list(layer, "patchesJson6902")
            .iter()
            .rev()
            .find_map(|entry| {
                if !entry
                    .get("target")
                    .is_some_and(|t| self.identity.selected_by(t))
                {
                    return None;
                }
                let patch = match (entry.get("patch"), entry.get("path")) {
                    (Some(text), None) => Self::inline(layer, outer, text)?,
                    (None, Some(path)) => self.file(layer, path.as_str()?)?,
                    _ => return None,
                };
                let span = self.json6902(patch.documents.first()?)?;
                Some(Found {
                    file: patch.file,
                    span,
                    mechanism: Mechanism::PatchesJson6902,
                })
            })
    }

    /// A `patchesStrategicMerge` item: a file path, or (older kustomizations) the patch itself.
    fn load(
        &self,
        layer: &Layer<'_>,
        outer: &LazyOuter<'_>,
        item: &Node,
    ) -> Option<(PatchFile, bool)> {
        let text = item.as_str()?;
        if text.contains('\n') || text.trim_start().starts_with(['{', '[']) {
            return Some((Self::inline(layer, outer, item)?, true));
        }
        Some((self.file(layer, text)?, false))
    }

    fn inline(layer: &Layer<'_>, outer: &LazyOuter<'_>, text: &Node) -> Option<PatchFile> {
        let embedded = outer.get().parse(text, Limits::default())?;
        let documents: Vec<Node> = embedded
            .documents
            .into_iter()
            .filter_map(Result::ok)
            .map(|document| document.root)
            .collect();
        Some(PatchFile {
            file: Arc::clone(layer.file),
            documents: documents.into(),
        })
    }

    fn file(&self, layer: &Layer<'_>, path: &str) -> Option<PatchFile> {
        (self.read_patch)(&relative_to(layer.file, path))
    }

    /// Where a strategic-merge patch document sets the field to its rendered value (or to
    /// null, which deletes it, when the field is absent).
    fn strategic_merge(&self, document: &Node) -> Option<Span> {
        let mut node = document;
        let mut span = document.span;
        for (depth, segment) in self.path.0.iter().enumerate() {
            match segment {
                Segment::Key(key) => {
                    let entry = node.entry(key)?;
                    span = entry_span(entry);
                    node = &entry.value;
                }
                Segment::Index(i) => {
                    let items = node.as_seq()?;
                    let prefix = FieldPath(self.path.0[..depth].to_vec());
                    let item = self.list_item(items, &prefix, *i)?;
                    span = item.span;
                    node = item;
                }
            }
        }
        let written = match self.value {
            Some(value) => node.to_json() == *value,
            None => matches!(node.value, Value::Null),
        };
        written.then_some(span)
    }

    /// The item of a patch list that became item `index` of the rendered list at `prefix`:
    /// the same position when the patch's list is the whole rendered list (a list the patch
    /// replaced, units.md §1.5), else the item with the same `name`. Positions alone say
    /// nothing of a merged list.
    fn list_item<'n>(
        &self,
        items: &'n [Node],
        prefix: &FieldPath,
        index: usize,
    ) -> Option<&'n Node> {
        let rendered = value_at(self.subject.rendered, prefix)?.as_array()?;
        let patch_list = Json::Array(items.iter().map(Node::to_json).collect());
        if patch_list.as_array() == Some(rendered) {
            return items.get(index);
        }
        let name = rendered.get(index)?.get("name")?.as_str()?;
        items
            .iter()
            .find(|item| item.get("name").and_then(Node::as_str) == Some(name))
    }

    /// The last operation of a JSON 6902 patch that wrote the field with its rendered value
    /// (at its path, or inside the value it wrote at a parent), or removed it.
    fn json6902(&self, operations: &Node) -> Option<Span> {
        operations.as_seq()?.iter().rev().find_map(|operation| {
            let op = operation.get("op").and_then(Node::as_str)?;
            let path_entry = operation.entry("path")?;
            let pointer = parse_pointer(path_entry.value.as_str()?)?;
            let depth = self.covered_by(&pointer)?;
            match (op, self.value) {
                ("add" | "replace", Some(value)) => {
                    let written = operation.entry("value")?;
                    let rest = FieldPath(self.path.0[depth..].to_vec());
                    if rest.is_empty() {
                        return (written.value.to_json() == *value).then(|| entry_span(written));
                    }
                    let (node, found) = written.value.lookup(&rest);
                    if !found || node.to_json() != *value {
                        return None;
                    }
                    Some(written.value.lookup_entry_span(&rest).0)
                }
                // A copied or moved value came from elsewhere in the object: the operation is
                // the writer. A removal explains an absent field.
                ("copy" | "move", Some(_)) | ("remove", None) => Some(entry_span(path_entry)),
                _ => None,
            }
        })
    }

    /// How many segments of the field path a pointer covers, when it is the path or one of
    /// its parents (`-`, the append position, stands for any index).
    fn covered_by(&self, pointer: &[String]) -> Option<usize> {
        if pointer.len() > self.path.0.len() {
            return None;
        }
        let matches = pointer
            .iter()
            .zip(&self.path.0)
            .all(|(token, segment)| match segment {
                Segment::Key(key) => token == key,
                Segment::Index(i) => token == "-" || token.parse::<usize>().ok() == Some(*i),
            });
        matches.then_some(pointer.len())
    }
}

/// The tokens of an RFC 6901 pointer (`~1` is `/`, `~0` is `~`); `None` when it is not one.
pub(super) fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    pointer
        .strip_prefix('/')?
        .split('/')
        .map(|token| {
            let mut out = String::with_capacity(token.len());
            let mut chars = token.chars();
            while let Some(c) = chars.next() {
                if c != '~' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('0') => out.push('~'),
                    Some('1') => out.push('/'),
                    _ => return None,
                }
            }
            Some(out)
        })
        .collect()
}

/// `path` (relative to the directory of the kustomization `file`) as a repository-relative
/// path, `.` and `..` resolved lexically.
pub(super) fn relative_to(file: &str, path: &str) -> String {
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else {
                    parts.push("..");
                }
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}
