//! The KubeVirt CR HCO generates from a HyperConverged object, one repository per difference
//! kvlint had with HCO + KubeVirt. Each test states the verdict a cluster gives: HCO's
//! generation (hyperconverged-cluster-operator `controllers/handlers/kubevirt.go`, release
//! branch per case) followed by KubeVirt's admission of the VM (`vmi-create-admitter.go`,
//! `featuregate.IsEnabled`).

use crate::common;

use std::path::Path;
use std::time::Duration;

use kvlint::check::{self, Options, Report};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::config::ConfigChoice;
use kvlint::source::Selection;

const DOWNWARD_METRICS_REFUSED: &str =
    "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled";
const RESERVATION_REFUSED_V1_9: &str = "persistent reservation is not enabled in kubevirt config";
const RESERVATION_REFUSED_V1_8: &str =
    "PersistentReservation feature gate is not enabled in kubevirt-config";

fn vm(domain: &str, extra: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  namespace: apps\nspec:\n  runStrategy: Halted\n{extra}  template:\n    spec:\n      domain:\n        memory:\n          guest: 1Gi\n{domain}"
    )
}

fn downward_metrics_vm() -> String {
    vm("        devices:\n          downwardMetrics: {}\n", "")
}

fn reservation_vm() -> String {
    vm(
        "        devices:\n          disks:\n          - name: data\n            lun:\n              reservation: true\n      volumes:\n      - name: data\n        persistentVolumeClaim:\n          claimName: data\n",
        "",
    )
}

fn hco_v1(spec: &str) -> String {
    format!(
        "apiVersion: hco.kubevirt.io/v1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n  namespace: openshift-cnv\nspec:\n{spec}"
    )
}

fn hco_v1beta1(annotations: &str, spec: &str) -> String {
    format!(
        "apiVersion: hco.kubevirt.io/v1beta1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n  namespace: openshift-cnv\n{annotations}spec:\n{spec}"
    )
}

/// Checks a repository of `files` (name, text) at a KubeVirt release, with an optional
/// `.kvlint.yaml`.
fn check_at(minor: u32, files: &[(&str, &str)], config: Option<&str>) -> Report {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let config = match config {
        Some(text) => {
            let path = dir.path().join(".kvlint.yaml");
            std::fs::write(&path, text).unwrap();
            ConfigChoice::File(path)
        }
        None => ConfigChoice::None,
    };
    check::run(&Options {
        selection: Selection {
            paths: vec![Path::new(dir.path()).to_path_buf()],
            ..Selection::default()
        },
        version: Some(KubeVirtVersion::new(1, minor)),
        config,
        ..Options::default()
    })
    .unwrap()
}

fn messages(report: &Report, code: &str) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.rule.code == code)
        .map(|f| f.message.clone())
        .collect()
}

fn refused(report: &Report, message: &str) -> bool {
    report
        .findings
        .iter()
        .any(|f| f.rule.code == "KV1008" && f.message.contains(message))
}

// `getFeatureGateChecks` per release: HCO 1.18 defaults `declarativeHotplugVolumes` to false
// (KubeVirt gets HotplugVolumes), HCO 1.19 to true (a Beta HCO gate).
#[test]
fn each_hco_release_writes_its_own_gates() {
    let cdrom = vm(
        "        devices:\n          disks:\n          - name: cd\n            cdrom: {}\n",
        "",
    );
    let hco = hco_v1beta1("", "  {}\n");
    let files = [("hco.yaml", hco.as_str()), ("vm.yaml", cdrom.as_str())];
    let refusal = "DeclarativeHotplugVolumes feature gate not enabled";
    assert!(refused(&check_at(8, &files, None), refusal));
    assert!(!refused(&check_at(9, &files, None), refusal));
}

// HCO 1.19 `api/v1/featuregates` `HyperConvergedFeatureGates.Index` lower-cases both names;
// HCO 1.18 compares them exactly (`IsEnabled`: `fg.Name == name`).
#[test]
fn v1_feature_gate_names_are_case_insensitive_from_hco_1_19() {
    let hco = hco_v1("  featureGates:\n  - name: DownwardMetrics\n");
    let files = [
        ("hco.yaml", hco.as_str()),
        ("vm.yaml", &downward_metrics_vm()),
    ];
    // HCO 1.19 + KubeVirt v1.9: DownwardMetrics enabled, the VM is admitted.
    assert!(!refused(
        &check_at(9, &files, None),
        DOWNWARD_METRICS_REFUSED
    ));
    // HCO 1.18 + KubeVirt v1.8: the name does not match `downwardMetrics`, the VM is refused.
    assert!(refused(
        &check_at(8, &files, None),
        DOWNWARD_METRICS_REFUSED
    ));
}

