//! Helm releases of raw-manifest charts: a Flux `HelmRelease` or an Argo CD helm source whose
//! chart installs the manifests its values carry. Those manifests are read in place, from the
//! release's own file, so every finding about them points at its line there; no Helm runs.
//!
//! The raw charts in use (dysnix/raw, bedag/raw, itscontained/raw, the retired incubator/raw)
//! are all named `raw` and read two values:
//! - `resources`: a list of manifests, each printed with `toYaml` after the chart's labels are
//!   merged into `metadata.labels` (dysnix also takes a string there, split on `---` and read
//!   with `fromYaml`, without templating);
//! - `templates`: a list of strings, each run through `tpl`. A string without template
//!   actions (`{{`) renders as itself; one with actions would need Helm and is not rendered.
//!
//! None of them writes `metadata.namespace`: a namespaced manifest without one is installed in
//! the release namespace (Flux: `spec.targetNamespace`, else the HelmRelease's namespace; Argo
//! CD: `spec.destination.namespace`). The labels the charts add are not reproduced (no check
//! reads them). Any other chart is not rendered: one info finding says so when its values
//! describe VirtualMachines. A chart directory of the repository is rendered with Helm by
//! `units::charts`.

use std::sync::Arc;

use crate::diag::{Finding, Location, UnitKind, UnitRef, Via};
use crate::k8s::{Object, RenderedIn};
use crate::load::Embedded;
use crate::rules;
use crate::yaml::embedded::OuterText;
use crate::yaml::{Limits, Node, Span, Value};

/// The names under which the raw-manifest charts are published.
const RAW_CHARTS: [&str; 1] = ["raw"];

/// Whether an object may name a Helm chart: a Flux HelmRelease or an Argo CD Application.
fn is_entry_point(object: &Object) -> bool {
    matches!(
        (object.group.as_str(), object.kind.as_str()),
        ("helm.toolkit.fluxcd.io", "HelmRelease") | ("argoproj.io", "Application")
    )
}

/// The manifests `entry` installs through a raw chart when it is a HelmRelease or an
/// Application, and findings about what is not rendered (a [`crate::load::EmbeddedReader`]).
/// `text` is the text of the file `entry`'s spans point into; `default_namespace` is the
/// namespace of an Application that names none.
pub(crate) fn extract(
    entry: &Object,
    text: &str,
    default_namespace: &str,
    limits: Limits,
) -> Embedded {
    if !is_entry_point(entry) {
        return Embedded::default();
    }
    let mut reader = Reader {
        entry,
        text,
        outer: None,
        lines: None,
        limits,
        out: Embedded::default(),
    };
    if let Some(release) = release(entry, default_namespace) {
        for source in &release.sources {
            reader.source(&release, source);
        }
        // A release is a unit when a raw-manifest chart installs its values.
        reader.out.units = usize::from(
            release
                .sources
                .iter()
                .any(|source| matches!(source.chart, Chart::Raw) && source.values.is_some()),
        );
    }
    reader.out
}

/// A release as kvlint reads it: where its objects go and what its chart sources are.
struct Release<'a> {
    /// `HelmRelease flux-system/web`, for messages.
    label: String,
    unit: Arc<UnitRef>,
    /// The objects' `Object::unit`: what is applied together (duplicates are judged within).
    applied_with: Arc<str>,
    namespace: String,
    sources: Vec<Source<'a>>,
}

/// One chart of a release with its values.
struct Source<'a> {
    chart: Chart<'a>,
    /// A map (`spec.values`, `helm.valuesObject`), or a string of YAML (`helm.values`).
    values: Option<&'a Node>,
    /// Where the values are, for messages: `spec.values`.
    values_field: &'static str,
    /// Whether the values may be a string of YAML (Argo CD `helm.values`).
    values_may_be_text: bool,
}

enum Chart<'a> {
    /// A raw-manifest chart.
    Raw,
    /// Another chart from a repository, by its name's node.
    Named(&'a Node),
    /// A chart directory of a Git source (rendered by `units::charts`).
    Directory,
}

