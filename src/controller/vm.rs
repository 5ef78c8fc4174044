//! The VM controller's handling of a running VM whose template changed
//! (`pkg/virt-controller/watch/vm/vm.go`): `syncRestartRequired`, which sets `RestartRequired`
//! unless every difference is one `LiveUpdate` applies (`validLiveUpdateVolumes`,
//! `validLiveUpdateDisks`, CPU sockets, guest memory, node placement), then the CPU and memory
//! hotplug handlers, which may still refuse, and the volume and network handlers (hotpluggable
//! volumes, interfaces: `netvmliveupdate.IsRestartRequired`), which apply their part whatever
//! the rollout strategy. With the `Stage` rollout strategy every other difference needs a
//! restart.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::controller::liveupdate::defaults::{
    HotplugOff, Topology, architecture, setup_cpu_hotplug, setup_memory_hotplug,
};
use crate::controller::liveupdate::memory::validate_live_update_memory;
use crate::controller::liveupdate::{ClusterSettings, Rollout};
use crate::k8s::quantity::{Format, Quantity};

mod volumes;

use volumes::{
    claims_changed, handle_volume_replacement, is_hotplug_volume, valid_live_update_disks,
    valid_live_update_volumes,
};

/// KubeVirt's `RestartRequired` message for a template difference it cannot apply live.
pub const NON_LIVE_UPDATABLE: &str = "a non-live-updatable field was changed in the template spec";

/// Why the controller does not apply a part of the change to the running VM.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Refusal {
    /// The message of the `RestartRequired` condition it sets.
    RestartRequired(String),
    /// The VMI started without memory hotplug: KubeVirt's [`NO_MEMORY_HOTPLUG`] (which does not
    /// say why; this does).
    NoMemoryHotplug(HotplugOff),
}

/// KubeVirt's `RestartRequired` message when the VMI started without a `maxGuest`
/// (`handleMemoryHotplugRequest`).
pub(crate) const NO_MEMORY_HOTPLUG: &str =
    "memory updated in template spec. Memory-hotplug is not available for this VM configuration";

/// What the controller does with a running VM whose template spec changed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TemplateUpdate {
    /// `RestartRequired` ([`NON_LIVE_UPDATABLE`]): `seen`, the last template with what could be
    /// applied live applied, still differs from `head`. `applied`: what the volume and network
    /// handlers apply to the running VM all the same.
    NotLiveUpdatable {
        seen: Value,
        head: Value,
        applied: Vec<String>,
    },
    /// A hotplug handler refuses: the first refusal and every refused part; `applied`, what the
    /// other handlers apply all the same.
    Refused {
        refusal: Refusal,
        parts: Vec<String>,
        applied: Vec<String>,
    },
    /// Applied to the running VM: what is applied.
    Live(Vec<String>),
}

/// What the controller does with a running VM whose template spec changed, and the changes
/// it takes over into the VM without bringing them to the running VM.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunningVmUpdate {
    pub(crate) update: TemplateUpdate,
    /// Hotpluggable volumes added or removed while `handleDeclarativeVolumeHotplug` is off:
    /// no restart, and the running VM keeps its volumes.
    pub(crate) pending: Vec<String>,
}

/// What a running VM needs to know about its cluster.
pub(crate) struct Cluster<'a> {
    pub(crate) rollout: Rollout,
    pub(crate) settings: &'a ClusterSettings,
    pub(crate) version: KubeVirtVersion,
    /// `handleDeclarativeVolumeHotplug` attaches and detaches the template's hotpluggable
    /// volumes.
    pub(crate) declarative_hotplug: bool,
    /// `LiveUpdateNADRef`: a changed Multus network name is no restart.
    pub(crate) nad_ref_live_update: bool,
    /// `VolumesUpdateStrategyEnabled`: the gate up to v1.4, GA from v1.5.
    pub(crate) volumes_update_strategy: bool,
}

