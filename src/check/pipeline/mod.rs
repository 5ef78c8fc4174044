//! The check in two passes over the files, in bounded memory.
//!
//! The index pass reads every file a batch at a time. Documents that are plainly
//! VirtualMachines are only located; everything else is parsed, checked on its own, and kept
//! only when a VM may reference it (instance types, preferences, ControllerRevisions, volumes,
//! the KubeVirt configuration). The VM pass then walks the files in report order, a batch at a
//! time: it parses the VMs again, analyses them in parallel, and hands the batch's findings
//! (with those of the index pass for the same files) to a [`Sink`] in their final order. No VM
//! tree and no finding outlives its batch unless the sink keeps it.

use std::sync::Arc;

use super::{Options, Summary, cluster_profile, effective};
use crate::check::vm::{self, Rendered};
use crate::cluster::profile::ClusterProfile;
use crate::config::Config;
use crate::controller::drift::DriftPolicy;
use crate::diag::Finding;
use crate::error::Error;
use crate::k8s::{self, Index};
use crate::load::{self, LoadOptions};
use crate::resolve::catalog_source;
use crate::resolve::{Repo, SpecCache};
use crate::source::{self, Input};
use crate::suppress::baseline::Baseline;

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

mod file_pass;
mod index_pass;
mod rendered_findings;
mod rendered_pass;
mod vm_pass;

use file_pass::Held;
use index_pass::IndexPass;
use rendered_findings::RenderedFindings;
use rendered_pass::RenderedPass;
use vm_pass::{Finisher, VmPass};

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
    let locations = crate::schema::parse_locations(&options.schema_locations)?;
    let baseline = options
        .baseline
        .as_deref()
        .map(Baseline::load)
        .transpose()?;
    let load_options = load_options(options, settings);
    let version = settings.version;

    let catalog = catalog_source::prefetch(&settings.catalog, version);
    let Indexed {
        mut index,
        kustomizations,
        streamed_vms,
        read_vms,
        mut warnings,
        unit_files,
    } = index_inputs(options, settings, &mut inputs, &load_options, &locations);

    let profile = cluster_profile(&index.referenced, version, &settings.config);
    warnings.extend(crate::cluster::hyperconverged::machine_type_note(
        &index.referenced,
        &profile,
    ));
    let object_index = Index::build(&index.referenced);
    let catalog = catalog_source::load_catalog_prefetched(&settings.catalog, &profile, catalog)?;
    add_cluster_findings(&mut index, settings, &catalog, &profile);

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
    let mut held = Held {
        finisher: Finisher {
            config: &settings.config,
            rule_filter: &settings.rule_filter,
            baseline,
            summary: &mut summary,
        },
        pending: index.pending,
        duplicates: index.duplicates,
        sources: index.sources,
        sink,
    };
    // Rendered VMs point into files of their own; their findings wait for their files' turn
    // like the index pass's. Those read without a build are analysed now; those of built
    // units are read from the units' outputs a batch of units at a time as the file pass
    // comes to their files (`RenderedPass`).
    // Without units (a tree of plain files) nothing is asked of it.
    let written_units: std::collections::HashSet<String> = match streamed_vms.units() {
        0 => std::collections::HashSet::new(),
        _ => inputs
            .iter()
            .map(|input| kustomizations.unit_of(input.display()))
            .collect(),
    };
    let mut rendered = RenderedPass::new(
        streamed_vms,
        options.batch_files.unwrap_or(UNIT_BATCH),
        |unit| written_units.contains(unit),
    );
    drop(written_units);
    rendered.analyse_read(read_vms, &pass, &mut held.run());
    rendered.start(&pass, &mut held.run());
    let batch_size = if index.streamable {
        options.batch_files.unwrap_or(VM_BATCH).max(1)
    } else {
        usize::MAX
    };
    let (mut vms, mut deferred) = (index.vms, index.deferred);
    let batches = file_pass::batches(&inputs, &mut vms, &mut deferred, batch_size);
    held.analyse_and_report(&inputs, batches, &pass, &mut rendered)?;
    held.report_the_rest(&pass, rendered)?;
    if let Some(problem) = locations.unreadable() {
        return Err(Error::SchemaLocation(problem));
    }

    let mut sources = held.sources;
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

