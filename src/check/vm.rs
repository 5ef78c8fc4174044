//! Stage two: every VirtualMachine (and VirtualMachinePool template) is resolved, admitted
//! and rendered as KubeVirt would; the outcome is findings and the rendered VM.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::admission::mutate::{self, MutateRefusal};
use crate::admission::validate::{self, FindErrors, Rejection};
use crate::cluster::profile::ClusterProfile;
use crate::controller::drift::{Drift, DriftPolicy};
use crate::diag::fix::{Fix, remove};
use crate::diag::{Finding, Related};
use crate::k8s::Object;
use crate::model::value::Fields;
use crate::model::{InstancetypeSpec, Matcher, MatcherRole, PreferenceSpec};
use crate::render::{self, Conflict, ExpandError, Specs};
use crate::resolve::{self, FindError, Found, Repo};
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;
use crate::yaml::edit::Action;

/// A rendered VM, ready for output.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub namespace: String,
    pub name: String,
    pub file: Arc<str>,
    pub line: u32,
    pub value: Value,
    /// Where the instance type and preference came from, for humans
    /// (`instancetype: VirtualMachineClusterInstancetype u1.medium (built-in catalog v1.7.0)`).
    pub origins: Vec<String>,
    /// The unit the VM was rendered in (its directory), for VMs of a Kustomize unit.
    pub unit: Option<String>,
    /// The VirtualMachinePool that creates the VM, for the VMs of a pool.
    pub pool: Option<String>,
}

/// Everything kvlint concluded about one VM.
#[derive(Clone, Debug, Default)]
pub struct VmReport {
    pub findings: Vec<Finding>,
    /// The rendered VM (the VMs a pool creates), when asked for.
    pub rendered: Vec<Rendered>,
    /// Whether the VM could be rendered.
    pub renders: bool,
}

/// How a VM sits inside its object: a VirtualMachine, or the template of a VirtualMachinePool.
struct VmView<'a> {
    object: &'a Object,
    /// Path of the VM inside the object (empty for a VirtualMachine).
    base: FieldPath,
}

impl VmView<'_> {
    /// The path of `vm_path` in the object: `vm_path` itself for a VirtualMachine.
    fn path<'p>(&self, vm_path: &'p FieldPath) -> Cow<'p, FieldPath> {
        if self.base.0.is_empty() {
            return Cow::Borrowed(vm_path);
        }
        let mut segments = self.base.0.clone();
        segments.extend(vm_path.0.iter().cloned());
        Cow::Owned(FieldPath(segments))
    }

    /// A KubeVirt field (or a message that names fields) as the object's validator says it:
    /// the pool validator checks the template's VM spec under `spec.virtualMachineTemplate`.
    fn kubevirt_text(&self, text: &str) -> String {
        if self.base.0.is_empty() {
            return text.to_owned();
        }
        super::pool::under_template(text)
    }

    fn finding(
        &self,
        rule: &'static rules::Rule,
        vm_path: &FieldPath,
        message: impl Into<String>,
    ) -> Finding {
        let path = self.path(vm_path);
        Finding::new(rule, self.object.field_location(&path), message)
            .with_object(Some(self.object.object_ref()))
            .with_path(path.text())
    }
}

/// Turns a KubeVirt field (`spec.template.spec.domain.cpu.sockets`, `annotations.<key>`) into a
/// VM field path.
fn vm_path_of(field: &str) -> FieldPath {
    if let Some(key) = field.strip_prefix("annotations.") {
        return FieldPath::parse("spec.template.metadata.annotations").key(key);
    }
    // A few causes name the feature rather than the field that uses it.
    let field = match field {
        "spec.template.spec.HostDevices" => "spec.template.spec.domain.devices.hostDevices",
        "spec.template.spec.GPUs" => "spec.template.spec.domain.devices.gpus",
        "spec.template.spec.Sound" => "spec.template.spec.domain.devices.sound",
        other => other,
    };
    FieldPath::parse(field)
}

/// How to tell kvlint that the cluster enables a feature gate a refusal names.
fn feature_gate_help(message: &str, version: impl std::fmt::Display) -> Option<String> {
    message.contains("feature gate").then(|| {
        format!(
            "kvlint checks against KubeVirt {version} with the feature gates it is told of: if the cluster enables this one, declare them under `cluster: developerConfiguration: featureGates: [...]` in .kvlint.yaml, or commit the cluster's KubeVirt object (spec.configuration.developerConfiguration.featureGates) or HyperConverged object with the checked files"
        )
    })
}