// v1beta1 `featureGates` is a struct: the API server prunes `DownwardMetrics`, HCO never sees it.
#[test]
fn a_v1beta1_gate_in_another_case_is_pruned_and_reported() {
    let hco = hco_v1beta1("", "  featureGates:\n    DownwardMetrics: true\n");
    let files = [
        ("hco.yaml", hco.as_str()),
        ("vm.yaml", &downward_metrics_vm()),
    ];
    let report = check_at(9, &files, None);
    assert!(refused(&report, DOWNWARD_METRICS_REFUSED));
    let pruned = messages(&report, "KV0014");
    assert!(
        pruned.iter().any(|m| m.contains("`DownwardMetrics`")),
        "{pruned:?}"
    );
}

// KubeVirt v1.9 `virt-config.go` `PersistentReservationEnabled`: the configuration field, else
// the gate listed in featureGates; the GA state does not turn it on. v1.8: the Alpha gate.
#[test]
fn persistent_reservation_is_off_by_default_on_plain_kubevirt() {
    let files = [("vm.yaml", reservation_vm())];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    assert!(refused(
        &check_at(9, &files, None),
        RESERVATION_REFUSED_V1_9
    ));
    assert!(refused(
        &check_at(8, &files, None),
        RESERVATION_REFUSED_V1_8
    ));
    let kubevirt = "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n    persistentReservationConfiguration:\n      enabled: true\n";
    let mut with_field = files.clone();
    with_field.push(("kubevirt.yaml", kubevirt));
    assert!(!refused(
        &check_at(9, &with_field, None),
        RESERVATION_REFUSED_V1_9
    ));
    // The field does not exist before v1.9.
    assert!(refused(
        &check_at(8, &with_field, None),
        RESERVATION_REFUSED_V1_8
    ));
}

// HCO 1.19 `toKvPersistentReservationConfiguration`: storage.persistentReservationConfiguration
// (v1), or the deprecated persistentReservation gate (v1beta1 converts it to the field).
// HCO 1.18 `getFeatureGateChecks`: the v1beta1 gate enables KubeVirt's PersistentReservation.
#[test]
fn hco_maps_persistent_reservation_per_release() {
    let vm = reservation_vm();
    let enabled =
        hco_v1("  storage:\n    persistentReservationConfiguration:\n      enabled: true\n");
    let beta = hco_v1beta1("", "  featureGates:\n    persistentReservation: true\n");
    let nothing = hco_v1("  {}\n");
    let at = |minor, hco: &str| check_at(minor, &[("hco.yaml", hco), ("vm.yaml", &vm)], None);
    assert!(refused(&at(9, &nothing), RESERVATION_REFUSED_V1_9));
    assert!(!refused(&at(9, &enabled), RESERVATION_REFUSED_V1_9));
    assert!(!refused(&at(9, &beta), RESERVATION_REFUSED_V1_9));
    assert!(!refused(&at(8, &beta), RESERVATION_REFUSED_V1_8));
}

