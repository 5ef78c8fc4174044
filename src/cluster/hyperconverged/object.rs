//! The HyperConverged object, and what of `.kvlint.yaml`'s `cluster:` it leaves to the cluster.

use serde_json::{Map, Value};

use crate::k8s::Object;

pub const GROUP: &str = "hco.kubevirt.io";

pub const KIND: &str = "HyperConverged";

/// Whether an object is a HyperConverged CR.
pub fn is_hyperconverged(object: &Object) -> bool {
    object.group == GROUP && object.kind == KIND
}

/// The part of `.kvlint.yaml`'s `cluster:` that survives HCO: `architectureConfiguration`,
/// which HCO fills from its operator's environment (machine types) and the nodes (default
/// architecture). HCO overwrites every other field of the KubeVirt CR it owns.
pub fn environment_configuration(cluster: &Value) -> Value {
    let mut kept = Map::new();
    if let Some(architectures) = cluster.get(ENVIRONMENT_FIELD) {
        kept.insert(ENVIRONMENT_FIELD.to_owned(), architectures.clone());
    }
    Value::Object(kept)
}

pub(super) const ENVIRONMENT_FIELD: &str = "architectureConfiguration";

/// Where `.kvlint.yaml`'s `cluster:` is written, and its value.
#[derive(Clone, Debug)]
pub struct ClusterSetting<'a> {
    pub value: &'a Value,
    pub location: crate::diag::Location,
}
