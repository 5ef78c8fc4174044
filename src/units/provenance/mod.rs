//! Which source line produced a field of a rendered object (docs/design/units.md §1.3).
//!
//! Kustomize records which kustomization files' transformers ran over an object, never which
//! one changed which field. This module finds the last writer itself: it walks the patches and
//! transformers of those kustomization files in reverse application order and keeps the first
//! one that selects the object and writes the field *with the rendered value*. The value check
//! is what makes loose selector matching safe and lets a later writer hide an earlier one.
//! Nothing here reads a file: patch files come through the caller's reader.

use std::cell::OnceCell;
use std::sync::Arc;

use serde_json::Value as Json;

use crate::diag::Location;
use crate::yaml::embedded::OuterText;
use crate::yaml::{Entry, FieldPath, Node, Segment, Span};

/// A kustomization file whose transformers ran over the object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layer<'a> {
    /// Repository-relative path of the kustomization file (`apps/web/overlays/dev/kustomization.yaml`).
    pub file: &'a Arc<str>,
    /// Its text, for the positions of inline patches.
    pub text: &'a str,
    /// Its parsed root.
    pub root: &'a Node,
}

/// A patch file's documents, as the caller's reader returns them.
#[derive(Clone, Debug)]
pub(crate) struct PatchFile {
    /// Repository-relative path, as findings name it.
    pub file: Arc<str>,
    /// Its parsed documents (the well-formed ones).
    pub documents: Arc<[Node]>,
}

/// Reads a patch file by repository-relative path (`None` when it cannot be read or parsed).
pub(crate) type ReadPatch<'r> = &'r dyn Fn(&str) -> Option<PatchFile>;

/// The rendered object a finding is about.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Subject<'a> {
    /// The whole rendered object, as JSON.
    pub rendered: &'a Json,
    /// `metadata.name` in the file the object came from, before any transformer.
    pub original_name: Option<&'a str>,
    /// `metadata.namespace` in that file, if it sets one.
    pub original_namespace: Option<&'a str>,
}

/// What wrote the field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mechanism {
    /// A strategic-merge patch in its own file (`patchesStrategicMerge` or `patches[].path`).
    StrategicMergeFile,
    /// A strategic-merge patch written in the kustomization (`patches[].patch`, or an inline
    /// `patchesStrategicMerge` item).
    StrategicMergeInline,
    /// A JSON 6902 operation of a `patches[].path` file.
    Json6902File,
    /// A JSON 6902 operation of an inline `patches[].patch`.
    Json6902Inline,
    /// A JSON 6902 operation of a `patchesJson6902` entry (its file or its inline `patch`).
    PatchesJson6902,
    NamePrefix,
    NameSuffix,
    Namespace,
    CommonLabels,
    /// A `labels[].pairs` entry.
    Labels,
    CommonAnnotations,
    Images,
}

/// Where a rendered field's value was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Attribution {
    /// The line that wrote it: the patch node, the JSON 6902 operation, the transformer's entry.
    pub location: Location,
    pub mechanism: Mechanism,
    /// The kustomization file that applied it.
    pub kustomization: Arc<str>,
}

/// The last patch or transformer of `layers` (innermost first, as Kustomize applied them)
/// that wrote `path` of the subject with its rendered value, or that removed it when the
/// rendered object has no such field. `None` when none did: the value is the origin file's.
pub(crate) fn attribute(
    subject: &Subject<'_>,
    path: &FieldPath,
    layers: &[Layer<'_>],
    read_patch: ReadPatch<'_>,
) -> Option<Attribution> {
    let identity = Identity::of(subject, layers);
    let search = Search {
        subject,
        identity: &identity,
        path,
        value: value_at(subject.rendered, path),
        read_patch,
    };
    layers.iter().rev().find_map(|layer| search.layer(layer))
}

/// The names and namespaces the object had along the way, for matching patches loosely.
struct Identity<'a> {
    kind: &'a str,
    api_version: &'a str,
    names: Vec<String>,
    namespaces: Vec<String>,
}

