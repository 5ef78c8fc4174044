//! `kvlint diff`: what a change to the repository does to every VM, for pull-request previews.
//!
//! Both sides are checked as usual ([`crate::check::run`]); this module compares the outcomes.
//! It is pure except for [`load_inputs`], which reads a side's manifests once more.
//!
//! # What a side consists of
//!
//! * The [`Report`] of `check::run`: the rendered VMs (KubeVirt's expand) and the findings.
//! * Optionally the side's [`Inputs`]: what the report does not keep — the instance types and
//!   preferences the repository defines, the VMs as written (their matchers, with
//!   `revisionName`) and the live-update settings of a `KubeVirt` object or of `.kvlint.yaml`'s
//!   `cluster:`. [`load_inputs`] reads them with the same options as `check::run`.
//!
//! [`diff`] compares two reports alone; the matchers are then taken from the rendered VMs'
//! origins ([`matchers`]) and a `revisionName` is known only from the KV4001 finding. [`diff_with`]
//! also takes both sides' inputs and adds the comparison of instance types and preferences.
//!
//! # What KubeVirt does with a change
//!
//! Judged as KubeVirt's VM controller judges a running VM whose template changed
//! (submission.md §4.6): with the `LiveUpdate` rollout strategy CPU sockets within `maxSockets`,
//! guest memory within `maxGuest`, node placement (nodeSelector, affinity, tolerations) and
//! hotpluggable volumes are applied to the running VM; any other difference of the expanded
//! template spec sets `RestartRequired`. With `Stage` every template difference needs a restart.
//! The matcher update rule of the mutating webhook (§2.2a) and the findings of category
//! `reject` of the head side decide rejections. Existing VMs keep the ControllerRevision of
//! their instance type and preference (drift.md D-13), so a changed instance type reaches only
//! new VMs and VMs that switch to it. A base VM that cannot be rendered because its
//! `revisionName` names a ControllerRevision only the cluster holds is live all the same: what
//! its running VM gets is undetermined.
//!
//! [`revision`] reads a side from a git revision (`--base`, `--head`).

pub mod revision;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::check::vm::Rendered;
use crate::check::{Options, Report};
use crate::cluster::profile::KubeVirtVersion;
use crate::controller::liveupdate::memory::{Unsupported, validate_live_update_memory};
use crate::diag::{Category, Finding, ObjectRef, Severity};
use crate::error::Error;
use crate::k8s::Object;
use crate::k8s::quantity::{Format, Quantity};
use crate::model::{Matcher, MatcherKind, MatcherRole};
use crate::sanitize::{self, terminal};
use crate::yaml::emit::to_yaml;

/// KubeVirt's `RestartRequired` message for a template difference it cannot apply live.
pub const NON_LIVE_UPDATABLE: &str = "a non-live-updatable field was changed in the template spec";
/// The mutating webhook's refusal of a matcher rename that keeps the `revisionName`.
pub const MATCHER_RENAMED: &str =
    "the Matcher Name has been updated without updating the RevisionName";

/// Where a `maxSockets` or `maxGuest` of the rendered VM comes from.
const EXPLICIT_LIMIT: &str = "set by the VM or its instance type";

/// Lines of a VM's unified diff that the Markdown format shows before cutting it short.
const MARKDOWN_DIFF_LINES: usize = 300;
/// Field changes listed under "other" before the rest is counted.
const OTHER_FIELDS: usize = 8;

// ---------------------------------------------------------------------------------------------
// Identities

/// A VM (or VirtualMachinePool) by namespace and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct VmKey {
    pub namespace: String,
    pub name: String,
}

impl VmKey {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for VmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

/// An instance type or preference a VM uses: its resolved kind and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct MatcherRef {
    /// `VirtualMachineClusterInstancetype`, `VirtualMachineInstancetype`, ... (an unexpected
    /// kind as written).
    pub kind: String,
    pub name: String,
}

impl MatcherRef {
    fn object_key(&self, vm_namespace: &str) -> ObjectKey {
        ObjectKey {
            namespace: (!self.kind.contains("Cluster")).then(|| vm_namespace.to_owned()),
            kind: self.kind.clone(),
            name: self.name.clone(),
        }
    }
}

/// The instance type and preference of a VM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VmMatchers {
    pub instancetype: Option<MatcherRef>,
    pub preference: Option<MatcherRef>,
}

impl VmMatchers {
    fn get(&self, role: MatcherRole) -> Option<&MatcherRef> {
        match role {
            MatcherRole::Instancetype => self.instancetype.as_ref(),
            MatcherRole::Preference => self.preference.as_ref(),
        }
    }

    /// The objects the VM (in `namespace`) uses, instance type first.
    fn object_keys(&self, namespace: &str) -> Vec<ObjectKey> {
        ROLES
            .iter()
            .filter_map(|role| self.get(*role))
            .map(|m| m.object_key(namespace))
            .collect()
    }

    fn slot(&mut self, role: MatcherRole) -> &mut Option<MatcherRef> {
        match role {
            MatcherRole::Instancetype => &mut self.instancetype,
            MatcherRole::Preference => &mut self.preference,
        }
    }
}

/// An instance type or preference object by identity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ObjectKey {
    pub kind: String,
    /// `None` for the cluster kinds.
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{} {namespace}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

const ROLES: [MatcherRole; 2] = [MatcherRole::Instancetype, MatcherRole::Preference];

fn role_index(role: MatcherRole) -> usize {
    match role {
        MatcherRole::Instancetype => 0,
        MatcherRole::Preference => 1,
    }
}

fn full_kind(role: MatcherRole, kind: MatcherKind, written: &str) -> String {
    match (role, kind) {
        (MatcherRole::Instancetype, MatcherKind::Cluster) => "VirtualMachineClusterInstancetype",
        (MatcherRole::Instancetype, MatcherKind::Namespaced) => "VirtualMachineInstancetype",
        (MatcherRole::Preference, MatcherKind::Cluster) => "VirtualMachineClusterPreference",
        (MatcherRole::Preference, MatcherKind::Namespaced) => "VirtualMachinePreference",
        (_, MatcherKind::Unexpected) => written,
    }
    .to_owned()
}

/// Reads `instancetype: VirtualMachineClusterInstancetype u1.medium from built-in catalog
/// v1.7.0` (the format of [`Rendered::origins`]).
fn parse_origin(origin: &str) -> Option<(MatcherRole, MatcherRef)> {
    let (role, rest) = origin.split_once(": ")?;
    let role = match role {
        "instancetype" => MatcherRole::Instancetype,
        "preference" => MatcherRole::Preference,
        _ => return None,
    };
    let mut words = rest.split_whitespace();
    let kind = words.next()?.to_owned();
    let name = words.next()?.to_owned();
    Some((role, MatcherRef { kind, name }))
}

/// The instance type and preference of every rendered VM, as resolved (after inference), read
/// from [`Rendered::origins`].
pub fn matchers(report: &Report) -> BTreeMap<VmKey, VmMatchers> {
    let mut out = BTreeMap::new();
    for rendered in &report.rendered {
        let key = VmKey::new(&rendered.namespace, &rendered.name);
        if out.contains_key(&key) {
            continue;
        }
        let mut matchers = VmMatchers::default();
        for origin in &rendered.origins {
            if let Some((role, matcher)) = parse_origin(origin) {
                *matchers.slot(role) = Some(matcher);
            }
        }
        out.insert(key, matchers);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// An instance type or preference defined in the repository.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecObject {
    pub key: ObjectKey,
    pub spec: Value,
    pub file: String,
    pub line: u32,
}

/// `revisionName` of a matcher as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Revision {
    Absent,
    /// `revisionName: ""`: clears a stored name on update.
    Empty,
    Named(String),
    /// Set, value not known (from the KV4001 finding, without inputs).
    Unknown,
}

/// A matcher as written.
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenMatcher {
    pub matcher: Matcher,
    pub revision: Revision,
}

/// A VM as written: the VirtualMachine, or a VirtualMachinePool.
#[derive(Clone, Debug, PartialEq)]
pub struct WrittenVm {
    pub kind: String,
    pub file: String,
    pub line: u32,
    /// The object without status and with only name, namespace, labels and annotations of its
    /// metadata, for comparison.
    pub object: Value,
    pub instancetype: Option<WrittenMatcher>,
    pub preference: Option<WrittenMatcher>,
}

impl WrittenVm {
    fn matcher(&self, role: MatcherRole) -> Option<&WrittenMatcher> {
        match role {
            MatcherRole::Instancetype => self.instancetype.as_ref(),
            MatcherRole::Preference => self.preference.as_ref(),
        }
    }
}

/// `vmRolloutStrategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Rollout {
    LiveUpdate,
    Stage,
}

impl Rollout {
    /// KubeVirt's default: `Stage` up to v1.5 (there was no choice before v1.2), `LiveUpdate`
    /// from v1.6 (api.md §11).
    pub fn default_for(version: KubeVirtVersion) -> Self {
        if version.at_least(1, 6) {
            Self::LiveUpdate
        } else {
            Self::Stage
        }
    }
}

impl fmt::Display for Rollout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::LiveUpdate => "LiveUpdate",
            Self::Stage => "Stage",
        })
    }
}

/// The live-update settings of a KubeVirt CR's `spec.configuration`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterSettings {
    pub rollout: Option<Rollout>,
    /// `liveUpdateConfiguration.maxHotplugRatio` (KubeVirt's default 4).
    pub max_hotplug_ratio: Option<u64>,
    /// `liveUpdateConfiguration.maxCpuSockets`.
    pub max_cpu_sockets: Option<u64>,
    /// `liveUpdateConfiguration.maxGuest`.
    pub max_guest: Option<String>,
}

impl ClusterSettings {
    /// Applies a `spec.configuration`.
    pub fn configure(&mut self, configuration: &Value) {
        match configuration
            .get("vmRolloutStrategy")
            .and_then(Value::as_str)
        {
            Some("LiveUpdate") => self.rollout = Some(Rollout::LiveUpdate),
            Some("Stage") => self.rollout = Some(Rollout::Stage),
            _ => {}
        }
        let live = configuration.get("liveUpdateConfiguration");
        let number = |key: &str| live.and_then(|l| l.get(key)).and_then(Value::as_u64);
        if let Some(ratio) = number("maxHotplugRatio") {
            self.max_hotplug_ratio = Some(ratio);
        }
        if let Some(sockets) = number("maxCpuSockets") {
            self.max_cpu_sockets = Some(sockets);
        }
        if let Some(guest) = live.and_then(|l| l.get("maxGuest")) {
            self.max_guest = match guest {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => self.max_guest.take(),
            };
        }
    }

    fn ratio(&self) -> u64 {
        self.max_hotplug_ratio.filter(|r| *r > 0).unwrap_or(4)
    }
}

/// What [`diff_with`] needs of a side beyond its report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    /// Instance types and preferences the repository defines, by identity.
    pub objects: BTreeMap<ObjectKey, SpecObject>,
    /// VMs as written.
    pub vms: BTreeMap<VmKey, WrittenVm>,
    /// From `.kvlint.yaml`'s `cluster:` and `KubeVirt` objects in the repository.
    pub cluster: ClusterSettings,
}

fn is_spec_kind(kind: &str) -> bool {
    matches!(
        kind,
        "VirtualMachineInstancetype"
            | "VirtualMachineClusterInstancetype"
            | "VirtualMachinePreference"
            | "VirtualMachineClusterPreference"
    )
}

fn written_matcher(spec: Option<&Value>, role: MatcherRole) -> Option<WrittenMatcher> {
    let value = spec?.get(role.field())?;
    let matcher = Matcher::from_json(value)?;
    let revision = match value.get("revisionName") {
        None | Some(Value::Null) => Revision::Absent,
        Some(Value::String(s)) if s.is_empty() => Revision::Empty,
        Some(Value::String(s)) => Revision::Named(s.clone()),
        Some(_) => Revision::Unknown,
    };
    Some(WrittenMatcher { matcher, revision })
}

/// Keeps what an update can change: no status, and of the metadata only name, namespace,
/// labels and annotations.
fn comparable(value: &Value) -> Value {
    let mut value = value.clone();
    if let Some(object) = value.as_object_mut() {
        object.remove("status");
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.retain(|key, _| {
                matches!(
                    key.as_str(),
                    "name" | "namespace" | "labels" | "annotations"
                )
            });
        }
    }
    value
}

impl Inputs {
    /// Collects the inputs from loaded objects; `cluster` is `.kvlint.yaml`'s `cluster:`.
    pub fn from_objects(objects: &[Object], cluster: Option<&Value>) -> Self {
        let mut inputs = Self::default();
        if let Some(configuration) = cluster {
            inputs.cluster.configure(configuration);
        }
        for object in objects {
            if object.group == crate::k8s::KUBEVIRT_GROUP && object.kind == "KubeVirt" {
                if let Some(configuration) =
                    object.node.get("spec").and_then(|s| s.get("configuration"))
                {
                    inputs.cluster.configure(&configuration.to_json());
                }
            } else if crate::cluster::hyperconverged::is_hyperconverged(object) {
                let (configuration, _) =
                    crate::cluster::hyperconverged::kubevirt_configuration(&object.node.to_json());
                inputs.cluster.configure(&configuration);
            } else if object.group == crate::k8s::INSTANCETYPE_GROUP && is_spec_kind(&object.kind) {
                let key = ObjectKey {
                    kind: object.kind.clone(),
                    namespace: if object.kind.contains("Cluster") {
                        None
                    } else {
                        object.namespace.clone()
                    },
                    name: object.name.clone(),
                };
                let spec = object
                    .node
                    .get("spec")
                    .map_or(Value::Null, crate::yaml::Node::to_json);
                inputs.objects.entry(key.clone()).or_insert(SpecObject {
                    key,
                    spec,
                    file: object.file.to_string(),
                    line: object.node.span.start.line,
                });
            } else if crate::check::vm::is_vm(object) {
                let json = object.node.to_json();
                let spec = vm_spec(&json, &object.kind);
                let vm = WrittenVm {
                    kind: object.kind.clone(),
                    file: object.file.to_string(),
                    line: object.node.span.start.line,
                    instancetype: written_matcher(spec, MatcherRole::Instancetype),
                    preference: written_matcher(spec, MatcherRole::Preference),
                    object: comparable(&json),
                };
                let key = VmKey::new(object.namespace.clone().unwrap_or_default(), &object.name);
                inputs.vms.entry(key).or_insert(vm);
            }
        }
        inputs
    }

