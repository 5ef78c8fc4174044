//! Table tests of the instance-type and preference webhooks, case for case after what KubeVirt's
//! own `pkg/instancetype/webhooks/admitter_test.go` and
//! `pkg/instancetype/preference/webhooks/admitter_test.go` (v1.9.0) pin down, for the namespaced
//! and cluster kinds alike, plus the release boundaries of each check (the cases are written
//! here).

use std::sync::Arc;

use super::check_object;
use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::Object;
use crate::load::{LoadOptions, load_text};

const V1_9: KubeVirtVersion = KubeVirtVersion::LATEST;

/// The one object of `manifest`, as the loader reads it.
fn object(manifest: &str) -> Object {
    let mut loaded = load_text(
        &Arc::from("objects.yaml"),
        manifest,
        &LoadOptions::default(),
    );
    assert_eq!(loaded.objects.len(), 1, "{manifest}");
    loaded.objects.remove(0)
}

/// An object of `kind` at `instancetype.kubevirt.io/<version>` with `spec` (YAML, indented by
/// two spaces).
fn manifest(kind: &str, version: &str, spec: &str) -> String {
    format!(
        "apiVersion: instancetype.kubevirt.io/{version}\nkind: {kind}\nmetadata:\n  name: o\nspec:\n{spec}"
    )
}

/// The findings of `spec` as a v1beta1 object of `kind`, as (code, path, message).
fn judged(kind: &str, spec: &str, version: KubeVirtVersion) -> Vec<(String, String, String)> {
    check_object(&object(&manifest(kind, "v1beta1", spec)), version)
        .into_iter()
        .map(|finding| {
            (
                finding.rule.code.to_owned(),
                finding.path.unwrap_or_default(),
                finding.message,
            )
        })
        .collect()
}

fn one(code: &str, path: &str, message: &str) -> Vec<(String, String, String)> {
    vec![(code.to_owned(), path.to_owned(), message.to_owned())]
}

const INSTANCETYPES: [&str; 2] = [
    "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype",
];
const PREFERENCES: [&str; 2] = [
    "VirtualMachinePreference",
    "VirtualMachineClusterPreference",
];

const VALID_INSTANCETYPE: &str = "  cpu:\n    guest: 2\n  memory:\n    guest: 2Gi\n";

#[test]
fn a_valid_instancetype_is_accepted_at_every_release() {
    for kind in INSTANCETYPES {
        for minor in 0..=9 {
            let version = KubeVirtVersion::new(1, minor);
            assert_eq!(
                judged(kind, VALID_INSTANCETYPE, version),
                [],
                "{kind} {version}"
            );
        }
    }
}

#[test]
fn memory_overcommit_outside_zero_to_a_hundred_percent_is_refused() {
    for kind in INSTANCETYPES {
        for percent in ["-15", "150"] {
            let spec = format!("{VALID_INSTANCETYPE}    overcommitPercent: {percent}\n");
            assert_eq!(
                judged(kind, &spec, V1_9),
                one(
                    "KV1013",
                    "spec.memory.overcommitPercent",
                    &format!(
                        "spec.memory.overcommitPercent '{percent}': must be in range between 0 and 100."
                    )
                ),
                "{kind} {percent}"
            );
        }
        for percent in ["0", "100"] {
            let spec = format!("{VALID_INSTANCETYPE}    overcommitPercent: {percent}\n");
            assert_eq!(judged(kind, &spec, V1_9), [], "{kind} {percent}");
        }
    }
}

#[test]
fn memory_overcommit_with_hugepages_is_refused() {
    for kind in INSTANCETYPES {
        let spec = format!(
            "{VALID_INSTANCETYPE}    overcommitPercent: 15\n    hugepages:\n      pageSize: 1Gi\n"
        );
        assert_eq!(
            judged(kind, &spec, V1_9),
            one(
                "KV1013",
                "spec.memory.overcommitPercent",
                "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together."
            ),
            "{kind}"
        );
        // Hugepages alone are fine.
        let spec = format!("{VALID_INSTANCETYPE}    hugepages:\n      pageSize: 1Gi\n");
        assert_eq!(judged(kind, &spec, V1_9), [], "{kind}");
    }
}

