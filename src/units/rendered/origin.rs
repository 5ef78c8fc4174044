//! The origin annotations kustomize writes on each document of a build, and the written
//! document a rendered one came from.

use crate::units::wrapper::{ORIGIN_ANNOTATION, TRANSFORMATIONS_ANNOTATION};
use crate::yaml::{self, Limits, Mapping, Node, Span, Value};

pub(super) fn first_line() -> Span {
    let pos = yaml::Pos {
        line: 1,
        column: 1,
        index: 0,
    };
    Span {
        start: pos,
        end: yaml::Pos { column: 2, ..pos },
    }
}

/// What an origin annotation says.
pub(super) struct Origin {
    pub(super) path: Option<String>,
    pub(super) configured_in: Option<String>,
}

pub(super) fn annotations(node: &Node) -> Option<&Node> {
    node.get("metadata")?.get("annotations")
}

pub(super) fn origin_of(node: &Node) -> Option<Origin> {
    let text = annotations(node)?.get(ORIGIN_ANNOTATION)?.as_str()?;
    let origin = yaml::parse_stream(text, Limits::default())
        .into_iter()
        .next()?
        .ok()?
        .root;
    Some(Origin {
        path: origin.get("path").and_then(Node::as_str).map(str::to_owned),
        configured_in: origin
            .get("configuredIn")
            .and_then(Node::as_str)
            .map(str::to_owned),
    })
}

/// Removes the annotations the wrapper asked for (the unit's own build keeps those it asks
/// for itself), and the `annotations` map when nothing else is left in it.
pub(super) fn strip_annotations(node: &mut Node, origin: bool, transformations: bool) {
    let Value::Map(entries) = &mut node.value else {
        return;
    };
    let Some(metadata) = entries.value_mut("metadata") else {
        return;
    };
    let Value::Map(metadata) = &mut metadata.value else {
        return;
    };
    let Some(annotations) = metadata.value_mut("annotations") else {
        return;
    };
    let Value::Map(map) = &mut annotations.value else {
        return;
    };
    map.retain(|entry| {
        !(origin && entry.key == ORIGIN_ANNOTATION
            || transformations && entry.key == TRANSFORMATIONS_ANNOTATION)
    });
    if map.is_empty() {
        metadata.retain(|entry| entry.key != "annotations");
    }
}

/// The document of the origin file the rendered object came from: the one whose name the
/// rendered name contains (Kustomize adds prefixes and suffixes), the longest such name first,
/// of the same kind when one is, else of any kind (a patch can replace `/kind`, as
/// common-instancetypes does to make namespaced types of its cluster-wide ones); else the only
/// document of the rendered kind, else the file's only document. The items of a `List` count
/// as documents.
pub(super) fn matching_document<'a>(documents: &'a [Node], rendered: &Node) -> Option<&'a Node> {
    let documents: Vec<&'a Node> = documents.iter().flat_map(list_items).collect();
    let kind = rendered.get("kind").and_then(Node::as_str);
    let name = name_of(rendered);
    let best_named = |candidates: &mut dyn Iterator<Item = &'a Node>| {
        candidates
            .filter(|doc| {
                let written = name_of(doc);
                !written.is_empty() && name.contains(written)
            })
            .max_by_key(|doc| name_of(doc).len())
    };
    let same_kind = |doc: &&'a Node| doc.get("kind").and_then(Node::as_str) == kind;
    best_named(&mut documents.iter().copied().filter(same_kind))
        .or_else(|| best_named(&mut documents.iter().copied()))
        .or_else(|| only(documents.iter().copied().filter(same_kind)))
        .or_else(|| only(documents.iter().copied()))
}

/// The objects a document holds: the items of a `List` (`v1/List`, `VirtualMachineList`...),
/// which Kustomize reads as separate resources, else the document itself.
pub(super) fn list_items(document: &Node) -> Vec<&Node> {
    let is_list = document
        .get("kind")
        .and_then(Node::as_str)
        .is_some_and(|kind| kind.ends_with("List"));
    match document.get("items").and_then(Node::as_seq) {
        Some(items) if is_list => items.iter().collect(),
        _ => vec![document],
    }
}

pub(super) fn name_of(document: &Node) -> &str {
    document
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or_default()
}

/// The single item of `items`, if there is exactly one.
pub(super) fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Gives every node of `node` the position of the same node in `written`, or, for a node the
/// build added, the position its nearest written parent is reported at (`anchor`).
pub(super) fn remap(node: &mut Node, written: Option<&Node>, anchor: Span) {
    node.span = written.map_or(anchor, |w| w.span);
    match &mut node.value {
        Value::Map(map) => {
            let entries = std::mem::take(map).into_vec();
            let entries = entries
                .into_iter()
                .map(|mut entry| {
                    let found = written.and_then(|w| w.entry(&entry.key));
                    entry.key_span = found.map_or(anchor, |e| e.key_span);
                    let child_anchor = found.map_or(anchor, |e| e.key_span);
                    remap(&mut entry.value, found.map(|e| &e.value), child_anchor);
                    entry
                })
                .collect();
            *map = Mapping::new(entries);
        }
        Value::Seq(items) => {
            let written_items = written.and_then(Node::as_seq).unwrap_or(&[]);
            for (i, item) in items.iter_mut().enumerate() {
                let found = written_items.get(i);
                let child_anchor = found.map_or(anchor, |item| {
                    item.as_map()
                        .and_then(|entries| entries.first())
                        .map_or(item.span, |entry| entry.key_span)
                });
                remap(item, found, child_anchor);
            }
        }
        _ => {}
    }
}

pub(super) fn metadata_text(node: &Node, key: &str) -> Option<String> {
    node.get("metadata")?.get(key)?.as_str().map(str::to_owned)
}

/// The kustomization files whose transformers ran over the object, innermost first, as the
/// transformations annotation lists them (relative to the wrapper).
pub(super) fn configured_in(node: &Node) -> Vec<String> {
    let Some(text) = annotations(node)
        .and_then(|a| a.get(TRANSFORMATIONS_ANNOTATION))
        .and_then(Node::as_str)
    else {
        return Vec::new();
    };
    let Some(Ok(doc)) = yaml::parse_stream(text, Limits::default())
        .into_iter()
        .next()
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for step in doc.root.as_seq().unwrap_or(&[]) {
        if let Some(path) = step.get("configuredIn").and_then(Node::as_str)
            && !out.iter().any(|seen| seen == path)
        {
            out.push(path.to_owned());
        }
    }
    out
}
