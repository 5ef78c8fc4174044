//! The OpenShift Virtualization / HyperConverged Cluster Operator (`hco.kubevirt.io`
//! `HyperConverged`) as the source of the cluster profile. HCO owns the `KubeVirt` CR and
//! overwrites its spec with one it generates from the HyperConverged object (`NewKubeVirt`,
//! `getKVConfig` in `controllers/handlers/kubevirt.go`), then applies the object's
//! `kubevirt.kubevirt.io/jsonpatch` annotation to the whole generated CR. kvlint generates the
//! same CR for the HCO release that ships the target KubeVirt release (`hco_release`).
//!
//! Not modelled, because they come from the cluster rather than the object: machine types and
//! the default architecture (HCO's operator environment and the nodes: set them in `cluster:`
//! `architectureConfiguration`), KVM emulation, gates HCO adds for cluster state
//! (`SecureExecution` with s390x workers, `ExternalNetResourceInjection` once the network
//! resources injector is ready), the worker-node count behind the `evictionStrategy` HCO's
//! webhook writes into the HyperConverged object (`Environment`: `.kvlint.yaml`
//! `hyperconverged:`; unknown, kvlint renders KubeVirt's default and reports it), node
//! placement, TLS, certificate rotation, the product version, and the typed round trip after
//! the patch (unknown fields the patch adds are dropped by HCO, kept by kvlint).

use serde_json::{Map, Value, json};

use super::hco_release::{self, HcoRelease};
use super::profile::{ClusterProfile, KubeVirtVersion};
use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules;
use crate::yaml::FieldPath;

pub const GROUP: &str = "hco.kubevirt.io";
pub const KIND: &str = "HyperConverged";

/// The JSON patch HCO applies to the KubeVirt CR it generates.
const KUBEVIRT_JSONPATCH: &str = "kubevirt.kubevirt.io/jsonpatch";
const PASST_BINDING_ANNOTATION: &str = "hco.kubevirt.io/deployPasstNetworkBinding";
const AIE_ANNOTATION: &str = "hco.kubevirt.io/deployAIE";

/// CPU models HCO always marks obsolete (`hardcodedObsoleteCPUModels`).
const OBSOLETE_CPU_MODELS: [&str; 34] = [
    "486",
    "486-v1",
    "pentium",
    "pentium-v1",
    "pentium2",
    "pentium2-v1",
    "pentium3",
    "pentium3-v1",
    "pentiumpro",
    "pentiumpro-v1",
    "coreduo",
    "coreduo-v1",
    "n270",
    "n270-v1",
    "core2duo",
    "core2duo-v1",
    "Conroe",
    "Conroe-v1",
    "athlon",
    "athlon-v1",
    "phenom",
    "phenom-v1",
    "qemu64",
    "qemu64-v1",
    "qemu32",
    "qemu32-v1",
    "kvm64",
    "kvm64-v1",
    "kvm32",
    "kvm32-v1",
    "Opteron_G1",
    "Opteron_G1-v1",
    "Opteron_G2",
    "Opteron_G2-v1",
];

/// The live-migration fields HCO copies into `spec.configuration.migrations`.
const MIGRATION_FIELDS: [&str; 9] = [
    "bandwidthPerMigration",
    "completionTimeoutPerGiB",
    "parallelOutboundMigrationsPerNode",
    "parallelMigrationsPerCluster",
    "progressTimeout",
    "network",
    "allowAutoConverge",
    "allowPostCopy",
    "allowWorkloadDisruption",
];

