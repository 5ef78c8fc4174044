//! A Flux HelmRelease's `spec.postRenderers`. helm-controller runs each `kustomize` post
//! renderer, in order, over the output of the one before (the first over `helm template`'s):
//! a kustomization whose only resource is that output, with the renderer's `patches` and
//! `images` (and, in the `v2beta1`/`v2beta2` APIs, `patchesStrategicMerge` and
//! `patchesJson6902`). kvlint writes the same kustomization into a private directory and
//! builds it with the real Kustomize; the fields the patches wrote point at their lines in the
//! HelmRelease, the others keep their template lines.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};

use crate::diag::{Finding, Location};
use crate::k8s::Attribute;
use crate::rules;
use crate::units::Tool;
use crate::units::outcome::BuildError;
use crate::units::provenance::{self, Layer, Subject};
use crate::units::rendered::changed_leaves;
use crate::yaml::{FieldPath, Mapping, Node, Span, Value};

use super::positions::place_all;

/// The resource name helm-controller gives the rendered output in its kustomization.
const INPUT: &str = "helm-output.yaml";

/// The post renderers of one HelmRelease.
#[derive(Debug)]
pub(super) struct PostRenderers {
    /// The HelmRelease's file, as the report names it, and its text.
    pub file: Arc<str>,
    pub text: Arc<str>,
    /// `spec.postRenderers`.
    pub span: Span,
    pub renderers: Vec<PostRenderer>,
}

/// One `kustomize` post renderer.
#[derive(Debug)]
pub(super) struct PostRenderer {
    /// Its item of `spec.postRenderers`.
    pub span: Span,
    /// Its `kustomize` node: the patches and images whose lines fields are attributed to.
    node: Node,
    /// The kustomization helm-controller builds from it, without its resource.
    kustomization: Json,
}

impl PostRenderers {
    /// The post renderers of a HelmRelease's `spec` (of `api_version`, in `file` whose text is
    /// `text`); None when it has no `kustomize` post renderer.
    pub(super) fn of(
        file: &Arc<str>,
        text: &Arc<str>,
        spec: &Node,
        api_version: &str,
    ) -> Option<Self> {
        let entry = spec.entry("postRenderers")?;
        // The deprecated fields left the schema with `v2`: the API server prunes them there.
        let deprecated = api_version.starts_with("helm.toolkit.fluxcd.io/v2beta");
        let renderers: Vec<PostRenderer> = entry
            .value
            .as_seq()?
            .iter()
            .filter_map(|item| {
                let node = item.get("kustomize")?;
                Some(PostRenderer {
                    span: item.span,
                    kustomization: kustomization(node, deprecated),
                    node: node.clone(),
                })
            })
            .collect();
        (!renderers.is_empty()).then(|| Self {
            file: Arc::clone(file),
            text: Arc::clone(text),
            span: Span {
                start: entry.key_span.start,
                end: entry.value.span.end.max(entry.key_span.end),
            },
            renderers,
        })
    }

    /// Where findings about the post renderers point.
    pub(super) fn location(&self, span: Span) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span,
        }
    }
}

