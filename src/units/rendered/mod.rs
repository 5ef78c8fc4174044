//! A unit's build output turned into objects that point into the repository: each document's
//! origin annotation names the file it came from, and every node takes its position from the
//! same field in that file (or from its nearest parent there, for a field the build added).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::discover::Root;
use crate::diag::{Finding, Location, Related, UnitRef};
use crate::k8s::{Attribute, RenderedIn, normalise_path};
use crate::load::Loaded;
use crate::rules;
use crate::suppress::inline::Suppression;
use crate::yaml::{self, FieldPath, Limits, Node, Value};

mod attribution;
mod origin;

pub(in crate::units) use attribution::changed_leaves;
use attribution::{Attributor, PatchFiles, Shared};
use origin::{
    configured_in, first_line, matching_document, metadata_text, origin_of, remap,
    strip_annotations,
};

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
    /// The files scanned for suppression comments, not to be scanned again later.
    pub scanned: Arc<Scanned>,
}

/// Resolved path → the name the report uses, for every file of a built unit's closure.
pub(crate) type Displays = HashMap<PathBuf, Arc<str>>;

/// The files whose suppression comments were read, shared by the readings of a run.
pub(crate) type Scanned = Mutex<std::collections::HashSet<PathBuf>>;

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
    /// after it was let go, or by the readings of other units that share the set).
    scanned: Arc<Scanned>,
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
            scanned: Arc::default(),
            users: HashMap::new(),
            sources: Vec::new(),
            suppressions: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// Origins for reading units again, with the names learnt the first time. A file is
    /// scanned for suppression comments (and its text kept) only if no reading sharing
    /// `scanned` did so before.
    pub(crate) fn known(
        displays: Arc<Displays>,
        scanned: Arc<Scanned>,
        keep_sources: bool,
    ) -> Self {
        Self {
            displays,
            learning: false,
            scanned,
            ..Self::new(keep_sources)
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
        let cwd = self.resolver.dir(Path::new(""));
        for file in &root.closure {
            // Bases shared by many units are learnt once.
            if !self.learnt.insert(file.clone()) {
                continue;
            }
            if let Some(real) = self.resolver.file(file) {
                // A file with two names (a symbolic link on the way) is reported by the one
                // without the link, as the walk of the checked files names it.
                let direct = || {
                    cwd.as_ref()
                        .is_some_and(|cwd| normalise_path(&cwd.join(file)) == real)
                };
                let displays = Arc::make_mut(&mut self.displays);
                if !displays.contains_key(&real) || direct() {
                    displays.insert(real, crate::source::display_path(file));
                }
            }
        }
    }

    fn display(&self, real: &Path) -> Option<&Arc<str>> {
        self.displays.get(real)
    }

    /// The file a build output names by `path` (resolved, or reached through a symbolic link).
    fn file(&mut self, path: &Path) -> Option<Arc<OriginFile>> {
        if let Some(known) = self.files.get(path) {
            return known.clone();
        }
        let resolved;
        let real = if self.display(path).is_some() {
            path
        } else {
            resolved = self.resolver.file(path)?;
            if let Some(known) = self.files.get(&resolved) {
                return known.clone();
            }
            &resolved
        };
        let display = Arc::clone(self.display(real)?);
        let parsed = crate::source::read_file_text(real).ok().map(|text| {
            let docs = yaml::parse_stream(&text, Limits::default());
            let documents: Vec<Node> = docs.into_iter().flatten().map(|doc| doc.root).collect();
            let first_reading = self
                .scanned
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(real.to_path_buf());
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
            scanned: self.scanned,
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
    /// The positions of the documents the selector left unread.
    pub unread: Vec<usize>,
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
    let entry_layers = entry_layers(build);
    let mut loaded = Loaded::default();
    let mut documents = Vec::new();
    let mut unread = Vec::new();
    for entry in yaml::parse_stream_deferring(output, Limits::default(), &|doc| !select(doc)) {
        let (document, doc) = match entry {
            yaml::StreamEntry::Parsed(document, doc) => (document, doc),
            yaml::StreamEntry::Deferred(document) => {
                unread.push(document);
                continue;
            }
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
        let (unresolved, variables) = substituted_fields(&node, build);
        let origin = origin_of(&node);
        let mut layers: Vec<Arc<OriginFile>> = configured_in(&node)
            .iter()
            .filter_map(|path| origins.file(&build.real(wrapper, path)))
            .collect();
        // The options of an Argo CD Application (and its override files) edit the outermost
        // kustomization.
        if !layers.is_empty() {
            layers.extend(entry_layers.iter().cloned());
        }
        strip_annotations(&mut node, !keep_origin, !keep_transformations);
        let source = origin.as_ref().and_then(|origin| {
            let path = origin.path.as_deref().or(origin.configured_in.as_deref())?;
            let real = build.real(wrapper, path);
            origins
                .file(&real)
                .map(|file| (file, origin.path.is_some()))
        });
        // Kept as a tree (a copy at its length) and turned into JSON only when a finding asks
        // who wrote a field: JSON copies of every rendered object cost several times more.
        let rendered = (!layers.is_empty()).then(|| node.clone());
        let Placed {
            file,
            written_document,
            written_identity,
        } = place(
            &mut node,
            source.as_ref(),
            rendered.is_some(),
            &kustomization,
        );
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
    UnitObjects {
        loaded,
        documents,
        unread,
    }
}

/// The Argo CD Application's `kustomize` options, then its override files', as the outermost
/// layers of its build.
fn entry_layers(build: &UnitBuild<'_>) -> Vec<Arc<OriginFile>> {
    let Some(shadow) = build.shadow else {
        return Vec::new();
    };
    shadow
        .layers
        .iter()
        .map(|(file, text, node)| {
            Arc::new(OriginFile {
                display: Arc::clone(file),
                text: Arc::clone(text),
                documents: vec![node.clone()],
            })
        })
        .collect()
}

/// The fields of `node` whose text a Flux substitution left as written (`unresolved`) or
/// wrote from a variable (with where the variable is defined).
fn substituted_fields(
    node: &Node,
    build: &UnitBuild<'_>,
) -> (Vec<FieldPath>, Vec<(FieldPath, Vec<Related>)>) {
    let unresolved = overlapping_fields(node, build.unresolved)
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    let variable_ranges: Vec<std::ops::Range<usize>> = build
        .variables
        .iter()
        .map(|(range, _)| range.clone())
        .collect();
    let variables = overlapping_fields(node, &variable_ranges)
        .into_iter()
        .map(|(field, n)| (field, build.variables[n].1.clone()))
        .collect();
    (unresolved, variables)
}

/// Where a rendered object is reported, and the written document it came from.
struct Placed {
    file: Arc<str>,
    /// The written document (file and index), when the object's fields are attributed.
    written_document: Option<(Arc<OriginFile>, usize)>,
    /// The written document's name and namespace, likewise.
    written_identity: (Option<String>, Option<String>),
}

/// Moves `node`'s positions to the document `source` wrote it in (`true`: a resource file;
/// `false`: generated by that kustomization, located at its first line), or to the unit's
/// kustomization's first line.
fn place(
    node: &mut Node,
    source: Option<&(Arc<OriginFile>, bool)>,
    attributed: bool,
    kustomization: &Arc<str>,
) -> Placed {
    let mut placed = Placed {
        file: Arc::clone(kustomization),
        written_document: None,
        written_identity: (None, None),
    };
    match source {
        Some((file, true)) => {
            match matching_document(&file.documents, node) {
                Some(written) => {
                    if attributed {
                        placed.written_document = file
                            .documents
                            .iter()
                            .position(|document| std::ptr::eq(document, written))
                            .map(|index| (Arc::clone(file), index));
                        placed.written_identity = (
                            metadata_text(written, "name"),
                            metadata_text(written, "namespace"),
                        );
                    }
                    remap(node, Some(written), written.span);
                }
                None => remap(node, None, first_line()),
            }
            placed.file = Arc::clone(&file.display);
        }
        Some((file, false)) => {
            remap(node, None, first_line());
            placed.file = Arc::clone(&file.display);
        }
        None => remap(node, None, first_line()),
    }
    placed
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

#[cfg(test)]
mod tests;