fn release<'a>(entry: &'a Object, default_namespace: &str) -> Option<Release<'a>> {
    let spec = entry.node.get("spec")?;
    let (sources, namespace, kind) = if entry.group == "argoproj.io" {
        let namespace = non_empty(spec.get("destination").and_then(|d| d.get("namespace")));
        (argo_sources(spec), namespace, "Application")
    } else {
        let namespace = non_empty(spec.get("targetNamespace"));
        (
            flux_source(spec).into_iter().collect(),
            namespace,
            "HelmRelease",
        )
    };
    if sources.is_empty() {
        return None;
    }
    let namespace = namespace
        .or_else(|| {
            (kind == "HelmRelease")
                .then(|| entry.namespace.clone())
                .flatten()
        })
        .unwrap_or_else(|| default_namespace.to_owned());
    let label = format!("{kind} {}", entry.display_name());
    let applied_with: Arc<str> = Arc::from(format!("{} ({label})", entry.file));
    let unit = Arc::new(UnitRef {
        kind: UnitKind::Helm,
        path: entry.file.to_string(),
        via: Some(Via {
            kind: kind.to_owned(),
            namespace: entry.namespace.clone(),
            name: entry.name.clone(),
            file: entry.file.to_string(),
            line: entry.node.span.start.line,
            unit: None,
        }),
    });
    Some(Release {
        label,
        unit,
        applied_with,
        namespace,
        sources,
    })
}

fn non_empty(node: Option<&Node>) -> Option<String> {
    node.and_then(Node::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

/// The chart of a Flux HelmRelease: `spec.chart.spec.chart` (a name in a Helm repository, or
/// a path in a Git or Bucket source), else the name of `spec.chartRef`.
fn flux_source(spec: &Node) -> Option<Source<'_>> {
    let chart = if let Some(template) = spec.get("chart").and_then(|c| c.get("spec")) {
        let name = template.get("chart")?;
        let source_kind = template
            .get("sourceRef")
            .and_then(|s| s.get("kind"))
            .and_then(Node::as_str);
        if matches!(source_kind, Some("GitRepository" | "Bucket")) {
            Chart::Directory
        } else {
            named(name)?
        }
    } else {
        // The OCIRepository or HelmChart the reference names is taken to be named after its
        // chart, as it usually is.
        let reference = spec.get("chartRef")?;
        match named(reference.get("name")?)? {
            // `units::charts` renders the chart a HelmChart builds from the repository, or
            // names it as not rendered.
            Chart::Named(_)
                if reference.get("kind").and_then(Node::as_str) == Some("HelmChart") =>
            {
                Chart::Directory
            }
            chart => chart,
        }
    };
    Some(Source {
        chart,
        values: spec.get("values"),
        values_field: "spec.values",
        values_may_be_text: false,
    })
}

/// The helm sources of an Argo CD Application: those with a `chart` (a Helm or OCI
/// repository), and those with a `path` and `helm` options (a chart directory).
fn argo_sources(spec: &Node) -> Vec<Source<'_>> {
    let single = spec.get("source").into_iter();
    let multiple = spec
        .get("sources")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter();
    single
        .chain(multiple)
        .filter_map(|source| {
            let helm = source.get("helm");
            let chart = match (source.get("chart"), source.get("path")) {
                (Some(name), _) => named(name)?,
                (None, Some(_)) if helm.is_some() => Chart::Directory,
                _ => return None,
            };
            // Argo CD uses `valuesObject` when both are given.
            let (values, values_field) = match helm {
                Some(helm) if helm.get("valuesObject").is_some() => {
                    (helm.get("valuesObject"), "helm.valuesObject")
                }
                Some(helm) => (helm.get("values"), "helm.values"),
                None => (None, "helm.values"),
            };
            Some(Source {
                chart,
                values,
                values_field,
                values_may_be_text: values_field == "helm.values",
            })
        })
        .collect()
}

/// A chart by name (`raw`, `bedag/raw`, `oci://ghcr.io/x/raw`): raw or not.
fn named(name: &Node) -> Option<Chart<'_>> {
    let text = name.as_str()?;
    let last = text
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(text);
    Some(if RAW_CHARTS.contains(&last) {
        Chart::Raw
    } else {
        Chart::Named(name)
    })
}

/// Reads the values of one release's sources.
struct Reader<'a> {
    entry: &'a Object,
    text: &'a str,
    outer: Option<OuterText<'a>>,
    /// The file's lines, read when a string manifest needs its header line.
    lines: Option<Vec<&'a str>>,
    limits: Limits,
    out: Embedded,
}

