//! Cluster profile sources: an OpenShift `HyperConverged` object configures the profile the way
//! HCO configures the KubeVirt CR it owns.

use std::path::Path;

use kvlint::check::{self, Options, Report};
use kvlint::cluster::profile::PodBinding;
use kvlint::config::ConfigChoice;
use kvlint::source::Selection;

fn check(dir: &str) -> Report {
    check::run(&Options {
        selection: Selection {
            paths: vec![Path::new(dir).to_path_buf()],
            ..Selection::default()
        },
        config: ConfigChoice::Discover,
        ..Options::default()
    })
    .unwrap_or_else(|err| panic!("{dir}: {err}"))
}

#[test]
fn a_hyperconverged_object_configures_the_profile() {
    let report = check("testdata/profiles/hyperconverged");
    let profile = report.profile.expect("a profile");
    assert_eq!(profile.reference_policy, "expand");
    assert!(!profile.deploy_catalog);
    assert_eq!(profile.pod_binding, PodBinding::Masquerade);
    assert_eq!(profile.machine_type_for("amd64"), "pc-q35-rhel9.6.0");
    assert!(profile.has_feature_gate("Snapshot"));
    assert!(profile.has_disabled_feature_gate("PasstBinding"));

    let codes: Vec<&str> = report.findings.iter().map(|f| f.rule.code).collect();
    assert!(codes.contains(&"KV3009"), "{codes:?}");
    let rendered = &report.rendered[0].value;
    assert_eq!(
        rendered.pointer("/spec/template/spec/domain/machine/type"),
        Some(&serde_json::json!("pc-q35-rhel9.6.0"))
    );
    assert!(
        rendered
            .pointer("/spec/template/spec/domain/devices/interfaces/0/masquerade")
            .is_some(),
        "{rendered:#}"
    );
}

#[test]
fn an_invalid_kubevirt_jsonpatch_annotation_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("hco.yaml"),
        "apiVersion: hco.kubevirt.io/v1beta1\nkind: HyperConverged\nmetadata:\n  name: kubevirt-hyperconverged\n  namespace: openshift-cnv\n  annotations:\n    kubevirt.kubevirt.io/jsonpatch: 'not json'\nspec: {}\n",
    )
    .unwrap();
    let report = check(dir.path().to_str().unwrap());
    let finding = report
        .findings
        .iter()
        .find(|f| f.rule.code == "KV0007")
        .expect("KV0007 for the annotation");
    assert_eq!(
        finding.path.as_deref(),
        Some("metadata.annotations[kubevirt.kubevirt.io/jsonpatch]")
    );
    assert_eq!(finding.location.span.start.line, 7);
    assert!(report.profile.unwrap().has_feature_gate("CPUManager"));
}