    /// Renames file names that start with `from` (see [`relabel`]).
    pub fn relabel(&mut self, from: &str, to: &str) {
        let rename = |file: &mut String| {
            if let Some(renamed) = renamed(file, from, to) {
                *file = renamed;
            }
        };
        for object in self.objects.values_mut() {
            rename(&mut object.file);
        }
        for vm in self.vms.values_mut() {
            rename(&mut vm.file);
        }
    }
}

/// `file` with its prefix `from` replaced by `to`; `None` when it does not start with `from`.
fn renamed(file: &str, from: &str, to: &str) -> Option<String> {
    file.strip_prefix(from).map(|rest| format!("{to}{rest}"))
}

/// Reads a side's [`Inputs`] with the options its `check::run` used (paths, include/exclude
/// and namespace, merged with the configuration file as `check::run` does).
pub fn load_inputs(options: &Options) -> Result<Inputs, Error> {
    let config = side_config(options)?;
    let mut selection = options.selection.clone();
    selection.include.extend(config.include.iter().cloned());
    selection.exclude.extend(config.exclude.iter().cloned());
    let files = crate::source::discover(&selection)?;
    Ok(inputs_of(options, &config, &files))
}

/// Like [`load_inputs`], for files already listed (a git revision's, read into memory).
pub fn load_inputs_from(
    options: &Options,
    files: &[crate::source::Input],
) -> Result<Inputs, Error> {
    Ok(inputs_of(options, &side_config(options)?, files))
}

fn side_config(options: &Options) -> Result<crate::config::Config, Error> {
    let start = options
        .selection
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    crate::config::load(&options.config, &start)
}

fn inputs_of(
    options: &Options,
    config: &crate::config::Config,
    files: &[crate::source::Input],
) -> Inputs {
    let namespace = options
        .default_namespace
        .clone()
        .or_else(|| config.namespace.clone())
        .unwrap_or_else(|| "default".to_owned());
    let loaded = crate::load::load(
        files,
        &crate::load::LoadOptions {
            default_namespace: namespace,
            ..crate::load::LoadOptions::default()
        },
    );
    Inputs::from_objects(&loaded.objects, config.cluster.as_ref())
}

/// Renames the files of a report that start with `from` to start with `to`: a side read from
/// another directory then carries the file names of the other side, so that its findings
/// compare and print as the same files.
pub fn relabel(report: &mut Report, from: &str, to: &str) {
    if from.is_empty() {
        return;
    }
    let rename = |file: &mut Arc<str>| {
        if let Some(renamed) = renamed(file, from, to) {
            *file = Arc::from(renamed);
        }
    };
    for finding in &mut report.findings {
        rename(&mut finding.location.file);
        for related in &mut finding.related {
            rename(&mut related.location.file);
        }
    }
    let marker = format!(" from {from}");
    for rendered in &mut report.rendered {
        rename(&mut rendered.file);
        for origin in &mut rendered.origins {
            if origin.contains(&marker) {
                *origin = origin.replacen(&marker, &format!(" from {to}"), 1);
            }
        }
    }
    for (name, _) in &mut report.sources {
        rename(name);
    }
}

// ---------------------------------------------------------------------------------------------
// The outcome

/// How a VM differs between the sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VmStatus {
    Added,
    Removed,
    Changed,
    Unchanged,
}

impl fmt::Display for VmStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Added => "added",
            Self::Removed => "removed",
            Self::Changed => "changed",
            Self::Unchanged => "unchanged",
        })
    }
}

/// What KubeVirt does with the change, ordered from harmless to refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffectKind {
    /// Nothing changes.
    None,
    /// The VM manifest is unchanged; only an instance type or preference it uses changed,
    /// which an existing VM does not see.
    KeepsRevision,
    /// The VM object changes, the template spec does not.
    NoRestart,
    /// The VM is not running; the change applies when it starts.
    AppliedAtStart,
    /// Applied to the running VM (LiveUpdate).
    LiveUpdate,
    /// The VM gets the `RestartRequired` condition.
    RestartRequired,
    /// KubeVirt accepts the update; what the running VM gets is not known (the base side
    /// could not be rendered).
    Undetermined,
    /// A new VM.
    Created,
    /// The VM is no longer in the repository.
    Deleted,
    /// KubeVirt admits the VM but it cannot start (or render).
    CannotStart,
    /// KubeVirt refuses the update.
    Rejected,
}

/// What KubeVirt does with a VM's change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Effect {
    pub kind: EffectKind,
    /// One line: `applied live (LiveUpdate)`, `needs a restart (RestartRequired: ...)`,
    /// `rejected: ...`.
    pub message: String,
    pub details: Vec<String>,
}

impl Effect {
    fn new(kind: EffectKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            details: Vec::new(),
        }
    }

    fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    fn restart(reason: &str, details: Vec<String>) -> Self {
        Self::new(EffectKind::RestartRequired, restart_message(reason)).with_details(details)
    }

    fn none() -> Self {
        Self::new(EffectKind::None, "none")
    }
}

fn restart_message(reason: &str) -> String {
    format!("needs a restart (RestartRequired: {reason})")
}

/// Adds a part the running VM cannot take to `refused`: the first one gives the message.
fn refuse(refused: &mut Option<Effect>, message: String, detail: String) {
    match refused {
        Some(effect) => effect.details.push(detail),
        None => {
            *refused =
                Some(Effect::new(EffectKind::RestartRequired, message).with_details(vec![detail]));
        }
    }
}

/// A part of a VM the semantic summary speaks of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    Instancetype,
    Preference,
    Cpu,
    Memory,
    Gpus,
    HostDevices,
    Devices,
    Firmware,
    MachineType,
    Placement,
    Annotations,
    Labels,
    Other,
}

impl Aspect {
    /// The label in human output.
    pub fn label(self) -> &'static str {
        match self {
            Self::Instancetype => "instance type",
            Self::Preference => "preference",
            Self::Cpu => "vCPUs",
            Self::Memory => "memory",
            Self::Gpus => "GPUs",
            Self::HostDevices => "host devices",
            Self::Devices => "devices",
            Self::Firmware => "firmware",
            Self::MachineType => "machine type",
            Self::Placement => "node placement",
            Self::Annotations => "annotations",
            Self::Labels => "labels",
            Self::Other => "other",
        }
    }
}

/// One field that differs (paths in Kubernetes notation: `spec.template.spec.domain.cpu.sockets`,
/// `volumes[0]`, `annotations[example.com/key]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    pub path: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// One line of the semantic summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub aspect: Aspect,
    pub summary: String,
    pub fields: Vec<FieldChange>,
}

/// Where a VM is defined on one side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    pub file: String,
    pub line: u32,
}

/// One VM across the sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmDiff {
    pub namespace: String,
    pub name: String,
    pub kind: String,
    pub status: VmStatus,
    pub base: Option<Place>,
    pub head: Option<Place>,
    pub base_matchers: VmMatchers,
    pub head_matchers: VmMatchers,
    pub changes: Vec<Change>,
    pub effect: Effect,
    pub notes: Vec<String>,
    /// Unified diff of the rendered YAML (`a/<ns>/<name>`, `b/<ns>/<name>`; an added VM against
    /// `/dev/null`); of the manifests as written when a side has no rendering (`a/<ns>/<name> (as
    /// written)`); empty for unchanged and removed VMs.
    pub diff: String,
}

impl VmDiff {
    pub fn key(&self) -> VmKey {
        VmKey::new(&self.namespace, &self.name)
    }

    /// `file:line` of the head side, else of the base side.
    fn place(&self) -> String {
        place_text(self.head.as_ref().or(self.base.as_ref()))
    }
}

/// How a user relates to a changed instance type or preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Relation {
    /// Added by this change: created with the new values.
    NewVm,
    /// Switches to the object in this change: gets the new values.
    Switches,
    /// Used it before: keeps its stored ControllerRevision.
    KeepsRevision,
}

/// A VM of the head side that uses a changed object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ObjectUser {
    pub namespace: String,
    pub name: String,
    pub relation: Relation,
}

impl ObjectUser {
    pub fn key(&self) -> VmKey {
        VmKey::new(&self.namespace, &self.name)
    }
}

/// An instance type or preference across the sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObjectDiff {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub status: VmStatus,
    pub file: String,
    pub line: u32,
    pub fields: Vec<FieldChange>,
    pub used_by: Vec<ObjectUser>,
    pub note: String,
    /// Unified diff of the spec's YAML.
    pub diff: String,
}

impl ObjectDiff {
    pub fn key(&self) -> ObjectKey {
        ObjectKey {
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }
}

/// A finding, as the diff reports it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct DiffFinding {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub category: Category,
    pub message: String,
    pub file: String,
    pub line: u32,
    pub object: Option<ObjectRef>,
    pub path: Option<String>,
}

impl DiffFinding {
    fn of(finding: &Finding) -> Self {
        Self {
            code: finding.rule.code,
            name: finding.rule.name,
            severity: finding.severity,
            category: finding.rule.category,
            message: finding.message.clone(),
            file: finding.location.file.to_string(),
            line: finding.location.span.start.line,
            object: finding.object.clone(),
            path: finding.path.clone(),
        }
    }

    fn subject(&self) -> String {
        match &self.object {
            Some(object) => match &object.namespace {
                Some(namespace) => format!("{} {namespace}/{}", object.kind, object.name),
                None => format!("{} {}", object.kind, object.name),
            },
            None => String::new(),
        }
    }
}

/// Counts of the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub unchanged: usize,
    pub rejected: usize,
    pub restart_required: usize,
    pub live_update: usize,
    /// Instance types and preferences added, removed or changed.
    pub objects: usize,
    pub introduced: usize,
    pub fixed: usize,
}

/// The comparison of two sides.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub assumptions: Vec<String>,
    pub rollout: Rollout,
    /// The KubeVirt release the head side was judged against (`v1.9`).
    pub kubevirt_version: String,
    pub counts: Counts,
    /// Every VM of either side, sorted by namespace and name.
    pub vms: Vec<VmDiff>,
    /// Instance types and preferences of the repository that differ (with inputs only).
    pub objects: Vec<ObjectDiff>,
    /// Findings of the head side that the base side does not have.
    pub introduced: Vec<DiffFinding>,
    /// Findings of the base side that the head side no longer has.
    pub fixed: Vec<DiffFinding>,
}

impl Diff {
    /// Renames the base side's files that start with `from` to start with `to`: undoes, for
    /// display, the renaming of a base directory to the head's names that made findings
    /// comparable (`kvlint diff old/ new/` shows a removed VM in `old/`, where it is).
    pub fn relabel_base(&mut self, from: &str, to: &str) {
        let rename = |file: &mut String| {
            if let Some(renamed) = renamed(file, from, to) {
                *file = renamed;
            }
        };
        for vm in &mut self.vms {
            if let Some(place) = &mut vm.base {
                rename(&mut place.file);
            }
        }
        for object in &mut self.objects {
            if object.status == VmStatus::Removed {
                rename(&mut object.file);
            }
        }
        for finding in &mut self.fixed {
            rename(&mut finding.file);
        }
    }

    /// Whether the change should fail a check: a change KubeVirt rejects, or an introduced
    /// finding at or above `threshold` (`None`: never).
    pub fn fails(&self, threshold: Option<Severity>) -> bool {
        let Some(threshold) = threshold else {
            return false;
        };
        self.vms
            .iter()
            .any(|vm| vm.effect.kind == EffectKind::Rejected)
            || self.introduced.iter().any(|f| f.severity >= threshold)
    }
}

// ---------------------------------------------------------------------------------------------
// Field changes

fn join_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key}]"),
    }
}

fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

fn collect_changes(path: &str, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<FieldChange>) {
    // An object or list on one side only is listed by its leaves.
    let empty_object = Value::Object(Map::new());
    let empty_array = Value::Array(Vec::new());
    let stand_in = |other: Option<&Value>| match other {
        Some(Value::Object(map)) if !map.is_empty() => Some(&empty_object),
        Some(Value::Array(items)) if !items.is_empty() => Some(&empty_array),
        _ => None,
    };
    let (a, b) = (present(a), present(b));
    let (a, b) = (a.or_else(|| stand_in(b)), b.or_else(|| stand_in(a)));
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                collect_changes(&join_key(path, key), x.get(key), y.get(key), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                collect_changes(&format!("{path}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(FieldChange {
            path: path.to_owned(),
            before: a.cloned(),
            after: b.cloned(),
        }),
    }
}

/// The fields that differ between two values, sorted by path.
pub fn field_changes(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    collect_changes("", Some(before), Some(after), &mut out);
    out
}

fn short(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return "(none)".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(80).collect();
    if chars.next().is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn describe(change: &FieldChange, strip: &str) -> String {
    let path = change
        .path
        .strip_prefix(strip)
        .map_or(change.path.as_str(), |p| p.trim_start_matches('.'));
    format!(
        "{path} {} → {}",
        short(change.before.as_ref()),
        short(change.after.as_ref())
    )
}

/// One line per field that differs.
fn field_lines(before: &Value, after: &Value) -> Vec<String> {
    field_changes(before, after)
        .iter()
        .map(|f| describe(f, ""))
        .collect()
}

/// `rest` starts with the segment `segment` (followed by nothing, `.` or `[`).
fn starts_with_segment(rest: &str, segment: &str) -> bool {
    rest.strip_prefix(segment)
        .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
}

fn under<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(rest)
    } else if let Some(r) = rest.strip_prefix('.') {
        Some(r)
    } else if rest.starts_with('[') {
        Some(rest)
    } else {
        None
    }
}

/// Paths of the VM spec inside a rendered object.
struct Prefixes {
    vm: String,
    template: String,
    domain: String,
}

/// The VM spec of a VirtualMachine, or of a VirtualMachinePool's VM template.
fn vm_spec<'v>(object: &'v Value, kind: &str) -> Option<&'v Value> {
    object.pointer(&pointer_of(&Prefixes::for_kind(kind).vm))
}

impl Prefixes {
    fn for_kind(kind: &str) -> Self {
        let vm = if kind == "VirtualMachinePool" {
            "spec.virtualMachineTemplate.spec"
        } else {
            "spec"
        };
        Self {
            vm: vm.to_owned(),
            template: format!("{vm}.template.spec"),
            domain: format!("{vm}.template.spec.domain"),
        }
    }