impl<'a> Cluster<'a> {
    pub(crate) fn new(
        rollout: Rollout,
        settings: &'a ClusterSettings,
        profile: &ClusterProfile,
    ) -> Self {
        let version = profile.version;
        let enabled = |gate: &str, default_on: bool| {
            profile.has_feature_gate(gate)
                || (default_on && !profile.has_disabled_feature_gate(gate))
        };
        // DeclarativeHotplugVolumes: Alpha from v1.6, Beta (on by default) from v1.9; the
        // deprecated HotplugVolumes gate turns it off.
        let declarative_hotplug = version.at_least(1, 6)
            && enabled("DeclarativeHotplugVolumes", version.at_least(1, 9))
            && !profile.has_feature_gate("HotplugVolumes");
        // LiveUpdateNADRef: Beta (off unless listed) at v1.8, GA from v1.9.
        let nad_ref_live_update = version.at_least(1, 9)
            || (version.at_least(1, 8) && profile.has_feature_gate("LiveUpdateNADRef"));
        let volumes_update_strategy =
            version.at_least(1, 5) || profile.has_feature_gate("VolumesUpdateStrategy");
        Self {
            rollout,
            settings,
            version,
            declarative_hotplug,
            nad_ref_live_update,
            volumes_update_strategy,
        }
    }
}

/// What the controller does when the template spec of a running VM changes from `last` to
/// `current`; `None` when they do not differ. `volume_migration`: the VM's
/// `updateVolumesStrategy` is `Migration`.
///
/// Hotpluggable volumes and network interfaces are handled in every sync, whatever the
/// rollout strategy and whether a restart is required (`sync`: `handleDeclarativeVolumeHotplug`
/// and the network synchronizer run before, and outside, the `LiveUpdate` handlers); CPU,
/// memory, node placement and volume migration only with `LiveUpdate` and when
/// `syncRestartRequired` found nothing else.
pub(crate) fn update_running_vm(
    last: &Value,
    current: &Value,
    cluster: &Cluster<'_>,
    volume_migration: bool,
) -> Option<RunningVmUpdate> {
    let (base, head) = (without_empty(last), without_empty(current));
    if base == head {
        return None;
    }
    let Hotplug { applied, pending } = hotplugged(&base, &head, cluster);
    let update = template_update(&base, head, cluster, volume_migration, applied);
    Some(RunningVmUpdate { update, pending })
}

/// [`update_running_vm`] once the volume and network handlers applied their part (`applied`).
fn template_update(
    base: &Value,
    head: Value,
    cluster: &Cluster<'_>,
    volume_migration: bool,
    mut applied: Vec<String>,
) -> TemplateUpdate {
    let takeover = sync_restart_required(base, &head, volume_migration, cluster);
    if takeover.seen != head {
        return TemplateUpdate::NotLiveUpdatable {
            seen: takeover.seen,
            head,
            applied,
        };
    }
    if cluster.rollout == Rollout::Stage {
        return TemplateUpdate::Live(applied);
    }
    // The CPU and the memory handlers judge their parts separately: the first refusal leads,
    // every refused part is listed, and what the others accept is applied all the same.
    let mut refused = Refused::default();
    handle_cpu_hotplug_request(base, &head, cluster, &mut refused, &mut applied);
    handle_memory_hotplug_request(base, &head, cluster, &mut refused, &mut applied);
    if !volume_migration {
        handle_volume_replacement(base, &head, cluster, &mut refused);
    }
    if takeover.placement {
        applied.push(
            "node placement (nodeSelector, affinity, tolerations) updated on the running VM"
                .to_owned(),
        );
    }
    if let Some(refusal) = refused.first {
        return TemplateUpdate::Refused {
            refusal,
            parts: refused.parts,
            applied,
        };
    }
    if volume_migration && claims_changed(base, &head) {
        applied.push(
            "volumes moved to their new claims by a volume migration (updateVolumesStrategy: Migration)"
                .to_owned(),
        );
    }
    TemplateUpdate::Live(applied)
}

/// What `syncRestartRequired` takes over from `head` into the last template before comparing.
struct Takeover {
    seen: Value,
    placement: bool,
}

