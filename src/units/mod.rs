//! Units: what a GitOps controller renders from the repository. Today the Kustomize roots
//! among the checked files, each built with the real Kustomize (`kustomize build` or
//! `kubectl kustomize`) from a wrapper in a private temporary directory, so that every
//! rendered object carries the file it came from; the objects are then checked as rendered,
//! with their spans in that file.

mod argocd;
mod cache;
mod chain;
mod charts;
mod discover;
mod entry_texts;
pub mod envsubst;
mod failed_builds;
mod failure;
mod flux;
pub(crate) mod helm;
mod kustomization;
mod outcome;
pub(crate) mod provenance;
mod rendered;
mod resolve;
mod tool;
mod wrapper;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;

use crate::diag::{Finding, Location, Related, UnitKind, UnitRef};
use crate::k8s::{Object, is_kustomization_file, normalise_path};
use crate::rules;
use crate::source::Input;
use crate::suppress::inline::Suppression;
use entry_texts::{entry_texts, is_entry_point};

pub(crate) use tool::Tool;

/// Whether and how units are built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitOptions {
    /// Check every file as written, as if no kustomization existed (`--units off`).
    pub off: bool,
    /// The build command (`--kustomize-command`).
    pub command: Option<String>,
    /// The Helm that renders chart directories (`--helm-command`).
    pub helm_command: Option<String>,
    /// How long one build may run (`--kustomize-timeout`, seconds).
    pub timeout: Option<u64>,
    /// The cache root (`--cache-dir`), instead of `$KVLINT_CACHE_DIR` or the user's.
    pub cache_dir: Option<PathBuf>,
    /// Build every unit, without the cache (`--no-cache`).
    pub no_cache: bool,
    /// The directory builds may not read outside of, when the checked files are not in their
    /// repository's work tree (a git revision written to a temporary directory by `diff`);
    /// found from the checked files when None.
    pub repository: Option<PathBuf>,
}

/// The default of `--kustomize-timeout`, in seconds.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;

/// The Kustomize a run used, for the report's summary.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ToolSummary {
    pub command: String,
    pub version: Option<String>,
}

/// What the units stage leaves for the check.
#[derive(Debug, Default)]
pub struct Rendering {
    /// Rendered objects, their spans in the files they came from.
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// Inputs built into a unit: not checked again as written.
    pub claimed: BTreeSet<PathBuf>,
    pub suppressions: Vec<Suppression>,
    /// Texts of the files rendered objects point into (for reports that quote them).
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    /// Units built.
    pub units: usize,
    /// The files each built unit reads, by unit path (for `check --index`: the units a
    /// changed file belongs to).
    pub unit_files: BTreeMap<String, Vec<String>>,
    pub tool: Option<ToolSummary>,
    /// The Helm that rendered chart directories.
    pub helm: Option<ToolSummary>,
    /// Why kustomizations were checked as written, for standard error.
    pub warning: Option<String>,
    /// The objects `Context::streamed` picks, left in their units' build outputs.
    pub streamed: StreamedUnits,
}

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
    units: Vec<StreamedUnit>,
    objects: usize,
    displays: Arc<rendered::Displays>,
    scanned: Arc<rendered::Scanned>,
    keep_sources: bool,
    default_namespace: String,
    streamed: Option<Streamed>,
}

/// A built unit with streamed objects: what reading its output again needs.
struct StreamedUnit {
    job: Job,
    wrapper_dir: PathBuf,
    output: flux::jobs::PostBuilt,
    /// The documents of the output, read by the units stage, that hold streamed objects, in
    /// order.
    documents: Vec<usize>,
    /// The documents of the output the units stage left unread (`Streamed::document`), in
    /// order.
    unread: Vec<usize>,
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
        let entry_layer = job
            .argocd
            .as_ref()
            .and_then(|argo| argo.shadow.as_ref())
            .and_then(|shadow| shadow.layer.as_ref())
            .map(|(file, _, _)| file.to_string());
        job.files()
            .into_iter()
            .chain([job.root.kustomization.file.to_string()])
            .chain(job.unit.via.as_ref().map(|via| via.file.clone()))
            .chain(entry_layer)
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

/// Settings of the stage that come from the check's options.
pub struct Context<'a> {
    pub options: &'a UnitOptions,
    pub default_namespace: &'a str,
    pub keep_sources: bool,
    /// Objects not kept in `Rendering::objects` but left for `Rendering::streamed`.
    pub streamed: Option<Streamed>,
}

/// Finds the Kustomize roots among `inputs`, builds them in parallel, and returns their
/// objects. Inputs that are standard input or in memory take no part.
pub fn render(inputs: &[Input], context: &Context<'_>) -> Rendering {
    let mut objects = Vec::new();
    let mut rendering = build(inputs, context).read(&mut |read| objects.extend(read));
    rendering.objects = objects;
    rendering
}

