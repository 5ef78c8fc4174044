//! `apply/cpu.go`: CPU conflicts, copied settings and the vCPU topology.

use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::{Obj, bool_of, child, get_obj, is_set, resource, str_of, u64_of};
use crate::model::{InstancetypeSpec, PreferenceSpec, SpreadAcross, Topology};
use crate::render::conflict::Conflict;
use crate::render::requirements::spread_options;

pub(super) fn apply(
    prefix: &str,
    instancetype: &InstancetypeSpec,
    preference: Option<&PreferenceSpec>,
    spec: &mut Obj,
    version: KubeVirtVersion,
) -> Vec<Conflict> {
    let domain = child(spec, "domain");
    let conflicts = conflicts(prefix, instancetype, domain);
    child(domain, "cpu");
    if !conflicts.is_empty() {
        return conflicts;
    }
    let it = &instancetype.cpu;
    let cpu = child(domain, "cpu");
    if let Some(model) = &it.model {
        cpu.insert("model".to_owned(), model.clone().into());
    }
    if let Some(dedicated) = it.dedicated_cpu_placement {
        cpu.insert("dedicatedCpuPlacement".to_owned(), dedicated.into());
    }
    if let Some(isolate) = it.isolate_emulator_thread {
        cpu.insert("isolateEmulatorThread".to_owned(), isolate.into());
    }
    if let Some(numa) = it.numa.as_ref().filter(|v| !v.is_null()) {
        cpu.insert("numa".to_owned(), numa.clone());
    }
    if let Some(realtime) = it.realtime.as_ref().filter(|v| !v.is_null()) {
        cpu.insert("realtime".to_owned(), realtime.clone());
    }
    if version.at_least(1, 3)
        && let Some(max_sockets) = it.max_sockets
    {
        cpu.insert("maxSockets".to_owned(), max_sockets.into());
    }
    let (sockets, cores, threads) = topology(it.guest, preference, version);
    cpu.insert("sockets".to_owned(), sockets.into());
    cpu.insert("cores".to_owned(), cores.into());
    cpu.insert("threads".to_owned(), threads.into());
    Vec::new()
}

fn conflicts(prefix: &str, instancetype: &InstancetypeSpec, domain: &Obj) -> Vec<Conflict> {
    let it = &instancetype.cpu;
    let mut out = Vec::new();
    if resource(domain, "requests", "cpu").is_some() {
        out.push(Conflict::at(prefix, "domain.resources.requests.cpu"));
    }
    if resource(domain, "limits", "cpu").is_some() {
        out.push(Conflict::at(prefix, "domain.resources.limits.cpu"));
    }
    let empty = Obj::new();
    let cpu = get_obj(domain, "cpu").unwrap_or(&empty);
    for field in ["sockets", "cores", "threads"] {
        if u64_of(cpu, field) != 0 {
            out.push(Conflict::at(prefix, &format!("domain.cpu.{field}")));
        }
    }
    if !str_of(cpu, "model").is_empty() && it.model.is_some() {
        out.push(Conflict::at(prefix, "domain.cpu.model"));
    }
    if bool_of(cpu, "dedicatedCpuPlacement") && it.dedicated_cpu_placement.is_some() {
        out.push(Conflict::at(prefix, "domain.cpu.dedicatedCPUPlacement"));
    }
    if bool_of(cpu, "isolateEmulatorThread") && it.isolate_emulator_thread.is_some() {
        out.push(Conflict::at(prefix, "domain.cpu.isolateEmulatorThread"));
    }
    if is_set(cpu, "numa") && it.numa.as_ref().is_some_and(|v| !v.is_null()) {
        out.push(Conflict::at(prefix, "domain.cpu.numa"));
    }
    if is_set(cpu, "realtime") && it.realtime.as_ref().is_some_and(|v| !v.is_null()) {
        out.push(Conflict::at(prefix, "domain.cpu.realtime"));
    }
    out
}

