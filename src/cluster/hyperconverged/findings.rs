//! Findings about HyperConverged objects: a patch HCO cannot apply, gates both enabled and
//! disabled, spellings the API server prunes, configuration HCO overwrites, and the eviction
//! strategy its webhook writes.

use serde_json::{Map, Value};

use super::super::hco_release::{self, HcoRelease};
use super::super::profile::{ClusterProfile, KubeVirtVersion};
use super::generate::generate;
use super::jsonpatch::KUBEVIRT_JSONPATCH;
use super::object::{ClusterSetting, ENVIRONMENT_FIELD, is_hyperconverged};
use super::webhook::{Environment, eviction_strategy, webhook_eviction_strategy};
use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules;
use crate::yaml::FieldPath;

/// Findings about configuration HCO overwrites: a repository's own `KubeVirt` objects and the
/// fields of `cluster:` other than `architectureConfiguration`, when a HyperConverged object
/// owns the KubeVirt CR (`UpdateCR` copies the generated spec over the whole CR).
pub(super) fn overwritten(
    owner: &Object,
    objects: &[Object],
    cluster: Option<ClusterSetting<'_>>,
) -> Vec<Finding> {
    let related = || crate::diag::Related {
        location: owner.head_location(),
        message: format!("HyperConverged {}", owner.name),
    };
    let mut findings: Vec<Finding> = objects
        .iter()
        .filter(|o| o.group == crate::k8s::KUBEVIRT_GROUP && o.kind == "KubeVirt")
        .map(|kubevirt| {
            Finding::new(
                &rules::DUPLICATE_OBJECT,
                kubevirt.head_location(),
                format!(
                    "HyperConverged {} owns the cluster's KubeVirt CR and overwrites its spec: the configuration of KubeVirt {} does not apply, and kvlint judges VMs against the configuration HCO generates",
                    owner.name, kubevirt.name
                ),
            )
            .with_severity(crate::rules::Severity::Warning)
            .with_object(Some(kubevirt.object_ref()))
            .with_help("configure KubeVirt through the HyperConverged spec, or its kubevirt.kubevirt.io/jsonpatch annotation")
            .with_related(related())
        })
        .collect();
    if let Some(cluster) = cluster {
        let overwritten: Vec<&str> = cluster
            .value
            .as_object()
            .into_iter()
            .flat_map(|fields| fields.keys())
            .map(String::as_str)
            .filter(|key| *key != ENVIRONMENT_FIELD)
            .collect();
        if !overwritten.is_empty() {
            findings.push(
                Finding::new(
                    &rules::INVALID_CONFIG,
                    cluster.location,
                    format!(
                        "cluster: sets {}, which HCO overwrites in the KubeVirt CR it generates from HyperConverged {}: kvlint uses only cluster.{ENVIRONMENT_FIELD} (machine types come from HCO's environment)",
                        overwritten.join(", "),
                        owner.name
                    ),
                )
                .with_severity(crate::rules::Severity::Warning)
                .with_help("configure KubeVirt through the HyperConverged spec, or its kubevirt.kubevirt.io/jsonpatch annotation")
                .with_related(related()),
            );
        }
    }
    findings
}

/// `v1beta1` spec fields kvlint reads, as the CRD spells them.
pub(super) const V1BETA1_FIELDS: [&str; 12] = [
    "CommonInstancetypesDeployment",
    "defaultCPUModel",
    "defaultRuntimeClass",
    "evictionStrategy",
    "featureGates",
    "higherWorkloadDensity",
    "instancetypeConfig",
    "ksmConfiguration",
    "liveMigrationConfig",
    "liveUpdateConfiguration",
    "vmStateStorageClass",
    "workloadUpdateStrategy",
];

/// Keys of a `v1beta1` spec (and of its `featureGates` map) that differ from a field HCO
/// reads only in case: the API server matches field names exactly and prunes them, so HCO
/// never sees them (`commonInstancetypesDeployment` for `CommonInstancetypesDeployment`).
pub(super) fn pruned_spellings(
    object: &Object,
    release: &HcoRelease,
) -> Vec<(FieldPath, String, &'static str)> {
    if object.version != "v1beta1" {
        return Vec::new();
    }
    let spec = object.node.to_json();
    let spec = spec.get("spec");
    let gates: Vec<&'static str> = release
        .mapped
        .iter()
        .map(|g| g.hco)
        .chain(["declarativeHotplugVolumes", "persistentReservation"])
        .collect();
    let near = |key: &str, known: &[&'static str]| {
        known
            .iter()
            .find(|k| **k != key && k.eq_ignore_ascii_case(key))
            .copied()
    };
    let mut pruned = Vec::new();
    for key in spec
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::keys)
    {
        if let Some(field) = near(key, &V1BETA1_FIELDS) {
            pruned.push((FieldPath::parse("spec").key(key), key.clone(), field));
        }
    }
    let gate_map = spec
        .and_then(|s| s.get("featureGates"))
        .and_then(Value::as_object);
    for key in gate_map.into_iter().flat_map(Map::keys) {
        if let Some(gate) = near(key, &gates) {
            pruned.push((
                FieldPath::parse("spec.featureGates").key(key),
                key.clone(),
                gate,
            ));
        }
    }
    pruned
}