/// Where in the instance type a conflicting VM field comes from.
fn instancetype_field(conflict: &str) -> FieldPath {
    if let Some(key) = conflict.strip_prefix("annotations.") {
        return FieldPath::parse("annotations").key(key);
    }
    let suffix = conflict
        .strip_prefix("spec.template.spec.")
        .unwrap_or(conflict);
    let field = match suffix {
        "nodeSelector" => "nodeSelector",
        "schedulerName" => "schedulerName",
        "domain.cpu.model" => "cpu.model",
        "domain.cpu.dedicatedCPUPlacement" => "cpu.dedicatedCPUPlacement",
        "domain.cpu.isolateEmulatorThread" => "cpu.isolateEmulatorThread",
        "domain.cpu.numa" => "cpu.numa",
        "domain.cpu.realtime" => "cpu.realtime",
        "domain.memory.hugepages" => "memory.hugepages",
        "domain.memory.maxGuest" => "memory.maxGuest",
        "domain.ioThreads.supplementalPoolThreadCount" => "ioThreads.supplementalPoolThreadCount",
        "domain.ioThreadsPolicy" => "ioThreadsPolicy",
        "domain.launchSecurity" => "launchSecurity",
        "domain.devices.gpus" => "gpus",
        "domain.devices.hostDevices" => "hostDevices",
        s if s.starts_with("domain.memory") || s.ends_with(".memory") => "memory.guest",
        _ => "cpu.guest",
    };
    FieldPath::parse(field)
}

/// A resolved and decoded matcher.
struct Resolved<'a, T> {
    /// Always `Ok`: shared with every VM that references the same object.
    spec: Arc<Result<T, String>>,
    found: Found<'a>,
}

enum Resolution<'a, T> {
    Absent,
    Found(Resolved<'a, T>),
    Failed(FindError),
    Invalid { found: Found<'a>, error: String },
}

impl<'a, T> Resolution<'a, T> {
    fn spec(&self) -> Option<&T> {
        match self {
            Self::Found(r) => r.spec.as_ref().as_ref().ok(),
            _ => None,
        }
    }

    fn found(&self) -> Option<&Found<'a>> {
        match self {
            Self::Found(r) => Some(&r.found),
            Self::Invalid { found, .. } => Some(found),
            _ => None,
        }
    }

    fn error_text(&self) -> Option<String> {
        match self {
            Self::Failed(err) => Some(err.message.clone()),
            Self::Invalid { error, .. } => Some(error.clone()),
            _ => None,
        }
    }
}

fn resolve_role<'a, T: serde::de::DeserializeOwned + Send + Sync + 'static>(
    repo: &Repo<'a>,
    object: &Object,
    vm: &Value,
    role: MatcherRole,
) -> Resolution<'a, T> {
    let Some(matcher) = vm
        .field("spec")
        .and_then(|s| s.field(role.field()))
        .and_then(Matcher::from_json)
    else {
        return Resolution::Absent;
    };
    let status_ref = vm
        .field("status")
        .and_then(|s| s.get(format!("{}Ref", role.field())));
    match resolve::find(repo, object, role, &matcher, status_ref) {
        Ok(found) => {
            let spec = repo.specs.decode::<T>(&found);
            match spec.as_ref() {
                Ok(_) => Resolution::Found(Resolved { spec, found }),
                Err(error) => Resolution::Invalid {
                    error: error.clone(),
                    found,
                },
            }
        }
        Err(err) => Resolution::Failed(err),
    }
}

fn related_at(found: &Found<'_>, field: &FieldPath, message: impl Into<String>) -> Related {
    let origin = found.origin.object();
    let path = FieldPath::parse(found.origin.spec_prefix());
    let mut segments = path.0;
    segments.extend(field.0.iter().cloned());
    Related {
        location: origin.field_location(&FieldPath(segments)),
        message: message.into(),
    }
}

struct Analysis<'r, 'a> {
    profile: &'r ClusterProfile,
    view: VmView<'a>,
    findings: Vec<Finding>,
}

impl Analysis<'_, '_> {
    fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    fn conflict_finding(&self, conflict: &Conflict, instancetype: Option<&Found<'_>>) -> Finding {
        let mut finding = self
            .view
            .finding(
                &rules::INSTANCETYPE_CONFLICT,
                &vm_path_of(&conflict.path),
                conflict.message_for(self.profile.version),
            )
            .with_kubevirt_field(conflict.path.clone())
            .with_help("remove the field from the VM: the instance type sets it, and KubeVirt refuses to override either");
        if let Some(found) = instancetype {
            finding = finding.with_related(related_at(
                found,
                &instancetype_field(&conflict.path),
                format!(
                    "set by {} {}",
                    found.origin.object().kind,
                    found.origin.object().name
                ),
            ));
        }
        finding
    }