/// `syncRestartRequired`: the last template with every live-updatable difference from `head`
/// taken over, and whether node placement changed.
fn sync_restart_required(
    base: &Value,
    head: &Value,
    volume_migration: bool,
    cluster: &Cluster<'_>,
) -> Takeover {
    let mut seen = base.clone();
    // Before v1.7 only `LiveUpdate` takes volume and disk changes over; with `Stage` they
    // count only once the VMI has them (an imperative hotplug), which an edited template's
    // never are.
    let volumes_live = cluster.version.at_least(1, 7) || cluster.rollout == Rollout::LiveUpdate;
    if volumes_live && valid_live_update_volumes(&seen, head, volume_migration) {
        set_pointer(&mut seen, "/volumes", head.get("volumes").cloned());
    }
    if volumes_live && valid_live_update_disks(&seen, head, cluster.version) {
        set_pointer(
            &mut seen,
            "/domain/devices/disks",
            head.pointer("/domain/devices/disks").cloned(),
        );
    }
    let mut placement = false;
    if cluster.rollout == Rollout::LiveUpdate {
        if seen.pointer("/domain/cpu").is_some() && head.pointer("/domain/cpu").is_some() {
            set_pointer(
                &mut seen,
                "/domain/cpu/sockets",
                head.pointer("/domain/cpu/sockets").cloned(),
            );
        }
        if let Some(guest) = head.pointer("/domain/memory/guest") {
            set_pointer(&mut seen, "/domain/memory/guest", Some(guest.clone()));
        }
        for key in ["nodeSelector", "affinity", "tolerations"] {
            placement |= seen.get(key) != head.get(key);
            set_pointer(&mut seen, &format!("/{key}"), head.get(key).cloned());
        }
    }
    // The network's own restart check joined `syncRestartRequired` in v1.6.
    if cluster.version.at_least(1, 6) && !network_restart_required(base, head, cluster) {
        set_pointer(
            &mut seen,
            "/domain/devices/interfaces",
            head.pointer("/domain/devices/interfaces").cloned(),
        );
        set_pointer(&mut seen, "/networks", head.get("networks").cloned());
    }
    Takeover { seen, placement }
}

/// What the volume and network handlers do whatever else happens.
struct Hotplug {
    /// Applied to the running VM: hotpluggable volumes added or removed, network interfaces
    /// hotplugged.
    applied: Vec<String>,
    /// Taken over without reaching the running VM (see [`RunningVmUpdate::pending`]).
    pending: Vec<String>,
}

fn hotplugged(base: &Value, head: &Value, cluster: &Cluster<'_>) -> Hotplug {
    let (mut applied, mut pending) = (Vec::new(), Vec::new());
    let (old, new) = (named(base.get("volumes")), named(head.get("volumes")));
    let hotplug_changed = old
        .iter()
        .filter(|(_, v)| is_hotplug_volume(v))
        .any(|(name, v)| new.get(name) != Some(v))
        || new
            .iter()
            .filter(|(_, v)| is_hotplug_volume(v))
            .any(|(name, v)| old.get(name) != Some(v));
    if hotplug_changed && cluster.declarative_hotplug {
        applied.push("hotpluggable volumes attached or detached".to_owned());
    } else if hotplug_changed {
        pending.push(format!(
            "the template's hotpluggable volumes changed; KubeVirt {} attaches them only with the DeclarativeHotplugVolumes gate (else virtctl addvolume does)",
            cluster.version
        ));
    }
    // The network synchronizer hotplugs interfaces from v1.4 (KubeVirt v1.4.0
    // `pkg/virt-controller/network`, v1.5.0 `pkg/network/controllers`), releases before the
    // restart check learned them.
    if cluster.version.at_least(1, 4) && !network_restart_required(base, head, cluster) {
        let old = named(base.pointer("/domain/devices/interfaces"));
        let added: Vec<String> = named(head.pointer("/domain/devices/interfaces"))
            .into_keys()
            .filter(|name| !old.contains_key(name))
            .collect();
        if !added.is_empty() {
            applied.push(format!(
                "network interfaces hotplugged: {}",
                added.join(", ")
            ));
        }
        let absent =
            |interface: &Value| interface.get("state").and_then(Value::as_str) == Some("absent");
        let unplugged: Vec<String> = named(head.pointer("/domain/devices/interfaces"))
            .into_iter()
            .filter(|(name, interface)| {
                absent(interface) && !old.get(name).is_some_and(|o| absent(o))
            })
            .map(|(name, _)| name)
            .collect();
        if !unplugged.is_empty() {
            applied.push(format!(
                "network interfaces hot-unplugged: {}",
                unplugged.join(", ")
            ));
        }
    }
    Hotplug { applied, pending }
}

