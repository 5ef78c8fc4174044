//! Units: what a GitOps controller renders from the repository. Today the Kustomize roots
//! among the checked files, each built with the real Kustomize (`kustomize build` or
//! `kubectl kustomize`) from a wrapper in a private temporary directory, so that every
//! rendered object carries the file it came from; the objects are then checked as rendered,
//! with their spans in that file.

mod argocd;
mod builder;
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
mod streamed;
mod tool;
mod wrapper;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::diag::{Finding, Location, Related, UnitKind, UnitRef};
use crate::k8s::{Object, is_kustomization_file, normalise_path};
use crate::rules;
use crate::source::Input;
use crate::suppress::inline::Suppression;
use builder::{Builder, Built, Job, NotBuilt, failed_build, job_keys, load_output, split_streamed};
use entry_texts::{entry_texts, is_entry_point};

use streamed::StreamedUnit;
pub use streamed::{Streamed, StreamedUnits, UnitRead};
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

/// Settings of the stage that come from the check's options.
pub struct Context<'a> {
    pub options: &'a UnitOptions,
    pub default_namespace: &'a str,
    /// The KubeVirt release of the cluster: Helm renders charts with the APIs it serves.
    pub kubevirt: crate::cluster::version::KubeVirtVersion,
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
    let (mut builds, chained) = build_kustomize(inputs, &texts, context);
    charts::render(&texts, &chained, context, &mut builds.rendering);
    builds
}

/// The Kustomize units built, with the entry points their builds render in the last round of
/// the chain.
fn build_kustomize<'a>(
    inputs: &[Input],
    texts: &[(Arc<str>, String)],
    context: &'a Context<'a>,
) -> (Builds<'a>, chain::Rendered) {
    let unread = |rendering| {
        (
            Builds {
                rendering,
                outputs: None,
            },
            chain::Rendered::default(),
        )
    };
    let rendering = Rendering::default();
    if context.options.off {
        return unread(rendering);
    }
    let found = UnitSearch::find(inputs, texts);
    if found.anchors.is_empty() {
        return unread(rendering);
    }
    let repository = context
        .options
        .repository
        .clone()
        .or_else(|| repository_of(&found.anchors));
    let planner = Planner {
        texts,
        anchors: &found.anchors,
        candidates: &found.candidates,
        repository: repository.as_deref(),
        context,
    };
    let mut tree = discover::Tree::new(repository.clone());
    if let Some(repository) = &repository {
        tree.show_repository_as(shown_root(&found.anchors, repository));
    }
    let mut plan = planner.plan(found.written, &mut tree);
    let mut rendering = std::mem::take(&mut plan.rendering);
    if plan.jobs.is_empty() {
        return unread(rendering);
    }
    let cache_root = cache_root(context.options);
    let Some(tool) = kustomize_tool(
        context,
        plan.jobs.len(),
        cache_root.as_deref(),
        &mut rendering,
    ) else {
        return unread(rendering);
    };
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
    let (plan, mut rendering, chained) =
        follow_chain(&mut builder, &planner, &mut tree, (plan, rendering), texts);
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
    let builds = Builds {
        rendering,
        outputs: Some(Outputs {
            context,
            tool,
            jobs,
            keys,
            builds,
            tree,
            files: found.files,
            entry_points: plan.entry_points,
            _scratch: scratch,
        }),
    };
    (builds, chained)
}

/// Where the Kustomize stage looks for units: the checked files, the directories of their
/// kustomizations (`candidates`), and the directories units may start from (`anchors`).
struct UnitSearch {
    files: BTreeMap<PathBuf, Arc<str>>,
    candidates: BTreeSet<PathBuf>,
    anchors: BTreeSet<PathBuf>,
    /// The Flux entry points as written.
    written: flux::jobs::FluxInputs,
}

impl UnitSearch {
    fn find(inputs: &[Input], texts: &[(Arc<str>, String)]) -> Self {
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
        Self {
            files,
            candidates,
            anchors,
            written,
        }
    }
}

/// The Kustomize that builds the units, named in `rendering`; None (with the warning in
/// `rendering`) when there is none.
fn kustomize_tool(
    context: &Context<'_>,
    units: usize,
    cache_root: Option<&Path>,
    rendering: &mut Rendering,
) -> Option<Tool> {
    let timeout = build_timeout(context.options);
    let store = cache_root.map(cache::Store::new);
    let tool = match Tool::find(context.options.command.as_deref(), timeout, store.as_ref()) {
        Ok(Some(tool)) => tool,
        Ok(None) => {
            rendering.warning = Some(format!(
                "neither kustomize nor kubectl is on PATH: {units} Kustomize unit(s) checked as written files, not as rendered (install kustomize or kubectl, or pass --kustomize-command)"
            ));
            return None;
        }
        Err(problem) => {
            rendering.warning = Some(format!(
                "{problem}: Kustomize units checked as written files"
            ));
            return None;
        }
    };
    rendering.tool = Some(ToolSummary {
        command: tool.label.clone(),
        version: tool.version.clone(),
    });
    Some(tool)
}

/// Follows the chain (design §3.4): build, read the entry points the builds render, plan again
/// with them, until a round renders the entry points it was planned with. Returns the last
/// plan and the entry points its builds render (the HelmReleases `charts` renders among them).
fn follow_chain(
    builder: &mut Builder<'_>,
    planner: &Planner<'_>,
    tree: &mut discover::Tree,
    (mut plan, mut rendering): (Plan, Rendering),
    texts: &[(Arc<str>, String)],
) -> (Plan, Rendering, chain::Rendered) {
    let mut chained = chain::Rendered::default();
    let mut round = 1;
    loop {
        builder.build(&plan.jobs);
        let found = builder.entry_points(&plan.jobs);
        if found.same_as(&chained) {
            return (plan, rendering, found);
        }
        if round == chain::MAX_ROUNDS {
            rendering.findings.extend(found.still_changing());
            return (plan, rendering, found);
        }
        round += 1;
        chained = found;
        let inputs = flux::jobs::FluxInputs::from_texts(texts, &chained);
        plan = planner.chained(inputs, tree, &chained);
        rendering = Rendering {
            tool: rendering.tool.take(),
            ..std::mem::take(&mut plan.rendering)
        };
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

/// How long one unit's build or rendering may take (`--kustomize-timeout`).
fn build_timeout(options: &UnitOptions) -> Duration {
    Duration::from_secs(options.timeout.unwrap_or(DEFAULT_TIMEOUT_SECONDS).max(1))
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
mod tests;
