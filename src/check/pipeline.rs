//! The check in two passes over the files, in bounded memory.
//!
//! The index pass reads every file a batch at a time. Documents that are plainly
//! VirtualMachines are only located; everything else is parsed, checked on its own, and kept
//! only when a VM may reference it (instance types, preferences, ControllerRevisions, volumes,
//! the KubeVirt configuration). The VM pass then walks the files in report order, a batch at a
//! time: it parses the VMs again, analyses them in parallel, and hands the batch's findings
//! (with those of the index pass for the same files) to a [`Sink`] in their final order. No VM
//! tree and no finding outlives its batch unless the sink keeps it.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use foldhash::HashMap;
use rayon::prelude::*;

use super::objects::{Duplicates, Identity, object_findings};
use super::{Options, Summary, cluster_profile, effective};
use crate::check::vm::{self, Rendered};
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::config::Config;
use crate::controller::drift::DriftPolicy;
use crate::diag::{Finding, Severity, sort_findings};
use crate::error::Error;
use crate::k8s::{self, Index, Kustomizations, Object};
use crate::load::{self, DeferredFile, LoadOptions};
use crate::resolve::catalog_source;
use crate::resolve::{Repo, SpecCache};
use crate::schema::SchemaLocations;
use crate::source::{self, Input};
use crate::suppress::baseline::Baseline;
use crate::suppress::inline::Suppression;
use crate::yaml::Value;

/// Files read and parsed at once by the index pass.
const INDEX_BATCH: usize = 128;
/// Files with VMs analysed at once by the VM pass.
const VM_BATCH: usize = 256;
/// Units whose rendered VMs are read again and analysed at once.
const UNIT_BATCH: usize = 64;

/// Where the findings go, in their final order, a batch at a time.
pub trait Sink {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), Error>;
    /// A rendered VM (not called with `Options::skip_rendered`), in no particular order.
    fn rendered(&mut self, rendered: Rendered);
}

/// What a run leaves besides its findings.
#[derive(Debug)]
pub struct Outcome {
    pub summary: Summary,
    /// Source texts kept for reports that quote them (`Options::keep_sources`).
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    pub profile: ClusterProfile,
    /// What the user should know about how the run went (for standard error).
    pub warnings: Vec<String>,
    /// The files each built unit reads, by unit path.
    pub unit_files: std::collections::BTreeMap<String, Vec<String>>,
    /// How drift was judged (`--gitops`, `reproducible:`).
    pub drift_policy: DriftPolicy,
}

/// The configuration file's `cluster:` and where it is written.
fn cluster_setting(config: &Config) -> Option<crate::cluster::hyperconverged::ClusterSetting<'_>> {
    Some(crate::cluster::hyperconverged::ClusterSetting {
        value: config.cluster.as_ref()?,
        location: crate::diag::Location {
            file: Arc::clone(config.file.as_ref()?),
            span: config.cluster_span?,
        },
    })
}

/// Whether VMs may reference the object, or it configures the cluster.
fn referenced(object: &Object) -> bool {
    crate::resolve::is_referenced_kind(&object.group, &object.kind)
        || (object.group == k8s::KUBEVIRT_GROUP && object.kind == "KubeVirt")
        || crate::cluster::hyperconverged::is_hyperconverged(object)
}

