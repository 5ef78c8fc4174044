//! Flux `Kustomization`s (kustomize.toolkit.fluxcd.io) as units: the directory `spec.path`
//! names, built as the kustomize-controller builds it. The controller edits the directory's
//! kustomization in place before the build (fluxcd/pkg kustomize `Generator`:
//! `targetNamespace` becomes `namespace`, `namePrefix`/`nameSuffix` replace the file's,
//! `patches` and `components` are appended) and builds with `LoadRestrictionsNone`; kvlint
//! writes the edited kustomization into its private temporary directory instead, every path in
//! it pointing back at the repository; a directory without a kustomization gets the one Flux
//! generates (`generated`). After the build, `spec.postBuild` variables are substituted into
//! each object (`envsubst`); an expression whose variable kvlint cannot read (SOPS) stays as
//! written, and its place is reported so that the field is not judged.

mod generated;
pub(super) mod jobs;
mod sourceignore;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value as Json, json};

use super::envsubst::{self, Strategy, Strictness, Variables};
use super::kustomization::{
    GENERATOR_LISTS, Kustomization, PATH_ITEM_LISTS, PATH_LISTS, PATH_OR_INLINE_LISTS,
    RESOURCE_LISTS,
};
use crate::diag::{Finding, Location};
use crate::k8s::normalise_path;
use crate::rules;
use crate::yaml::{self, Limits, Node, Span};

/// The API group of Flux's Kustomization.
const GROUP: &str = "kustomize.toolkit.fluxcd.io";

/// A Flux Kustomization read from the checked files.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub file: Arc<str>,
    pub span: Span,
    pub name: String,
    pub namespace: Option<String>,
    /// `spec.path`, as written.
    pub path: String,
    pub path_span: Span,
    pub spec: Json,
    /// Where `spec.postBuild` is written, for findings about the substitution.
    pub post_build_span: Option<Span>,
    /// Where each `spec.postBuild.substitute` key is written.
    pub substitute_spans: BTreeMap<String, Span>,
    /// The unit whose build output holds it, when it is rendered rather than written.
    pub rendered_by: Option<String>,
}

impl Entry {
    pub(crate) fn of(file: &Arc<str>, node: &Node) -> Option<Self> {
        let api_version = node.get("apiVersion")?.as_str()?;
        if api_version.split('/').next() != Some(GROUP)
            || node.get("kind").and_then(Node::as_str) != Some("Kustomization")
        {
            return None;
        }
        let metadata = node.get("metadata");
        let text = |key: &str| {
            metadata
                .and_then(|m| m.get(key))
                .and_then(Node::as_str)
                .map(str::to_owned)
        };
        let spec = node.get("spec");
        let path_node = spec.and_then(|s| s.get("path"));
        Some(Self {
            file: Arc::clone(file),
            span: node.entry("kind").map_or(node.span, |e| e.key_span),
            name: text("name").unwrap_or_default(),
            namespace: text("namespace"),
            path: path_node.and_then(Node::as_str).unwrap_or("./").to_owned(),
            path_span: path_node.map_or(node.span, |p| p.span),
            spec: spec.map_or(Json::Null, Node::to_json),
            post_build_span: spec.and_then(|s| s.entry("postBuild")).map(|e| e.key_span),
            substitute_spans: spec
                .and_then(|s| s.get("postBuild"))
                .and_then(|p| p.get("substitute"))
                .and_then(Node::as_map)
                .unwrap_or_default()
                .iter()
                .map(|e| (e.key.clone(), e.key_span))
                .collect(),
            rendered_by: None,
        })
    }

    pub(crate) fn location(&self) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span: self.span,
        }
    }

    /// Where `spec.path` is written.
    pub(crate) fn path_location(&self) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span: self.path_span,
        }
    }

    /// Where `spec.postBuild` is written (else the entry).
    pub(crate) fn post_build_location(&self) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span: self.post_build_span.unwrap_or(self.span),
        }
    }

    fn field(&self, key: &str) -> Option<&str> {
        self.spec.get(key).and_then(Json::as_str)
    }

    /// The directory the entry names, as the report names paths: `spec.path` from the root of
    /// the repository (`root_shown`, the repository root as the report names it).
    pub(crate) fn directory(&self, root_shown: &Path) -> PathBuf {
        let path = self.path.trim_start_matches("./");
        normalise_path(&root_shown.join(path))
    }
}

