//! The OpenShift Virtualization / HyperConverged Cluster Operator (`hco.kubevirt.io`
//! `HyperConverged`) as a source of the cluster profile: HCO owns the `KubeVirt` CR and writes
//! its `spec.configuration` from the HyperConverged spec, so kvlint derives the same
//! configuration (upstream `controllers/handlers/kubevirt.go`).
//!
//! Not derivable from the object: machine types (HCO takes them from its operator's environment)
//! and the eviction strategy HCO defaults by cluster topology; set them in `.kvlint.yaml`
//! `cluster:` or with the `kubevirt.kubevirt.io/jsonpatch` annotation, which is applied as HCO
//! applies it.

use serde_json::{Map, Value, json};

use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules;
use crate::yaml::FieldPath;

pub const GROUP: &str = "hco.kubevirt.io";
pub const KIND: &str = "HyperConverged";

/// The JSON patch HCO applies to the KubeVirt CR it generates.
const KUBEVIRT_JSONPATCH: &str = "kubevirt.kubevirt.io/jsonpatch";
const PASST_BINDING_ANNOTATION: &str = "hco.kubevirt.io/deployPasstNetworkBinding";

/// KubeVirt feature gates HCO always enables.
const MANDATORY_GATES: [&str; 5] = [
    "CPUManager",
    "Snapshot",
    "HostDevices",
    "KubevirtSeccompProfile",
    "HypervStrictCheck",
];

/// HCO feature gates that enable a KubeVirt gate of the same meaning, and their HCO defaults.
const MAPPED_GATES: [(&str, &[&str], bool); 6] = [
    ("downwardMetrics", &["DownwardMetrics"], false),
    ("alignCPUs", &["AlignCPUs"], false),
    ("objectGraph", &["ObjectGraph"], false),
    (
        "decentralizedLiveMigration",
        &["DecentralizedLiveMigration"],
        true,
    ),
    (
        "incrementalBackup",
        &["IncrementalBackup", "UtilityVolumes"],
        false,
    ),
    ("containerPathVolumes", &["ContainerPathVolumes"], false),
];

/// KubeVirt's Beta gates, on by default from v1.9: HCO lists every one it does not enable in
/// `disabledFeatureGates`.
const BETA_GATES: [&str; 8] = [
    "PasstBinding",
    "WorkloadEncryptionSEV",
    "DeclarativeHotplugVolumes",
    "GPUsWithDRA",
    "HostDevicesWithDRA",
    "RebootPolicy",
    "PersistentReservation",
    "DecentralizedLiveMigration",
];

/// Whether an HCO feature gate is on: `v1beta1` writes a map of booleans, `v1` a list of
/// `{name, state}` (a listed gate without state is enabled).
fn hco_gate(spec: &Value, name: &str, default: bool) -> bool {
    match spec.get("featureGates") {
        Some(Value::Object(gates)) => gates.get(name).and_then(Value::as_bool).unwrap_or(default),
        Some(Value::Array(gates)) => gates
            .iter()
            .find(|g| g.get("name").and_then(Value::as_str) == Some(name))
            .map_or(default, |g| {
                g.get("state").and_then(Value::as_str).unwrap_or("Enabled") == "Enabled"
            }),
        _ => default,
    }
}

/// The first of several paths (the `v1beta1` one, then the `v1` one) that is set.
fn first<'v>(spec: &'v Value, pointers: &[&str]) -> Option<&'v Value> {
    pointers
        .iter()
        .find_map(|p| spec.pointer(p).filter(|v| !v.is_null()))
}