// HCO 1.19 `getKvDisabledFeatureGateList` with `kv-beta-feature-gates.json`: RebootPolicy is a
// Beta gate HCO does not enable, so HCO disables it; plain KubeVirt v1.9 has it on.
// DecentralizedLiveMigration is Alpha in KubeVirt v1.9.0: on only when HCO lists it.
#[test]
fn hco_1_19_disables_the_beta_gates_it_does_not_enable() {
    let reboot = vm("        rebootPolicy: Terminate\n", "");
    let hco = hco_v1beta1("", "  {}\n");
    assert!(!refused(
        &check_at(9, &[("vm.yaml", &reboot)], None),
        "RebootPolicy"
    ));
    let report = check_at(9, &[("hco.yaml", &hco), ("vm.yaml", &reboot)], None);
    assert!(refused(&report, "RebootPolicy"));
    // KubeVirt v1.9's Beta list, not kvlint's former one: PersistentReservation is GA and
    // DecentralizedLiveMigration Alpha; ImageVolume and seven more Beta gates were missing.
    let disabled = &report.profile.as_ref().unwrap().disabled_feature_gates;
    for gate in ["ImageVolume", "NodeRestriction", "VmiMemoryOverheadReport"] {
        assert!(disabled.iter().any(|g| g == gate), "{disabled:?}");
    }
    for gate in ["PersistentReservation", "DecentralizedLiveMigration"] {
        assert!(!disabled.iter().any(|g| g == gate), "{disabled:?}");
    }
    let receiver = vm("", "").replace("runStrategy: Halted", "runStrategy: WaitAsReceiver");
    let off = hco_v1beta1(
        "",
        "  featureGates:\n    decentralizedLiveMigration: false\n",
    );
    let refusal = "DecentralizedLiveMigration feature gate is not enabled";
    assert!(refused(
        &check_at(9, &[("hco.yaml", &off), ("vm.yaml", &receiver)], None),
        refusal
    ));
    assert!(!refused(
        &check_at(9, &[("hco.yaml", &hco), ("vm.yaml", &receiver)], None),
        refusal
    ));
}

// HCO 1.19 `operands.ApplyPatchToSpec`: evanphx/json-patch v5 on the whole generated CR. The
// patch enables RebootPolicy, which HCO also disables: KubeVirt's `featuregate.IsEnabled`
// lets the enable win, and virt-operator's `kubevirt-update-admitter.go` refuses later updates.
#[test]
fn a_patch_that_enables_a_disabled_gate_wins_and_is_reported() {
    let patch = r#"  annotations:
    kubevirt.kubevirt.io/jsonpatch: '[{"op": "test", "path": "/spec/configuration/vmRolloutStrategy", "value": "LiveUpdate"}, {"op": "add", "path": "/spec/configuration/migrations/allowPostCopy", "value": true}, {"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-", "value": "RebootPolicy"}]'
"#;
    let hco = hco_v1beta1(patch, "  {}\n");
    let reboot = vm("        rebootPolicy: Terminate\n", "");
    let report = check_at(9, &[("hco.yaml", &hco), ("vm.yaml", &reboot)], None);
    assert!(!refused(&report, "RebootPolicy"));
    let invalid = messages(&report, "KV0007");
    assert!(
        invalid.iter().any(|m| m.contains(
            "feature gate \"RebootPolicy\" exists on both \"FeatureGates\" and \"DisabledFeatureGates\""
        )),
        "{invalid:?}"
    );
}

// json-patch `replace` of a missing key fails; HCO then does not reconcile the KubeVirt CR.
#[test]
fn a_replace_of_a_missing_key_fails_the_whole_patch() {
    let patch = r#"  annotations:
    kubevirt.kubevirt.io/jsonpatch: '[{"op": "add", "path": "/spec/configuration/developerConfiguration/featureGates/-", "value": "DownwardMetrics"}, {"op": "replace", "path": "/spec/configuration/machineType", "value": "q35"}]'
"#;
    let hco = hco_v1beta1(patch, "  {}\n");
    let report = check_at(
        9,
        &[("hco.yaml", &hco), ("vm.yaml", &downward_metrics_vm())],
        None,
    );
    assert!(refused(&report, DOWNWARD_METRICS_REFUSED));
    assert_eq!(messages(&report, "KV0007").len(), 1);
}