/// The Flux Kustomizations of one checked file's text.
pub(crate) fn entries(file: &Arc<str>, text: &str) -> Vec<Entry> {
    if !text.contains(GROUP) {
        return Vec::new();
    }
    yaml::parse_stream(text, Limits::default())
        .into_iter()
        .flatten()
        .filter_map(|doc| Entry::of(file, &doc.root))
        .collect()
}

/// The kustomization Flux builds for `entry`: the directory's own, as `original` (its JSON),
/// with every path rewritten by `rewrite` (to point at the repository from kvlint's temporary
/// directory) and the entry's options applied, plus kvlint's origin annotations.
pub(crate) fn edited_kustomization(
    original: &Json,
    entry: &Entry,
    build_metadata: &[String],
    rewrite: &dyn Fn(&str) -> String,
) -> Json {
    let mut kustomization = original.clone();
    if !kustomization.is_object() {
        kustomization = json!({});
    }
    rewrite_paths(&mut kustomization, rewrite);
    let object = kustomization
        .as_object_mut()
        .expect("a kustomization is an object here");
    object
        .entry("apiVersion")
        .or_insert_with(|| json!("kustomize.config.k8s.io/v1beta1"));
    object
        .entry("kind")
        .or_insert_with(|| json!("Kustomization"));
    if let Some(namespace) = entry.field("targetNamespace").filter(|n| !n.is_empty()) {
        object.insert("namespace".to_owned(), json!(namespace));
    }
    for (spec_key, key) in [("namePrefix", "namePrefix"), ("nameSuffix", "nameSuffix")] {
        if let Some(value) = entry.field(spec_key).filter(|v| !v.is_empty()) {
            object.insert(key.to_owned(), json!(value));
        }
    }
    if let Some(patches) = entry.spec.get("patches").and_then(Json::as_array) {
        let list = object
            .entry("patches")
            .or_insert_with(|| json!([]))
            .as_array_mut();
        if let Some(list) = list {
            list.extend(patches.iter().cloned());
        }
    }
    if let Some(components) = entry.spec.get("components").and_then(Json::as_array) {
        let list = object
            .entry("components")
            .or_insert_with(|| json!([]))
            .as_array_mut();
        if let Some(list) = list {
            list.extend(
                components
                    .iter()
                    .filter_map(Json::as_str)
                    .map(|component| json!(rewrite(component))),
            );
        }
    }
    let mut metadata = build_metadata.to_vec();
    for wanted in ["originAnnotations", "transformerAnnotations"] {
        if !metadata.iter().any(|m| m == wanted) {
            metadata.push(wanted.to_owned());
        }
    }
    object.insert("buildMetadata".to_owned(), json!(metadata));
    kustomization
}

