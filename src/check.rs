//! The whole pipeline: discover → load → index → analyze every VM → sort.

use std::sync::Arc;

use rayon::prelude::*;

use crate::analyze::{self, Rendered};
use crate::catalog_source::{self, CatalogChoice};
use crate::config::{Config, ConfigChoice};
use crate::diag::{Finding, Related, Severity, sort_findings};
use crate::error::Error;
use crate::k8s::{Index, Object};
use crate::load::{self, LoadOptions};
use crate::profile::{ClusterProfile, KubeVirtVersion};
use crate::resolve::Repo;
use crate::rules;
use crate::source::{self, Selection};
use crate::yaml::FieldPath;

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
}

/// Options after merging the configuration file.
struct Effective {
    selection: Selection,
    namespace: String,
    version: KubeVirtVersion,
    catalog: CatalogChoice,
    config: Config,
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
        config,
    })
}

/// Counts for the report's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
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
}

/// The outcome of a run.
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub rendered: Vec<Rendered>,
    pub summary: Summary,
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    pub profile: Option<ClusterProfile>,
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
    if let Some(cluster) = &config.cluster {
        profile.configure(cluster);
    }
    for object in objects {
        if object.group == crate::k8s::KUBEVIRT_GROUP
            && object.kind == "KubeVirt"
            && let Some(configuration) =
                object.node.get("spec").and_then(|s| s.get("configuration"))
        {
            profile.configure(&configuration.to_json());
        }
    }
    profile
}

/// Whether a name is a placeholder for a later substitution (`${CLUSTER_NAME}`, `{{ .name }}`):
/// such objects are variants of a template, not copies of one object.
fn is_placeholder(name: &str) -> bool {
    name.contains(['$', '{', '}'])
}

fn duplicate_findings(objects: &[Object], index: &Index) -> Vec<Finding> {
    let mut findings = Vec::new();
    for ids in index.groups() {
        if is_placeholder(&objects[ids[0]].name) {
            continue;
        }
        for (i, &id) in ids.iter().enumerate() {
            let object = &objects[id];
            let Some(&first) = ids[..i]
                .iter()
                .find(|&&other| objects[other].unit == object.unit)
            else {
                continue;
            };
            let first = &objects[first];
            findings.push(
                Finding::new(
                    &rules::DUPLICATE_OBJECT,
                    object.head_location(),
                    format!(
                        "{} {} is defined twice; applied together, the later one silently replaces the earlier",
                        object.kind,
                        object.display_name()
                    ),
                )
                .with_object(Some(object.object_ref()))
                .with_related(Related {
                    location: first.head_location(),
                    message: "first defined here".to_owned(),
                }),
            );
        }
    }
    findings
}

/// Findings about objects that wrap or resemble VMs without being rendered.
fn object_findings(object: &Object) -> Option<Finding> {
    let finding = |rule, path: &str, message: String| {
        Some(
            Finding::new(
                rule,
                object.field_location(&FieldPath::parse(path)),
                message,
            )
            .with_object(Some(object.object_ref())),
        )
    };
    match (object.group.as_str(), object.version.as_str(), object.kind.as_str()) {
        ("template.openshift.io", _, "Template") => {
            let has_vm = object
                .node
                .get("objects")
                .and_then(|o| o.as_seq())
                .is_some_and(|items| items.iter().any(|i| i.get("kind").and_then(|k| k.as_str()) == Some("VirtualMachine")));
            if has_vm {
                return finding(
                    &rules::WRAPPED_VM,
                    "objects",
                    "this OpenShift Template holds a VirtualMachine with parameters; kvlint does not render templates (process it with `oc process` and check the output)".to_owned(),
                );
            }
            None
        }
        ("infrastructure.cluster.x-k8s.io", _, "KubevirtMachineTemplate") => finding(
            &rules::WRAPPED_VM,
            "spec",
            "a Cluster API KubevirtMachineTemplate holds a VM template that the KubeVirt provider completes at run time; kvlint does not render it".to_owned(),
        ),
        (crate::k8s::KUBEVIRT_GROUP, "v1alpha3", "VirtualMachine") => finding(
            &rules::DEPRECATED_VM_API,
            "apiVersion",
            "kubevirt.io/v1alpha3 is deprecated; use kubevirt.io/v1".to_owned(),
        ),
        (crate::k8s::KUBEVIRT_GROUP, _, "VirtualMachine") if object.node.get("spec").and_then(|s| s.get("flavor")).is_some() => finding(
            &rules::DEPRECATED_VM_API,
            "spec.flavor",
            "spec.flavor was retired before KubeVirt v1.0 and is pruned by the API server; use spec.instancetype".to_owned(),
        ),
        _ => None,
    }
}

