//! Table tests of the mutating webhook, case for case after the behaviours KubeVirt's own
//! `vm-mutator_test.go` pins down (the cases are written here): deletion, matcher content,
//! architecture and machine-type defaults, the PCI topology annotation, the firmware identity on
//! create and update, the preferred storage class, and what changes between releases.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{MutateRefusal, Mutation, mutate};
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::k8s::{Index, Object};
use crate::load::{LoadOptions, load_text};
use crate::resolve::catalog_source::Catalog;
use crate::resolve::{Repo, SpecCache};

/// The objects of `manifests`, as the loader reads them.
fn objects(manifests: &str) -> Vec<Object> {
    load_text(
        &Arc::from("cluster.yaml"),
        manifests,
        &LoadOptions::default(),
    )
    .objects
}

/// The webhook's answer to creating (or updating) `vm` in a cluster holding `others`.
fn submit(vm: &Value, others: &str, profile: &ClusterProfile, create: bool) -> Mutation {
    let vm_text = serde_json::to_string(vm).unwrap();
    let vm_object = objects(&vm_text).remove(0);
    let objects = objects(others);
    let index = Index::build(&objects);
    let catalog = Catalog::default();
    let specs = SpecCache::default();
    let repo = Repo {
        objects: &objects,
        index: &index,
        catalog: &catalog,
        version: profile.version,
        specs: &specs,
    };
    let mut written = vm.clone();
    written["metadata"]["namespace"] = json!("default");
    mutate(&repo, &vm_object, &written, profile, create)
}

fn created(vm: &Value, profile: &ClusterProfile) -> Value {
    let mutation = submit(vm, "", profile, true);
    assert_eq!(mutation.refusal, None, "{vm}");
    mutation.vm
}

fn v1_9() -> ClusterProfile {
    ClusterProfile::new(KubeVirtVersion::LATEST)
}

/// A VM with `template_spec` as its template's spec.
fn vm(template_spec: Value) -> Value {
    let mut vm = json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm"},
        "spec": {"runStrategy": "Halted", "template": {}},
    });
    vm["spec"]["template"]["spec"] = template_spec;
    vm
}

fn template_spec(stored: &Value) -> &Value {
    &stored["spec"]["template"]["spec"]
}