impl Reader<'_> {
    fn source(&mut self, release: &Release<'_>, source: &Source<'_>) {
        let Some(values) = source.values else {
            return;
        };
        match source.chart {
            Chart::Raw => {}
            // A chart directory is rendered by `units::charts`, from the files that name it.
            Chart::Directory => return,
            Chart::Named(node) => {
                if describes_vms(values) {
                    self.not_rendered(release, node);
                }
                return;
            }
        }
        match &values.value {
            Value::Map(_) => self.raw_values(release, values, source.values_field),
            Value::Str(_) if source.values_may_be_text => {
                let Some(documents) = self.parse_string(values) else {
                    return;
                };
                for document in documents {
                    match document {
                        Ok(document) => {
                            self.raw_values(release, &document.root, source.values_field);
                        }
                        Err(error) => self.invalid_yaml(source.values_field, &error),
                    }
                }
            }
            _ => {}
        }
    }

    fn not_rendered(&mut self, release: &Release<'_>, chart: &Node) {
        let help = "kvlint reads the manifests of raw-manifest charts (`raw`) and renders chart directories of the repository; render this one with `helm template` and pipe the output to `kvlint check -`";
        let message = format!(
            "not rendered: kvlint does not fetch charts; {} installs the chart `{}`, and the VirtualMachines its values describe are not checked",
            release.label,
            chart.as_str().unwrap_or_default()
        );
        self.out.findings.push(
            Finding::new(
                &rules::UNIT_NOT_RENDERED,
                self.location(chart.span),
                message,
            )
            .with_object(Some(self.entry.object_ref()))
            .with_help(help),
        );
    }

    /// The manifests of a raw chart's values map.
    fn raw_values(&mut self, release: &Release<'_>, values: &Node, field: &str) {
        let list = |key: &str| values.get(key).and_then(Node::as_seq).unwrap_or_default();
        for (n, item) in list("resources").iter().enumerate() {
            let place = format!("{field}.resources[{n}]");
            match &item.value {
                Value::Map(_) => {
                    self.manifest(release, item.clone(), &place);
                    self.out.manifests.push(lines_of(item.span));
                }
                // dysnix/raw reads a string as YAML documents, without templating.
                Value::Str(_) => self.string_manifests(release, item, &place),
                Value::Null => {}
                _ => self.not_an_object(release, item.span, &place),
            }
        }
        for (n, item) in list("templates").iter().enumerate() {
            let place = format!("{field}.templates[{n}]");
            match &item.value {
                Value::Str(template) if template.contains("{{") => {
                    self.out.findings.push(
                        Finding::new(
                            &rules::UNIT_NOT_RENDERED,
                            self.location(item.span),
                            format!(
                                "not rendered: Helm template actions in `{place}` of {}; kvlint does not run Helm, so this manifest is not checked",
                                release.label
                            ),
                        )
                        .with_object(Some(self.entry.object_ref()))
                        .with_help("move the manifest to `resources` when it needs no templating, or render the release with `helm template` and pipe the output to `kvlint check -`"),
                    );
                }
                Value::Str(_) => self.string_manifests(release, item, &place),
                Value::Null => {}
                _ => self.not_an_object(release, item.span, &place),
            }
        }
    }

    /// The manifests of a string of YAML documents.
    fn string_manifests(&mut self, release: &Release<'_>, item: &Node, place: &str) {
        let Some(documents) = self.parse_string(item) else {
            return;
        };
        let first = self.header_line(item);
        let before = self.out.objects.len();
        for document in documents {
            match document {
                Ok(document) => {
                    if matches!(document.root.value, Value::Null) {
                        continue;
                    }
                    let found = self.manifest(release, document.root, place);
                    if found {
                        for notice in &document.notices {
                            self.out
                                .findings
                                .push(crate::load::notice_finding(&self.entry.file, notice));
                        }
                    }
                }
                Err(error) => self.invalid_yaml(place, &error),
            }
        }
        if self.out.objects.len() > before {
            self.out.manifests.push((first, lines_of(item.span).1));
        }
    }

    /// Adds the objects of one manifest; false (with a finding) when it is none.
    fn manifest(&mut self, release: &Release<'_>, node: Node, place: &str) -> bool {
        let span = node.span;
        let (objects, findings) = crate::load::rendered_objects(
            &self.entry.file,
            &release.applied_with,
            &release.namespace,
            node,
        );
        self.out.findings.extend(findings);
        if objects.is_empty() {
            self.not_an_object(release, span, place);
            return false;
        }
        let rendered = Arc::new(RenderedIn {
            unit: Arc::clone(&release.unit),
            attribution: None,
            unresolved: Vec::new(),
            variables: Vec::new(),
        });
        self.out
            .objects
            .extend(objects.into_iter().map(|mut object| {
                object.rendered_in = Some(Arc::clone(&rendered));
                object
            }));
        true
    }

    fn not_an_object(&mut self, release: &Release<'_>, span: Span, place: &str) {
        self.out.findings.push(
            Finding::new(
                &rules::INVALID_OBJECT,
                self.location(span),
                format!(
                    "`{place}` of {} is not a Kubernetes object (it has no apiVersion and kind): Helm cannot install the release",
                    release.label
                ),
            )
            .with_object(Some(self.entry.object_ref())),
        );
    }

    fn invalid_yaml(&mut self, place: &str, error: &crate::yaml::DocumentError) {
        let at = error.pos;
        self.out.findings.push(Finding::new(
            &rules::YAML_SYNTAX,
            Location::lines(
                Arc::clone(&self.entry.file),
                (at.line, at.column),
                (at.line, at.column.saturating_add(1)),
            ),
            format!("invalid YAML in `{place}`: {}", error.message),
        ));
    }

    fn parse_string(
        &mut self,
        node: &Node,
    ) -> Option<Vec<Result<crate::yaml::Document, crate::yaml::DocumentError>>> {
        let text = self.text;
        let outer = self.outer.get_or_insert_with(|| OuterText::new(text));
        Some(outer.parse(node, self.limits)?.documents)
    }

    /// The line a string item starts on: the header line of a block scalar (`- |`), whose
    /// span starts at its first content line, else the scalar's own line.
    fn header_line(&mut self, item: &Node) -> u32 {
        let text = self.text;
        let lines = self.lines.get_or_insert_with(|| text.lines().collect());
        let start = item.span.start.line;
        (1..start)
            .rev()
            .map(|number| (number, lines.get(number as usize - 1).copied()))
            .find(|(_, line)| line.is_none_or(|line| !line.trim().is_empty()))
            .filter(|(_, line)| line.is_some_and(ends_with_block_indicator))
            .map_or(start, |(number, _)| number)
    }

    fn location(&self, span: Span) -> Location {
        Location {
            file: Arc::clone(&self.entry.file),
            span,
        }
    }
}

