//! Building the units: one build per job, through the cache, across the rounds of the chain,
//! and each build's output read as objects that point into the repository.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::{
    Context, Tool, argocd, cache, chain, discover, display_dir, failed_builds, failure, flux,
    kustomization_location, outcome, rendered, resolve, wrapper,
};
use crate::diag::{Finding, Location, UnitRef};
use crate::k8s::{Object, normalise_path};
use crate::rules;

/// One job's build, kept across the rounds of the chain.
pub(super) struct Built {
    pub(super) wrapper_dir: PathBuf,
    pub(super) output: Result<flux::jobs::PostBuilt, NotBuilt>,
    /// The entry points it renders.
    pub(super) entries: Vec<chain::RenderedEntry>,
    /// A bare Kustomize root: its build may serve only to find entry points.
    pub(super) provisional: bool,
}

/// Builds jobs once each, by key, across the rounds.
pub(super) struct Builder<'a> {
    pub(super) tool: &'a Tool,
    /// The private temporary directory, resolved.
    pub(super) scratch: &'a Path,
    pub(super) cache_root: Option<&'a Path>,
    pub(super) context: &'a Context<'a>,
    pub(super) builds: BTreeMap<String, Built>,
}

impl Builder<'_> {
    /// Builds the jobs not built yet, in parallel.
    pub(super) fn build(&mut self, jobs: &[Job]) {
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
    pub(super) fn entry_points(&self, jobs: &[Job]) -> chain::Rendered {
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
        chain::Rendered::scan(ordered.map(|built| (built.entries.as_slice(), built.provisional)))
    }
}

/// A key per job that tells its build apart: the unit with its entry point and the
/// entry point's options; a job planned twice gets a second key.
pub(super) fn job_keys(jobs: &[Job]) -> Vec<String> {
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
pub(super) fn load_output(
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
pub(super) fn split_streamed(
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

/// Why a root gave no output.
pub(super) enum NotBuilt {
    /// kvlint did not run the build.
    Skipped(Box<Finding>),
    /// The tool failed.
    Failed(outcome::BuildError),
}

/// One unit to build: a Kustomize root, or the directory a Flux Kustomization names.
pub(super) struct Job {
    pub(super) root: discover::Root,
    pub(super) unit: Arc<UnitRef>,
    pub(super) flux: Option<flux::jobs::FluxJob>,
    pub(super) argocd: Option<argocd::ArgoJob>,
}

impl Job {
    /// The files the unit changes with, as the report names them: those its build reads, and
    /// the sources of a Flux unit's post-build variables.
    pub(super) fn files(&self) -> Vec<String> {
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

/// Builds one job, through the cache when there is one. `wrapper_dir` is resolved and is
/// created only when the build runs.
pub(super) fn build_job(
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
pub(super) fn failed_build(
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

pub(super) fn unbuildable_finding(
    root: &discover::Root,
    reason: &discover::Unbuildable,
) -> Finding {
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
        discover::Unbuildable::LeftOut {
            file,
            reference,
            pattern,
            at,
        } => {
            let exclusion = super::flux::Exclusion {
                pattern: pattern.clone(),
                at: at.clone(),
            };
            let location = Location {
                file: Arc::clone(file),
                span: reference.span,
            };
            return super::flux::listed_left_out(
                &display_dir(&root.dir),
                location,
                &reference.value,
                &exclusion,
            );
        }
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
