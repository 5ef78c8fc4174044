//! The VMI-spec defaults one by one, each with the cases that tell its branches apart: disks for
//! volumes, the default pod network, resource requests, guest memory, CPU topology, container-disk
//! pull policies and the eviction strategy.

use serde_json::{Value, json};

use super::{
    DefaultsError, default_pod_network, default_volume_disks, derived_memory_request,
    set_cpu_topology, set_guest_memory, set_memory_request, set_pull_policies,
    set_resource_requests, set_vmi_spec_defaults,
};
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion, PodBinding};
use crate::model::value::Obj;

fn obj(value: Value) -> Obj {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn latest() -> ClusterProfile {
    ClusterProfile::new(KubeVirtVersion::LATEST)
}

/// `SetDefaultVolumeDisk` (pkg/util/util.go, the same from v1.0.0 to v1.9.0) collects the disk and
/// filesystem names once: two volumes of one name get two disks, which the disk validation then
/// refuses as duplicates beside the volumes.
#[test]
fn every_volume_without_a_disk_or_filesystem_gets_a_disk_of_its_name() {
    let mut spec = obj(json!({
        "domain": {"devices": {
            "disks": [{"name": "root", "disk": {"bus": "virtio"}}],
            "filesystems": [{"name": "shared", "virtiofs": {}}]
        }},
        "volumes": [
            {"name": "root"}, {"name": "shared"}, {"name": "cloudinit"}, {"name": "cloudinit"}
        ]
    }));
    default_volume_disks(&mut spec);
    assert_eq!(
        spec["domain"]["devices"]["disks"],
        json!([
            {"name": "root", "disk": {"bus": "virtio"}}, {"name": "cloudinit"}, {"name": "cloudinit"}
        ])
    );
}

#[test]
fn a_spec_without_networks_gets_the_pod_network_with_the_cluster_binding() {
    let mut spec = obj(json!({"domain": {"devices": {"interfaces": []}}, "networks": []}));
    default_pod_network(&mut spec, &latest()).unwrap();
    assert_eq!(
        spec["domain"]["devices"]["interfaces"],
        json!([{"name": "default", "bridge": {}}])
    );
    assert_eq!(spec["networks"], json!([{"name": "default", "pod": {}}]));

    let mut profile = latest();
    profile.pod_binding = PodBinding::Masquerade;
    let mut spec = Obj::new();
    default_pod_network(&mut spec, &profile).unwrap();
    assert_eq!(
        spec["domain"]["devices"]["interfaces"],
        json!([{"name": "default", "masquerade": {}}])
    );
}

#[test]
fn no_pod_network_is_added_next_to_networks_or_interfaces_or_when_autoattach_is_off() {
    for spec in [
        json!({"networks": [{"name": "n", "multus": {"networkName": "x"}}]}),
        json!({"domain": {"devices": {"interfaces": [{"name": "n", "bridge": {}}]}}}),
        json!({"domain": {"devices": {"autoattachPodInterface": false}}}),
    ] {
        let mut defaulted = obj(spec.clone());
        default_pod_network(&mut defaulted, &latest()).unwrap();
        assert_eq!(Value::Object(defaulted), spec);
    }
}

#[test]
fn the_pod_network_default_is_refused_for_a_binding_the_cluster_does_not_allow() {
    let mut profile = latest();
    profile.permit_bridge_on_pod_network = false;
    assert_eq!(
        default_pod_network(&mut Obj::new(), &profile),
        Err(DefaultsError::BridgeNotPermitted)
    );
    profile.pod_binding = PodBinding::Slirp;
    assert_eq!(
        default_pod_network(&mut Obj::new(), &profile),
        Err(DefaultsError::SlirpDiscontinued)
    );
    // The VMI defaults fail with it.
    assert!(set_vmi_spec_defaults(&mut Obj::new(), &profile).is_err());
}

/// Up to v1.3 the default comes from virt-config's `SetVMISpecDefaultNetworkInterface`: its
/// bridge refusal is capitalised, and up to v1.2 a slirp default is used when
/// `network.permitSlirpInterface` allows it (refused otherwise); v1.3 discontinued slirp.
#[test]
fn older_releases_refuse_the_bridge_in_their_words_and_use_a_permitted_slirp() {
    let refusal = |minor, binding, permit_bridge, permit_slirp| {
        let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
        profile.pod_binding = binding;
        profile.permit_bridge_on_pod_network = permit_bridge;
        profile.permit_slirp_interface = permit_slirp;
        default_pod_network(&mut Obj::new(), &profile).map_err(|e| e.to_string())
    };
    let bridge = |minor| refusal(minor, PodBinding::Bridge, false, false);
    assert_eq!(
        bridge(3),
        Err("Bridge interface is not enabled in kubevirt-config".to_owned())
    );
    assert_eq!(
        bridge(4),
        Err("bridge interface is not enabled in kubevirt-config".to_owned())
    );
    let slirp = |minor, permit| refusal(minor, PodBinding::Slirp, true, permit);
    assert_eq!(
        slirp(2, false),
        Err("Slirp interface is not enabled in kubevirt-config".to_owned())
    );
    assert_eq!(
        slirp(3, true),
        Err("slirp interface is deprecated as of v1.3".to_owned())
    );
    let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, 2));
    profile.pod_binding = PodBinding::Slirp;
    profile.permit_slirp_interface = true;
    let mut spec = Obj::new();
    default_pod_network(&mut spec, &profile).unwrap();
    assert_eq!(
        spec["domain"]["devices"]["interfaces"],
        json!([{"name": "default", "slirp": {}}])
    );
    assert_eq!(spec["networks"], json!([{"name": "default", "pod": {}}]));
}

