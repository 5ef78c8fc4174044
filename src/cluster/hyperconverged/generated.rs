//! The `KubeVirt` CR HCO generates from a HyperConverged object (`NewKubeVirt`, `getKVConfig`
//! in `controllers/handlers/kubevirt.go`): feature gates, developer, network and migration
//! configuration, obsolete CPU models, for the HCO release that ships the target KubeVirt.

use serde_json::{Map, Value, json};

use super::super::hco_release::HcoRelease;
use super::read::{annotation, first};

pub(super) const PASST_BINDING_ANNOTATION: &str = "hco.kubevirt.io/deployPasstNetworkBinding";

pub(super) const AIE_ANNOTATION: &str = "hco.kubevirt.io/deployAIE";

/// CPU models HCO always marks obsolete (`hardcodedObsoleteCPUModels`).
pub(super) const OBSOLETE_CPU_MODELS: [&str; 34] = [
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
pub(super) const MIGRATION_FIELDS: [&str; 9] = [
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
pub(super) fn hco_gate(spec: &Value, name: &str, default: bool, release: &HcoRelease) -> bool {
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

/// `getKvFeatureGateList` and `getKvDisabledFeatureGateList`: the enabled gates (sorted) and
/// the Beta gates HCO disables.
pub(super) fn kubevirt_gates(
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
pub(super) fn persistent_reservation(spec: &Value, release: &HcoRelease) -> Option<bool> {
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

pub(super) fn developer_configuration(object: &Value, spec: &Value, release: &HcoRelease) -> Value {
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

pub(super) fn network_configuration(spec: &Value) -> Value {
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

pub(super) fn migration_configuration(spec: &Value) -> Value {
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

pub(super) fn obsolete_cpu_models(spec: &Value) -> Value {
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
pub(super) fn generated_configuration(object: &Value, spec: &Value, release: &HcoRelease) -> Value {
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
pub(super) fn generated_kubevirt(object: &Value, release: &HcoRelease) -> Value {
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