/// Whether an HCO feature gate is on. `v1beta1` writes a map of booleans whose keys the API
/// server matches exactly (another spelling is pruned); `v1` a list of `{name, state}` (a
/// listed gate without state is enabled), matched case-insensitively from HCO 1.19.
fn hco_gate(spec: &Value, name: &str, default: bool, release: &HcoRelease) -> bool {
    match spec.get("featureGates") {
        Some(Value::Object(gates)) => gates.get(name).and_then(Value::as_bool).unwrap_or(default),
        Some(Value::Array(gates)) => gates
            .iter()
            .find(|g| {
                g.get("name").and_then(Value::as_str).is_some_and(|n| {
                    if release.v1_names_case_insensitive {
                        n.eq_ignore_ascii_case(name)
                    } else {
                        n == name
                    }
                })
            })
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

fn annotation<'v>(object: &'v Value, name: &str) -> Option<&'v str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(name))
        .and_then(Value::as_str)
}

/// `getKvFeatureGateList` and `getKvDisabledFeatureGateList`: the enabled gates (sorted) and
/// the Beta gates HCO disables.
fn kubevirt_gates(
    object: &Value,
    spec: &Value,
    release: &HcoRelease,
) -> (Vec<String>, Vec<String>) {
    let mut enabled: Vec<&str> = release.mandatory.to_vec();
    for gate in release.mapped {
        if hco_gate(spec, gate.hco, gate.default, release) {
            enabled.extend(gate.kubevirt);
        }
    }
    if let Some(default) = release.declarative_hotplug_default {
        enabled.push(
            if hco_gate(spec, "declarativeHotplugVolumes", default, release) {
                "DeclarativeHotplugVolumes"
            } else {
                "HotplugVolumes"
            },
        );
    }
    if let Some(gate) = release.passt_gate
        && annotation(object, PASST_BINDING_ANNOTATION) == Some("true")
    {
        enabled.push(gate);
    }
    if release.kubevirt.at_least(1, 8) {
        if annotation(object, AIE_ANNOTATION) == Some("true") {
            if release.kubevirt.at_least(1, 9) {
                enabled.extend(["GraceIOVirtualization", "IOMMUFD"]);
            }
            enabled.push("PCINUMAAwareTopology");
        }
        let hypervisors = first(spec, &["/hypervisors", "/virtualization/hypervisors"]);
        if hypervisors
            .and_then(Value::as_array)
            .is_some_and(|h| !h.is_empty())
        {
            enabled.push("ConfigurableHypervisor");
        }
        if first(
            spec,
            &[
                "/roleAggregationStrategy",
                "/virtualization/roleAggregationStrategy",
            ],
        )
        .is_some()
        {
            enabled.push("OptOutRoleAggregation");
        }
    }
    enabled.sort_unstable();
    let disabled = release
        .beta_gates
        .iter()
        .filter(|g| !enabled.contains(g))
        .map(|g| (*g).to_owned())
        .collect();
    (enabled.into_iter().map(str::to_owned).collect(), disabled)
}

/// `toKvPersistentReservationConfiguration` (HCO 1.19): `storage.persistentReservationConfiguration.enabled`
/// (`v1`), else the deprecated `persistentReservation` gate (`v1beta1` converts its value to
/// the field; `v1` enables it when the gate is on).
fn persistent_reservation(spec: &Value, release: &HcoRelease) -> Option<bool> {
    if let Some(enabled) = spec
        .pointer("/storage/persistentReservationConfiguration/enabled")
        .and_then(Value::as_bool)
    {
        return Some(enabled);
    }
    match spec.get("featureGates") {
        Some(Value::Object(gates)) => gates.get("persistentReservation").and_then(Value::as_bool),
        Some(Value::Array(_)) => {
            hco_gate(spec, "persistentReservation", false, release).then_some(true)
        }
        _ => None,
    }
}

fn developer_configuration(object: &Value, spec: &Value, release: &HcoRelease) -> Value {
    let (gates, disabled) = kubevirt_gates(object, spec, release);
    let mut developer = Map::new();
    developer.insert("featureGates".to_owned(), json!(gates));
    if !disabled.is_empty() {
        developer.insert("disabledFeatureGates".to_owned(), json!(disabled));
    }
    developer.insert("diskVerification".to_owned(), json!({"memoryLimit": "2G"}));
    if let Some(percent) = first(
        spec,
        &[
            "/higherWorkloadDensity/memoryOvercommitPercentage",
            "/virtualization/higherWorkloadDensity/memoryOvercommitPercentage",
        ],
    ) {
        developer.insert("memoryOvercommit".to_owned(), percent.clone());
    }
    if let Some(verbosity) = first(
        spec,
        &[
            "/logVerbosityConfig/kubevirt",
            "/deployment/logVerbosityConfig/kubevirt",
        ],
    ) {
        developer.insert("logVerbosity".to_owned(), verbosity.clone());
    }
    Value::Object(developer)
}