    fn aspect(&self, path: &str) -> Aspect {
        if let Some(rest) = under(path, &self.domain) {
            let seg = |s| starts_with_segment(rest, s);
            return if seg("cpu") || (seg("resources") && rest.contains("cpu")) {
                Aspect::Cpu
            } else if seg("memory") || seg("resources") {
                Aspect::Memory
            } else if seg("devices.gpus") {
                Aspect::Gpus
            } else if seg("devices.hostDevices") {
                Aspect::HostDevices
            } else if seg("devices") {
                Aspect::Devices
            } else if seg("firmware") {
                Aspect::Firmware
            } else if seg("machine") {
                Aspect::MachineType
            } else {
                Aspect::Other
            };
        }
        if let Some(rest) = under(path, &self.template)
            && ["nodeSelector", "affinity", "tolerations", "schedulerName"]
                .iter()
                .any(|s| starts_with_segment(rest, s))
        {
            return Aspect::Placement;
        }
        let template_metadata = format!("{}.template.metadata", self.vm);
        for metadata in ["metadata", template_metadata.as_str()] {
            if let Some(rest) = under(path, metadata) {
                if starts_with_segment(rest, "labels") {
                    return Aspect::Labels;
                }
                if starts_with_segment(rest, "annotations") || rest.is_empty() {
                    return Aspect::Annotations;
                }
            }
        }
        Aspect::Other
    }
}

// ---------------------------------------------------------------------------------------------
// Semantic summary

fn at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter()
        .try_fold(value, |node, key| node.get(key))
        .filter(|v| !v.is_null())
}

fn text_at(value: &Value, path: &[&str]) -> Option<String> {
    at(value, path).map(|v| short(Some(v)))
}

fn count(value: Option<&Value>, default: u64) -> u64 {
    value.and_then(Value::as_u64).unwrap_or(default)
}

#[derive(Clone, Copy, PartialEq, Eq)]
struct Topology {
    sockets: u64,
    cores: u64,
    threads: u64,
}

impl Topology {
    fn of(domain: &Value) -> Self {
        let cpu = domain.get("cpu");
        Self {
            sockets: count(cpu.and_then(|c| c.get("sockets")), 1),
            cores: count(cpu.and_then(|c| c.get("cores")), 1),
            threads: count(cpu.and_then(|c| c.get("threads")), 1),
        }
    }

    fn vcpus(self) -> u64 {
        self.sockets * self.cores * self.threads
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}×{}", self.sockets, self.cores, self.threads)
    }
}

fn arrow(before: &str, after: &str) -> String {
    if before == after {
        before.to_owned()
    } else {
        format!("{before} → {after}")
    }
}

fn opt_arrow(before: Option<&str>, after: Option<&str>) -> Option<String> {
    (before != after).then(|| arrow(before.unwrap_or("(none)"), after.unwrap_or("(none)")))
}

fn list_of(items: Option<&Value>, describe: fn(&Value) -> String) -> String {
    let items: Vec<String> = items
        .and_then(Value::as_array)
        .map(|items| items.iter().map(describe).collect())
        .unwrap_or_default();
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

fn device_item(device: &Value) -> String {
    let name = text_at(device, &["name"]).unwrap_or_default();
    match text_at(device, &["deviceName"]) {
        Some(dev) => format!("{name} ({dev})"),
        None => name,
    }
}

fn disk_item(disk: &Value) -> String {
    let name = text_at(disk, &["name"]).unwrap_or_default();
    for kind in ["disk", "cdrom", "lun"] {
        if let Some(target) = disk.get(kind) {
            let bus = text_at(target, &["bus"]);
            return match (kind, bus) {
                ("disk", Some(bus)) => format!("{name} ({bus})"),
                ("disk", None) => name,
                (kind, Some(bus)) => format!("{name} ({kind}, {bus})"),
                (kind, None) => format!("{name} ({kind})"),
            };
        }
    }
    name
}

fn interface_item(interface: &Value) -> String {
    let name = text_at(interface, &["name"]).unwrap_or_default();
    let binding = text_at(interface, &["binding", "name"]).or_else(|| {
        ["bridge", "masquerade", "sriov", "slirp", "macvtap", "passt"]
            .iter()
            .find(|k| interface.get(**k).is_some())
            .map(|k| (*k).to_owned())
    });
    let mut parts = Vec::new();
    if let Some(model) = text_at(interface, &["model"]) {
        parts.push(model);
    }
    if let Some(binding) = binding {
        parts.push(binding);
    }
    if parts.is_empty() {
        name
    } else {
        format!("{name} ({})", parts.join(", "))
    }
}

fn toleration_item(toleration: &Value) -> String {
    let key = text_at(toleration, &["key"]).unwrap_or_else(|| "*".to_owned());
    let mut text = match text_at(toleration, &["value"]) {
        Some(value) => format!("{key}={value}"),
        None => key,
    };
    if let Some(effect) = text_at(toleration, &["effect"]) {
        let _ = write!(text, ":{effect}");
    }
    text
}

fn map_text(map: Option<&Value>) -> String {
    match map.and_then(Value::as_object) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| format!("{k}={}", short(Some(v))))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "none".to_owned(),
    }
}

fn bootloader(domain: &Value) -> String {
    let Some(loader) = at(domain, &["firmware", "bootloader"]) else {
        return "default (BIOS)".to_owned();
    };
    if let Some(efi) = loader.get("efi") {
        let mut text = "EFI".to_owned();
        match efi.get("secureBoot").and_then(Value::as_bool) {
            Some(false) => text.push_str(" without secure boot"),
            _ => text.push_str(" with secure boot"),
        }
        if efi.get("persistent").and_then(Value::as_bool) == Some(true) {
            text.push_str(", persistent");
        }
        text
    } else if loader.get("bios").is_some() {
        "BIOS".to_owned()
    } else {
        short(Some(loader))
    }
}

/// Added, removed and changed keys of a string map, `prefix` before each.
fn map_changes(before: Option<&Value>, after: Option<&Value>, prefix: &str, out: &mut Vec<String>) {
    let empty = Map::new();
    let before = before.and_then(Value::as_object).unwrap_or(&empty);
    let after = after.and_then(Value::as_object).unwrap_or(&empty);
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in keys {
        match (before.get(key), after.get(key)) {
            (None, Some(v)) => out.push(format!("{prefix}+{key}={}", short(Some(v)))),
            (Some(_), None) => out.push(format!("{prefix}-{key}")),
            (Some(a), Some(b)) if a != b => out.push(format!(
                "{prefix}{key}: {} → {}",
                short(Some(a)),
                short(Some(b))
            )),
            _ => {}
        }
    }
}

/// The memory fields the summary names (label, path in the domain).
const MEMORY_FIELDS: [(&str, &str); 5] = [
    ("guest", "memory.guest"),
    ("maxGuest", "memory.maxGuest"),
    ("hugepages", "memory.hugepages.pageSize"),
    ("requests.memory", "resources.requests.memory"),
    ("limits.memory", "resources.limits.memory"),
];

struct SummaryInput<'a> {
    base: &'a Value,
    head: &'a Value,
    prefixes: &'a Prefixes,
}

impl SummaryInput<'_> {
    fn domain(&self, value: &Value) -> Value {
        section(value, &self.prefixes.domain)
    }

    fn template(&self, value: &Value) -> Value {
        section(value, &self.prefixes.template)
    }

    /// The headline of an aspect, from the values; the fields it explains are not repeated.
    fn headline(&self, aspect: Aspect) -> (Vec<String>, fn(&str) -> bool) {
        let (bd, hd) = (self.domain(self.base), self.domain(self.head));
        let (bt, ht) = (self.template(self.base), self.template(self.head));
        let mut parts = Vec::new();
        match aspect {
            Aspect::Cpu => {
                let (b, h) = (Topology::of(&bd), Topology::of(&hd));
                if b != h {
                    parts.push(format!(
                        "{} (sockets×cores×threads {})",
                        arrow(&b.vcpus().to_string(), &h.vcpus().to_string()),
                        arrow(&b.to_string(), &h.to_string())
                    ));
                }
                (parts, |rest| {
                    ["cpu.sockets", "cpu.cores", "cpu.threads"]
                        .iter()
                        .any(|s| starts_with_segment(rest, s))
                })
            }
            Aspect::Memory => {
                for (label, path) in MEMORY_FIELDS {
                    let path: Vec<&str> = path.split('.').collect();
                    if let Some(change) = opt_arrow(
                        text_at(&bd, &path).as_deref(),
                        text_at(&hd, &path).as_deref(),
                    ) {
                        parts.push(format!("{label} {change}"));
                    }
                }
                (parts, |rest| {
                    MEMORY_FIELDS
                        .iter()
                        .any(|(_, path)| starts_with_segment(rest, path))
                })
            }
            Aspect::Gpus | Aspect::HostDevices => {
                let key = if aspect == Aspect::Gpus {
                    "gpus"
                } else {
                    "hostDevices"
                };
                let b = list_of(at(&bd, &["devices", key]), device_item);
                let h = list_of(at(&hd, &["devices", key]), device_item);
                if b != h {
                    parts.push(arrow(&b, &h));
                }
                (parts, |_| true)
            }
            Aspect::Devices => {
                let mut listed = [false; 2];
                for (i, (label, key, item)) in [
                    ("disks", "disks", disk_item as fn(&Value) -> String),
                    ("interfaces", "interfaces", interface_item),
                ]
                .into_iter()
                .enumerate()
                {
                    let (bv, hv) = (at(&bd, &["devices", key]), at(&hd, &["devices", key]));
                    let (bl, hl) = (list_of(bv, item), list_of(hv, item));
                    // Same names and buses: the fields that differ say more than the list.
                    if bl != hl {
                        let n = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, Vec::len);
                        parts.push(format!(
                            "{label} {}: {}",
                            arrow(&n(bv).to_string(), &n(hv).to_string()),
                            arrow(&bl, &hl)
                        ));
                        listed[i] = true;
                    }
                }
                let explained: fn(&str) -> bool = match listed {
                    [true, true] => |rest| {
                        starts_with_segment(rest, "devices.disks")
                            || starts_with_segment(rest, "devices.interfaces")
                    },
                    [true, false] => |rest| starts_with_segment(rest, "devices.disks"),
                    [false, true] => |rest| starts_with_segment(rest, "devices.interfaces"),
                    [false, false] => |_| false,
                };
                (parts, explained)
            }
            Aspect::Firmware => {
                let (b, h) = (bootloader(&bd), bootloader(&hd));
                if b != h {
                    parts.push(format!("bootloader {}", arrow(&b, &h)));
                }
                (parts, |rest| {
                    starts_with_segment(rest, "firmware.bootloader")
                })
            }
            Aspect::MachineType => {
                let path = &["machine", "type"][..];
                if let Some(change) =
                    opt_arrow(text_at(&bd, path).as_deref(), text_at(&hd, path).as_deref())
                {
                    parts.push(change);
                }
                (parts, |rest| starts_with_segment(rest, "machine.type"))
            }
            Aspect::Placement => {
                let (bs, hs) = (
                    map_text(bt.get("nodeSelector")),
                    map_text(ht.get("nodeSelector")),
                );
                if bs != hs {
                    parts.push(format!("nodeSelector {}", arrow(&bs, &hs)));
                }
                let (ba, ha) = (present(bt.get("affinity")), present(ht.get("affinity")));
                if ba != ha {
                    parts.push(
                        match (ba, ha) {
                            (None, Some(_)) => "affinity added",
                            (Some(_), None) => "affinity removed",
                            _ => "affinity changed",
                        }
                        .to_owned(),
                    );
                }
                let b = list_of(bt.get("tolerations"), toleration_item);
                let h = list_of(ht.get("tolerations"), toleration_item);
                if b != h {
                    parts.push(format!("tolerations {}", arrow(&b, &h)));
                }
                (parts, |rest| {
                    ["nodeSelector", "affinity", "tolerations"]
                        .iter()
                        .any(|s| starts_with_segment(rest, s))
                })
            }
            Aspect::Annotations | Aspect::Labels => {
                let key = if aspect == Aspect::Labels {
                    "labels"
                } else {
                    "annotations"
                };
                map_changes(
                    at(self.base, &["metadata", key]),
                    at(self.head, &["metadata", key]),
                    "",
                    &mut parts,
                );
                let template = pointer_of(&format!("{}.template.metadata.{key}", self.prefixes.vm));
                map_changes(
                    self.base.pointer(&template),
                    self.head.pointer(&template),
                    "template: ",
                    &mut parts,
                );
                (parts, |_| true)
            }
            Aspect::Instancetype | Aspect::Preference | Aspect::Other => (parts, |_| false),
        }
    }
}

/// The value at a dotted path (a copy), or null.
fn section(value: &Value, path: &str) -> Value {
    value
        .pointer(&pointer_of(path))
        .cloned()
        .unwrap_or(Value::Null)
}

fn pointer_of(path: &str) -> String {
    let mut pointer = String::new();
    for segment in path.split('.') {
        pointer.push('/');
        pointer.push_str(segment);
    }
    pointer
}

fn matcher_text(matcher: Option<&MatcherRef>) -> String {
    matcher.map_or_else(|| "(none)".to_owned(), |m| m.name.clone())
}

fn matcher_change(role: MatcherRole, base: &VmMatchers, head: &VmMatchers) -> Option<Change> {
    let (b, h) = (base.get(role), head.get(role));
    if b == h {
        return None;
    }
    let summary = match (b, h) {
        (Some(b), Some(h)) if b.kind != h.kind => {
            format!("{} {} → {} {}", b.kind, b.name, h.kind, h.name)
        }
        _ => arrow(&matcher_text(b), &matcher_text(h)),
    };
    Some(Change {
        aspect: match role {
            MatcherRole::Instancetype => Aspect::Instancetype,
            MatcherRole::Preference => Aspect::Preference,
        },
        summary,
        fields: Vec::new(),
    })
}

fn matcher_changes(base: &VmMatchers, head: &VmMatchers) -> Vec<Change> {
    ROLES
        .iter()
        .filter_map(|role| matcher_change(*role, base, head))
        .collect()
}

