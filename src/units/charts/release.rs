//! The releases of chart directories in the repository, read from their entry points: a Flux
//! `HelmRelease` whose chart (`spec.chart`, or the HelmChart its `spec.chartRef` names) is a
//! path of a `GitRepository`, and an Argo CD Application
//! source whose directory is a Helm chart. Each becomes the `helm template` invocation the
//! controller's own rendering amounts to.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value as Json;

use crate::diag::{Finding, Location, UnitKind, UnitRef, Via};
use crate::k8s::normalise_path;
use crate::rules;
use crate::units::argocd::Target;
use crate::units::argocd::value_files::{self, Unresolved};
use crate::units::flux::VariableSource;
use crate::yaml::{Limits, Node, Span};

use super::capabilities::{self, ApiVersions};
use super::chart_ref::{HelmChart, referenced_spec};
use super::dependencies::Resolved;
use super::post_render::PostRenderers;
use super::values;

/// One release of a chart directory, as `helm template` renders it.
#[derive(Clone, Debug)]
pub(super) struct Release {
    pub unit: Arc<UnitRef>,
    /// `HelmRelease flux-system/vms`, for messages.
    pub label: String,
    /// Where findings about the release point: the chart's path in the entry point.
    pub at: Location,
    /// The chart directory, as the report names paths.
    pub chart: PathBuf,
    pub name: String,
    pub namespace: String,
    /// `-f` files, in order, as the report names paths.
    pub value_files: Vec<PathBuf>,
    /// Values given in the entry point (after the files): written to a private file.
    pub values: Option<Json>,
    /// `--set`, `--set-string`, `--set-file` arguments, in order.
    pub set: Vec<(&'static str, String)>,
    pub include_crds: bool,
    /// The chart's own `values.yaml` is replaced (Flux `valuesFiles`).
    pub chart_values_replaced: bool,
    /// Whether the entry point's values name VirtualMachines (for the finding when Helm is
    /// missing).
    pub values_describe_vms: bool,
    /// Flux `spec.postRenderers`, run over the output.
    pub post_renderers: Option<Arc<PostRenderers>>,
    /// The chart's dependencies, met or not (resolved before rendering).
    pub dependencies: Resolved,
    /// What `--api-versions` lists: the cluster's APIs, or an Application's own.
    pub api_versions: ApiVersions,
    /// `--kube-version`: an Application's `helm.kubeVersion`.
    pub kube_version: Option<String>,
}

/// A chart-directory release, or why it is not rendered.
pub(super) type Found = Result<Release, Box<Finding>>;

/// The releases of the Flux HelmReleases in `text` (of `file`) whose chart is a directory of
/// a GitRepository, given by `spec.chart` or by one of `helm_charts` that `spec.chartRef`
/// names: the path is relative to the repository root, `shown_root` as the report names it.
/// A HelmRelease `replaced` by one a unit renders is left out.
pub(super) fn flux(
    file: &Arc<str>,
    text: &str,
    shown_root: &Path,
    sources: &[VariableSource],
    replaced: &dyn Fn(&Node) -> bool,
    helm_charts: &[HelmChart],
) -> Vec<Found> {
    let mut out = Vec::new();
    let shared: Arc<str> = Arc::from(text);
    for doc in crate::yaml::parse_stream(text, Limits::default())
        .into_iter()
        .flatten()
    {
        let node = &doc.root;
        let is_release = node
            .get("apiVersion")
            .and_then(Node::as_str)
            .is_some_and(|v| v.starts_with("helm.toolkit.fluxcd.io/"))
            && node.get("kind").and_then(Node::as_str) == Some("HelmRelease");
        if is_release
            && !replaced(node)
            && let Some(mut found) = flux_release(file, node, shown_root, sources, helm_charts)
        {
            with_post_renderers(&mut found, file, &shared, node);
            out.push(found);
        }
    }
    out
}

/// Gives a HelmRelease's release its `spec.postRenderers`, read from `node` in `file` (whose
/// text is `text`).
pub(super) fn with_post_renderers(
    found: &mut Found,
    file: &Arc<str>,
    text: &Arc<str>,
    node: &Node,
) {
    if let (Ok(release), Some(spec)) = (found, node.get("spec")) {
        let api_version = node.get("apiVersion").and_then(Node::as_str);
        release.post_renderers =
            PostRenderers::of(file, text, spec, api_version.unwrap_or_default()).map(Arc::new);
    }
}

/// The release of one HelmRelease `node` (its spans in `file`), if its chart is a directory of
/// a GitRepository.
pub(super) fn flux_release(
    file: &Arc<str>,
    node: &Node,
    shown_root: &Path,
    sources: &[VariableSource],
    helm_charts: &[HelmChart],
) -> Option<Found> {
    let spec = node.get("spec")?;
    let metadata = node.get("metadata");
    let (template, chart_ref) = match chart_template(file, node, spec, helm_charts) {
        Ok(found) => found,
        Err(reported) => return reported.map(Err),
    };
    let chart_node = template.get("chart")?;
    let text = |parent: Option<&Node>, key: &str| {
        parent
            .and_then(|p| p.get(key))
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let name = text(metadata, "name").unwrap_or_default();
    let own_namespace = text(metadata, "namespace");
    let target_namespace = text(Some(spec), "targetNamespace");
    let kind_span = node.entry("kind").map_or(node.span, |e| e.key_span);
    let label = format!(
        "HelmRelease {}",
        own_namespace
            .as_ref()
            .map_or_else(|| name.clone(), |ns| format!("{ns}/{name}"))
    );
    let at = Location {
        file: Arc::clone(file),
        // The HelmChart's `chart:` may be in another file: the reference stands for it.
        span: chart_ref.map_or(chart_node.span, |reference| {
            reference
                .get("name")
                .map_or(reference.span, |name| name.span)
        }),
    };
    let via = Via {
        kind: "HelmRelease".to_owned(),
        namespace: own_namespace.clone(),
        name: name.clone(),
        file: file.to_string(),
        line: kind_span.start.line,
        unit: None,
    };
    let path = chart_node.as_str().unwrap_or_default();
    let values_describe_vms = spec
        .get("values")
        .is_some_and(crate::units::helm::describes_vms);
    let Some(chart) = chart_directory(shown_root, path) else {
        // A chart of another repository, or a path that is not there.
        return values_describe_vms.then(|| {
            Err(Box::new(
                Finding::new(
                    &rules::UNIT_NOT_RENDERED,
                    at.clone(),
                    format!(
                        "not rendered: {label} installs the chart directory `{path}`, which holds no Chart.yaml in the checked repository; the VirtualMachines its values describe are not checked"
                    ),
                )
                .with_object(Some(object_ref(node, &name, own_namespace.as_ref())))
                .with_help("check the repository the HelmRelease's GitRepository points at"),
            ))
        });
    };
    let unit = helm_unit(&chart, via);
    // helm-controller: `GetReleaseName`, `GetReleaseNamespace`.
    let release_name =
        shortened(
            text(Some(spec), "releaseName").unwrap_or_else(|| match &target_namespace {
                Some(ns) => format!("{ns}-{name}"),
                None => name.clone(),
            }),
        );
    let namespace = target_namespace
        .or_else(|| own_namespace.clone())
        .unwrap_or_else(|| "default".to_owned());
    let (value_files, chart_values_replaced) = match flux_value_files(template, shown_root) {
        Ok(found) => found,
        Err(missing) => {
            // A HelmChart's entry may be in another file: the reference stands for it.
            let at = match chart_ref {
                Some(_) => at,
                None => Location {
                    file: Arc::clone(file),
                    span: missing.span,
                },
            };
            return Some(Err(Box::new(missing.finding(at, &label))));
        }
    };
    let release = Release {
        unit,
        label,
        at,
        chart,
        name: release_name,
        namespace,
        value_files,
        values: None,
        set: Vec::new(),
        include_crds: crds_installed(spec),
        chart_values_replaced,
        values_describe_vms,
        post_renderers: None,
        dependencies: Resolved::default(),
        api_versions: ApiVersions::Discovery,
        kube_version: None,
    };
    match values::flux_values(spec, own_namespace.as_deref(), sources) {
        Ok(values) => Some(Ok(Release {
            values: Some(values),
            ..release
        })),
        Err(unreadable) => Some(Err(Box::new(values_not_read(file, &release, &unreadable)))),
    }
}

/// The chart template of a HelmRelease: `spec.chart.spec`, or the spec of the HelmChart that
/// `spec.chartRef` names, with the reference; Err with what to report, if anything, when the
/// chart is not a directory of a GitRepository.
fn chart_template<'n>(
    file: &Arc<str>,
    node: &'n Node,
    spec: &'n Node,
    helm_charts: &'n [HelmChart],
) -> Result<(&'n Node, Option<&'n Node>), Option<Box<Finding>>> {
    let own_namespace = node
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty());
    // `spec.chart` creates a HelmChart from its template; `spec.chartRef` names one.
    let chart_ref = spec.get("chartRef").filter(|_| spec.get("chart").is_none());
    let template = match chart_ref {
        // An OCIRepository or an ExternalArtifact: a chart `units::helm` names by its name.
        Some(reference) if reference.get("kind").and_then(Node::as_str) != Some("HelmChart") => {
            return Err(None);
        }
        Some(reference) => match referenced_spec(reference, own_namespace, helm_charts) {
            Some(template) => template,
            None => {
                return Err(chart_ref_not_rendered(
                    file,
                    node,
                    reference,
                    "is not among the checked files",
                ));
            }
        },
        None => spec.get("chart").and_then(|c| c.get("spec")).ok_or(None)?,
    };
    let source_kind = template
        .get("sourceRef")
        .and_then(|s| s.get("kind"))
        .and_then(Node::as_str);
    if source_kind != Some("GitRepository") {
        let reason = format!(
            "builds its chart from a {}, which kvlint does not fetch",
            source_kind.unwrap_or("source")
        );
        return Err(
            chart_ref.and_then(|reference| chart_ref_not_rendered(file, node, reference, &reason))
        );
    }
    Ok((template, chart_ref))
}

