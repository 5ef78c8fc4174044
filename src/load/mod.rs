//! Stage one: read every input, parse its documents, and turn them into objects and findings.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

mod batch;
mod string_fields;

pub use batch::{
    DeferredFile, FirstPass, deferred_objects, first_pass, kustomizations, looks_like_vm,
};

use crate::diag::{Finding, Location, Related};
use crate::k8s::{self, Kustomizations, Object};
use crate::rules;
use crate::source::Input;
use crate::yaml::{self, Document, Limits, Node, NoticeKind, Span, Value};

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub struct Loaded {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// Source texts by display name, for reports that quote the source.
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    pub files: usize,
    pub documents: usize,
    pub skipped: usize,
    /// Units the embedded reader rendered (Helm releases of raw-manifest charts).
    pub units: usize,
    /// `# kvlint: ignore[...]` comments.
    pub suppressions: Vec<crate::suppress::inline::Suppression>,
}

impl Loaded {
    /// Adds what `other` loaded after what this one did.
    pub fn append(&mut self, other: Loaded) {
        self.objects.extend(other.objects);
        self.findings.extend(other.findings);
        self.sources.extend(other.sources);
        self.files += other.files;
        self.documents += other.documents;
        self.skipped += other.skipped;
        self.units += other.units;
        self.suppressions.extend(other.suppressions);
    }
}

/// Options of the loading stage.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Namespace for namespaced objects that have none.
    pub default_namespace: String,
    pub limits: Limits,
    /// Keep source texts (for the human report's snippets).
    pub keep_sources: bool,
    /// Directories against which `config.kubernetes.io/origin` paths are resolved (the
    /// kustomization that was built, then the working directory).
    pub origin_roots: Vec<std::path::PathBuf>,
    /// Reads the objects an object carries inside it (the manifests a HelmRelease gives a
    /// raw-manifest chart in its values), when set.
    pub embedded: Option<EmbeddedReader>,
}

/// Objects another object carries inside it, their spans in its file.
#[derive(Debug, Default)]
pub struct Embedded {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// First and last line of each embedded manifest: a suppression comment just above one
    /// covers all of it, as one above a document covers the document.
    pub manifests: Vec<(u32, u32)>,
    /// Units rendered (a release whose chart installs the manifests of its values).
    pub units: usize,
}

/// Reads the objects embedded in `object`, given the text of its file, the default namespace
/// and the parser's limits.
pub type EmbeddedReader = fn(&Object, &str, &str, Limits) -> Embedded;

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            default_namespace: "default".to_owned(),
            limits: Limits::default(),
            keep_sources: false,
            origin_roots: vec![std::path::PathBuf::new()],
            embedded: None,
        }
    }
}

fn point(file: &Arc<str>, line: u32, column: u32) -> Location {
    Location::lines(Arc::clone(file), (line, column), (line, column + 1))
}

/// Reads, parses and loads all inputs (in parallel; nothing is left for later), in input order.
pub fn load(inputs: &[Input], options: &LoadOptions) -> Loaded {
    let kustomizations = kustomizations(inputs, options);
    let files: Vec<Loaded> = inputs
        .par_iter()
        .map(|input| batch::load_whole(input, &kustomizations, options))
        .collect();
    let mut loaded = Loaded {
        files: files.len(),
        ..Loaded::default()
    };
    for file in files {
        loaded.append(file);
    }
    attach_origins(&mut loaded, options);
    loaded
}

/// The `path` of a `config.kubernetes.io/origin` annotation (`kustomize build` with
/// `buildMetadata: [originAnnotations]`).
fn origin_path(object: &Object) -> Option<String> {
    let annotation = object
        .node
        .get("metadata")?
        .get("annotations")?
        .get("config.kubernetes.io/origin")?
        .as_str()?;
    let doc = yaml::parse_stream(annotation, Limits::default())
        .into_iter()
        .next()?
        .ok()?;
    doc.root.get("path")?.as_str().map(str::to_owned)
}

