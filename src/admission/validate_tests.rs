//! Table tests of the instance-type part of the VM validating webhook, case for case after what
//! KubeVirt's own `pkg/instancetype/webhooks/vm/admitter_test.go` (v1.9.0) pins down: conflicts
//! between the VM and its instance type, preference requirements, the spread topology's
//! divisibility checks, and references that cannot be found (the cases are written here).

use serde_json::{Value, json};

use super::{FindErrors, Rejection, validate};
use crate::admission::Cause;
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::model::{self, InstancetypeSpec, MatcherRole, PreferenceSpec};
use crate::render::Specs;

/// A VM that references an instance type and a preference, with `domain` as its template's.
fn vm(domain: Value) -> Value {
    let mut vm = json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm", "namespace": "default"},
        "spec": {
            "instancetype": {"name": "instancetypeName"},
            "preference": {"name": "preferenceName"},
            "runStrategy": "Always",
            "template": {"spec": {}}
        }
    });
    vm["spec"]["template"]["spec"]["domain"] = domain;
    vm
}

/// KubeVirt's test instance type: 2 vCPUs and 128Mi.
fn instancetype(guest_cpus: u32) -> InstancetypeSpec {
    model::decode(&json!({"cpu": {"guest": guest_cpus}, "memory": {"guest": "128Mi"}})).unwrap()
}

fn preference(spec: &Value) -> PreferenceSpec {
    model::decode(spec).unwrap()
}

fn created(
    vm: Value,
    instancetype: Option<&InstancetypeSpec>,
    preference: Option<&PreferenceSpec>,
    version: KubeVirtVersion,
) -> Vec<Rejection> {
    let specs = Specs {
        instancetype,
        preference,
    };
    validate(
        vm,
        specs,
        &FindErrors::default(),
        &ClusterProfile::new(version),
        true,
    )
}

fn conflicts(rejections: &[Rejection]) -> Vec<String> {
    let mut paths: Vec<String> = rejections
        .iter()
        .map(|rejection| match rejection {
            Rejection::Conflict(conflict) => conflict.path.clone(),
            other => panic!("not a conflict: {other:?}"),
        })
        .collect();
    paths.sort();
    paths
}

fn cores() -> PreferenceSpec {
    preference(&json!({"cpu": {"preferredCPUTopology": "cores"}}))
}

#[test]
fn a_vm_that_sets_what_its_instancetype_sets_is_refused_per_field() {
    let instancetype = instancetype(2);
    let preference = cores();
    let refused = created(
        vm(json!({"cpu": {"sockets": 1}, "memory": {"guest": "1Gi"}})),
        Some(&instancetype),
        Some(&preference),
        KubeVirtVersion::LATEST,
    );
    assert_eq!(
        conflicts(&refused),
        [
            "spec.template.spec.domain.cpu.sockets",
            "spec.template.spec.domain.memory.guest"
        ]
    );
    let refused = created(
        vm(json!({"cpu": {"sockets": 1, "cores": 1, "threads": 1}})),
        Some(&instancetype),
        Some(&preference),
        KubeVirtVersion::LATEST,
    );
    assert_eq!(
        conflicts(&refused),
        [
            "spec.template.spec.domain.cpu.cores",
            "spec.template.spec.domain.cpu.sockets",
            "spec.template.spec.domain.cpu.threads"
        ]
    );
}

#[test]
fn cpu_and_memory_requests_and_limits_conflict_with_an_instancetype() {
    let instancetype = instancetype(2);
    let preference = cores();
    for (kind, resource, quantity) in [
        ("requests", "cpu", "1"),
        ("limits", "cpu", "1"),
        ("requests", "memory", "128Mi"),
        ("limits", "memory", "128Mi"),
    ] {
        let refused = created(
            vm(json!({"resources": {kind: {resource: quantity}}})),
            Some(&instancetype),
            Some(&preference),
            KubeVirtVersion::LATEST,
        );
        assert_eq!(
            conflicts(&refused),
            [format!(
                "spec.template.spec.domain.resources.{kind}.{resource}"
            )]
        );
    }
}

