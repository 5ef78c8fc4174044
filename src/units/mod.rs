//! Units: what a GitOps controller renders from the repository. Today the Kustomize roots
//! among the checked files, each built with the real Kustomize (`kustomize build` or
//! `kubectl kustomize`) from a wrapper in a private temporary directory, so that every
//! rendered object carries the file it came from; the objects are then checked as rendered,
//! with their spans in that file.

mod argocd;
mod cache;
mod discover;
pub mod envsubst;
mod failure;
mod flux;
pub(crate) mod helm;
mod kustomization;
pub(crate) mod provenance;
mod rendered;
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

pub(crate) use tool::Tool;

/// Whether and how units are built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitOptions {
    /// Check every file as written, as if no kustomization existed (`--units off`).
    pub off: bool,
    /// The build command (`--kustomize-command`).
    pub command: Option<String>,
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
    /// Why kustomizations were checked as written, for standard error.
    pub warning: Option<String>,
}

/// Settings of the stage that come from the check's options.
pub struct Context<'a> {
    pub options: &'a UnitOptions,
    pub default_namespace: &'a str,
    pub keep_sources: bool,
}

/// Finds the Kustomize roots among `inputs`, builds them in parallel, and returns their
/// objects. Inputs that are standard input or in memory take no part.
pub fn render(inputs: &[Input], context: &Context<'_>) -> Rendering {
    let mut rendering = Rendering::default();
    if context.options.off {
        return rendering;
    }
    let is_file = |input: &&Input| matches!(input, Input::File { .. });
    let texts = entry_texts(inputs);
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
    let flux_inputs = flux::jobs::FluxInputs::from_texts(&texts);
    // A Flux Kustomization may name a path without a kustomization (Flux generates one), and
    // an Argo CD Application a directory of plain manifests.
    let anchors = if candidates.is_empty() {
        let mut anchors = flux_inputs.entry_directories();
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
        return rendering;
    }
    let repository = context
        .options
        .repository
        .clone()
        .or_else(|| repository_of(&anchors));
    let mut tree = discover::Tree::new(repository.clone());
    let absolute = anchors.iter().any(|c| c.is_absolute());
    let mut flux = flux::jobs::flux_jobs(flux_inputs, absolute, repository.as_deref(), &mut tree);
    rendering.findings.append(&mut flux.findings);
    let mut argo = argocd::stage(
        &texts,
        &anchors,
        repository.as_deref(),
        &mut tree,
        context,
        &mut rendering,
    );
    // A directory a Flux Kustomization or an Argo CD Application names is built as they
    // build it, not again as a root.
    let named: BTreeSet<&PathBuf> = flux
        .jobs
        .iter()
        .flat_map(|job| &job.root.directories)
        .chain(argo.iter().map(|job| &job.root.dir))
        .collect();
    let mut jobs: Vec<Job> = discover::roots(&mut tree, &candidates)
        .into_iter()
        .filter(|root| !named.contains(&root.dir))
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
    if jobs.is_empty() {
        return rendering;
    }
    let roots: Vec<discover::Root> = jobs.iter().map(|job| job.root.clone()).collect();
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
                roots.len()
            ));
            return rendering;
        }
        Err(problem) => {
            rendering.warning = Some(format!(
                "{problem}: Kustomize units checked as written files"
            ));
            return rendering;
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
            return rendering;
        }
    };
    let cache =
        cache_root.map(|dir| cache::RunCache::new(&dir, tool.identity(), scratch.path(), &roots));
    let builds: Vec<Result<String, NotBuilt>> = jobs
        .par_iter()
        .enumerate()
        .map(|(n, job)| {
            let wrapper_dir = scratch.path().join(n.to_string());
            build_job(&tool, job, &wrapper_dir, cache.as_ref())
        })
        .collect();
    let mut origins = rendered::Origins::new(context.keep_sources);
    for (n, (job, build)) in jobs.iter().zip(builds).enumerate() {
        let root = &job.root;
        let wrapper_dir = scratch.path().join(n.to_string());
        let output = match build.and_then(|output| job.post_build(output)) {
            Ok(output) => output,
            Err(NotBuilt::Skipped(finding)) => {
                rendering.findings.push(*finding);
                continue;
            }
            Err(NotBuilt::Failed(error)) => {
                rendering.findings.push(failed_finding(
                    &tool,
                    root,
                    error,
                    &mut tree,
                    &wrapper_dir,
                ));
                continue;
            }
        };
        rendering.findings.extend(output.findings);
        let unit = Arc::clone(&job.unit);
        let edited = job
            .flux
            .as_ref()
            .filter(|flux| flux.generated.is_none())
            .and_then(|_| argocd::Shadow::edited(root));
        let loaded = rendered::objects(
            &output.text,
            &rendered::UnitBuild {
                unit: &unit,
                root,
                wrapper_dir: &wrapper_dir,
                default_namespace: job
                    .argocd
                    .as_ref()
                    .map_or(context.default_namespace, |argo| {
                        argo.target.namespace(context.default_namespace)
                    }),
                shadow: job
                    .argocd
                    .as_ref()
                    .and_then(|argo| argo.shadow.as_ref())
                    .or(edited.as_ref()),
                unresolved: &output.unresolved,
                variables: &output.variables,
            },
            &mut origins,
        );
        rendering.objects.extend(loaded.objects);
        rendering.findings.extend(loaded.findings);
        // Helm releases of raw-manifest charts among the rendered objects.
        rendering.units += loaded.units;
        rendering.claimed.extend(root.closure.iter().cloned());
        rendering.unit_files.insert(unit.path.clone(), job.files());
        rendering.units += 1;
    }
    rendering
        .findings
        .extend(never_applied(&files, &roots, &flux.entry_points));
    let parts = origins.into_parts();
    rendering.sources.extend(parts.sources);
    rendering.suppressions.extend(parts.suppressions);
    rendering.findings.extend(parts.findings);
    rendering
}