/// An original file of `kustomize build` output: its display name and documents.
type OriginFile = Option<(Arc<str>, Vec<Node>)>;

fn read_origin(
    path: &str,
    options: &LoadOptions,
    sources: &mut Vec<(Arc<str>, Arc<str>)>,
) -> OriginFile {
    options.origin_roots.iter().find_map(|root| {
        let candidate = root.join(path);
        if !inside_working_directory(&candidate) {
            return None;
        }
        // Bounded, regular files only: a FIFO named by the annotation must not block the run.
        let real = std::fs::canonicalize(&candidate).ok()?;
        let text = crate::source::read_file_text(&real).ok()?;
        let nodes = yaml::parse_stream(&text, options.limits)
            .into_iter()
            .filter_map(Result::ok)
            .map(|doc| doc.root)
            .collect();
        let display: Arc<str> = Arc::from(k8s::normalise_path(&candidate).to_string_lossy());
        sources.push((Arc::clone(&display), Arc::from(text)));
        Some((display, nodes))
    })
}

/// Whether a file lies inside the working directory once symlinks are resolved. Origin paths
/// come from the scanned input, which must not make kvlint read files anywhere else.
fn inside_working_directory(candidate: &std::path::Path) -> bool {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize);
    match (cwd, std::fs::canonicalize(candidate)) {
        (Ok(cwd), Ok(real)) => real.starts_with(cwd),
        _ => false,
    }
}

/// Points objects of `kustomize build` output at their original files, when those files can be
/// read; findings about fields written there then point into them.
fn attach_origins(loaded: &mut Loaded, options: &LoadOptions) {
    let mut cache: HashMap<String, OriginFile> = HashMap::new();
    for object in &mut loaded.objects {
        let Some(path) = origin_path(object) else {
            continue;
        };
        let source = cache
            .entry(path)
            .or_insert_with_key(|path| read_origin(path, options, &mut loaded.sources));
        let Some((file, nodes)) = source else {
            continue;
        };
        let same = |node: &&Node| {
            node.get("kind").and_then(Node::as_str) == Some(object.kind.as_str())
                && node
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Node::as_str)
                    == Some(object.name.as_str())
        };
        if let Some(node) = nodes.iter().find(same) {
            object.origin = Some(Arc::new(k8s::OriginSource {
                file: Arc::clone(file),
                node: node.clone(),
            }));
        }
    }
}

fn skip_reason(
    display: &str,
    text: Option<&str>,
    docs: &[Result<Document, yaml::DocumentError>],
) -> Option<&'static str> {
    if k8s::is_kustomization_file(display) {
        return Some(
            "a Kustomize configuration (its namespace and resources are applied to the files it lists)",
        );
    }
    let name = display.rsplit('/').next().unwrap_or(display);
    if matches!(
        name,
        "Chart.yaml" | "Chart.yml" | "values.yaml" | "values.yml"
    ) {
        return Some(
            "a Helm chart file (render the chart with `helm template` and pipe the result to `kvlint check -`)",
        );
    }
    // `{{ ... }}` that breaks the YAML (or turns into mapping keys) marks a Go/Helm/Jinja template;
    // manifests that merely carry `{{` inside strings parse cleanly and are checked.
    let templated = text.is_some_and(|t| t.contains("{{") && t.contains("}}"));
    let broken = docs.iter().any(|doc| match doc {
        Err(_) => true,
        Ok(doc) => doc
            .notices
            .iter()
            .any(|n| matches!(n.kind, NoticeKind::ComplexKey)),
    });
    if templated && broken {
        return Some(
            "a template (`{{ ... }}` placeholders make it invalid YAML): render it first and pipe the result to `kvlint check -`",
        );
    }
    None
}

/// Parses `text` (default limits) and loads its documents as the file `display`, outside any
/// Kustomize tree.
pub fn load_text(display: &Arc<str>, text: &str, options: &LoadOptions) -> Loaded {
    let mut loaded = Loaded::default();
    let docs = yaml::parse_stream(text, Limits::default());
    load_documents(display, text, docs, options, &mut loaded);
    loaded
}