/// The semantic summary of a changed VM.
fn summarise(
    base: &Value,
    head: &Value,
    kind: &str,
    base_matchers: &VmMatchers,
    head_matchers: &VmMatchers,
) -> Vec<Change> {
    let prefixes = Prefixes::for_kind(kind);
    let mut changes = matcher_changes(base_matchers, head_matchers);
    let mut by_aspect: BTreeMap<Aspect, Vec<FieldChange>> = BTreeMap::new();
    for field in field_changes(base, head) {
        by_aspect
            .entry(prefixes.aspect(&field.path))
            .or_default()
            .push(field);
    }
    let input = SummaryInput {
        base,
        head,
        prefixes: &prefixes,
    };
    for (aspect, fields) in by_aspect {
        let (mut parts, explained) = input.headline(aspect);
        // A headline that says nothing explains no field.
        let explained: fn(&str) -> bool = if parts.is_empty() {
            |_| false
        } else {
            explained
        };
        let strip = match aspect {
            Aspect::Placement | Aspect::Other => prefixes.template.as_str(),
            _ => prefixes.domain.as_str(),
        };
        let rest: Vec<&FieldChange> = fields
            .iter()
            .filter(|f| {
                let relative = under(&f.path, strip).unwrap_or(&f.path);
                !explained(relative)
            })
            .collect();
        let limit = if aspect == Aspect::Other {
            OTHER_FIELDS
        } else {
            usize::MAX
        };
        for field in rest.iter().take(limit) {
            parts.push(describe(field, strip));
        }
        if rest.len() > limit {
            parts.push(format!("and {} more", rest.len() - limit));
        }
        if parts.is_empty() {
            continue;
        }
        changes.push(Change {
            aspect,
            summary: parts.join("; "),
            fields,
        });
    }
    changes
}

// ---------------------------------------------------------------------------------------------
// What KubeVirt does

fn quantity(value: Option<&Value>) -> Option<Quantity> {
    value.and_then(|v| Quantity::from_json(v).ok())
}

fn bytes_text(bytes: i64) -> String {
    Quantity::from_i64(bytes, Format::BinarySI).canonical()
}

fn set_pointer(root: &mut Value, pointer: &str, value: Option<Value>) {
    let mut segments: Vec<&str> = pointer.split('/').skip(1).collect();
    let Some(last) = segments.pop() else {
        return;
    };
    let mut node = root;
    for segment in segments {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let Some(object) = node.as_object_mut() else {
            return;
        };
        node = object
            .entry(segment.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    if let Some(object) = node.as_object_mut() {
        match value {
            Some(value) => {
                object.insert(last.to_owned(), value);
            }
            None => {
                object.remove(last);
            }
        }
    }
}

/// Drops nulls and empty lists, which Go's semantic equality does not tell from absent ones.
fn without_empty(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null() && !v.as_array().is_some_and(Vec::is_empty))
                .map(|(k, v)| (k.clone(), without_empty(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty).collect()),
        other => other.clone(),
    }
}

fn named(items: Option<&Value>) -> BTreeMap<String, &Value> {
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| Some((item.get("name")?.as_str()?.to_owned(), item)))
                .collect()
        })
        .unwrap_or_default()
}

fn is_hotplug_volume(volume: &Value) -> bool {
    ["persistentVolumeClaim", "dataVolume"].iter().any(|kind| {
        volume
            .get(*kind)
            .and_then(|v| v.get("hotpluggable"))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// KubeVirt's `validLiveUpdateVolumes`: only hotpluggable volumes were added, removed or
/// changed (or PVC/DataVolume volumes with `updateVolumesStrategy: Migration`).
fn volumes_live(last: &Value, current: &Value, migration: bool) -> bool {
    let mut old = named(last.get("volumes"));
    for (name, volume) in named(current.get("volumes")) {
        let previous = old.remove(&name);
        let storage =
            volume.get("persistentVolumeClaim").is_some() || volume.get("dataVolume").is_some();
        if is_hotplug_volume(volume) || (storage && migration && previous.is_some()) {
            continue;
        }
        match previous {
            Some(previous) if previous == volume => {}
            _ => return false,
        }
    }
    old.values().all(|v| is_hotplug_volume(v))
}

/// KubeVirt's `validLiveUpdateDisks`.
fn disks_live(last: &Value, current: &Value) -> bool {
    let disks = |spec: &Value| spec.pointer("/domain/devices/disks").cloned();
    let (old_disks, new_disks) = (disks(last), disks(current));
    let mut old = named(old_disks.as_ref());
    let new = named(new_disks.as_ref());
    let old_volumes = named(last.get("volumes"));
    let volumes = named(current.get("volumes"));
    for (name, disk) in &new {
        let previous = old.remove(name);
        if volumes.get(name).is_some_and(|v| is_hotplug_volume(v)) {
            continue;
        }
        match previous {
            Some(previous) if previous == *disk => {}
            _ => return false,
        }
    }
    old.iter().all(|(name, disk)| {
        let hotplug = old_volumes.get(name).is_none_or(|v| is_hotplug_volume(v));
        hotplug && (disk.get("cdrom").is_none() || new.contains_key(name))
    })
}

/// The architecture of a rendered template (`amd64` when it sets none).
fn architecture_of(template: &Value) -> String {
    text_at(template, &["architecture"]).unwrap_or_else(|| "amd64".to_owned())
}

/// Why memory hotplug is off, in the words of the diff.
fn hotplug_off_reason(unsupported: Unsupported, architecture: &str) -> String {
    match unsupported {
        Unsupported::Realtime => "realtime VMs".to_owned(),
        Unsupported::GuestMappingPassthrough => "guest mapping passthrough".to_owned(),
        Unsupported::LaunchSecurity => "encrypted VMs (launchSecurity)".to_owned(),
        Unsupported::NoGuestMemory => "no guest memory is set".to_owned(),
        Unsupported::NoMaxGuest => "no maxGuest".to_owned(),
        Unsupported::GuestAboveMaxGuest => "guest memory above maxGuest".to_owned(),
        Unsupported::GuestNotAligned { alignment }
        | Unsupported::MaxGuestNotAligned { alignment } => format!(
            "guest memory or maxGuest not aligned to {}",
            bytes_text(alignment)
        ),
        Unsupported::Architecture { .. } => format!("architecture {architecture}"),
        Unsupported::BelowMinimumGuest => "less than 1Gi of guest memory".to_owned(),
    }
}

/// KubeVirt's `setupMemoryHotplug` for a VMI started from `template`: its `maxGuest` and where
/// that comes from, else why memory hotplug is off. From v1.6 no hotplug is set up for arm64
/// VMIs; from v1.3 a computed `maxGuest` is set only when `ValidateLiveUpdateMemory` accepts it.
fn memory_hotplug(
    template: &Value,
    settings: &ClusterSettings,
    version: KubeVirtVersion,
) -> Result<(Quantity, String), String> {
    let domain = template.get("domain").unwrap_or(&Value::Null);
    let guest = quantity(at(domain, &["memory", "guest"]))
        .ok_or_else(|| "no guest memory is set".to_owned())?;
    if let Some(explicit) = quantity(at(domain, &["memory", "maxGuest"])) {
        return Ok((explicit, EXPLICIT_LIMIT.to_owned()));
    }
    let architecture = architecture_of(template);
    if version.at_least(1, 6) && architecture == "arm64" {
        return Err(format!("architecture {architecture}"));
    }
    let (max_guest, source) =
        if let Some(Ok(max)) = settings.max_guest.as_deref().map(Quantity::parse) {
            (max, "the cluster's maxGuest".to_owned())
        } else {
            let ratio = settings.ratio();
            let bytes = guest
                .value()
                .saturating_mul(i64::try_from(ratio).unwrap_or(4));
            (
                Quantity::from_i64(bytes, Format::BinarySI),
                format!("{ratio} × the base guest memory"),
            )
        };
    if version.at_least(1, 3) {
        validate_live_update_memory(template, &architecture, Some(&max_guest), version)
            .map_err(|unsupported| hotplug_off_reason(unsupported, &architecture))?;
    }
    Ok((max_guest, source))
}

/// KubeVirt's `setupCPUHotplug`: the maximum number of sockets of a VM started from `template`.
fn max_sockets(template: &Value, settings: &ClusterSettings) -> (u64, String) {
    let domain = template.get("domain").unwrap_or(&Value::Null);
    if let Some(explicit) = at(domain, &["cpu", "maxSockets"])
        .and_then(Value::as_u64)
        .filter(|m| *m > 0)
    {
        return (explicit, EXPLICIT_LIMIT.to_owned());
    }
    let topology = Topology::of(domain);
    if let Some(max) = settings.max_cpu_sockets.filter(|m| *m > 0) {
        return (
            max.max(topology.sockets),
            "the cluster's maxCpuSockets".to_owned(),
        );
    }
    let ratio = settings.ratio();
    let mut max = topology.sockets * ratio;
    let per_socket = (topology.cores * topology.threads).max(1);
    if max * per_socket > 512 {
        max = (512 / per_socket).max(topology.sockets);
    }
    (max, format!("{ratio} × the base sockets"))
}

/// What the VM controller does when the template spec of a running VM changes from `last`
/// to `current` (`syncRestartRequired` and the CPU and memory hotplug handlers).
fn template_effect(
    last: &Value,
    current: &Value,
    rollout: Rollout,
    settings: &ClusterSettings,
    volume_migration: bool,
    version: KubeVirtVersion,
) -> Option<Effect> {
    let (base, head) = (without_empty(last), without_empty(current));
    if base == head {
        return None;
    }
    if rollout == Rollout::Stage {
        return Some(Effect::restart(
            NON_LIVE_UPDATABLE,
            field_lines(&base, &head),
        ));
    }
    let mut seen = base.clone();
    let mut live = Vec::new();
    if volumes_live(&seen, &head, volume_migration) {
        if seen.get("volumes") != head.get("volumes") {
            live.push("hotpluggable volumes attached or detached".to_owned());
        }
        set_pointer(&mut seen, "/volumes", head.get("volumes").cloned());
    }
    if disks_live(&seen, &head) {
        set_pointer(
            &mut seen,
            "/domain/devices/disks",
            head.pointer("/domain/devices/disks").cloned(),
        );
    }
    if seen.pointer("/domain/cpu").is_some() && head.pointer("/domain/cpu").is_some() {
        set_pointer(
            &mut seen,
            "/domain/cpu/sockets",
            head.pointer("/domain/cpu/sockets").cloned(),
        );
    }
    if let Some(guest) = head.pointer("/domain/memory/guest") {
        set_pointer(&mut seen, "/domain/memory/guest", Some(guest.clone()));
    }
    let mut placement = false;
    for key in ["nodeSelector", "affinity", "tolerations"] {
        placement |= seen.get(key) != head.get(key);
        set_pointer(&mut seen, &format!("/{key}"), head.get(key).cloned());
    }
    if seen != head {
        return Some(Effect::restart(
            NON_LIVE_UPDATABLE,
            field_lines(&seen, &head),
        ));
    }

    let (bd, hd) = (
        base.get("domain").unwrap_or(&Value::Null),
        head.get("domain").unwrap_or(&Value::Null),
    );
    let (bt, ht) = (Topology::of(bd), Topology::of(hd));
    // The CPU and the memory handlers judge their parts separately: the first refusal gives
    // the message, every refused part is listed.
    let mut refused: Option<Effect> = None;
    if bt.sockets != ht.sockets {
        let (max, source) = max_sockets(&base, settings);
        let detail = format!(
            "CPU sockets {} → {} (vCPUs {} → {}); maxSockets {max} ({source})",
            bt.sockets,
            ht.sockets,
            bt.vcpus(),
            ht.vcpus()
        );
        if ht.sockets > max {
            refuse(
                &mut refused,
                restart_message(
                    "CPU sockets updated in template spec to a value higher than what's available",
                ),
                detail,
            );
        } else {
            live.push(detail);
        }
    }
    let (bg, hg) = (
        quantity(at(bd, &["memory", "guest"])),
        quantity(at(hd, &["memory", "guest"])),
    );
    if let (Some(bg), Some(hg)) = (&bg, &hg)
        && bg.value() != hg.value()
    {
        let detail = format!(
            "guest memory {} → {}",
            bytes_text(bg.value()),
            bytes_text(hg.value())
        );
        match memory_hotplug(&base, settings, version) {
            Err(reason) => refuse(
                &mut refused,
                format!("needs a restart (memory hotplug is not available for {reason})"),
                detail,
            ),
            Ok((max, source)) => {
                let limited = format!("{detail}; maxGuest {} ({source})", bytes_text(max.value()));
                // `handleMemoryHotplugRequest` asks `ValidateLiveUpdateMemory` about the new
                // template (from v1.3) before comparing it with the boot size and `maxGuest`.
                let unsupported = if version.at_least(1, 3) {
                    validate_live_update_memory(&head, &architecture_of(&head), Some(&max), version)
                        .err()
                } else {
                    None
                };
                if let Some(unsupported) = unsupported {
                    refuse(
                        &mut refused,
                        restart_message(&format!("memory hotplug not supported, {unsupported}")),
                        limited,
                    );
                } else if hg.value() < bg.value() {
                    refuse(
                        &mut refused,
                        restart_message(
                            "memory updated in template spec to a value lower than what the VM started with",
                        ),
                        detail,
                    );
                } else if hg.value() > max.value() {
                    refuse(
                        &mut refused,
                        restart_message(
                            "memory updated in template spec to a value higher than what's available",
                        ),
                        limited,
                    );
                } else {
                    live.push(limited);
                }
            }
        }
    }
    if refused.is_some() {
        return refused;
    }
    if placement {
        live.push(
            "node placement (nodeSelector, affinity, tolerations) updated on the running VM"
                .to_owned(),
        );
    }
    Some(Effect::new(EffectKind::LiveUpdate, "applied live (LiveUpdate)").with_details(live))
}

// ---------------------------------------------------------------------------------------------
// Building the diff

/// One VM on one side.
#[derive(Default)]
struct SideVm<'a> {
    kind: String,
    rendered: Option<&'a Rendered>,
    findings: Vec<&'a Finding>,
    resolved: VmMatchers,
    written: Option<&'a WrittenVm>,
    /// KV4001 (revisionName in spec) per role.
    revision_finding: [bool; 2],
}

impl SideVm<'_> {
    /// Messages of the findings of a category (whatever severity a configuration gives them:
    /// KubeVirt refuses all the same).
    fn messages(&self, category: Category) -> Vec<String> {
        self.findings
            .iter()
            .filter(|f| f.rule.category == category)
            .map(|f| f.message.clone())
            .collect()
    }

    fn place(&self) -> Option<Place> {
        self.rendered
            .map(|r| Place {
                file: r.file.to_string(),
                line: r.line,
            })
            .or_else(|| {
                self.written.map(|w| Place {
                    file: w.file.clone(),
                    line: w.line,
                })
            })
    }

    fn run_strategy(&self) -> Option<String> {
        let spec = self.spec()?;
        text_at(spec, &["runStrategy"]).or_else(|| {
            spec.get("running")
                .and_then(Value::as_bool)
                .map(|running| format!("running: {running}"))
        })
    }

    fn spec(&self) -> Option<&Value> {
        vm_spec(&self.rendered?.value, &self.kind)
    }

    /// The matcher as written, else as resolved with what the findings tell of `revisionName`.
    fn written_matcher(&self, role: MatcherRole) -> Option<WrittenMatcher> {
        if let Some(written) = self.written {
            return written.matcher(role).cloned();
        }
        let resolved = self.resolved.get(role)?;
        Some(WrittenMatcher {
            matcher: Matcher {
                name: resolved.name.clone(),
                kind: resolved.kind.clone(),
                ..Matcher::default()
            },
            revision: if self.revision_finding[role_index(role)] {
                Revision::Unknown
            } else {
                Revision::Absent
            },
        })
    }

    /// Not rendered, but a `revisionName` names a ControllerRevision that only the cluster
    /// holds: the VM is live there all the same.
    fn pinned_to_cluster_revision(&self) -> bool {
        self.rendered.is_none()
            && ROLES.iter().any(|role| {
                self.written_matcher(*role)
                    .is_some_and(|m| matches!(m.revision, Revision::Named(_) | Revision::Unknown))
            })
    }

    fn is_stopped(&self) -> bool {
        let Some(spec) = self.spec() else {
            return false;
        };
        spec.get("runStrategy").and_then(Value::as_str) == Some("Halted")
            || spec.get("running").and_then(Value::as_bool) == Some(false)
    }
}

fn side_vms<'a>(report: &'a Report, inputs: &'a Inputs) -> BTreeMap<VmKey, SideVm<'a>> {
    let mut vms: BTreeMap<VmKey, SideVm<'a>> = BTreeMap::new();
    for rendered in &report.rendered {
        let key = VmKey::new(&rendered.namespace, &rendered.name);
        let vm = vms.entry(key).or_default();
        if vm.rendered.is_none() {
            vm.rendered = Some(rendered);
            rendered
                .value
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("VirtualMachine")
                .clone_into(&mut vm.kind);
        }
    }
    for finding in &report.findings {
        let Some(object) = &finding.object else {
            continue;
        };
        if !matches!(
            object.kind.as_str(),
            "VirtualMachine" | "VirtualMachinePool"
        ) {
            continue;
        }
        let key = VmKey::new(object.namespace.clone().unwrap_or_default(), &object.name);
        let vm = vms.entry(key).or_default();
        if vm.kind.is_empty() {
            vm.kind.clone_from(&object.kind);
        }
        vm.findings.push(finding);
        if finding.rule.code == crate::rules::REVISION_NAME_IN_SPEC.code {
            let path = finding.path.as_deref().unwrap_or_default();
            for role in ROLES {
                if path.ends_with(&format!("{}.revisionName", role.field())) {
                    vm.revision_finding[role_index(role)] = true;
                }
            }
        }
    }
    for (key, written) in &inputs.vms {
        let vm = vms.entry(key.clone()).or_default();
        if vm.kind.is_empty() {
            vm.kind.clone_from(&written.kind);
        }
        vm.written = Some(written);
    }
    let resolved = matchers(report);
    for (key, vm) in &mut vms {
        vm.resolved = resolved.get(key).cloned().unwrap_or_default();
        if let Some(written) = vm.written {
            for role in ROLES {
                if vm.resolved.get(role).is_none()
                    && let Some(m) = written.matcher(role)
                    && !m.matcher.name.is_empty()
                {
                    *vm.resolved.slot(role) = Some(MatcherRef {
                        kind: full_kind(role, m.matcher.resolved_kind(role), &m.matcher.kind),
                        name: m.matcher.name.clone(),
                    });
                }
            }
        }
    }
    vms
}

/// The mutating webhook's update rule (submission.md §2.2a) for a live VM created from `base`
/// and updated to `head`, and what KubeVirt up to v1.4 wrote into the live spec.
fn matcher_update_refusal(
    base: &SideVm<'_>,
    head: &SideVm<'_>,
    version: KubeVirtVersion,
) -> Option<Effect> {
    for role in ROLES {
        let (Some(old), Some(new)) = (base.written_matcher(role), head.written_matcher(role))
        else {
            continue;
        };
        let renamed = old.matcher.name != new.matcher.name;
        if !renamed {
            continue;
        }
        let field = format!("spec.{}.revisionName", role.field());
        // Up to v1.4 the controller wrote revisionName into the live spec; an apply that does
        // not mention it keeps it (submission.md §4.3, §5).
        let live_old = match (&old.revision, version.at_least(1, 5)) {
            (Revision::Absent, false) => Revision::Unknown,
            (revision, _) => revision.clone(),
        };
        let new_revision = match (&new.revision, &live_old) {
            (Revision::Absent, Revision::Unknown) if !version.at_least(1, 5) => Revision::Unknown,
            (revision, _) => revision.clone(),
        };
        let same = match (&new_revision, &live_old) {
            (Revision::Absent | Revision::Empty, _)
            | (Revision::Unknown | Revision::Named(_), Revision::Absent | Revision::Empty) => false,
            (Revision::Named(a), Revision::Named(b)) => a == b,
            (Revision::Unknown, _) | (_, Revision::Unknown) => true,
        };
        if same {
            let mut details = vec![format!(
                "{} {} → {} while {field} stays set; clear {field} in the same change (or remove it)",
                role.noun(),
                old.matcher.name,
                new.matcher.name
            )];
            if !version.at_least(1, 5) && old.revision == Revision::Absent {
                details.push(format!(
                    "KubeVirt {version} wrote {field} into the live VM; set it to \"\" to clear it"
                ));
            }
            return Some(
                Effect::new(EffectKind::Rejected, format!("rejected: {MATCHER_RENAMED}"))
                    .with_details(details),
            );
        }
    }
    None
}

struct Context<'a> {
    rollout: Rollout,
    version: KubeVirtVersion,
    settings: &'a ClusterSettings,
    changed_objects: &'a BTreeSet<ObjectKey>,
}