/// The refusals of the hotplug handlers.
#[derive(Default)]
struct Refused {
    first: Option<Refusal>,
    parts: Vec<String>,
}

impl Refused {
    fn add(&mut self, refusal: Refusal, part: String) {
        self.first.get_or_insert(refusal);
        self.parts.push(part);
    }
}

fn restart_required(message: &str) -> Refusal {
    Refusal::RestartRequired(message.to_owned())
}

/// `handleCPUHotplugRequest`: more sockets up to the VMI's `maxSockets` are hotplugged; fewer
/// need a restart from v1.3, and arm64 VMs take none from v1.6.
fn handle_cpu_hotplug_request(
    base: &Value,
    head: &Value,
    cluster: &Cluster<'_>,
    refused: &mut Refused,
    live: &mut Vec<String>,
) {
    let domain = |spec: &Value| Topology::of(spec.get("domain").unwrap_or(&Value::Null));
    let (bt, ht) = (domain(base), domain(head));
    if bt.sockets == ht.sockets {
        return;
    }
    let version = cluster.version;
    let max = setup_cpu_hotplug(base, cluster.settings, version);
    let detail = format!(
        "CPU sockets {} → {} (vCPUs {} → {}); maxSockets {} ({})",
        bt.sockets,
        ht.sockets,
        bt.vcpus(),
        ht.vcpus(),
        max.value,
        max.source
    );
    let refusal = if ht.sockets > max.value {
        "CPU sockets updated in template spec to a value higher than what's available"
    } else if version.at_least(1, 3) && ht.sockets < bt.sockets {
        "Reduction of CPU socket count requires a restart"
    } else if version.at_least(1, 6) && architecture(head) == "arm64" {
        "ARM doesn't support CPU hotplug"
    } else {
        return live.push(detail);
    };
    refused.add(restart_required(refusal), detail);
}

fn bytes_text(bytes: i64) -> String {
    Quantity::from_i64(bytes, Format::BinarySI).canonical()
}

/// `handleMemoryHotplugRequest`: more guest memory up to the VMI's `maxGuest` is hotplugged, if
/// the VMI started with memory hotplug and `ValidateLiveUpdateMemory` (from v1.3) accepts the
/// new template.
fn handle_memory_hotplug_request(
    base: &Value,
    head: &Value,
    cluster: &Cluster<'_>,
    refused: &mut Refused,
    live: &mut Vec<String>,
) {
    let guest = |spec: &Value| Quantity::at(spec, &["domain", "memory", "guest"]);
    let (Some(bg), Some(hg)) = (guest(base), guest(head)) else {
        return;
    };
    if bg.value() == hg.value() {
        return;
    }
    let detail = format!(
        "guest memory {} → {}",
        bytes_text(bg.value()),
        bytes_text(hg.value())
    );
    let max = match setup_memory_hotplug(base, cluster.settings, cluster.version) {
        Ok(max) => max,
        Err(off) => return refused.add(Refusal::NoMemoryHotplug(off), detail),
    };
    let limited = format!(
        "{detail}; maxGuest {} ({})",
        bytes_text(max.value.value()),
        max.source
    );
    let version = cluster.version;
    let unsupported = if version.at_least(1, 3) {
        validate_live_update_memory(head, &architecture(head), Some(&max.value), version).err()
    } else {
        None
    };
    if let Some(unsupported) = unsupported {
        refused.add(
            Refusal::RestartRequired(format!("memory hotplug not supported, {unsupported}")),
            limited,
        );
    } else if hg.value() < bg.value() {
        refused.add(
            restart_required(
                "memory updated in template spec to a value lower than what the VM started with",
            ),
            detail,
        );
    } else if hg.value() > max.value.value() {
        refused.add(
            restart_required(
                "memory updated in template spec to a value higher than what's available",
            ),
            limited,
        );
    } else {
        live.push(limited);
    }
}

