//! The objects of built units that the units stage leaves in their build outputs, read back a
//! unit at a time when the check comes to them.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Job, flux, load_output, rendered};
use crate::diag::Finding;
use crate::k8s::Object;
use crate::suppress::inline::Suppression;

/// Which objects of built units the units stage does not keep (`Context::streamed`).
#[derive(Clone, Copy)]
pub struct Streamed {
    /// The objects read but left in the build outputs.
    pub object: fn(&Object) -> bool,
    /// The documents not even parsed by the units stage: every object of such a document must
    /// be one `object` picks.
    pub document: fn(crate::yaml::DocumentText<'_>) -> bool,
}

/// The objects of built units that are not kept with the others (`Context::streamed`) but
/// read from the units' build outputs, a unit at a time, when the check comes to them: a
/// repository's VMs rendered at once would hold most of a run's memory, and the documents
/// that plainly hold them are parsed only then.
#[derive(Default)]
pub struct StreamedUnits {
    pub(super) units: Vec<StreamedUnit>,
    pub(super) objects: usize,
    pub(super) displays: Arc<rendered::Displays>,
    pub(super) scanned: Arc<rendered::Scanned>,
    pub(super) keep_sources: bool,
    pub(super) default_namespace: String,
    pub(super) streamed: Option<Streamed>,
}

/// A built unit with streamed objects: what reading its output again needs.
pub(super) struct StreamedUnit {
    pub(super) job: Job,
    pub(super) wrapper_dir: PathBuf,
    pub(super) output: flux::jobs::PostBuilt,
    /// The documents of the output, read by the units stage, that hold streamed objects, in
    /// order.
    pub(super) documents: Vec<usize>,
    /// The documents of the output the units stage left unread (`Streamed::document`), in
    /// order.
    pub(super) unread: Vec<usize>,
}

/// A unit's streamed objects, and what reading its unread documents leaves for the report.
#[derive(Debug, Default)]
pub struct UnitRead {
    /// In the order of the unit's output.
    pub objects: Vec<Object>,
    /// How many of `objects` come from documents read for the first time (the others were
    /// counted by the units stage).
    pub first_read: usize,
    /// Helm releases among those (`units::helm`).
    pub units: usize,
    /// Findings about the unread documents and about suppression comments of the files
    /// scanned for them.
    pub findings: Vec<Finding>,
    /// The suppression comments of the files no reading had scanned before.
    pub suppressions: Vec<Suppression>,
    /// The texts of those files, when sources are kept.
    pub sources: Vec<(Arc<str>, Arc<str>)>,
}

impl StreamedUnits {
    /// How many units have streamed objects.
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// The path of the `n`th unit, as the units of rendered objects name it.
    pub fn unit_path(&self, n: usize) -> Option<&str> {
        Some(self.units.get(n)?.job.unit.path.as_str())
    }

    /// The first file, in the report's order, that a finding about the `n`th unit's streamed
    /// objects (or about reading them) can be about: of the files its build reads, its
    /// kustomization, and the entry point that names it (whose options findings can point at).
    pub fn first_file(&self, n: usize) -> Option<String> {
        let job = &self.units.get(n)?.job;
        let entry_layers = job
            .argocd
            .as_ref()
            .and_then(|argo| argo.shadow.as_ref())
            .into_iter()
            .flat_map(|shadow| &shadow.layers)
            .map(|(file, _, _)| file.to_string());
        job.files()
            .into_iter()
            .chain([job.root.kustomization.file.to_string()])
            .chain(job.unit.via.as_ref().map(|via| via.file.clone()))
            .chain(entry_layers)
            .min()
    }

    /// Lets go of the build outputs of `units` once they are read.
    pub fn release(&mut self, units: std::ops::Range<usize>) {
        for unit in self.units.iter_mut().take(units.end).skip(units.start) {
            unit.output = flux::jobs::PostBuilt::default();
            unit.documents = Vec::new();
            unit.unread = Vec::new();
        }
    }

    /// How many streamed objects the units stage read (those of unread documents are counted
    /// by [`StreamedUnits::read`]).
    pub fn objects(&self) -> usize {
        self.objects
    }

    /// The streamed objects of the `n`th unit, from its output: those the units stage read,
    /// read again (the rest of that reading was reported then), and those of the documents it
    /// left unread, with the rest of their reading. A file shared by several units is scanned
    /// for suppression comments by the first reading that reads it, whichever it is.
    pub fn read(&self, n: usize) -> UnitRead {
        let (Some(unit), Some(streamed)) = (self.units.get(n), self.streamed) else {
            return UnitRead::default();
        };
        let mut origins = rendered::Origins::known(
            Arc::clone(&self.displays),
            Arc::clone(&self.scanned),
            self.keep_sources,
        );
        let mut load = |documents: &[usize]| {
            load_output(
                &unit.job,
                &unit.output,
                &unit.wrapper_dir,
                &self.default_namespace,
                &mut origins,
                &|document| documents.binary_search(&document.index).is_ok(),
            )
        };
        let mut out = UnitRead::default();
        let mut objects: Vec<(usize, Object)> = Vec::new();
        if !unit.documents.is_empty() {
            let again = load(&unit.documents);
            objects.extend(
                again
                    .documents
                    .into_iter()
                    .zip(again.loaded.objects)
                    .filter(|(_, object)| (streamed.object)(object)),
            );
        }
        if !unit.unread.is_empty() {
            let first = load(&unit.unread);
            out.first_read = first.loaded.objects.len();
            out.units = first.loaded.units;
            out.findings = first.loaded.findings;
            objects.extend(first.documents.into_iter().zip(first.loaded.objects));
        }
        // Stable: the objects of one document keep their order.
        objects.sort_by_key(|(document, _)| *document);
        out.objects = objects.into_iter().map(|(_, object)| object).collect();
        let parts = origins.into_parts();
        out.findings.extend(parts.findings);
        out.suppressions = parts.suppressions;
        out.sources = parts.sources;
        out
    }
}

impl std::fmt::Debug for StreamedUnits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedUnits")
            .field("units", &self.units.len())
            .field("objects", &self.objects)
            .finish_non_exhaustive()
    }
}