/// What the findings of a side say KubeVirt does with it: rejections first, then references
/// it admits but cannot resolve. The first message leads, the others are details.
fn first_error_effect(vm: &SideVm<'_>) -> Option<Effect> {
    [
        (Category::Reject, EffectKind::Rejected, "rejected"),
        (
            Category::Unresolved,
            EffectKind::CannotStart,
            "admitted, but cannot start",
        ),
    ]
    .into_iter()
    .find_map(|(category, kind, verdict)| {
        let mut messages = vm.messages(category).into_iter();
        let first = messages.next()?;
        Some(Effect::new(kind, format!("{verdict}: {first}")).with_details(messages.collect()))
    })
}

fn uses_changed_object(key: &VmKey, vm: &SideVm<'_>, ctx: &Context<'_>) -> Vec<String> {
    vm.resolved
        .object_keys(&key.namespace)
        .into_iter()
        .filter(|k| ctx.changed_objects.contains(k))
        .map(|k| k.to_string())
        .collect()
}

fn vm_effect(
    key: &VmKey,
    base: &SideVm<'_>,
    head: &SideVm<'_>,
    ctx: &Context<'_>,
    notes: &mut Vec<String>,
) -> Effect {
    // The update rule is the mutating webhook's first step on an update: it refuses before
    // anything else. (A base that kvlint finds rejected may still be live: a `revisionName`
    // names a ControllerRevision that exists only in the cluster.)
    if let Some(effect) = matcher_update_refusal(base, head, ctx.version) {
        return effect;
    }
    let base_in_cluster = base.pinned_to_cluster_revision();
    if !base_in_cluster && first_error_effect(base).is_some_and(|e| e.kind == EffectKind::Rejected)
    {
        notes.push("KubeVirt rejects the base revision of this VM, so no live VM exists from it: the change applies as a create".to_owned());
        return first_error_effect(head)
            .unwrap_or_else(|| Effect::new(EffectKind::Created, "created"));
    }
    if let Some(effect) = first_error_effect(head) {
        return effect;
    }
    let changed_objects = uses_changed_object(key, head, ctx);
    let switched = base.resolved != head.resolved;
    if let (Some(b), Some(h)) = (base.written, head.written)
        && b.object == h.object
    {
        let mut effect = Effect::new(
            EffectKind::KeepsRevision,
            "no change to the existing VM: its manifest is unchanged",
        );
        if !changed_objects.is_empty() {
            effect.details.push(format!(
                "the rendered difference comes from {}, which this VM does not see: it keeps its stored ControllerRevision; only new VMs, and VMs that switch to it, get the new values",
                changed_objects.join(" and ")
            ));
        }
        return effect;
    }
    if !changed_objects.is_empty() && !switched {
        notes.push(format!(
            "part of the rendered difference comes from {}, which this existing VM does not see (it keeps its stored ControllerRevision); the verdict counts it and may overstate the change",
            changed_objects.join(" and ")
        ));
    }
    let (Some(b), Some(h)) = (base.rendered, head.rendered) else {
        if base_in_cluster {
            let revisions: Vec<String> = ROLES
                .iter()
                .filter_map(|role| match base.written_matcher(*role)?.revision {
                    Revision::Named(name) => {
                        Some(format!("{name} (spec.{}.revisionName)", role.field()))
                    }
                    _ => None,
                })
                .collect();
            let mut effect = Effect::new(
                EffectKind::Undetermined,
                "accepted; what the running VM gets is not known: the base revision uses a ControllerRevision that only the cluster holds",
            );
            if !revisions.is_empty() {
                effect.details.push(format!(
                    "ControllerRevision {} is not in the repository; the running VM was built from it",
                    revisions.join(", ")
                ));
            }
            return effect;
        }
        if base.rendered.is_none() {
            notes.push("the base revision could not be rendered".to_owned());
            return Effect::new(
                EffectKind::AppliedAtStart,
                "applied: the base revision of this VM could not start, this one can",
            );
        }
        return Effect::new(EffectKind::CannotStart, "cannot be rendered");
    };
    let prefixes = Prefixes::for_kind(&head.kind);
    let last = section(&b.value, &prefixes.template);
    let current = section(&h.value, &prefixes.template);
    let migration = head
        .spec()
        .and_then(|s| s.get("updateVolumesStrategy"))
        .and_then(Value::as_str)
        == Some("Migration");
    let effect = template_effect(
        &last,
        &current,
        ctx.rollout,
        ctx.settings,
        migration,
        ctx.version,
    );
    let mut effect = match effect {
        Some(_) if base.is_stopped() => Effect::new(
            EffectKind::AppliedAtStart,
            "applied when the VM starts (it is not running on the base revision)",
        )
        .with_details(field_lines(&without_empty(&last), &without_empty(&current))),
        Some(mut effect) => {
            if switched && effect.kind == EffectKind::LiveUpdate {
                effect.details.insert(
                    0,
                    "the switch changes only what LiveUpdate applies to a running VM".to_owned(),
                );
            }
            effect
        }
        None if comparable(&b.value) == comparable(&h.value) => Effect::none(),
        None => Effect::new(
            EffectKind::NoRestart,
            "updated without a restart (no field of the template spec changed)",
        ),
    };
    let (before, after) = (base.run_strategy(), head.run_strategy());
    if before != after {
        effect.details.push(format!(
            "run strategy {}: the VM controller starts or stops the VM to match",
            arrow(
                before.as_deref().unwrap_or("(none)"),
                after.as_deref().unwrap_or("(none)")
            )
        ));
    }
    effect
}

fn unified(before: &str, after: &str, a: &str, b: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string()
}

fn vm_diff(
    key: &VmKey,
    base: Option<&SideVm<'_>>,
    head: Option<&SideVm<'_>>,
    ctx: &Context<'_>,
) -> VmDiff {
    let empty = SideVm::default();
    let (b, h) = (base.unwrap_or(&empty), head.unwrap_or(&empty));
    let kind = if h.kind.is_empty() { &b.kind } else { &h.kind };
    let mut notes = Vec::new();
    let rendered_values = (
        b.rendered.map(|r| comparable(&r.value)),
        h.rendered.map(|r| comparable(&r.value)),
    );
    let status = match (base, head) {
        (None, _) => VmStatus::Added,
        (_, None) => VmStatus::Removed,
        _ => {
            let written_same = match (b.written, h.written) {
                (Some(x), Some(y)) => x.object == y.object,
                _ => true,
            };
            let rendered_same = rendered_values.0 == rendered_values.1;
            let same = if b.rendered.is_none() && h.rendered.is_none() {
                written_same
            } else {
                rendered_same
            };
            if same && b.resolved == h.resolved {
                VmStatus::Unchanged
            } else {
                VmStatus::Changed
            }
        }
    };
    let effect = match status {
        VmStatus::Unchanged => Effect::none(),
        VmStatus::Added => {
            first_error_effect(h).unwrap_or_else(|| Effect::new(EffectKind::Created, "created"))
        }
        VmStatus::Removed => Effect::new(
            EffectKind::Deleted,
            "deleted where the sync prunes (Argo CD with pruning, Flux with prune: true); kubectl apply leaves it",
        ),
        VmStatus::Changed => vm_effect(key, b, h, ctx, &mut notes),
    };
    let changes = match (status, &rendered_values) {
        (VmStatus::Changed, (Some(bv), Some(hv))) => {
            summarise(bv, hv, kind, &b.resolved, &h.resolved)
        }
        (VmStatus::Changed | VmStatus::Added, _) => matcher_changes(&b.resolved, &h.resolved),
        _ => Vec::new(),
    };
    let diff = match (status, &rendered_values) {
        (VmStatus::Changed, (Some(bv), Some(hv))) => unified(
            &to_yaml(bv),
            &to_yaml(hv),
            &format!("a/{key}"),
            &format!("b/{key}"),
        ),
        (VmStatus::Added, (_, Some(hv))) => {
            unified("", &to_yaml(hv), "/dev/null", &format!("b/{key}"))
        }
        // A side that cannot be rendered: the manifests as written say what changed.
        (VmStatus::Changed, _) => match (b.written, h.written) {
            (Some(x), Some(y)) => unified(
                &to_yaml(&x.object),
                &to_yaml(&y.object),
                &format!("a/{key} (as written)"),
                &format!("b/{key} (as written)"),
            ),
            _ => String::new(),
        },
        _ => String::new(),
    };
    if status == VmStatus::Changed {
        for (side, vm) in [("base", b), ("head", h)] {
            if vm.rendered.is_none() {
                notes.push(format!("not rendered on the {side} side; see its findings"));
            }
        }
    }
    VmDiff {
        namespace: key.namespace.clone(),
        name: key.name.clone(),
        kind: kind.clone(),
        status,
        base: b.place(),
        head: h.place(),
        base_matchers: b.resolved.clone(),
        head_matchers: h.resolved.clone(),
        changes,
        effect,
        notes,
        diff,
    }
}