/// Volumes are kept for inference from volumes only, which reads their metadata, `spec.source`
/// and `spec.sourceRef`; the rest of their trees need not stay in memory.
fn keep_inference_fields(object: &mut Object) {
    let volume = matches!(
        (object.group.as_str(), object.kind.as_str()),
        ("", "PersistentVolumeClaim")
            | ("snapshot.storage.k8s.io", "VolumeSnapshot")
            | ("cdi.kubevirt.io", "DataVolume" | "DataSource")
    );
    let Value::Map(entries) = &mut object.node.value else {
        return;
    };
    if !volume {
        return;
    }
    entries.retain(|e| matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata" | "spec"));
    if let Some(Value::Map(spec)) = entries.value_mut("spec").map(|spec| &mut spec.value) {
        spec.retain(|e| matches!(e.key.as_str(), "source" | "sourceRef"));
    }
}

/// A referenced object as the index keeps it for the whole run: a volume with only the fields
/// inference reads, and every map, list and string copied at its length. The parser grows
/// collections by doubling and the scanner's strings carry spare capacity, which kept objects
/// would hold for nothing (tens of MB of peak RSS on the 100k repository).
fn kept_for_the_run(mut object: Object) -> Object {
    keep_inference_fields(&mut object);
    object.node = object.node.clone();
    object
}

/// Findings and suppressions waiting for their file's turn in the report.
#[derive(Debug, Default)]
struct Pending {
    findings: BTreeMap<Arc<str>, Vec<Finding>>,
    suppressions: BTreeMap<Arc<str>, Vec<Suppression>>,
}

impl Pending {
    fn add(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for finding in findings {
            self.findings
                .entry(Arc::clone(&finding.location.file))
                .or_default()
                .push(finding);
        }
    }

    /// Takes everything about files up to `last` (everything when None), in file order.
    fn take(&mut self, last: Option<&str>) -> (Vec<Finding>, Vec<Suppression>) {
        fn split<T>(map: &mut BTreeMap<Arc<str>, Vec<T>>, last: Option<&str>) -> Vec<T> {
            let keys: Vec<Arc<str>> = match last {
                Some(last) => map
                    .range::<str, _>((Bound::Unbounded, Bound::Included(last)))
                    .map(|(key, _)| Arc::clone(key))
                    .collect(),
                None => map.keys().cloned().collect(),
            };
            keys.iter()
                .filter_map(|key| map.remove(key))
                .flatten()
                .collect()
        }
        (
            split(&mut self.findings, last),
            split(&mut self.suppressions, last),
        )
    }
}

/// What the index pass keeps.
#[derive(Debug, Default)]
struct IndexPass {
    summary: Summary,
    /// Objects VMs may reference.
    referenced: Vec<Object>,
    /// VMs the index pass had to parse (flow style, JSON, suppression comments, ...), by file.
    vms: HashMap<Arc<str>, Vec<Object>>,
    /// VM documents left for the VM pass, by input position.
    deferred: HashMap<usize, DeferredFile>,
    pending: Pending,
    duplicates: Duplicates,
    sources: Vec<(Arc<str>, Arc<str>)>,
    /// False when a finding may point into another file than its object's (`kustomize build`
    /// output with origin annotations): the VM pass then runs as one batch.
    streamable: bool,
}

impl IndexPass {
    fn absorb(
        &mut self,
        pass: load::FirstPass,
        version: KubeVirtVersion,
        locations: &SchemaLocations,
    ) {
        let loaded = pass.loaded;
        self.summary.files += loaded.files;
        self.summary.documents += loaded.documents;
        self.summary.skipped += loaded.skipped;
        self.summary.units += loaded.units;
        self.summary.objects += loaded.objects.len();
        self.sources.extend(loaded.sources);
        self.pending.add(loaded.findings);
        for suppression in loaded.suppressions {
            self.pending
                .suppressions
                .entry(Arc::clone(&suppression.file))
                .or_default()
                .push(suppression);
        }
        self.deferred
            .extend(pass.deferred.into_iter().map(|file| (file.input, file)));
        self.streamable &= loaded.objects.iter().all(|o| o.origin.is_none());

        let (vms, others): (Vec<Object>, Vec<Object>) =
            loaded.objects.into_iter().partition(vm::is_vm);
        for vm in vms {
            self.vms.entry(Arc::clone(&vm.file)).or_default().push(vm);
        }
        let checked: Vec<Vec<Finding>> = others
            .par_iter()
            .map(|object| in_unit(object, object_findings(object, version, locations)))
            .collect();
        for findings in checked {
            self.pending.add(findings);
        }
        for object in others {
            let duplicate = self.duplicates.see(Identity::of(&object));
            self.pending
                .add(in_unit(&object, duplicate.into_iter().collect()));
            if referenced(&object) {
                self.referenced.push(kept_for_the_run(object));
            }
        }
    }
}

impl IndexPass {
    /// Takes the units' rendered objects: the others are checked and indexed now (under their
    /// rendered names and namespaces), the VMs are left for the VM pass: those read without a
    /// build (an Argo CD Directory app's) are returned, before the units' VMs, which stay in
    /// the units' build outputs.
    fn absorb_rendered(
        &mut self,
        rendering: crate::units::Rendering,
        version: KubeVirtVersion,
        locations: &SchemaLocations,
    ) -> (Vec<Object>, crate::units::StreamedUnits) {
        let rendered = rendering.objects.len() + rendering.streamed.objects();
        self.summary.objects += rendered;
        self.summary.documents += rendered;
        self.summary.units += rendering.units;
        self.summary.kustomize = rendering.tool;
        self.sources.extend(rendering.sources);
        self.pending.add(rendering.findings);
        for suppression in rendering.suppressions {
            self.pending
                .suppressions
                .entry(Arc::clone(&suppression.file))
                .or_default()
                .push(suppression);
        }
        let (vms, others): (Vec<Object>, Vec<Object>) =
            rendering.objects.into_iter().partition(vm::is_vm);
        let checked: Vec<Vec<Finding>> = others
            .par_iter()
            .map(|object| in_unit(object, object_findings(object, version, locations)))
            .collect();
        let mut findings: Vec<Finding> = checked.into_iter().flatten().collect();
        for object in others {
            let duplicate = self.duplicates.see(Identity::of(&object));
            findings.extend(in_unit(&object, duplicate.into_iter().collect()));
            if referenced(&object) {
                self.referenced.push(kept_for_the_run(object));
            }
        }
        self.pending.add(crate::diag::merge_instances(findings));
        (vms, rendering.streamed)
    }
}

/// Findings about an object rendered in a unit name that unit; those that would judge a
/// value the unit leaves unknown offline are dropped (the unit reports the variable).
fn in_unit(object: &Object, mut findings: Vec<Finding>) -> Vec<Finding> {
    if let Some(rendered) = &object.rendered_in {
        if !rendered.unresolved.is_empty() {
            findings.retain(|finding| {
                !finding
                    .path
                    .as_deref()
                    .is_some_and(|path| rendered.judges_unknown(path))
            });
        }
        if !rendered.variables.is_empty() {
            for finding in &mut findings {
                let Some(path) = finding.path.as_deref() else {
                    continue;
                };
                for related in rendered.variables_of(path) {
                    if !finding.related.contains(related) {
                        finding.related.push(related.clone());
                    }
                }
            }
        }
        for finding in &mut findings {
            finding.unit = Some(Arc::clone(&rendered.unit));
        }
    }
    findings
}

/// The VM pass's view of the repository, shared by every batch.
struct VmPass<'a> {
    repo: Repo<'a>,
    profile: &'a ClusterProfile,
    locations: &'a SchemaLocations,
    kustomizations: &'a Kustomizations,
    load_options: &'a LoadOptions,
    wanted: vm::Wanted,
    drift_policy: DriftPolicy,
}