/// The `buildMetadata` of the kustomization Flux builds for `entry`: `spec.buildMetadata` when
/// it is set (kustomize-controller v1.9); else, for a directory's own kustomization without
/// `resources`, `[originAnnotations]` alone (the generator sets it so that Kustomize does not
/// call the kustomization empty, and the applied objects then keep their origin annotation);
/// else the kustomization's own. `own` is None for a generated kustomization.
pub(crate) fn build_metadata(entry: &Entry, own: Option<&Kustomization>) -> Vec<String> {
    let spec: Vec<String> = entry
        .spec
        .get("buildMetadata")
        .and_then(Json::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Json::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    match own {
        _ if !spec.is_empty() => spec,
        Some(own) if !own.has_resources => vec!["originAnnotations".to_owned()],
        Some(own) => own.build_metadata.clone(),
        None => Vec::new(),
    }
}

/// Rewrites every path-typed field of a kustomization (as `Kustomization::read` lists them).
pub(crate) fn rewrite_paths(kustomization: &mut Json, rewrite: &dyn Fn(&str) -> String) {
    let Some(object) = kustomization.as_object_mut() else {
        return;
    };
    let path_string = |value: &mut Json| {
        if let Some(text) = value.as_str()
            && !text.contains('\n')
            && !super::kustomization::is_remote(text)
        {
            *value = json!(rewrite(text));
        }
    };
    let lists = RESOURCE_LISTS
        .iter()
        .chain(&["components"])
        .chain(&PATH_OR_INLINE_LISTS)
        .chain(&PATH_LISTS);
    for key in lists.copied() {
        if let Some(items) = object.get_mut(key).and_then(Json::as_array_mut) {
            items.iter_mut().for_each(path_string);
        }
    }
    for key in PATH_ITEM_LISTS {
        if let Some(items) = object.get_mut(key).and_then(Json::as_array_mut) {
            for item in items {
                if let Some(path) = item.get_mut("path") {
                    path_string(path);
                }
            }
        }
    }
    for key in GENERATOR_LISTS {
        if let Some(generators) = object.get_mut(key).and_then(Json::as_array_mut) {
            for generator in generators {
                if let Some(files) = generator.get_mut("files").and_then(Json::as_array_mut) {
                    for file in files {
                        if let Some(text) = file.as_str().map(str::to_owned) {
                            *file = match text.split_once('=') {
                                Some((key, path)) => json!(format!("{key}={}", rewrite(path))),
                                None => json!(rewrite(&text)),
                            };
                        }
                    }
                }
                if let Some(envs) = generator.get_mut("envs").and_then(Json::as_array_mut) {
                    envs.iter_mut().for_each(path_string);
                }
                if let Some(env) = generator.get_mut("env") {
                    path_string(env);
                }
            }
        }
    }
    if let Some(path) = object.get_mut("openapi").and_then(|o| o.get_mut("path")) {
        path_string(path);
    }
}

/// The variables of `spec.postBuild`, and findings about sources kvlint cannot read.
pub(crate) struct PostBuild {
    pub variables: Variables,
    pub strategy: Strategy,
    pub findings: Vec<Finding>,
    /// Whether every `substituteFrom` source was read: when one was not (not among the checked
    /// files), a variable nothing defines may come from it, so it is left as written instead of
    /// failing the build.
    pub complete: bool,
    /// Variables Flux has but whose values kvlint cannot read (encrypted), with the source
    /// that holds them. Expressions that use them are left as written.
    pub unknown: BTreeMap<String, String>,
    /// Where each known variable's value is defined (the definition that wins).
    pub definitions: BTreeMap<String, Location>,
    /// The checked files that hold the `substituteFrom` sources read: the unit changes with
    /// them although its build does not read them.
    pub source_files: BTreeSet<Arc<str>>,
}

/// A ConfigMap or Secret among the checked files that `substituteFrom` may name.
pub(crate) struct VariableSource {
    pub file: Arc<str>,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub data: Vec<(String, String)>,
    /// Keys whose values are encrypted (SOPS encrypts values, never keys): Flux reads the
    /// decrypted object from the cluster, kvlint knows only that the variable exists.
    pub sealed: Vec<String>,
    /// Where each key is written.
    pub key_spans: BTreeMap<String, Span>,
}

/// Reads `spec.postBuild` as the controller does: `substituteFrom` in order, later sources
/// overriding earlier ones, then `substitute`; None without `postBuild`.
pub(crate) fn post_build(entry: &Entry, sources: &[VariableSource]) -> Option<PostBuild> {
    let post_build = entry.spec.get("postBuild")?;
    let mut variables = Variables::new();
    let mut unknown = BTreeMap::new();
    let mut definitions = BTreeMap::new();
    let mut findings = Vec::new();
    let mut complete = true;
    let mut source_files = BTreeSet::new();
    let namespace = entry.namespace.as_deref().unwrap_or("default");
    for reference in post_build
        .get("substituteFrom")
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let kind = reference.get("kind").and_then(Json::as_str).unwrap_or("");
        let name = reference.get("name").and_then(Json::as_str).unwrap_or("");
        let optional = reference.get("optional").and_then(Json::as_bool) == Some(true);
        let found = sources.iter().find(|source| {
            source.kind == kind
                && source.name == name
                && source.namespace.as_deref().unwrap_or("default") == namespace
        });
        match found {
            Some(source) => {
                source_files.insert(Arc::clone(&source.file));
                for (key, value) in &source.data {
                    variables.set(key.clone(), value);
                    unknown.remove(key);
                    if let Some(span) = source.key_spans.get(key) {
                        definitions.insert(
                            key.clone(),
                            Location {
                                file: Arc::clone(&source.file),
                                span: *span,
                            },
                        );
                    }
                }
                for key in &source.sealed {
                    definitions.remove(key);
                    variables.set(key.clone(), &format!("${{{key}}}"));
                    unknown.insert(
                        key.clone(),
                        format!("{kind} {namespace}/{name}, encrypted with SOPS"),
                    );
                }
            }
            None if optional => {}
            None => {
                complete = false;
                findings.push(Finding::new(
                &rules::UNIT_NOT_RENDERED,
                entry.location(),
                format!(
                    "substituteFrom {kind} {namespace}/{name} is not among the checked files: its variables are unknown, and fields that use them are not checked"
                ),
            ));
            }
        }
    }
    if let Some(map) = post_build.get("substitute").and_then(Json::as_object) {
        for (key, value) in map {
            let text = match value {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            variables.set(key.clone(), &text);
            unknown.remove(key);
            if let Some(span) = entry.substitute_spans.get(key) {
                definitions.insert(
                    key.clone(),
                    Location {
                        file: Arc::clone(&entry.file),
                        span: *span,
                    },
                );
            }
        }
    }
    Some(PostBuild {
        variables,
        strategy: Strategy::from_field(post_build.get("substituteStrategy").and_then(Json::as_str)),
        findings,
        complete,
        unknown,
        definitions,
        source_files,
    })
}

/// The variable sources of a checked file: ConfigMaps (`data`) and Secrets (`data`, base64
/// decoded, and `stringData`). In a SOPS-encrypted one (a `sops` key), values written as
/// `ENC[…]` are sealed.
pub(crate) fn variable_sources(file: &Arc<str>, node: &Node) -> Option<VariableSource> {
    let kind = node.get("kind")?.as_str()?;
    if !matches!(kind, "ConfigMap" | "Secret") || node.get("apiVersion")?.as_str()? != "v1" {
        return None;
    }
    let metadata = node.get("metadata")?;
    let encrypted = node.get("sops").is_some();
    let mut data = Vec::new();
    let mut sealed = Vec::new();
    let mut key_spans = BTreeMap::new();
    let mut entries = |key: &str, decode: bool| {
        for entry in node.get(key).and_then(Node::as_map).unwrap_or_default() {
            key_spans.insert(entry.key.clone(), entry.key_span);
            let Some(value) = entry.value.as_str() else {
                continue;
            };
            if encrypted && value.starts_with("ENC[") {
                sealed.push(entry.key.clone());
            } else if !decode {
                data.push((entry.key.clone(), value.to_owned()));
            } else if let Some(decoded) =
                base64_decode(value).and_then(|bytes| String::from_utf8(bytes).ok())
            {
                data.push((entry.key.clone(), decoded));
            }
        }
    };
    if kind == "Secret" {
        entries("data", true);
        entries("stringData", false);
    } else {
        entries("data", false);
    }
    Some(VariableSource {
        file: Arc::clone(file),
        kind: kind.to_owned(),
        namespace: metadata
            .get("namespace")
            .and_then(Node::as_str)
            .map(str::to_owned),
        name: metadata.get("name")?.as_str()?.to_owned(),
        data,
        sealed,
        key_spans,
    })
}

/// Standard base64 (Kubernetes' Secret `data`), padding optional.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for byte in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((buffer >> bits) & 0xFF).to_le_bytes()[0]);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A build's output after substitution.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Substituted {
    pub text: String,
    /// Expressions left as written because a variable they use is unknown offline.
    pub unresolved: Vec<Unresolved>,
    /// Expressions substituted with known variables: the variables, and where the value is
    /// in the substituted text (bytes).
    pub resolved: Vec<(BTreeSet<String>, Range<usize>)>,
}

