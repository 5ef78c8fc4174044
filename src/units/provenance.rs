//! Which source line produced a field of a rendered object (docs/design/units.md §1.3).
//!
//! Kustomize records which kustomization files' transformers ran over an object, never which
//! one changed which field. This module finds the last writer itself: it walks the patches and
//! transformers of those kustomization files in reverse application order and keeps the first
//! one that selects the object and writes the field *with the rendered value*. The value check
//! is what makes loose selector matching safe and lets a later writer hide an earlier one.
//! Nothing here reads a file: patch files come through the caller's reader.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::diag::Location;
use crate::yaml::embedded::OuterText;
use crate::yaml::{Entry, FieldPath, Limits, Node, Segment, Span, Value};

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
        let outer = OuterText::new(layer.text);
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

    fn patches_strategic_merge(&self, layer: &Layer<'_>, outer: &OuterText<'_>) -> Option<Found> {
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
    fn patches(&self, layer: &Layer<'_>, outer: &OuterText<'_>) -> Option<Found> {
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

    fn patches_json6902(&self, layer: &Layer<'_>, outer: &OuterText<'_>) -> Option<Found> {
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
        outer: &OuterText<'_>,
        item: &Node,
    ) -> Option<(PatchFile, bool)> {
        let text = item.as_str()?;
        if text.contains('\n') || text.trim_start().starts_with(['{', '[']) {
            return Some((Self::inline(layer, outer, item)?, true));
        }
        Some((self.file(layer, text)?, false))
    }

    fn inline(layer: &Layer<'_>, outer: &OuterText<'_>, text: &Node) -> Option<PatchFile> {
        let embedded = outer.parse(text, Limits::default())?;
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

    /// `namePrefix` / `nameSuffix` for `metadata.name`, when the rendered name carries it.
    fn name_affix(&self, layer: &Layer<'_>, key: &str, mechanism: Mechanism) -> Option<Found> {
        if self.path.0 != [key_segment("metadata"), key_segment("name")] {
            return None;
        }
        let entry = layer.root.entry(key)?;
        let affix = entry.value.as_str().filter(|affix| !affix.is_empty())?;
        let name = self.value?.as_str()?;
        let carries = match mechanism {
            Mechanism::NameSuffix => name.ends_with(affix),
            _ => name.starts_with(affix),
        };
        carries.then(|| Self::in_layer(layer, entry_span(entry), mechanism))
    }

    fn namespace(&self, layer: &Layer<'_>) -> Option<Found> {
        if self.path.0 != [key_segment("metadata"), key_segment("namespace")] {
            return None;
        }
        let entry = layer.root.entry("namespace")?;
        (entry.value.as_str()? == self.value?.as_str()?)
            .then(|| Self::in_layer(layer, entry_span(entry), Mechanism::Namespace))
    }

    /// The key of `metadata.<field>[key]` when that is the path.
    fn metadata_key(&self, field: &str) -> Option<&str> {
        match &self.path.0[..] {
            [Segment::Key(metadata), Segment::Key(f), Segment::Key(key)]
                if metadata == "metadata" && f == field =>
            {
                Some(key)
            }
            _ => None,
        }
    }

    /// The entry of a `key: value` map of the kustomization that sets the field's key to its
    /// rendered value.
    fn pair(&self, map: Option<&Node>, key: &str) -> Option<Span> {
        let entry = map?.entry(key)?;
        (Some(&entry.value.to_json()) == self.value).then(|| entry_span(entry))
    }

    fn labels(&self, layer: &Layer<'_>) -> Option<Found> {
        let key = self.metadata_key("labels")?;
        // LabelTransformer runs once for `commonLabels` and `labels` together; `labels` wins
        // a key both set.
        Self::list(layer, "labels")
            .iter()
            .rev()
            .find_map(|labels| self.pair(labels.get("pairs"), key))
            .map(|span| Self::in_layer(layer, span, Mechanism::Labels))
            .or_else(|| {
                self.pair(layer.root.get("commonLabels"), key)
                    .map(|span| Self::in_layer(layer, span, Mechanism::CommonLabels))
            })
    }

    fn annotations(&self, layer: &Layer<'_>) -> Option<Found> {
        let key = self.metadata_key("annotations")?;
        self.pair(layer.root.get("commonAnnotations"), key)
            .map(|span| Self::in_layer(layer, span, Mechanism::CommonAnnotations))
    }

    /// An `images` entry for a container's `image` field, when the rendered image is the
    /// entry's new name, tag or digest.
    fn images(&self, layer: &Layer<'_>) -> Option<Found> {
        let [
            ..,
            Segment::Key(list),
            Segment::Index(_),
            Segment::Key(field),
        ] = &self.path.0[..]
        else {
            return None;
        };
        if field != "image" || !matches!(list.as_str(), "containers" | "initContainers") {
            return None;
        }
        let image = self.value?.as_str()?;
        let (repository, version) = split_image(image);
        Self::list(layer, "images").iter().rev().find_map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Node::as_str);
            let name = text("name")?;
            let new_name = text("newName");
            let new_tag = text("newTag");
            let digest = text("digest");
            if new_name.is_none() && new_tag.is_none() && digest.is_none() {
                return None;
            }
            let writes = repository == new_name.unwrap_or(name)
                && new_tag.is_none_or(|tag| version == Some(tag))
                && digest.is_none_or(|digest| version == Some(digest));
            writes.then(|| Self::in_layer(layer, entry.span, Mechanism::Images))
        })
    }
}