/// The finding about a HelmRelease whose `spec.chartRef` names a HelmChart that kvlint does not
/// render (`why`), when its values describe VirtualMachines.
fn chart_ref_not_rendered(
    file: &Arc<str>,
    node: &Node,
    reference: &Node,
    why: &str,
) -> Option<Box<Finding>> {
    let spec = node.get("spec")?;
    if !spec
        .get("values")
        .is_some_and(crate::units::helm::describes_vms)
    {
        return None;
    }
    let chart = reference.get("name")?;
    let metadata = node.get("metadata");
    let field = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let name = field("name").unwrap_or_default();
    let namespace = field("namespace");
    let label = namespace
        .as_ref()
        .map_or_else(|| name.clone(), |ns| format!("{ns}/{name}"));
    Some(Box::new(
        Finding::new(
            &rules::UNIT_NOT_RENDERED,
            Location {
                file: Arc::clone(file),
                span: chart.span,
            },
            format!(
                "not rendered: HelmRelease {label} installs the chart of the HelmChart `{}`, which {why}; the VirtualMachines its values describe are not checked",
                chart.as_str().unwrap_or_default()
            ),
        )
        .with_object(Some(object_ref(node, &name, namespace.as_ref())))
        .with_help("commit the HelmChart and its chart directory beside the HelmRelease, or render the chart with `helm template` and pipe the output to `kvlint check -`"),
    ))
}