/// Sets (or, with `None`, removes) the value at a JSON pointer of plain keys, creating the
/// objects on the way.
pub(crate) fn set_pointer(root: &mut Value, pointer: &str, value: Option<Value>) {
    let mut segments: Vec<&str> = pointer.split('/').skip(1).collect();
    let Some(last) = segments.pop() else {
        return;
    };
    let mut node = root;
    for segment in segments {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        let Some(object) = node.as_object_mut() else {
            return;
        };
        node = object
            .entry(segment.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    if !node.is_object() {
        *node = Value::Object(Map::new());
    }
    if let Some(object) = node.as_object_mut() {
        match value {
            Some(value) => {
                object.insert(last.to_owned(), value);
            }
            None => {
                object.remove(last);
            }
        }
    }
}

/// Drops nulls and empty lists, which Go's semantic equality does not tell from absent ones.
pub(crate) fn without_empty(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null() && !v.as_array().is_some_and(Vec::is_empty))
                .map(|(k, v)| (k.clone(), without_empty(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_empty).collect()),
        other => other.clone(),
    }
}

fn named(items: Option<&Value>) -> BTreeMap<String, &Value> {
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| Some((item.get("name")?.as_str()?.to_owned(), item)))
                .collect()
        })
        .unwrap_or_default()
}