impl<'a> Identity<'a> {
    fn of(subject: &Subject<'a>, layers: &[Layer<'_>]) -> Self {
        let text = |pointer: &str| subject.rendered.pointer(pointer).and_then(Json::as_str);
        let rendered_name = text("/metadata/name").unwrap_or_default();
        let affixes: Vec<(&str, &str)> = layers
            .iter()
            .map(|layer| {
                (
                    setting(layer.root, "namePrefix"),
                    setting(layer.root, "nameSuffix"),
                )
            })
            .collect();
        let original = subject
            .original_name
            .map_or_else(|| strip_affixes(rendered_name, &affixes), str::to_owned);
        let mut names = vec![original.clone()];
        let mut name = original;
        for (prefix, suffix) in &affixes {
            name = format!("{prefix}{name}{suffix}");
            names.push(name.clone());
        }
        names.push(rendered_name.to_owned());
        names.sort();
        names.dedup();
        let mut namespaces: Vec<String> = layers
            .iter()
            .map(|layer| setting(layer.root, "namespace").to_owned())
            .chain(subject.original_namespace.map(str::to_owned))
            .chain(text("/metadata/namespace").map(str::to_owned))
            .filter(|namespace| !namespace.is_empty())
            .collect();
        namespaces.sort();
        namespaces.dedup();
        Self {
            kind: text("/kind").unwrap_or_default(),
            api_version: text("/apiVersion").unwrap_or_default(),
            names,
            namespaces,
        }
    }

    fn group_version(&self) -> (&str, &str) {
        self.api_version
            .rsplit_once('/')
            .unwrap_or(("", self.api_version))
    }

    /// Whether a strategic-merge patch document without a `target` names the object: Kustomize
    /// matches its kind, apiVersion, name and namespace against every id the object had.
    fn named_by(&self, patch: &Node) -> bool {
        let field = |key: &str| patch.get(key).and_then(Node::as_str);
        let metadata = |key: &str| {
            patch
                .get("metadata")
                .and_then(|m| m.get(key))
                .and_then(Node::as_str)
        };
        field("kind") == Some(self.kind)
            && field("apiVersion").is_none_or(|v| v == self.api_version)
            && metadata("name").is_some_and(|name| self.names.iter().any(|n| n == name))
            && metadata("namespace")
                .is_none_or(|ns| ns == "default" || self.namespaces.iter().any(|n| n == ns))
    }

    /// Whether a `target` selector can select the object. Its fields are anchored regular
    /// expressions in Kustomize; a pattern with regex syntax is taken as matching (the value
    /// check decides), and label and annotation selectors are not evaluated for the same
    /// reason.
    fn selected_by(&self, target: &Node) -> bool {
        let (group, version) = self.group_version();
        let matches = |key: &str, candidates: &[&str]| {
            target
                .get(key)
                .and_then(Node::as_str)
                .is_none_or(|pattern| {
                    pattern.is_empty()
                        || pattern.contains(REGEX_SYNTAX)
                        || candidates.contains(&pattern)
                })
        };
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let namespaces: Vec<&str> = self.namespaces.iter().map(String::as_str).collect();
        matches("kind", &[self.kind])
            && matches("group", &[group])
            && matches("version", &[version])
            && matches("name", &names)
            && (matches("namespace", &namespaces) || matches("namespace", &["default"]))
    }
}

/// Characters that make a selector field a regular expression rather than a literal name.
const REGEX_SYNTAX: &[char] = &[
    '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$', '\\',
];

/// The name the object had in its file, when the caller does not know it: the rendered name
/// with each layer's prefix and suffix taken off, outermost first.
fn strip_affixes(rendered: &str, affixes: &[(&str, &str)]) -> String {
    let mut name = rendered;
    for (prefix, suffix) in affixes.iter().rev() {
        name = name.strip_prefix(prefix).unwrap_or(name);
        name = name.strip_suffix(suffix).unwrap_or(name);
    }
    name.to_owned()
}

/// A string setting of a kustomization (`namePrefix`, `namespace`), empty when unset.
fn setting<'n>(root: &'n Node, key: &str) -> &'n str {
    root.get(key).and_then(Node::as_str).unwrap_or_default()
}

/// The rendered value at `path`, `None` when the object has no such field.
fn value_at<'j>(rendered: &'j Json, path: &FieldPath) -> Option<&'j Json> {
    path.0
        .iter()
        .try_fold(rendered, |node, segment| match segment {
            Segment::Key(key) => node.as_object()?.get(key),
            Segment::Index(i) => node.as_array()?.get(*i),
        })
}

struct Search<'s, 'a> {
    subject: &'s Subject<'a>,
    identity: &'s Identity<'a>,
    path: &'s FieldPath,
    /// The rendered value at `path`; `None` when the field is absent.
    value: Option<&'s Json>,
    read_patch: ReadPatch<'s>,
}

/// Where a candidate was found, before it becomes an [`Attribution`].
struct Found {
    file: Arc<str>,
    span: Span,
    mechanism: Mechanism,
}

impl Search<'_, '_> {
    /// The last writer among one kustomization's patches and transformers, in the reverse of
    /// Kustomize's order (`configureBuiltinTransformers`): patchesStrategicMerge, patches,
    /// namespace, prefix, suffix, labels, annotations, patchesJson6902, replicas, images.
    fn layer(&self, layer: &Layer<'_>) -> Option<Attribution> {
        let outer = LazyOuter::new(layer.text);
        let found = self
            .images(layer)
            .or_else(|| self.patches_json6902(layer, &outer))
            .or_else(|| self.annotations(layer))
            .or_else(|| self.labels(layer))
            .or_else(|| self.name_affix(layer, "nameSuffix", Mechanism::NameSuffix))
            .or_else(|| self.name_affix(layer, "namePrefix", Mechanism::NamePrefix))
            .or_else(|| self.namespace(layer))
            .or_else(|| self.patches(layer, &outer))
            .or_else(|| self.patches_strategic_merge(layer, &outer))?;
        Some(Attribution {
            location: Location {
                file: found.file,
                span: found.span,
            },
            mechanism: found.mechanism,
            kustomization: Arc::clone(layer.file),
        })
    }

    fn in_layer(layer: &Layer<'_>, span: Span, mechanism: Mechanism) -> Found {
        Found {
            file: Arc::clone(layer.file),
            span,
            mechanism,
        }
    }

    fn list<'n>(layer: &Layer<'n>, key: &str) -> &'n [Node] {
        layer.root.get(key).and_then(Node::as_seq).unwrap_or(&[])
    }
}

/// A kustomization's text, indexed for its inline patches when the first one is read.
struct LazyOuter<'t> {
    text: &'t str,
    outer: OnceCell<OuterText<'t>>,
}

impl<'t> LazyOuter<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            outer: OnceCell::new(),
        }
    }

    fn get(&self) -> &OuterText<'t> {
        self.outer.get_or_init(|| OuterText::new(self.text))
    }
}

/// The whole `key: value` of a mapping entry.
fn entry_span(entry: &Entry) -> Span {
    Span {
        start: entry.key_span.start,
        end: entry.value.span.end.max(entry.key_span.end),
    }
}

#[cfg(test)]
mod kustomize_tests;
mod patches;
#[cfg(test)]
mod tests;
mod transformers;