#[test]
fn a_vm_being_deleted_is_stored_as_written() {
    let mut deleted = vm(json!({"domain": {"devices": {}}}));
    deleted["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    let mutation = submit(&deleted, "", &v1_9(), true);
    assert_eq!(mutation.refusal, None);
    assert_eq!(
        template_spec(&mutation.vm),
        &json!({"domain": {"devices": {}}})
    );
}

#[test]
fn the_machine_type_follows_the_architecture() {
    for (architecture, machine) in [
        ("amd64", "q35"),
        ("arm64", "virt"),
        ("s390x", "s390-ccw-virtio"),
    ] {
        let stored = created(
            &vm(json!({"architecture": architecture, "domain": {"devices": {}}})),
            &v1_9(),
        );
        let spec = template_spec(&stored);
        assert_eq!(spec["domain"]["machine"]["type"], machine, "{architecture}");
        assert_eq!(spec["architecture"], architecture, "kept as written");
    }
}

#[test]
fn the_cluster_default_architecture_and_its_configured_machine_type_apply() {
    for architecture in ["amd64", "arm64", "s390x"] {
        let mut profile = v1_9();
        profile.default_architecture = architecture.to_owned();
        profile.arch_machine_types = vec![(architecture.to_owned(), "configured".to_owned())];
        let stored = created(&vm(json!({"domain": {"devices": {}}})), &profile);
        let spec = template_spec(&stored);
        assert_eq!(spec["architecture"], architecture);
        assert_eq!(
            spec["domain"]["machine"]["type"], "configured",
            "{architecture}"
        );
    }
}

#[test]
fn a_machine_type_written_in_the_vm_is_kept() {
    let stored = created(
        &vm(json!({"domain": {"devices": {}, "machine": {"type": "pc-q35-rhel9.4.0"}}})),
        &v1_9(),
    );
    assert_eq!(
        template_spec(&stored)["domain"]["machine"]["type"],
        "pc-q35-rhel9.4.0"
    );
}

#[test]
fn the_pci_topology_annotation_goes_to_pcie_capable_vms_on_create() {
    let annotation = |stored: &Value| {
        stored["spec"]["template"]["metadata"]["annotations"]["kubevirt.io/pci-topology-version"]
            .clone()
    };
    for (architecture, annotated) in [
        ("amd64", true),
        ("arm64", true),
        ("s390x", false),
        ("ppc64le", false),
    ] {
        let stored = created(
            &vm(json!({"architecture": architecture, "domain": {"devices": {}}})),
            &v1_9(),
        );
        let expected = if annotated { json!("v3") } else { Value::Null };
        assert_eq!(annotation(&stored), expected, "{architecture}");
    }
    let i440fx = created(
        &vm(json!({"domain": {"devices": {}, "machine": {"type": "pc-i440fx-2.10"}}})),
        &v1_9(),
    );
    assert_eq!(annotation(&i440fx), Value::Null, "i440fx has no PCIe");
    let mut written = vm(json!({"domain": {"devices": {}}}));
    written["spec"]["template"]["metadata"] =
        json!({"annotations": {"kubevirt.io/pci-topology-version": "v2"}});
    assert_eq!(
        annotation(&created(&written, &v1_9())),
        "v2",
        "not overridden"
    );
    let updated = submit(&vm(json!({"domain": {"devices": {}}})), "", &v1_9(), false);
    assert_eq!(annotation(&updated.vm), Value::Null, "only on create");
}

#[test]
fn firmware_identity_is_generated_on_create_only_and_never_replaced() {
    let pinned = json!({
        "uuid": "00000000-0000-4000-8000-000000000000",
        "serial": "00000000-0000-4000-8000-000000000000",
    });
    let stored = created(&vm(json!({"domain": {"devices": {}}})), &v1_9());
    assert_eq!(template_spec(&stored)["domain"]["firmware"], pinned);

    let updated = submit(&vm(json!({"domain": {"devices": {}}})), "", &v1_9(), false);
    assert_eq!(
        template_spec(&updated.vm)["domain"]["firmware"],
        Value::Null
    );

    let own = json!({"domain": {"devices": {}, "firmware": {"uuid": "5d307ca9-b3ef-428c-8861-06e72d69f223", "serial": "own"}}});
    let stored = created(&vm(own), &v1_9());
    let firmware = &template_spec(&stored)["domain"]["firmware"];
    assert_eq!(firmware["uuid"], "5d307ca9-b3ef-428c-8861-06e72d69f223");
    assert_eq!(firmware["serial"], "own");
}

#[test]
fn firmware_identity_follows_the_release() {
    for (version, uuid, serial) in [
        (KubeVirtVersion::release(1, 5, 0), false, false),
        (KubeVirtVersion::release(1, 5, 3), false, true),
        (KubeVirtVersion::release(1, 6, 0), true, false),
        (KubeVirtVersion::release(1, 6, 1), true, true),
        (KubeVirtVersion::release(1, 7, 0), true, true),
    ] {
        let stored = created(
            &vm(json!({"domain": {"devices": {}}})),
            &ClusterProfile::new(version),
        );
        let firmware = &template_spec(&stored)["domain"]["firmware"];
        assert_eq!(firmware["uuid"].is_string(), uuid, "{version} uuid");
        assert_eq!(firmware["serial"].is_string(), serial, "{version} serial");
    }
}

/// The matcher content rules, each with KubeVirt's field and message.
#[test]
fn matchers_that_name_nothing_or_too_much_are_refused() {
    for (role, matcher, field, message) in [
        (
            "instancetype",
            json!({}),
            "spec.instancetype",
            "Either Name or InferFromVolume should be provided within the InstancetypeMatcher",
        ),
        (
            "instancetype",
            json!({"name": "foo", "inferFromVolume": "bar"}),
            "spec.instancetype.name",
            "Name already set, should be cleared before setting inferFromVolume",
        ),
        (
            "instancetype",
            json!({"kind": "foo", "inferFromVolume": "bar"}),
            "spec.instancetype.kind",
            "Kind already set, should be cleared before setting inferFromVolume",
        ),
        (
            "instancetype",
            json!({"inferFromVolume": "bar", "inferFromVolumeFailurePolicy": "not-valid"}),
            "spec.instancetype.inferFromVolumeFailurePolicy",
            "Invalid value 'not-valid' for InferFromVolumeFailurePolicy",
        ),
        (
            "preference",
            json!({}),
            "spec.preference",
            "Either Name or InferFromVolume should be provided within the PreferenceMatcher",
        ),
        (
            "preference",
            json!({"name": "foo", "inferFromVolume": "bar"}),
            "spec.preference.name",
            "Name already set, should be cleared before setting inferFromVolume",
        ),
        (
            "preference",
            json!({"kind": "foo", "inferFromVolume": "bar"}),
            "spec.preference.kind",
            "Kind already set, should be cleared before setting inferFromVolume",
        ),
        (
            "preference",
            json!({"inferFromVolume": "bar", "inferFromVolumeFailurePolicy": "not-valid"}),
            "spec.preference.inferFromVolumeFailurePolicy",
            "Invalid value 'not-valid' for InferFromVolumeFailurePolicy",
        ),
    ] {
        let mut written = vm(json!({"domain": {"devices": {}}}));
        written["spec"][role] = matcher.clone();
        let mutation = submit(&written, "", &v1_9(), true);
        let Some(MutateRefusal::Matcher(causes)) = mutation.refusal else {
            panic!("{role} {matcher}: {:?}", mutation.refusal);
        };
        let causes: Vec<(&str, &str)> = causes
            .iter()
            .map(|c| (c.field.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(causes, [(field, message)], "{role} {matcher}");
    }
}

#[test]
fn the_preferred_storage_class_fills_data_volume_templates_without_one() {
    let preference = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: fast
spec:
  volumes:
    preferredStorageClassName: ceph
";
    let mut written = vm(json!({"domain": {"devices": {}}}));
    written["spec"]["preference"] = json!({"name": "fast"});
    written["spec"]["dataVolumeTemplates"] = json!([
        {"metadata": {"name": "pvc"}, "spec": {"pvc": {"accessModes": ["ReadWriteOnce"]}, "source": {"blank": {}}}},
        {"metadata": {"name": "storage"}, "spec": {"storage": {}, "source": {"blank": {}}}},
        {"metadata": {"name": "own-pvc"}, "spec": {"pvc": {"storageClassName": "local"}, "source": {"blank": {}}}},
        {"metadata": {"name": "own-storage"}, "spec": {"storage": {"storageClassName": "local"}, "source": {"blank": {}}}},
        {"metadata": {"name": "neither"}, "spec": {"source": {"blank": {}}}},
    ]);
    let mutation = submit(&written, preference, &v1_9(), true);
    assert_eq!(mutation.refusal, None);
    let classes: Vec<(Value, Value)> = mutation.vm["spec"]["dataVolumeTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["spec"]["pvc"]["storageClassName"].clone(),
                t["spec"]["storage"]["storageClassName"].clone(),
            )
        })
        .collect();
    assert_eq!(
        classes,
        [
            (json!("ceph"), Value::Null),
            (Value::Null, json!("ceph")),
            (json!("local"), Value::Null),
            (Value::Null, json!("local")),
            (Value::Null, Value::Null),
        ]
    );
}

#[test]
fn quantities_written_as_numbers_are_stored_canonical() {
    let stored = created(
        &vm(
            json!({"domain": {"devices": {}, "resources": {"requests": {"cpu": 1, "memory": 1.5}}}}),
        ),
        &v1_9(),
    );
    assert_eq!(
        template_spec(&stored)["domain"]["resources"]["requests"],
        json!({"cpu": "1", "memory": "1500m"})
    );
}

#[test]
fn releases_before_v1_7_write_the_default_matcher_kinds() {
    let mut written = vm(json!({"domain": {"devices": {}}}));
    written["spec"]["instancetype"] = json!({"name": "u1.small"});
    written["spec"]["preference"] = json!({"name": "fedora"});
    for (version, written_kinds) in [
        (KubeVirtVersion::new(1, 6), true),
        (KubeVirtVersion::new(1, 7), false),
    ] {
        let mutation = submit(&written, "", &ClusterProfile::new(version), true);
        let spec = &mutation.vm["spec"];
        let kinds = (
            spec["instancetype"]["kind"].clone(),
            spec["preference"]["kind"].clone(),
        );
        let expected = if written_kinds {
            (
                json!("virtualmachineclusterinstancetype"),
                json!("virtualmachineclusterpreference"),
            )
        } else {
            (Value::Null, Value::Null)
        };
        assert_eq!(kinds, expected, "{version}");
    }
}

/// From v1.1 a matcher without a name goes on to its other checks (`validateInstancetypeMatcher`
/// in `pkg/instancetype/webhooks/vm/mutator.go`); v1.0.0 returns the first cause alone.
#[test]
fn a_matcher_without_a_name_is_also_checked_for_its_failure_policy_from_v1_1() {
    let mut written = vm(json!({"domain": {"devices": {}}}));
    written["spec"]["instancetype"] = json!({"kind": "x", "inferFromVolumeFailurePolicy": "bad"});
    let fields = |minor| {
        let profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
        let Some(MutateRefusal::Matcher(causes)) = submit(&written, "", &profile, true).refusal
        else {
            panic!("v1.{minor}: not refused");
        };
        causes.into_iter().map(|c| c.field).collect::<Vec<_>>()
    };
    assert_eq!(
        fields(9),
        [
            "spec.instancetype",
            "spec.instancetype.inferFromVolumeFailurePolicy"
        ]
    );
    assert_eq!(fields(0), ["spec.instancetype"]);
}

/// `mutateArch` and `mutateMachineType` of the instance-type mutator: the preference's
/// architecture (v1.7+) and machine type fill only what the VM leaves empty.
#[test]
fn the_preferred_architecture_and_machine_type_fill_only_empty_fields() {
    let preference = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: arm
spec:
  preferredArchitecture: arm64
  machine:
    preferredMachineType: virt-rhel9
";
    let stored = |template: Value| {
        let mut written = vm(template);
        written["spec"]["preference"] = json!({"name": "arm"});
        let mutation = submit(&written, preference, &v1_9(), true);
        assert_eq!(mutation.refusal, None);
        let spec = template_spec(&mutation.vm);
        (
            spec["architecture"].clone(),
            spec["domain"]["machine"]["type"].clone(),
        )
    };
    assert_eq!(
        stored(json!({"domain": {"devices": {}}})),
        (json!("arm64"), json!("virt-rhel9"))
    );
    assert_eq!(
        stored(
            json!({"architecture": "amd64", "domain": {"devices": {}, "machine": {"type": "q35"}}})
        ),
        (json!("amd64"), json!("q35"))
    );
}

/// `setDefaultArchitectureFromDataSource` (`pkg/defaults/defaults.go`, v1.6.4+): the
/// architecture label of the DataSource a DataVolume template names (kind compared without
/// case, an empty namespace is the VM's), unless the VM sets one.
#[test]
fn the_architecture_comes_from_a_data_source_label_unless_the_vm_sets_one() {
    let sources = "\
apiVersion: cdi.kubevirt.io/v1beta1
kind: DataSource
metadata:
  name: fedora-arm
  namespace: default
  labels:
    template.kubevirt.io/architecture: arm64
spec:
  source: {}
";
    let architecture = |source_ref: Value, template: Value| {
        let mut written = vm(template);
        written["spec"]["dataVolumeTemplates"] =
            json!([{"metadata": {"name": "root"}, "spec": {"sourceRef": source_ref}}]);
        let mutation = submit(&written, sources, &v1_9(), true);
        template_spec(&mutation.vm)["architecture"].clone()
    };
    let devices = json!({"domain": {"devices": {}}});
    for source_ref in [
        json!({"kind": "DataSource", "name": "fedora-arm"}),
        json!({"kind": "datasource", "name": "fedora-arm", "namespace": ""}),
    ] {
        assert_eq!(architecture(source_ref, devices.clone()), "arm64");
    }
    let own = json!({"architecture": "s390x", "domain": {"devices": {}}});
    let named = json!({"kind": "DataSource", "name": "fedora-arm"});
    assert_eq!(architecture(named, own), "s390x");
    let pvc = json!({"kind": "PersistentVolumeClaim", "name": "fedora-arm"});
    assert_eq!(architecture(pvc, devices), "amd64");
}

/// Inference from a volume (`pkg/instancetype/infer`, the mutator's `inferDefaultsFromVolumes`):
/// the matcher becomes the labels' name and kind; under the `Ignore` policy an inferred instance
/// type also clears `domain.memory`, and a volume without the label drops the matcher instead of
/// refusing the VM.
#[test]
fn a_matcher_is_inferred_from_the_volume_labels_and_ignore_drops_what_fails() {
    let claims = "\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: labelled
  namespace: default
  labels:
    instancetype.kubevirt.io/default-instancetype: u1.medium
    instancetype.kubevirt.io/default-instancetype-kind: VirtualMachineInstancetype
    instancetype.kubevirt.io/default-preference: fedora
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bare
  namespace: default
";
    let submitted = |role: &str, claim: &str, policy: Option<&str>| {
        let mut written = vm(json!({
            "domain": {"devices": {}, "memory": {"guest": "1Gi"}},
            "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": claim}}]
        }));
        written["spec"][role] = json!({"inferFromVolume": "root"});
        if let Some(policy) = policy {
            written["spec"][role]["inferFromVolumeFailurePolicy"] = json!(policy);
        }
        submit(&written, claims, &v1_9(), true)
    };
    let memory = |mutation: &Mutation| template_spec(&mutation.vm)["domain"]["memory"].clone();

    let inferred = submitted("instancetype", "labelled", None);
    assert_eq!(inferred.refusal, None);
    assert_eq!(
        inferred.vm["spec"]["instancetype"],
        json!({"name": "u1.medium", "kind": "VirtualMachineInstancetype"})
    );
    assert_eq!(memory(&inferred), json!({"guest": "1Gi"}));
    let ignored = submitted("instancetype", "labelled", Some("Ignore"));
    assert_eq!(memory(&ignored), Value::Null);
    let preference = submitted("preference", "labelled", Some("Ignore"));
    assert_eq!(
        preference.vm["spec"]["preference"],
        json!({"name": "fedora"})
    );
    assert_eq!(memory(&preference), json!({"guest": "1Gi"}));

    let dropped = submitted("instancetype", "bare", Some("Ignore"));
    assert_eq!(dropped.refusal, None);
    assert_eq!(dropped.vm["spec"].get("instancetype"), None);
    for (claim, policy) in [("bare", None), ("missing", Some("Ignore"))] {
        let refused = submitted("instancetype", claim, policy);
        assert!(
            matches!(refused.refusal, Some(MutateRefusal::Inference { .. })),
            "{claim}: {:?}",
            refused.refusal
        );
    }
}