/// v1.9 warns about `launchSecurity` on instance types (the field moved to preferences); v1.8
/// accepts it silently.
#[test]
fn launch_security_on_an_instancetype_is_deprecated_from_v1_9() {
    let spec = format!("{VALID_INSTANCETYPE}  launchSecurity:\n    sev: {{}}\n");
    for kind in INSTANCETYPES {
        assert_eq!(
            judged(kind, &spec, V1_9),
            one(
                "KV0013",
                "spec.launchSecurity",
                "launchSecurity is deprecated and will be removed in a future release. Use preference instead."
            ),
            "{kind}"
        );
        assert_eq!(
            judged(kind, &spec, KubeVirtVersion::new(1, 8)),
            [],
            "{kind}"
        );
    }
}

#[test]
fn a_valid_preference_is_accepted() {
    for kind in PREFERENCES {
        let spec = "  cpu:\n    preferredCPUTopology: sockets\n";
        assert_eq!(judged(kind, spec, V1_9), [], "{kind}");
    }
}

/// An unknown topology is refused from v1.4 (the check came with the new topology names).
#[test]
fn an_unknown_preferred_cpu_topology_is_refused_from_v1_4() {
    let spec = "  cpu:\n    preferredCPUTopology: foo\n";
    for kind in PREFERENCES {
        for minor in 4..=9 {
            assert_eq!(
                judged(kind, spec, KubeVirtVersion::new(1, minor)),
                one(
                    "KV1013",
                    "spec.cpu.preferredCPUTopology",
                    "unknown preferredCPUTopology foo"
                ),
                "{kind} v1.{minor}"
            );
        }
        assert_eq!(judged(kind, spec, KubeVirtVersion::new(1, 3)), [], "{kind}");
    }
}

/// `across` outside SocketsCores, SocketsCoresThreads and CoresThreads is refused for the
/// spread topology under both of its names, from v1.3.
#[test]
fn an_unsupported_spread_across_is_refused() {
    for kind in PREFERENCES {
        for topology in ["spread", "preferSpread"] {
            let spec = format!(
                "  preferSpreadSocketToCoreRatio: 3\n  cpu:\n    preferredCPUTopology: {topology}\n    spreadOptions:\n      across: foobar\n"
            );
            let findings = judged(kind, &spec, V1_9);
            let refused: Vec<_> = findings.iter().filter(|f| f.0 == "KV1013").collect();
            assert_eq!(
                refused,
                [&(
                    "KV1013".to_owned(),
                    "spec.cpu.spreadOptions.across".to_owned(),
                    "across foobar is not supported".to_owned()
                )],
                "{kind} {topology}: {findings:?}"
            );
            // The spread checks came with v1.3's preference admitter.
            let before = judged(kind, &spec, KubeVirtVersion::new(1, 2));
            assert!(before.iter().all(|f| f.0 != "KV1013"), "{kind}: {before:?}");
        }
    }
}

/// Up to v1.3 the preference admitter checks the spread options of `preferSpread` only
/// (`validateSpreadOptions`, preference-admitter.go at v1.3.0): `spread` is an unknown value
/// there, so its options are not checked.
#[test]
fn up_to_v1_3_only_prefer_spread_has_its_spread_options_checked() {
    let spec = |topology: &str| {
        format!(
            "  cpu:\n    preferredCPUTopology: {topology}\n    spreadOptions:\n      across: foobar\n"
        )
    };
    for kind in PREFERENCES {
        let v1_3 = KubeVirtVersion::new(1, 3);
        assert_eq!(
            judged(kind, &spec("preferSpread"), v1_3),
            one(
                "KV1013",
                "spec.cpu.spreadOptions.across",
                "across foobar is not supported"
            ),
            "{kind}"
        );
        assert_eq!(judged(kind, &spec("spread"), v1_3), [], "{kind}");
    }
}

