//! Entry points rendered by other units (design §3.4): a Flux Kustomization or an Argo CD
//! Application/ApplicationSet in a unit's build output is applied by the controller as
//! rendered, so it replaces the same object read as written (its options are the rendered
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

/// Text a build output holds when it may render entry points.
pub(super) fn may_hold_entries(output: &str) -> bool {
    output.contains(FLUX_GROUP) || output.contains(ARGO_GROUP)
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
}

/// The entry points rendered in one round, without duplicates, in a deterministic order.
#[derive(Clone, Debug, Default)]
pub(super) struct Rendered {
    entries: Vec<RenderedEntry>,
}

impl Rendered {
    /// The entry points among `objects`, given unit by unit: the first unit that renders an
    /// object (same kind, namespace and name) wins, so callers list the units entry points
    /// name before the bare Kustomize roots.
    pub(super) fn scan<'a>(units: impl IntoIterator<Item = &'a [RenderedEntry]>) -> Self {
        let mut seen = BTreeSet::new();
        let mut entries: Vec<RenderedEntry> = Vec::new();
        for found in units {
            for entry in found.iter().cloned() {
                let identity = (
                    entry.kind.clone(),
                    entry.namespace.clone(),
                    entry.name.clone(),
                );
                if seen.insert(identity) {
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
        let entry = self.entries.first()?;
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

    /// Whether two rounds rendered the same entry points.
    pub(super) fn same_as(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self
                .entries
                .iter()
                .zip(&other.entries)
                .all(|(a, b)| a.file == b.file && a.line == b.line && a.json == b.json)
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