fn key_segment(key: &str) -> Segment {
    Segment::Key(key.to_owned())
}

/// An image reference's repository and its tag or digest.
fn split_image(image: &str) -> (&str, Option<&str>) {
    if let Some((repository, digest)) = image.split_once('@') {
        return (repository, Some(digest));
    }
    match image.rsplit_once(':') {
        // A colon before the last slash is a registry port, not a tag.
        Some((repository, tag)) if !tag.contains('/') => (repository, Some(tag)),
        _ => (image, None),
    }
}

/// The whole `key: value` of a mapping entry.
fn entry_span(entry: &Entry) -> Span {
    Span {
        start: entry.key_span.start,
        end: entry.value.span.end.max(entry.key_span.end),
    }
}

/// The tokens of an RFC 6901 pointer (`~1` is `/`, `~0` is `~`); `None` when it is not one.
fn parse_pointer(pointer: &str) -> Option<Vec<String>> {
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
fn relative_to(file: &str, path: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_stream;

    /// A small repository: a base, a component, overlays using every patch form.
    const FILES: &[(&str, &str)] = &[
        (
            "apps/web/overlays/dev/kustomization.yaml",
            "\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: web-dev
namePrefix: dev-
resources:
  - ../../base
components:
  - ../../components/gpu
patches:
  - path: size.yaml
  - path: memory.yaml
    target:
      kind: VirtualMachine
      name: web
  - target:
      kind: VirtualMachine
    patch: |-
      - op: replace
        path: /spec/runStrategy
        value: Halted
      - op: remove
        path: /spec/template/spec/domain/devices/autoattachGraphicsDevice
commonLabels:
  app: web
  tier: frontend
commonAnnotations:
  owner: team-a
",
        ),
        (
            "apps/web/overlays/dev/size.yaml",
            "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Halted
  instancetype:
    name: u1.large
",
        ),
        (
            "apps/web/overlays/dev/memory.yaml",
            "\
- op: add
  path: /spec/template/spec/domain/memory
  value:
    guest: 4Gi
    hugepages:
      pageSize: 2Mi
",
        ),
        (
            "apps/web/components/gpu/kustomization.yaml",
            "\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
  - target:
      group: kubevirt.io
      kind: VirtualMachine
    patch: |
      - op: add
        path: /spec/template/spec/domain/devices/gpus/-
        value:
          name: gpu1
          deviceName: nvidia.com/GA102GL
",
        ),
        (
            "apps/web/overlays/prod/kustomization.yaml",
            "\
resources:
  - ../../base
patchesStrategicMerge:
  - disks.yaml
  - |-
    apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: web
    spec:
      runStrategy: Manual
patchesJson6902:
  - target:
      group: kubevirt.io
      version: v1
      kind: VirtualMachine
      name: web
    path: cpu.yaml
  - target: {version: v1, kind: VirtualMachine, name: web}
    patch: '[{\"op\": \"replace\", \"path\": \"/spec/runStrategy\", \"value\": \"Always\"}]'
patches:
  - patch: |-
      apiVersion: kubevirt.io/v1
      kind: VirtualMachine
      metadata:
        name: web
      spec:
        template:
          metadata:
            labels:
              size: big
  - patch: |-
      apiVersion: kubevirt.io/v1
      kind: VirtualMachine
      metadata:
        name: other
      spec:
        runStrategy: RerunOnFailure
",
        ),
        (
            "apps/web/overlays/prod/disks.yaml",
            "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        devices:
          disks:
            - name: root
              disk:
                bus: sata
            - name: extra
              disk:
                bus: virtio
",
        ),
        (
            "apps/web/overlays/prod/cpu.yaml",
            "\
- op: replace
  path: /spec/template/spec/domain/cpu/cores
  value: 4
",
        ),
        (
            "clusters/eu/kustomization.yaml",
            "\
namePrefix: eu-
nameSuffix: -a
namespace: eu-web
labels:
  - pairs:
      tier: backend
images:
  - name: app
    newName: registry.example/app
    newTag: v2
",
        ),
    ];

    fn text_of(file: &str) -> &'static str {
        FILES
            .iter()
            .find(|(path, _)| *path == file)
            .map_or_else(|| panic!("no file {file}"), |(_, text)| *text)
    }

    fn documents(text: &str) -> Vec<Node> {
        parse_stream(text, Limits::default())
            .into_iter()
            .map(|document| document.expect("valid YAML").root)
            .collect()
    }

    fn read_patch(path: &str) -> Option<PatchFile> {
        let text = FILES.iter().find(|(file, _)| *file == path)?.1;
        Some(PatchFile {
            file: path.into(),
            documents: documents(text).into(),
        })
    }

    /// Where `attribute` puts `path` of the rendered object: (file, line, column, mechanism).
    fn attribution(
        layers: &[&str],
        rendered: &str,
        original_name: Option<&str>,
        path: &str,
    ) -> Option<(String, u32, u32, Mechanism)> {
        let files: Vec<Arc<str>> = layers.iter().map(|&file| Arc::from(file)).collect();
        let roots: Vec<Node> = layers
            .iter()
            .map(|file| documents(text_of(file)).remove(0))
            .collect();
        let layers: Vec<Layer<'_>> = layers
            .iter()
            .zip(&files)
            .zip(&roots)
            .map(|((file, path), root)| Layer {
                file: path,
                text: text_of(file),
                root,
            })
            .collect();
        let rendered = documents(rendered).remove(0).to_json();
        let subject = Subject {
            rendered: &rendered,
            original_name,
            original_namespace: None,
        };
        let found = attribute(&subject, &FieldPath::parse(path), &layers, &read_patch)?;
        let start = found.location.span.start;
        Some((
            found.location.file.to_string(),
            start.line,
            start.column,
            found.mechanism,
        ))
    }

    const DEV: &[&str] = &[
        "apps/web/components/gpu/kustomization.yaml",
        "apps/web/overlays/dev/kustomization.yaml",
    ];

    /// The dev overlay's VM as `kustomize build` renders it.
    const DEV_VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: dev-web
  namespace: web-dev
  labels: {app: web, tier: frontend}
  annotations: {owner: team-a}
spec:
  runStrategy: Halted
  instancetype: {name: u1.large}
  template:
    spec:
      domain:
        memory: {guest: 4Gi, hugepages: {pageSize: 2Mi}}
        devices:
          disks: [{name: root, disk: {bus: virtio}}]
          gpus: [{name: gpu1, deviceName: nvidia.com/GA102GL}]
";

    const PROD: &[&str] = &["apps/web/overlays/prod/kustomization.yaml"];

    /// The prod overlay's VM: the disk list replaced by the patch's (units.md §1.5).
    const PROD_VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  template:
    metadata:
      labels: {size: big}
    spec:
      domain:
        cpu: {cores: 4}
        devices:
          disks:
            - {name: root, disk: {bus: sata}}
            - {name: extra, disk: {bus: virtio}}
";

    type Expected = Option<(&'static str, u32, u32, Mechanism)>;

    struct Case {
        name: &'static str,
        layers: &'static [&'static str],
        rendered: &'static str,
        original_name: Option<&'static str>,
        path: &'static str,
        expected: Expected,
    }

    const DEV_FILE: &str = "apps/web/overlays/dev/kustomization.yaml";
    const PROD_FILE: &str = "apps/web/overlays/prod/kustomization.yaml";

    #[test]
    fn each_mechanism_points_at_the_line_that_wrote_the_value() {
        let cases = [
            Case {
                name: "strategic-merge patch file, matched by the name before the prefix",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.instancetype.name",
                expected: Some((
                    "apps/web/overlays/dev/size.yaml",
                    8,
                    5,
                    Mechanism::StrategicMergeFile,
                )),
            },
            Case {
                name: "the original name unknown: found by taking the prefix off",
                layers: DEV,
                rendered: DEV_VM,
                original_name: None,
                path: "spec.instancetype.name",
                expected: Some((
                    "apps/web/overlays/dev/size.yaml",
                    8,
                    5,
                    Mechanism::StrategicMergeFile,
                )),
            },
            Case {
                name: "a later inline JSON 6902 operation hides the earlier patch file",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.runStrategy",
                expected: Some((DEV_FILE, 20, 9, Mechanism::Json6902Inline)),
            },
            Case {
                name: "a value no patch wrote is not attributed to a patch of the field",
                layers: DEV,
                rendered: &DEV_VM_MANUAL,
                original_name: Some("web"),
                path: "spec.runStrategy",
                expected: None,
            },
            Case {
                name: "a removal explains an absent field",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.autoattachGraphicsDevice",
                expected: Some((DEV_FILE, 22, 9, Mechanism::Json6902Inline)),
            },
            Case {
                name: "JSON 6902 file: a field inside the value the operation added",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.memory.hugepages.pageSize",
                expected: Some((
                    "apps/web/overlays/dev/memory.yaml",
                    6,
                    7,
                    Mechanism::Json6902File,
                )),
            },
            Case {
                name: "a component layer's inline operation appending to a list",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.gpus[0].deviceName",
                expected: Some((
                    "apps/web/components/gpu/kustomization.yaml",
                    12,
                    11,
                    Mechanism::Json6902Inline,
                )),
            },
            Case {
                name: "namePrefix",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "metadata.name",
                expected: Some((DEV_FILE, 4, 1, Mechanism::NamePrefix)),
            },
            Case {
                name: "namespace",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "metadata.namespace",
                expected: Some((DEV_FILE, 3, 1, Mechanism::Namespace)),
            },
            Case {
                name: "commonLabels",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "metadata.labels.tier",
                expected: Some((DEV_FILE, 25, 3, Mechanism::CommonLabels)),
            },
            Case {
                name: "commonAnnotations",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "metadata.annotations.owner",
                expected: Some((DEV_FILE, 27, 3, Mechanism::CommonAnnotations)),
            },
            Case {
                name: "a field from the base is not attributed",
                layers: DEV,
                rendered: DEV_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.disks[0].disk.bus",
                expected: None,
            },
            Case {
                name: "a list the strategic-merge patch replaced comes from the patch",
                layers: PROD,
                rendered: PROD_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.disks[1].disk.bus",
                expected: Some((
                    "apps/web/overlays/prod/disks.yaml",
                    16,
                    17,
                    Mechanism::StrategicMergeFile,
                )),
            },
            Case {
                name: "a merged list item is found by its name",
                layers: PROD,
                rendered: PROD_VM_MERGED,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.disks[1].disk.bus",
                expected: Some((
                    "apps/web/overlays/prod/disks.yaml",
                    13,
                    17,
                    Mechanism::StrategicMergeFile,
                )),
            },
            Case {
                name: "a merged list item the patch does not name is not attributed",
                layers: PROD,
                rendered: PROD_VM_MERGED,
                original_name: Some("web"),
                path: "spec.template.spec.domain.devices.disks[0].disk.bus",
                expected: None,
            },
            Case {
                name: "patchesJson6902 file",
                layers: PROD,
                rendered: PROD_VM,
                original_name: Some("web"),
                path: "spec.template.spec.domain.cpu.cores",
                expected: Some((
                    "apps/web/overlays/prod/cpu.yaml",
                    3,
                    3,
                    Mechanism::PatchesJson6902,
                )),
            },
            Case {
                name: "patchesJson6902 inline JSON, applied after every strategic-merge patch",
                layers: PROD,
                rendered: PROD_VM,
                original_name: Some("web"),
                path: "spec.runStrategy",
                expected: Some((PROD_FILE, 20, 61, Mechanism::PatchesJson6902)),
            },
            Case {
                name: "an inline patchesStrategicMerge item",
                layers: PROD,
                rendered: &PROD_VM_MANUAL,
                original_name: Some("web"),
                path: "spec.runStrategy",
                expected: Some((PROD_FILE, 11, 7, Mechanism::StrategicMergeInline)),
            },
            Case {
                name: "an inline strategic-merge patch of patches[]",
                layers: PROD,
                rendered: PROD_VM,
                original_name: Some("web"),
                path: "spec.template.metadata.labels.size",
                expected: Some((PROD_FILE, 31, 15, Mechanism::StrategicMergeInline)),
            },
            Case {
                name: "a patch naming another object is not chosen, value or not",
                layers: PROD,
                rendered: &PROD_VM_RERUN,
                original_name: Some("web"),
                path: "spec.runStrategy",
                expected: None,
            },
            Case {
                name: "the outermost prefix wins over the inner ones",
                layers: &[
                    "apps/web/overlays/dev/kustomization.yaml",
                    "clusters/eu/kustomization.yaml",
                ],
                rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a}\n",
                original_name: Some("web"),
                path: "metadata.name",
                expected: Some((
                    "clusters/eu/kustomization.yaml",
                    2,
                    1,
                    Mechanism::NameSuffix,
                )),
            },
            Case {
                name: "labels[].pairs, the outer layer's value",
                layers: &[
                    "apps/web/overlays/dev/kustomization.yaml",
                    "clusters/eu/kustomization.yaml",
                ],
                rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a, labels: {tier: backend}}\n",
                original_name: Some("web"),
                path: "metadata.labels.tier",
                expected: Some(("clusters/eu/kustomization.yaml", 6, 7, Mechanism::Labels)),
            },
            Case {
                name: "the inner layer's label when the outer one does not set it",
                layers: &[
                    "apps/web/overlays/dev/kustomization.yaml",
                    "clusters/eu/kustomization.yaml",
                ],
                rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a, labels: {app: web}}\n",
                original_name: Some("web"),
                path: "metadata.labels.app",
                expected: Some((DEV_FILE, 24, 3, Mechanism::CommonLabels)),
            },
            Case {
                name: "images",
                layers: &["clusters/eu/kustomization.yaml"],
                rendered: "\
kind: Deployment
metadata: {name: eu-app-a}
spec: {template: {spec: {containers: [{name: c, image: 'registry.example/app:v2'}]}}}
",
                original_name: Some("app"),
                path: "spec.template.spec.containers[0].image",
                expected: Some(("clusters/eu/kustomization.yaml", 8, 5, Mechanism::Images)),
            },
        ];
        for case in cases {
            let found = attribution(case.layers, case.rendered, case.original_name, case.path);
            let expected = case
                .expected
                .map(|(file, line, column, mechanism)| (file.to_owned(), line, column, mechanism));
            assert_eq!(found, expected, "{}", case.name);
        }
    }

    static DEV_VM_MANUAL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| DEV_VM.replace("runStrategy: Halted", "runStrategy: Manual"));
    static PROD_VM_MANUAL: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| PROD_VM.replace("runStrategy: Always", "runStrategy: Manual"));
    static PROD_VM_RERUN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        PROD_VM.replace("runStrategy: Always", "runStrategy: RerunOnFailure")
    });

    /// The prod VM had the disk list been merged by name (with an `openapi` schema): the
    /// base's `cloudinit` disk first, then the patched `root` one.
    const PROD_VM_MERGED: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        devices:
          disks:
            - {name: cloudinit, disk: {bus: sata}}
            - {name: root, disk: {bus: sata}}
";

    #[test]
    fn pointers_unescape_and_paths_resolve_lexically() {
        assert_eq!(
            parse_pointer("/metadata/annotations/kubevirt.io~1a~0b"),
            Some(vec![
                "metadata".to_owned(),
                "annotations".to_owned(),
                "kubevirt.io/a~b".to_owned()
            ])
        );
        assert_eq!(parse_pointer(""), Some(Vec::new()));
        assert_eq!(parse_pointer("spec"), None);
        assert_eq!(parse_pointer("/a~2"), None);
        assert_eq!(
            relative_to(
                "apps/web/overlays/dev/kustomization.yaml",
                "../../base/./p.yaml"
            ),
            "apps/web/base/p.yaml"
        );
        assert_eq!(relative_to("kustomization.yaml", "../x.yaml"), "../x.yaml");
        assert_eq!(split_image("host:5000/app"), ("host:5000/app", None));
        assert_eq!(split_image("app@sha256:ab"), ("app", Some("sha256:ab")));
    }
}
