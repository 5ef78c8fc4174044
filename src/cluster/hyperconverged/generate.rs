//! What HCO makes of a HyperConverged object: the generated `KubeVirt` configuration, with
//! the webhook's defaults before and the JSON patch annotation after.

use serde_json::{Map, Value};

use super::super::hco_release;
use super::super::profile::KubeVirtVersion;
use super::generated::generated_kubevirt;
use super::jsonpatch::{PatchError, apply_jsonpatch_annotation};
use super::webhook::{Environment, with_webhook_defaults};

/// What HCO makes of a HyperConverged object for a KubeVirt release.
#[derive(Debug)]
pub struct Generation {
    /// The KubeVirt CR's `spec.configuration`, the JSON patch annotation applied.
    pub configuration: Value,
    /// Why the patch annotation cannot be applied (the configuration is then the one without
    /// it; HCO does not reconcile at all).
    pub patch_error: Option<PatchError>,
    /// Gates in both `featureGates` and `disabledFeatureGates` after the patch.
    pub conflicting_gates: Vec<String>,
}

/// The KubeVirt configuration the HCO release that ships `version` generates.
pub fn generate(object: &Value, version: KubeVirtVersion, environment: Environment) -> Generation {
    let defaulted = with_webhook_defaults(object, environment);
    let object = defaulted.as_ref().unwrap_or(object);
    let release = hco_release::for_kubevirt(version);
    let generated = generated_kubevirt(object, release);
    let (kubevirt, patch_error) = match apply_jsonpatch_annotation(object, &generated) {
        Ok(patched) => (patched, None),
        Err(error) => (generated, Some(error)),
    };
    let configuration = kubevirt
        .pointer("/spec/configuration")
        .filter(|c| c.is_object())
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let conflicting_gates = conflicting_gates(&configuration);
    Generation {
        configuration,
        patch_error,
        conflicting_gates,
    }
}

/// The configuration HCO generates for the newest KubeVirt release kvlint knows.
pub fn kubevirt_configuration(object: &Value) -> (Value, Option<PatchError>) {
    let generation = generate(object, KubeVirtVersion::LATEST, Environment::default());
    (generation.configuration, generation.patch_error)
}

pub(super) fn gate_names<'v>(configuration: &'v Value, list: &str) -> Vec<&'v str> {
    configuration
        .pointer(&format!("/developerConfiguration/{list}"))
        .and_then(Value::as_array)
        .map(|gates| gates.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

pub(super) fn conflicting_gates(configuration: &Value) -> Vec<String> {
    let disabled = gate_names(configuration, "disabledFeatureGates");
    let mut both: Vec<String> = gate_names(configuration, "featureGates")
        .into_iter()
        .filter(|g| disabled.contains(g))
        .map(str::to_owned)
        .collect();
    both.sort();
    both.dedup();
    both
}