    fn report_mutation(&mut self, refusal: &MutateRefusal) {
        match refusal {
            MutateRefusal::Matcher(causes) => {
                for cause in causes {
                    let finding = self
                        .view
                        .finding(
                            &rules::INVALID_MATCHER,
                            &FieldPath::parse(&cause.field),
                            cause.message.clone(),
                        )
                        .with_kubevirt_field(cause.field.clone());
                    self.push(finding);
                }
            }
            MutateRefusal::Schema(paths) => {
                for path in paths {
                    let finding = self
                        .view
                        .finding(
                            &rules::SCHEMA_VIOLATION,
                            &FieldPath::parse(path),
                            format!("{path} in body is a forbidden property"),
                        )
                        .with_help(format!(
                            "KubeVirt {} does not have this field yet: remove it or target a newer release",
                            self.profile.version
                        ));
                    self.push(finding);
                }
            }
            MutateRefusal::TooMany(fields) => {
                for field in fields {
                    let finding = self.view.finding(
                        &rules::SCHEMA_VIOLATION,
                        &FieldPath::parse(field),
                        crate::admission::list_limits::too_many_message(field),
                    );
                    self.push(finding);
                }
            }
            MutateRefusal::Inference { role, message } => {
                let path = FieldPath::parse(&format!("spec.{}.inferFromVolume", role.field()));
                let finding = self
                    .view
                    .finding(&rules::INFERENCE_FAILED, &path, message.clone())
                    .with_help("kvlint resolves inferFromVolume from the PVCs, DataVolumes, DataSources and VolumeSnapshots in the repository; set inferFromVolumeFailurePolicy: Ignore to tolerate a missing label, or name the instance type directly");
                self.push(finding);
            }
        }
    }

    fn report_rejections(
        &mut self,
        rejections: Vec<Rejection>,
        instancetype: &Resolution<'_, InstancetypeSpec>,
        preference: &Resolution<'_, PreferenceSpec>,
    ) {
        for rejection in rejections {
            let finding = match rejection {
                Rejection::Conflict(conflict) => {
                    self.conflict_finding(&conflict, instancetype.found())
                }
                Rejection::Spread(cause) => {
                    let mut finding = self
                        .view
                        .finding(
                            &rules::SPREAD_NOT_DIVISIBLE,
                            &FieldPath::parse("spec.preference"),
                            cause.message,
                        )
                        .with_kubevirt_field(cause.field);
                    if let Some(found) = instancetype.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("cpu.guest"),
                            "vCPUs of the instance type",
                        ));
                    }
                    if let Some(found) = preference.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("cpu"),
                            "spread preference",
                        ));
                    }
                    finding
                }
                Rejection::Requirement {
                    cause,
                    by_instancetype,
                } => {
                    let first = cause.field.split(", ").next().unwrap_or("").to_owned();
                    let mut finding = self
                        .view
                        .finding(
                            &rules::PREFERENCE_REQUIREMENT,
                            &vm_path_of(&first),
                            cause.message,
                        )
                        .with_kubevirt_field(cause.field);
                    if by_instancetype && let Some(found) = instancetype.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::root(),
                            "the instance type provides",
                        ));
                    }
                    if let Some(found) = preference.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("requirements"),
                            "the preference requires",
                        ));
                    }
                    finding
                }
                Rejection::FindFailure { role, cause } => self
                    .view
                    .finding(
                        &rules::REFERENCE_REJECTED,
                        &FieldPath::parse(&format!("spec.{}", role.field())),
                        cause.message,
                    )
                    .with_kubevirt_field(cause.field),
                Rejection::VmSpec(cause) => {
                    let finding = self
                        .view
                        .finding(
                            &rules::VM_SPEC_INVALID,
                            &vm_path_of(&cause.field),
                            self.view.kubevirt_text(&cause.message),
                        )
                        .with_kubevirt_field(self.view.kubevirt_text(&cause.field));
                    match feature_gate_help(&cause.message, self.profile.version) {
                        Some(help) => finding.with_help(help),
                        None => finding,
                    }
                }
                Rejection::Panic(message) => {
                    self.view
                        .finding(&rules::WEBHOOK_FAILURE, &FieldPath::parse("spec"), message)
                }
                Rejection::Defaults(message) => self.view.finding(
                    &rules::VM_SPEC_INVALID,
                    &FieldPath::parse("spec.template.spec"),
                    message,
                ),
            };
            self.push(finding);
        }
    }

    fn report_unresolved<T>(&mut self, role: MatcherRole, resolution: &Resolution<'_, T>) {
        let unresolved_rule = match role {
            MatcherRole::Instancetype => &rules::UNRESOLVED_INSTANCETYPE,
            MatcherRole::Preference => &rules::UNRESOLVED_PREFERENCE,
        };
        let mut path = FieldPath::parse(&format!("spec.{}", role.field()));
        match resolution {
            Resolution::Failed(err) => {
                if err.kind == resolve::FindErrorKind::Revision {
                    path = path.key("revisionName");
                }
                let mut finding = self
                    .view
                    .finding(unresolved_rule, &path, err.message.clone());
                let mut help = crate::rules::verdict::unresolved_help(
                    self.profile.version,
                    failed_find_condition(role),
                    None,
                );
                if let Some(note) = &err.note {
                    help = format!("{note}; {help}");
                }
                finding = finding.with_help(help);
                self.push(finding);
            }
            Resolution::Invalid { found, error } => {
                let object = found.origin.object();
                let finding = self
                    .view
                    .finding(
                        unresolved_rule,
                        &path,
                        format!("{} {} cannot be used: {error}", object.kind, object.name),
                    )
                    .with_related(related_at(found, &FieldPath::root(), "invalid object"));
                self.push(finding);
            }
            Resolution::Absent | Resolution::Found(_) => {}
        }
    }
}