/// v1.0 does not declare `inferFromVolumeFailurePolicy`: the API server prunes it before the
/// webhook, so an inference that fails refuses the VM; from v1.1 `Ignore` drops the matcher.
#[test]
fn before_v1_1_the_failure_policy_is_pruned_and_a_failed_inference_refuses() {
    let claim = "\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bare
  namespace: default
";
    let mut written = vm(json!({
        "domain": {"devices": {}},
        "volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "bare"}}]
    }));
    written["spec"]["preference"] =
        json!({"inferFromVolume": "root", "inferFromVolumeFailurePolicy": "Ignore"});
    let refusal = |minor| {
        let profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
        submit(&written, claim, &profile, true).refusal
    };
    assert!(
        matches!(refusal(0), Some(MutateRefusal::Inference { .. })),
        "{:?}",
        refusal(0)
    );
    assert_eq!(refusal(1), None);
}

/// The CRD requires `spec` and `spec.template`: the API server refuses a VM without them after
/// the mutating webhook, whatever the webhook wrote.
#[test]
fn a_vm_without_its_required_spec_or_template_is_refused_by_the_crd() {
    let profile = ClusterProfile::default();
    let head = json!({"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"}});
    let mut without_template = head.clone();
    without_template["spec"] = json!({"runStrategy": "Halted"});
    for (vm, missing) in [(head, "spec"), (without_template, "spec.template")] {
        assert_eq!(
            submit(&vm, "", &profile, true).refusal,
            Some(MutateRefusal::Required(missing.to_owned())),
            "{vm}"
        );
    }
}