/// The CPU requirement of a preference, checked after the VMI defaults: on the instance type
/// when there is one, else on the VM's topology the preference prefers.
#[test]
fn a_preference_cpu_requirement_that_is_not_met_is_refused() {
    let preference = preference(&json!({
        "cpu": {"preferredCPUTopology": "cores"},
        "requirements": {"cpu": {"guest": 10}}
    }));
    let requirement = |field: &str, message: &str, by_instancetype| Rejection::Requirement {
        cause: Cause::new(
            field,
            format!("failure checking preference requirements: {message}"),
        ),
        by_instancetype,
    };
    let instancetype = instancetype(2);
    assert_eq!(
        created(
            vm(json!({})),
            Some(&instancetype),
            Some(&preference),
            KubeVirtVersion::LATEST
        ),
        [requirement(
            "spec.instancetype",
            "insufficient CPU resources of 2 vCPU provided by instance type, preference requires 10 vCPU",
            true
        )]
    );
    let without_instancetype = |domain, version| {
        let mut vm = vm(domain);
        vm["spec"].as_object_mut().unwrap().remove("instancetype");
        created(vm, None, Some(&preference), version)
    };
    // `SetDefaultGuestCPUTopology` gives a VM without a topology 1 socket, 1 core, 1 thread
    // before the check; v1.0 checked before the defaults, on no CPU at all.
    assert_eq!(
        without_instancetype(json!({}), KubeVirtVersion::LATEST),
        [requirement(
            "spec.template.spec.domain.cpu.cores",
            "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 10 vCPU provided as cores",
            false
        )]
    );
    assert_eq!(
        without_instancetype(json!({}), KubeVirtVersion::new(1, 0)),
        [requirement(
            "spec.template.spec.domain.cpu",
            "no CPU resources provided by VirtualMachine, preference requires 10 vCPU",
            false
        )]
    );
    // A topology the VM sets is not defaulted: the cores it leaves out are 0.
    assert_eq!(
        without_instancetype(json!({"cpu": {"sockets": 1}}), KubeVirtVersion::LATEST),
        [requirement(
            "spec.template.spec.domain.cpu.cores",
            "insufficient CPU resources of 0 vCPU provided by VirtualMachine, preference requires 10 vCPU provided as cores",
            false
        )]
    );
    assert_eq!(
        without_instancetype(json!({"cpu": {"cores": 10}}), KubeVirtVersion::LATEST),
        []
    );
}

const SOCKETS_CORES: &str = "vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of";
const BY_PREFERENCE: &str = "provided by the preference";