/// Lays `guest` vCPUs out as (sockets, cores, threads) the way the preference asks
/// (KubeVirt `pkg/instancetype/apply/cpu.go`, `applyGuestCPUTopology`). A spread ratio of 0
/// makes KubeVirt divide by zero; the webhook check reports
/// that before rendering, and here it lays out as 1/1/1.
pub(super) fn topology(
    guest: u32,
    preference: Option<&PreferenceSpec>,
    version: KubeVirtVersion,
) -> (u32, u32, u32) {
    let spread_without_shortcut = !version.at_least(1, 3);
    if guest == 1 && !spread_without_shortcut {
        return (1, 1, 1);
    }
    let topology = preference.map_or(Topology::Sockets, |p| p.topology(version.topology_names()));
    match topology {
        Topology::Cores => (1, guest, 1),
        Topology::Sockets | Topology::Any => (guest, 1, 1),
        Topology::Threads => (1, 1, guest),
        Topology::Spread => {
            let Some(preference) = preference else {
                return (guest, 1, 1);
            };
            let (ratio, across) = spread_options(preference, version);
            if ratio == 0 {
                return (1, 1, 1);
            }
            match across {
                SpreadAcross::SocketsCores => (guest / ratio, ratio, 1),
                SpreadAcross::CoresThreads => (1, guest / ratio, ratio),
                SpreadAcross::SocketsCoresThreads => (guest / 2 / ratio, ratio, 2),
                SpreadAcross::Unknown => (1, 1, 1),
            }
        }
        Topology::Unknown => (1, 1, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CpuPreferences, SpreadOptions};

    fn pref(topology: &str, across: Option<&str>, ratio: Option<u32>) -> PreferenceSpec {
        PreferenceSpec {
            cpu: Some(CpuPreferences {
                preferred_cpu_topology: Some(topology.to_owned()),
                spread_options: Some(SpreadOptions {
                    across: across.map(str::to_owned),
                    ratio,
                }),
                ..CpuPreferences::default()
            }),
            ..PreferenceSpec::default()
        }
    }

    /// Up to v1.3 `cores`, `sockets`, `threads`, `spread` and `any` are unknown values, which
    /// `applyGuestCPUTopology` (pkg/instancetype/instancetype.go at v1.3.0) leaves at 1/1/1.
    #[test]
    fn up_to_v1_3_short_topology_names_lay_out_one_one_one() {
        for minor in [2, 3] {
            let v = KubeVirtVersion::new(1, minor);
            for short in ["cores", "sockets", "threads", "spread", "any"] {
                assert_eq!(topology(4, Some(&pref(short, None, None)), v), (1, 1, 1));
            }
            assert_eq!(
                topology(4, Some(&pref("preferCores", None, None)), v),
                (1, 4, 1)
            );
            assert_eq!(
                topology(4, Some(&pref("preferSpread", None, None)), v),
                (2, 2, 1)
            );
        }
        let v1_4 = KubeVirtVersion::new(1, 4);
        assert_eq!(
            topology(4, Some(&pref("cores", None, None)), v1_4),
            (1, 4, 1)
        );
    }

    /// v1.0 knows `preferSockets`, `preferCores` and `preferThreads` only (`applyCPU` at
    /// v1.0.1): `preferSpread` and `preferAny` are unknown values there and lay out as 1/1/1.
    #[test]
    fn before_v1_1_prefer_spread_and_prefer_any_lay_out_one_one_one() {
        for (version, spread, any) in [
            (KubeVirtVersion::new(1, 0), (1, 1, 1), (1, 1, 1)),
            (KubeVirtVersion::release(1, 0, 1), (1, 1, 1), (1, 1, 1)),
            (KubeVirtVersion::new(1, 1), (2, 2, 1), (4, 1, 1)),
        ] {
            let laid_out = |name| topology(4, Some(&pref(name, None, None)), version);
            assert_eq!(laid_out("preferSpread"), spread, "{version}");
            assert_eq!(laid_out("preferAny"), any, "{version}");
            assert_eq!(laid_out("preferThreads"), (1, 1, 4), "{version}");
        }
    }

    /// Up to v1.2 only `preferSpreadSocketToCoreRatio` sets the spread (`applyCPU` at v1.2.0);
    /// `spreadOptions`, which the API server of those releases prunes, counts from v1.3.
    #[test]
    fn before_v1_3_only_the_socket_to_core_ratio_spreads() {
        let with_options = pref("preferSpread", Some("CoresThreads"), Some(3));
        let with_both = PreferenceSpec {
            prefer_spread_socket_to_core_ratio: 3,
            ..pref("preferSpread", Some("CoresThreads"), Some(2))
        };
        let v1_2 = KubeVirtVersion::new(1, 2);
        assert_eq!(topology(6, Some(&with_options), v1_2), (3, 2, 1));
        assert_eq!(topology(6, Some(&with_both), v1_2), (2, 3, 1));
        let v1_3 = KubeVirtVersion::new(1, 3);
        assert_eq!(topology(6, Some(&with_options), v1_3), (1, 2, 3));
        assert_eq!(topology(6, Some(&with_both), v1_3), (1, 3, 2));
    }

    #[test]
    fn topology_table_from_the_spec() {
        let v = KubeVirtVersion::LATEST;
        assert_eq!(topology(4, None, v), (4, 1, 1));
        assert_eq!(topology(4, Some(&pref("cores", None, None)), v), (1, 4, 1));
        assert_eq!(
            topology(4, Some(&pref("threads", None, None)), v),
            (1, 1, 4)
        );
        assert_eq!(topology(4, Some(&pref("any", None, None)), v), (4, 1, 1));
        assert_eq!(topology(4, Some(&pref("spread", None, None)), v), (2, 2, 1));
        assert_eq!(
            topology(6, Some(&pref("spread", Some("SocketsCores"), Some(3))), v),
            (2, 3, 1)
        );
        assert_eq!(
            topology(6, Some(&pref("spread", Some("CoresThreads"), Some(2))), v),
            (1, 3, 2)
        );
        assert_eq!(
            topology(
                8,
                Some(&pref("spread", Some("SocketsCoresThreads"), Some(2))),
                v
            ),
            (2, 2, 2)
        );
        assert_eq!(
            topology(
                12,
                Some(&pref("spread", Some("SocketsCoresThreads"), Some(3))),
                v
            ),
            (2, 3, 2)
        );
        assert_eq!(
            topology(5, Some(&pref("spread", None, Some(2))), v),
            (2, 2, 1)
        );
        assert_eq!(topology(5, Some(&pref("foo", None, None)), v), (1, 1, 1));
        assert_eq!(topology(1, Some(&pref("spread", None, None)), v), (1, 1, 1));
        assert_eq!(topology(0, Some(&pref("cores", None, None)), v), (1, 0, 1));
    }

    fn instancetype(cpu: serde_json::Value) -> InstancetypeSpec {
        let mut spec = serde_json::json!({"memory": {"guest": "1Gi"}});
        spec["cpu"] = cpu;
        crate::model::decode(&spec).unwrap()
    }

    fn applied(instancetype: &InstancetypeSpec, vm_cpu: serde_json::Value) -> (Vec<String>, Obj) {
        let mut spec = Obj::new();
        child(&mut spec, "domain").insert("cpu".to_owned(), vm_cpu);
        let conflicts = apply(
            "spec",
            instancetype,
            None,
            &mut spec,
            KubeVirtVersion::LATEST,
        );
        let paths = conflicts.into_iter().map(|c| c.path).collect();
        (
            paths,
            get_obj(get_obj(&spec, "domain").unwrap(), "cpu")
                .unwrap()
                .clone(),
        )
    }

    /// KubeVirt `pkg/instancetype/apply/cpu.go`: what the instance type sets is copied into
    /// the VM's domain.cpu, with the topology of its guest vCPUs.
    #[test]
    fn the_instancetype_cpu_settings_are_copied_into_a_vm_without_them() {
        let it = instancetype(serde_json::json!({
            "guest": 2, "model": "host-passthrough", "dedicatedCPUPlacement": true,
            "isolateEmulatorThread": true, "numa": {"guestMappingPassthrough": {}},
            "realtime": {"mask": "0"}, "maxSockets": 4
        }));
        let (conflicts, cpu) = applied(&it, serde_json::json!({}));
        assert_eq!(conflicts, Vec::<String>::new());
        assert_eq!(
            serde_json::Value::Object(cpu),
            serde_json::json!({
                "model": "host-passthrough", "dedicatedCpuPlacement": true,
                "isolateEmulatorThread": true, "numa": {"guestMappingPassthrough": {}},
                "realtime": {"mask": "0"}, "maxSockets": 4, "sockets": 2, "cores": 1, "threads": 1
            })
        );
    }

    /// A VM's CPU setting conflicts only where the instance type sets the same one.
    #[test]
    fn vm_cpu_settings_conflict_only_with_the_same_instancetype_setting() {
        let vm_cpu = serde_json::json!({
            "model": "Haswell", "dedicatedCpuPlacement": true, "isolateEmulatorThread": true,
            "numa": {"guestMappingPassthrough": {}}, "realtime": {}
        });
        let (conflicts, cpu) = applied(
            &instancetype(serde_json::json!({"guest": 1})),
            vm_cpu.clone(),
        );
        assert_eq!(conflicts, Vec::<String>::new());
        assert_eq!(cpu["model"], vm_cpu["model"]);
        let it = instancetype(serde_json::json!({
            "guest": 1, "model": "host-passthrough", "dedicatedCPUPlacement": true,
            "isolateEmulatorThread": true, "numa": {"guestMappingPassthrough": {}},
            "realtime": {}
        }));
        let (conflicts, _) = applied(&it, vm_cpu);
        assert_eq!(
            conflicts,
            [
                "spec.domain.cpu.model",
                "spec.domain.cpu.dedicatedCPUPlacement",
                "spec.domain.cpu.isolateEmulatorThread",
                "spec.domain.cpu.numa",
                "spec.domain.cpu.realtime",
            ]
        );
    }
}