/// How files are loaded: the namespace, the roots files are named from, embedded documents.
fn load_options(options: &Options, settings: &super::Effective) -> LoadOptions {
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
    LoadOptions {
        default_namespace: settings.namespace.clone(),
        keep_sources: options.keep_sources,
        origin_roots,
        embedded: (!options.units.off)
            .then_some(crate::units::helm::extract as load::EmbeddedReader),
        ..LoadOptions::default()
    }
}

/// What the index pass and the units stage leave for the VM pass.
struct Indexed {
    index: IndexPass,
    kustomizations: k8s::Kustomizations,
    /// The units whose VMs stay in their build outputs.
    streamed_vms: crate::units::StreamedUnits,
    /// Rendered VMs read without a build.
    read_vms: Vec<k8s::Object>,
    warnings: Vec<String>,
    unit_files: std::collections::BTreeMap<String, Vec<String>>,
}

/// Builds the units (leaving out of `inputs` the files they claim), then indexes the files a
/// batch at a time and the units' objects after them.
fn index_inputs(
    options: &Options,
    settings: &super::Effective,
    inputs: &mut Vec<Input>,
    load_options: &LoadOptions,
    locations: &crate::schema::SchemaLocations,
) -> Indexed {
    let version = settings.version;
    let units_context = crate::units::Context {
        options: &options.units,
        default_namespace: &settings.namespace,
        kubevirt: version,
        keep_sources: options.keep_sources,
        streamed: Some(crate::units::Streamed {
            object: vm::is_vm,
            document: load::looks_like_vm,
        }),
    };
    let mut units = crate::units::build(inputs, &units_context);
    let warnings: Vec<String> = units.rendering.warning.iter().cloned().collect();
    let unit_files = std::mem::take(&mut units.rendering.unit_files);
    let before = inputs.len();
    if !units.rendering.claimed.is_empty() {
        inputs.retain(|input| {
            !units
                .rendering
                .claimed
                .contains(&k8s::normalise_path(std::path::Path::new(
                    &**input.display(),
                )))
        });
    }
    let claimed_inputs = before - inputs.len();
    let kustomizations = load::kustomizations(inputs, load_options);
    let mut index = IndexPass {
        streamable: true,
        ..IndexPass::default()
    };
    let index_batch = options.batch_files.unwrap_or(INDEX_BATCH).max(1);
    for (n, batch) in inputs.chunks(index_batch).enumerate() {
        let pass = load::first_pass(batch, n * index_batch, &kustomizations, load_options);
        index.absorb(pass, version, locations);
    }
    index.summary.files += claimed_inputs;
    // The units' outputs are read after the files, so that their objects are indexed and
    // seen by the duplicate check after the files' as before; each unit's objects are checked
    // as soon as it is read, and only what VMs may reference is kept.
    let mut unit_findings = RenderedFindings::default();
    let mut read_vms = Vec::new();
    let rendering = units.read(&mut |objects| {
        let (vms, findings) = index.absorb_rendered(objects, version, locations);
        read_vms.extend(vms);
        unit_findings.add(findings);
    });
    let streamed_vms = index.absorb_units(rendering);
    unit_findings.merge_into(&mut index.pending);
    Indexed {
        index,
        kustomizations,
        streamed_vms,
        read_vms,
        warnings,
        unit_files,
    }
}

/// The findings about the cluster the VMs are judged against: the configuration's, the
/// catalog's, the HyperConverged object's, and the catalog names the operator overwrites.
fn add_cluster_findings(
    index: &mut IndexPass,
    settings: &super::Effective,
    catalog: &catalog_source::Catalog,
    profile: &ClusterProfile,
) {
    index.pending.add(settings.config.findings.iter().cloned());
    index.pending.add(catalog.findings.iter().cloned());
    index.pending.add(crate::cluster::hyperconverged::findings(
        &index.referenced,
        settings.version,
        cluster_setting(&settings.config),
        settings.config.hyperconverged,
        settings
            .drift_policy
            .severity(crate::rules::DriftKind::ClusterDefault),
    ));
    index.pending.add(catalog_source::overwritten_by_operator(
        &index.referenced,
        catalog,
        profile,
    ));
}

#[cfg(test)]
mod tests;