/// The kustomization of a `kustomize` post renderer, as helm-controller builds it.
fn kustomization(node: &Node, deprecated: bool) -> Json {
    let mut out = Map::new();
    out.insert(
        "apiVersion".into(),
        "kustomize.config.k8s.io/v1beta1".into(),
    );
    out.insert("kind".into(), "Kustomization".into());
    out.insert("resources".into(), json!([INPUT]));
    let list = |key: &str| node.get(key).and_then(Node::as_seq).unwrap_or_default();
    let images: Vec<Json> = list("images")
        .iter()
        .map(|image| strings(image, &["name", "newName", "newTag", "digest"]))
        .collect();
    if !images.is_empty() {
        out.insert("images".into(), Json::Array(images));
    }
    let patches: Vec<Json> = list("patches")
        .iter()
        .map(|patch| {
            let mut entry = strings(patch, &["patch"]);
            if let (Some(target), Json::Object(map)) = (patch.get("target"), &mut entry) {
                map.insert("target".into(), selector(target));
            }
            entry
        })
        .collect();
    if !patches.is_empty() {
        out.insert("patches".into(), Json::Array(patches));
    }
    if deprecated {
        // Objects only: Kustomize reads a string item as the path of a file.
        let merges: Vec<Json> = list("patchesStrategicMerge")
            .iter()
            .filter(|patch| patch.as_map().is_some())
            .map(|patch| Json::String(patch.to_json().to_string()))
            .collect();
        if !merges.is_empty() {
            out.insert("patchesStrategicMerge".into(), Json::Array(merges));
        }
        let operations: Vec<Json> = list("patchesJson6902")
            .iter()
            .map(|patch| {
                let operations = patch.get("patch").map_or(Json::Null, Node::to_json);
                json!({
                    "target": patch.get("target").map_or_else(|| json!({}), selector),
                    "patch": operations.to_string(),
                })
            })
            .collect();
        if !operations.is_empty() {
            out.insert("patchesJson6902".into(), Json::Array(operations));
        }
    }
    Json::Object(out)
}

/// The non-empty string fields `keys` of `node` (Kustomize's types omit empty ones).
fn strings(node: &Node, keys: &[&str]) -> Json {
    let map: Map<String, Json> = keys
        .iter()
        .filter_map(|key| {
            let value = node.get(key)?.as_str().filter(|v| !v.is_empty())?;
            Some(((*key).to_owned(), Json::String(value.to_owned())))
        })
        .collect();
    Json::Object(map)
}

/// A Flux selector as Kustomize's: the same fields, the group, version and kind inline.
fn selector(node: &Node) -> Json {
    strings(
        node,
        &[
            "group",
            "version",
            "kind",
            "name",
            "namespace",
            "labelSelector",
            "annotationSelector",
        ],
    )
}

/// A post renderer that failed: its index and Kustomize's error.
pub(super) type Failure = (usize, BuildError);

/// Runs the post renderers over `output` with `tool`, each in its own directory under `dir`.
pub(super) fn apply(
    renderers: &PostRenderers,
    output: &str,
    tool: &Tool,
    dir: &Path,
) -> Result<String, Failure> {
    let mut current = output.to_owned();
    for (n, renderer) in renderers.renderers.iter().enumerate() {
        let failed = |err: std::io::Error| {
            (
                n,
                BuildError::Failed(format!("cannot write to a temporary directory: {err}")),
            )
        };
        let build = dir.join(n.to_string());
        std::fs::create_dir_all(&build).map_err(failed)?;
        std::fs::write(build.join(INPUT), &current).map_err(failed)?;
        // JSON is YAML, and no patch text needs quoting rules.
        let text = serde_json::to_string_pretty(&renderer.kustomization).unwrap_or_default();
        std::fs::write(build.join("kustomization.yaml"), text).map_err(failed)?;
        current = tool.build(&build, &[]).map_err(|error| (n, error))?;
    }
    Ok(current)
}

/// An object of the post-rendered output: its file and node, its fields at the lines of the
/// document `helm template` rendered it from, and what finds the patch lines of the others.
pub(super) struct Relocated {
    pub file: Arc<str>,
    pub root: Node,
    pub attribution: PatchLines,
}