/// KubeVirt's table of spread topologies an instance type's vCPUs cannot fill, each with the
/// topology under both of its names.
#[test]
fn a_spread_the_instancetype_cpus_cannot_fill_is_refused() {
    let table: [(u32, Value, String); 10] = [
        (3, json!({"cpu": {}}), format!("3 {SOCKETS_CORES} 2 {BY_PREFERENCE}")),
        (2, json!({"preferSpreadSocketToCoreRatio": 3, "cpu": {}}), format!("2 {SOCKETS_CORES} 3 {BY_PREFERENCE}")),
        (2, json!({"cpu": {"spreadOptions": {"ratio": 3}}}), format!("2 {SOCKETS_CORES} 3 {BY_PREFERENCE}")),
        (4, json!({"preferSpreadSocketToCoreRatio": 3, "cpu": {}}), format!("4 {SOCKETS_CORES} 3 {BY_PREFERENCE}")),
        (4, json!({"cpu": {"spreadOptions": {"ratio": 3}}}), format!("4 {SOCKETS_CORES} 3 {BY_PREFERENCE}")),
        (
            3,
            json!({"cpu": {"spreadOptions": {"across": "CoresThreads"}}}),
            "3 vCPUs provided by the instance type are not divisible by the number of threads per core 2".to_owned(),
        ),
        (
            5,
            json!({"cpu": {"spreadOptions": {"across": "CoresThreads"}}}),
            "5 vCPUs provided by the instance type are not divisible by the number of threads per core 2".to_owned(),
        ),
        (
            5,
            json!({"cpu": {"spreadOptions": {"across": "SocketsCoresThreads"}}}),
            "5 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 2".to_owned(),
        ),
        (
            6,
            json!({"preferSpreadSocketToCoreRatio": 4, "cpu": {"spreadOptions": {"across": "SocketsCoresThreads"}}}),
            "6 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 4".to_owned(),
        ),
        (
            6,
            json!({"cpu": {"spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4}}}),
            "6 vCPUs provided by the instance type are not divisible by the number of threads per core 2 and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of 4".to_owned(),
        ),
    ];
    for (guest_cpus, spec, message) in table {
        for topology in ["spread", "preferSpread"] {
            let mut spec = spec.clone();
            spec["cpu"]["preferredCPUTopology"] = json!(topology);
            let preference = preference(&spec);
            let instancetype = instancetype(guest_cpus);
            let refused = created(
                vm(json!({})),
                Some(&instancetype),
                Some(&preference),
                KubeVirtVersion::LATEST,
            );
            assert_eq!(
                refused,
                [Rejection::Spread(Cause::new(
                    "instancetype.spec.cpu.guest",
                    message.clone()
                ))],
                "{guest_cpus} vCPUs, {spec}"
            );
        }
    }
}

#[test]
fn a_spread_preference_without_an_instancetype_is_admitted() {
    for topology in ["spread", "preferSpread"] {
        let preference = preference(&json!({"cpu": {"preferredCPUTopology": topology}}));
        let mut vm = vm(json!({}));
        vm["spec"].as_object_mut().unwrap().remove("instancetype");
        assert_eq!(
            created(vm, None, Some(&preference), KubeVirtVersion::LATEST),
            [],
            "{topology}"
        );
    }
}

/// From v1.6 a reference that cannot be found is admitted (the VM waits for the object); up
/// to v1.5 the webhook refuses it with the find error.
#[test]
fn a_reference_that_cannot_be_found_is_refused_up_to_v1_5_only() {
    for (role, field, what) in [
        (
            MatcherRole::Instancetype,
            "spec.instancetype",
            "instancetype",
        ),
        (MatcherRole::Preference, "spec.preference", "preference"),
    ] {
        let mut errors = FindErrors::default();
        let error = Some("not found".to_owned());
        match role {
            MatcherRole::Instancetype => errors.instancetype = error,
            MatcherRole::Preference => errors.preference = error,
        }
        let judge = |version| {
            validate(
                vm(json!({})),
                Specs::default(),
                &errors,
                &ClusterProfile::new(version),
                true,
            )
        };
        assert_eq!(
            judge(KubeVirtVersion::new(1, 5)),
            [Rejection::FindFailure {
                role,
                cause: Cause::new(field, format!("Failure to find {what}: not found")),
            }]
        );
        for minor in 6..=9 {
            let verdict = judge(KubeVirtVersion::new(1, minor));
            assert!(
                verdict
                    .iter()
                    .all(|r| !matches!(r, Rejection::FindFailure { .. })),
                "v1.{minor}: {verdict:?}"
            );
        }
    }
}

/// A spread ratio of 0 divides by zero only where the spread is checked (`spread`,
/// `preferSpread`); another topology with the same ratio is admitted.
#[test]
fn a_zero_spread_ratio_fails_the_webhook_only_for_a_spread_topology() {
    for (topology, fails) in [
        ("spread", true),
        ("preferSpread", true),
        ("cores", false),
        ("preferSockets", false),
    ] {
        let preference = preference(
            &json!({"cpu": {"preferredCPUTopology": topology, "spreadOptions": {"ratio": 0}}}),
        );
        let refused = created(
            vm(json!({})),
            Some(&instancetype(2)),
            Some(&preference),
            KubeVirtVersion::LATEST,
        );
        let panicked = refused.iter().any(|r| matches!(r, Rejection::Panic(_)));
        assert_eq!(panicked, fails, "{topology}: {refused:?}");
    }
}

/// Without an instance type the preference is still applied, and applying
/// `preferredCPUFeatures` to a VM without `domain.cpu` dereferences nil in KubeVirt.
#[test]
fn a_preference_alone_is_applied_and_can_fail_the_webhook() {
    let features = preference(&json!({"cpu": {"preferredCPUFeatures": [{"name": "vmx"}]}}));
    let mut written = vm(json!({}));
    written["spec"]
        .as_object_mut()
        .unwrap()
        .remove("instancetype");
    let refused = created(
        written.clone(),
        None,
        Some(&features),
        KubeVirtVersion::LATEST,
    );
    assert!(
        matches!(refused.as_slice(), [Rejection::Panic(_)]),
        "{refused:?}"
    );
    written["spec"]["template"]["spec"]["domain"]["cpu"] = json!({"cores": 1});
    assert_eq!(
        created(written, None, Some(&features), KubeVirtVersion::LATEST),
        []
    );
}

/// Up to v1.2 the VMI defaults the webhook applies before its checks leave `memory.guest`
/// unset ("virt-api: always set memory.guest" came with v1.3.0), so a memory request above the
/// limit is refused for the request alone; from v1.3 the guest memory defaulted from that
/// request is above the limit too.
#[test]
fn a_request_above_the_limit_is_also_a_guest_memory_above_it_from_v1_3() {
    let mut written = vm(json!({
        "resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}},
        "devices": {}
    }));
    let spec = written["spec"].as_object_mut().unwrap();
    spec.remove("instancetype");
    spec.remove("preference");
    let fields = |minor| {
        let mut fields: Vec<String> =
            created(written.clone(), None, None, KubeVirtVersion::new(1, minor))
                .into_iter()
                .map(|rejection| match rejection {
                    Rejection::VmSpec(cause) => cause.field,
                    other => panic!("not a spec check: {other:?}"),
                })
                .collect();
        fields.sort();
        fields
    };
    let request = "spec.template.spec.domain.resources.requests.memory";
    assert_eq!(fields(2), [request]);
    assert_eq!(
        fields(3),
        ["spec.template.spec.domain.memory.guest", request]
    );
}

/// Up to v1.2 the spread check (`applyInstancetypeToVm` at v1.1.0 and v1.2.0) divides by
/// `preferSpreadSocketToCoreRatio` alone (the API server prunes `spreadOptions`) and says so in
/// its own words; v1.1 reads the instance type's vCPUs even when the VM has none, and panics.
#[test]
fn up_to_v1_2_the_spread_check_knows_only_the_socket_to_core_ratio() {
    let v1_2 = KubeVirtVersion::new(1, 2);
    let refused = |spec: Value, guest_cpus, version| {
        let preference = preference(&spec);
        created(
            vm(json!({})),
            Some(&instancetype(guest_cpus)),
            Some(&preference),
            version,
        )
    };
    assert_eq!(
        refused(
            json!({"preferSpreadSocketToCoreRatio": 3, "cpu": {"preferredCPUTopology": "preferSpread"}}),
            4,
            v1_2
        ),
        [Rejection::Spread(Cause::new(
            "instancetype.spec.cpu.guest",
            "Instancetype CPU Guest is not divisible by PreferSpreadSocketToCoreRatio"
        ))]
    );
    for ratio in [0, 3] {
        let options = json!({"cpu": {"preferredCPUTopology": "preferSpread", "spreadOptions": {"ratio": ratio}}});
        assert_eq!(refused(options.clone(), 4, v1_2), [], "ratio {ratio}");
        assert_ne!(
            refused(options, 4, KubeVirtVersion::new(1, 3)),
            [],
            "ratio {ratio}"
        );
    }
    let spread = preference(&json!({"cpu": {"preferredCPUTopology": "preferSpread"}}));
    let mut written = vm(json!({"cpu": {"cores": 2}}));
    written["spec"]
        .as_object_mut()
        .unwrap()
        .remove("instancetype");
    let alone = |version| created(written.clone(), None, Some(&spread), version);
    let v1_1 = alone(KubeVirtVersion::release(1, 1, 1));
    assert!(matches!(v1_1.as_slice(), [Rejection::Panic(_)]), "{v1_1:?}");
    assert_eq!(alone(v1_2), []);
}