/// The chart spec's `valuesFiles` (or the deprecated `valuesFile`), from the repository root,
/// and whether they replace the chart's own values: source-controller merges `valuesFiles` and
/// packages the chart with the result in place of its values.yaml (`mergeFileValues`,
/// `OverwriteChartDefaultValues`), even when `ignoreMissingValuesFiles` leaves every file out;
/// a list of only `values.yaml` changes nothing (`BuildOptions.GetValuesFiles`). A file that
/// is not there fails the chart build unless `ignoreMissingValuesFiles`; one that is not a
/// regular file fails it always.
fn flux_value_files(
    template: &Node,
    shown_root: &Path,
) -> Result<(Vec<PathBuf>, bool), MissingValuesFile> {
    let listed: Vec<(&str, Span)> = template
        .get("valuesFiles")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|entry| entry.as_str().map(|path| (path, entry.span)))
        .collect();
    let only_chart_values = matches!(
        listed.as_slice(),
        [(path, _)] if normalise_path(Path::new(path)) == Path::new("values.yaml")
    );
    if !listed.is_empty() && !only_chart_values {
        let ignore_missing = template.flag("ignoreMissingValuesFiles");
        let mut value_files = Vec::new();
        for (path, span) in listed {
            match securely_within_root(shown_root, path)
                .map(|file| (std::fs::metadata(&file), file))
            {
                Some((Ok(metadata), file)) if metadata.is_file() => value_files.push(file),
                None if ignore_missing => {}
                Some((Err(err), _))
                    if ignore_missing && err.kind() == std::io::ErrorKind::NotFound => {}
                _ => {
                    return Err(MissingValuesFile {
                        path: path.to_owned(),
                        span,
                    });
                }
            }
        }
        return Ok((value_files, true));
    }
    let single = template
        .get("valuesFile")
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty());
    Ok((
        single
            .map(|path| vec![within_root(shown_root, path)])
            .unwrap_or_default(),
        false,
    ))
}