/// Places the documents of the post-rendered `output` (`post`) at the lines of the `helm
/// template` documents (or items of a list) they came from (`placed`, each with its file),
/// matched by kind, apiVersion, name and namespace. A document that matches none (a patch renamed it) is
/// placed at `spec.postRenderers`.
pub(super) fn relocate(
    renderers: &Arc<PostRenderers>,
    placed: &[(Arc<str>, Node)],
    post: Vec<Node>,
) -> Vec<Relocated> {
    // Kustomize reads the items of a `…List` as objects of their own.
    let mut by_identity = std::collections::BTreeMap::new();
    for (file, node) in placed {
        let kind = node.get("kind").and_then(Node::as_str).unwrap_or_default();
        let items = node
            .get("items")
            .and_then(Node::as_seq)
            .filter(|_| kind.ends_with("List"));
        for object in items.unwrap_or_else(|| std::slice::from_ref(node)) {
            if let Some(id) = identity(object) {
                let id = id.map(|part| part.map(str::to_owned));
                by_identity.entry(id).or_insert((file, object));
            }
        }
    }
    post.into_iter()
        .map(|mut root| {
            let origin = identity(&root)
                .map(|id| id.map(|part| part.map(str::to_owned)))
                .and_then(|id| by_identity.get(&id));
            let (file, written) = if let Some((file, node)) = origin {
                carry(&mut root, node);
                (Arc::clone(file), Some(node.to_json()))
            } else {
                place_all(&mut root, renderers.span);
                (Arc::clone(&renderers.file), None)
            };
            let text = |node: Option<&Json>, pointer: &str| {
                node.and_then(|n| n.pointer(pointer))
                    .and_then(Json::as_str)
                    .map(str::to_owned)
            };
            let attribution = PatchLines {
                renderers: Arc::clone(renderers),
                original_name: text(written.as_ref(), "/metadata/name"),
                original_namespace: text(written.as_ref(), "/metadata/namespace"),
                rendered: root.to_json(),
                written,
            };
            Relocated {
                file,
                root,
                attribution,
            }
        })
        .collect()
}

/// What Kustomize identifies an object by: kind, apiVersion, name and namespace.
type Identity<'n> = [Option<&'n str>; 4];

fn identity(node: &Node) -> Option<Identity<'_>> {
    fn text<'n>(parent: Option<&'n Node>, key: &str) -> Option<&'n str> {
        parent?.get(key).and_then(Node::as_str)
    }
    let metadata = node.get("metadata");
    Some([
        Some(text(Some(node), "kind")?),
        text(Some(node), "apiVersion"),
        Some(text(metadata, "name")?),
        text(metadata, "namespace"),
    ])
}

/// Gives `node` the positions of `from` wherever `from` has the same field; a field `from`
/// lacks (a patch added it) takes its parent's position.
fn carry(node: &mut Node, from: &Node) {
    node.span = from.span;
    match (&mut node.value, &from.value) {
        (Value::Map(map), Value::Map(_)) => {
            let mut entries = std::mem::take(map).into_vec();
            for entry in &mut entries {
                if let Some(original) = from.entry(&entry.key) {
                    entry.key_span = original.key_span;
                    carry(&mut entry.value, &original.value);
                } else {
                    entry.key_span = from.span;
                    place_all(&mut entry.value, from.span);
                }
            }
            *map = Mapping::new(entries);
        }
        (Value::Seq(items), Value::Seq(originals)) => {
            let same_length = items.len() == originals.len();
            for (i, item) in items.iter_mut().enumerate() {
                let name = item.get("name").and_then(Node::as_str);
                let original = if same_length {
                    originals.get(i)
                } else {
                    name.and_then(|name| {
                        originals
                            .iter()
                            .find(|o| o.get("name").and_then(Node::as_str) == Some(name))
                    })
                };
                match original {
                    Some(original) => carry(item, original),
                    None => place_all(item, from.span),
                }
            }
        }
        _ => place_all(node, from.span),
    }
}

/// Finds the post renderer line that wrote a field of one object: the patch or image entry
/// that wrote it, else (a field Kustomize changed in a way kvlint does not trace) the post
/// renderer itself. A field equal to the `helm template` output's has none.
#[derive(Debug)]
pub(super) struct PatchLines {
    renderers: Arc<PostRenderers>,
    rendered: Json,
    /// The object as `helm template` rendered it; None when it is not known.
    written: Option<Json>,
    original_name: Option<String>,
    original_namespace: Option<String>,
}