#[test]
fn the_cpu_limit_becomes_the_request_when_no_request_is_set() {
    let mut domain = obj(json!({"resources": {"limits": {"cpu": "2"}}}));
    set_resource_requests(&mut domain, &latest());
    assert_eq!(domain["resources"]["requests"]["cpu"], json!("2"));

    let mut domain = obj(json!({"resources": {"limits": {"cpu": "2"}, "requests": {"cpu": "1"}}}));
    set_resource_requests(&mut domain, &latest());
    assert_eq!(domain["resources"]["requests"]["cpu"], json!("1"));

    let mut domain = obj(json!({"resources": {"limits": {"cpu": "0"}}}));
    set_resource_requests(&mut domain, &latest());
    assert_eq!(domain["resources"].get("requests"), None);
}

#[test]
fn the_cluster_cpu_request_is_set_only_when_not_the_default_and_not_dedicated() {
    let mut profile = latest();
    profile.cpu_request = Some(json!("200m"));
    let mut domain = Obj::new();
    set_resource_requests(&mut domain, &profile);
    assert_eq!(domain["resources"]["requests"]["cpu"], json!("200m"));

    let mut domain = obj(json!({"resources": {"requests": {"cpu": "500m"}}}));
    set_resource_requests(&mut domain, &profile);
    assert_eq!(domain["resources"]["requests"]["cpu"], json!("500m"));

    let mut domain = obj(json!({"cpu": {"dedicatedCpuPlacement": true}}));
    set_resource_requests(&mut domain, &profile);
    assert_eq!(domain.get("resources"), None);

    profile.cpu_request = Some(json!("0.1"));
    let mut domain = Obj::new();
    set_resource_requests(&mut domain, &profile);
    assert_eq!(domain.get("resources"), None);
}

#[test]
fn the_memory_request_follows_the_limit_or_the_guest_memory_and_the_overcommit() {
    let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, 5));
    profile.memory_overcommit = 150;
    let request = |domain: Value, profile: &ClusterProfile| {
        let mut domain = obj(domain);
        set_memory_request(&mut domain, profile);
        domain
            .get("resources")
            .map(|r| r["requests"]["memory"].clone())
    };
    assert_eq!(
        request(json!({"memory": {"guest": "3Gi"}}), &profile),
        Some(json!("2Gi"))
    );
    assert_eq!(
        request(
            json!({"memory": {"hugepages": {"pageSize": "3Gi"}}}),
            &profile
        ),
        Some(json!("2Gi"))
    );
    assert_eq!(
        request(
            json!({"memory": {"guest": "3Gi"}, "resources": {"limits": {"memory": "4Gi"}}}),
            &profile
        ),
        Some(json!("4Gi"))
    );
    assert_eq!(
        request(
            json!({"memory": {"guest": "3Gi"}, "resources": {"requests": {"memory": "1Gi"}}}),
            &profile
        ),
        Some(json!("1Gi"))
    );
    assert_eq!(request(json!({"memory": {"guest": "0"}}), &profile), None);
    // `setDefaultResourceRequests` copies a non-zero limit over a zero request, and a zero limit
    // leaves the request to the guest memory.
    assert_eq!(
        request(
            json!({"resources": {"requests": {"memory": "0"}, "limits": {"memory": "4Gi"}}}),
            &profile
        ),
        Some(json!("4Gi"))
    );
    assert_eq!(
        request(
            json!({"memory": {"guest": "3Gi"}, "resources": {"limits": {"memory": "0"}}}),
            &profile
        ),
        Some(json!("2Gi"))
    );

    // v1.6.2 alone left the overcommit out.
    let mut v162 = ClusterProfile::new(KubeVirtVersion::release(1, 6, 2));
    v162.memory_overcommit = 150;
    assert_eq!(
        request(json!({"memory": {"guest": "3Gi"}}), &v162),
        Some(json!("3Gi"))
    );
}