fn origin_text(repo: &Repo<'_>, role: MatcherRole, found: &Found<'_>) -> String {
    let object = found.origin.object();
    let place = if repo.is_catalog(object) {
        repo.catalog.label.clone().unwrap_or_default()
    } else {
        format!("{}:{}", object.file, object.node.span.start.line)
    };
    let via = match found.origin {
        resolve::Origin::Revision(_) => " (ControllerRevision)",
        resolve::Origin::Object(_) => "",
    };
    format!(
        "{}: {} {}{via} from {place}",
        role.field(),
        object.kind,
        object.name
    )
}

impl Analysis<'_, '_> {
    /// References to catalog names that the target release's bundle labels deprecated (whether
    /// or not kvlint has their content).
    fn deprecated_catalog_names(&mut self, repo: &Repo<'_>, vm: &Value) {
        if !repo.catalog.deployed_by_operator {
            return;
        }
        let version = self.profile.version;
        for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
            let Some(matcher) = vm
                .field("spec")
                .and_then(|s| s.field(role.field()))
                .and_then(Matcher::from_json)
            else {
                continue;
            };
            if matcher.resolved_kind(role) != crate::model::MatcherKind::Cluster
                || !crate::cluster::catalog::deprecated_in_release(
                    version.major,
                    version.minor,
                    &matcher.name,
                )
            {
                continue;
            }
            let defined_in_repo = repo.index.find(
                repo.objects,
                "",
                crate::k8s::INSTANCETYPE_GROUP,
                match role {
                    MatcherRole::Instancetype => "VirtualMachineClusterInstancetype",
                    MatcherRole::Preference => "VirtualMachineClusterPreference",
                },
                None,
                &matcher.name,
            );
            if defined_in_repo.is_some() {
                continue;
            }
            let path = FieldPath::parse(&format!("spec.{}.name", role.field()));
            let finding = self
                .view
                .finding(
                    &rules::CATALOG_DEPRECATED,
                    &path,
                    format!(
                        "{} is labelled deprecated in the common-instancetypes catalog KubeVirt {version} deploys, and a later release removes it",
                        matcher.name
                    ),
                )
                .with_help("switch to a current catalog entry (for example the u1 or o1 series, or the OS's current preference)");
            self.push(finding);
        }
    }

    /// Notes about references resolved from the catalog the cluster deploys.
    fn catalog_notes(&mut self, repo: &Repo<'_>, role: MatcherRole, found: &Found<'_>) {
        let object = found.origin.object();
        if !repo.is_catalog(object) || !repo.catalog.deployed_by_operator {
            return;
        }
        let path = FieldPath::parse(&format!("spec.{}.name", role.field()));
        let version = self.profile.version;
        if let Some(bundled) = repo.catalog.approximated_from {
            let finding = self.view.finding(
                &rules::CATALOG_CONTENT_APPROXIMATED,
                &path,
                format!(
                    "{} {} is rendered with the content of common-instancetypes {}; KubeVirt {version} deploys {bundled}, whose content may differ",
                    object.kind,
                    object.name,
                    crate::resolve::catalog_source::BUILTIN_VERSION
                ),
            );
            self.push(finding);
        }
    }
}

/// The closest known name to a misspelled field, when one is close: case-insensitive equality
/// first, then a small edit distance.
pub fn did_you_mean<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = name.to_ascii_lowercase();
    if let Some(exact) = known.iter().find(|k| k.to_ascii_lowercase() == lower) {
        return Some(exact);
    }
    known
        .iter()
        .map(|k| (strsim::levenshtein(&k.to_ascii_lowercase(), &lower), *k))
        .filter(|(distance, k)| *distance <= 2.max(k.len() / 5))
        .min()
        .map(|(_, k)| k)
}