/// Whether a line ends with a block scalar header (`|`, `>-`, `|2`...), comment aside.
fn ends_with_block_indicator(line: &str) -> bool {
    let code = line.split(" #").next().unwrap_or(line).trim_end();
    let token = code.rsplit([' ', '\t']).next().unwrap_or(code);
    let mut chars = token.chars();
    matches!(chars.next(), Some('|' | '>')) && chars.all(|c| matches!(c, '1'..='9' | '+' | '-'))
}

/// The first and last line of a span whose end is exclusive.
fn lines_of(span: Span) -> (u32, u32) {
    let last = if span.end.column <= 1 && span.end.line > span.start.line {
        span.end.line - 1
    } else {
        span.end.line
    };
    (span.start.line, last)
}

/// Whether a chart's values describe VirtualMachines: a key naming an instance type or a
/// VirtualMachine, or a string naming a KubeVirt kind or API group. A string of values (Argo
/// CD `helm.values`) is searched as text.
pub(crate) fn describes_vms(values: &Node) -> bool {
    match &values.value {
        Value::Str(text) => {
            mentions_kubevirt(text) || text.to_ascii_lowercase().contains("instancetype")
        }
        Value::Seq(items) => items.iter().any(describes_vms),
        Value::Map(entries) => entries.iter().any(|entry| {
            let key = entry.key.to_ascii_lowercase();
            key.contains("instancetype")
                || key.contains("virtualmachine")
                || describes_vms(&entry.value)
        }),
        _ => false,
    }
}