fn object_diffs(
    base: &Inputs,
    head: &Inputs,
    base_vms: &BTreeMap<VmKey, SideVm<'_>>,
    head_vms: &BTreeMap<VmKey, SideVm<'_>>,
) -> Vec<ObjectDiff> {
    let keys: BTreeSet<&ObjectKey> = base.objects.keys().chain(head.objects.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        let (b, h) = (base.objects.get(key), head.objects.get(key));
        let status = match (b, h) {
            (None, Some(_)) => VmStatus::Added,
            (Some(_), None) => VmStatus::Removed,
            (Some(b), Some(h)) if b.spec != h.spec => VmStatus::Changed,
            _ => continue,
        };
        let null = Value::Null;
        let (bs, hs) = (b.map_or(&null, |o| &o.spec), h.map_or(&null, |o| &o.spec));
        let label = match &key.namespace {
            Some(namespace) => format!("{}/{namespace}/{}", key.kind, key.name),
            None => format!("{}/{}", key.kind, key.name),
        };
        let yaml = |v: &Value| {
            if v.is_null() {
                String::new()
            } else {
                to_yaml(v)
            }
        };
        let mut used_by = Vec::new();
        for (vm_key, vm) in head_vms {
            if !vm.resolved.object_keys(&vm_key.namespace).contains(key) {
                continue;
            }
            let relation = match base_vms.get(vm_key) {
                None => Relation::NewVm,
                Some(before) if before.resolved.object_keys(&vm_key.namespace).contains(key) => {
                    Relation::KeepsRevision
                }
                Some(_) => Relation::Switches,
            };
            used_by.push(ObjectUser {
                namespace: vm_key.namespace.clone(),
                name: vm_key.name.clone(),
                relation,
            });
        }
        let note = match status {
            VmStatus::Changed => {
                "existing VMs keep their stored ControllerRevision: only new VMs, and VMs that switch to it, see the new values"
            }
            VmStatus::Removed => {
                "existing VMs keep their stored ControllerRevision; VMs created later that reference it cannot start"
            }
            _ => "new VMs, and VMs that switch to it, use these values",
        };
        let place = h
            .or(b)
            .map_or((String::new(), 0), |o| (o.file.clone(), o.line));
        out.push(ObjectDiff {
            kind: key.kind.clone(),
            namespace: key.namespace.clone(),
            name: key.name.clone(),
            status,
            file: place.0,
            line: place.1,
            fields: field_changes(bs, hs),
            used_by,
            note: note.to_owned(),
            diff: unified(
                &yaml(bs),
                &yaml(hs),
                &format!("a/{label}"),
                &format!("b/{label}"),
            ),
        });
    }
    out
}

type FindingKey = (
    &'static str,
    Option<ObjectRef>,
    Option<String>,
    String,
    Option<String>,
);

/// A finding's identity across the sides: rule, object, path and message; the file only for
/// findings about no object. Lines are ignored.
fn finding_key(finding: &Finding) -> FindingKey {
    (
        finding.rule.code,
        finding.object.clone(),
        finding.path.clone(),
        finding.message.clone(),
        finding
            .object
            .is_none()
            .then(|| finding.location.file.to_string()),
    )
}

/// Findings of `from` that `other` does not have (counted as a multiset).
fn only_in(from: &Report, other: &Report) -> Vec<DiffFinding> {
    let mut available: BTreeMap<FindingKey, usize> = BTreeMap::new();
    for finding in &other.findings {
        *available.entry(finding_key(finding)).or_default() += 1;
    }
    let mut out = Vec::new();
    for finding in &from.findings {
        match available.get_mut(&finding_key(finding)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(DiffFinding::of(finding)),
        }
    }
    out
}

/// Compares two reports alone (no instance-type comparison; see [`diff_with`]).
pub fn diff(base: &Report, head: &Report) -> Diff {
    diff_with(base, &Inputs::default(), head, &Inputs::default())
}

/// Compares two sides: their reports and their [`Inputs`]. The head side's target version and
/// its inputs' cluster settings decide the rollout strategy.
pub fn diff_with(base: &Report, base_inputs: &Inputs, head: &Report, head_inputs: &Inputs) -> Diff {
    let version = head
        .profile
        .as_ref()
        .map_or(KubeVirtVersion::LATEST, |p| p.version);
    let settings = &head_inputs.cluster;
    let rollout = settings
        .rollout
        .unwrap_or_else(|| Rollout::default_for(version));
    let base_vms = side_vms(base, base_inputs);
    let head_vms = side_vms(head, head_inputs);
    let objects = object_diffs(base_inputs, head_inputs, &base_vms, &head_vms);
    let changed_objects: BTreeSet<ObjectKey> = objects
        .iter()
        .filter(|o| o.status != VmStatus::Added)
        .map(ObjectDiff::key)
        .collect();
    let ctx = Context {
        rollout,
        version,
        settings,
        changed_objects: &changed_objects,
    };
    let keys: BTreeSet<&VmKey> = base_vms.keys().chain(head_vms.keys()).collect();
    let vms: Vec<VmDiff> = keys
        .into_iter()
        .map(|key| vm_diff(key, base_vms.get(key), head_vms.get(key), &ctx))
        .collect();
    let introduced = only_in(head, base);
    let fixed = only_in(base, head);

    let mut counts = Counts {
        objects: objects.len(),
        introduced: introduced.len(),
        fixed: fixed.len(),
        ..Counts::default()
    };
    for vm in &vms {
        match vm.status {
            VmStatus::Added => counts.added += 1,
            VmStatus::Removed => counts.removed += 1,
            VmStatus::Changed => counts.changed += 1,
            VmStatus::Unchanged => counts.unchanged += 1,
        }
        match vm.effect.kind {
            EffectKind::Rejected => counts.rejected += 1,
            EffectKind::RestartRequired => counts.restart_required += 1,
            EffectKind::LiveUpdate => counts.live_update += 1,
            _ => {}
        }
    }
    let rollout_source = if settings.rollout.is_some() {
        "as the repository's KubeVirt configuration sets".to_owned()
    } else if rollout == Rollout::LiveUpdate {
        "KubeVirt v1.6+ default".to_owned()
    } else if version.at_least(1, 2) {
        "the default up to KubeVirt v1.5".to_owned()
    } else {
        // vmRolloutStrategy exists from v1.2; before it nothing was applied to a running VM.
        "KubeVirt before v1.2 has no vmRolloutStrategy and behaves so".to_owned()
    };
    let mut assumptions = vec![
        "the live VM was created from the base revision and is running".to_owned(),
        format!("{rollout} rollout ({rollout_source}; target KubeVirt {version})"),
    ];
    if rollout == Rollout::LiveUpdate {
        assumptions.push(format!(
            "hotplug limits: maxSockets and maxGuest as the VM or its instance type sets them, else {} (KubeVirt's defaults for a VM without them)",
            match (&settings.max_cpu_sockets, &settings.max_guest) {
                (None, None) => format!("{} × the base revision's sockets and guest memory", settings.ratio()),
                _ => "the cluster's liveUpdateConfiguration".to_owned(),
            }
        ));
    }
    Diff {
        assumptions,
        rollout,
        kubevirt_version: version.to_string(),
        counts,
        vms,
        objects,
        introduced,
        fixed,
    }
}

// ---------------------------------------------------------------------------------------------
// Formats

fn place_text(place: Option<&Place>) -> String {
    place.map_or_else(String::new, |p| format!("{}:{}", p.file, p.line))
}

fn finding_line(finding: &DiffFinding) -> String {
    let subject = finding.subject();
    let subject = if subject.is_empty() {
        String::new()
    } else {
        format!(" {subject}:")
    };
    format!(
        "{} {} {}:{}{subject} {}",
        finding.severity, finding.code, finding.file, finding.line, finding.message
    )
}

fn relation_text(relation: Relation) -> &'static str {
    match relation {
        Relation::NewVm => "new VM: gets the new values",
        Relation::Switches => "switches to it: gets the new values",
        Relation::KeepsRevision => "keeps its stored ControllerRevision",
    }
}

fn status_mark(status: VmStatus) -> char {
    match status {
        VmStatus::Added => '+',
        VmStatus::Removed => '-',
        VmStatus::Changed => '~',
        VmStatus::Unchanged => '=',
    }
}

fn counts_line(diff: &Diff) -> String {
    let c = &diff.counts;
    format!(
        "{} added, {} removed, {} changed, {} unchanged",
        c.added, c.removed, c.changed, c.unchanged
    )
}

/// `~ apps/web (VirtualMachine, vms/web.yaml:1)`
fn vm_heading(vm: &VmDiff) -> String {
    let place = vm.place();
    format!(
        "{} {} ({}{}{})",
        status_mark(vm.status),
        vm.key(),
        vm.kind,
        if place.is_empty() { "" } else { ", " },
        place
    )
}

/// The terminal format: a summary, each VM that differs with its semantic summary, what
/// KubeVirt does and the unified diff, then instance types and preferences and the findings.
/// Text from the manifests is escaped with [`terminal`]: one line per item, control characters
/// shown, no line a GitHub runner would execute.
pub fn text(diff: &Diff) -> String {
    let line = terminal::line;
    let mut out = String::new();
    let _ = writeln!(out, "kvlint diff: {}", counts_line(diff));
    let _ = writeln!(out, "assumes {}", line(&diff.assumptions.join("; ")));
    if diff.vms.iter().all(|vm| vm.status == VmStatus::Unchanged) {
        let _ = writeln!(out, "\nno VM changes");
    }
    for vm in diff
        .vms
        .iter()
        .filter(|vm| vm.status != VmStatus::Unchanged)
    {
        let _ = writeln!(out, "\n{}", line(&vm_heading(vm)));
        for change in &vm.changes {
            let label = change.aspect.label();
            let _ = writeln!(out, "    {label:<15}{}", line(&change.summary));
        }
        let _ = writeln!(out, "    {:<15}{}", "KubeVirt", line(&vm.effect.message));
        for detail in &vm.effect.details {
            let _ = writeln!(out, "    {:<15}- {}", "", line(detail));
        }
        for note in &vm.notes {
            let _ = writeln!(out, "    {:<15}{}", "note", line(note));
        }
        for diff_line in vm.diff.lines() {
            let _ = writeln!(out, "    {}", terminal::block(diff_line));
        }
    }
    let unchanged: Vec<&VmDiff> = diff
        .vms
        .iter()
        .filter(|vm| vm.status == VmStatus::Unchanged)
        .collect();
    if !unchanged.is_empty() {
        let _ = writeln!(out, "\nunchanged:");
        for vm in unchanged {
            let _ = writeln!(out, "{}", line(&vm_heading(vm)));
        }
    }
    if !diff.objects.is_empty() {
        let _ = writeln!(out, "\ninstance types and preferences:");
        for object in &diff.objects {
            let heading = format!(
                "{} {} ({}:{}): {}",
                status_mark(object.status),
                object.key(),
                object.file,
                object.line,
                object.status
            );
            let _ = writeln!(out, "\n{}", line(&heading));
            for field in &object.fields {
                let _ = writeln!(out, "    {}", line(&describe(field, "")));
            }
            if object.used_by.is_empty() {
                let _ = writeln!(out, "    used by no VM of the repository");
            }
            for user in &object.used_by {
                let _ = writeln!(
                    out,
                    "    used by {} ({})",
                    line(&user.key().to_string()),
                    relation_text(user.relation)
                );
            }
            let _ = writeln!(out, "    note: {}", line(&object.note));
        }
    }
    for (title, findings) in [
        ("introduced by this change", &diff.introduced),
        ("fixed by this change", &diff.fixed),
    ] {
        let _ = writeln!(out, "\nfindings {title}: {}", findings.len());
        for finding in findings {
            let _ = writeln!(out, "  {}", line(&finding_line(finding)));
        }
    }
    terminal::guard_lines(out)
}

/// Escapes text for Markdown outside code (tables included); mentions, issue references and
/// bare links are broken and control characters shown ([`sanitize::markdown`]).
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut out, c, false);
            }
            _ => out.push(c),
        }
    }
    sanitize::markdown::defuse(&out)
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// A code span that holds any text; pipes are escaped as GitHub tables need.
fn md_code(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' => shown.push(' '),
            '|' => shown.push_str("\\|"),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut shown, c, true);
            }
            _ => shown.push(c),
        }
    }
    let text = shown;
    let fence = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Escapes text for HTML (inside `<summary>`), mentions and references broken.
fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            c if sanitize::markdown::is_hidden(c) => {
                sanitize::markdown::push_hidden(&mut out, c, true);
            }
            _ => out.push(c),
        }
    }
    sanitize::markdown::defuse(&out)
}

fn fenced(out: &mut String, language: &str, body: &str, max_lines: usize) {
    let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
    let _ = writeln!(out, "{fence}{language}");
    let total = body.lines().count();
    for line in body.lines().take(max_lines) {
        let _ = writeln!(out, "{}", terminal::block(line));
    }
    if total > max_lines {
        let _ = writeln!(
            out,
            "… {} more lines (see `kvlint diff` output)",
            total - max_lines
        );
    }
    let _ = writeln!(out, "{fence}");
}

