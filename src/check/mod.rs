//! The whole pipeline: discover → index what VMs reference → analyze every VM ([`vm`]) →
//! report, in bounded memory (see [`pipeline`]).

mod objects;
mod pipeline;
mod pool;
mod pool_admission;
pub mod vm;

use std::sync::Arc;

use crate::check::vm::Rendered;
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::config::{CatalogChoice, Config, ConfigChoice};
use crate::controller::drift::{DriftPolicy, GitOps};
use crate::diag::{Finding, Severity, sort_findings};
use crate::error::Error;
use crate::k8s::Object;
use crate::source::Selection;

pub use pipeline::{Outcome, Sink, run_files_in_memory, run_in_memory, run_inputs, stream};

/// What to check, and against which cluster. Unset values come from the configuration file,
/// else from the defaults (namespace `default`, KubeVirt v1.9, the built-in catalog).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub selection: Selection,
    pub default_namespace: Option<String>,
    pub version: Option<KubeVirtVersion>,
    pub catalog: Option<CatalogChoice>,
    pub config: ConfigChoice,
    /// Report only findings that are not in this baseline file.
    pub baseline: Option<std::path::PathBuf>,
    /// Keep source texts for reports that quote them.
    pub keep_sources: bool,
    /// `--schema-location` values: JSON Schemas for kinds without a built-in schema.
    pub schema_locations: Vec<String>,
    /// Do not build the rendered VMs (reports that show only findings): expand still runs,
    /// for the findings it produces.
    pub skip_rendered: bool,
    /// Attach the fixes of drift findings (`kvlint fix`): no report shows them.
    pub with_fixes: bool,
    /// Whether and how Kustomize units are built.
    pub units: crate::units::UnitOptions,
    /// Files per batch of the index and VM passes (tests use small batches).
    pub batch_files: Option<usize>,
    /// `--gitops`: the engine whose behaviour drift findings describe.
    pub gitops: Option<GitOps>,
    /// `--select`, `--extend-select`, `--ignore`: applied over the configuration file's.
    pub rule_selection: crate::config::select::Layer,
}

/// Options after merging the configuration file.
pub(crate) struct Effective {
    selection: Selection,
    namespace: String,
    version: KubeVirtVersion,
    catalog: CatalogChoice,
    drift_policy: DriftPolicy,
    config: Config,
    /// The rules that report, from the configuration file and the command line.
    rule_filter: crate::config::select::RuleFilter,
}

fn effective(options: &Options) -> Result<Effective, Error> {
    let start = options
        .selection
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let config = crate::config::load(&options.config, &start)?;
    let mut selection = options.selection.clone();
    selection.include.extend(config.include.iter().cloned());
    selection.exclude.extend(config.exclude.iter().cloned());
    Ok(Effective {
        selection,
        namespace: options
            .default_namespace
            .clone()
            .or_else(|| config.namespace.clone())
            .unwrap_or_else(|| "default".to_owned()),
        version: options
            .version
            .or(config.kubevirt_version)
            .unwrap_or(KubeVirtVersion::LATEST),
        catalog: options
            .catalog
            .clone()
            .or_else(|| config.catalog.clone())
            .unwrap_or_default(),
        drift_policy: DriftPolicy {
            gitops: options.gitops.or(config.gitops).unwrap_or_default(),
            reproducible: config.reproducible,
        },
        rule_filter: crate::config::select::RuleFilter::new(
            &[&config.selection_layer(), &options.rule_selection],
            &config.per_file_ignores,
        ),
        config,
    })
}

/// The inputs a check of `options` reads, in its order (the configuration's `include` and
/// `exclude` applied): `kvlint fix` lists them once and checks its trial texts under the same
/// names with [`run_inputs`].
pub fn inputs(options: &Options) -> Result<Vec<crate::source::Input>, Error> {
    let settings = effective(options)?;
    crate::source::discover(&settings.selection)
}

/// Counts for the report's summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub skipped: usize,
    pub vms: usize,
    pub rendered: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Units built, of every kind (absent when none was).
    #[serde(skip_serializing_if = "is_zero")]
    pub units: usize,
    /// The Kustomize that built them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kustomize: Option<crate::units::ToolSummary>,
    /// The Helm that rendered chart directories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub helm: Option<crate::units::ToolSummary>,
    /// `--statistics`: findings per rule, most frequent first (absent without the option).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistics: Option<Vec<RuleCount>>,
}