/// One expression left as written.
#[derive(Debug, PartialEq)]
pub(crate) struct Unresolved {
    /// Its text, `${` to `}`.
    pub expression: String,
    /// The unknown variables it uses.
    pub names: BTreeSet<String>,
    /// Where it is in the substituted text (bytes).
    pub range: Range<usize>,
}

/// Substitutes the variables into each document of a build's output, as the controller does
/// per object; the first failure is Flux's, and the build fails with it.
pub(crate) fn substitute(output: &str, post_build: &PostBuild) -> Result<Substituted, String> {
    let mut out = Substituted {
        text: String::with_capacity(output.len()),
        ..Substituted::default()
    };
    for (i, document) in split_documents(output).into_iter().enumerate() {
        if i > 0 {
            out.text.push_str("---\n");
        }
        let opted_out = yaml::parse_stream(document, Limits::default())
            .into_iter()
            .flatten()
            .next()
            .map_or((None, None), |doc| opt_out(&doc.root));
        if !envsubst::runs(
            post_build.strategy,
            &post_build.variables,
            opted_out.0.as_deref(),
            opted_out.1.as_deref(),
        ) {
            out.text.push_str(document);
            continue;
        }
        let offset = out.text.len();
        let substituted = substitute_document(document, post_build)?;
        out.text.push_str(&substituted.text);
        out.unresolved
            .extend(substituted.unresolved.into_iter().map(|mut unresolved| {
                unresolved.range = unresolved.range.start + offset..unresolved.range.end + offset;
                unresolved
            }));
        out.resolved.extend(
            substituted
                .resolved
                .into_iter()
                .map(|(names, range)| (names, range.start + offset..range.end + offset)),
        );
    }
    Ok(out)
}