/// The directory builds may not read outside of, resolved: the git work tree of the checked
/// kustomizations (the first one's); without git, the working directory, or the deepest
/// directory holding every checked kustomization when some lie outside it.
pub(crate) fn repository_of(candidates: &BTreeSet<PathBuf>) -> Option<PathBuf> {
    let resolved: Vec<PathBuf> = candidates
        .iter()
        .filter_map(|dir| discover::resolve_dir(dir).ok())
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
    Failed(tool::BuildError),
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

/// The checked files that hold entry points (Argo CD or Flux objects) or variable sources
/// (ConfigMaps, Secrets), with their texts.
fn entry_texts(inputs: &[Input]) -> Vec<(Arc<str>, String)> {
    inputs
        .par_iter()
        .filter_map(|input| match input {
            Input::File { path, display } if crate::source::is_manifest_name(path) => {
                let text = crate::source::read_file_text(path).ok()?;
                Some((Arc::clone(display), text))
            }
            _ => None,
        })
        .filter(|(_, text)| {
            is_entry_point(text)
                || text.contains("kind: ConfigMap")
                || text.contains("kind: Secret")
        })
        .collect()
}

/// The repository root as the report names paths: absolute when the paths were given so.
fn shown_root(candidates: &BTreeSet<PathBuf>, repository: &Path) -> PathBuf {
    if candidates.iter().any(|c| c.is_absolute()) {
        repository.to_path_buf()
    } else {
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .unwrap_or_default();
        wrapper::relative_path(&cwd, repository)
    }
}

/// Builds one job, through the cache when there is one.
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
    let written = match (&job.flux, &job.argocd) {
        (Some(flux), _) => {
            wrapper::write_flux(root, &flux.entry, flux.generated.as_ref(), wrapper_dir)
        }
        (None, Some(argo)) => Ok(argo.write(root, wrapper_dir).map_err(NotBuilt::Skipped)?),
        (None, None) => wrapper::write(root, wrapper_dir),
    };
    let wrapper = written.map_err(|problem| {
        NotBuilt::Skipped(Box::new(Finding::new(
            &rules::UNIT_NOT_RENDERED,
            kustomization_location(root),
            format!(
                "not rendered: cannot write the build wrapper ({problem}); its files are checked as written"
            ),
        )))
    })?;
    // Flux builds with `LoadRestrictionsNone` (fluxcd/pkg kustomize `SecureBuild`); the
    // closure kvlint checked keeps the build inside the repository.
    let restrictor: &[&str] = if job.flux.is_some() {
        &["--load-restrictor", "LoadRestrictionsNone"]
    } else {
        &[]
    };
    let build = || tool.build(wrapper_dir, restrictor);
    match cache {
        Some(cache) => cache.build(root, &display_dir(&root.dir), &wrapper, wrapper_dir, build),
        None => build(),
    }
    .map_err(NotBuilt::Failed)
}

/// The finding about a build the tool refused, at the place its message names.
fn failed_finding(
    tool: &Tool,
    root: &discover::Root,
    error: tool::BuildError,
    tree: &mut discover::Tree,
    wrapper_dir: &Path,
) -> Finding {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    let wrapper_dir =
        std::fs::canonicalize(wrapper_dir).unwrap_or_else(|_| wrapper_dir.to_path_buf());
    let (message, location) = match error {
        tool::BuildError::Refused(message) => {
            let directories = root
                .directories
                .iter()
                .filter_map(|dir| Some((discover::resolve_dir(dir).ok()?, dir.clone())))
                .collect();
            let places = failure::Places {
                fallback: &root.kustomization.file,
                directories,
                cwd: &cwd,
                wrapper: &wrapper_dir,
            };
            let failure = failure::read(&message, &places, tree);
            (
                format!(
                    "{} cannot build {}: {}",
                    tool.label,
                    display_dir(&root.dir),
                    failure.message
                ),
                failure.location,
            )
        }
        tool::BuildError::Failed(problem) => (
            format!(
                "{} of {} failed: {problem}",
                tool.label,
                display_dir(&root.dir)
            ),
            kustomization_location(root),
        ),
    };
    Finding::new(&rules::KUSTOMIZE_BUILD_FAILED, location, message).with_help(
        "Argo CD and Flux cannot apply a unit that does not build; its files are checked as written",
    )
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

/// Whether a file's text holds Argo CD or Flux objects (an Application, a Flux
/// Kustomization...).
fn is_entry_point(text: &str) -> bool {
    // Flux's groups are `kustomize.toolkit.fluxcd.io`, `helm.toolkit.fluxcd.io`, ...
    ["apiVersion: argoproj.io/", ".toolkit.fluxcd.io/"]
        .iter()
        .any(|marker| text.contains(marker))
}
