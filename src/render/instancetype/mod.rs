//! Applying an instance type to a VMI spec (`pkg/instancetype/apply/`, KubeVirt v1.9).
//!
//! Ten steps in KubeVirt's order. Each step checks for conflicts first and writes only when it
//! has none; all conflicts are collected.

mod annotations;
mod cpu;
mod gpus;
mod hostdevices;
mod iothreads;
mod iothreadspolicy;
mod launchsecurity;
mod memory;
mod nodeselector;
mod scheduler;

use super::conflict::Conflict;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::Obj;
use crate::model::{InstancetypeSpec, PreferenceSpec};

/// Applies `instancetype` to `spec` (the VMI spec) and `metadata` (the template metadata) and
/// returns the conflicts, in KubeVirt's order.
pub(crate) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    preference: Option<&PreferenceSpec>,
    spec: &mut Obj,
    metadata: &mut Obj,
    version: KubeVirtVersion,
) -> Vec<Conflict> {
    let mut conflicts = Vec::new();
    if version.at_least(1, 1) {
        conflicts.extend(nodeselector::apply(prefix, instancetype, spec));
        conflicts.extend(scheduler::apply(prefix, instancetype, spec));
    }
    conflicts.extend(cpu::apply(prefix, instancetype, preference, spec, version));
    conflicts.extend(memory::apply(prefix, instancetype, spec, version));
    if version.at_least(1, 7) {
        conflicts.extend(iothreads::apply(prefix, instancetype, spec));
    }
    conflicts.extend(iothreadspolicy::apply(prefix, instancetype, spec));
    conflicts.extend(launchsecurity::apply(prefix, instancetype, spec));
    conflicts.extend(gpus::apply(prefix, instancetype, spec));
    conflicts.extend(hostdevices::apply(prefix, instancetype, spec));
    if version.at_least(1, 1) {
        conflicts.extend(annotations::apply(instancetype, metadata));
    }
    conflicts
}

#[cfg(test)]
mod tests;