/// `securejoin.SecureJoin(root, path)`, as source-controller reads a values file: `..` stops at
/// the root; None for a file whose symbolic links lead out of the repository (not there).
fn securely_within_root(shown_root: &Path, path: &str) -> Option<PathBuf> {
    let confined = normalise_path(&Path::new("/").join(path));
    let inside = confined.strip_prefix("/").unwrap_or(&confined);
    let file = within_root(shown_root, &inside.to_string_lossy());
    (!crate::units::resolve::leaves(shown_root, &file)).then_some(file)
}

/// A `valuesFiles` entry that names no regular file.
struct MissingValuesFile {
    path: String,
    span: Span,
}

impl MissingValuesFile {
    fn finding(&self, at: Location, label: &str) -> Finding {
        Finding::new(
            &rules::KUSTOMIZE_BUILD_FAILED,
            at,
            format!(
                "Flux cannot build the chart of {label}: no values file found at path '{}'",
                self.path
            ),
        )
        .with_help("commit the values file, or set `ignoreMissingValuesFiles: true` in the chart spec if the release renders without it; the chart's files are checked as written")
    }
}

/// The finding about a release whose `valuesFrom` kvlint cannot read: its chart is not rendered.
fn values_not_read(file: &Arc<str>, release: &Release, unreadable: &values::Unreadable) -> Finding {
    Finding::new(
        &rules::UNIT_NOT_RENDERED,
        Location {
            file: Arc::clone(file),
            span: unreadable.span,
        },
        format!(
            "not rendered: {} takes values from {}; the chart `{}` is not rendered and its files are checked as written",
            release.label,
            unreadable.what,
            crate::units::display_dir(&release.chart)
        ),
    )
    .with_help("commit the values source beside the HelmRelease, or mark the reference `optional: true` if the release renders without it")
}

/// Whether Flux applies the chart's CRDs on install: `spec.install.crds` is `Create` (the
/// default) or `CreateReplace`.
fn crds_installed(spec: &Node) -> bool {
    let policy = spec
        .get("install")
        .and_then(|i| i.get("crds"))
        .and_then(Node::as_str);
    !matches!(policy, Some("Skip"))
}