fn has_matchers(vm: &Value) -> bool {
    let spec = vm.field("spec");
    ["instancetype", "preference"]
        .iter()
        .any(|k| spec.and_then(|s| s.field(k)).is_some_and(|m| !m.is_null()))
}

/// Removes the fields only the mutating webhook writes (random firmware identity, the PCI
/// topology annotation, storage classes) from the expand of a stored VM, leaving their parent
/// objects in place, so that an inferred VM renders as the VM the user wrote would.
fn strip_webhook_only(stored: &mut Value, written: &Value) {
    for key in ["uuid", "serial"] {
        let had = written
            .pointer(&format!("/spec/template/spec/domain/firmware/{key}"))
            .is_some();
        if !had
            && let Some(firmware) = stored
                .pointer_mut("/spec/template/spec/domain/firmware")
                .and_then(Value::as_object_mut)
        {
            firmware.remove(key);
        }
    }
    let had_pci = written
        .pointer("/spec/template/metadata/annotations")
        .and_then(|a| a.field("kubevirt.io/pci-topology-version"))
        .is_some();
    if !had_pci
        && let Some(annotations) = stored
            .pointer_mut("/spec/template/metadata/annotations")
            .and_then(Value::as_object_mut)
    {
        annotations.remove("kubevirt.io/pci-topology-version");
    }
    let written_templates = written
        .pointer("/spec/dataVolumeTemplates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(templates) = stored
        .pointer_mut("/spec/dataVolumeTemplates")
        .and_then(Value::as_array_mut)
    {
        for (template, original) in templates.iter_mut().zip(written_templates.iter()) {
            for kind in ["pvc", "storage"] {
                let had = original
                    .field("spec")
                    .and_then(|s| s.get(kind))
                    .and_then(|k| k.field("storageClassName"))
                    .is_some();
                if !had
                    && let Some(target) = template
                        .field_mut("spec")
                        .and_then(|s| s.get_mut(kind))
                        .and_then(Value::as_object_mut)
                {
                    target.remove("storageClassName");
                }
            }
        }
    }
}

/// The VM JSON of an object: the VirtualMachine itself, or a pool's template as a VM.
fn vm_json(object: &Object) -> Option<(Value, FieldPath)> {
    let json = object.node.to_json();
    if object.kind == "VirtualMachine" {
        return Some((json, FieldPath::root()));
    }
    let template = json.pointer("/spec/virtualMachineTemplate")?;
    let mut metadata = template
        .field("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    metadata.insert("name".to_owned(), object.name.clone().into());
    let vm = json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": Value::Object(metadata),
        "spec": template.field("spec").cloned().unwrap_or(Value::Object(Map::new())),
    });
    Some((vm, FieldPath::parse("spec.virtualMachineTemplate")))
}

/// What a caller needs from the analysis beyond the findings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted {
    /// The rendered VM, in the report.
    pub rendered: bool,
    /// The fixes of drift findings (`kvlint fix`; other reports do not show them).
    pub fixes: bool,
}

/// Analyzes one VM object; `policy` judges its predicted drift.
/// The VM condition KubeVirt sets when it cannot find the object a matcher names.
fn failed_find_condition(role: MatcherRole) -> &'static str {
    match role {
        MatcherRole::Instancetype => "FailedFindInstancetype",
        MatcherRole::Preference => "FailedFindPreference",
    }
}

/// A VM that a webhook refuses is not admitted: the help of its unresolved references says
/// so instead of "admits the VM".
fn reconcile_verdicts(findings: &mut [Finding], version: crate::cluster::profile::KubeVirtVersion) {
    let Some(rejected_by) = findings
        .iter()
        .find(|f| {
            f.severity == rules::Severity::Error
                && crate::rules::verdict::Verdict::of(f.rule.category)
                    == Some(crate::rules::verdict::Verdict::Rejected)
        })
        .map(|f| f.rule.code)
    else {
        return;
    };
    for finding in findings {
        let role = if finding.rule.code == rules::UNRESOLVED_INSTANCETYPE.code {
            MatcherRole::Instancetype
        } else if finding.rule.code == rules::UNRESOLVED_PREFERENCE.code {
            MatcherRole::Preference
        } else {
            continue;
        };
        let condition = failed_find_condition(role);
        let admitted = crate::rules::verdict::unresolved_help(version, condition, None);
        let rejected =
            crate::rules::verdict::unresolved_help(version, condition, Some(rejected_by));
        if let Some(help) = &mut finding.help {
            *help = help.replace(&admitted, &rejected);
        }
    }
}

pub fn analyze_vm<'a>(
    repo: &Repo<'a>,
    object: &'a Object,
    profile: &ClusterProfile,
    wanted: Wanted,
    policy: DriftPolicy,
) -> VmReport {
    let mut report = analyze_vm_unreconciled(repo, object, profile, wanted, policy);
    reconcile_verdicts(&mut report.findings, profile.version);
    report
}