/// Variables left as written in one document, at most (each needs another pass).
const MAX_UNKNOWN_VARIABLES: usize = 64;

/// One document substituted. An expression that uses a variable whose value is unknown (sealed,
/// or, with incomplete sources, one nothing defines) keeps its `${…}` text, where Flux,
/// knowing the value, would substitute it.
fn substitute_document(document: &str, post_build: &PostBuild) -> Result<Substituted, String> {
    let mut variables = post_build.variables.clone();
    let mut unknown: BTreeSet<String> = post_build.unknown.keys().cloned().collect();
    for _ in 0..=MAX_UNKNOWN_VARIABLES {
        match envsubst::substitute(document, &variables, Strictness::Full) {
            Ok(substituted) => return Ok(keep_unknown(document, &substituted, &unknown)),
            Err(envsubst::SubstitutionError::VariableNotSet { name, .. })
                if !post_build.complete =>
            {
                let written = format!("${{{name}}}");
                variables.set(name.clone(), &written);
                unknown.insert(name);
            }
            Err(error) => {
                return Err(error
                    .controller_message()
                    .unwrap_or_else(|| error.to_string()));
            }
        }
    }
    Ok(Substituted {
        text: document.to_owned(),
        ..Substituted::default()
    })
}

/// The substituted text with every expression that uses an unknown variable put back as
/// written, and where the others' values are.
fn keep_unknown(
    document: &str,
    substituted: &envsubst::Substituted,
    unknown: &BTreeSet<String>,
) -> Substituted {
    let mut out = Substituted::default();
    let mut copied = 0;
    for substitution in &substituted.substitutions {
        out.text
            .push_str(&substituted.text[copied..substitution.output.start]);
        copied = substitution.output.end;
        let start = out.text.len();
        let names = |unknown_ones: bool| -> BTreeSet<String> {
            substitution
                .references
                .iter()
                .filter(|reference| {
                    reference.set && unknown.contains(&reference.name) == unknown_ones
                })
                .map(|reference| reference.name.clone())
                .collect()
        };
        let unknown_names = names(true);
        if unknown_names.is_empty() {
            out.text
                .push_str(&substituted.text[substitution.output.clone()]);
            let known = names(false);
            if !known.is_empty() {
                out.resolved.push((known, start..out.text.len()));
            }
            continue;
        }
        let expression = &document[substitution.span.clone()];
        out.text.push_str(expression);
        out.unresolved.push(Unresolved {
            expression: expression.to_owned(),
            names: unknown_names,
            range: start..out.text.len(),
        });
    }
    out.text.push_str(&substituted.text[copied..]);
    out
}

