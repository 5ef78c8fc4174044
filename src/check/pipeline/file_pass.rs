//! The file pass: the files walked in report order, a batch of files with VMs at a time, each
//! batch analysed while the one before it is reported; the findings held for a file (the index
//! pass's, the rendered VMs') handed over with it.

use std::sync::Arc;

use foldhash::HashMap;
use rayon::prelude::*;

use super::Sink;
use super::index_pass::Pending;
use super::rendered_pass::{RenderedPass, Run};
use super::vm_pass::{FileVms, Finisher, VmPass};
use crate::check::objects::Duplicates;
use crate::error::Error;
use crate::k8s::Object;
use crate::load::DeferredFile;
use crate::source::Input;

/// A file with VMs to analyse: its position among the inputs, what the index pass deferred
/// and the VMs it located.
pub(super) type Work = (usize, Option<DeferredFile>, Vec<Object>);

/// The batches of the file pass: each ends after `batch_size` files with VMs (or at the last
/// file), with the position after its last file.
pub(super) fn batches(
    inputs: &[Input],
    vms: &mut HashMap<Arc<str>, Vec<Object>>,
    deferred: &mut HashMap<usize, DeferredFile>,
    batch_size: usize,
) -> Vec<(usize, Vec<Work>)> {
    let mut batches = Vec::new();
    let mut end = 0;
    while end < inputs.len() {
        let mut work = Vec::new();
        while end < inputs.len() && work.len() < batch_size {
            let display = inputs[end].display();
            let file_vms = vms.remove(display).unwrap_or_default();
            let file_deferred = deferred.remove(&end);
            if !file_vms.is_empty() || file_deferred.is_some() {
                work.push((end, file_deferred, file_vms));
            }
            end += 1;
        }
        batches.push((end, work));
    }
    batches
}

/// What the file pass hands over, and what it holds until its files' turn.
pub(super) struct Held<'s> {
    pub(super) finisher: Finisher<'s>,
    pub(super) pending: Pending,
    pub(super) duplicates: Duplicates,
    pub(super) sources: Vec<(Arc<str>, Arc<str>)>,
    pub(super) sink: &'s mut dyn Sink,
}

impl Held<'_> {
    pub(super) fn run(&mut self) -> Run<'_> {
        Run {
            summary: &mut *self.finisher.summary,
            pending: &mut self.pending,
            duplicates: &mut self.duplicates,
            sources: &mut self.sources,
            sink: &mut *self.sink,
        }
    }

    /// Analyses every batch and reports it, in order: each batch is analysed while the one
    /// before it is reported.
    pub(super) fn analyse_and_report(
        &mut self,
        inputs: &[Input],
        batches: Vec<(usize, Vec<Work>)>,
        pass: &VmPass<'_>,
        rendered: &mut RenderedPass,
    ) -> Result<(), Error> {
        let mut analysed: Option<(usize, Vec<FileVms>)> = None;
        for (end, work) in batches {
            let results = std::thread::scope(|scope| -> Result<Vec<FileVms>, Error> {
                let analysis = scope.spawn(|| {
                    work.into_par_iter()
                        .map(|(position, file_deferred, file_vms)| {
                            pass.analyse_file(&inputs[position], file_deferred.as_ref(), file_vms)
                        })
                        .collect::<Vec<FileVms>>()
                });
                if let Some((before, results)) = analysed.take() {
                    self.report(inputs[before - 1].display(), results, pass, rendered)?;
                }
                Ok(analysis
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            })?;
            analysed = Some((end, results));
        }
        if let Some((end, results)) = analysed {
            self.report(inputs[end - 1].display(), results, pass, rendered)?;
        }
        Ok(())
    }

    /// Reports the files up to `last` (in report order): the rendered VMs' findings about
    /// them, what was held for them, and the analysed VMs of those among them that hold VMs.
    fn report(
        &mut self,
        last: &str,
        results: Vec<FileVms>,
        pass: &VmPass<'_>,
        rendered: &mut RenderedPass,
    ) -> Result<(), Error> {
        rendered.until(Some(last), pass, &mut self.run());
        let (mut findings, suppressions) = self.pending.take(Some(last));
        findings.reserve(
            results
                .iter()
                .map(|result| result.findings.len() + result.identities.len())
                .sum(),
        );
        for result in results {
            findings.extend(result.findings);
            findings.extend(
                result
                    .identities
                    .into_iter()
                    .filter_map(|identity| self.duplicates.see(identity)),
            );
            let summary = &mut *self.finisher.summary;
            summary.objects += result.objects;
            summary.vms += result.vms;
            summary.rendered += result.renders;
            for rendered in result.rendered {
                self.sink.rendered(rendered);
            }
        }
        self.finisher.finish(findings, &suppressions, self.sink)
    }

    /// The units whose files come after the last input's, a batch at a time, each batch's
    /// final findings handed over before the next batch is read; then the findings about files
    /// that are not inputs (the configuration file, the catalog).
    pub(super) fn report_the_rest(
        &mut self,
        pass: &VmPass<'_>,
        mut rendered: RenderedPass,
    ) -> Result<(), Error> {
        while let Some(first_to_come) = rendered.analyse_next(pass, &mut self.run()) {
            let (findings, suppressions) = self.pending.take_before(&first_to_come);
            self.finisher.finish(findings, &suppressions, self.sink)?;
        }
        rendered.until(None, pass, &mut self.run());
        drop(rendered);
        let (findings, suppressions) = self.pending.take(None);
        self.finisher.finish(findings, &suppressions, self.sink)
    }
}
