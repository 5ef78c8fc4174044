//! Entry points rendered by other units (design §3.4): a Flux Kustomization or HelmRelease, or
//! an Argo CD Application/ApplicationSet, in a unit's build output is applied by the controller
//! as rendered, so it replaces the same object read as written (its options are the rendered
//! ones) and the units it names are built in turn, until no new entry point appears.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::diag::{Finding, Location};
use crate::k8s::Object;
use crate::rules;
use crate::yaml::Node;

/// How many rounds of builds the chain follows before it stops.
pub(super) const MAX_ROUNDS: usize = 8;

const FLUX_GROUP: &str = "kustomize.toolkit.fluxcd.io";
const ARGO_GROUP: &str = "argoproj.io";
pub(super) const HELM_GROUP: &str = "helm.toolkit.fluxcd.io";

/// Text a build output holds when it may render entry points.
pub(super) fn may_hold_entries(output: &str) -> bool {
    output.contains(FLUX_GROUP) || output.contains(ARGO_GROUP) || output.contains(HELM_GROUP)
}

/// The entry points among the rendered objects of the unit reported as `unit`.
pub(super) fn entries_of(objects: &[Object], unit: &str) -> Vec<RenderedEntry> {
    objects
        .iter()
        .filter_map(|object| RenderedEntry::of(object, unit))
        .collect()
}

/// An entry point found in a unit's rendered objects.
#[derive(Clone, Debug)]
pub(super) struct RenderedEntry {
    /// The file the object comes from, and its text.
    pub file: Arc<str>,
    pub text: Arc<str>,
    /// The rendered object, its spans in `file`.
    pub node: Node,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// The line of its `kind:` key in `file`: the document it was rendered from.
    pub line: u32,
    /// The unit that renders it, as the report names it.
    pub unit: String,
    /// The rendered object as JSON, to tell a changed entry point from a seen one.
    json: String,
}

impl RenderedEntry {
    /// The entry point `object` is, if it is one.
    fn of(object: &Object, unit: &str) -> Option<Self> {
        let entry_kind = match object.group.as_str() {
            FLUX_GROUP => object.kind == "Kustomization",
            ARGO_GROUP => matches!(object.kind.as_str(), "Application" | "ApplicationSet"),
            HELM_GROUP => object.kind == "HelmRelease",
            _ => false,
        };
        if !entry_kind {
            return None;
        }
        let node = object.node.clone();
        let line = node
            .entry("kind")
            .map_or(node.span, |e| e.key_span)
            .start
            .line;
        let text = crate::source::read_file_text(Path::new(&*object.file)).unwrap_or_default();
        Some(Self {
            file: Arc::clone(&object.file),
            text: Arc::from(text),
            json: node.to_json().to_string(),
            namespace: node
                .get("metadata")
                .and_then(|m| m.get("namespace"))
                .and_then(Node::as_str)
                .map(str::to_owned),
            kind: object.kind.clone(),
            name: object.name.clone(),
            line,
            unit: unit.to_owned(),
            node,
        })
    }

    fn location(&self) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span: self
                .node
                .entry("kind")
                .map_or(self.node.span, |e| e.key_span),
        }
    }

    fn identity(&self) -> (&str, Option<&str>, &str) {
        (&self.kind, self.namespace.as_deref(), &self.name)
    }

    /// Whether it names units to build: a HelmRelease names a chart, rendered after the chain.
    fn plans_units(&self) -> bool {
        self.kind != "HelmRelease"
    }
}

/// The entry points rendered in one round, without duplicates, in a deterministic order.
#[derive(Clone, Debug, Default)]
pub(super) struct Rendered {
    entries: Vec<RenderedEntry>,
}