/// The units built, their outputs not read yet: what the check needs before it reads them
/// (the inputs they claim, the files of each unit, the warning) is in `rendering`.
pub struct Builds<'a> {
    /// Everything but the objects of the outputs (`Rendering::objects` holds only those read
    /// without a build).
    pub rendering: Rendering,
    outputs: Option<Outputs<'a>>,
}

/// What reading the built units' outputs needs.
struct Outputs<'a> {
    context: &'a Context<'a>,
    tool: Tool,
    jobs: Vec<Job>,
    keys: Vec<String>,
    builds: BTreeMap<String, Built>,
    tree: discover::Tree,
    files: BTreeMap<PathBuf, Arc<str>>,
    entry_points: BTreeSet<Arc<str>>,
    /// The private temporary directory the wrappers are named in, removed after the reading.
    _scratch: tempfile::TempDir,
}

/// Plans the units of `inputs` and builds them in parallel (see [`render`]); their outputs
/// are read by [`Builds::read`]. Chart directories are rendered beside (`charts`).
pub fn build<'a>(inputs: &[Input], context: &'a Context<'a>) -> Builds<'a> {
    if context.options.off {
        return Builds {
            rendering: Rendering::default(),
            outputs: None,
        };
    }
    let texts = entry_texts(inputs);
    let mut builds = build_kustomize(inputs, &texts, context);
    charts::render(&texts, context, &mut builds.rendering);
    builds
}

fn build_kustomize<'a>(
    inputs: &[Input],
    texts: &[(Arc<str>, String)],
    context: &'a Context<'a>,
) -> Builds<'a> {
    let unread = |rendering| Builds {
        rendering,
        outputs: None,
    };
    let rendering = Rendering::default();
    if context.options.off {
        return unread(rendering);
    }
    let is_file = |input: &&Input| matches!(input, Input::File { .. });
    let files: BTreeMap<PathBuf, Arc<str>> = inputs
        .iter()
        .filter(is_file)
        .map(|input| {
            let display = input.display();
            (normalise_path(Path::new(&**display)), Arc::clone(display))
        })
        .collect();
    let candidates: BTreeSet<PathBuf> = files
        .keys()
        .filter(|path| is_kustomization_file(&path.to_string_lossy()))
        .filter_map(|path| path.parent().map(Path::to_path_buf))
        .collect();
    let written = flux::jobs::FluxInputs::from_texts(texts, &chain::Rendered::default());
    // A Flux Kustomization may name a path without a kustomization (Flux generates one), and
    // an Argo CD Application a directory of plain manifests.
    let anchors = if candidates.is_empty() {
        let mut anchors = written.entry_directories();
        anchors.extend(
            texts
                .iter()
                .filter(|(_, text)| text.contains(argocd::MARKER))
                .filter_map(|(file, _)| {
                    Some(normalise_path(Path::new(&**file)).parent()?.to_path_buf())
                }),
        );
        anchors
    } else {
        candidates.clone()
    };
    if anchors.is_empty() {
        return unread(rendering);
    }
    let repository = context
        .options
        .repository
        .clone()
        .or_else(|| repository_of(&anchors));
    let planner = Planner {
        texts,
        anchors: &anchors,
        candidates: &candidates,
        repository: repository.as_deref(),
        context,
    };
    let mut tree = discover::Tree::new(repository.clone());
    let mut plan = planner.plan(written, &mut tree);
    let mut rendering = std::mem::take(&mut plan.rendering);
    if plan.jobs.is_empty() {
        return unread(rendering);
    }
    let timeout = Duration::from_secs(
        context
            .options
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT_SECONDS)
            .max(1),
    );
    let cache_root = cache_root(context.options);
    let store = cache_root.as_deref().map(cache::Store::new);
    let tool = match Tool::find(context.options.command.as_deref(), timeout, store.as_ref()) {
        Ok(Some(tool)) => tool,
        Ok(None) => {
            rendering.warning = Some(format!(
                "neither kustomize nor kubectl is on PATH: {} Kustomize unit(s) checked as written files, not as rendered (install kustomize or kubectl, or pass --kustomize-command)",
                plan.jobs.len()
            ));
            return unread(rendering);
        }
        Err(problem) => {
            rendering.warning = Some(format!(
                "{problem}: Kustomize units checked as written files"
            ));
            return unread(rendering);
        }
    };
    rendering.tool = Some(ToolSummary {
        command: tool.label.clone(),
        version: tool.version.clone(),
    });
    let scratch = match tempfile::Builder::new().prefix("kvlint-units-").tempdir() {
        Ok(dir) => dir,
        Err(err) => {
            rendering.warning = Some(format!(
                "cannot create a temporary directory for Kustomize wrappers ({err}): units checked as written files"
            ));
            return unread(rendering);
        }
    };
    // Resolved once: every wrapper directory is named from it, created only when a build runs.
    let scratch_dir =
        std::fs::canonicalize(scratch.path()).unwrap_or_else(|_| scratch.path().to_path_buf());
    let mut builder = Builder {
        tool: &tool,
        scratch: &scratch_dir,
        cache_root: cache_root.as_deref(),
        context,
        builds: BTreeMap::new(),
    };
    // Follow the chain (design §3.4): build, read the entry points the builds render, plan
    // again with them, until a round renders the entry points it was planned with.
    let mut chained = chain::Rendered::default();
    let mut round = 1;
    loop {
        builder.build(&plan.jobs);
        let found = builder.entry_points(&plan.jobs);
        if found.same_as(&chained) {
            break;
        }
        if round == chain::MAX_ROUNDS {
            rendering.findings.extend(found.still_changing());
            break;
        }
        round += 1;
        chained = found;
        let inputs = flux::jobs::FluxInputs::from_texts(texts, &chained);
        plan = planner.chained(inputs, &mut tree, &chained);
        rendering = Rendering {
            tool: rendering.tool.take(),
            ..std::mem::take(&mut plan.rendering)
        };
    }
    let jobs = plan.jobs;
    let keys = job_keys(&jobs);
    let builds = builder.builds;
    for (job, key) in jobs.iter().zip(&keys) {
        if builds.get(key).is_some_and(|built| built.output.is_ok()) {
            rendering.claimed.extend(job.root.closure.iter().cloned());
            rendering
                .unit_files
                .insert(job.unit.path.clone(), job.files());
        }
    }
    Builds {
        rendering,
        outputs: Some(Outputs {
            context,
            tool,
            jobs,
            keys,
            builds,
            tree,
            files,
            entry_points: plan.entry_points,
            _scratch: scratch,
        }),
    }
}