#[test]
fn the_memory_request_is_defaulted_only_before_v1_6_4_and_v1_7() {
    let requested = |version| {
        let mut spec = obj(json!({"domain": {"memory": {"guest": "1Gi"}}}));
        set_vmi_spec_defaults(&mut spec, &ClusterProfile::new(version)).unwrap();
        spec["domain"]
            .get("resources")
            .and_then(|r| r.get("requests"))
            .and_then(|r| r.get("memory"))
            .cloned()
    };
    assert_eq!(
        requested(KubeVirtVersion::release(1, 6, 3)),
        Some(json!("1Gi"))
    );
    assert_eq!(requested(KubeVirtVersion::release(1, 6, 4)), None);
    assert_eq!(requested(KubeVirtVersion::new(1, 7)), None);
}

/// The request the defaults would derive, whatever request the domain has: what a live diff
/// leaves out before v1.6.4 (the VM controller compares templates without it).
#[test]
fn the_derived_memory_request_ignores_the_request_the_domain_has() {
    let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, 5));
    profile.memory_overcommit = 150;
    let derived =
        |domain: Value, profile: &ClusterProfile| derived_memory_request(&obj(domain), profile);
    let requested =
        json!({"memory": {"guest": "3Gi"}, "resources": {"requests": {"memory": "5Gi"}}});
    assert_eq!(derived(requested.clone(), &profile), Some(json!("2Gi")));
    assert_eq!(
        derived(
            json!({"memory": {"guest": "3Gi"}, "resources": {"limits": {"memory": "4Gi"}}}),
            &profile
        ),
        Some(json!("4Gi"))
    );
    assert_eq!(derived(json!({}), &profile), None);
    for version in [
        KubeVirtVersion::release(1, 6, 4),
        KubeVirtVersion::new(1, 7),
    ] {
        assert_eq!(
            derived(requested.clone(), &ClusterProfile::new(version)),
            None
        );
    }
}

/// "virt-api: always set memory.guest" came with v1.3.0: before, the VMI defaults leave
/// `domain.memory` as it is, so the webhook's guest-memory checks see none.
#[test]
fn the_vmi_defaults_set_the_guest_memory_from_v1_3() {
    let guest = |minor| {
        let mut spec = obj(json!({"domain": {"resources": {"requests": {"memory": "2Gi"}}}}));
        set_vmi_spec_defaults(
            &mut spec,
            &ClusterProfile::new(KubeVirtVersion::new(1, minor)),
        )
        .unwrap();
        spec["domain"].get("memory").cloned()
    };
    assert_eq!(guest(2), None);
    assert_eq!(guest(3), Some(json!({"guest": "2Gi"})));
}

