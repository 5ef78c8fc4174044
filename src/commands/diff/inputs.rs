//! What a side consists of beyond its report: the repository's instance types and preferences,
//! the VMs as written and the live-update settings of the cluster.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::changes::vm_spec;
use super::identity::{ObjectKey, VmKey};
use crate::check::{Options, Report};
use crate::controller::liveupdate::ClusterSettings;
use crate::error::Error;
use crate::k8s::Object;
use crate::model::{Matcher, MatcherRole};

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
    pub(super) fn matcher(&self, role: MatcherRole) -> Option<&WrittenMatcher> {
        match role {
            MatcherRole::Instancetype => self.instancetype.as_ref(),
            MatcherRole::Preference => self.preference.as_ref(),
        }
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

pub(super) fn is_spec_kind(kind: &str) -> bool {
    matches!(
        kind,
        "VirtualMachineInstancetype"
            | "VirtualMachineClusterInstancetype"
            | "VirtualMachinePreference"
            | "VirtualMachineClusterPreference"
    )
}

pub(super) fn written_matcher(spec: Option<&Value>, role: MatcherRole) -> Option<WrittenMatcher> {
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
pub(super) fn comparable(value: &Value) -> Value {
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
pub(super) fn renamed(file: &str, from: &str, to: &str) -> Option<String> {
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

pub(super) fn side_config(options: &Options) -> Result<crate::config::Config, Error> {
    let start = options
        .selection
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    crate::config::load(&options.config, &start)
}

pub(super) fn inputs_of(
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
