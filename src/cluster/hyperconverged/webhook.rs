//! What HCO's mutating webhook writes into a HyperConverged object before HCO reads it: the
//! `evictionStrategy` it defaults from the cluster's topology.

use serde_json::{Map, Value, json};

use super::read::first;

/// The `evictionStrategy` HCO's mutating webhook writes into a HyperConverged object that
/// sets none, on any create or update once HCO has recorded the topology in its status
/// (`mutateEvictionStrategy`, `mutateV1beta1EvictionStrategy`, HCO 1.12 and later):
/// `LiveMigrate` with two or more worker nodes, else `None`.
pub fn webhook_eviction_strategy(object: &Value, environment: Environment) -> Option<&'static str> {
    if eviction_strategy(object).is_some() {
        return None;
    }
    environment
        .infrastructure_highly_available
        .map(|highly_available| {
            if highly_available {
                "LiveMigrate"
            } else {
                "None"
            }
        })
}

pub(super) fn eviction_strategy(object: &Value) -> Option<&Value> {
    object.get("spec").and_then(|spec| {
        first(
            spec,
            &["/evictionStrategy", "/virtualization/evictionStrategy"],
        )
    })
}

/// The object as HCO's webhook leaves it: `evictionStrategy` written where its API version
/// keeps it (`v1` moved it under `virtualization`).
pub(super) fn with_webhook_defaults(object: &Value, environment: Environment) -> Option<Value> {
    let strategy = webhook_eviction_strategy(object, environment)?;
    let mut object = object.clone();
    let v1 = object.get("apiVersion").and_then(Value::as_str) == Some("hco.kubevirt.io/v1");
    let spec = object
        .as_object_mut()?
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    let holder = if v1 {
        spec.as_object_mut()?
            .entry("virtualization")
            .or_insert_with(|| Value::Object(Map::new()))
    } else {
        spec
    };
    holder
        .as_object_mut()?
        .insert("evictionStrategy".to_owned(), json!(strategy));
    Some(object)
}

/// What HCO reads from the cluster rather than from the HyperConverged object, as
/// `.kvlint.yaml`'s `hyperconverged:` states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// HCO's `status.infrastructureHighlyAvailable`: two or more worker nodes
    /// (`nodeinfo.HandleNodeChanges`). Unknown offline unless configured.
    pub infrastructure_highly_available: Option<bool>,
}