// HCO `kubevirtHooks.UpdateCR` copies the generated spec over the KubeVirt CR: gates from
// `cluster:` or a repository's own KubeVirt object do not survive.
#[test]
fn hco_overwrites_cluster_settings_and_kubevirt_objects() {
    let hco = hco_v1("  {}\n");
    let vm = downward_metrics_vm();
    let config = "cluster:\n  developerConfiguration:\n    featureGates: [DownwardMetrics]\n  architectureConfiguration:\n    amd64:\n      machineType: pc-q35-rhel9.6.0\n";
    let report = check_at(9, &[("hco.yaml", &hco), ("vm.yaml", &vm)], Some(config));
    assert!(refused(&report, DOWNWARD_METRICS_REFUSED));
    let overwritten = messages(&report, "KV0019");
    assert!(
        overwritten
            .iter()
            .any(|m| m.contains("cluster: sets developerConfiguration")),
        "{overwritten:?}"
    );
    // architectureConfiguration comes from HCO's environment and is kept.
    let profile = report.profile.unwrap();
    assert_eq!(profile.machine_type_for("amd64"), "pc-q35-rhel9.6.0");

    let kubevirt = "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt-kubevirt-hyperconverged\n  namespace: openshift-cnv\nspec:\n  configuration:\n    developerConfiguration:\n      featureGates: [DownwardMetrics]\n";
    let report = check_at(
        9,
        &[
            ("hco.yaml", &hco),
            ("kubevirt.yaml", kubevirt),
            ("vm.yaml", &vm),
        ],
        None,
    );
    assert!(refused(&report, DOWNWARD_METRICS_REFUSED));
    let duplicate = messages(&report, "KV0008");
    assert!(
        duplicate.iter().any(|m| m.contains("overwrites its spec")),
        "{duplicate:?}"
    );
    // Without a HyperConverged object the KubeVirt object configures the cluster.
    let report = check_at(9, &[("kubevirt.yaml", kubevirt), ("vm.yaml", &vm)], None);
    assert!(!refused(&report, DOWNWARD_METRICS_REFUSED));
}

// v1beta1 spells the field `CommonInstancetypesDeployment`; the API server prunes
// `commonInstancetypesDeployment`, so virt-operator keeps deploying the catalog.
#[test]
fn a_lower_case_common_instancetypes_deployment_is_pruned() {
    let hco = hco_v1beta1("", "  commonInstancetypesDeployment:\n    enabled: false\n");
    let report = check_at(9, &[("hco.yaml", &hco)], None);
    assert!(report.profile.as_ref().unwrap().deploy_catalog);
    let pruned = messages(&report, "KV0014");
    assert!(
        pruned
            .iter()
            .any(|m| m.contains("`commonInstancetypesDeployment`")),
        "{pruned:?}"
    );
    let hco = hco_v1beta1("", "  CommonInstancetypesDeployment:\n    enabled: false\n");
    let report = check_at(9, &[("hco.yaml", &hco)], None);
    assert!(!report.profile.as_ref().unwrap().deploy_catalog);
    assert!(messages(&report, "KV0014").is_empty());
}

// A patch whose copies double the document: HCO (evanphx/json-patch v5, no copy limit by
// default) would grow it without bound; kvlint reports it and checks the rest.
#[test]
fn a_patch_that_doubles_the_document_is_reported_within_bounds() {
    let copies: Vec<String> = (0..80)
        .map(|i| {
            format!(r#"{{"op": "copy", "from": "/spec", "path": "/spec/configuration/c{i}"}}"#)
        })
        .collect();
    let hco = hco_v1beta1(
        &format!(
            "  annotations:\n    kubevirt.kubevirt.io/jsonpatch: '[{}]'\n",
            copies.join(", ")
        ),
        "  {}\n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hco.yaml"), hco).unwrap();
    std::fs::write(dir.path().join("vm.yaml"), downward_metrics_vm()).unwrap();
    let run = common::run(
        &[
            "check",
            "--format",
            "json",
            "--fail-on",
            "none",
            "--no-config",
            ".",
        ],
        dir.path(),
        Duration::from_secs(60),
    );
    run.assert_within(Duration::from_secs(10), 512);
    let diagnostics = run.diagnostics();
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"KV0007"), "{codes:?}");
    assert!(codes.contains(&"KV1008"), "{codes:?}");
}

/// The cluster-wide evictionStrategy KubeVirt gives a VMI that sets none (`None` is
/// KubeVirt's own default when the KubeVirt CR sets nothing).
fn rendered_eviction_strategy(report: &Report) -> Option<String> {
    Some(
        report
            .profile
            .as_ref()?
            .eviction_strategy
            .clone()
            .unwrap_or_else(|| "None".to_owned()),
    )
}

