//! Which patch line wrote a rendered field: the patch files of a unit, read once, and the
//! attributor kept with each rendered object.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::diag::Location;
use crate::k8s::{Attribute, normalise_path};
use crate::units::provenance::{self, Layer, PatchFile, Subject};
use crate::yaml::{self, FieldPath, Limits, Node};

use super::OriginFile;

/// The patch files of one unit, read once each, only from the unit's closure.
#[derive(Debug)]
pub(super) struct PatchFiles {
    pub(super) allowed: BTreeSet<PathBuf>,
    pub(super) read: Mutex<HashMap<String, Option<PatchFile>>>,
}

impl PatchFiles {
    pub(super) fn get(&self, path: &str) -> Option<PatchFile> {
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
pub(super) struct Attributor {
    pub(super) rendered: Node,
    /// The object in the file it came from (its file and document), to tell the fields an
    /// overlay changed.
    pub(super) written: Option<(Arc<OriginFile>, usize)>,
    pub(super) original_name: Option<String>,
    pub(super) original_namespace: Option<String>,
    pub(super) layers: Vec<Arc<OriginFile>>,
    pub(super) patches: Arc<PatchFiles>,
}

/// Fields under a path whose writers are looked for, at most.
pub(super) const MAX_LEAVES: usize = 256;

impl Attributor {
    pub(super) fn attribute(
        &self,
        rendered: &serde_json::Value,
        path: &FieldPath,
    ) -> Option<Location> {
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
pub(in crate::units) fn changed_leaves(
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
pub(super) struct Shared(pub(super) Arc<Attributor>);

impl Attribute for Shared {
    fn location(&self, path: &FieldPath) -> Option<Location> {
        self.0.location(path)
    }
}