fn kubevirt_gates(object: &Value, spec: &Value) -> (Vec<String>, Vec<String>) {
    let mut enabled: Vec<String> = MANDATORY_GATES.iter().map(|g| (*g).to_owned()).collect();
    for (hco, kubevirt, default) in MAPPED_GATES {
        if hco_gate(spec, hco, default) {
            enabled.extend(kubevirt.iter().map(|g| (*g).to_owned()));
        }
    }
    enabled.push(
        if hco_gate(spec, "declarativeHotplugVolumes", true) {
            "DeclarativeHotplugVolumes"
        } else {
            "HotplugVolumes"
        }
        .to_owned(),
    );
    let passt = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(PASST_BINDING_ANNOTATION))
        .and_then(Value::as_str)
        == Some("true");
    if passt {
        enabled.push("PasstBinding".to_owned());
    }
    enabled.sort();
    let disabled = BETA_GATES
        .iter()
        .filter(|g| !enabled.iter().any(|e| e == *g))
        .map(|g| (*g).to_owned())
        .collect();
    (enabled, disabled)
}

/// The `KubeVirt` `spec.configuration` HCO generates for a HyperConverged object, with the
/// fields the cluster profile and `kvlint diff` read. A `kubevirt.kubevirt.io/jsonpatch` annotation that cannot
/// be applied is left out and returned as the error.
pub fn kubevirt_configuration(object: &Value) -> (Value, Option<String>) {
    let empty = Value::Object(Map::new());
    let spec = object.get("spec").unwrap_or(&empty);
    let (gates, disabled) = kubevirt_gates(object, spec);
    let mut developer = Map::new();
    developer.insert("featureGates".to_owned(), json!(gates));
    developer.insert("disabledFeatureGates".to_owned(), json!(disabled));
    if let Some(percent) = first(
        spec,
        &[
            "/higherWorkloadDensity/memoryOvercommitPercentage",
            "/virtualization/higherWorkloadDensity/memoryOvercommitPercentage",
        ],
    ) {
        developer.insert("memoryOvercommit".to_owned(), percent.clone());
    }
    let mut config = Map::new();
    config.insert(
        "developerConfiguration".to_owned(),
        Value::Object(developer),
    );
    config.insert(
        "network".to_owned(),
        json!({"defaultNetworkInterface": "masquerade"}),
    );
    config.insert("vmRolloutStrategy".to_owned(), json!("LiveUpdate"));
    let copied: [(&str, &[&str]); 6] = [
        (
            "liveUpdateConfiguration",
            &[
                "/liveUpdateConfiguration",
                "/virtualization/liveUpdateConfiguration",
            ],
        ),
        (
            "evictionStrategy",
            &["/evictionStrategy", "/virtualization/evictionStrategy"],
        ),
        (
            "cpuModel",
            &[
                "/defaultCPUModel",
                "/virtualization/virtualMachineOptions/defaultCPUModel",
            ],
        ),
        (
            "defaultRuntimeClass",
            &[
                "/defaultRuntimeClass",
                "/virtualization/virtualMachineOptions/defaultRuntimeClass",
            ],
        ),
        (
            "instancetype",
            &["/instancetypeConfig", "/workloadSources/instancetypeConfig"],
        ),
        (
            "commonInstancetypesDeployment",
            &[
                "/CommonInstancetypesDeployment",
                "/commonInstancetypesDeployment",
                "/workloadSources/commonInstancetypesDeployment",
            ],
        ),
    ];
    for (field, pointers) in copied {
        if let Some(value) = first(spec, pointers) {
            config.insert(field.to_owned(), value.clone());
        }
    }
    let configuration = Value::Object(config);
    match apply_jsonpatch_annotation(object, &configuration) {
        Ok(patched) => (patched, None),
        Err(error) => (configuration, Some(error)),
    }
}

fn apply_jsonpatch_annotation(object: &Value, configuration: &Value) -> Result<Value, String> {
    let patch = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(KUBEVIRT_JSONPATCH))
        .and_then(Value::as_str);
    let Some(patch) = patch else {
        return Ok(configuration.clone());
    };
    let operations: Vec<Value> = serde_json::from_str(patch)
        .map_err(|err| format!("annotation {KUBEVIRT_JSONPATCH} is not a JSON patch: {err}"))?;
    let mut kubevirt = json!({"spec": {"configuration": configuration}});
    for operation in &operations {
        apply_operation(&mut kubevirt, operation)
            .map_err(|err| format!("annotation {KUBEVIRT_JSONPATCH}: {err}"))?;
    }
    Ok(kubevirt
        .pointer("/spec/configuration")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new())))
}

