//! A kustomization file as kvlint reads it: every path it makes Kustomize read, with its
//! position, and the settings the wrapper must carry (fields of Kustomize's `Kustomization`
//! type in api/types/kustomization.go).

use std::sync::Arc;

use crate::yaml::{Node, Span, Value};

/// The file names Kustomize looks for in a directory, in its order.
pub(crate) const FILE_NAMES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The path-typed fields of a kustomization, by shape: [`Kustomization::read`] reads them,
/// and a Flux build rewrites them (`flux::edited_kustomization`), so both follow one list.
/// `resources`/`bases`: lists of manifests, directories or remote targets.
pub(crate) const RESOURCE_LISTS: [&str; 2] = ["resources", "bases"];
/// Lists of paths or inline documents (only single-line strings are paths).
pub(crate) const PATH_OR_INLINE_LISTS: [&str; 4] = [
    "patchesStrategicMerge",
    "generators",
    "transformers",
    "validators",
];
/// Lists of paths.
pub(crate) const PATH_LISTS: [&str; 2] = ["configurations", "crds"];
/// Lists of items with a `path`.
pub(crate) const PATH_ITEM_LISTS: [&str; 3] = ["patches", "patchesJson6902", "replacements"];
/// Generators with `files` (`key=path` or `path`), `envs` and `env`.
pub(crate) const GENERATOR_LISTS: [&str; 2] = ["configMapGenerator", "secretGenerator"];

/// What a referenced path is to Kustomize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// `resources`/`bases`: a manifest file, a kustomization directory or a remote target.
    Resource,
    /// `components`: a directory whose kustomization has `kind: Component`.
    Component,
    /// Any other path-typed field: patches, generator inputs, schemas, configurations.
    File,
}

/// One path a kustomization makes Kustomize read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    pub kind: RefKind,
    pub value: String,
    pub span: Span,
}

/// A parsed kustomization file.
#[derive(Clone, Debug)]
pub(crate) struct Kustomization {
    pub file: Arc<str>,
    pub is_component: bool,
    /// Whether `resources` lists anything.
    pub has_resources: bool,
    pub references: Vec<Reference>,
    /// `buildMetadata` entries the unit asks for itself (kept in the wrapper).
    pub build_metadata: Vec<String>,
    /// `sortOptions`, which Kustomize reads from the top kustomization only.
    pub sort_options: Option<serde_json::Value>,
}

impl Kustomization {
    pub(crate) fn read(file: Arc<str>, root: &Node) -> Self {
        let mut references = Vec::new();
        let mut add = |kind: RefKind, node: &Node| {
            if let Some(value) = node.as_str().filter(|v| !v.trim().is_empty()) {
                references.push(Reference {
                    kind,
                    value: value.to_owned(),
                    span: node.span,
                });
            }
        };
        let seq = |key: &str| root.get(key).and_then(Node::as_seq).unwrap_or(&[]);
        for key in RESOURCE_LISTS {
            for item in seq(key) {
                add(RefKind::Resource, item);
            }
        }
        for item in seq("components") {
            add(RefKind::Component, item);
        }
        for key in PATH_OR_INLINE_LISTS {
            for item in seq(key) {
                if item.as_str().is_some_and(|s| !s.contains('\n')) {
                    add(RefKind::File, item);
                }
            }
        }
        for key in PATH_LISTS {
            for item in seq(key) {
                add(RefKind::File, item);
            }
        }
        for key in PATH_ITEM_LISTS {
            for item in seq(key) {
                if let Some(path) = item.get("path") {
                    add(RefKind::File, path);
                }
            }
        }
        for key in GENERATOR_LISTS {
            for generator in seq(key) {
                for item in generator.get("files").and_then(Node::as_seq).unwrap_or(&[]) {
                    generator_file(item, &mut add);
                }
                for item in generator.get("envs").and_then(Node::as_seq).unwrap_or(&[]) {
                    add(RefKind::File, item);
                }
                if let Some(env) = generator.get("env") {
                    add(RefKind::File, env);
                }
            }
        }
        if let Some(path) = root.get("openapi").and_then(|o| o.get("path")) {
            add(RefKind::File, path);
        }
        if let Some(home) = root.get("helmGlobals").and_then(|h| h.get("chartHome")) {
            add(RefKind::File, home);
        }
        for chart in seq("helmCharts") {
            if let Some(values) = chart.get("valuesFile") {
                add(RefKind::File, values);
            }
            for item in chart
                .get("additionalValuesFiles")
                .and_then(Node::as_seq)
                .unwrap_or(&[])
            {
                add(RefKind::File, item);
            }
        }
        Self {
            file,
            is_component: root.get("kind").and_then(Node::as_str) == Some("Component"),
            has_resources: !seq("resources").is_empty(),
            references,
            build_metadata: seq("buildMetadata")
                .iter()
                .filter_map(Node::as_str)
                .map(str::to_owned)
                .collect(),
            sort_options: root.get("sortOptions").map(Node::to_json),
        }
    }
}

