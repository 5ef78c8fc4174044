//! The rendered-VM pass: the VMs units render, read again from the units' build outputs a
//! batch of units at a time and analysed, interleaved with the file pass so that a file's
//! findings leave as soon as no unit still to be analysed can add to them.
//!
//! Units are analysed in the order the units stage read them, so that the duplicate check sees
//! rendered VMs in that order. A unit's findings (and the suppression comments and findings of
//! its reading) are about its own files: the files its build reads, its kustomization and the
//! entry point that names it. Before the file pass reports the files up to F, every unit whose
//! first such file (in report order) is at most F is analysed, with the units before it; the
//! findings held about files up to F are then final, are merged across units and join the
//! others in `pending`.

use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use super::Sink;
use super::index_pass::{Pending, in_unit};
use super::rendered_findings::RenderedFindings;
use super::vm_pass::{FileVms, VmPass};
use crate::check::Summary;
use crate::check::objects::Duplicates;
use crate::k8s::Object;
use crate::units::StreamedUnits;

/// What analysing rendered VMs adds to the run.
pub(super) struct Run<'r> {
    pub(super) summary: &'r mut Summary,
    pub(super) pending: &'r mut Pending,
    pub(super) duplicates: &'r mut Duplicates,
    pub(super) sources: &'r mut Vec<(Arc<str>, Arc<str>)>,
    pub(super) sink: &'r mut dyn Sink,
}

/// The units whose VMs are still to be analysed, and the findings held until their files are
/// final.
pub(super) struct RenderedPass {
    units: StreamedUnits,
    /// For each unit, the first file (in report order) its findings can be about.
    first_files: Vec<Option<String>>,
    /// Units analysed so far (a prefix).
    next: usize,
    /// Units analysed before any file is reported: up to the last one whose VMs may share an
    /// identity with a VM of a written file, which the duplicate check must see after them.
    before_files: usize,
    batch: usize,
    findings: RenderedFindings,
}

impl RenderedPass {
    /// `written_unit` tells the units that VMs of written files are applied with.
    pub(super) fn new(
        units: StreamedUnits,
        batch: usize,
        written_unit: impl Fn(&str) -> bool,
    ) -> Self {
        let count = units.units();
        let first_files = (0..count).map(|n| units.first_file(n)).collect();
        let before_files = (0..count)
            .rev()
            .find(|&n| units.unit_path(n).is_some_and(&written_unit))
            .map_or(0, |n| n + 1);
        Self {
            units,
            first_files,
            next: 0,
            before_files,
            batch: batch.max(1),
            findings: RenderedFindings::default(),
        }
    }

    /// Analyses rendered VMs read without a build (an Argo CD Directory app's).
    pub(super) fn analyse_read(&mut self, vms: Vec<Object>, pass: &VmPass<'_>, run: &mut Run<'_>) {
        self.analyse(vms, pass, run);
    }

    /// Analyses the units that must come before any file is reported.
    pub(super) fn start(&mut self, pass: &VmPass<'_>, run: &mut Run<'_>) {
        self.analyse_units(self.before_files, pass, run);
    }

    /// Makes every finding about files up to `last` (every finding when None) final and
    /// hands them to `run.pending`, analysing the units that may add to them first.
    pub(super) fn until(&mut self, last: Option<&str>, pass: &VmPass<'_>, run: &mut Run<'_>) {
        let upto = match last {
            Some(last) => self
                .first_files
                .iter()
                .rposition(|first| first.as_deref().is_none_or(|first| first <= last))
                .map_or(0, |n| n + 1),
            None => self.first_files.len(),
        };
        self.analyse_units(upto, pass, run);
        match last {
            Some(last) => self.findings.merge_until(last, run.pending),
            None => std::mem::take(&mut self.findings).merge_into(run.pending),
        }
    }

    /// After the file pass: analyses the next batch of units, then merges into `run.pending`
    /// the held findings that no unit still to come can add to. Returns the first file a unit
    /// still to come can point at (the findings before it are final); None once every unit is
    /// analysed.
    pub(super) fn analyse_next(&mut self, pass: &VmPass<'_>, run: &mut Run<'_>) -> Option<String> {
        if self.next >= self.first_files.len() {
            return None;
        }
        self.analyse_units(
            self.first_files.len().min(self.next + self.batch),
            pass,
            run,
        );
        let first = self.first_files[self.next..]
            .iter()
            .min()?
            .clone()
            .unwrap_or_default();
        self.findings.merge_before(&first, run.pending);
        Some(first)
    }

    fn analyse_units(&mut self, upto: usize, pass: &VmPass<'_>, run: &mut Run<'_>) {
        while self.next < upto {
            let units: Range<usize> = self.next..upto.min(self.next + self.batch);
            self.next = units.end;
            let reads: Vec<crate::units::UnitRead> = units
                .clone()
                .into_par_iter()
                .map(|unit| self.units.read(unit))
                .collect();
            self.units.release(units);
            let mut objects = Vec::new();
            for read in reads {
                run.summary.objects += read.first_read;
                run.summary.documents += read.first_read;
                run.summary.units += read.units;
                run.pending.add(read.findings);
                run.pending.add_suppressions(read.suppressions);
                run.sources.extend(read.sources);
                objects.extend(read.objects);
            }
            self.analyse(objects, pass, run);
        }
    }

    fn analyse(&mut self, objects: Vec<Object>, pass: &VmPass<'_>, run: &mut Run<'_>) {
        let analysed: Vec<(Object, FileVms)> = objects
            .into_par_iter()
            .map(|object| {
                let result = pass.analyse_objects(std::slice::from_ref(&object));
                (object, result)
            })
            .collect();
        for (object, result) in analysed {
            let mut findings = result.findings;
            findings.extend(
                result
                    .identities
                    .into_iter()
                    .filter_map(|identity| run.duplicates.see(identity)),
            );
            self.findings.add(in_unit(&object, findings));
            run.summary.vms += result.vms;
            run.summary.rendered += result.renders;
            for rendered in result.rendered {
                run.sink.rendered(rendered);
            }
        }
    }
}
