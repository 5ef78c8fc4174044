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

mod artifact;
mod generated;
pub(super) mod jobs;
mod post_build;
mod sourceignore;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value as Json, json};

use super::kustomization::{
    GENERATOR_LISTS, Kustomization, PATH_ITEM_LISTS, PATH_LISTS, PATH_OR_INLINE_LISTS,
    RESOURCE_LISTS,
};
use crate::diag::Location;
use crate::k8s::normalise_path;
use crate::yaml::{self, Limits, Node, Span};

pub(crate) use artifact::listed_left_out;
#[cfg(test)]
pub(crate) use post_build::variable_sources;
pub(crate) use post_build::{
    PostBuild, Unresolved, VariableSource, post_build, substitute, variable_sources_in,
};
pub(crate) use sourceignore::Exclusion;

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
        if !is_object_of(node, GROUP, "Kustomization") {
            return None;
        }
        let text = |key: &str| metadata_text(node, key);
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

/// Whether `node` is an object of `kind` in the API group `group` (any version).
fn is_object_of(node: &Node, group: &str, kind: &str) -> bool {
    node.get("apiVersion")
        .and_then(Node::as_str)
        .is_some_and(|version| version.split('/').next() == Some(group))
        && node.get("kind").and_then(Node::as_str) == Some(kind)
}

/// The text of `metadata.<key>` of the object `node`.
fn metadata_text(node: &Node, key: &str) -> Option<String> {
    node.get("metadata")
        .and_then(|m| m.get(key))
        .and_then(Node::as_str)
        .map(str::to_owned)
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
