//! The result of a comparison: per VM and per instance type or preference, what differs and
//! what KubeVirt does with it.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::identity::{ObjectKey, VmKey, VmMatchers};
use crate::controller::liveupdate::Rollout;
use crate::diag::{Category, Finding, ObjectRef, Severity};

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
    /// The VM object changes, the running VM does not: no field of the template spec changed,
    /// or the controller takes the change over without applying it.
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
    pub(super) fn new(kind: EffectKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            details: Vec::new(),
        }
    }

    pub(super) fn with_details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    pub(super) fn restart(reason: &str, details: Vec<String>) -> Self {
        Self::new(EffectKind::RestartRequired, restart_message(reason)).with_details(details)
    }

    pub(super) fn none() -> Self {
        Self::new(EffectKind::None, "none")
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

/// `file:line`, or nothing.
pub(super) fn place_text(place: Option<&Place>) -> String {
    place.map_or_else(String::new, |p| format!("{}:{}", p.file, p.line))
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
    pub(super) fn place(&self) -> String {
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
    pub(super) fn of(finding: &Finding) -> Self {
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

    pub(super) fn subject(&self) -> String {
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

pub(super) fn renamed(file: &str, from: &str, to: &str) -> Option<String> {
    file.strip_prefix(from).map(|rest| format!("{to}{rest}"))
}

pub(super) fn restart_message(reason: &str) -> String {
    format!("needs a restart (RestartRequired: {reason})")
}
