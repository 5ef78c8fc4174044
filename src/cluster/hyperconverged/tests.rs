use serde_json::{Value, json};

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
    let hco =
        json!({"metadata": {"annotations": {"kubevirt.kubevirt.io/jsonpatch": patch}}, "spec": {}});
    let profile = profile(&hco);
    assert_eq!(profile.machine_type_for("amd64"), "pc-q35-rhel9.6.0");
    assert!(profile.has_feature_gate("VideoConfig"));
    assert_eq!(profile.pod_binding, PodBinding::Bridge);
}

fn patched(patch: &str) -> Generation {
    let hco =
        json!({"metadata": {"annotations": {"kubevirt.kubevirt.io/jsonpatch": patch}}, "spec": {}});
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
            .is_some_and(|e| e.to_string().contains("\"from\" path is invalid"))
    );
    let generation = patched(
        r#"[{"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true},
            {"op": "test", "path": "/spec/configuration/vmRolloutStrategy", "value": "LiveUpdate"},
            {"op": "move", "from": "/spec/configuration/migrations", "path": "/spec/configuration/moved"}]"#,
    );
    assert!(generation.patch_error.is_none());
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
            .is_some_and(|e| e.to_string().contains("only modify spec"))
    );
    let broken = patched(r#"[{"op": "move", "path": "/spec/x"}]"#);
    assert!(
        broken
            .patch_error
            .is_some_and(|e| e.to_string().contains("not a JSON patch"))
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
            .is_some_and(|e| e.to_string().contains("copy at most 10000 values"))
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
            .is_some_and(|e| e.to_string().contains("levels deep"))
    );
    let small = patched(
        r#"[{"op": "copy", "from": "/spec/configuration/network", "path": "/spec/configuration/n"}]"#,
    );
    assert!(small.patch_error.is_none());
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
        profile.configure(&generate(&hco, profile.version, Environment::default()).configuration);
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
        profile.configure(&generate(&hco, profile.version, Environment::default()).configuration);
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