/// The release of an Argo CD source whose directory is a Helm chart.
pub(super) fn argocd(target: &Target, default_namespace: &str) -> Found {
    let app = &target.app;
    let helm = target.source.get("helm");
    let option = |key: &str| helm.and_then(|h| h.get(key));
    let text = |key: &str| {
        option(key)
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let flag = |key: &str| helm.is_some_and(|h| h.flag(key));
    let path_span = target.source.get("path").map_or(app.span, |p| p.span);
    let at = Location {
        file: Arc::clone(&app.file),
        span: path_span,
    };
    let label = format!("Application {}", app.name);
    let value_files = argocd_value_files(target, helm)?;
    // Argo CD uses `valuesObject` when both are given.
    let values = match option("valuesObject") {
        Some(object) => Some(object.to_json()),
        None => match option("values").and_then(Node::as_str) {
            Some(text) => Some(values::parse_text(text).map_err(|problem| {
                argocd_not_rendered(
                    target,
                    written_at(
                        target,
                        "values",
                        option("values").map_or(path_span, |v| v.span),
                    ),
                    &format!("`helm.values` is not valid YAML ({problem})"),
                )
            })?),
            None => None,
        },
    }
    .filter(|values| !matches!(values, Json::Null));
    let env = target.app.env(&target.source);
    let mut set = Vec::new();
    for parameter in option("parameters")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let (Some(name), Some(value)) = (
            parameter.get("name").and_then(Node::as_str),
            parameter.get("value").and_then(Node::as_str),
        ) else {
            continue;
        };
        let force = parameter.flag("forceString");
        // The repo server substitutes the build environment into the values and escapes
        // their commas (`cleanSetParameters`).
        set.push((
            if force { "--set-string" } else { "--set" },
            format!("{name}={}", escaped_commas(&env.substitute(value))),
        ));
    }
    set.extend(argocd_file_parameters(target, helm)?);
    let namespace = text("namespace")
        .or_else(|| app.destination_namespace().map(str::to_owned))
        .unwrap_or_else(|| default_namespace.to_owned());
    let values_describe_vms = helm.is_some_and(crate::units::helm::describes_vms);
    let kube_version = match (text("kubeVersion"), option("kubeVersion")) {
        (Some(version), Some(node)) => {
            Some(capabilities::kube_version(&version).map_err(|err| {
                let at = written_at(target, "kubeVersion", node.span);
                argocd_refused(
                    target,
                    at,
                    &format!("could not parse kubernetes version {version}: {err}"),
                )
            })?)
        }
        _ => None,
    };
    Ok(Release {
        unit: helm_unit(&target.dir, app.via.clone()),
        label,
        at,
        chart: target.dir.clone(),
        name: text("releaseName").unwrap_or_else(|| app.name.clone()),
        namespace,
        value_files,
        values,
        set,
        include_crds: !flag("skipCrds"),
        chart_values_replaced: false,
        values_describe_vms,
        post_renderers: None,
        dependencies: Resolved::default(),
        api_versions: capabilities::argocd_api_versions(helm),
        kube_version,
    })
}

/// Where the Argo CD option `helm.<key>` is written (in the Application or in an override
/// file), at `span`.
fn written_at(target: &Target, key: &str, span: Span) -> Location {
    Location {
        file: target.located(&["helm", key]).file,
        span,
    }
}

fn argocd_not_rendered(target: &Target, at: Location, message: &str) -> Box<Finding> {
    Box::new(
        Finding::new(
            &rules::UNIT_NOT_RENDERED,
            at,
            format!("Application {}: {message}", target.app.name),
        )
        .with_help("the chart's files are checked as written"),
    )
}

fn argocd_refused(target: &Target, at: Location, message: &str) -> Box<Finding> {
    Box::new(
        Finding::new(
            &rules::KUSTOMIZE_BUILD_FAILED,
            at,
            format!("Argo CD cannot render Application {}: {message}", target.app.name),
        )
        .with_help("Argo CD cannot sync an Application whose manifests do not render; the chart's files are checked as written"),
    )
}

/// An Argo CD source's `helm.valueFiles` as files of the repository, resolved and expanded
/// as the repo server does (`units::argocd::value_files`); missing ones dropped with
/// `ignoreMissingValueFiles`, files of another repository left out (the plan reports them).
fn argocd_value_files(target: &Target, helm: Option<&Node>) -> Result<Vec<PathBuf>, Box<Finding>> {
    let option = |key: &str| helm.and_then(|h| h.get(key));
    let ignore_missing = helm.is_some_and(|h| h.flag("ignoreMissingValueFiles"));
    let entries: Vec<&Node> = option("valueFiles")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter(|entry| entry.as_str().is_some())
        .collect();
    let names: Vec<&str> = entries.iter().filter_map(|entry| entry.as_str()).collect();
    value_files::value_files(target, &names, ignore_missing).map_err(|(index, unresolved)| {
        let at = written_at(target, "valueFiles", entries[index].span);
        unresolved_finding(target, at, unresolved)
    })
}

fn unresolved_finding(target: &Target, at: Location, unresolved: Unresolved) -> Box<Finding> {
    match unresolved {
        Unresolved::Refused(message) => argocd_refused(target, at, &message),
        Unresolved::NotRead(message) => argocd_not_rendered(target, at, &message),
    }
}