impl PatchLines {
    fn attribute(&self, path: &FieldPath) -> Option<Location> {
        let subject = Subject {
            rendered: &self.rendered,
            original_name: self.original_name.as_deref(),
            original_namespace: self.original_namespace.as_deref(),
        };
        let layers: Vec<Layer<'_>> = self
            .renderers
            .renderers
            .iter()
            .map(|renderer| Layer {
                file: &self.renderers.file,
                text: &self.renderers.text,
                root: &renderer.node,
            })
            .collect();
        let read = |_: &str| None;
        provenance::attribute(&subject, path, &layers, &read).map(|found| found.location)
    }

    /// The post renderer a changed field is put down to when no patch line is found: the
    /// only one, or all of them.
    fn fallback(&self) -> Location {
        match self.renderers.renderers.as_slice() {
            [only] => self.renderers.location(only.span),
            _ => self.renderers.location(self.renderers.span),
        }
    }
}

impl Attribute for PatchLines {
    fn location(&self, path: &FieldPath) -> Option<Location> {
        let pointer = crate::yaml::json_pointer(path);
        let rendered = self.rendered.pointer(&pointer)?;
        let written = self.written.as_ref().and_then(|w| w.pointer(&pointer));
        if written == Some(rendered) {
            return None;
        }
        if let Some(found) = self.attribute(path) {
            return Some(found);
        }
        let mut leaves = Vec::new();
        changed_leaves(rendered, written, path, &mut leaves);
        leaves
            .iter()
            .find_map(|leaf| self.attribute(leaf))
            .or_else(|| Some(self.fallback()))
    }
}

