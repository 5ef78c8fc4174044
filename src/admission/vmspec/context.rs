//! What every check of `ValidateVirtualMachineInstanceSpec` reads and writes: the template
//! spec, the cluster profile, and the causes found so far.

use serde_json::Value;

use super::feature_gates::gate;
use crate::admission::Cause;
use crate::cluster::profile::ClusterProfile;
use crate::model::value::{array_at, bool_at, present_at};

pub(super) struct Ctx<'a> {
    pub(super) spec: &'a Value,
    pub(super) profile: &'a ClusterProfile,
    pub(super) causes: Vec<Cause>,
}

impl<'a> Ctx<'a> {
    pub(super) fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.causes.push(Cause::new(field, message));
    }

    pub(super) fn gate(&self, name: &str) -> bool {
        gate(self.profile, name)
    }

    pub(super) fn cpu(&self) -> Option<&'a Value> {
        present_at(self.spec, &["domain", "cpu"])
    }

    pub(super) fn dedicated(&self) -> bool {
        self.cpu()
            .and_then(|cpu| bool_at(cpu, &["dedicatedCpuPlacement"]))
            == Some(true)
    }

    pub(super) fn devices(&self, key: &str) -> &'a [Value] {
        array_at(self.spec, &["domain", "devices", key])
    }
}