/// Turns the parsed documents of one source text into objects and findings, outside any
/// Kustomize tree (used for catalog bundles).
pub fn load_documents(
    display: &Arc<str>,
    text: &str,
    docs: Vec<Result<Document, yaml::DocumentError>>,
    options: &LoadOptions,
    loaded: &mut Loaded,
) {
    load_file(
        display,
        Some(text),
        docs,
        0,
        &Kustomizations::default(),
        options,
        loaded,
    );
}

/// Turns the parsed documents of one file into objects and findings. `deferred` documents are
/// VirtualMachines left for the VM pass: they count as manifests here. Returns false when the
/// whole file is skipped (its deferred documents must then be dropped too).
fn load_file(
    display: &Arc<str>,
    text: Option<&str>,
    docs: Vec<Result<Document, yaml::DocumentError>>,
    deferred: usize,
    kustomizations: &Kustomizations,
    options: &LoadOptions,
    loaded: &mut Loaded,
) -> bool {
    let patch_reason = kustomizations
        .patched_by(display)
        .map(|kustomization| format!("a Kustomize patch of {kustomization}, merged into its resources (check `kustomize build` output to see the result)"));
    if let Some(reason) =
        patch_reason.or_else(|| skip_reason(display, text, &docs).map(str::to_owned))
    {
        loaded.skipped += 1;
        loaded.findings.push(Finding::new(
            &rules::SKIPPED_FILE,
            point(display, 1, 1),
            format!("skipped: this file is {reason}"),
        ));
        return false;
    }
    if let Some(text) = text
        && text.contains("kvlint:")
    {
        let documents: Vec<(u32, u32)> = docs
            .iter()
            .flatten()
            .map(|doc| (doc.root.span.start.line, doc.root.span.end.line))
            .collect();
        let (suppressions, problems) = crate::suppress::inline::scan(display, text, &documents);
        loaded.suppressions.extend(suppressions);
        loaded.findings.extend(problems);
    }
    let unit: Arc<str> = Arc::from(kustomizations.unit_of(display));
    let namespace = kustomizations
        .namespace_for(display)
        .unwrap_or(&options.default_namespace);
    let mut manifests = deferred;
    loaded.documents += deferred;
    let mut not_manifests: Vec<Span> = Vec::new();
    for doc in docs {
        loaded.documents += 1;
        let doc = match doc {
            Ok(doc) => doc,
            Err(err) => {
                loaded.findings.push(Finding::new(
                    &rules::YAML_SYNTAX,
                    point(display, err.pos.line, err.pos.column),
                    format!("invalid YAML: {}", err.message),
                ));
                manifests += 1;
                continue;
            }
        };
        if matches!(doc.root.value, Value::Null) {
            continue;
        }
        let span = doc.root.span;
        let is_manifest = doc.root.get("apiVersion").is_some() && doc.root.get("kind").is_some();
        let findings_before = loaded.findings.len();
        let mut found = Vec::new();
        collect_objects(
            display,
            &unit,
            namespace,
            doc.root,
            &mut found,
            &mut loaded.findings,
        );
        if let (Some(read), Some(text)) = (options.embedded, text) {
            embedded_objects(read, display, text, options, &mut found, loaded);
        }
        if found.is_empty() && !is_manifest {
            not_manifests.push(span);
        } else {
            manifests += 1;
            push_notices(&mut loaded.findings, findings_before, display, &doc.notices);
        }
        loaded.objects.extend(found);
    }
    if manifests == 0 && !not_manifests.is_empty() {
        loaded.skipped += 1;
        loaded.findings.push(Finding::new(
            &rules::SKIPPED_FILE,
            point(display, 1, 1),
            "skipped: no document of this file is a Kubernetes object (none has apiVersion and kind)",
        ));
    } else {
        for span in not_manifests {
            loaded.findings.push(Finding::new(
                &rules::SKIPPED_FILE,
                Location {
                    file: Arc::clone(display),
                    span,
                },
                "skipped: this document is not a Kubernetes object (it has no apiVersion and kind)",
            ));
        }
    }
    true
}