/// A generator `files` item: `path`, or `key=path`.
fn generator_file(item: &Node, add: &mut impl FnMut(RefKind, &Node)) {
    let Some(text) = item.as_str() else {
        return;
    };
    match text.split_once('=') {
        Some((_, path)) => {
            let node = Node {
                value: Value::Str(path.to_owned()),
                ..item.clone()
            };
            add(RefKind::File, &node);
        }
        None => add(RefKind::File, item),
    }
}

/// Whether a `resources` entry names a remote target (a git repository or an URL), which
/// Kustomize would fetch over the network.
pub(crate) fn is_remote(value: &str) -> bool {
    let value = value.trim();
    value.contains("://")
        || value.starts_with("git@")
        || value.starts_with("github.com/")
        || value.starts_with("gitlab.com/")
        || value.starts_with("bitbucket.org/")
        || value.contains("?ref=")
        || value.contains(".git//")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};

    fn read(text: &str) -> Kustomization {
        let root = parse_stream(text, Limits::default())
            .remove(0)
            .unwrap()
            .root;
        Kustomization::read(Arc::from("k/kustomization.yaml"), &root)
    }

    fn values(k: &Kustomization, kind: RefKind) -> Vec<&str> {
        k.references
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.value.as_str())
            .collect()
    }

    #[test]
    fn every_path_typed_field_is_a_reference() {
        let k = read(
            "resources: [vm.yaml, ../base]
bases: [../old]
components: [../c]
patchesStrategicMerge:
- smp.yaml
- |
  apiVersion: v1
  kind: ConfigMap
patches:
- path: p.yaml
- patch: |-
    - op: add
patchesJson6902:
- path: j.yaml
  target: {kind: VirtualMachine}
replacements:
- path: r.yaml
configMapGenerator:
- name: c
  files: [userdata=cloud-init.yaml, plain.txt]
  envs: [a.env]
secretGenerator:
- name: s
  env: s.env
configurations: [conf.yaml]
crds: [crd.json]
openapi:
  path: schema.json
generators: [gen.yaml]
transformers: [tr.yaml]
validators: [va.yaml]
helmGlobals: {chartHome: charts}
helmCharts:
- name: x
  valuesFile: values.yaml
  additionalValuesFiles: [more.yaml]
buildMetadata: [managedByLabel]
",
        );
        assert_eq!(
            values(&k, RefKind::Resource),
            ["vm.yaml", "../base", "../old"]
        );
        assert_eq!(values(&k, RefKind::Component), ["../c"]);
        assert_eq!(
            values(&k, RefKind::File),
            [
                "smp.yaml",
                "gen.yaml",
                "tr.yaml",
                "va.yaml",
                "conf.yaml",
                "crd.json",
                "p.yaml",
                "j.yaml",
                "r.yaml",
                "cloud-init.yaml",
                "plain.txt",
                "a.env",
                "s.env",
                "schema.json",
                "charts",
                "values.yaml",
                "more.yaml",
            ]
        );
        assert_eq!(k.build_metadata, ["managedByLabel"]);
        assert!(!k.is_component);
        let vm = &k.references[0];
        assert_eq!((vm.span.start.line, vm.span.start.column), (1, 13));
    }

    #[test]
    fn components_and_remote_targets_are_recognised() {
        assert!(read("kind: Component\n").is_component);
        for remote in [
            "https://github.com/kubevirt/common-instancetypes//VirtualMachineClusterInstancetypes?ref=v1.0.0",
            "github.com/org/repo/deploy?ref=main",
            "git@github.com:org/repo.git//base",
        ] {
            assert!(is_remote(remote), "{remote}");
        }
        for local in ["../base", "vm.yaml", "github/base"] {
            assert!(!is_remote(local), "{local}");
        }
    }
}