/// Runs the whole check.
pub fn run(options: &Options) -> Result<Report, Error> {
    let settings = effective(options)?;
    let inputs = source::discover(&settings.selection)?;
    check_inputs(options, &settings, &inputs)
}

/// Checks one in-memory file as a one-file repository: the entry point of the fuzz targets.
/// With `options.config` set to `ConfigChoice::None` nothing but `bytes` is read.
pub fn run_in_memory(options: &Options, display: &str, bytes: &[u8]) -> Result<Report, Error> {
    let settings = effective(options)?;
    let inputs = [source::Input::Memory {
        display: Arc::from(display),
        bytes: Arc::from(bytes),
    }];
    check_inputs(options, &settings, &inputs)
}

fn check_inputs(
    options: &Options,
    settings: &Effective,
    inputs: &[source::Input],
) -> Result<Report, Error> {
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
        ..LoadOptions::default()
    };
    let loaded = load::load(inputs, &load_options);
    let profile = cluster_profile(&loaded.objects, settings.version, &settings.config);
    let index = Index::build(&loaded.objects);
    let catalog = catalog_source::load_catalog(&settings.catalog, &profile)?;
    let repo = Repo {
        objects: &loaded.objects,
        index: &index,
        catalog: &catalog,
        version: profile.version,
    };

    let mut findings = loaded.findings;
    findings.extend(settings.config.findings.iter().cloned());
    findings.extend(catalog_source::overwritten_by_operator(
        &loaded.objects,
        &catalog,
        &profile,
    ));
    findings.extend(duplicate_findings(&loaded.objects, &index));
    findings.extend(loaded.objects.iter().filter_map(object_findings));
    findings.extend(
        loaded
            .objects
            .iter()
            .flat_map(crate::runtime::object_findings),
    );
    let locations =
        crate::schema::load_locations(&options.schema_locations).map_err(Error::Usage)?;
    for object in &loaded.objects {
        findings.extend(crate::schema::check_object_for_release(
            object,
            profile.version,
        ));
        findings.extend(crate::schema::check_vm_matchers(object));
        findings.extend(crate::schema::check_with_locations(object, &locations));
        findings.extend(crate::admission::objects::check_object(
            object,
            profile.version,
        ));
    }

    let vms: Vec<&Object> = loaded
        .objects
        .iter()
        .filter(|o| analyze::is_vm(o))
        .collect();
    let reports: Vec<analyze::VmReport> = vms
        .par_iter()
        .map(|object| analyze::analyze_vm(&repo, object, &profile))
        .collect();
    let mut rendered = Vec::new();
    for report in reports {
        findings.extend(report.findings);
        rendered.extend(report.rendered);
    }
    rendered.sort_by(|a, b| {
        (&a.namespace, &a.name, &a.file, a.line).cmp(&(&b.namespace, &b.name, &b.file, b.line))
    });
    crate::suppress::apply(&mut findings, &loaded.suppressions);
    crate::config::apply_severities(&mut findings, &settings.config.severities);
    if let Some(baseline) = &options.baseline {
        crate::baseline::filter(baseline, &mut findings)?;
    }
    sort_findings(&mut findings);

    let count = |severity| findings.iter().filter(|f| f.severity == severity).count();
    let summary = Summary {
        files: loaded.files,
        documents: loaded.documents,
        objects: loaded.objects.len(),
        skipped: loaded.skipped,
        vms: vms.len(),
        rendered: rendered.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        infos: count(Severity::Info),
    };
    let mut sources = loaded.sources;
    if let (Some(file), Some(text)) = (&settings.config.file, &settings.config.text) {
        sources.push((Arc::clone(file), Arc::clone(text)));
    }
    if options.keep_sources {
        sources.extend(catalog.sources.iter().cloned());
    }
    Ok(Report {
        findings,
        rendered,
        summary,
        sources,
        profile: Some(profile),
    })
}