fn effect_md(effect: &Effect) -> String {
    match effect.kind {
        EffectKind::Rejected | EffectKind::CannotStart | EffectKind::RestartRequired => {
            format!("**{}**", md(&effect.message))
        }
        _ => md(&effect.message),
    }
}

fn findings_table(out: &mut String, findings: &[DiffFinding]) {
    let _ = writeln!(out, "| severity | rule | object | message | location |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for f in findings {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            f.severity,
            md_code(&format!("{} {}", f.code, f.name)),
            md(&f.subject()),
            md(&f.message),
            md_code(&format!("{}:{}", f.file, f.line)),
        );
    }
}

/// The Markdown format for pull-request comments and step summaries: a summary table, a table
/// of the VMs that differ, a collapsible section per VM, then instance types and preferences
/// and the findings.
pub fn markdown(diff: &Diff) -> String {
    let c = &diff.counts;
    let mut out = String::new();
    let _ = writeln!(out, "### kvlint diff\n");
    let _ = writeln!(out, "| added | removed | changed | unchanged |");
    let _ = writeln!(out, "|---:|---:|---:|---:|");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} |\n",
        c.added, c.removed, c.changed, c.unchanged
    );
    let _ = writeln!(out, "> Assumes {}.\n", md(&diff.assumptions.join("; ")));
    let differing: Vec<&VmDiff> = diff
        .vms
        .iter()
        .filter(|vm| vm.status != VmStatus::Unchanged)
        .collect();
    if differing.is_empty() {
        let _ = writeln!(out, "No VM changes.\n");
    } else {
        let _ = writeln!(out, "| VM | change | what KubeVirt does |");
        let _ = writeln!(out, "|---|---|---|");
        for vm in &differing {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                md_code(&vm.key().to_string()),
                vm.status,
                effect_md(&vm.effect)
            );
        }
        out.push('\n');
        for vm in &differing {
            let _ = writeln!(out, "<details>");
            let _ = writeln!(
                out,
                "<summary><code>{}</code> {}: {}</summary>\n",
                html(&vm.key().to_string()),
                vm.status,
                html(&vm.effect.message)
            );
            let place = vm.place();
            if !place.is_empty() {
                let _ = writeln!(out, "{} {}\n", md(&vm.kind), md_code(&place));
            }
            for change in &vm.changes {
                let _ = writeln!(
                    out,
                    "- **{}**: {}",
                    change.aspect.label(),
                    md(&change.summary)
                );
            }
            if !vm.changes.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "**What KubeVirt does:** {}\n", effect_md(&vm.effect));
            for detail in &vm.effect.details {
                let _ = writeln!(out, "- {}", md(detail));
            }
            if !vm.effect.details.is_empty() {
                out.push('\n');
            }
            for note in &vm.notes {
                let _ = writeln!(out, "> {}\n", md(note));
            }
            if !vm.diff.is_empty() {
                fenced(&mut out, "diff", &vm.diff, MARKDOWN_DIFF_LINES);
                out.push('\n');
            }
            let _ = writeln!(out, "</details>\n");
        }
    }
    let unchanged: Vec<String> = diff
        .vms
        .iter()
        .filter(|vm| vm.status == VmStatus::Unchanged)
        .map(|vm| {
            format!(
                "- {} {}",
                md_code(&vm.key().to_string()),
                md_code(&vm.place())
            )
        })
        .collect();
    if !unchanged.is_empty() {
        let _ = writeln!(
            out,
            "<details>\n<summary>Unchanged VMs: {}</summary>\n\n{}\n\n</details>\n",
            unchanged.len(),
            unchanged.join("\n")
        );
    }
    if !diff.objects.is_empty() {
        let _ = writeln!(out, "#### Instance types and preferences\n");
        for object in &diff.objects {
            let users: Vec<String> = object
                .used_by
                .iter()
                .map(|u| {
                    format!(
                        "{} ({})",
                        md_code(&u.key().to_string()),
                        md(relation_text(u.relation))
                    )
                })
                .collect();
            let _ = writeln!(out, "<details>");
            let _ = writeln!(
                out,
                "<summary><code>{}</code> {}: used by {} VM(s)</summary>\n",
                html(&object.key().to_string()),
                object.status,
                object.used_by.len()
            );
            let _ = writeln!(
                out,
                "{}\n",
                md_code(&format!("{}:{}", object.file, object.line))
            );
            if users.is_empty() {
                let _ = writeln!(out, "Used by no VM of the repository.\n");
            } else {
                let _ = writeln!(out, "Used by: {}\n", users.join(", "));
            }
            let _ = writeln!(out, "> {}\n", md(&object.note));
            fenced(&mut out, "diff", &object.diff, MARKDOWN_DIFF_LINES);
            let _ = writeln!(out, "\n</details>\n");
        }
    }
    let _ = writeln!(
        out,
        "#### Findings introduced by this change: {}\n",
        diff.introduced.len()
    );
    if !diff.introduced.is_empty() {
        findings_table(&mut out, &diff.introduced);
        out.push('\n');
    }
    if !diff.fixed.is_empty() {
        let _ = writeln!(out, "<details>");
        let _ = writeln!(
            out,
            "<summary>Findings fixed by this change: {}</summary>\n",
            diff.fixed.len()
        );
        findings_table(&mut out, &diff.fixed);
        let _ = writeln!(out, "\n</details>");
    }
    terminal::guard_lines(out)
}

#[derive(Serialize)]
struct JsonDiff<'a> {
    version: u32,
    #[serde(flatten)]
    diff: &'a Diff,
}