// `mutateV1beta1EvictionStrategy` / `mutateEvictionStrategy` (pkg/webhooks/mutator, HCO 1.12
// and later): a HyperConverged without evictionStrategy gets `LiveMigrate` once
// `status.infrastructureHighlyAvailable` is true (two or more worker nodes,
// `nodeinfo.HandleNodeChanges`), else `None`; `getKVConfig` copies it into the KubeVirt CR and
// KubeVirt gives it to every VMI that sets none.
#[test]
fn hco_writes_the_eviction_strategy_the_worker_nodes_give() {
    let hyperconverged = hco_v1beta1("", "  featureGates:\n    downwardMetrics: true\n");
    let files = [
        ("hco.yaml", hyperconverged.as_str()),
        ("vm.yaml", &vm("", "")),
    ];
    let unknown = check_at(9, &files, None);
    assert_eq!(
        rendered_eviction_strategy(&unknown).as_deref(),
        Some("None")
    );
    let defaulted = messages(&unknown, "KV3010");
    assert_eq!(defaulted.len(), 1, "{defaulted:?}");
    assert!(
        defaulted[0].contains("`spec.evictionStrategy`"),
        "{defaulted:?}"
    );

    let highly_available = check_at(
        9,
        &files,
        Some("hyperconverged:\n  infrastructureHighlyAvailable: true\n"),
    );
    assert_eq!(
        rendered_eviction_strategy(&highly_available).as_deref(),
        Some("LiveMigrate")
    );
    assert!(messages(&highly_available, "KV3010")[0].contains("LiveMigrate"));

    let single_worker = check_at(
        9,
        &files,
        Some("hyperconverged:\n  infrastructureHighlyAvailable: false\n"),
    );
    assert_eq!(
        rendered_eviction_strategy(&single_worker).as_deref(),
        Some("None")
    );

    // Written in the object, it is HCO's value whatever the nodes, and nothing drifts.
    let written = hco_v1("  virtualization:\n    evictionStrategy: LiveMigrateIfPossible\n");
    let report = check_at(
        9,
        &[("hco.yaml", written.as_str()), ("vm.yaml", &vm("", ""))],
        Some("hyperconverged:\n  infrastructureHighlyAvailable: false\n"),
    );
    assert_eq!(
        rendered_eviction_strategy(&report).as_deref(),
        Some("LiveMigrateIfPossible")
    );
    assert!(messages(&report, "KV3010").is_empty());
}

#[test]
fn a_v1_hyperconverged_gets_the_eviction_strategy_under_virtualization() {
    let hyperconverged = hco_v1("  virtualization: {}\n");
    let report = check_at(
        9,
        &[
            ("hco.yaml", hyperconverged.as_str()),
            ("vm.yaml", &vm("", "")),
        ],
        Some("hyperconverged:\n  infrastructureHighlyAvailable: true\n"),
    );
    assert_eq!(
        rendered_eviction_strategy(&report).as_deref(),
        Some("LiveMigrate")
    );
    let defaulted = messages(&report, "KV3010");
    assert!(
        defaulted[0].contains("`spec.virtualization.evictionStrategy: LiveMigrate`"),
        "{defaulted:?}"
    );
}

#[test]
fn the_hyperconverged_setting_is_validated() {
    let hyperconverged = hco_v1beta1("", "  featureGates: {}\n");
    let report = check_at(
        9,
        &[("hco.yaml", hyperconverged.as_str())],
        Some("hyperconverged:\n  infrastructureHighlyAvailable: yes please\n  nodes: 3\n"),
    );
    let problems = messages(&report, "KV0019");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().any(|m| m.contains("must be true")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|m| m.contains("unknown hyperconverged setting `nodes`")),
        "{problems:?}"
    );
}

// `getKVConfig` takes the machine types from the operator's environment variables
// (`MACHINE_TYPE`, `AMD64_MACHINE_TYPE`, ...), not from the HyperConverged object: kvlint says
// which machine type it rendered with, unless `cluster.architectureConfiguration` gives one.
#[test]
fn machine_types_from_the_operator_environment_are_named_as_unknown() {
    let hyperconverged = hco_v1beta1("", "  evictionStrategy: None\n");
    let files = [
        ("hco.yaml", hyperconverged.as_str()),
        ("vm.yaml", &vm("", "")),
    ];
    let report = check_at(9, &files, None);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("operator's environment") && w.contains("q35 for amd64")),
        "{:?}",
        report.warnings
    );
    let configured = check_at(
        9,
        &files,
        Some(
            "cluster:\n  architectureConfiguration:\n    amd64:\n      machineType: pc-q35-rhel9.6.0\n",
        ),
    );
    assert!(configured.warnings.is_empty(), "{:?}", configured.warnings);
}