fn network_configuration(spec: &Value) -> Value {
    let mut bindings = first(spec, &["/networkBinding", "/networking/networkBinding"])
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    bindings.insert(
        "l2bridge".to_owned(),
        json!({"domainAttachmentType": "managedTap", "migration": {}}),
    );
    json!({"defaultNetworkInterface": "masquerade", "binding": bindings})
}

fn migration_configuration(spec: &Value) -> Value {
    let given = first(
        spec,
        &[
            "/liveMigrationConfig",
            "/virtualization/liveMigrationConfig",
        ],
    );
    let mut migrations = Map::new();
    for field in MIGRATION_FIELDS {
        if let Some(value) = given.and_then(|g| g.get(field)).filter(|v| !v.is_null()) {
            migrations.insert(field.to_owned(), value.clone());
        }
    }
    Value::Object(migrations)
}

fn obsolete_cpu_models(spec: &Value) -> Value {
    let mut models: Map<String, Value> = OBSOLETE_CPU_MODELS
        .iter()
        .map(|m| ((*m).to_owned(), Value::Bool(true)))
        .collect();
    let given = first(
        spec,
        &[
            "/obsoleteCPUs/cpuModels",
            "/virtualization/obsoleteCPUModels",
        ],
    );
    for model in given.and_then(Value::as_array).into_iter().flatten() {
        if let Some(model) = model.as_str() {
            models.insert(model.to_owned(), Value::Bool(true));
        }
    }
    models.sort_keys();
    Value::Object(models)
}

/// `getKVConfig`: the `spec.configuration` HCO generates, with the fields that follow from the
/// HyperConverged object (the rest comes from the operator's environment and the nodes).
fn generated_configuration(object: &Value, spec: &Value, release: &HcoRelease) -> Value {
    let mut config = Map::new();
    config.insert(
        "developerConfiguration".to_owned(),
        developer_configuration(object, spec, release),
    );
    config.insert("network".to_owned(), network_configuration(spec));
    config.insert("migrations".to_owned(), migration_configuration(spec));
    config.insert("obsoleteCPUModels".to_owned(), obsolete_cpu_models(spec));
    config.insert(
        "seccompConfiguration".to_owned(),
        json!({"virtualMachineInstanceProfile": {"customProfile": {"localhostProfile": "kubevirt/kubevirt.json"}}}),
    );
    config.insert("vmRolloutStrategy".to_owned(), json!("LiveUpdate"));
    if release.reservation_configuration
        && let Some(enabled) = persistent_reservation(spec, release)
    {
        config.insert(
            "persistentReservationConfiguration".to_owned(),
            json!({"enabled": enabled}),
        );
    }
    // `CommonInstancetypesDeployment` is the `v1beta1` spelling (the API server prunes
    // `commonInstancetypesDeployment` there); `v1` moved it under `workloadSources`.
    let copied: [(&str, &[&str]); 8] = [
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
                "/workloadSources/commonInstancetypesDeployment",
            ],
        ),
        (
            "ksmConfiguration",
            &["/ksmConfiguration", "/virtualization/ksmConfiguration"],
        ),
        (
            "vmStateStorageClass",
            &["/vmStateStorageClass", "/storage/vmStateStorageClass"],
        ),
    ];
    for (field, pointers) in copied {
        if let Some(value) = first(spec, pointers) {
            config.insert(field.to_owned(), value.clone());
        }
    }
    Value::Object(config)
}

