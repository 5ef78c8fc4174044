//! Table tests of finding a matcher's spec, case for case after what KubeVirt's own
//! `pkg/instancetype/find/spec_test.go` and `pkg/instancetype/preference/find/spec_test.go`
//! (v1.9.0) pin down — kinds, revisions before objects, only the referenced object — and what
//! changes between releases (the cases are written here).

use std::sync::Arc;

use serde_json::{Value, json};

use super::{FindError, FindErrorKind, Origin, Repo, SpecCache, find};
use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::{Index, Object};
use crate::load::{LoadOptions, load_text};
use crate::model::{Matcher, MatcherRole};
use crate::resolve::catalog_source::Catalog;

const V1_9: KubeVirtVersion = KubeVirtVersion::LATEST;

fn load(manifests: &str) -> Vec<Object> {
    load_text(
        &Arc::from("cluster.yaml"),
        manifests,
        &LoadOptions::default(),
    )
    .objects
}

/// An instance type or preference object of `kind` with guest CPUs `cpus` (instance types) or
/// preferred topology `cpus` cores (preferences), so that each object's spec is its own.
fn object(kind: &str, namespace: Option<&str>, name: &str, cpus: u32) -> String {
    let namespace = namespace.map_or(String::new(), |ns| format!("  namespace: {ns}\n"));
    let spec = if kind.contains("Instancetype") {
        format!("  cpu:\n    guest: {cpus}\n  memory:\n    guest: 1Gi\n")
    } else {
        format!(
            "  cpu:\n    preferredCPUTopology: cores\n  requirements:\n    cpu:\n      guest: {cpus}\n"
        )
    };
    format!(
        "---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: {kind}\nmetadata:\n{namespace}  name: {name}\nspec:\n{spec}"
    )
}

/// A ControllerRevision in `default` holding a `kind` object at `api_version` with `cpus`,
/// labelled with the name of the object it was taken from.
fn revision(name: &str, of: &str, kind: &str, api_version: &str, cpus: u32) -> String {
    format!(
        "---
apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: {name}
  namespace: default
  labels:
    instancetype.kubevirt.io/object-name: {of}
revision: 1
data:
  apiVersion: instancetype.kubevirt.io/{api_version}
  kind: {kind}
  metadata:
    name: {of}
  spec:
    cpu:
      guest: {cpus}
    memory:
      guest: 1Gi
"
    )
}

const VM: &str = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  namespace: default\nspec:\n  template:\n    spec: {}\n";

/// Finds `matcher` of `role` for a VM in `default`, among `cluster`'s objects.
fn found(
    cluster: &str,
    role: MatcherRole,
    matcher: &Value,
    status_ref: Option<&Value>,
    version: KubeVirtVersion,
) -> Result<(Value, &'static str, String), FindError> {
    let objects = load(cluster);
    let vm = load(VM).remove(0);
    let index = Index::build(&objects);
    let catalog = Catalog::default();
    let specs = SpecCache::default();
    let repo = Repo {
        objects: &objects,
        index: &index,
        catalog: &catalog,
        version,
        specs: &specs,
    };
    let matcher = Matcher::from_json(matcher).unwrap();
    find(&repo, &vm, role, &matcher, status_ref).map(|found| {
        let (origin, object) = match found.origin {
            Origin::Object(object) => ("object", object),
            Origin::Revision(object) => ("revision", object),
        };
        ((*found.spec).clone(), origin, object.kind.clone())
    })
}

fn guest_cpus(spec: &Value) -> u64 {
    spec["cpu"]["guest"].as_u64().unwrap()
}

fn cluster_instancetype() -> String {
    object("VirtualMachineClusterInstancetype", None, "it", 2)
}

#[test]
fn a_matcher_without_a_kind_finds_the_cluster_kind() {
    let cluster = format!(
        "{}{}",
        cluster_instancetype(),
        object("VirtualMachineInstancetype", Some("default"), "it", 4)
    );
    let (spec, origin, kind) = found(
        &cluster,
        MatcherRole::Instancetype,
        &json!({"name": "it"}),
        None,
        V1_9,
    )
    .unwrap();
    assert_eq!((guest_cpus(&spec), origin), (2, "object"));
    assert_eq!(kind, "VirtualMachineClusterInstancetype");
    let (spec, _, _) = found(
        &cluster,
        MatcherRole::Instancetype,
        &json!({"name": "it", "kind": "VirtualMachineInstancetype"}),
        None,
        V1_9,
    )
    .unwrap();
    assert_eq!(guest_cpus(&spec), 4);
}

