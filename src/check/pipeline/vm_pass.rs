//! The VM pass: the VMs of a batch of files parsed again, analysed in parallel, and the
//! run finished (severities, suppressions, the baseline, the order of the report).

use crate::check::Summary;
use crate::check::objects::{Identity, object_findings};
use crate::check::vm::{self, Rendered};
use crate::cluster::profile::ClusterProfile;
use crate::config::Config;
use crate::controller::drift::DriftPolicy;
use crate::diag::{Finding, Severity, sort_findings};
use crate::error::Error;
use crate::k8s::{Kustomizations, Object};
use crate::load::{self, DeferredFile, LoadOptions};
use crate::resolve::Repo;
use crate::schema::SchemaLocations;
use crate::source::Input;
use crate::suppress::baseline::Baseline;
use crate::suppress::inline::Suppression;

use super::Sink;
use super::index_pass::in_unit;

/// The VM pass's view of the repository, shared by every batch.
pub(super) struct VmPass<'a> {
    pub(super) repo: Repo<'a>,
    pub(super) profile: &'a ClusterProfile,
    pub(super) locations: &'a SchemaLocations,
    pub(super) kustomizations: &'a Kustomizations,
    pub(super) load_options: &'a LoadOptions,
    pub(super) wanted: vm::Wanted,
    pub(super) drift_policy: DriftPolicy,
}

/// The outcome of one file's VMs.
#[derive(Default)]
pub(super) struct FileVms {
    pub(super) findings: Vec<Finding>,
    pub(super) rendered: Vec<Rendered>,
    pub(super) identities: Vec<Identity>,
    pub(super) objects: usize,
    pub(super) vms: usize,
    pub(super) renders: usize,
}

impl VmPass<'_> {
    pub(super) fn analyse_file(
        &self,
        input: &Input,
        deferred: Option<&DeferredFile>,
        mut objects: Vec<Object>,
    ) -> FileVms {
        let mut out = FileVms::default();
        if let Some(file) = deferred {
            let loaded =
                load::deferred_objects(input, file, self.kustomizations, self.load_options);
            out.findings.extend(loaded.findings);
            out.objects += loaded.objects.len();
            objects.extend(loaded.objects);
        }
        let analysed = self.analyse_objects(&objects);
        out.findings.extend(analysed.findings);
        out.rendered.extend(analysed.rendered);
        out.identities.extend(analysed.identities);
        out.vms += analysed.vms;
        out.renders += analysed.renders;
        out
    }

    /// Checks objects already read, VMs analysed with everything they reference.
    pub(super) fn analyse_objects(&self, objects: &[Object]) -> FileVms {
        let mut out = FileVms::default();
        let version = self.profile.version;
        for object in objects {
            out.identities.push(Identity::of(object));
            out.findings.extend(in_unit(
                object,
                object_findings(object, version, self.locations),
            ));
            if !vm::is_vm(object) {
                continue;
            }
            out.vms += 1;
            let report = vm::analyze_vm(
                &self.repo,
                object,
                self.profile,
                self.wanted,
                self.drift_policy,
            );
            out.findings.extend(in_unit(object, report.findings));
            out.renders += usize::from(report.renders);
            out.rendered.extend(report.rendered);
        }
        out
    }
}

/// The end of a run: severities, suppressions and the baseline applied, then sorted.
pub(super) struct Finisher<'a> {
    pub(super) config: &'a Config,
    pub(super) rule_filter: &'a crate::config::select::RuleFilter,
    pub(super) baseline: Option<Baseline>,
    pub(super) summary: &'a mut Summary,
}

impl Finisher<'_> {
    pub(super) fn finish(
        &mut self,
        mut findings: Vec<Finding>,
        suppressions: &[Suppression],
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        if findings.is_empty() && suppressions.is_empty() {
            return Ok(());
        }
        crate::suppress::inline::apply(&mut findings, suppressions);
        self.rule_filter.retain(&mut findings);
        crate::config::apply_severities(&mut findings, &self.config.severities);
        if let Some(baseline) = &self.baseline {
            baseline.filter(&mut findings);
        }
        sort_findings(&mut findings);
        for finding in &findings {
            match finding.severity {
                Severity::Error => self.summary.errors += 1,
                Severity::Warning => self.summary.warnings += 1,
                Severity::Info => self.summary.infos += 1,
            }
        }
        sink.findings(findings)
    }
}