fn analyze_vm_unreconciled<'a>(
    repo: &Repo<'a>,
    object: &'a Object,
    profile: &ClusterProfile,
    wanted: Wanted,
    policy: DriftPolicy,
) -> VmReport {
    let keep_rendered = wanted.rendered;
    let Some((mut written, base)) = vm_json(object) else {
        return VmReport::default();
    };
    if let Some(metadata) = written.field_mut("metadata").and_then(Value::as_object_mut)
        && let Some(namespace) = &object.namespace
    {
        metadata.insert("namespace".to_owned(), namespace.clone().into());
    }
    // The pool object is stored as written (KubeVirt has no mutating webhook for pools); the
    // VMs its controller creates are not in Git, so nothing drifts.
    let is_pool = !base.0.is_empty();
    let mut analysis = Analysis {
        profile,
        view: VmView { object, base },
        findings: Vec::new(),
    };

    let mutation = mutate::mutate(repo, object, &written, profile, true);
    if let Some(refusal) = &mutation.refusal {
        analysis.report_mutation(refusal);
    }
    let inference_failed = matches!(mutation.refusal, Some(MutateRefusal::Inference { .. }));
    // The webhooks see the mutated VM; a VM the mutating webhook refuses is judged as written.
    let judged = if mutation.refusal.is_none() {
        &mutation.vm
    } else {
        &written
    };
    let instancetype: Resolution<'_, InstancetypeSpec> =
        resolve_role(repo, object, judged, MatcherRole::Instancetype);
    let preference: Resolution<'_, PreferenceSpec> =
        resolve_role(repo, object, judged, MatcherRole::Preference);
    let specs = Specs {
        instancetype: instancetype.spec(),
        preference: preference.spec(),
    };
    analysis.deprecated_catalog_names(repo, judged);
    let mut origins = Vec::new();
    for (role, found) in [
        (MatcherRole::Instancetype, instancetype.found()),
        (MatcherRole::Preference, preference.found()),
    ] {
        if let Some(found) = found {
            origins.push(origin_text(repo, role, found));
            analysis.catalog_notes(repo, role, found);
        }
    }

    for path in render::shape::unknown_fields(&written) {
        let name = match path.0.last() {
            Some(crate::yaml::Segment::Key(key)) => key.clone(),
            _ => continue,
        };
        let siblings = render::shape::sibling_fields(&path);
        let suggestion = did_you_mean(&name, &siblings);
        let mut finding = analysis.view.finding(
            &rules::UNKNOWN_FIELD,
            &path,
            format!("`{name}` is not a field of KubeVirt's VirtualMachine here: the API server drops it without an error"),
        );
        if let Some(suggestion) = suggestion {
            finding = finding.with_help(format!("did you mean `{suggestion}`?"));
        }
        analysis.push(finding);
    }
    let runtime =
        crate::controller::committed_runtime::vm_findings(object, &analysis.view.base, &written);
    analysis.findings.extend(runtime);
    let admitted = mutation.refusal.is_none();
    // Rendering follows expand of the VM as written; inferred VMs follow the stored VM.
    let follow_stored = mutation.inferred && admitted;
    let mut stored_for_render = None;
    if admitted {
        let find_errors = FindErrors {
            instancetype: instancetype.error_text(),
            preference: preference.error_text(),
        };
        // Drift is predicted before validation takes the stored VM over; only an admitted VM
        // is stored, so it is reported only when validation accepts the VM.
        let own_name = (object.kind == "VirtualMachine").then_some(object.name.as_str());
        let drifts: Vec<crate::controller::drift::Drift> = crate::controller::drift::predict_for(
            &written,
            &mutation.vm,
            profile.version,
            own_name,
            policy.gitops,
        )
        .into_iter()
        .chain(crate::controller::predict(
            &written,
            &mutation.vm,
            specs,
            profile,
        ))
        .collect();
        if follow_stored {
            stored_for_render = Some(mutation.vm.clone());
        }
        let owns_volumes = written
            .pointer("/spec/dataVolumeTemplates")
            .and_then(Value::as_array)
            .is_some_and(|templates| !templates.is_empty());
        let rejections = validate::validate(mutation.vm, specs, &find_errors, profile, true);
        if rejections.is_empty() && !is_pool {
            for drift in drifts {
                // The webhook's defaults carry their fix always: the reports gather them into
                // one snippet to commit per VM.
                let fix = if wanted.fixes
                    || rules::WEBHOOK_DEFAULTS
                        .iter()
                        .any(|r| r.code == drift.rule.code)
                {
                    let identity = format!(
                        "{}/{}",
                        object.namespace.as_deref().unwrap_or(""),
                        object.name
                    );
                    for_drift(&drift, &analysis.view.path(&drift.path), &identity)
                } else {
                    None
                };
                let mut finding = drift_finding(&analysis.view, drift, policy, owns_volumes);
                finding = finding.with_fix(fix);
                analysis.push(finding);
            }
        }
        analysis.report_rejections(rejections, &instancetype, &preference);
    }
    if inference_failed {
        return VmReport {
            findings: analysis.findings,
            rendered: Vec::new(),
            renders: false,
        };
    }

    let unresolved = matches!(
        instancetype,
        Resolution::Failed(_) | Resolution::Invalid { .. }
    ) || matches!(
        preference,
        Resolution::Failed(_) | Resolution::Invalid { .. }
    );
    if unresolved {
        // A refused VM already has its error; an unresolvable matcher is then a consequence
        // (e.g. inferFromVolume that the refused request never resolved).
        if profile.version.at_least(1, 6) && admitted {
            analysis.report_unresolved(MatcherRole::Instancetype, &instancetype);
            analysis.report_unresolved(MatcherRole::Preference, &preference);
        }
        return VmReport {
            findings: analysis.findings,
            rendered: Vec::new(),
            renders: false,
        };
    }
    let (render_input, written_for_strip) = match stored_for_render {
        Some(stored) => (stored, Some(written)),
        None => (written, None),
    };
    let matchers = has_matchers(&render_input);
    if !matchers && !keep_rendered {
        return VmReport {
            findings: analysis.findings,
            rendered: Vec::new(),
            renders: true,
        };
    }
    let rendered = match render::expand(render_input, specs, matchers, profile) {
        Ok(_) if !keep_rendered => {
            return VmReport {
                findings: analysis.findings,
                rendered: Vec::new(),
                renders: true,
            };
        }
        Ok(mut value) => {
            render::shape::prune_unknown(&mut value, profile.version);
            render::shape::normalize_vm(&mut value, &|v| crate::k8s::quantity::canonical_json(v));
            if let Some(written) = &written_for_strip {
                strip_webhook_only(&mut value, written);
            }
            Some(value)
        }
        Err(ExpandError::Conflicts(conflicts)) => {
            // Conflicts admission also sees are already reported as rejections; expand also
            // sees what the mutating webhook's re-serialisation hides (an empty nodeSelector).
            let rejected = analysis
                .findings
                .iter()
                .any(|f| f.rule.code == rules::INSTANCETYPE_CONFLICT.code);
            if !rejected {
                let finding = analysis
                    .view
                    .finding(&rules::EXPAND_FAILED, &vm_path_of(&conflicts[0].path), render::conflicts_message(&conflicts))
                    .with_kubevirt_field(conflicts.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", "))
                    .with_help("KubeVirt admits this VM, but its expand (virtctl expand, referencePolicy: expand) fails on the fields as written");
                analysis.push(finding);
            }
            None
        }
        Err(ExpandError::Panic(message)) => {
            let finding =
                analysis
                    .view
                    .finding(&rules::WEBHOOK_FAILURE, &FieldPath::parse("spec"), message);
            analysis.push(finding);
            None
        }
        Err(ExpandError::Find { field, message }) => {
            let finding = analysis
                .view
                .finding(&rules::EXPAND_FAILED, &FieldPath::parse(&field), message)
                .with_kubevirt_field(field)
                .with_help("up to KubeVirt v1.3, expand (virtctl expand) looks the preference up as written, before the mutating webhook defaults its kind: write the kind");
            analysis.push(finding);
            None
        }
        Err(ExpandError::Defaults(message)) => {
            let finding = analysis.view.finding(
                &rules::EXPAND_FAILED,
                &FieldPath::parse("spec.template.spec"),
                message,
            );
            analysis.push(finding);
            None
        }
    };
    let renders = rendered.is_some();
    let rendered = match rendered {
        None => Vec::new(),
        Some(value) => {
            let one = |name: String, value: Value, pool: Option<String>| Rendered {
                namespace: object.namespace.clone().unwrap_or_default(),
                name,
                file: Arc::clone(&object.file),
                line: object.node.span.start.line,
                value,
                origins: origins.clone(),
                unit: object
                    .rendered_in
                    .as_ref()
                    .map(|rendered| rendered.unit.path.clone()),
                pool,
            };
            if is_pool {
                let pool = object.node.to_json();
                super::pool::created_vms(&pool, &object.name, &value)
                    .into_iter()
                    .map(|vm| {
                        let name = vm
                            .pointer("/metadata/name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned();
                        one(name, vm, Some(object.name.clone()))
                    })
                    .collect()
            } else {
                vec![one(object.name.clone(), value, None)]
            }
        }
    };
    VmReport {
        renders,
        rendered,
        findings: analysis.findings,
    }
}