#[test]
fn an_unexpected_kind_is_an_error_naming_the_matcher() {
    for (role, go_type) in [
        (MatcherRole::Instancetype, "InstancetypeMatcher"),
        (MatcherRole::Preference, "PreferenceMatcher"),
    ] {
        let error = found(
            &cluster_instancetype(),
            role,
            &json!({"name": "it", "kind": "foo"}),
            None,
            V1_9,
        )
        .unwrap_err();
        assert_eq!(error.kind, FindErrorKind::UnexpectedKind);
        assert_eq!(
            error.message,
            format!("got unexpected kind in {go_type}: foo")
        );
    }
}

#[test]
fn a_missing_object_is_not_found_with_the_api_servers_words() {
    for (role, matcher, message) in [
        (
            MatcherRole::Instancetype,
            json!({"name": "nope"}),
            "virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"nope\" not found",
        ),
        (
            MatcherRole::Instancetype,
            json!({"name": "nope", "kind": "VirtualMachineInstancetype"}),
            "virtualmachineinstancetypes.instancetype.kubevirt.io \"nope\" not found",
        ),
        (
            MatcherRole::Preference,
            json!({"name": "nope", "kind": "VirtualMachinePreference"}),
            "virtualmachinepreferences.instancetype.kubevirt.io \"nope\" not found",
        ),
    ] {
        let error = found(&cluster_instancetype(), role, &matcher, None, V1_9).unwrap_err();
        assert_eq!(error.kind, FindErrorKind::NotFound, "{matcher}");
        assert_eq!(error.message, message);
    }
}

/// Bug #14595 upstream: among several objects, only the one the matcher names is returned —
/// by name, and for the namespaced kind only in the VM's namespace.
#[test]
fn only_the_referenced_object_is_found() {
    let cluster = [
        object("VirtualMachineInstancetype", Some("default"), "other", 8),
        object("VirtualMachineInstancetype", Some("elsewhere"), "it", 6),
        object("VirtualMachineInstancetype", Some("default"), "it", 4),
        object("VirtualMachinePreference", Some("default"), "it", 3),
    ]
    .concat();
    let (spec, _, kind) = found(
        &cluster,
        MatcherRole::Instancetype,
        &json!({"name": "it", "kind": "virtualmachineinstancetypes"}),
        None,
        V1_9,
    )
    .unwrap();
    assert_eq!(
        (guest_cpus(&spec), kind.as_str()),
        (4, "VirtualMachineInstancetype")
    );
    let (spec, _, kind) = found(
        &cluster,
        MatcherRole::Preference,
        &json!({"name": "it", "kind": "VirtualMachinePreference"}),
        None,
        V1_9,
    )
    .unwrap();
    assert_eq!(kind, "VirtualMachinePreference");
    assert_eq!(spec["requirements"]["cpu"]["guest"], 3);
}

/// `revisionName` wins over the status reference, which wins over the object (v1.5 and later).
#[test]
fn a_revision_is_found_before_the_object() {
    let cluster = [
        cluster_instancetype(),
        revision(
            "by-name",
            "it",
            "VirtualMachineClusterInstancetype",
            "v1beta1",
            8,
        ),
        revision(
            "by-status",
            "it",
            "VirtualMachineClusterInstancetype",
            "v1beta1",
            16,
        ),
    ]
    .concat();
    let status = json!({"controllerRevisionRef": {"name": "by-status"}});
    let cpus = |matcher: Value, status: Option<&Value>, version| {
        let (spec, origin, _) = found(
            &cluster,
            MatcherRole::Instancetype,
            &matcher,
            status,
            version,
        )
        .unwrap();
        (guest_cpus(&spec), origin)
    };
    let by_name = json!({"name": "it", "revisionName": "by-name"});
    assert_eq!(cpus(by_name.clone(), None, V1_9), (8, "revision"));
    assert_eq!(cpus(by_name, Some(&status), V1_9), (8, "revision"));
    assert_eq!(
        cpus(json!({"name": "it"}), Some(&status), V1_9),
        (16, "revision")
    );
    // Before v1.5 the status reference is not read.
    assert_eq!(
        cpus(
            json!({"name": "it"}),
            Some(&status),
            KubeVirtVersion::new(1, 4)
        ),
        (2, "object")
    );
}