/// `NewKubeVirt`: the KubeVirt object HCO generates, before its JSON patch annotation.
fn generated_kubevirt(object: &Value, release: &HcoRelease) -> Value {
    let empty = Value::Object(Map::new());
    let spec = object.get("spec").unwrap_or(&empty);
    let namespace = object
        .pointer("/metadata/namespace")
        .cloned()
        .unwrap_or_else(|| json!("kubevirt-hyperconverged"));
    let uninstall = match first(
        spec,
        &["/uninstallStrategy", "/deployment/uninstallStrategy"],
    )
    .and_then(Value::as_str)
    {
        Some("RemoveWorkloads") => "RemoveWorkloads",
        _ => "BlockUninstallIfWorkloadsExist",
    };
    let mut kubevirt_spec = Map::new();
    kubevirt_spec.insert("uninstallStrategy".to_owned(), json!(uninstall));
    kubevirt_spec.insert(
        "configuration".to_owned(),
        generated_configuration(object, spec, release),
    );
    kubevirt_spec.insert(
        "workloadUpdateStrategy".to_owned(),
        first(
            spec,
            &[
                "/workloadUpdateStrategy",
                "/virtualization/workloadUpdateStrategy",
            ],
        )
        .cloned()
        .unwrap_or_else(|| json!({})),
    );
    kubevirt_spec.insert("productName".to_owned(), json!("hyperconverged-cluster"));
    kubevirt_spec.insert("productComponent".to_owned(), json!("compute"));
    json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"name": "kubevirt-kubevirt-hyperconverged", "namespace": namespace},
        "spec": kubevirt_spec,
    })
}

/// What HCO makes of a HyperConverged object for a KubeVirt release.
#[derive(Debug)]
pub struct Generation {
    /// The KubeVirt CR's `spec.configuration`, the JSON patch annotation applied.
    pub configuration: Value,
    /// Why the patch annotation cannot be applied (the configuration is then the one without
    /// it; HCO does not reconcile at all).
    pub patch_error: Option<String>,
    /// Gates in both `featureGates` and `disabledFeatureGates` after the patch.
    pub conflicting_gates: Vec<String>,
}

/// What HCO reads from the cluster rather than from the HyperConverged object, as
/// `.kvlint.yaml`'s `hyperconverged:` states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Environment {
    /// HCO's `status.infrastructureHighlyAvailable`: two or more worker nodes
    /// (`nodeinfo.HandleNodeChanges`). Unknown offline unless configured.
    pub infrastructure_highly_available: Option<bool>,
}

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

fn eviction_strategy(object: &Value) -> Option<&Value> {
    object.get("spec").and_then(|spec| {
        first(
            spec,
            &["/evictionStrategy", "/virtualization/evictionStrategy"],
        )
    })
}