/// Whether an object is analyzed as a VM.
pub fn is_vm(object: &Object) -> bool {
    (object.group == crate::k8s::KUBEVIRT_GROUP && object.kind == "VirtualMachine")
        || (object.group == "pool.kubevirt.io" && object.kind == "VirtualMachinePool")
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A stable identity for pinning (firmware uuid / serial): UUID-shaped, derived from the
/// object and field so that repeated runs write the same value.
fn pinned_identity(seed: &str) -> String {
    let hash = |salt: u64| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
        for byte in seed.bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    };
    let (high, low) = (hash(0x6b76_6c69_6e74), hash(0x6669_726d_7761_7265));
    let high = (high & 0xffff_ffff_ffff_0fff) | 0x4000; // version 4 layout
    let low = (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // RFC 4122 variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        high >> 32,
        (high >> 16) & 0xffff,
        high & 0xffff,
        low >> 48,
        low & 0xffff_ffff_ffff
    )
}

fn pin_identities(value: &mut Value, path: &FieldPath, object: &str) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                pin_identities(child, &path.key(key), object);
            }
        }
        Value::String(text) => *text = pinned_identity(&format!("{object}/{path}")),
        _ => {}
    }
}

/// The finding of a predicted change. Drift (not the runtime data the controller writes) gets
/// its kind, the severity `policy` gives the kind, and what the engine does with it.
fn drift_finding(
    view: &VmView<'_>,
    drift: Drift,
    policy: DriftPolicy,
    owns_volumes: bool,
) -> Finding {
    let is_drift = drift.rule.category == crate::diag::Category::Drift;
    let mut message = drift.message;
    if is_drift {
        message.push_str(&crate::controller::drift::engine_effect(
            drift.kind,
            policy.gitops,
            owns_volumes,
        ));
    }
    let mut finding = view
        .finding(drift.rule, &drift.path, message)
        .with_help(drift.help);
    if is_drift {
        finding.drift = Some(drift.kind);
        finding.severity = policy.severity(drift.kind);
    }
    finding.fields = drift
        .leaves
        .iter()
        .map(|leaf| view.path(leaf).text())
        .collect();
    finding
}