/// The outcome of one file's VMs.
#[derive(Default)]
struct FileVms {
    findings: Vec<Finding>,
    rendered: Vec<Rendered>,
    identities: Vec<Identity>,
    objects: usize,
    vms: usize,
    renders: usize,
}

impl VmPass<'_> {
    fn analyse_file(
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
    fn analyse_objects(&self, objects: &[Object]) -> FileVms {
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
struct Finisher<'a> {
    config: &'a Config,
    rule_filter: &'a crate::config::select::RuleFilter,
    baseline: Option<Baseline>,
    summary: &'a mut Summary,
}

impl Finisher<'_> {
    fn finish(
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

/// Runs the whole check, handing findings to `sink` in their final order.
pub fn stream(options: &Options, sink: &mut dyn Sink) -> Result<Outcome, Error> {
    let settings = effective(options)?;
    let inputs = source::discover(&settings.selection)?;
    stream_inputs(options, &settings, inputs, sink)
}

/// Checks one in-memory file as a one-file repository: the entry point of the fuzz targets.
/// With `options.config` set to `ConfigChoice::None` nothing but `bytes` is read.
pub fn run_in_memory(
    options: &Options,
    display: &str,
    bytes: &[u8],
) -> Result<super::Report, Error> {
    run_files_in_memory(options, &[(display, bytes)])
}

/// Checks in-memory files, named by distinct display names, as a repository.
pub fn run_files_in_memory(
    options: &Options,
    files: &[(&str, &[u8])],
) -> Result<super::Report, Error> {
    let inputs = files
        .iter()
        .map(|(display, bytes)| Input::Memory {
            display: Arc::from(*display),
            bytes: Arc::from(*bytes),
        })
        .collect();
    run_inputs(options, inputs)
}

/// Checks inputs already listed (in-memory files of a git revision, for `kvlint diff`), named
/// by distinct display names, as a repository.
pub fn run_inputs(options: &Options, inputs: Vec<Input>) -> Result<super::Report, Error> {
    let settings = effective(options)?;
    let mut collector = super::Collector::default();
    let outcome = stream_inputs(options, &settings, inputs, &mut collector)?;
    Ok(collector.into_report(outcome))
}

fn stream_inputs(
    options: &Options,
    settings: &super::Effective,
    mut inputs: Vec<Input>,
    sink: &mut dyn Sink,
) -> Result<Outcome, Error> {
    // The VM pass reports a file at a time, so files are visited in the report's order.
    inputs.sort_by(|a, b| a.display().cmp(b.display()));
    let locations =
        crate::schema::load_locations(&options.schema_locations).map_err(Error::Usage)?;
    let baseline = options
        .baseline
        .as_deref()
        .map(Baseline::load)
        .transpose()?;
    let mut origin_roots = Vec::new();
    if let Some(name) = &options.selection.stdin_filename {
        let path = std::path::Path::new(name);
        origin_roots.push(if path.is_dir() {
            path.to_path_buf()
        } else {
            path.parent().unwrap_or(path).to_path_buf()
        });
    }
    origin_roots.push(std::path::PathBuf::new());
    let load_options = LoadOptions {
        default_namespace: settings.namespace.clone(),
        keep_sources: options.keep_sources,
        origin_roots,
        embedded: (!options.units.off)
            .then_some(crate::units::helm::extract as load::EmbeddedReader),
        ..LoadOptions::default()
    };
    let version = settings.version;

    let catalog = catalog_source::prefetch(&settings.catalog, version);
    let mut rendering = crate::units::render(
        &inputs,
        &crate::units::Context {
            options: &options.units,
            default_namespace: &settings.namespace,
            keep_sources: options.keep_sources,
            streamed: Some(vm::is_vm),
        },
    );
    let mut warnings: Vec<String> = rendering.warning.iter().cloned().collect();
    let unit_files = std::mem::take(&mut rendering.unit_files);
    let before = inputs.len();
    if !rendering.claimed.is_empty() {
        inputs.retain(|input| {
            !rendering
                .claimed
                .contains(&k8s::normalise_path(std::path::Path::new(
                    &**input.display(),
                )))
        });
    }
    let claimed_inputs = before - inputs.len();
    let kustomizations = load::kustomizations(&inputs, &load_options);
    let mut index = IndexPass {
        streamable: true,
        ..IndexPass::default()
    };
    let index_batch = options.batch_files.unwrap_or(INDEX_BATCH).max(1);
    for (n, batch) in inputs.chunks(index_batch).enumerate() {
        let pass = load::first_pass(batch, n * index_batch, &kustomizations, &load_options);
        index.absorb(pass, version, &locations);
    }
    index.summary.files += claimed_inputs;
    let (mut read_vms, streamed_vms) = index.absorb_rendered(rendering, version, &locations);

    let profile = cluster_profile(&index.referenced, version, &settings.config);
    warnings.extend(crate::cluster::hyperconverged::machine_type_note(
        &index.referenced,
        &profile,
    ));
    let object_index = Index::build(&index.referenced);
    let catalog = catalog_source::load_catalog_prefetched(&settings.catalog, &profile, catalog)?;
    index.pending.add(settings.config.findings.iter().cloned());
    index.pending.add(catalog.findings.iter().cloned());
    index.pending.add(crate::cluster::hyperconverged::findings(
        &index.referenced,
        version,
        cluster_setting(&settings.config),
        settings.config.hyperconverged,
        settings
            .drift_policy
            .severity(crate::rules::DriftKind::ClusterDefault),
    ));
    index.pending.add(catalog_source::overwritten_by_operator(
        &index.referenced,
        &catalog,
        &profile,
    ));

    let spec_cache = SpecCache::default();
    let pass = VmPass {
        repo: Repo {
            objects: &index.referenced,
            index: &object_index,
            catalog: &catalog,
            version: profile.version,
            specs: &spec_cache,
        },
        profile: &profile,
        locations: &locations,
        kustomizations: &kustomizations,
        load_options: &load_options,
        wanted: vm::Wanted {
            rendered: !options.skip_rendered,
            fixes: options.with_fixes,
        },
        drift_policy: settings.drift_policy,
    };
    let mut summary = index.summary;
    let mut pending = index.pending;
    let mut duplicates = index.duplicates;
    // Rendered VMs point into files of their own; their findings wait in `pending` for their
    // files' turn like the index pass's. Those of built units are read again from the units'
    // outputs a batch of units at a time; all are seen by the duplicate check in the order
    // the units stage gave them.
    let unit_batch = options.batch_files.unwrap_or(UNIT_BATCH).max(1);
    let unit_batches = (0..streamed_vms.units())
        .step_by(unit_batch)
        .map(|first| first..streamed_vms.units().min(first + unit_batch));
    let analyse = |object: Object| {
        let result = pass.analyse_objects(std::slice::from_ref(&object));
        (object, result)
    };
    let mut rendered_findings = Vec::new();
    let read_batch = std::iter::once(None);
    for batch in read_batch.chain(unit_batches.map(Some)) {
        let analysed: Vec<(Object, FileVms)> = match batch {
            None => read_vms.par_drain(..).map(&analyse).collect(),
            Some(units) => units
                .into_par_iter()
                .flat_map_iter(|unit| streamed_vms.read(unit))
                .map(&analyse)
                .collect(),
        };
        for (object, result) in analysed {
            let mut findings = result.findings;
            findings.extend(
                result
                    .identities
                    .into_iter()
                    .filter_map(|identity| duplicates.see(identity)),
            );
            rendered_findings.extend(in_unit(&object, findings));
            summary.vms += result.vms;
            summary.rendered += result.renders;
            for rendered in result.rendered {
                sink.rendered(rendered);
            }
        }
    }
    drop(streamed_vms);
    pending.add(crate::diag::merge_instances(rendered_findings));
    let mut vms = index.vms;
    let mut deferred = index.deferred;
    let batch_size = if index.streamable {
        options.batch_files.unwrap_or(VM_BATCH).max(1)
    } else {
        usize::MAX
    };
    let mut finisher = Finisher {
        config: &settings.config,
        rule_filter: &settings.rule_filter,
        baseline,
        summary: &mut summary,
    };

    // A batch ends after `batch_size` files with VMs (or at the last file).
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
    let inputs = &inputs;
    let mut report = |end: usize, results: Vec<FileVms>| -> Result<(), Error> {
        let (mut findings, suppressions) = pending.take(Some(inputs[end - 1].display()));
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
                    .filter_map(|identity| duplicates.see(identity)),
            );
            finisher.summary.objects += result.objects;
            finisher.summary.vms += result.vms;
            finisher.summary.rendered += result.renders;
            for rendered in result.rendered {
                sink.rendered(rendered);
            }
        }
        finisher.finish(findings, &suppressions, sink)
    };
    // Each batch is analysed while the one before it is reported, in order.
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
                report(before, results)?;
            }
            Ok(analysis
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        })?;
        analysed = Some((end, results));
    }
    if let Some((end, results)) = analysed {
        report(end, results)?;
    }
    // Findings about files that are not inputs: the configuration file, the catalog.
    let (findings, suppressions) = pending.take(None);
    finisher.finish(findings, &suppressions, sink)?;
    if let Some(problem) = locations.unreadable() {
        return Err(Error::Io(format!("--schema-location: {problem}")));
    }

    let mut sources = index.sources;
    if let (Some(file), Some(text)) = (&settings.config.file, &settings.config.text) {
        sources.push((Arc::clone(file), Arc::clone(text)));
    }
    if options.keep_sources {
        sources.extend(catalog.sources.iter().cloned());
    }
    Ok(Outcome {
        summary,
        sources,
        profile,
        warnings,
        unit_files,
        drift_policy: settings.drift_policy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CatalogChoice, ConfigChoice};

    const INSTANCETYPE: &str = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: small
  namespace: default
spec:
  cpu:
    guest: 2
  memory:
    guest: 1Gi
";

    const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  namespace: default
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {}
";

    #[test]
    fn kept_objects_carry_no_spare_capacity() {
        fn spare(node: &crate::yaml::Node) -> usize {
            use crate::yaml::Value as Yaml;
            match &node.value {
                Yaml::Str(s) => s.capacity() - s.len(),
                Yaml::Seq(items) => {
                    items.capacity() - items.len() + items.iter().map(spare).sum::<usize>()
                }
                Yaml::Map(entries) => {
                    entries.capacity() - entries.len()
                        + entries
                            .iter()
                            .map(|e| e.key.capacity() - e.key.len() + spare(&e.value))
                            .sum::<usize>()
                }
                _ => 0,
            }
        }
        // Scalars the scanner builds a character at a time, and collections of odd lengths.
        let text = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata:
  name: plain value with several words
  namespace: default
  labels: {a: b, c: d, e: f}
  annotations:
    folded: >
      some folded
      text
    multi: first line
      continued line
spec:
  devices:
    preferredDiskBus: virtio
  preferredTerminationGracePeriodSeconds: 30
  requirements: [one, two, three]
";
        let file: Arc<str> = Arc::from("preference.yaml");
        let docs = crate::yaml::parse_stream(text, crate::yaml::Limits::default());
        let mut loaded = load::Loaded::default();
        load::load_documents(&file, text, docs, &LoadOptions::default(), &mut loaded);
        let object = loaded.objects.pop().unwrap();
        assert!(referenced(&object));
        assert!(spare(&object.node) > 0, "the parse leaves spare capacity");
        assert_eq!(spare(&kept_for_the_run(object).node), 0);
    }

    #[test]
    fn in_memory_files_form_one_repository_across_batches() {
        let options = Options {
            config: ConfigChoice::None,
            catalog: Some(CatalogChoice::None),
            batch_files: Some(1),
            ..Options::default()
        };
        let report = run_files_in_memory(
            &options,
            &[
                ("b-vm.yaml", VM.as_bytes()),
                ("a-instancetype.yaml", INSTANCETYPE.as_bytes()),
                ("c-vm-again.yaml", VM.as_bytes()),
            ],
        )
        .unwrap();
        assert_eq!(report.summary.files, 3);
        assert_eq!(report.summary.vms, 2);
        assert_eq!(report.summary.rendered, 2);
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.rule.code == "KV0008" && &*f.location.file == "c-vm-again.yaml"),
            "{:#?}",
            report.findings
        );
        let files: Vec<&str> = report.findings.iter().map(|f| &*f.location.file).collect();
        assert!(files.is_sorted(), "{files:?}");
    }
}