/// Spreading over cores and threads allows a ratio of 2 only, whether the ratio comes from the
/// deprecated `preferSpreadSocketToCoreRatio` or from `spreadOptions.ratio`.
#[test]
fn a_cores_threads_spread_with_a_ratio_other_than_two_is_refused() {
    let refusal = one(
        "KV1013",
        "spec.cpu.spreadOptions.ratio",
        "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads",
    );
    for kind in PREFERENCES {
        for topology in ["spread", "preferSpread"] {
            for (top_level, ratio) in [
                ("  preferSpreadSocketToCoreRatio: 3\n", ""),
                ("", "      ratio: 3\n"),
            ] {
                let spec = format!(
                    "{top_level}  cpu:\n    preferredCPUTopology: {topology}\n    spreadOptions:\n      across: CoresThreads\n{ratio}"
                );
                let refused: Vec<_> = judged(kind, &spec, V1_9)
                    .into_iter()
                    .filter(|f| f.0 == "KV1013")
                    .collect();
                assert_eq!(refused, refusal, "{kind} {topology} {spec}");
            }
            let spec = format!(
                "  cpu:\n    preferredCPUTopology: {topology}\n    spreadOptions:\n      across: CoresThreads\n      ratio: 2\n"
            );
            assert!(
                judged(kind, &spec, V1_9).iter().all(|f| f.0 != "KV1013"),
                "{kind} {topology}"
            );
        }
    }
}

#[test]
fn each_deprecated_topology_is_warned_with_its_replacement() {
    for kind in PREFERENCES {
        for (deprecated, replacement) in [
            ("preferSockets", "sockets"),
            ("preferCores", "cores"),
            ("preferThreads", "threads"),
            ("preferSpread", "spread"),
            ("preferAny", "any"),
        ] {
            let spec = format!("  cpu:\n    preferredCPUTopology: {deprecated}\n");
            assert_eq!(
                judged(kind, &spec, V1_9),
                one(
                    "KV0013",
                    "spec.cpu.preferredCPUTopology",
                    &format!(
                        "PreferredCPUTopology {deprecated} is deprecated for removal in a future release, please use {replacement} instead"
                    )
                ),
                "{kind} {deprecated}"
            );
        }
    }
}

/// Not refused by KubeVirt, but a ratio of 0 makes every VM using the preference fail.
#[test]
fn a_spread_ratio_of_zero_is_reported() {
    let spec = "  cpu:\n    preferredCPUTopology: spread\n    spreadOptions:\n      ratio: 0\n";
    let findings = judged("VirtualMachinePreference", spec, V1_9);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].1, "spec.cpu.spreadOptions.ratio");
    assert_ne!(
        findings[0].0, "KV1013",
        "KubeVirt itself accepts the object"
    );
}

/// v1alpha1 and v1alpha2 are served (and deprecated) up to v1.5, not served from v1.6.
#[test]
fn alpha_versions_are_deprecated_then_unserved() {
    for alpha in ["v1alpha1", "v1alpha2"] {
        let text = manifest("VirtualMachineInstancetype", alpha, VALID_INSTANCETYPE);
        let codes = |version| -> Vec<&str> {
            check_object(&object(&text), version)
                .iter()
                .map(|finding| finding.rule.code)
                .collect()
        };
        assert_eq!(codes(KubeVirtVersion::new(1, 5)), ["KV0012"], "{alpha}");
        let unserved = check_object(&object(&text), KubeVirtVersion::new(1, 6));
        assert_eq!(unserved.len(), 1, "{alpha}");
        assert_eq!(
            unserved[0].message,
            format!(
                "KubeVirt v1.6 does not serve instancetype.kubevirt.io/{alpha}: the API server refuses the object"
            )
        );
    }
}

/// The API server refuses an object without a spec object before the webhook runs: the schema
/// check reports it (KV0015), the webhook's checks nothing.
#[test]
fn an_object_without_a_spec_is_left_to_its_schema() {
    for spec in ["", "spec: null\n", "spec: 5\n", "spec: []\n"] {
        let text = format!(
            "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachinePreference\nmetadata:\n  name: o\n{spec}"
        );
        assert!(check_object(&object(&text), V1_9).is_empty(), "{spec}");
    }
}

/// Only the four kinds have these webhooks: another kind of the group is not judged as one.
#[test]
fn another_kind_of_the_group_is_not_judged() {
    let spec = "  cpu:\n    preferredCPUTopology: foo\n  memory:\n    overcommitPercent: 150\n";
    let text = manifest("VirtualMachineSnapshotOfSomething", "v1beta1", spec);
    assert!(check_object(&object(&text), V1_9).is_empty());
}