impl Builds<'_> {
    /// Reads the built units' outputs in order, handing `absorb` the objects kept (not
    /// streamed, `Context::streamed`) a unit at a time, the objects read without a build
    /// first, so that a unit's trees are let go before the next unit is read.
    pub fn read(self, absorb: &mut dyn FnMut(Vec<Object>)) -> Rendering {
        let Builds {
            mut rendering,
            outputs,
        } = self;
        absorb(std::mem::take(&mut rendering.objects));
        match outputs {
            Some(outputs) => outputs.read(rendering, absorb),
            None => rendering,
        }
    }
}

impl Outputs<'_> {
    fn read(self, mut rendering: Rendering, absorb: &mut dyn FnMut(Vec<Object>)) -> Rendering {
        let Outputs {
            context,
            tool,
            jobs,
            keys,
            mut builds,
            mut tree,
            files,
            entry_points,
            _scratch,
        } = self;
        let roots: Vec<discover::Root> = jobs.iter().map(|job| job.root.clone()).collect();
        let mut origins = rendered::Origins::new(context.keep_sources);
        origins.expect(
            jobs.iter()
                .zip(&keys)
                .filter(|(_, key)| builds.get(*key).is_some_and(|built| built.output.is_ok()))
                .map(|(job, _)| &job.root),
        );
        rendering.streamed = StreamedUnits {
            default_namespace: context.default_namespace.to_owned(),
            keep_sources: context.keep_sources,
            streamed: context.streamed,
            ..StreamedUnits::default()
        };
        let left_unread = context.streamed.map(|streamed| streamed.document);
        let mut failed = Vec::new();
        for (job, key) in jobs.into_iter().zip(keys) {
            let root = &job.root;
            let Some(Built {
                wrapper_dir,
                output,
                ..
            }) = builds.remove(&key)
            else {
                continue;
            };
            let mut output = match output {
                Ok(output) => output,
                Err(NotBuilt::Skipped(finding)) => {
                    rendering.findings.push(*finding);
                    continue;
                }
                Err(NotBuilt::Failed(error)) => {
                    failed.push(failed_build(root, error, &mut tree, &wrapper_dir));
                    continue;
                }
            };
            let read = load_output(
                &job,
                &output,
                &wrapper_dir,
                context.default_namespace,
                &mut origins,
                &|document| left_unread.is_none_or(|unread| !unread(document)),
            );
            origins.done(root);
            rendering.findings.append(&mut output.findings);
            let (objects, streamed) = split_streamed(read.loaded.objects, read.documents, context);
            let unread = read.unread;
            absorb(objects);
            rendering.findings.extend(read.loaded.findings);
            // Helm releases of raw-manifest charts among the rendered objects.
            rendering.units += read.loaded.units;
            rendering.units += 1;
            let (count, documents) = streamed.unwrap_or_default();
            if count > 0 || !unread.is_empty() {
                rendering.streamed.objects += count;
                rendering.streamed.units.push(StreamedUnit {
                    job,
                    wrapper_dir,
                    output,
                    documents,
                    unread,
                });
            }
        }
        rendering
            .findings
            .extend(failed_builds::findings(&tool.label, failed));
        rendering
            .findings
            .extend(never_applied(&files, &roots, &entry_points));
        let parts = origins.into_parts();
        rendering.streamed.displays = parts.displays;
        rendering.streamed.scanned = parts.scanned;
        rendering.sources.extend(parts.sources);
        rendering.suppressions.extend(parts.suppressions);
        rendering.findings.extend(parts.findings);
        rendering
    }
}