#[test]
fn guest_memory_comes_from_the_request_then_the_limit_then_the_hugepage_size() {
    let guest = |domain: Value| {
        let mut domain = obj(domain);
        set_guest_memory(&mut domain);
        domain["memory"].get("guest").cloned()
    };
    assert_eq!(
        guest(json!({"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}})),
        Some(json!("1Gi"))
    );
    assert_eq!(
        guest(json!({"resources": {"limits": {"memory": "2Gi"}}})),
        Some(json!("2Gi"))
    );
    assert_eq!(
        guest(json!({"memory": {"hugepages": {"pageSize": "1Gi"}}})),
        Some(json!("1Gi"))
    );
    assert_eq!(
        guest(json!({"memory": {"guest": "4Gi"}, "resources": {"requests": {"memory": "1Gi"}}})),
        Some(json!("4Gi"))
    );
    assert_eq!(guest(json!({})), None);
}

#[test]
fn an_unset_topology_gets_one_socket_per_cpu_of_the_limit_or_request() {
    let topology = |domain: Value| {
        let mut domain = obj(domain);
        set_cpu_topology(&mut domain);
        domain["cpu"].clone()
    };
    let one_core = |sockets: u32| json!({"sockets": sockets, "cores": 1, "threads": 1});
    assert_eq!(topology(json!({})), one_core(1));
    assert_eq!(
        topology(json!({"resources": {"limits": {"cpu": "4"}, "requests": {"cpu": "2"}}})),
        one_core(4)
    );
    assert_eq!(
        topology(json!({"resources": {"requests": {"cpu": "3"}}})),
        one_core(3)
    );
}

#[test]
fn a_topology_with_any_of_cores_sockets_or_threads_is_left_alone() {
    for cpu in [
        json!({"cores": 2}),
        json!({"sockets": 2}),
        json!({"threads": 2}),
    ] {
        let mut domain = obj(json!({"cpu": cpu.clone(), "resources": {"limits": {"cpu": "4"}}}));
        set_cpu_topology(&mut domain);
        assert_eq!(domain["cpu"], cpu);
    }
}

#[test]
fn container_disks_pull_latest_and_untagged_images_always() {
    let mut spec = obj(json!({"volumes": [
        {"name": "a", "containerDisk": {"image": "quay.io/os/fedora:latest"}},
        {"name": "b", "containerDisk": {"image": "fedora"}},
        {"name": "c", "containerDisk": {"image": "quay.io/os/fedora:41"}},
        {"name": "d", "containerDisk": {"image": "fedora@sha256:0123"}},
        {"name": "e", "containerDisk": {"image": "fedora", "imagePullPolicy": "Never"}},
        {"name": "f", "persistentVolumeClaim": {"claimName": "pvc"}}
    ]}));
    set_pull_policies(&mut spec);
    let policies: Vec<Option<&str>> = spec["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.get("containerDisk")
                .map(|d| d["imagePullPolicy"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        policies,
        [
            Some("Always"),
            Some("Always"),
            Some("IfNotPresent"),
            Some("IfNotPresent"),
            Some("Never"),
            None
        ]
    );
}

#[test]
fn the_vmi_defaults_set_architecture_machine_and_eviction_strategy_only_when_unset() {
    let mut spec = Obj::new();
    set_vmi_spec_defaults(&mut spec, &latest()).unwrap();
    assert_eq!(spec["architecture"], json!("amd64"));
    assert_eq!(spec["evictionStrategy"], json!("None"));
    assert!(
        spec["domain"]["machine"]["type"]
            .as_str()
            .is_some_and(|t| !t.is_empty())
    );

    let mut profile = latest();
    profile.eviction_strategy = Some("LiveMigrate".to_owned());
    let mut spec = obj(json!({
        "architecture": "arm64",
        "domain": {"machine": {"type": "virt-custom"}},
        "evictionStrategy": "External"
    }));
    set_vmi_spec_defaults(&mut spec, &profile).unwrap();
    assert_eq!(spec["architecture"], json!("arm64"));
    assert_eq!(spec["domain"]["machine"]["type"], json!("virt-custom"));
    assert_eq!(spec["evictionStrategy"], json!("External"));

    let mut spec = Obj::new();
    set_vmi_spec_defaults(&mut spec, &profile).unwrap();
    assert_eq!(spec["evictionStrategy"], json!("LiveMigrate"));
}

/// "virt-controller: always store evictionStrategy in Spec" came with v1.0.1: v1.0.0 leaves it
/// unset, whatever the cluster's.
#[test]
fn the_eviction_strategy_is_defaulted_from_v1_0_1() {
    let strategy = |version, cluster: Option<&str>| {
        let mut profile = ClusterProfile::new(version);
        profile.eviction_strategy = cluster.map(str::to_owned);
        let mut spec = Obj::new();
        set_vmi_spec_defaults(&mut spec, &profile).unwrap();
        spec.get("evictionStrategy").cloned()
    };
    let v1_0_0 = KubeVirtVersion::new(1, 0);
    assert_eq!(strategy(v1_0_0, None), None);
    assert_eq!(strategy(v1_0_0, Some("LiveMigrate")), None);
    let v1_0_1 = KubeVirtVersion::release(1, 0, 1);
    assert_eq!(strategy(v1_0_1, None), Some(json!("None")));
    assert_eq!(
        strategy(v1_0_1, Some("LiveMigrate")),
        Some(json!("LiveMigrate"))
    );
}