/// Whether an object is a HyperConverged CR.
pub fn is_hyperconverged(object: &Object) -> bool {
    object.group == GROUP && object.kind == KIND
}

/// Findings about HyperConverged objects: a JSON patch annotation kvlint cannot apply.
pub fn findings(objects: &[Object]) -> Vec<Finding> {
    objects
        .iter()
        .filter(|o| is_hyperconverged(o))
        .filter_map(|object| {
            let (_, error) = kubevirt_configuration(&object.node.to_json());
            let path = FieldPath::parse("metadata.annotations").key(KUBEVIRT_JSONPATCH);
            error.map(|message| {
                Finding::new(&rules::INVALID_OBJECT, object.field_location(&path), message)
                    .with_object(Some(object.object_ref()))
                    .with_path(path.to_string())
                    .with_help("the cluster profile is derived without the patch; HCO refuses to reconcile with an invalid patch as well")
            })
        })
        .collect()
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// One RFC 6902 `add`, `replace` or `remove` operation (the ones HCO's documentation uses).
fn apply_operation(document: &mut Value, operation: &Value) -> Result<(), String> {
    let op = operation.get("op").and_then(Value::as_str).unwrap_or("");
    let path = operation
        .get("path")
        .and_then(Value::as_str)
        .ok_or("an operation without a path")?;
    let mut tokens: Vec<String> = path.split('/').skip(1).map(unescape).collect();
    let last = tokens.pop().ok_or("an operation on the whole document")?;
    let mut parent = &mut *document;
    for token in &tokens {
        parent = match parent {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("`{path}`: `{token}` does not exist"))?;
    }
    let value = || {
        operation
            .get("value")
            .cloned()
            .ok_or_else(|| format!("`{op}` of `{path}` without a value"))
    };
    match (op, parent) {
        ("add" | "replace", Value::Object(map)) => {
            map.insert(last, value()?);
        }
        ("remove", Value::Object(map)) => {
            map.remove(&last);
        }
        ("add", Value::Array(items)) if last == "-" => items.push(value()?),
        ("add", Value::Array(items)) => {
            let index = last
                .parse::<usize>()
                .ok()
                .filter(|i| *i <= items.len())
                .ok_or_else(|| format!("`{path}`: no index {last}"))?;
            items.insert(index, value()?);
        }
        ("replace" | "remove", Value::Array(items)) => {
            let index = last
                .parse::<usize>()
                .ok()
                .filter(|i| *i < items.len())
                .ok_or_else(|| format!("`{path}`: no index {last}"))?;
            if op == "replace" {
                items[index] = value()?;
            } else {
                items.remove(index);
            }
        }
        ("add" | "replace" | "remove", _) => {
            return Err(format!("`{path}`: the parent is not an object or a list"));
        }
        (other, _) => return Err(format!("operation `{other}` is not supported")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::profile::{ClusterProfile, PodBinding};

    fn profile(object: &Value) -> ClusterProfile {
        let mut profile = ClusterProfile::default();
        profile.configure(&kubevirt_configuration(object).0);
        profile
    }

    #[test]
    fn maps_the_v1beta1_fields_kvlint_uses() {
        let hco = json!({
            "apiVersion": "hco.kubevirt.io/v1beta1",
            "kind": "HyperConverged",
            "metadata": {"name": "kubevirt-hyperconverged", "namespace": "openshift-cnv"},
            "spec": {
                "featureGates": {"downwardMetrics": true, "decentralizedLiveMigration": false},
                "defaultCPUModel": "Haswell",
                "evictionStrategy": "LiveMigrate",
                "higherWorkloadDensity": {"memoryOvercommitPercentage": 150},
                "instancetypeConfig": {"referencePolicy": "expandAll"},
                "CommonInstancetypesDeployment": {"enabled": false},
                "liveUpdateConfiguration": {"maxHotplugRatio": 2}
            }
        });
        let (configuration, error) = kubevirt_configuration(&hco);
        assert!(error.is_none());
        assert_eq!(configuration["vmRolloutStrategy"], "LiveUpdate");
        assert_eq!(
            configuration.pointer("/liveUpdateConfiguration/maxHotplugRatio"),
            Some(&json!(2))
        );
        let profile = profile(&hco);
        assert!(profile.has_feature_gate("DownwardMetrics"));
        assert!(profile.has_feature_gate("Snapshot"));
        assert!(profile.has_feature_gate("DeclarativeHotplugVolumes"));
        assert!(!profile.has_feature_gate("DecentralizedLiveMigration"));
        assert!(profile.has_disabled_feature_gate("DecentralizedLiveMigration"));
        assert!(profile.has_disabled_feature_gate("PasstBinding"));
        assert_eq!(profile.pod_binding, PodBinding::Masquerade);
        assert_eq!(profile.eviction_strategy.as_deref(), Some("LiveMigrate"));
        assert_eq!(profile.memory_overcommit, 150);
        assert_eq!(profile.reference_policy, "expandAll");
        assert!(!profile.deploy_catalog);
    }

    #[test]
    fn maps_the_v1_layout() {
        let hco = json!({
            "apiVersion": "hco.kubevirt.io/v1",
            "kind": "HyperConverged",
            "metadata": {"annotations": {"hco.kubevirt.io/deployPasstNetworkBinding": "true"}},
            "spec": {
                "featureGates": [{"name": "alignCPUs"}, {"name": "declarativeHotplugVolumes", "state": "Disabled"}],
                "virtualization": {"evictionStrategy": "None"},
                "workloadSources": {
                    "instancetypeConfig": {"referencePolicy": "expand"},
                    "commonInstancetypesDeployment": {"enabled": true}
                }
            }
        });
        let profile = profile(&hco);
        assert!(profile.has_feature_gate("AlignCPUs"));
        assert!(profile.has_feature_gate("HotplugVolumes"));
        assert!(profile.has_feature_gate("PasstBinding"));
        assert!(!profile.has_disabled_feature_gate("PasstBinding"));
        assert!(profile.has_disabled_feature_gate("DeclarativeHotplugVolumes"));
        assert_eq!(profile.reference_policy, "expand");
        assert_eq!(profile.eviction_strategy.as_deref(), Some("None"));
    }

    #[test]
    fn applies_the_kubevirt_jsonpatch_annotation() {
        let patch = r#"[{"op": "add", "path": "/spec/configuration/machineType", "value": "pc-q35-rhel9.6.0"},
                        {"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-", "value": "VideoConfig"},
                        {"op": "replace", "path": "/spec/configuration/network/defaultNetworkInterface", "value": "bridge"}]"#;
        let hco = json!({"metadata": {"annotations": {"kubevirt.kubevirt.io/jsonpatch": patch}}, "spec": {}});
        let profile = profile(&hco);
        assert_eq!(profile.machine_type_for("amd64"), "pc-q35-rhel9.6.0");
        assert!(profile.has_feature_gate("VideoConfig"));
        assert_eq!(profile.pod_binding, PodBinding::Bridge);
        let broken = json!({"metadata": {"annotations": {"kubevirt.kubevirt.io/jsonpatch": "[{\"op\": \"move\", \"path\": \"/spec/x\"}]"}}});
        let (configuration, error) = kubevirt_configuration(&broken);
        assert!(error.is_some_and(|e| e.contains("move")));
        assert!(
            configuration
                .pointer("/developerConfiguration/featureGates")
                .is_some()
        );
    }
}