/// What the units stage plans from the checked files and the entry points units render.
struct Planner<'a> {
    texts: &'a [(Arc<str>, String)],
    anchors: &'a BTreeSet<PathBuf>,
    candidates: &'a BTreeSet<PathBuf>,
    repository: Option<&'a Path>,
    context: &'a Context<'a>,
}

/// The units of one round, and what planning them leaves for the report.
struct Plan {
    jobs: Vec<Job>,
    rendering: Rendering,
    /// Checked files that hold Argo CD or Flux objects.
    entry_points: BTreeSet<Arc<str>>,
}

impl Planner<'_> {
    /// The units of the entry points as written, and the bare Kustomize roots.
    fn plan(&self, flux_inputs: flux::jobs::FluxInputs, tree: &mut discover::Tree) -> Plan {
        self.chained(flux_inputs, tree, &chain::Rendered::default())
    }

    /// The units once the entry points `rendered` by units replace the ones written; a root
    /// an entry point names is built as the entry point builds it, not again as a root.
    fn chained(
        &self,
        flux_inputs: flux::jobs::FluxInputs,
        tree: &mut discover::Tree,
        rendered: &chain::Rendered,
    ) -> Plan {
        let mut rendering = Rendering::default();
        let shown = self
            .repository
            .map(|repository| shown_root(self.anchors, repository));
        let mut flux = flux::jobs::flux_jobs(flux_inputs, shown.as_deref(), self.repository, tree);
        rendering.findings.append(&mut flux.findings);
        let mut argo = argocd::stage(
            self.texts,
            self.anchors,
            self.repository,
            tree,
            self.context,
            rendered,
            &mut rendering,
        );
        let named: BTreeSet<&PathBuf> = flux
            .jobs
            .iter()
            .flat_map(|job| &job.root.directories)
            .chain(argo.iter().map(|job| &job.root.dir))
            .collect();
        // Compared resolved too: one directory may be spelt two ways (through a symlink).
        let named_resolved: BTreeSet<PathBuf> = named
            .iter()
            .filter_map(|dir| resolve::resolve_dir(dir).ok())
            .collect();
        let mut jobs: Vec<Job> = discover::roots(tree, self.candidates)
            .into_iter()
            .filter(|root| {
                !named.contains(&root.dir)
                    && resolve::resolve_dir(&root.dir)
                        .map_or(true, |real| !named_resolved.contains(&real))
            })
            .map(|root| Job {
                unit: Arc::new(UnitRef {
                    kind: UnitKind::Kustomize,
                    path: display_dir(&root.dir),
                    via: None,
                }),
                root,
                flux: None,
                argocd: None,
            })
            .collect();
        jobs.append(&mut flux.jobs);
        jobs.append(&mut argo);
        Plan {
            jobs,
            rendering,
            entry_points: flux.entry_points,
        }
    }
}

/// One job's build, kept across the rounds of the chain.
struct Built {
    wrapper_dir: PathBuf,
    output: Result<flux::jobs::PostBuilt, NotBuilt>,
    /// The entry points it renders.
    entries: Vec<chain::RenderedEntry>,
    /// A bare Kustomize root: its build may serve only to find entry points.
    provisional: bool,
}

/// Builds jobs once each, by key, across the rounds.
struct Builder<'a> {
    tool: &'a Tool,
    /// The private temporary directory, resolved.
    scratch: &'a Path,
    cache_root: Option<&'a Path>,
    context: &'a Context<'a>,
    builds: BTreeMap<String, Built>,
}

impl Builder<'_> {
    /// Builds the jobs not built yet, in parallel.
    fn build(&mut self, jobs: &[Job]) {
        let missing: Vec<(&Job, String)> = jobs
            .iter()
            .zip(job_keys(jobs))
            .filter(|(_, key)| !self.builds.contains_key(key))
            .collect();
        if missing.is_empty() {
            return;
        }
        let roots: Vec<discover::Root> = missing.iter().map(|(job, _)| job.root.clone()).collect();
        let cache = self
            .cache_root
            .map(|dir| cache::RunCache::new(dir, self.tool.identity(), self.scratch, &roots));
        let first = self.builds.len();
        let built: Vec<Built> = missing
            .par_iter()
            .enumerate()
            .map(|(n, (job, _))| {
                let wrapper_dir = self.scratch.join((first + n).to_string());
                let output = build_job(self.tool, job, &wrapper_dir, cache.as_ref())
                    .and_then(|output| job.post_build(output));
                let entries = match &output {
                    Ok(output) if chain::may_hold_entries(&output.text) => {
                        let mut scratch_origins = rendered::Origins::new(false);
                        // Only the documents that may be entry points are read here.
                        let read = load_output(
                            job,
                            output,
                            &wrapper_dir,
                            self.context.default_namespace,
                            &mut scratch_origins,
                            &|document| chain::may_hold_entries(document.text),
                        );
                        chain::entries_of(&read.loaded.objects, &job.unit.path)
                    }
                    _ => Vec::new(),
                };
                Built {
                    wrapper_dir,
                    output,
                    entries,
                    provisional: job.flux.is_none() && job.argocd.is_none(),
                }
            })
            .collect();
        for ((_, key), built) in missing.into_iter().zip(built) {
            self.builds.insert(key, built);
        }
    }

    /// The entry points the builds render: the units `jobs` plans first (those entry points
    /// name before the bare roots), then bare roots built in earlier rounds, whose output
    /// still holds what they render.
    fn entry_points(&self, jobs: &[Job]) -> chain::Rendered {
        let keys = job_keys(jobs);
        let planned: Vec<&Built> = keys.iter().filter_map(|k| self.builds.get(k)).collect();
        let earlier = self
            .builds
            .iter()
            .filter(|(key, built)| built.provisional && !keys.contains(key))
            .map(|(_, built)| built);
        let ordered = planned
            .iter()
            .copied()
            .filter(|built| !built.provisional)
            .chain(planned.iter().copied().filter(|built| built.provisional))
            .chain(earlier);
        chain::Rendered::scan(ordered.map(|built| built.entries.as_slice()))
    }
}