/// From v1.5.2 the status reference counts only when its revision was taken from the object
/// the matcher names now (a renamed matcher finds the new object); v1.5.0 used any.
#[test]
fn a_status_revision_of_another_object_is_ignored_from_v1_5_2() {
    let cluster = [
        cluster_instancetype(),
        object("VirtualMachineClusterInstancetype", None, "renamed", 4),
        revision(
            "by-status",
            "it",
            "VirtualMachineClusterInstancetype",
            "v1beta1",
            16,
        ),
    ]
    .concat();
    let status = json!({"controllerRevisionRef": {"name": "by-status"}});
    let cpus = |version| {
        let (spec, _, _) = found(
            &cluster,
            MatcherRole::Instancetype,
            &json!({"name": "renamed"}),
            Some(&status),
            version,
        )
        .unwrap();
        guest_cpus(&spec)
    };
    assert_eq!(cpus(KubeVirtVersion::release(1, 5, 0)), 16);
    assert_eq!(cpus(KubeVirtVersion::release(1, 5, 2)), 4);
    assert_eq!(cpus(V1_9), 4);
}

#[test]
fn a_missing_revision_is_an_error() {
    let error = found(
        &cluster_instancetype(),
        MatcherRole::Instancetype,
        &json!({"name": "it", "revisionName": "gone"}),
        None,
        V1_9,
    )
    .unwrap_err();
    assert_eq!(error.kind, FindErrorKind::Revision);
    assert_eq!(error.message, "controllerrevisions.apps \"gone\" not found");
}

/// v1.7 and later decode only v1beta1 revisions; a revision of the other role's kind is refused.
#[test]
fn a_revision_is_decoded_as_the_release_reads_it() {
    let cluster = [
        revision(
            "alpha",
            "it",
            "VirtualMachineClusterInstancetype",
            "v1alpha2",
            8,
        ),
        revision(
            "preference",
            "it",
            "VirtualMachineClusterPreference",
            "v1beta1",
            8,
        ),
    ]
    .concat();
    let by = |name: &str, version| {
        found(
            &cluster,
            MatcherRole::Instancetype,
            &json!({"name": "it", "revisionName": name}),
            None,
            version,
        )
    };
    assert_eq!(
        guest_cpus(&by("alpha", KubeVirtVersion::new(1, 6)).unwrap().0),
        8
    );
    let error = by("alpha", KubeVirtVersion::new(1, 7)).unwrap_err();
    assert_eq!(
        error.message,
        "failed to decode object in ControllerRevision: no kind \"VirtualMachineClusterInstancetype\" is registered for version \"instancetype.kubevirt.io/v1alpha2\""
    );
    let error = by("preference", V1_9).unwrap_err();
    assert_eq!(
        error.message,
        "unexpected type in ControllerRevision: VirtualMachineClusterPreference"
    );
}

/// An object of an API version the release does not serve could not exist in the cluster.
#[test]
fn an_object_of_an_unserved_version_is_not_found() {
    let cluster = cluster_instancetype().replace("v1beta1", "v1alpha1");
    let matcher = json!({"name": "it"});
    let error = found(&cluster, MatcherRole::Instancetype, &matcher, None, V1_9).unwrap_err();
    assert_eq!(error.kind, FindErrorKind::Unserved);
    assert_eq!(
        error.message,
        "virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"it\" not found"
    );
    let served = found(
        &cluster,
        MatcherRole::Instancetype,
        &matcher,
        None,
        KubeVirtVersion::new(1, 5),
    );
    assert_eq!(guest_cpus(&served.unwrap().0), 2);
}