/// The post-rendered output of a release (`label`) whose `helm template` output is `output`,
/// built with `tool` (or the reason there is none) in `dir`; and the finding that says why
/// the post renderers were not applied, when they were not.
pub(super) fn run(
    renderers: &PostRenderers,
    label: &str,
    output: &str,
    tool: Result<&Tool, &str>,
    dir: &Path,
) -> (Option<String>, Option<Finding>) {
    let tool = match tool {
        Ok(tool) => tool,
        Err(reason) => {
            let finding = Finding::new(
                &rules::UNIT_NOT_RENDERED,
                renderers.location(renderers.span),
                format!(
                    "post renderers not applied: {reason}; the objects of {label} are checked as `helm template` renders them, without its spec.postRenderers"
                ),
            )
            .with_help("install kustomize or kubectl, or pass --kustomize-command, so that the post renderers' patches are applied as helm-controller applies them");
            return (None, Some(finding));
        }
    };
    match apply(renderers, output, tool, dir) {
        Ok(text) => (Some(text), None),
        Err((n, error)) => {
            let problem = match error {
                BuildError::Refused(message) | BuildError::Failed(message) => message,
            };
            let span = renderers
                .renderers
                .get(n)
                .map_or(renderers.span, |r| r.span);
            let finding = Finding::new(
                &rules::KUSTOMIZE_BUILD_FAILED,
                renderers.location(span),
                format!(
                    "post renderer {} of {label} cannot be applied: {} failed: {problem}",
                    n + 1,
                    tool.label
                ),
            )
            .with_help("helm-controller cannot install or upgrade a release whose post renderer fails; the objects are checked as `helm template` renders them, without the post renderers");
            (None, Some(finding))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::first_root as parse;

    const RELEASE: &str = "\
apiVersion: helm.toolkit.fluxcd.io/v2beta2
kind: HelmRelease
spec:
  postRenderers:
    - {}
    - kustomize:
        images:
          - name: fedora
            newTag: \"41\"
            newName: \"\"
        patches:
          - target:
              kind: VirtualMachine
              name: web
            patch: |
              - op: replace
                path: /spec/instancetype/name
                value: u1.large
        patchesStrategicMerge:
          - kind: VirtualMachine
            metadata:
              name: web
          - ../outside.yaml
";

    fn renderers(api_version: &str) -> PostRenderers {
        let root = parse(RELEASE);
        let file: Arc<str> = Arc::from("release.yaml");
        let text: Arc<str> = Arc::from(RELEASE);
        PostRenderers::of(&file, &text, root.get("spec").unwrap(), api_version).unwrap()
    }

    #[test]
    fn the_kustomization_is_helm_controllers() {
        let found = renderers("helm.toolkit.fluxcd.io/v2");
        assert_eq!(
            found.renderers.len(),
            1,
            "a renderer without kustomize is skipped"
        );
        assert_eq!(found.span.start.line, 4);
        assert_eq!(found.renderers[0].span.start.line, 6);
        assert_eq!(
            found.renderers[0].kustomization,
            json!({
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": ["helm-output.yaml"],
                "images": [{"name": "fedora", "newTag": "41"}],
                "patches": [{
                    "patch": "- op: replace\n  path: /spec/instancetype/name\n  value: u1.large\n",
                    "target": {"kind": "VirtualMachine", "name": "web"},
                }],
            })
        );
        let beta = renderers("helm.toolkit.fluxcd.io/v2beta2");
        assert_eq!(
            beta.renderers[0].kustomization["patchesStrategicMerge"],
            json!([r#"{"kind":"VirtualMachine","metadata":{"name":"web"}}"#])
        );
        let none = parse("postRenderers: [{}]\n");
        assert!(PostRenderers::of(&Arc::from("f"), &Arc::from(""), &none, "").is_none());
    }

    const HELM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  instancetype:
    name: u1.small
  volumes:
    - name: a
    - name: b
";

    const POST: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  instancetype:
    name: u1.large
  running: true
  volumes:
  - name: b
";

    #[test]
    fn fields_keep_their_template_lines_and_patched_ones_point_at_the_patch() {
        let renderers = Arc::new(renderers("helm.toolkit.fluxcd.io/v2"));
        let template: Arc<str> = Arc::from("templates/vm.yaml");
        let placed = vec![(Arc::clone(&template), parse(HELM))];
        let mut out = relocate(&renderers, &placed, vec![parse(POST)]);
        let object = out.pop().unwrap();
        assert_eq!(object.file, template);
        let line = |path: &str| {
            let (span, _) = object.root.lookup_entry_span(&FieldPath::parse(path));
            span.start.line
        };
        assert_eq!(line("metadata.name"), 4);
        assert_eq!(line("spec.instancetype.name"), 7);
        // Added by a patch: at the mapping holding it.
        assert_eq!(line("spec.running"), 6);
        // Matched by name in a list the patch shortened.
        assert_eq!(line("spec.volumes[0]"), 10);
        let at = |path: &str| {
            object
                .attribution
                .location(&FieldPath::parse(path))
                .map(|l| (l.file.to_string(), l.span.start.line))
        };
        assert_eq!(at("metadata.name"), None);
        assert_eq!(
            at("spec.instancetype.name"),
            Some(("release.yaml".to_owned(), 18))
        );
        assert_eq!(
            at("spec.instancetype"),
            Some(("release.yaml".to_owned(), 18))
        );
        // Changed by none of its patch lines: at its post renderer.
        assert_eq!(at("spec.running"), Some(("release.yaml".to_owned(), 6)));
    }

    #[test]
    fn an_item_of_a_list_keeps_its_lines() {
        let renderers = Arc::new(renderers("helm.toolkit.fluxcd.io/v2"));
        let list = "\
kind: List
items:
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: web
    spec:
      instancetype:
        name: u1.small
";
        let placed = vec![(Arc::from("templates/list.yaml"), parse(list))];
        let out = relocate(&renderers, &placed, vec![parse(POST)]);
        assert_eq!(&*out[0].file, "templates/list.yaml");
        let (span, _) = out[0]
            .root
            .lookup_entry_span(&FieldPath::parse("spec.instancetype.name"));
        assert_eq!(span.start.line, 9);
    }

    #[test]
    fn an_object_no_template_rendered_is_placed_at_the_post_renderers() {
        let renderers = Arc::new(renderers("helm.toolkit.fluxcd.io/v2"));
        let out = relocate(&renderers, &[], vec![parse(POST)]);
        assert_eq!(&*out[0].file, "release.yaml");
        assert_eq!(out[0].root.span.start.line, 4);
    }
}
