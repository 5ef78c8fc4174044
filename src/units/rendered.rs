//! A unit's build output turned into objects that point into the repository: each document's
//! origin annotation names the file it came from, and every node takes its position from the
//! same field in that file (or from its nearest parent there, for a field the build added).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::discover::Root;
use super::provenance::{self, Layer, PatchFile, Subject};
use super::wrapper::{ORIGIN_ANNOTATION, TRANSFORMATIONS_ANNOTATION};
use crate::diag::{Finding, Location, Related, UnitRef};
use crate::k8s::{Attribute, RenderedIn, normalise_path};
use crate::load::Loaded;
use crate::rules;
use crate::suppress::inline::Suppression;
use crate::yaml::{self, FieldPath, Limits, Mapping, Node, Span, Value};

/// One unit's build, as its output is read.
pub(crate) struct UnitBuild<'a> {
    pub unit: &'a Arc<UnitRef>,
    pub root: &'a Root,
    /// Resolved; it need not exist (a cached build is not written).
    pub wrapper_dir: &'a Path,
    pub default_namespace: &'a str,
    /// What the paths of the wrapper directory stand for, when it holds the unit's own
    /// kustomization edited (Argo CD, Flux) rather than a wrapper around it.
    pub shadow: Option<&'a super::argocd::Shadow>,
    /// Expressions of the output left as written, their values unknown (character ranges).
    pub unresolved: &'a [std::ops::Range<usize>],
    /// Values of the output substituted from variables (character ranges), with where the
    /// variables are defined.
    pub variables: &'a [(std::ops::Range<usize>, Vec<Related>)],
}

impl UnitBuild<'_> {
    /// The repository file a path of the build output names (relative to the wrapper).
    fn real(&self, wrapper: &Path, path: &str) -> PathBuf {
        let joined = normalise_path(&wrapper.join(path));
        match self.shadow {
            Some(shadow) => shadow.real(wrapper, &joined),
            None => joined,
        }
    }
}

/// What reading the origin files leaves for the report.
pub(crate) struct OriginParts {
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    pub suppressions: Vec<Suppression>,
    pub findings: Vec<Finding>,
    /// The report names learnt, to read units' outputs again later with the same names.
    pub displays: Arc<Displays>,
}

/// Resolved path → the name the report uses, for every file of a built unit's closure.
pub(crate) type Displays = HashMap<PathBuf, Arc<str>>;

#[derive(Debug)]
struct OriginFile {
    display: Arc<str>,
    text: Arc<str>,
    documents: Vec<Node>,
}

/// The files rendered objects come from, each read and parsed once for every unit.
pub(crate) struct Origins {
    keep_sources: bool,
    displays: Arc<Displays>,
    /// Whether the closures of the units read are learnt into `displays` (false when they
    /// are known already).
    learning: bool,
    /// The closure files already resolved into `displays`.
    learnt: std::collections::HashSet<PathBuf>,
    resolver: super::resolve::Resolver,
    files: HashMap<PathBuf, Option<Arc<OriginFile>>>,
    /// The files whose suppression comments were read (once, even when a file is read again
    /// after it was let go).
    scanned: std::collections::HashSet<PathBuf>,
    /// How many units still to be read hold each file in their closure, when known: a file
    /// is let go after the last of them.
    users: HashMap<PathBuf, usize>,
    sources: Vec<(Arc<str>, Arc<str>)>,
    suppressions: Vec<Suppression>,
    findings: Vec<Finding>,
}