pub(super) fn pruned_findings(object: &Object, release: &HcoRelease) -> Vec<Finding> {
    pruned_spellings(object, release)
        .into_iter()
        .map(|(path, key, field)| {
            Finding::new(
                &rules::UNKNOWN_FIELD,
                object.field_location(&path),
                format!(
                    "HyperConverged {} v1beta1 has no field `{}` (field names are case-sensitive): the API server prunes it, so HCO does not apply it",
                    object.name, key
                ),
            )
            .with_object(Some(object.object_ref()))
            .with_path(path.to_string())
            .with_help(format!("did you mean `{field}`?"))
        })
        .collect()
}

/// Findings about HyperConverged objects: a JSON patch annotation HCO cannot apply, a
/// generated KubeVirt CR that lists a gate both enabled and disabled, and configuration HCO
/// overwrites.
pub fn findings(
    objects: &[Object],
    version: KubeVirtVersion,
    cluster: Option<ClusterSetting<'_>>,
    environment: Environment,
    cluster_default: crate::rules::Severity,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(owner) = objects.iter().find(|o| is_hyperconverged(o)) {
        findings.extend(overwritten(owner, objects, cluster));
    }
    for object in objects.iter().filter(|o| is_hyperconverged(o)) {
        findings.extend(pruned_findings(object, hco_release::for_kubevirt(version)));
        let json = object.node.to_json();
        findings.extend(eviction_strategy_finding(
            object,
            &json,
            environment,
            cluster_default,
        ));
        let generation = generate(&json, version, environment);
        let path = FieldPath::parse("metadata.annotations").key(KUBEVIRT_JSONPATCH);
        let finding = |message: String, help: &str| {
            Finding::new(
                &rules::INVALID_OBJECT,
                object.field_location(&path),
                message,
            )
            .with_object(Some(object.object_ref()))
            .with_path(path.to_string())
            .with_help(help)
        };
        if let Some(error) = generation.patch_error {
            findings.push(finding(
                error.to_string(),
                "the cluster profile is derived without the patch; HCO refuses to reconcile with an invalid patch as well",
            ));
        }
        if !generation.conflicting_gates.is_empty() {
            findings.push(finding(
                format!(
                    "the KubeVirt CR HCO generates lists {} in both featureGates and disabledFeatureGates: KubeVirt treats the gate as enabled, and virt-operator refuses every later update of the CR (feature gate \"{}\" exists on both \"FeatureGates\" and \"DisabledFeatureGates\")",
                    generation.conflicting_gates.join(", "),
                    generation.conflicting_gates[0]
                ),
                "enable the gate through the HyperConverged featureGates where HCO has one, or also remove it from /spec/configuration/developerConfiguration/disabledFeatureGates in the patch",
            ));
        }
    }
    findings
}

/// The `evictionStrategy` HCO's webhook writes into a HyperConverged object that sets none:
/// a field Git does not have (a cluster default, reported at `severity`), whose value depends
/// on the worker nodes.
pub(super) fn eviction_strategy_finding(
    object: &Object,
    json: &Value,
    environment: Environment,
    severity: crate::rules::Severity,
) -> Option<Finding> {
    if eviction_strategy(json).is_some() {
        return None;
    }
    let v1 = object.api_version == "hco.kubevirt.io/v1";
    let field = if v1 {
        "spec.virtualization.evictionStrategy"
    } else {
        "spec.evictionStrategy"
    };
    let message = match webhook_eviction_strategy(json, environment) {
        Some(strategy) => format!(
            "HCO's webhook writes `{field}: {strategy}` into this HyperConverged at its next create or update (.kvlint.yaml: hyperconverged.infrastructureHighlyAvailable: {}), and every VM that sets no evictionStrategy gets {strategy}",
            environment.infrastructure_highly_available == Some(true)
        ),
        None => format!(
            "HCO's webhook writes `{field}` into this HyperConverged once HCO has counted the worker nodes: LiveMigrate with two or more, None with one; kvlint cannot see the nodes and renders KubeVirt's default (None) for VMs that set no evictionStrategy"
        ),
    };
    let kind = crate::rules::DriftKind::ClusterDefault;
    let mut finding = Finding::new(
        &rules::EVICTION_STRATEGY_DEFAULTED,
        object.field_location(&FieldPath::parse("spec")),
        message,
    )
    .with_object(Some(object.object_ref()))
    .with_path(field.to_owned())
    .with_help("write evictionStrategy in the HyperConverged object so that the repository says what runs, or set `hyperconverged: {infrastructureHighlyAvailable: true|false}` in .kvlint.yaml");
    finding.drift = Some(kind);
    finding.severity = severity;
    Some(finding)
}

/// What the user should know when a HyperConverged object is the profile source and no machine
/// type is configured: HCO takes machine types from its operator's environment (OpenShift
/// Virtualization ships RHEL machine types), which kvlint cannot read.
pub fn machine_type_note(objects: &[Object], profile: &ClusterProfile) -> Option<String> {
    let owner = objects.iter().find(|o| is_hyperconverged(o))?;
    if profile.machine_type.is_some() || !profile.arch_machine_types.is_empty() {
        return None;
    }
    Some(format!(
        "HyperConverged {}: HCO sets the machine types from its operator's environment, which kvlint cannot read; VMs are rendered with KubeVirt's default ({} for {}): set cluster.architectureConfiguration.<arch>.machineType in .kvlint.yaml to the cluster's",
        owner.name,
        profile.machine_type_for(&profile.default_architecture),
        profile.default_architecture
    ))
}