/// How many findings one rule reported.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RuleCount {
    pub code: &'static str,
    pub name: &'static str,
    pub count: usize,
}

/// Findings per rule, by count (highest first) then code.
pub fn rule_counts<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<RuleCount> {
    let mut counts: std::collections::BTreeMap<&'static str, RuleCount> =
        std::collections::BTreeMap::new();
    for finding in findings {
        counts
            .entry(finding.rule.code)
            .or_insert(RuleCount {
                code: finding.rule.code,
                name: finding.rule.name,
                count: 0,
            })
            .count += 1;
    }
    let mut counts: Vec<RuleCount> = counts.into_values().collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then(a.code.cmp(b.code)));
    counts
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// The highest severity among the counted findings.
    pub fn worst(&self) -> Option<Severity> {
        if self.errors > 0 {
            Some(Severity::Error)
        } else if self.warnings > 0 {
            Some(Severity::Warning)
        } else if self.infos > 0 {
            Some(Severity::Info)
        } else {
            None
        }
    }
}

/// The outcome of a run.
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub rendered: Vec<Rendered>,
    pub summary: Summary,
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    pub profile: Option<ClusterProfile>,
    /// What the user should know about how the run went (printed on standard error).
    pub warnings: Vec<String>,
    /// The files each built unit reads, by unit path.
    pub unit_files: std::collections::BTreeMap<String, Vec<String>>,
    /// How drift was judged.
    pub drift_policy: DriftPolicy,
}

impl Report {
    /// The highest severity among the findings.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
}

/// Builds the cluster profile: the target version, configured by the configuration file's
/// `cluster:` and by a `KubeVirt` object in the input when there is one.
fn cluster_profile(
    objects: &[Object],
    version: KubeVirtVersion,
    config: &Config,
) -> ClusterProfile {
    let mut profile = ClusterProfile::new(version);
    let hyperconverged: Vec<&Object> = objects
        .iter()
        .filter(|o| crate::cluster::hyperconverged::is_hyperconverged(o))
        .collect();
    // HCO overwrites the KubeVirt CR it owns: `cluster:` keeps only what HCO takes from its
    // environment, and the repository's own KubeVirt objects do not apply.
    if let Some(cluster) = &config.cluster {
        if hyperconverged.is_empty() {
            profile.configure(cluster);
        } else {
            profile.configure(&crate::cluster::hyperconverged::environment_configuration(
                cluster,
            ));
        }
    }
    for object in objects.iter().filter(|_| hyperconverged.is_empty()) {
        if object.group == crate::k8s::KUBEVIRT_GROUP
            && object.kind == "KubeVirt"
            && let Some(configuration) =
                object.node.get("spec").and_then(|s| s.get("configuration"))
        {
            profile.configure(&configuration.to_json());
        }
    }
    for object in hyperconverged {
        profile.configure(
            &crate::cluster::hyperconverged::generate(
                &object.node.to_json(),
                version,
                config.hyperconverged,
            )
            .configuration,
        );
    }
    profile
}

/// Runs the whole check and keeps everything: the findings in their final order, the rendered
/// VMs sorted by namespace and name.
pub fn run(options: &Options) -> Result<Report, Error> {
    let mut collector = Collector::default();
    let outcome = stream(options, &mut collector)?;
    Ok(collector.into_report(outcome))
}

/// A [`Sink`] that keeps everything.
#[derive(Debug, Default)]
struct Collector {
    findings: Vec<Finding>,
    rendered: Vec<Rendered>,
}

impl Collector {
    fn into_report(self, outcome: Outcome) -> Report {
        let Self {
            mut findings,
            mut rendered,
        } = self;
        sort_findings(&mut findings);
        rendered.sort_by(|a, b| {
            (&a.namespace, &a.name, &a.file, a.line).cmp(&(&b.namespace, &b.name, &b.file, b.line))
        });
        Report {
            findings,
            rendered,
            summary: outcome.summary,
            sources: outcome.sources,
            profile: Some(outcome.profile),
            warnings: outcome.warnings,
            unit_files: outcome.unit_files,
            drift_policy: outcome.drift_policy,
        }
    }
}

impl Sink for Collector {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), Error> {
        self.findings.extend(findings);
        Ok(())
    }

    fn rendered(&mut self, rendered: Rendered) {
        self.rendered.push(rendered);
    }
}