/// The `kustomize.toolkit.fluxcd.io/substitute` label and annotation of an object.
fn opt_out(node: &Node) -> (Option<String>, Option<String>) {
    let value = |key: &str| {
        node.get("metadata")
            .and_then(|m| m.get(key))
            .and_then(|m| m.get(envsubst::OPT_OUT_KEY))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    (value("labels"), value("annotations"))
}

/// The documents of Kustomize's output: it separates them with a `---` line.
fn split_documents(output: &str) -> Vec<&str> {
    let mut documents = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in output.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "---" {
            documents.push(&output[start..at]);
            start = at + line.len();
        }
        at += line.len();
    }
    documents.push(&output[start..]);
    documents
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> Entry {
        entries(&Arc::from("clusters/prod/apps.yaml"), text).remove(0)
    }

    const APPS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps/web/overlays/prod
  targetNamespace: web
  namePrefix: flux-
  patches:
    - target: {kind: VirtualMachine}
      patch: |
        - op: add
          path: /metadata/labels/flux
          value: yes
  components: [../../components/gpu]
  postBuild:
    substitute:
      SIZE: large
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
";

    #[test]
    fn the_controller_edits_are_applied_and_paths_point_back() {
        let entry = entry(APPS);
        assert_eq!(entry.path, "./apps/web/overlays/prod");
        assert_eq!(
            entry.directory(Path::new("repo")),
            Path::new("repo/apps/web/overlays/prod")
        );
        let original = json!({
            "namePrefix": "prod-",
            "resources": ["../../base", "https://example.com/x.yaml"],
            "patches": [{"path": "size.yaml"}],
            "configMapGenerator": [{"name": "c", "files": ["userdata=init.yaml"]}],
        });
        let edited = edited_kustomization(&original, &entry, &[], &|p| format!("R/{p}"));
        assert_eq!(edited["namespace"], "web");
        assert_eq!(edited["namePrefix"], "flux-", "Flux replaces the prefix");
        assert_eq!(
            edited["resources"],
            json!(["R/../../base", "https://example.com/x.yaml"])
        );
        assert_eq!(edited["patches"][0]["path"], "R/size.yaml");
        assert_eq!(edited["patches"][1]["target"]["kind"], "VirtualMachine");
        assert_eq!(edited["components"], json!(["R/../../components/gpu"]));
        assert_eq!(
            edited["configMapGenerator"][0]["files"],
            json!(["userdata=R/init.yaml"])
        );
        assert_eq!(
            edited["buildMetadata"],
            json!(["originAnnotations", "transformerAnnotations"])
        );
    }

    #[test]
    fn variables_come_from_sources_then_substitute() {
        let entry = entry(APPS);
        let config_map = yaml::parse_stream(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-vars, namespace: flux-system}\ndata: {SIZE: small, REGION: eu}\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
        let sources = vec![variable_sources(&Arc::from("vars.yaml"), &config_map).unwrap()];
        let post_build = post_build(&entry, &sources).unwrap();
        assert_eq!(post_build.variables.get("SIZE"), Some("large"));
        assert_eq!(post_build.variables.get("REGION"), Some("eu"));
        assert!(post_build.findings.is_empty());
        let output = "a: ${SIZE}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n---\nc: ${MISSING}\n";
        assert_eq!(
            substitute(output, &post_build).unwrap_err(),
            "envsubst error: variable substitution failed: variable not set (strict mode): \"MISSING\""
        );
        let output = "a: ${SIZE}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n";
        assert_eq!(
            substitute(output, &post_build).unwrap().text,
            "a: large\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n"
        );
    }

    #[test]
    fn unknown_sources_leave_their_variables_as_written() {
        let entry = entry(APPS);
        // cluster-vars is not among the sources: SIZE is known, anything else may come from it.
        let post_build = post_build(&entry, &[]).unwrap();
        assert!(!post_build.complete);
        assert_eq!(post_build.findings.len(), 1);
        let substituted =
            substitute("a: ${SIZE}\nb: ${REGION}\nc: ${ZONE:=z}\n", &post_build).unwrap();
        assert_eq!(substituted.text, "a: large\nb: ${REGION}\nc: z\n");
        assert_eq!(substituted.unresolved.len(), 1);
        assert_eq!(substituted.unresolved[0].range, 12..21);
    }

    #[test]
    fn secrets_are_decoded_and_encrypted_ones_reported() {
        let secret = yaml::parse_stream(
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {A: aGVsbG8=}\nstringData: {B: x}\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
        let source = variable_sources(&Arc::from("secret.yaml"), &secret).unwrap();
        assert_eq!(
            source.data,
            [
                ("A".to_owned(), "hello".to_owned()),
                ("B".to_owned(), "x".to_owned())
            ]
        );
        assert!(source.sealed.is_empty());
        assert_eq!(base64_decode("aGk"), Some(b"hi".to_vec()));
        assert_eq!(base64_decode("a*"), None);
    }

    #[test]
    fn sealed_variables_are_known_by_name_and_left_as_written() {
        let entry = entry(APPS);
        let secret = yaml::parse_stream(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-vars, namespace: flux-system}\ndata:\n  SIZE: ENC[AES256_GCM,data:x,type:str]\n  ZONE: ENC[AES256_GCM,data:y,type:str]\n  PLAIN: clear\nsops:\n  version: 3.9.0\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
        let source = variable_sources(&Arc::from("secret.yaml"), &secret).unwrap();
        assert_eq!(source.sealed, ["SIZE", "ZONE"]);
        assert_eq!(source.data, [("PLAIN".to_owned(), "clear".to_owned())]);
        let post_build = post_build(&entry, &[source]).unwrap();
        assert!(
            post_build.complete,
            "the names of an encrypted source are known"
        );
        // `substitute` defines SIZE: only ZONE is unknown.
        assert_eq!(
            post_build.unknown.keys().collect::<Vec<_>>(),
            ["ZONE"],
            "{:?}",
            post_build.unknown
        );
        let substituted = substitute(
            "a: ${SIZE}\nb: ${ZONE:-x}-${PLAIN}\nc: ${MISSING:=d}\n",
            &post_build,
        )
        .unwrap();
        assert_eq!(substituted.text, "a: large\nb: ${ZONE:-x}-clear\nc: d\n");
        let resolved: Vec<(Vec<&str>, &str)> = substituted
            .resolved
            .iter()
            .map(|(names, range)| {
                (
                    names.iter().map(String::as_str).collect(),
                    &substituted.text[range.clone()],
                )
            })
            .collect();
        assert_eq!(
            resolved,
            [(vec!["SIZE"], "large"), (vec!["PLAIN"], "clear")],
            "a default of an unset variable comes from no variable"
        );
        assert_eq!(substituted.unresolved.len(), 1);
        assert_eq!(substituted.unresolved[0].expression, "${ZONE:-x}");
        assert_eq!(
            &substituted.text[substituted.unresolved[0].range.clone()],
            "${ZONE:-x}"
        );
        // Nothing defines MISSING and every source was read: Flux fails.
        assert!(substitute("a: ${MISSING}\n", &post_build).is_err());
    }

    #[test]
    fn build_metadata_follows_the_controller() {
        let mut entry = entry(APPS);
        let own = |text: &str| {
            let root = yaml::parse_stream(text, Limits::default())
                .remove(0)
                .unwrap()
                .root;
            Kustomization::read(Arc::from("k/kustomization.yaml"), &root)
        };
        let listed = own("resources: [vm.yaml]\nbuildMetadata: [managedByLabel]\n");
        assert_eq!(build_metadata(&entry, Some(&listed)), ["managedByLabel"]);
        let no_resources = own("components: [../c]\nbuildMetadata: [managedByLabel]\n");
        assert_eq!(
            build_metadata(&entry, Some(&no_resources)),
            ["originAnnotations"]
        );
        assert!(build_metadata(&entry, None).is_empty());
        entry.spec["buildMetadata"] = json!(["transformerAnnotations"]);
        assert_eq!(
            build_metadata(&entry, Some(&no_resources)),
            ["transformerAnnotations"]
        );
    }
}