/// Whether a text names KubeVirt objects: a cheap test before anything is parsed or rendered.
pub(crate) fn mentions_kubevirt(text: &str) -> bool {
    text.contains("VirtualMachine") || text.contains("kubevirt.io")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> Object {
        let docs = crate::yaml::parse_stream(text, Limits::default());
        let root = docs.into_iter().next().unwrap().unwrap().root;
        let (mut objects, _) =
            crate::load::rendered_objects(&Arc::from("hr.yaml"), &Arc::from(""), "default", root);
        objects.remove(0)
    }

    const HEAD: &str = "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vms
  namespace: flux-system
spec:
";

    fn flux(rest: &str) -> (String, Embedded) {
        let text = format!("{HEAD}{rest}");
        let object = entry(&text);
        let extracted = extract(&object, &text, "default", Limits::default());
        (text, extracted)
    }

    #[test]
    fn resources_are_objects_in_the_release_namespace_at_their_lines() {
        let (_, out) = flux(
            "  chart:
    spec:
      chart: raw
  targetNamespace: vms
  values:
    resources:
      - apiVersion: v1
        kind: ConfigMap
        metadata:
          name: a
      - apiVersion: v1
        kind: Namespace
        metadata: {name: b}
      - apiVersion: v1
        kind: ConfigMap
        metadata: {name: c, namespace: other}
",
        );
        let found: Vec<(String, Option<String>, u32)> = out
            .objects
            .iter()
            .map(|o| (o.name.clone(), o.namespace.clone(), o.node.span.start.line))
            .collect();
        assert_eq!(
            found,
            [
                ("a".to_owned(), Some("vms".to_owned()), 13),
                ("b".to_owned(), None, 17),
                ("c".to_owned(), Some("other".to_owned()), 20),
            ]
        );
        let unit = &out.objects[0].rendered_in.as_ref().unwrap().unit;
        assert_eq!(unit.kind, UnitKind::Helm);
        assert_eq!(unit.path, "hr.yaml");
        assert_eq!(out.manifests, [(13, 16), (17, 19), (20, 22)]);
        assert!(out.findings.is_empty(), "{:?}", out.findings);
    }

    #[test]
    fn without_target_namespace_the_release_namespace_is_the_helmreleases() {
        let (_, out) = flux(
            "  chart: {spec: {chart: raw}}
  values:
    resources:
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}
",
        );
        assert_eq!(out.objects[0].namespace.as_deref(), Some("flux-system"));
    }

    #[test]
    fn templates_without_actions_are_parsed_in_place_and_with_actions_reported() {
        let (_, out) = flux(
            "  chart: {spec: {chart: bedag/raw}}
  values:
    templates:
      - |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: plain
      - |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Release.Name }}
      - 42
",
        );
        assert_eq!(out.objects.len(), 1);
        let name = out.objects[0]
            .node
            .get("metadata")
            .unwrap()
            .get("name")
            .unwrap();
        assert_eq!((name.span.start.line, name.span.start.column), (14, 17));
        assert_eq!(out.manifests, [(10, 14)]);
        let codes: Vec<(&str, u32)> = out
            .findings
            .iter()
            .map(|f| (f.rule.code, f.location.span.start.line))
            .collect();
        assert_eq!(codes, [("KV0022", 16), ("KV0007", 20)]);
    }

    #[test]
    fn other_charts_are_reported_only_when_their_values_describe_vms() {
        let (_, quiet) = flux(
            "  chart: {spec: {chart: podinfo}}
  values: {replicaCount: 2, affinity: {preference: {}}}
",
        );
        assert!(quiet.findings.is_empty() && quiet.objects.is_empty());
        let (_, loud) = flux(
            "  chart: {spec: {chart: kubevirt-vms, sourceRef: {kind: HelmRepository, name: repo}}}
  values: {vm: {instanceType: u1.small}}
",
        );
        assert_eq!(loud.findings.len(), 1);
        assert!(
            loud.findings[0]
                .message
                .contains("the chart `kubevirt-vms`")
        );
        assert_eq!(loud.findings[0].location.span.start.line, 7);
        // A chart directory is rendered from the files that name it (`units::charts`).
        let (_, directory) = flux(
            "  chart: {spec: {chart: ./charts/vm, sourceRef: {kind: GitRepository, name: repo}}}
  values: {vm: {instanceType: u1.small}}
",
        );
        assert!(directory.findings.is_empty());
        // So is the chart of a HelmChart a `chartRef` names; an OCIRepository's is fetched.
        let (_, helm_chart) = flux(
            "  chartRef: {kind: HelmChart, name: vms}
  values: {vm: {instanceType: u1.small}}
",
        );
        assert!(helm_chart.findings.is_empty());
        let (_, oci) = flux(
            "  chartRef: {kind: OCIRepository, name: vms}
  values: {vm: {instanceType: u1.small}}
",
        );
        assert_eq!(oci.findings.len(), 1);
    }

    #[test]
    fn argo_values_strings_are_read_with_positions_in_the_file() {
        let text = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: vms
  namespace: argocd
spec:
  destination:
    namespace: vms
  source:
    repoURL: https://charts.example.com
    chart: raw
    helm:
      values: |
        resources:
          - apiVersion: v1
            kind: ConfigMap
            metadata:
              name: a
";
        let object = entry(text);
        let out = extract(&object, text, "default", Limits::default());
        assert_eq!(out.objects.len(), 1);
        let object = &out.objects[0];
        assert_eq!(object.namespace.as_deref(), Some("vms"));
        let kind = object.node.entry("kind").unwrap();
        assert_eq!(
            (kind.key_span.start.line, kind.key_span.start.column),
            (16, 13)
        );
    }
}