impl Rendered {
    /// The entry points among `objects`, given unit by unit with whether the unit is a
    /// provisional bare root: the first unit that renders an object (same kind, namespace and
    /// name) wins, so callers list the units entry points name before the bare Kustomize
    /// roots. An object that units entry points name render differently is kept once per
    /// rendering: the same Kustomization or HelmRelease in two clusters (an overlay or a file
    /// per cluster), each applied as its unit renders it.
    pub(super) fn scan<'a>(units: impl IntoIterator<Item = (&'a [RenderedEntry], bool)>) -> Self {
        let mut identities = BTreeSet::new();
        let mut renderings = BTreeSet::new();
        let mut entries: Vec<RenderedEntry> = Vec::new();
        for (found, provisional) in units {
            for entry in found.iter().cloned() {
                let identity = (
                    entry.kind.clone(),
                    entry.namespace.clone(),
                    entry.name.clone(),
                );
                let new_identity = identities.insert(identity.clone());
                let new_rendering = renderings.insert((identity, entry.json.clone()));
                if new_identity || (new_rendering && !provisional) {
                    entries.push(entry);
                }
            }
        }
        entries.sort_by(|a, b| {
            (&a.file, a.line, a.identity(), &a.json).cmp(&(&b.file, b.line, b.identity(), &b.json))
        });
        Self { entries }
    }

    /// The info about a chain still changing after the last round kvlint builds.
    pub(super) fn still_changing(&self) -> Option<Finding> {
        let entry = self.entries.iter().find(|entry| entry.plans_units())?;
        Some(Finding::new(
            &rules::UNIT_NOT_RENDERED,
            entry.location(),
            format!(
                "entry points rendered by units still change after {MAX_ROUNDS} rounds of builds: kvlint stops following the chain here, and the units they name from then on are not built"
            ),
        ))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether two rounds rendered the same entry points that plan units (the next round would
    /// build the same units).
    pub(super) fn same_as(&self, other: &Self) -> bool {
        let planning = |rendered: &'_ Self| {
            rendered
                .entries
                .iter()
                .filter(|entry| entry.plans_units())
                .map(|entry| (Arc::clone(&entry.file), entry.line, entry.json.clone()))
                .collect::<Vec<_>>()
        };
        planning(self) == planning(other)
    }

    /// The rendered entry points of `group` and one of `kinds`.
    pub(super) fn of_kinds<'a>(
        &'a self,
        group: &'a str,
        kinds: &'a [&str],
    ) -> impl Iterator<Item = &'a RenderedEntry> {
        self.entries.iter().filter(move |entry| {
            kinds.contains(&entry.kind.as_str())
                && entry
                    .node
                    .get("apiVersion")
                    .and_then(Node::as_str)
                    .and_then(|v| v.split('/').next())
                    == Some(group)
        })
    }

    /// Whether the object `node`, written in `file`, is replaced by one rendered
    /// (`replaces`, its kind, line, namespace and name read from it).
    pub(super) fn replaces_written(&self, file: &str, node: &Node) -> bool {
        let Some(kind) = node.get("kind").and_then(Node::as_str) else {
            return false;
        };
        let metadata = node.get("metadata");
        let text = |key: &str| metadata.and_then(|m| m.get(key)).and_then(Node::as_str);
        let line = node
            .entry("kind")
            .map_or(node.span, |e| e.key_span)
            .start
            .line;
        self.replaces(
            file,
            line,
            kind,
            text("namespace"),
            text("name").unwrap_or_default(),
        )
    }

    /// Whether the object written in `file` (its `kind:` at `line`) is replaced by one
    /// rendered: the same document of the same file, or the same kind and name in the same
    /// namespace (a written object without a namespace takes the one its unit gives it).
    pub(super) fn replaces(
        &self,
        file: &str,
        line: u32,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        self.entries.iter().any(|entry| {
            entry.kind == kind
                && ((*entry.file == *file && entry.line == line)
                    || (entry.name == name
                        && (namespace.is_none() || entry.namespace.as_deref() == namespace)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadOptions, load_text};

    const KUSTOMIZATION: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
";

    fn release(namespace: &str) -> String {
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vms
  namespace: flux-system
spec:
  targetNamespace: {namespace}
"
        )
    }

    fn entries(file: &str, text: &str) -> Vec<RenderedEntry> {
        let loaded = load_text(&Arc::from(file), text, &LoadOptions::default());
        entries_of(&loaded.objects, "clusters/prod")
    }

    #[test]
    fn flux_helm_releases_are_entry_points_of_a_build_output() {
        let text = format!(
            "{KUSTOMIZATION}---\n{}---
apiVersion: helm.fluxcd.io/v1
kind: HelmRelease
metadata:
  name: operator
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: values
",
            release("vms-prod")
        );
        assert!(may_hold_entries(&release("vms")));
        assert!(!may_hold_entries(
            "apiVersion: helm.fluxcd.io/v1\nkind: HelmRelease\n"
        ));
        let found = entries("apps/release.yaml", &text);
        let found: Vec<(&str, Option<&str>, &str, u32, &str)> = found
            .iter()
            .map(|e| {
                let (kind, namespace, name) = e.identity();
                (kind, namespace, name, e.line, e.unit.as_str())
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "Kustomization",
                    Some("flux-system"),
                    "apps",
                    2,
                    "clusters/prod"
                ),
                (
                    "HelmRelease",
                    Some("flux-system"),
                    "vms",
                    10,
                    "clusters/prod"
                ),
            ]
        );
    }

    #[test]
    fn a_changed_helm_release_adds_no_round_but_replaces_the_written_one() {
        let ks = entries("apps/ks.yaml", KUSTOMIZATION);
        let prod = entries("apps/release.yaml", &release("vms-prod"));
        let staging = entries("apps/release.yaml", &release("vms-staging"));
        let first = Rendered::scan([(ks.as_slice(), false), (prod.as_slice(), false)]);
        let second = Rendered::scan([(ks.as_slice(), false), (staging.as_slice(), false)]);
        assert!(first.same_as(&second));
        assert!(first.same_as(&Rendered::scan([(ks.as_slice(), false)])));
        assert!(!first.same_as(&Rendered::scan([(prod.as_slice(), false)])));
        // A chain that keeps changing is reported at an entry point that plans units.
        let changing = first.still_changing().unwrap();
        assert_eq!(&*changing.location.file, "apps/ks.yaml");
        assert!(
            Rendered::scan([(prod.as_slice(), false)])
                .still_changing()
                .is_none()
        );
        assert!(first.replaces("apps/release.yaml", 2, "HelmRelease", None, "other"));
        assert!(first.replaces(
            "base/vms.yaml",
            1,
            "HelmRelease",
            Some("flux-system"),
            "vms"
        ));
        assert!(!first.replaces("base/vms.yaml", 1, "HelmRelease", Some("default"), "vms"));
        assert!(!first.replaces("base/vms.yaml", 1, "Kustomization", None, "vms"));
        let releases: Vec<&str> = first
            .of_kinds(HELM_GROUP, &["HelmRelease"])
            .map(|entry| entry.name.as_str())
            .collect();
        assert_eq!(releases, ["vms"]);
    }

    #[test]
    fn what_named_units_render_differently_is_kept_per_rendering_and_alike_once() {
        let prod = entries("apps/release.yaml", &release("vms-prod"));
        let staging = entries("apps/release.yaml", &release("vms-staging"));
        let both = Rendered::scan([
            (prod.as_slice(), false),
            (staging.as_slice(), false),
            (prod.as_slice(), false),
        ]);
        assert_eq!(
            both.of_kinds("helm.toolkit.fluxcd.io", &["HelmRelease"])
                .count(),
            2
        );
        // Two clusters' `apps` Kustomizations, one path each.
        let ks = entries("clusters/prod/apps.yaml", KUSTOMIZATION);
        let mut other = entries(
            "clusters/staging/apps.yaml",
            &KUSTOMIZATION.replace("./apps", "./apps-staging"),
        );
        other[0].unit = "clusters/staging".to_owned();
        let paths = |rendered: &Rendered| -> Vec<String> {
            rendered
                .of_kinds("kustomize.toolkit.fluxcd.io", &["Kustomization"])
                .map(|entry| format!("{} {}", entry.unit, entry.json))
                .collect()
        };
        let named = Rendered::scan([(ks.as_slice(), false), (other.as_slice(), false)]);
        assert_eq!(paths(&named).len(), 2, "{:?}", paths(&named));
        // A bare root's rendering of an object a named unit renders is discovery only.
        let bare = Rendered::scan([(ks.as_slice(), false), (other.as_slice(), true)]);
        assert_eq!(paths(&bare).len(), 1);
        assert!(paths(&bare)[0].starts_with("clusters/prod "));
    }
}