/// Adds to `found`, after the objects it holds, the objects they carry inside them.
fn embedded_objects(
    read: EmbeddedReader,
    display: &Arc<str>,
    text: &str,
    options: &LoadOptions,
    found: &mut Vec<Object>,
    loaded: &mut Loaded,
) {
    let mut objects = Vec::new();
    let mut manifests = Vec::new();
    for object in found.iter() {
        let embedded = read(object, text, &options.default_namespace, options.limits);
        objects.extend(embedded.objects);
        loaded.findings.extend(embedded.findings);
        manifests.extend(embedded.manifests);
        loaded.units += embedded.units;
    }
    found.append(&mut objects);
    crate::suppress::inline::cover_embedded(&mut loaded.suppressions, display, &manifests);
}

/// The YAML notices of a manifest document (they matter only for what Kubernetes reads),
/// after the document's findings from `since` on: a value already refused for not being a
/// string has its finding.
pub(crate) fn push_notices(
    findings: &mut Vec<Finding>,
    since: usize,
    file: &Arc<str>,
    notices: &[yaml::Notice],
) {
    let refused: Vec<Span> = findings[since.min(findings.len())..]
        .iter()
        .filter(|f| string_fields::is_refusal(f))
        .map(|f| f.location.span)
        .collect();
    for notice in notices {
        if !refused.contains(&notice.span) {
            findings.push(notice_finding(file, notice));
        }
    }
}

pub(crate) fn notice_finding(file: &Arc<str>, notice: &yaml::Notice) -> Finding {
    let location = Location {
        file: Arc::clone(file),
        span: notice.span,
    };
    match &notice.kind {
        NoticeKind::DuplicateKey { key, first } => Finding::new(
            &rules::DUPLICATE_KEY,
            location,
            format!("duplicate key `{key}`: Kubernetes refuses it in strict decoding, and other tools keep either value"),
        )
        .with_related(Related {
            location: Location {
                file: Arc::clone(file),
                span: *first,
            },
            message: "first defined here".to_owned(),
        })
        .with_help("remove one of the two entries"),
        NoticeKind::Yaml11Difference {
            text,
            yaml11,
            yaml12,
        } => Finding::new(
            &rules::YAML11_AMBIGUOUS_SCALAR,
            location,
            format!("`{text}` is read by Kubernetes (YAML 1.1) as {yaml11}, but by YAML 1.2 tools as {yaml12}"),
        )
        .with_help(format!("quote it (\"{text}\") if you mean the string, or write the value unambiguously")),
        NoticeKind::ComplexKey => Finding::new(
            &rules::COMPLEX_KEY,
            location,
            "a mapping key is a collection; Kubernetes only accepts string keys",
        ),
    }
}

/// The objects of one document of a unit's build output, whose spans already point into
/// `file` (the file the document came from), and the findings about their names.
pub fn rendered_objects(
    file: &Arc<str>,
    unit: &Arc<str>,
    default_namespace: &str,
    node: Node,
) -> (Vec<Object>, Vec<Finding>) {
    let mut objects = Vec::new();
    let mut findings = Vec::new();
    collect_objects(
        file,
        unit,
        default_namespace,
        node,
        &mut objects,
        &mut findings,
    );
    (objects, findings)
}