/// The fix of a predicted drift: write what the cluster stores at the drift's path (`full` is
/// the path inside the object, `object` identifies it for pinned identities).
pub fn for_drift(drift: &Drift, full: &FieldPath, object: &str) -> Option<Fix> {
    let code = drift.rule.code;
    let stored = drift.stored.as_ref();
    if code == rules::FIRMWARE_IDENTITY_GENERATED.code {
        let mut pinned = stored?.clone();
        pin_identities(&mut pinned, full, object);
        return Some(Fix::new(
            format!("pin `{full}` to a generated identity"),
            vec![Action::Set(full.clone(), pinned)],
        ));
    }
    if code == rules::NORMALIZED_BY_KUBEVIRT.code {
        // Only canonical spellings of a value are safe; a dropped field may be a typo the
        // owner wants to correct instead.
        let (written, stored) = (drift.written.as_ref()?, stored?);
        if written.is_object() || written.is_array() || stored.is_object() || stored.is_array() {
            return None;
        }
        return Some(Fix::new(
            format!("write `{full}` as `{}`", scalar_text(stored)),
            vec![Action::Set(full.clone(), stored.clone())],
        ));
    }
    let settable = [
        &rules::MATCHER_KIND_DEFAULTED,
        &rules::INFERENCE_REWRITTEN,
        &rules::MACHINE_TYPE_DEFAULTED,
        &rules::ARCHITECTURE_DEFAULTED,
        &rules::STORAGE_CLASS_DEFAULTED,
        &rules::PCI_TOPOLOGY_ANNOTATION,
    ];
    if !settable.iter().any(|rule: &&Rule| rule.code == code) {
        return None;
    }
    Some(match stored {
        Some(value) if value.is_object() => Fix::new(
            format!("write `{full}` as KubeVirt stores it"),
            vec![Action::Set(full.clone(), value.clone())],
        ),
        Some(value) => Fix::new(
            format!("set `{full}` to `{}`", scalar_text(value)),
            vec![Action::Set(full.clone(), value.clone())],
        ),
        None => remove(full),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_identities_are_stable_uuids() {
        let a = pinned_identity("default/vm/spec.template.spec.domain.firmware.uuid");
        assert_eq!(
            a,
            pinned_identity("default/vm/spec.template.spec.domain.firmware.uuid")
        );
        assert_ne!(
            a,
            pinned_identity("default/vm/spec.template.spec.domain.firmware.serial")
        );
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }
}