/// `netvmliveupdate.IsRestartRequired` for the VMI started from `base`: an interface or network
/// of the VMI was removed or changed (interfaces compared without `state`, networks without
/// the Multus network name), or the pod network is added. A VMI whose template had neither
/// interfaces nor networks got KubeVirt's default pod network, which a template that now lists
/// its networks never matches exactly: a restart.
fn network_restart_required(base: &Value, head: &Value, cluster: &Cluster<'_>) -> bool {
    const INTERFACES: &str = "/domain/devices/interfaces";
    let (old_interfaces, new_interfaces) = (
        named(base.pointer(INTERFACES)),
        named(head.pointer(INTERFACES)),
    );
    let (old_networks, new_networks) = (named(base.get("networks")), named(head.get("networks")));
    if old_interfaces.is_empty() && old_networks.is_empty() {
        let autoattach = base
            .pointer("/domain/devices/autoattachPodInterface")
            .and_then(Value::as_bool)
            != Some(false);
        return autoattach && !(new_interfaces.is_empty() && new_networks.is_empty());
    }
    let without = |value: &Value, pointer: &str| {
        let mut value = value.clone();
        set_pointer(&mut value, pointer, None);
        value
    };
    let interface_changed = old_interfaces.iter().any(|(name, old)| {
        new_interfaces
            .get(name)
            .is_none_or(|new| without(old, "/state") != without(new, "/state"))
    });
    let is_pod = |network: &&Value| network.get("pod").is_some();
    let has_pod = |networks: &BTreeMap<String, &Value>| networks.values().any(is_pod);
    let pod_added = has_pod(&new_networks) && !has_pod(&old_networks);
    let comparable = |network: &Value| {
        if cluster.nad_ref_live_update {
            without(network, "/multus/networkName")
        } else {
            network.clone()
        }
    };
    let network_changed = old_networks.iter().any(|(name, old)| {
        new_networks
            .get(name)
            .is_none_or(|new| comparable(old) != comparable(new))
    });
    interface_changed || pod_added || network_changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const V1_9: KubeVirtVersion = KubeVirtVersion::LATEST;

    fn spec(sockets: u64, guest: &str) -> Value {
        json!({
            "domain": {
                "cpu": {"sockets": sockets, "cores": 1, "threads": 1},
                "memory": {"guest": guest},
                "devices": {"disks": [{"name": "root", "disk": {"bus": "virtio"}}]}
            },
            "volumes": [{"name": "root", "containerDisk": {"image": "fedora"}}]
        })
    }

    fn update(last: &Value, current: &Value, rollout: Rollout) -> Option<TemplateUpdate> {
        update_at(last, current, rollout, V1_9)
    }

    fn update_at(
        last: &Value,
        current: &Value,
        rollout: Rollout,
        version: KubeVirtVersion,
    ) -> Option<TemplateUpdate> {
        let settings = ClusterSettings::default();
        let cluster = Cluster::new(rollout, &settings, &ClusterProfile::new(version));
        update_running_vm(last, current, &cluster, false).map(|running| running.update)
    }

    /// The `RestartRequired` message of the first refusal, or `live` when all is applied.
    fn cpu_outcome(last: &Value, current: &Value, version: KubeVirtVersion) -> String {
        match update_at(last, current, Rollout::LiveUpdate, version) {
            Some(TemplateUpdate::Refused {
                refusal: Refusal::RestartRequired(message),
                ..
            }) => message,
            Some(TemplateUpdate::Live(_)) => "live".to_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fewer_sockets_need_a_restart_from_v1_3() {
        let (base, head) = (spec(4, "4Gi"), spec(2, "4Gi"));
        assert_eq!(
            cpu_outcome(&base, &head, KubeVirtVersion::new(1, 2)),
            "live"
        );
        for minor in [3, 9] {
            assert_eq!(
                cpu_outcome(&base, &head, KubeVirtVersion::new(1, minor)),
                "Reduction of CPU socket count requires a restart"
            );
        }
    }

    #[test]
    fn arm64_vms_take_no_cpu_hotplug_from_v1_6() {
        let arm = |sockets, max_sockets: Option<u64>| {
            let mut spec = spec(sockets, "4Gi");
            spec["architecture"] = json!("arm64");
            if let Some(max) = max_sockets {
                spec["domain"]["cpu"]["maxSockets"] = json!(max);
            }
            spec
        };
        let (base, head) = (arm(1, None), arm(2, None));
        assert_eq!(
            cpu_outcome(&base, &head, KubeVirtVersion::new(1, 5)),
            "live"
        );
        // No maxSockets is set up for the VMI: any increase is beyond it.
        assert_eq!(
            cpu_outcome(&base, &head, KubeVirtVersion::new(1, 6)),
            "CPU sockets updated in template spec to a value higher than what's available"
        );
        let (base, head) = (arm(1, Some(4)), arm(2, Some(4)));
        assert_eq!(
            cpu_outcome(&base, &head, KubeVirtVersion::new(1, 9)),
            "ARM doesn't support CPU hotplug"
        );
    }

    #[test]
    fn volumes_and_disks_are_live_only_when_hotpluggable() {
        let base = spec(1, "4Gi");
        let hotplug = json!({"name": "data", "persistentVolumeClaim": {"claimName": "d", "hotpluggable": true}});
        let plain = json!({"name": "data", "persistentVolumeClaim": {"claimName": "d"}});
        let with_volume = |volume: &Value, disk: bool| {
            let mut spec = base.clone();
            spec["volumes"].as_array_mut().unwrap().push(volume.clone());
            if disk {
                spec["domain"]["devices"]["disks"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"name": "data", "disk": {"bus": "scsi"}}));
            }
            spec
        };
        let cases = [
            (
                "hotpluggable volume added",
                with_volume(&hotplug, true),
                false,
                true,
            ),
            (
                "plain volume added",
                with_volume(&plain, true),
                false,
                false,
            ),
            (
                "plain volume added, migration",
                with_volume(&plain, true),
                true,
                false,
            ),
        ];
        for (name, head, migration, live) in cases {
            let volumes = valid_live_update_volumes(&base, &head, migration);
            let disks = valid_live_update_disks(&base, &head, V1_9);
            assert_eq!(volumes && disks, live, "{name}");
        }
        // Removing a hotplugged volume and its disk is live; removing a CD-ROM is not.
        let cdrom = {
            let mut spec = with_volume(&hotplug, false);
            spec["domain"]["devices"]["disks"]
                .as_array_mut()
                .unwrap()
                .push(json!({"name": "data", "cdrom": {}}));
            spec
        };
        assert!(valid_live_update_volumes(
            &with_volume(&hotplug, true),
            &base,
            false
        ));
        assert!(valid_live_update_disks(
            &with_volume(&hotplug, true),
            &base,
            V1_9
        ));
        assert!(!valid_live_update_disks(&cdrom, &base, V1_9));
        // KubeVirt v1.6.0 `validLiveUpdateDisks` lets a hotplugged CD-ROM go.
        assert!(valid_live_update_disks(
            &cdrom,
            &base,
            KubeVirtVersion::new(1, 6)
        ));
    }

    #[test]
    fn stage_restarts_for_any_difference_and_nothing_is_no_update() {
        let base = spec(1, "4Gi");
        assert_eq!(update(&base, &base, Rollout::LiveUpdate), None);
        // Nulls and empty lists are no difference.
        let mut same = base.clone();
        same["nodeSelector"] = Value::Null;
        same["tolerations"] = json!([]);
        assert_eq!(update(&base, &same, Rollout::LiveUpdate), None);
        let head = spec(2, "4Gi");
        assert_eq!(
            update(&base, &head, Rollout::Stage),
            Some(TemplateUpdate::NotLiveUpdatable {
                seen: base.clone(),
                head: head.clone(),
                applied: Vec::new(),
            })
        );
    }

    #[test]
    fn live_update_takes_sockets_memory_and_placement_but_not_other_fields() {
        let base = spec(1, "4Gi");
        let mut head = spec(2, "8Gi");
        head["nodeSelector"] = json!({"zone": "a"});
        assert_eq!(
            update(&base, &head, Rollout::LiveUpdate),
            Some(TemplateUpdate::Live(vec![
                "CPU sockets 1 → 2 (vCPUs 1 → 2); maxSockets 4 (4 × the base sockets)".to_owned(),
                "guest memory 4Gi → 8Gi; maxGuest 16Gi (4 × the base guest memory)".to_owned(),
                "node placement (nodeSelector, affinity, tolerations) updated on the running VM"
                    .to_owned(),
            ]))
        );
        head["domain"]["machine"] = json!({"type": "q35"});
        let Some(TemplateUpdate::NotLiveUpdatable {
            seen, head: new, ..
        }) = update(&base, &head, Rollout::LiveUpdate)
        else {
            panic!("a machine type change is not live-updatable");
        };
        // What is left is the machine type alone.
        let mut expected = seen.clone();
        expected["domain"]["machine"] = json!({"type": "q35"});
        assert_eq!(expected, new);
    }

    #[test]
    fn the_first_refusal_leads_and_every_refused_part_is_listed() {
        let base = spec(1, "4Gi");
        let head = spec(8, "32Gi");
        assert_eq!(
            update(&base, &head, Rollout::LiveUpdate),
            Some(TemplateUpdate::Refused {
                refusal: Refusal::RestartRequired(
                    "CPU sockets updated in template spec to a value higher than what's available"
                        .to_owned()
                ),
                parts: vec![
                    "CPU sockets 1 → 8 (vCPUs 1 → 8); maxSockets 4 (4 × the base sockets)"
                        .to_owned(),
                    "guest memory 4Gi → 32Gi; maxGuest 16Gi (4 × the base guest memory)".to_owned(),
                ],
                applied: Vec::new(),
            })
        );
    }

    #[test]
    fn set_pointer_creates_and_removes() {
        let mut value = json!({"a": 1});
        set_pointer(&mut value, "/b/c", Some(json!(2)));
        set_pointer(&mut value, "/a", None);
        assert_eq!(value, json!({"b": {"c": 2}}));
    }
}