/// Turns one document (or a `List` item) into objects; `List` kinds are flattened.
fn collect_objects(
    file: &Arc<str>,
    unit: &Arc<str>,
    default_namespace: &str,
    node: Node,
    out: &mut Vec<Object>,
    findings: &mut Vec<Finding>,
) {
    let api_version = node
        .get("apiVersion")
        .and_then(Node::as_str)
        .map(str::to_owned);
    let kind = node.get("kind").and_then(Node::as_str).map(str::to_owned);
    let (Some(api_version), Some(kind)) = (api_version, kind) else {
        return;
    };
    if kind.ends_with("List") && node.get("items").is_some() {
        if let Value::Map(entries) = node.value {
            for entry in entries {
                if entry.key == "items"
                    && let Value::Seq(items) = entry.value.value
                {
                    for item in items {
                        collect_objects(file, unit, default_namespace, item, out, findings);
                    }
                }
            }
        }
        return;
    }
    let (group, version) = k8s::split_api_version(&api_version);
    let (group, version) = (group.to_owned(), version.to_owned());
    let metadata = node.get("metadata");
    let name = metadata
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .map(str::to_owned);
    let written_namespace = metadata
        .and_then(|m| m.get("namespace"))
        .and_then(Node::as_str)
        .filter(|ns| !ns.is_empty())
        .map(str::to_owned);
    let Some(name) = name.or_else(|| {
        metadata
            .and_then(|m| m.get("generateName"))
            .and_then(Node::as_str)
            .map(|g| format!("{g}*"))
    }) else {
        let not_strings = string_fields::identity(&node);
        if not_strings.is_empty() {
            findings.push(Finding::new(
                &rules::INVALID_OBJECT,
                Location {
                    file: Arc::clone(file),
                    span: metadata.map_or(node.span, |m| m.span),
                },
                format!("{kind} has no metadata.name"),
            ));
        }
        findings.extend(
            not_strings
                .iter()
                .map(|field| string_fields::finding(file, None, field)),
        );
        return;
    };
    let cluster_scoped = k8s::is_cluster_scoped(&group, &kind);
    let namespace_written = written_namespace.is_some();
    let namespace = if cluster_scoped {
        None
    } else {
        Some(written_namespace.unwrap_or_else(|| default_namespace.to_owned()))
    };
    let object = Object {
        file: Arc::clone(file),
        unit: Arc::clone(unit),
        api_version,
        group,
        version,
        kind,
        name,
        namespace,
        namespace_written,
        node,
        origin: None,
        rendered_in: None,
    };
    findings.extend(k8s::names::findings(&object));
    let object_ref = object.object_ref();
    findings.extend(
        string_fields::identity(&object.node)
            .iter()
            .chain(&string_fields::labels_and_annotations(&object.node))
            .chain(&string_fields::data_values(&object.node))
            .map(|field| string_fields::finding(file, Some(&object_ref), field)),
    );
    out.push(object);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(name: &str, text: &str) -> Loaded {
        let mut loaded = Loaded::default();
        let docs = yaml::parse_stream(text, Limits::default());
        load_file(
            &Arc::from(name),
            Some(text),
            docs,
            0,
            &Kustomizations::default(),
            &LoadOptions::default(),
            &mut loaded,
        );
        loaded
    }

    #[test]
    fn lists_are_flattened_and_namespaces_defaulted() {
        let loaded = load_text(
            "list.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: b}\n",
        );
        assert_eq!(loaded.objects.len(), 2);
        assert_eq!(loaded.objects[0].namespace.as_deref(), Some("default"));
        assert_eq!(loaded.objects[1].namespace, None);
    }

    #[test]
    fn files_without_manifests_are_skipped_with_a_reason() {
        let loaded = load_text("values.yaml", "replicas: 3\n");
        assert_eq!(loaded.skipped, 1);
        assert_eq!(loaded.findings[0].rule.code, rules::SKIPPED_FILE.code);
    }

    #[test]
    fn syntax_errors_do_not_hide_other_documents() {
        let loaded = load_text(
            "x.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkey: [1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
        );
        assert_eq!(loaded.objects.len(), 2);
        assert_eq!(loaded.findings.len(), 1);
        assert_eq!(loaded.findings[0].rule.code, "KV0001");
        assert_eq!(loaded.findings[0].location.span.start.line, 5);
    }
}