/// A key per job that tells its build apart: the unit with its entry point and the
/// entry point's options; a job planned twice gets a second key.
fn job_keys(jobs: &[Job]) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    jobs.iter()
        .map(|job| {
            let options = match (&job.flux, &job.argocd) {
                (Some(flux), _) => flux.entry.spec.to_string(),
                (None, Some(argo)) => format!(
                    "{}\n{}",
                    argo.target.source.to_json(),
                    argo.target.app.spec.to_json()
                ),
                (None, None) => String::new(),
            };
            let key = format!("{:?}\n{options}", job.unit);
            let count = seen.entry(key.clone()).or_default();
            *count += 1;
            if *count == 1 {
                key
            } else {
                format!("{key}\n#{count}")
            }
        })
        .collect()
}

/// A built unit's output as objects that point into the repository.
fn load_output(
    job: &Job,
    output: &flux::jobs::PostBuilt,
    wrapper_dir: &Path,
    default_namespace: &str,
    origins: &mut rendered::Origins,
    select: &dyn Fn(crate::yaml::DocumentText<'_>) -> bool,
) -> rendered::UnitObjects {
    // A Flux unit builds an edited copy of its own kustomization, which stands for the real
    // file in attribution, as an Argo CD unit's copy does.
    let edited = job
        .flux
        .as_ref()
        .filter(|flux| flux.generated.is_none())
        .and_then(|_| argocd::Shadow::edited(&job.root));
    rendered::objects(
        &output.text,
        &rendered::UnitBuild {
            unit: &job.unit,
            root: &job.root,
            wrapper_dir,
            default_namespace: job.argocd.as_ref().map_or(default_namespace, |argo| {
                argo.target.namespace(default_namespace)
            }),
            shadow: job
                .argocd
                .as_ref()
                .and_then(|argo| argo.shadow.as_ref())
                .or(edited.as_ref()),
            unresolved: &output.unresolved,
            variables: &output.variables,
        },
        origins,
        select,
    )
}

/// The objects of a unit kept now, and, when it has streamed objects (`Context::streamed`),
/// how many and the documents of its output that hold them.
fn split_streamed(
    objects: Vec<Object>,
    documents: Vec<usize>,
    context: &Context<'_>,
) -> (Vec<Object>, Option<(usize, Vec<usize>)>) {
    let Some(streamed) = context.streamed.map(|streamed| streamed.object) else {
        return (objects, None);
    };
    let mut kept = Vec::with_capacity(objects.len());
    let mut count = 0;
    let mut holding = BTreeSet::new();
    for (object, document) in objects.into_iter().zip(documents) {
        if streamed(&object) {
            count += 1;
            holding.insert(document);
        } else {
            kept.push(object);
        }
    }
    let streamed = (count > 0).then(|| (count, holding.into_iter().collect()));
    (kept, streamed)
}

/// The directory builds may not read outside of, resolved: the git work tree of the checked
/// kustomizations (the first one's); without git, the working directory, or the deepest
/// directory holding every checked kustomization when some lie outside it.
pub(crate) fn repository_of(candidates: &BTreeSet<PathBuf>) -> Option<PathBuf> {
    let resolved: Vec<PathBuf> = candidates
        .iter()
        .filter_map(|dir| resolve::resolve_dir(dir).ok())
        .collect();
    let first = resolved.first()?;
    if let Some(root) = crate::source::repository_root(first) {
        return Some(root);
    }
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize)
        && resolved.iter().all(|dir| dir.starts_with(&cwd))
    {
        return Some(cwd);
    }
    let mut common = first.clone();
    while !resolved.iter().all(|dir| dir.starts_with(&common)) {
        if !common.pop() {
            return None;
        }
    }
    Some(common)
}