/// The object as HCO's webhook leaves it: `evictionStrategy` written where its API version
/// keeps it (`v1` moved it under `virtualization`).
fn with_webhook_defaults(object: &Value, environment: Environment) -> Option<Value> {
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
pub fn kubevirt_configuration(object: &Value) -> (Value, Option<String>) {
    let generation = generate(object, KubeVirtVersion::LATEST, Environment::default());
    (generation.configuration, generation.patch_error)
}

fn gate_names<'v>(configuration: &'v Value, list: &str) -> Vec<&'v str> {
    configuration
        .pointer(&format!("/developerConfiguration/{list}"))
        .and_then(Value::as_array)
        .map(|gates| gates.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn conflicting_gates(configuration: &Value) -> Vec<String> {
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

/// `ApplyPatchToSpec`: RFC 6902 (HCO uses evanphx/json-patch v5) on the whole generated
/// object; every operation's `path` must lie under `/spec/`.
fn apply_jsonpatch_annotation(object: &Value, kubevirt: &Value) -> Result<Value, String> {
    let Some(text) = annotation(object, KUBEVIRT_JSONPATCH) else {
        return Ok(kubevirt.clone());
    };
    let patch: json_patch::Patch = serde_json::from_str(text)
        .map_err(|err| format!("annotation {KUBEVIRT_JSONPATCH} is not a JSON patch: {err}"))?;
    if let Some(outside) = patch
        .0
        .iter()
        .map(operation_path)
        .find(|path| !path.starts_with("/spec/"))
    {
        return Err(format!(
            "annotation {KUBEVIRT_JSONPATCH}: `{outside}`: HCO can only modify spec fields"
        ));
    }
    let mut patched = kubevirt.clone();
    let mut budget = CopyBudget::default();
    for (index, operation) in patch.0.iter().enumerate() {
        if let json_patch::PatchOperation::Copy(copy) = operation {
            budget.spend(&patched, copy).map_err(|limit| {
                format!(
                    "annotation {KUBEVIRT_JSONPATCH}: operation {index} (copy to `{}`): {limit}",
                    copy.path
                )
            })?;
        }
        json_patch::patch_unsafe(&mut patched, std::slice::from_ref(operation)).map_err(|err| {
            format!(
                "annotation {KUBEVIRT_JSONPATCH}: operation {index} failed at path '{}': {}",
                err.path, err.kind
            )
        })?;
    }
    Ok(patched)
}

/// Values a patch may copy in all, and how deep a copy may nest: each `copy` can double the
/// document, so a short annotation could otherwise grow it without bound (evanphx/json-patch
/// v5 has no limit by default either; HCO would exhaust its memory).
const COPY_VALUE_LIMIT: usize = 10_000;
const COPY_DEPTH_LIMIT: usize = 256;

#[derive(Default)]
struct CopyBudget {
    copied: usize,
}

impl CopyBudget {
    /// Counts the values a `copy` adds (without recursion), failing once the patch has copied
    /// more than [`COPY_VALUE_LIMIT`] or the copy would nest deeper than [`COPY_DEPTH_LIMIT`].
    fn spend(&mut self, document: &Value, copy: &json_patch::CopyOperation) -> Result<(), String> {
        let exceeded = || {
            format!(
                "kvlint applies patches that copy at most {COPY_VALUE_LIMIT} values, {COPY_DEPTH_LIMIT} levels deep"
            )
        };
        // A missing `from` is json-patch's error to report.
        let Some(from) = document.pointer(copy.from.as_str()) else {
            return Ok(());
        };
        let base = copy.path.count();
        let mut pending = vec![(from, base)];
        while let Some((value, depth)) = pending.pop() {
            self.copied += 1;
            if self.copied > COPY_VALUE_LIMIT || depth > COPY_DEPTH_LIMIT {
                return Err(exceeded());
            }
            match value {
                Value::Array(items) => pending.extend(items.iter().map(|v| (v, depth + 1))),
                Value::Object(fields) => pending.extend(fields.values().map(|v| (v, depth + 1))),
                _ => {}
            }
        }
        Ok(())
    }
}

fn operation_path(operation: &json_patch::PatchOperation) -> String {
    use json_patch::PatchOperation as Op;
    match operation {
        Op::Add(op) => op.path.to_string(),
        Op::Remove(op) => op.path.to_string(),
        Op::Replace(op) => op.path.to_string(),
        Op::Move(op) => op.path.to_string(),
        Op::Copy(op) => op.path.to_string(),
        Op::Test(op) => op.path.to_string(),
    }
}

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

const ENVIRONMENT_FIELD: &str = "architectureConfiguration";

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

/// Where `.kvlint.yaml`'s `cluster:` is written, and its value.
#[derive(Clone, Debug)]
pub struct ClusterSetting<'a> {
    pub value: &'a Value,
    pub location: crate::diag::Location,
}

/// Findings about configuration HCO overwrites: a repository's own `KubeVirt` objects and the
/// fields of `cluster:` other than `architectureConfiguration`, when a HyperConverged object
/// owns the KubeVirt CR (`UpdateCR` copies the generated spec over the whole CR).
fn overwritten(
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
const V1BETA1_FIELDS: [&str; 12] = [
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
fn pruned_spellings(
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

fn pruned_findings(object: &Object, release: &HcoRelease) -> Vec<Finding> {
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
        if let Some(message) = generation.patch_error {
            findings.push(finding(
                message,
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
fn eviction_strategy_finding(
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::profile::{ClusterProfile, KubeVirtVersion, PodBinding};

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
        // Alpha in KubeVirt v1.9: not in HCO 1.19's Beta list.
        assert!(!profile.has_disabled_feature_gate("DecentralizedLiveMigration"));
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
    }

    fn patched(patch: &str) -> Generation {
        let hco = json!({"metadata": {"annotations": {"kubevirt.kubevirt.io/jsonpatch": patch}}, "spec": {}});
        generate(&hco, KubeVirtVersion::LATEST, Environment::default())
    }

    #[test]
    fn the_patch_has_rfc_6902_semantics_on_the_whole_generated_object() {
        // `migrations` is always generated, so a path under it exists.
        let generation = patched(
            r#"[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true},
                {"op": "test", "path": "/spec/configuration/vmRolloutStrategy", "value": "LiveUpdate"},
                {"op": "copy", "from": "/spec/configuration/cpuModel", "path": "/spec/configuration/x"}]"#,
        );
        // `cpuModel` is generated only when the HyperConverged object sets it.
        assert!(
            generation
                .patch_error
                .is_some_and(|e| e.contains("\"from\" path is invalid"))
        );
        let generation = patched(
            r#"[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true},
                {"op": "test", "path": "/spec/configuration/vmRolloutStrategy", "value": "LiveUpdate"},
                {"op": "move", "from": "/spec/configuration/migrations", "path": "/spec/configuration/moved"}]"#,
        );
        assert_eq!(generation.patch_error, None);
        assert_eq!(
            generation.configuration.pointer("/moved/allowPostCopy"),
            Some(&json!(true))
        );
        // A failed `test` fails the whole patch, as json-patch does.
        let failed = patched(
            r#"[{"op": "test", "path": "/spec/configuration/vmRolloutStrategy", "value": "Stage"}]"#,
        );
        assert!(failed.patch_error.is_some());
        // `replace` of a key that does not exist fails instead of creating it.
        let missing = patched(
            r#"[{"op": "replace", "path": "/spec/configuration/machineType", "value": "q35"}]"#,
        );
        assert!(missing.patch_error.is_some());
        assert!(missing.configuration.get("machineType").is_none());
        assert!(
            missing
                .configuration
                .pointer("/developerConfiguration/featureGates")
                .is_some()
        );
        // Paths outside /spec/ are refused, whatever the operation.
        let outside = patched(r#"[{"op": "add", "path": "/metadata/labels", "value": {}}]"#);
        assert!(
            outside
                .patch_error
                .is_some_and(|e| e.contains("only modify spec"))
        );
        let broken = patched(r#"[{"op": "move", "path": "/spec/x"}]"#);
        assert!(
            broken
                .patch_error
                .is_some_and(|e| e.contains("not a JSON patch"))
        );
    }

    #[test]
    fn a_patch_that_doubles_the_document_is_refused_quickly() {
        let copies: Vec<String> = (0..64)
            .map(|i| format!(r#"{{"op": "copy", "from": "/spec/configuration", "path": "/spec/configuration/c{i}"}}"#))
            .collect();
        let generation = patched(&format!("[{}]", copies.join(",")));
        assert!(
            generation
                .patch_error
                .is_some_and(|e| e.contains("copy at most 10000 values"))
        );
        let deep: Vec<String> = (0..300)
            .map(|i| {
                let path = "/x".repeat(i + 1);
                format!(r#"{{"op": "add", "path": "/spec/configuration{path}", "value": {{}}}}"#)
            })
            .collect();
        let generation = patched(&format!(
            r#"[{}, {{"op": "copy", "from": "/spec/configuration/x", "path": "/spec/configuration/y"}}]"#,
            deep.join(",")
        ));
        assert!(
            generation
                .patch_error
                .is_some_and(|e| e.contains("levels deep"))
        );
        let small = patched(
            r#"[{"op": "copy", "from": "/spec/configuration/network", "path": "/spec/configuration/n"}]"#,
        );
        assert_eq!(small.patch_error, None);
    }

    #[test]
    fn reports_a_gate_the_patch_enables_that_hco_disabled() {
        let generation = patched(
            r#"[{"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-", "value": "ImageVolume"}]"#,
        );
        assert_eq!(generation.conflicting_gates, ["ImageVolume"]);
        let mut profile = ClusterProfile::default();
        profile.configure(&generation.configuration);
        assert!(profile.has_feature_gate("ImageVolume"));
        assert!(patched("[]").conflicting_gates.is_empty());
    }

    #[test]
    fn v1_gate_names_are_case_insensitive_from_hco_1_19() {
        let hco = json!({"apiVersion": "hco.kubevirt.io/v1", "spec": {"featureGates": [{"name": "DownwardMetrics"}]}});
        let gates = |minor| {
            generate(&hco, KubeVirtVersion::new(1, minor), Environment::default())
                .configuration
                .pointer("/developerConfiguration/featureGates")
                .cloned()
                .unwrap_or_default()
        };
        assert!(
            gates(9)
                .as_array()
                .is_some_and(|g| g.contains(&json!("DownwardMetrics")))
        );
        assert!(
            !gates(8)
                .as_array()
                .is_some_and(|g| g.contains(&json!("DownwardMetrics")))
        );
        // v1beta1 keys are matched exactly: the API server prunes another spelling.
        let beta = json!({"spec": {"featureGates": {"DownwardMetrics": true}}});
        assert!(!profile(&beta).has_feature_gate("DownwardMetrics"));
    }

    #[test]
    fn each_hco_release_generates_its_own_gates() {
        let hco = json!({"spec": {}});
        let profile_at = |minor| {
            let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
            profile
                .configure(&generate(&hco, profile.version, Environment::default()).configuration);
            profile
        };
        let v15 = profile_at(5);
        assert!(v15.has_feature_gate("HotplugVolumes"));
        assert!(v15.has_feature_gate("VMPersistentState"));
        assert!(v15.disabled_feature_gates.is_empty());
        let v17 = profile_at(7);
        assert!(v17.has_feature_gate("VideoConfig"));
        assert!(!v17.has_feature_gate("DecentralizedLiveMigration"));
        let v18 = profile_at(8);
        assert!(v18.has_feature_gate("DecentralizedLiveMigration"));
        assert!(v18.has_feature_gate("PanicDevices"));
        assert!(v18.has_feature_gate("HotplugVolumes"));
        let v19 = profile_at(9);
        assert!(v19.has_feature_gate("Template"));
        assert!(v19.has_feature_gate("DeclarativeHotplugVolumes"));
        assert!(v19.has_disabled_feature_gate("ImageVolume"));
        assert!(!v19.has_disabled_feature_gate("PersistentReservation"));
        assert!(!v19.has_feature_gate("ExpandDisks"));
    }

    #[test]
    fn maps_persistent_reservation_to_the_configuration_field_in_hco_1_19() {
        let at = |minor, hco: Value| {
            let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
            profile
                .configure(&generate(&hco, profile.version, Environment::default()).configuration);
            profile.persistent_reservation_enabled()
        };
        let v1 =
            json!({"spec": {"storage": {"persistentReservationConfiguration": {"enabled": true}}}});
        let v1_gate = json!({"spec": {"featureGates": [{"name": "persistentReservation"}]}});
        let v1beta1 = json!({"spec": {"featureGates": {"persistentReservation": true}}});
        assert!(!at(9, json!({"spec": {}})));
        assert!(at(9, v1));
        assert!(at(9, v1_gate));
        assert!(at(9, v1beta1.clone()));
        assert!(at(8, v1beta1));
        assert!(!at(8, json!({"spec": {}})));
    }
}