impl Origins {
    pub(crate) fn new(keep_sources: bool) -> Self {
        Self {
            keep_sources,
            displays: Arc::default(),
            learning: true,
            learnt: std::collections::HashSet::new(),
            resolver: super::resolve::Resolver::default(),
            files: HashMap::new(),
            scanned: std::collections::HashSet::new(),
            users: HashMap::new(),
            sources: Vec::new(),
            suppressions: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// Origins for reading again units already read once, with the names learnt then (what
    /// the reading leaves for the report was taken the first time).
    pub(crate) fn known(displays: Arc<Displays>) -> Self {
        Self {
            displays,
            learning: false,
            ..Self::new(false)
        }
    }

    /// Counts the units to be read that hold each file, so that a file's parse is let go
    /// after the last of them ([`Origins::done`]) instead of living for the whole stage.
    pub(crate) fn expect<'a>(&mut self, roots: impl IntoIterator<Item = &'a Root>) {
        for root in roots {
            for file in &root.closure {
                if let Some(real) = self.resolver.file(file) {
                    *self.users.entry(real).or_default() += 1;
                }
            }
        }
    }

    /// Lets go of the files only units already read hold.
    pub(crate) fn done(&mut self, root: &Root) {
        for file in &root.closure {
            let Some(real) = self.resolver.file(file) else {
                continue;
            };
            if let Some(users) = self.users.get_mut(&real) {
                *users = users.saturating_sub(1);
                if *users == 0 {
                    self.users.remove(&real);
                    self.files.remove(&real);
                }
            }
        }
    }

    /// Learns the report names of a unit's files (only those can be origins: a build reads
    /// nothing else).
    fn learn(&mut self, root: &Root) {
        if !self.learning {
            return;
        }
        for file in &root.closure {
            // Bases shared by many units are learnt once.
            if !self.learnt.insert(file.clone()) {
                continue;
            }
            if let Some(real) = self.resolver.file(file) {
                Arc::make_mut(&mut self.displays)
                    .entry(real)
                    .or_insert_with(|| crate::source::display_path(file));
            }
        }
    }

    fn display(&self, real: &Path) -> Option<&Arc<str>> {
        self.displays.get(real)
    }

    fn file(&mut self, real: &Path) -> Option<Arc<OriginFile>> {
        if let Some(known) = self.files.get(real) {
            return known.clone();
        }
        let display = Arc::clone(self.display(real)?);
        let parsed = crate::source::read_file_text(real).ok().map(|text| {
            let docs = yaml::parse_stream(&text, Limits::default());
            let documents: Vec<Node> = docs.into_iter().flatten().map(|doc| doc.root).collect();
            let first_reading = self.scanned.insert(real.to_path_buf());
            if first_reading && text.contains("kvlint:") {
                let ranges: Vec<(u32, u32)> = documents
                    .iter()
                    .map(|node| (node.span.start.line, node.span.end.line))
                    .collect();
                let (suppressions, problems) =
                    crate::suppress::inline::scan(&display, &text, &ranges);
                self.suppressions.extend(suppressions);
                self.findings.extend(problems);
            }
            let text: Arc<str> = Arc::from(text);
            if first_reading && self.keep_sources {
                self.sources.push((Arc::clone(&display), Arc::clone(&text)));
            }
            Arc::new(OriginFile {
                display: Arc::clone(&display),
                text,
                documents,
            })
        });
        self.files.insert(real.to_path_buf(), parsed.clone());
        parsed
    }

    /// The texts kept for reports, the suppression comments of the files read, and the
    /// findings about those comments.
    pub(crate) fn into_parts(self) -> OriginParts {
        OriginParts {
            sources: self.sources,
            suppressions: self.suppressions,
            findings: self.findings,
            displays: self.displays,
        }
    }
}

/// What one unit's build output gives.
#[derive(Debug, Default)]
pub(crate) struct UnitObjects {
    pub loaded: Loaded,
    /// For each object of `loaded`, the position of the document of the output it came from
    /// (as [`yaml::DocumentText::index`] numbers them).
    pub documents: Vec<usize>,
}

/// The objects of the documents of one unit's build output that `select` picks (by their
/// text, before they are parsed).
pub(crate) fn objects(
    output: &str,
    build: &UnitBuild<'_>,
    origins: &mut Origins,
    select: &dyn Fn(yaml::DocumentText<'_>) -> bool,
) -> UnitObjects {
    origins.learn(build.root);
    let wrapper = build.wrapper_dir;
    let unit_path: Arc<str> = Arc::from(build.unit.path.as_str());
    let kustomization = Arc::clone(&build.root.kustomization.file);
    let keep = &build.root.kustomization.build_metadata;
    let keep_origin = keep.iter().any(|m| m == "originAnnotations");
    let keep_transformations = keep.iter().any(|m| m == "transformerAnnotations");
    let patches = Arc::new(PatchFiles {
        allowed: build.root.closure.clone(),
        read: Mutex::new(HashMap::new()),
    });
    let entry_layer =
        build
            .shadow
            .and_then(|shadow| shadow.layer.as_ref())
            .map(|(file, text, node)| {
                Arc::new(OriginFile {
                    display: Arc::clone(file),
                    text: Arc::clone(text),
                    documents: vec![node.clone()],
                })
            });
    let mut loaded = Loaded::default();
    let mut documents = Vec::new();
    for entry in yaml::parse_stream_deferring(output, Limits::default(), &|doc| !select(doc)) {
        let yaml::StreamEntry::Parsed(document, doc) = entry else {
            continue;
        };
        let mut node = match doc {
            Ok(doc) => doc.root,
            Err(err) => {
                loaded.findings.push(Finding::new(
                    &rules::KUSTOMIZE_BUILD_FAILED,
                    Location::lines(Arc::clone(&kustomization), (1, 1), (1, 1)),
                    format!(
                        "the build output of {} is not valid YAML: {}",
                        build.unit.path, err.message
                    ),
                ));
                continue;
            }
        };
        if matches!(node.value, Value::Null) {
            continue;
        }
        let unresolved: Vec<FieldPath> = overlapping_fields(&node, build.unresolved)
            .into_iter()
            .map(|(field, _)| field)
            .collect();
        let variable_ranges: Vec<std::ops::Range<usize>> = build
            .variables
            .iter()
            .map(|(range, _)| range.clone())
            .collect();
        let variables: Vec<(FieldPath, Vec<Related>)> = overlapping_fields(&node, &variable_ranges)
            .into_iter()
            .map(|(field, n)| (field, build.variables[n].1.clone()))
            .collect();
        let origin = origin_of(&node);
        let mut layers: Vec<Arc<OriginFile>> = configured_in(&node)
            .iter()
            .filter_map(|path| origins.file(&build.real(wrapper, path)))
            .collect();
        // The options of an Argo CD Application edit the outermost kustomization.
        if let Some(layer) = &entry_layer
            && !layers.is_empty()
        {
            layers.push(Arc::clone(layer));
        }
        strip_annotations(&mut node, !keep_origin, !keep_transformations);
        let source = origin.as_ref().and_then(|origin| {
            let path = origin.path.as_deref().or(origin.configured_in.as_deref())?;
            let real = build.real(wrapper, path);
            origins
                .file(&real)
                .map(|file| (file, origin.path.is_some()))
        });
        let mut written_document = None;
        let mut written_identity = (None, None);
        // Kept as a tree (a copy at its length) and turned into JSON only when a finding asks
        // who wrote a field: JSON copies of every rendered object cost several times more.
        let rendered = (!layers.is_empty()).then(|| node.clone());
        let file = match &source {
            Some((file, true)) => {
                match matching_document(&file.documents, &node) {
                    Some(written) => {
                        if rendered.is_some() {
                            written_document = file
                                .documents
                                .iter()
                                .position(|document| std::ptr::eq(document, written))
                                .map(|index| (Arc::clone(file), index));
                            written_identity = (
                                metadata_text(written, "name"),
                                metadata_text(written, "namespace"),
                            );
                        }
                        remap(&mut node, Some(written), written.span);
                    }
                    None => remap(&mut node, None, first_line()),
                }
                Arc::clone(&file.display)
            }
            // Generated by a kustomization (`configMapGenerator`...): the object is located
            // at that kustomization's first line.
            Some((file, false)) => {
                remap(&mut node, None, first_line());
                Arc::clone(&file.display)
            }
            None => {
                remap(&mut node, None, first_line());
                Arc::clone(&kustomization)
            }
        };
        let (objects, findings) =
            crate::load::rendered_objects(&file, &unit_path, build.default_namespace, node);
        loaded.findings.extend(findings);
        let attribution = rendered.map(|rendered| {
            Arc::new(Attributor {
                rendered,
                written: written_document,
                original_name: written_identity.0,
                original_namespace: written_identity.1,
                layers: layers.clone(),
                patches: Arc::clone(&patches),
            })
        });
        let first = loaded.objects.len();
        for mut object in objects {
            object.rendered_in = Some(Arc::new(RenderedIn {
                unit: Arc::clone(build.unit),
                attribution: attribution
                    .as_ref()
                    .map(|a| Box::new(Shared(Arc::clone(a))) as Box<dyn Attribute>),
                unresolved: unresolved.clone(),
                variables: variables.clone(),
            }));
            loaded.objects.push(object);
        }
        if let Some((file, true)) = &source {
            helm_values(&mut loaded, first, file, build.default_namespace, origins);
        }
        documents.resize(loaded.objects.len(), document);
    }
    UnitObjects { loaded, documents }
}

/// Adds the manifests that the releases among `loaded.objects[first..]` (rendered from
/// `file`) give raw-manifest charts in their values, read from `file` (`units::helm`).
fn helm_values(
    loaded: &mut Loaded,
    first: usize,
    file: &OriginFile,
    default_namespace: &str,
    origins: &mut Origins,
) {
    let mut embedded = Vec::new();
    let mut manifests = Vec::new();
    for entry in &loaded.objects[first..] {
        let extracted =
            super::helm::extract(entry, &file.text, default_namespace, Limits::default());
        embedded.extend(extracted.objects);
        loaded.findings.extend(extracted.findings);
        manifests.extend(extracted.manifests);
        loaded.units += extracted.units;
    }
    loaded.objects.append(&mut embedded);
    // The file's suppression comments were read with it, before its objects.
    crate::suppress::inline::cover_embedded(&mut origins.suppressions, &file.display, &manifests);
}

/// The fields of a rendered document whose scalar value overlaps one of `ranges` (character
/// positions in the build output), each with the index of the first range it overlaps.
fn overlapping_fields(node: &Node, ranges: &[std::ops::Range<usize>]) -> Vec<(FieldPath, usize)> {
    fn overlap(node: &Node, ranges: &[std::ops::Range<usize>]) -> Option<usize> {
        let (start, end) = (node.span.start.index as usize, node.span.end.index as usize);
        ranges.iter().position(|r| r.start < end && start < r.end)
    }
    fn walk(
        node: &Node,
        path: FieldPath,
        ranges: &[std::ops::Range<usize>],
        out: &mut Vec<(FieldPath, usize)>,
    ) {
        match &node.value {
            Value::Map(entries) => {
                for entry in entries {
                    walk(&entry.value, path.key(&entry.key), ranges, out);
                }
            }
            Value::Seq(items) => {
                for (n, item) in items.iter().enumerate() {
                    walk(item, path.index(n), ranges, out);
                }
            }
            _ => {
                if let Some(n) = overlap(node, ranges) {
                    out.push((path, n));
                }
            }
        }
    }
    let mut out = Vec::new();
    if overlap(node, ranges).is_some() {
        walk(node, FieldPath::root(), ranges, &mut out);
    }
    out
}

fn first_line() -> Span {
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
struct Origin {
    path: Option<String>,
    configured_in: Option<String>,
}

fn annotations(node: &Node) -> Option<&Node> {
    node.get("metadata")?.get("annotations")
}

fn origin_of(node: &Node) -> Option<Origin> {
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
fn strip_annotations(node: &mut Node, origin: bool, transformations: bool) {
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
fn matching_document<'a>(documents: &'a [Node], rendered: &Node) -> Option<&'a Node> {
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
fn list_items(document: &Node) -> Vec<&Node> {
    let is_list = document
        .get("kind")
        .and_then(Node::as_str)
        .is_some_and(|kind| kind.ends_with("List"));
    match document.get("items").and_then(Node::as_seq) {
        Some(items) if is_list => items.iter().collect(),
        _ => vec![document],
    }
}

fn name_of(document: &Node) -> &str {
    document
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or_default()
}

/// The single item of `items`, if there is exactly one.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// Gives every node of `node` the position of the same node in `written`, or, for a node the
/// build added, the position its nearest written parent is reported at (`anchor`).
fn remap(node: &mut Node, written: Option<&Node>, anchor: Span) {
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

fn metadata_text(node: &Node, key: &str) -> Option<String> {
    node.get("metadata")?.get(key)?.as_str().map(str::to_owned)
}

/// The kustomization files whose transformers ran over the object, innermost first, as the
/// transformations annotation lists them (relative to the wrapper).
fn configured_in(node: &Node) -> Vec<String> {
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

/// The patch files of one unit, read once each, only from the unit's closure.
#[derive(Debug)]
struct PatchFiles {
    allowed: BTreeSet<PathBuf>,
    read: Mutex<HashMap<String, Option<PatchFile>>>,
}

impl PatchFiles {
    fn get(&self, path: &str) -> Option<PatchFile> {
        let mut read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        read.entry(path.to_owned())
            .or_insert_with(|| {
                let normalised = normalise_path(Path::new(path));
                if !self.allowed.contains(&normalised) {
                    return None;
                }
                let text = crate::source::read_file_text(&normalised).ok()?;
                let documents: Vec<Node> = yaml::parse_stream(&text, Limits::default())
                    .into_iter()
                    .flatten()
                    .map(|doc| doc.root)
                    .collect();
                Some(PatchFile {
                    file: crate::source::display_path(&normalised),
                    documents: Arc::from(documents),
                })
            })
            .clone()
    }
}

/// Finds the overlay line that wrote a field of one rendered object.
#[derive(Debug)]
struct Attributor {
    rendered: Node,
    /// The object in the file it came from (its file and document), to tell the fields an
    /// overlay changed.
    written: Option<(Arc<OriginFile>, usize)>,
    original_name: Option<String>,
    original_namespace: Option<String>,
    layers: Vec<Arc<OriginFile>>,
    patches: Arc<PatchFiles>,
}

/// Fields under a path whose writers are looked for, at most.
const MAX_LEAVES: usize = 256;

impl Attributor {
    fn attribute(&self, rendered: &serde_json::Value, path: &FieldPath) -> Option<Location> {
        let subject = Subject {
            rendered,
            original_name: self.original_name.as_deref(),
            original_namespace: self.original_namespace.as_deref(),
        };
        let layers: Vec<Layer<'_>> = self
            .layers
            .iter()
            .filter_map(|file| {
                Some(Layer {
                    file: &file.display,
                    text: &file.text,
                    root: file.documents.first()?,
                })
            })
            .collect();
        let read = |path: &str| self.patches.get(path);
        provenance::attribute(&subject, path, &layers, &read).map(|found| found.location)
    }
}

impl Attribute for Attributor {
    /// The writer of the field itself; for a field that holds others (a finding about
    /// `spec.instancetype`), the writer of the first field under it that differs from the
    /// file the object came from.
    fn location(&self, path: &FieldPath) -> Option<Location> {
        let whole = self.rendered.to_json();
        if let Some(found) = self.attribute(&whole, path) {
            return Some(found);
        }
        let pointer = crate::yaml::json_pointer(path);
        let rendered = whole.pointer(&pointer)?;
        let written = self
            .written
            .as_ref()
            .and_then(|(file, index)| file.documents.get(*index))
            .map(Node::to_json);
        let written = written.as_ref().and_then(|w| w.pointer(&pointer));
        let mut leaves = Vec::new();
        changed_leaves(rendered, written, path, &mut leaves);
        leaves.iter().find_map(|leaf| self.attribute(&whole, leaf))
    }
}

/// The scalar fields under `rendered` whose value differs from `written`'s.
fn changed_leaves(
    rendered: &serde_json::Value,
    written: Option<&serde_json::Value>,
    path: &FieldPath,
    out: &mut Vec<FieldPath>,
) {
    use serde_json::Value as Json;
    if out.len() >= MAX_LEAVES || written == Some(rendered) {
        return;
    }
    match rendered {
        Json::Object(map) => {
            for (key, value) in map {
                changed_leaves(value, written.and_then(|w| w.get(key)), &path.key(key), out);
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                changed_leaves(item, written.and_then(|w| w.get(i)), &path.index(i), out);
            }
        }
        _ => out.push(path.clone()),
    }
}

/// One attributor shared by the objects of a document (a `List` gives several).
#[derive(Debug)]
struct Shared(Arc<Attributor>);

impl Attribute for Shared {
    fn location(&self, path: &FieldPath) -> Option<Location> {
        self.0.location(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        yaml::parse_stream(text, Limits::default())
            .remove(0)
            .unwrap()
            .root
    }

    #[test]
    fn an_origin_file_is_let_go_after_the_last_unit_that_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let unit = top.join("unit");
        std::fs::create_dir(&unit).unwrap();
        std::fs::write(unit.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
        let cm = unit.join("cm.yaml");
        std::fs::write(&cm, "kind: ConfigMap # kvlint: ignore[KV0001]\n").unwrap();
        let root = super::super::discover::Tree::new(Some(top.clone()))
            .root(&unit)
            .unwrap();
        let mut origins = Origins::new(true);
        origins.expect([&root, &root]);
        origins.learn(&root);
        assert!(origins.file(&cm).is_some());
        origins.done(&root);
        assert!(origins.files.contains_key(&cm), "a second unit holds it");
        origins.done(&root);
        assert!(!origins.files.contains_key(&cm), "no unit left holds it");
        // Read again (an output naming it outside its closure): its comments and text are
        // not taken twice.
        assert!(origins.file(&cm).is_some());
        let parts = origins.into_parts();
        assert_eq!(parts.suppressions.len() + parts.findings.len(), 1);
        assert_eq!(parts.sources.len(), 1);
    }

    #[test]
    fn rendered_nodes_take_the_written_positions() {
        let written = parse(
            "# base\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: one\n",
        );
        let mut rendered = parse(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dev-web\n  namespace: dev\ndata:\n  a: one\n  b: two\n",
        );
        remap(&mut rendered, Some(&written), written.span);
        let (name, exact) = rendered.lookup_entry_span(&yaml::FieldPath::parse("metadata.name"));
        assert!(exact);
        assert_eq!((name.start.line, name.start.column), (5, 3));
        // Added by the build: at the key of the nearest written parent.
        let (namespace, _) =
            rendered.lookup_entry_span(&yaml::FieldPath::parse("metadata.namespace"));
        assert_eq!((namespace.start.line, namespace.start.column), (4, 1));
        let (b, _) = rendered.lookup_entry_span(&yaml::FieldPath::parse("data.b"));
        assert_eq!((b.start.line, b.start.column), (6, 1));
    }

    #[test]
    fn the_written_document_is_found_through_prefixes() {
        let documents = vec![
            parse("kind: VirtualMachine\nmetadata: {name: web}\n"),
            parse("kind: VirtualMachine\nmetadata: {name: web-large}\n"),
            parse("kind: Service\nmetadata: {name: web-large}\n"),
        ];
        let rendered = parse("kind: VirtualMachine\nmetadata: {name: dev-web-large-x}\n");
        let found = matching_document(&documents, &rendered).unwrap();
        assert_eq!(found, &documents[1]);
        let rendered = parse("kind: Service\nmetadata: {name: other}\n");
        assert_eq!(
            matching_document(&documents, &rendered).unwrap(),
            &documents[2]
        );
    }

    #[test]
    fn the_written_document_is_found_when_a_patch_replaced_the_kind() {
        let documents = vec![
            parse("kind: VirtualMachineClusterInstancetype\nmetadata: {name: cx1.large}\n"),
            parse("kind: VirtualMachineClusterInstancetype\nmetadata: {name: cx1.large1gi}\n"),
        ];
        let rendered = parse("kind: VirtualMachineInstancetype\nmetadata: {name: cx1.large1gi}\n");
        assert_eq!(
            matching_document(&documents, &rendered).unwrap(),
            &documents[1]
        );
        // Kind and name both replaced: the file's only document.
        let rendered = parse("kind: ConfigMap\nmetadata: {name: renamed}\n");
        assert_eq!(
            matching_document(&documents[..1], &rendered).unwrap(),
            &documents[0]
        );
        assert_eq!(matching_document(&documents, &rendered), None);
    }

    #[test]
    fn the_items_of_a_list_are_documents() {
        let documents = vec![parse(
            "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachine\n  metadata: {name: centos}\n- kind: VirtualMachine\n  metadata: {name: fedora}\n",
        )];
        let rendered = parse("kind: VirtualMachine\nmetadata: {name: fedora}\n");
        let found = matching_document(&documents, &rendered).unwrap();
        assert_eq!(found.span.start.line, 6);
    }

    #[test]
    fn only_the_annotations_kvlint_asked_for_are_removed() {
        let mut node = parse(
            "metadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: a.yaml\n    alpha.config.kubernetes.io/transformations: x\n",
        );
        strip_annotations(&mut node, true, true);
        assert_eq!(node.get("metadata").unwrap().get("annotations"), None);
        let mut node =
            parse("metadata:\n  annotations:\n    config.kubernetes.io/origin: x\n    team: a\n");
        strip_annotations(&mut node, true, true);
        let kept = node.get("metadata").unwrap().get("annotations").unwrap();
        assert_eq!(kept.as_map().unwrap().len(), 1);
    }
}