/// `path` as the working directory names it: a relative path that leaves the working directory
/// and comes back into it (`../../examples/demo/apps`, named from the repository's root while
/// kvlint runs in `examples/demo`) is shortened to the part inside (`apps`), so that a directory
/// an entry point names and the same directory in the checked tree are one directory, spelt one
/// way. Lexical: `..` is taken against the working directory's own path.
pub(crate) fn within_working_directory(path: PathBuf) -> PathBuf {
    if !path.starts_with("..") {
        return path;
    }
    let Ok(cwd) = std::env::current_dir() else {
        return path;
    };
    let absolute = normalise_path(&cwd.join(&path));
    match absolute.strip_prefix(&cwd) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => path,
    }
}

fn display_dir(dir: &Path) -> String {
    let text = crate::source::display_path(dir);
    if text.is_empty() {
        ".".to_owned()
    } else {
        text.to_string()
    }
}

fn kustomization_location(root: &discover::Root) -> Location {
    Location::lines(Arc::clone(&root.kustomization.file), (1, 1), (1, 1))
}

/// Why a root gave no output.
enum NotBuilt {
    /// kvlint did not run the build.
    Skipped(Box<Finding>),
    /// The tool failed.
    Failed(outcome::BuildError),
}

/// The units cache's root directory, unless `--no-cache`.
fn cache_root(options: &UnitOptions) -> Option<PathBuf> {
    if options.no_cache {
        return None;
    }
    cache::root_directory(
        options.cache_dir.as_deref(),
        &|name| std::env::var_os(name),
        std::env::home_dir(),
    )
}

/// One unit to build: a Kustomize root, or the directory a Flux Kustomization names.
struct Job {
    root: discover::Root,
    unit: Arc<UnitRef>,
    flux: Option<flux::jobs::FluxJob>,
    argocd: Option<argocd::ArgoJob>,
}

impl Job {
    /// The files the unit changes with, as the report names them: those its build reads, and
    /// the sources of a Flux unit's post-build variables.
    fn files(&self) -> Vec<String> {
        let variable_sources = self
            .flux
            .iter()
            .filter_map(|flux| flux.post_build.as_ref())
            .flat_map(|post_build| &post_build.source_files)
            .map(|file| normalise_path(Path::new(&**file)));
        let files: BTreeSet<PathBuf> = self
            .root
            .closure
            .iter()
            .cloned()
            .chain(variable_sources)
            .collect();
        files
            .iter()
            .map(|file| crate::source::display_path(file).to_string())
            .collect()
    }
}

/// The repository root as the report names paths: the ancestor of a checked directory, as
/// written, that is the repository (so a path given through a symlink keeps its spelling);
/// else absolute when the paths were given so, or relative to the working directory.
fn shown_root(candidates: &BTreeSet<PathBuf>, repository: &Path) -> PathBuf {
    for candidate in candidates {
        let mut dir = normalise_path(candidate);
        loop {
            let here = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir.as_path()
            };
            if std::fs::canonicalize(here).is_ok_and(|real| real == repository) {
                return here.to_path_buf();
            }
            if !dir.pop() {
                break;
            }
        }
    }
    if candidates.iter().any(|c| c.is_absolute()) {
        repository.to_path_buf()
    } else {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .unwrap_or_default();
        wrapper::relative_path(&cwd, repository)
    }
}

/// Builds one job, through the cache when there is one. `wrapper_dir` is resolved and is
/// created only when the build runs.
fn build_job(
    tool: &Tool,
    job: &Job,
    wrapper_dir: &Path,
    cache: Option<&cache::RunCache>,
) -> Result<String, NotBuilt> {
    let root = &job.root;
    if let Some(reason) = root.unbuildable.first() {
        return Err(NotBuilt::Skipped(Box::new(unbuildable_finding(
            root, reason,
        ))));
    }
    let not_written = |problem: &str| {
        NotBuilt::Skipped(match (&job.flux, &job.argocd) {
            (None, Some(argo)) => argo.not_written(problem),
            _ => Box::new(Finding::new(
                &rules::UNIT_NOT_RENDERED,
                kustomization_location(root),
                format!(
                    "not rendered: cannot write the build wrapper ({problem}); its files are checked as written"
                ),
            )),
        })
    };
    let mut shadow_files = None;
    let wrapper = match (&job.flux, &job.argocd) {
        (Some(flux), _) => {
            wrapper::flux_text(root, &flux.entry, flux.generated.as_ref(), wrapper_dir)
        }
        (None, Some(argo)) => {
            let shadowed = argo
                .shadowed(root, wrapper_dir)
                .map_err(NotBuilt::Skipped)?;
            let text = shadowed.text.clone();
            shadow_files = Some(shadowed);
            Ok(text)
        }
        (None, None) => wrapper::text(root, wrapper_dir),
    }
    .map_err(|problem| not_written(&problem.to_string()))?;
    // Flux builds with `LoadRestrictionsNone` (fluxcd/pkg kustomize `SecureBuild`); the
    // closure kvlint checked keeps the build inside the repository.
    let restrictor: &[&str] = if job.flux.is_some() {
        &["--load-restrictor", "LoadRestrictionsNone"]
    } else {
        &[]
    };
    let unwritten = std::cell::RefCell::new(None);
    let build = || {
        if let Err(problem) = wrapper::write(wrapper_dir, &wrapper) {
            *unwritten.borrow_mut() = Some(problem.to_string());
            return Err(outcome::BuildError::Failed(problem.to_string()));
        }
        if let Some(shadowed) = &shadow_files {
            shadowed
                .copy_files()
                .map_err(|problem| outcome::BuildError::Failed(problem.to_string()))?;
        }
        tool.build(wrapper_dir, restrictor)
    };
    let result = match cache {
        Some(cache) => cache.build(root, &display_dir(&root.dir), &wrapper, wrapper_dir, build),
        None => build(),
    };
    if let Some(problem) = unwritten.into_inner() {
        return Err(not_written(&problem));
    }
    result.map_err(NotBuilt::Failed)
}