/// An Argo CD source's `helm.fileParameters` as `--set-file` arguments, their paths resolved
/// as value files' are.
fn argocd_file_parameters(
    target: &Target,
    helm: Option<&Node>,
) -> Result<Vec<(&'static str, String)>, Box<Finding>> {
    let mut set = Vec::new();
    for parameter in helm
        .and_then(|h| h.get("fileParameters"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let (Some(name), Some(path_node)) = (
            parameter.get("name").and_then(Node::as_str),
            parameter.get("path"),
        ) else {
            continue;
        };
        let Some(path) = path_node.as_str() else {
            continue;
        };
        match value_files::file_parameter(target, path) {
            Ok(Some(file)) => set.push((
                "--set-file",
                format!("{name}={}", escaped_commas(&file.to_string_lossy())),
            )),
            Ok(None) => {}
            Err(unresolved) => {
                let at = written_at(target, "fileParameters", path_node.span);
                return Err(unresolved_finding(target, at, unresolved));
            }
        }
    }
    Ok(set)
}

/// Argo CD's `cleanSetParameters`: a `--set` value's commas escaped (one already escaped left
/// as it is) so that Helm reads one value, unless the value is a `{a,b}` list.
fn escaped_commas(value: &str) -> String {
    if value.starts_with('{') && value.ends_with('}') {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len());
    let mut previous = None;
    for c in value.chars() {
        if c == ',' && previous != Some('\\') {
            out.push_str("\\,");
        } else {
            out.push(c);
        }
        previous = Some(c);
    }
    out
}

/// A release name as helm-controller uses it: one longer than Helm's 53 characters becomes
/// its first 40, a hyphen and the first 12 hexadecimal digits of its SHA-256.
fn shortened(name: String) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    const MAX: usize = 53;
    const HASH: usize = 12;
    if name.len() <= MAX {
        return name;
    }
    let digest = sha2::Sha256::digest(name.as_bytes());
    let hex = digest.iter().fold(String::new(), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    });
    let mut cut = MAX - HASH - 1;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}-{}", &name[..cut], &hex[..HASH])
}

fn helm_unit(chart: &Path, via: Via) -> Arc<UnitRef> {
    Arc::new(UnitRef {
        kind: UnitKind::Helm,
        path: crate::units::display_dir(chart),
        via: Some(via),
    })
}

/// A path of the repository, as the report names paths.
fn within_root(shown_root: &Path, path: &str) -> PathBuf {
    crate::units::within_working_directory(normalise_path(&shown_root.join(path)))
}

/// The chart directory `path` names in the repository: None when it leaves the repository or
/// holds no `Chart.yaml` (a chart of another source).
fn chart_directory(shown_root: &Path, path: &str) -> Option<PathBuf> {
    let relative = normalise_path(Path::new(path.trim_start_matches('/')));
    if path.is_empty()
        || relative
            .components()
            .next()
            .is_some_and(|c| c == std::path::Component::ParentDir)
    {
        return None;
    }
    let dir = within_root(shown_root, &relative.to_string_lossy());
    dir.join("Chart.yaml").is_file().then_some(dir)
}

fn object_ref(node: &Node, name: &str, namespace: Option<&String>) -> crate::diag::ObjectRef {
    crate::diag::ObjectRef {
        api_version: node
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_owned(),
        kind: "HelmRelease".to_owned(),
        namespace: namespace.cloned(),
        name: name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_release_names_are_shortened_as_helm_controller_does() {
        assert_eq!(shortened("vms-web".to_owned()), "vms-web");
        let long = "a-very-long-target-namespace-for-virtual-machines-release-name";
        assert_eq!(
            shortened(long.to_owned()),
            "a-very-long-target-namespace-for-virtual-28e4f657f6b4"
        );
    }

    #[test]
    fn parameter_commas_are_escaped_as_argo_cd_escapes_them() {
        assert_eq!(escaped_commas("a,b"), "a\\,b");
        assert_eq!(escaped_commas("a\\,b,c"), "a\\,b\\,c");
        assert_eq!(escaped_commas("{a,b}"), "{a,b}");
        assert_eq!(escaped_commas("{a,b"), "{a\\,b");
        assert_eq!(escaped_commas("plain"), "plain");
    }
}