/// The JSON format: `{"version": 1, "assumptions": [...], "rollout", "kubevirt_version",
/// "counts", "vms", "objects", "introduced", "fixed"}`; see README.
pub fn json(diff: &Diff) -> String {
    let mut text = serde_json::to_string_pretty(&JsonDiff { version: 1, diff })
        .unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"));
    text.push('\n');
    crate::sanitize::json::guard_owned(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Location;
    use crate::yaml::{Pos, Span};
    use serde_json::json;

    fn vm(name: &str, sockets: u64, guest: &str) -> Value {
        json!({
            "kind": "VirtualMachine",
            "apiVersion": "kubevirt.io/v1",
            "metadata": {"name": name, "namespace": "apps", "labels": {"app": name}},
            "spec": {
                "runStrategy": "Always",
                "template": {
                    "metadata": {"annotations": {"vm.kubevirt.io/os": "linux"}},
                    "spec": {
                        "domain": {
                            "cpu": {"cores": 1, "sockets": sockets, "threads": 1},
                            "memory": {"guest": guest},
                            "machine": {"type": "q35"},
                            "devices": {
                                "disks": [{"name": "root", "disk": {"bus": "virtio"}}],
                                "interfaces": [{"name": "default", "model": "virtio", "bridge": {}}]
                            }
                        },
                        "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:40"}}],
                        "networks": [{"name": "default", "pod": {}}],
                        "architecture": "amd64"
                    }
                }
            },
            "status": {}
        })
    }

    fn rendered(value: Value, instancetype: Option<&str>) -> Rendered {
        let name = value["metadata"]["name"].as_str().unwrap().to_owned();
        Rendered {
            namespace: "apps".to_owned(),
            name: name.clone(),
            file: Arc::from(format!("vms/{name}.yaml")),
            line: 1,
            value,
            origins: instancetype
                .map(|it| {
                    vec![format!(
                        "instancetype: VirtualMachineClusterInstancetype {it} from built-in catalog v1.7.0"
                    )]
                })
                .unwrap_or_default(),
        }
    }

    fn report(vms: Vec<Rendered>, findings: Vec<Finding>) -> Report {
        Report {
            rendered: vms,
            findings,
            ..Report::default()
        }
    }

    fn finding(rule: &'static crate::rules::Rule, vm: &str, line: u32, message: &str) -> Finding {
        let pos = Pos {
            line,
            column: 3,
            index: 0,
        };
        Finding::new(
            rule,
            Location {
                file: Arc::from(format!("vms/{vm}.yaml")),
                span: Span {
                    start: pos,
                    end: pos,
                },
            },
            message,
        )
        .with_object(Some(ObjectRef {
            api_version: "kubevirt.io/v1".to_owned(),
            kind: "VirtualMachine".to_owned(),
            namespace: Some("apps".to_owned()),
            name: vm.to_owned(),
        }))
        .with_path("spec.template.spec.domain.cpu")
    }

    fn find<'d>(diff: &'d Diff, name: &str) -> &'d VmDiff {
        diff.vms.iter().find(|vm| vm.name == name).unwrap()
    }

    fn effect_of(base: &Report, head: &Report) -> Effect {
        find(&diff(base, head), "web").effect.clone()
    }

    fn with(mut value: Value, pointer: &str, new: Value) -> Value {
        set_pointer(&mut value, pointer, Some(new));
        value
    }

    #[test]
    fn classifies_added_removed_changed_and_unchanged() {
        let base = report(
            vec![
                rendered(vm("kept", 1, "4Gi"), None),
                rendered(vm("old", 1, "4Gi"), None),
                rendered(vm("web", 1, "4Gi"), None),
            ],
            Vec::new(),
        );
        // Metadata the update cannot change and the status are not compared.
        let kept = with(vm("kept", 1, "4Gi"), "/metadata/uid", json!("1234"));
        let kept = with(kept, "/status/ready", json!(true));
        let head = report(
            vec![
                rendered(kept, None),
                rendered(vm("new", 1, "4Gi"), None),
                rendered(vm("web", 2, "4Gi"), None),
            ],
            Vec::new(),
        );
        let diff = diff(&base, &head);
        let statuses: Vec<(&str, VmStatus)> = diff
            .vms
            .iter()
            .map(|vm| (vm.name.as_str(), vm.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("kept", VmStatus::Unchanged),
                ("new", VmStatus::Added),
                ("old", VmStatus::Removed),
                ("web", VmStatus::Changed)
            ]
        );
        assert_eq!(
            (
                diff.counts.added,
                diff.counts.removed,
                diff.counts.changed,
                diff.counts.unchanged
            ),
            (1, 1, 1, 1)
        );
        assert_eq!(find(&diff, "new").effect.kind, EffectKind::Created);
        assert_eq!(find(&diff, "old").effect.kind, EffectKind::Deleted);
        assert_eq!(find(&diff, "kept").effect.kind, EffectKind::None);
        assert!(find(&diff, "kept").diff.is_empty());
        let web = find(&diff, "web");
        assert!(
            web.diff.starts_with("--- a/apps/web\n+++ b/apps/web\n@@"),
            "{}",
            web.diff
        );
        assert!(
            web.diff
                .contains("-          sockets: 1\n+          sockets: 2\n"),
            "{}",
            web.diff
        );
        assert!(!diff.fails(Some(Severity::Error)));
        // Deterministic: the same input gives the same text.
        assert_eq!(text(&diff), text(&super::diff(&base, &head)));
    }

    #[test]
    fn cpu_and_memory_within_the_hotplug_limits_apply_live() {
        let base = report(
            vec![rendered(vm("web", 1, "4Gi"), Some("u1.medium"))],
            Vec::new(),
        );
        let head = report(
            vec![rendered(vm("web", 2, "8Gi"), Some("u1.large"))],
            Vec::new(),
        );
        let diff = diff(&base, &head);
        let web = find(&diff, "web");
        assert_eq!(web.effect.kind, EffectKind::LiveUpdate, "{:?}", web.effect);
        assert_eq!(web.effect.message, "applied live (LiveUpdate)");
        let summary: Vec<(Aspect, &str)> = web
            .changes
            .iter()
            .map(|c| (c.aspect, c.summary.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (Aspect::Instancetype, "u1.medium → u1.large"),
                (Aspect::Cpu, "1 → 2 (sockets×cores×threads 1×1×1 → 2×1×1)"),
                (Aspect::Memory, "guest 4Gi → 8Gi"),
            ]
        );
        let details = web.effect.details.join("\n");
        assert!(
            details
                .contains("CPU sockets 1 → 2 (vCPUs 1 → 2); maxSockets 4 (4 × the base sockets)"),
            "{details}"
        );
        assert!(
            details.contains("guest memory 4Gi → 8Gi; maxGuest 16Gi"),
            "{details}"
        );
        assert!(text(&diff).contains("assumes the live VM was created from the base revision and is running; LiveUpdate rollout (KubeVirt v1.6+ default; target KubeVirt v1.9)"));
    }

    #[test]
    fn beyond_max_sockets_or_under_the_boot_memory_needs_a_restart() {
        let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
        let head = report(vec![rendered(vm("web", 8, "4Gi"), None)], Vec::new());
        let effect = &effect_of(&base, &head);
        assert_eq!(effect.kind, EffectKind::RestartRequired);
        assert!(
            effect.message.contains(
                "CPU sockets updated in template spec to a value higher than what's available"
            ),
            "{effect:?}"
        );

        let head = report(vec![rendered(vm("web", 1, "2Gi"), None)], Vec::new());
        let effect = &effect_of(&base, &head);
        assert!(
            effect
                .message
                .contains("lower than what the VM started with"),
            "{effect:?}"
        );

        // An explicit maxGuest is the limit: the controller's `ValidateLiveUpdateMemory` of the
        // new template refuses more.
        let capped = with(
            vm("web", 1, "4Gi"),
            "/spec/template/spec/domain/memory/maxGuest",
            json!("6Gi"),
        );
        let base = report(vec![rendered(capped.clone(), None)], Vec::new());
        let head = report(
            vec![rendered(
                with(
                    capped,
                    "/spec/template/spec/domain/memory/guest",
                    json!("8Gi"),
                ),
                None,
            )],
            Vec::new(),
        );
        let effect = &effect_of(&base, &head);
        assert_eq!(
            effect.message,
            "needs a restart (RestartRequired: memory hotplug not supported, Guest memory is greater than the configured maxGuest memory)",
        );

        // Memory hotplug is off below 1Gi.
        let base = report(vec![rendered(vm("web", 1, "512Mi"), None)], Vec::new());
        let head = report(vec![rendered(vm("web", 1, "768Mi"), None)], Vec::new());
        let effect = &effect_of(&base, &head);
        assert_eq!(
            effect.message,
            "needs a restart (memory hotplug is not available for less than 1Gi of guest memory)"
        );
    }

    #[test]
    fn other_template_changes_need_a_restart_and_stage_restarts_everything() {
        let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
        let changed = with(
            vm("web", 1, "4Gi"),
            "/spec/template/spec/domain/machine/type",
            json!("pc-q35-rhel9.6.0"),
        );
        let changed = with(
            changed,
            "/spec/template/spec/domain/firmware",
            json!({"bootloader": {"efi": {"secureBoot": false}}}),
        );
        let head = report(vec![rendered(changed, None)], Vec::new());
        let diff = diff(&base, &head);
        let web = find(&diff, "web");
        assert_eq!(web.effect.kind, EffectKind::RestartRequired);
        assert_eq!(
            web.effect.message,
            "needs a restart (RestartRequired: a non-live-updatable field was changed in the template spec)"
        );
        assert!(
            web.effect
                .details
                .iter()
                .any(|d| d.starts_with("domain.machine.type q35 → pc-q35-rhel9.6.0")),
            "{:?}",
            web.effect
        );
        let aspects: Vec<(Aspect, &str)> = web
            .changes
            .iter()
            .map(|c| (c.aspect, c.summary.as_str()))
            .collect();
        assert_eq!(
            aspects,
            [
                (
                    Aspect::Firmware,
                    "bootloader default (BIOS) → EFI without secure boot"
                ),
                (Aspect::MachineType, "q35 → pc-q35-rhel9.6.0"),
            ]
        );

        // Node placement and the VM's own metadata do not restart a running VM.
        let placed = with(
            vm("web", 1, "4Gi"),
            "/spec/template/spec/nodeSelector",
            json!({"zone": "a"}),
        );
        let head = report(vec![rendered(placed, None)], Vec::new());
        let effect = &effect_of(&base, &head);
        assert_eq!(effect.kind, EffectKind::LiveUpdate, "{effect:?}");
        let labelled = with(vm("web", 1, "4Gi"), "/metadata/labels/tier", json!("gold"));
        let head = report(vec![rendered(labelled, None)], Vec::new());
        let web = super::diff(&base, &head);
        let web = find(&web, "web");
        assert_eq!(web.effect.kind, EffectKind::NoRestart);
        assert_eq!(web.changes[0].aspect, Aspect::Labels);
        assert_eq!(web.changes[0].summary, "+tier=gold");

        // Stage (KubeVirt v1.5): even a socket change waits for a restart.
        let head = Report {
            profile: Some(crate::cluster::profile::ClusterProfile::new(
                KubeVirtVersion::new(1, 5),
            )),
            ..report(vec![rendered(vm("web", 2, "4Gi"), None)], Vec::new())
        };
        let diff = super::diff(&base, &head);
        assert_eq!(diff.rollout, Rollout::Stage);
        assert_eq!(find(&diff, "web").effect.kind, EffectKind::RestartRequired);
        assert!(diff.assumptions[1].starts_with("Stage rollout (the default up to KubeVirt v1.5"));
    }

    #[test]
    fn gpus_host_devices_and_memory_requests_are_summarised() {
        let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
        let head_vm = with(
            vm("web", 1, "4Gi"),
            "/spec/template/spec/domain/devices/gpus",
            json!([{"name": "gpu1", "deviceName": "nvidia.com/A100"}]),
        );
        let head_vm = with(
            head_vm,
            "/spec/template/spec/domain/devices/hostDevices",
            json!([{"name": "nic", "deviceName": "intel.com/sriov"}]),
        );
        let head_vm = with(
            head_vm,
            "/spec/template/spec/domain/resources/requests/memory",
            json!("4Gi"),
        );
        let head = report(vec![rendered(head_vm, None)], Vec::new());
        let diff = diff(&base, &head);
        let web = find(&diff, "web");
        let summary: Vec<(Aspect, &str)> = web
            .changes
            .iter()
            .map(|c| (c.aspect, c.summary.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (Aspect::Memory, "requests.memory (none) → 4Gi"),
                (Aspect::Gpus, "none → gpu1 (nvidia.com/A100)"),
                (Aspect::HostDevices, "none → nic (intel.com/sriov)"),
            ]
        );
        assert_eq!(web.effect.kind, EffectKind::RestartRequired);
    }

    #[test]
    fn introduced_and_fixed_findings_ignore_lines() {
        use crate::rules::{INSTANCETYPE_CONFLICT, MACHINE_TYPE_DEFAULTED, REVISION_NAME_IN_SPEC};
        let base = report(
            vec![rendered(vm("web", 1, "4Gi"), None)],
            vec![
                finding(&MACHINE_TYPE_DEFAULTED, "web", 10, "writes a machine type"),
                finding(&REVISION_NAME_IN_SPEC, "web", 4, "revisionName committed"),
            ],
        );
        let head = report(
            vec![rendered(vm("web", 2, "4Gi"), None)],
            vec![
                finding(&MACHINE_TYPE_DEFAULTED, "web", 12, "writes a machine type"),
                finding(&INSTANCETYPE_CONFLICT, "web", 14, "VM field conflicts"),
            ],
        );
        let diff = diff(&base, &head);
        assert_eq!(diff.introduced.len(), 1);
        assert_eq!(diff.introduced[0].code, "KV1001");
        assert_eq!(diff.introduced[0].line, 14);
        assert_eq!(diff.fixed.len(), 1);
        assert_eq!(diff.fixed[0].code, "KV4001");
        // The head VM has a finding in category reject: the update is refused.
        let web = find(&diff, "web");
        assert_eq!(web.effect.kind, EffectKind::Rejected);
        assert_eq!(web.effect.message, "rejected: VM field conflicts");
        assert!(diff.fails(Some(Severity::Error)));
        assert!(!diff.fails(None));
        let text = text(&diff);
        assert!(text.contains("findings introduced by this change: 1\n  error KV1001 vms/web.yaml:14 VirtualMachine apps/web: VM field conflicts"), "{text}");
        assert!(
            text.contains("findings fixed by this change: 1\n"),
            "{text}"
        );
        let json: Value = serde_json::from_str(&json(&diff)).unwrap();
        assert_eq!(json["version"], 1);
        assert_eq!(json["introduced"][0]["code"], "KV1001");
        assert_eq!(json["vms"][0]["effect"]["kind"], "rejected");
        assert_eq!(json["counts"]["rejected"], 1);
    }

    fn written(name: &str, matcher: &Value) -> WrittenVm {
        let object = json!({"kind": "VirtualMachine", "metadata": {"name": name}, "spec": {"instancetype": matcher}});
        WrittenVm {
            kind: "VirtualMachine".to_owned(),
            file: format!("vms/{name}.yaml"),
            line: 1,
            instancetype: written_matcher(object.get("spec"), MatcherRole::Instancetype),
            preference: None,
            object,
        }
    }

    fn inputs(vms: Vec<(&str, WrittenVm)>) -> Inputs {
        Inputs {
            vms: vms
                .into_iter()
                .map(|(n, vm)| (VmKey::new("apps", n), vm))
                .collect(),
            ..Inputs::default()
        }
    }

    #[test]
    fn renaming_the_instance_type_with_a_revision_name_is_rejected() {
        let base = report(
            vec![rendered(vm("web", 1, "4Gi"), Some("u1.medium"))],
            Vec::new(),
        );
        let head = report(
            vec![rendered(vm("web", 2, "8Gi"), Some("u1.large"))],
            Vec::new(),
        );
        let keep = |name| json!({"name": name, "revisionName": "web-u1.medium-1"});
        let diff = diff_with(
            &base,
            &inputs(vec![("web", written("web", &keep("u1.medium")))]),
            &head,
            &inputs(vec![("web", written("web", &keep("u1.large")))]),
        );
        let web = find(&diff, "web");
        assert_eq!(web.effect.kind, EffectKind::Rejected);
        assert_eq!(web.effect.message, format!("rejected: {MATCHER_RENAMED}"));
        assert!(diff.fails(Some(Severity::Error)));

        // Clearing the revisionName in the same change is the documented switch.
        let diff = diff_with(
            &base,
            &inputs(vec![("web", written("web", &keep("u1.medium")))]),
            &head,
            &inputs(vec![("web", written("web", &json!({"name": "u1.large"})))]),
        );
        assert_eq!(find(&diff, "web").effect.kind, EffectKind::LiveUpdate);
    }

    #[test]
    fn a_changed_instance_type_reaches_only_new_and_switching_vms() {
        let object = |guest: u64| SpecObject {
            key: ObjectKey {
                kind: "VirtualMachineInstancetype".to_owned(),
                namespace: Some("apps".to_owned()),
                name: "small".to_owned(),
            },
            spec: json!({"cpu": {"guest": guest}, "memory": {"guest": "4Gi"}}),
            file: "types/small.yaml".to_owned(),
            line: 1,
        };
        let origin = |r: Rendered| Rendered {
            origins: vec![
                "instancetype: VirtualMachineInstancetype small from types/small.yaml:1".to_owned(),
            ],
            ..r
        };
        let mut base_inputs = inputs(vec![
            (
                "a",
                written(
                    "a",
                    &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
                ),
            ),
            ("b", written("b", &json!({"name": "u1.medium"}))),
        ]);
        base_inputs.objects.insert(object(1).key.clone(), object(1));
        let mut head_inputs = inputs(vec![
            (
                "a",
                written(
                    "a",
                    &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
                ),
            ),
            (
                "b",
                written(
                    "b",
                    &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
                ),
            ),
            (
                "c",
                written(
                    "c",
                    &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
                ),
            ),
        ]);
        head_inputs.objects.insert(object(2).key.clone(), object(2));
        let base = report(
            vec![
                origin(rendered(vm("a", 1, "4Gi"), None)),
                rendered(vm("b", 1, "4Gi"), Some("u1.medium")),
            ],
            Vec::new(),
        );
        let head = report(
            vec![
                origin(rendered(vm("a", 2, "4Gi"), None)),
                origin(rendered(vm("b", 2, "4Gi"), None)),
                origin(rendered(vm("c", 2, "4Gi"), None)),
            ],
            Vec::new(),
        );
        let diff = diff_with(&base, &base_inputs, &head, &head_inputs);
        assert_eq!(diff.objects.len(), 1);
        let changed = &diff.objects[0];
        assert_eq!(changed.status, VmStatus::Changed);
        assert_eq!(changed.fields[0].path, "cpu.guest");
        let users: Vec<(&str, Relation)> = changed
            .used_by
            .iter()
            .map(|u| (u.name.as_str(), u.relation))
            .collect();
        assert_eq!(
            users,
            [
                ("a", Relation::KeepsRevision),
                ("b", Relation::Switches),
                ("c", Relation::NewVm)
            ]
        );
        assert!(
            changed
                .note
                .starts_with("existing VMs keep their stored ControllerRevision")
        );
        // `a` is unchanged as written: the running VM does not change.
        let a = find(&diff, "a");
        assert_eq!(a.status, VmStatus::Changed);
        assert_eq!(a.effect.kind, EffectKind::KeepsRevision);
        assert!(a.effect.details[0].contains("VirtualMachineInstancetype apps/small"));
        // `b` switches and sees the new values.
        assert_eq!(find(&diff, "b").effect.kind, EffectKind::LiveUpdate);
        let text = text(&diff);
        assert!(
            text.contains("used by apps/a (keeps its stored ControllerRevision)"),
            "{text}"
        );
        let markdown = markdown(&diff);
        assert!(
            markdown.contains("#### Instance types and preferences"),
            "{markdown}"
        );
    }

    #[test]
    fn markdown_escapes_what_it_quotes() {
        let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
        let head_vm = with(
            vm("web", 1, "4Gi"),
            "/metadata/annotations",
            json!({"note": "a|b <script>*x*</script> ```"}),
        );
        let head = report(
            vec![rendered(head_vm, None)],
            vec![finding(
                &crate::rules::VM_SPEC_INVALID,
                "web",
                3,
                "bad | value <b>",
            )],
        );
        let diff = diff(&base, &head);
        let markdown = markdown(&diff);
        assert!(markdown.starts_with("### kvlint diff\n\n| added | removed | changed | unchanged |\n|---:|---:|---:|---:|\n| 0 | 0 | 1 | 0 |\n"), "{markdown}");
        assert!(
            markdown.contains(
                "- **annotations**: +note=a\\|b \\<script\\>\\*x\\*\\</script\\> \\`\\`\\`"
            ),
            "{markdown}"
        );
        assert!(
            markdown.contains(
                "<summary><code>apps/web</code> changed: rejected: bad | value &lt;b&gt;</summary>"
            ),
            "{markdown}"
        );
        assert!(
            markdown.contains("| `apps/web` | changed | **rejected: bad \\| value \\<b\\>** |"),
            "{markdown}"
        );
        // The annotation holds three backticks: the fence is longer.
        assert!(
            markdown.contains("````diff\n--- a/apps/web\n"),
            "{markdown}"
        );
        assert!(markdown.contains("| error | `KV1008 vm-spec-invalid` | VirtualMachine apps/web | bad \\| value \\<b\\> | `vms/web.yaml:3` |"), "{markdown}");
        assert_eq!(md_code("a`b|c"), "``a`b\\|c``");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(html("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn matchers_come_from_the_origins() {
        let mut r = rendered(vm("web", 1, "4Gi"), Some("u1.medium"));
        r.origins.push(
            "preference: VirtualMachinePreference fedora (ControllerRevision) from vms/p.yaml:3"
                .to_owned(),
        );
        let all = matchers(&report(vec![r], Vec::new()));
        let web = &all[&VmKey::new("apps", "web")];
        assert_eq!(web.instancetype.as_ref().unwrap().name, "u1.medium");
        assert_eq!(
            web.preference.as_ref().unwrap().kind,
            "VirtualMachinePreference"
        );
        assert_eq!(web.preference.as_ref().unwrap().name, "fedora");
    }

    #[test]
    fn relabel_renames_files_of_a_side() {
        let mut base = report(
            vec![rendered(vm("web", 1, "4Gi"), None)],
            vec![finding(
                &crate::rules::MACHINE_TYPE_DEFAULTED,
                "web",
                10,
                "m",
            )],
        );
        relabel(&mut base, "vms/", "/tmp/x/vms/");
        assert_eq!(&*base.findings[0].location.file, "/tmp/x/vms/web.yaml");
        assert_eq!(&*base.rendered[0].file, "/tmp/x/vms/web.yaml");
    }
}