/// A build the tool refused, at the place its message names, or that could not run.
fn failed_build(
    root: &discover::Root,
    error: outcome::BuildError,
    tree: &mut discover::Tree,
    wrapper_dir: &Path,
) -> failed_builds::FailedBuild {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    let wrapper_dir =
        std::fs::canonicalize(wrapper_dir).unwrap_or_else(|_| wrapper_dir.to_path_buf());
    let (reason, location) = match error {
        outcome::BuildError::Refused(message) => {
            let directories = root
                .directories
                .iter()
                .filter_map(|dir| Some((resolve::resolve_dir(dir).ok()?, dir.clone())))
                .collect();
            let places = failure::Places {
                fallback: &root.kustomization.file,
                directories,
                cwd: &cwd,
                wrapper: &wrapper_dir,
            };
            let failure = failure::read(&message, &places, tree);
            (
                failed_builds::Reason::Refused(failure.message),
                failure.location,
            )
        }
        outcome::BuildError::Failed(problem) => (
            failed_builds::Reason::Failed(problem),
            kustomization_location(root),
        ),
    };
    failed_builds::FailedBuild {
        location,
        unit: display_dir(&root.dir),
        reason,
    }
}

fn unbuildable_finding(root: &discover::Root, reason: &discover::Unbuildable) -> Finding {
    let (file, reference, why) = match reason {
        discover::Unbuildable::Remote { file, reference } => (
            file,
            reference,
            "a remote target, which kvlint does not fetch",
        ),
        discover::Unbuildable::Escapes { file, reference } => (
            file,
            reference,
            "outside the repository, which kvlint does not read",
        ),
    };
    Finding::new(
        &rules::UNIT_NOT_RENDERED,
        Location {
            file: Arc::clone(file),
            span: reference.span,
        },
        format!(
            "{} is not rendered: `{}` is {why}; its local files are checked as written",
            display_dir(&root.dir),
            reference.value
        ),
    )
}

/// A warning for each checked manifest that no unit's build reads although the nearest
/// kustomization above it belongs to a unit: Argo CD and Flux never apply it. Entry points
/// (Argo CD and Flux objects) are left out: they are applied by hand at bootstrap.
fn never_applied(
    files: &BTreeMap<PathBuf, Arc<str>>,
    roots: &[discover::Root],
    entry_points: &BTreeSet<Arc<str>>,
) -> Vec<Finding> {
    let read: BTreeSet<&PathBuf> = roots.iter().flat_map(|root| &root.closure).collect();
    let built: BTreeSet<&Path> = roots
        .iter()
        .flat_map(|root| root.directories.iter().map(PathBuf::as_path))
        .collect();
    let kustomization_dirs: BTreeMap<&Path, &Arc<str>> = files
        .iter()
        .filter(|(_, display)| is_kustomization_file(display))
        .filter_map(|(path, display)| Some((path.parent()?, display)))
        .collect();
    let mut out = Vec::new();
    for (path, display) in files {
        if read.contains(path)
            || is_kustomization_file(display)
            || !crate::source::is_manifest_name(path)
        {
            continue;
        }
        let nearest = path
            .ancestors()
            .skip(1)
            .find_map(|dir| kustomization_dirs.get_key_value(dir));
        let Some((dir, kustomization)) = nearest else {
            continue;
        };
        if !built.contains(dir) || entry_points.contains(display) {
            continue;
        }
        out.push(
            Finding::new(
                &rules::NEVER_APPLIED,
                Location::lines(Arc::clone(display), (1, 1), (1, 2)),
                format!("never applied: no kustomization lists this file, and {kustomization} builds this directory"),
            )
            .with_related(Related {
                location: Location::lines(Arc::clone(kustomization), (1, 1), (1, 2)),
                message: "the kustomization of this directory".to_owned(),
            })
            .with_help("list it under `resources:` of the kustomization, or move it out of the unit's directory"),
        );
    }
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A build command that prints one fixed object whatever it builds.
    fn fake_tool(dir: &Path) -> Tool {
        use std::os::unix::fs::PermissionsExt;
        let program = dir.join("fake-kustomize");
        std::fs::write(
            &program,
            "#!/bin/sh\nif [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\necho 'kind: ConfigMap'\n",
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        Tool::find(program.to_str(), Duration::from_secs(30), None)
            .unwrap()
            .unwrap()
    }

    /// A build command that prints `output` whatever it builds.
    fn printing_tool(dir: &Path, output: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let printed = dir.join("printed.yaml");
        std::fs::write(&printed, output).unwrap();
        let program = dir.join("printing-kustomize");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\nif [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\ncat '{}'\n",
                printed.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        program
    }

    fn is_vm(object: &Object) -> bool {
        object.kind == "VirtualMachine"
    }

    const VMS: Streamed = Streamed {
        object: is_vm,
        document: crate::load::looks_like_vm,
    };

    #[test]
    fn streamed_objects_are_read_again_as_they_were_first_read() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let unit = top.join("unit");
        std::fs::create_dir(&unit).unwrap();
        let kustomization = unit.join("kustomization.yaml");
        std::fs::write(&kustomization, "resources: [all.yaml]\n").unwrap();
        std::fs::write(unit.join("all.yaml"), "kind: ConfigMap\n").unwrap();
        let output = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\n\
            apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: one}\n---\n\
            apiVersion: v1\nkind: Service\nmetadata: {name: between}\n---\n\
            {apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {name: two}}\n---\n\
            apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: three}\n\
            spec: {running: true\n";
        let program = printing_tool(&top, output);
        let inputs: Vec<Input> = [&kustomization, &unit.join("all.yaml")]
            .into_iter()
            .map(|path| Input::File {
                path: path.clone(),
                display: Arc::from(path.to_string_lossy().as_ref()),
            })
            .collect();
        let options = UnitOptions {
            command: Some(program.to_string_lossy().into_owned()),
            no_cache: true,
            ..UnitOptions::default()
        };
        let render_with = |streamed: Option<Streamed>| {
            render(
                &inputs,
                &Context {
                    options: &options,
                    default_namespace: "default",
                    keep_sources: false,
                    streamed,
                },
            )
        };
        let shown = |objects: &[Object]| -> Vec<(String, String, Arc<str>, crate::yaml::Node)> {
            objects
                .iter()
                .map(|o| {
                    (
                        o.kind.clone(),
                        o.name.clone(),
                        Arc::clone(&o.file),
                        o.node.clone(),
                    )
                })
                .collect()
        };

        let whole = render_with(None);
        assert_eq!(whole.objects.len(), 4, "{:?}", whole.findings);
        assert_eq!(whole.streamed.units(), 0);
        let broken = |findings: &[Finding]| -> Vec<String> {
            findings
                .iter()
                .filter(|f| f.message.contains("not valid YAML"))
                .map(|f| f.message.clone())
                .collect()
        };
        assert_eq!(broken(&whole.findings).len(), 1, "{:?}", whole.findings);

        let streaming = render_with(Some(VMS));
        let kept: Vec<&str> = streaming.objects.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(kept, ["first", "between"]);
        // Only the flow-style VM is parsed by the units stage; the plain one and the broken
        // one are left unread, and so is the broken one's finding.
        assert_eq!(
            (streaming.streamed.units(), streaming.streamed.objects()),
            (1, 1)
        );
        assert!(broken(&streaming.findings).is_empty());
        let vms: Vec<Object> = whole.objects.into_iter().filter(is_vm).collect();
        let read = streaming.streamed.read(0);
        assert_eq!(shown(&read.objects), shown(&vms));
        assert_eq!(read.first_read, 1, "the plain VM");
        assert_eq!(broken(&read.findings), broken(&whole.findings));
        assert!(streaming.streamed.read(1).objects.is_empty());
    }

    #[test]
    fn a_cached_build_writes_no_wrapper_directory() {
        let dir = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(dir.path()).unwrap();
        let unit = top.join("unit");
        std::fs::create_dir(&unit).unwrap();
        std::fs::write(unit.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
        std::fs::write(unit.join("cm.yaml"), "kind: ConfigMap\n").unwrap();
        let root = discover::Tree::new(Some(top.clone())).root(&unit).unwrap();
        let job = Job {
            unit: Arc::new(UnitRef {
                kind: UnitKind::Kustomize,
                path: display_dir(&root.dir),
                via: None,
            }),
            root,
            flux: None,
            argocd: None,
        };
        let tool = fake_tool(&top);
        let scratch = top.join("kvlint-units-x");
        std::fs::create_dir(&scratch).unwrap();
        let cache = cache::RunCache::new(
            &top.join("cache"),
            tool.identity(),
            &scratch,
            std::slice::from_ref(&job.root),
        );
        let build = |wrapper_dir: &Path| {
            build_job(&tool, &job, wrapper_dir, Some(&cache))
                .ok()
                .expect("the fake build succeeds")
        };

        let cold = scratch.join("0");
        assert_eq!(build(&cold), "kind: ConfigMap\n");
        assert!(
            cold.join("kustomization.yaml").is_file(),
            "a build runs in its wrapper"
        );

        let warm = scratch.join("1");
        assert_eq!(build(&warm), "kind: ConfigMap\n");
        assert!(!warm.exists(), "a cached build writes nothing");
    }
}
