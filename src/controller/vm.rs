//! The VM controller's handling of a running VM whose template changed
//! (`pkg/virt-controller/watch/vm/vm.go`): `syncRestartRequired`, which sets `RestartRequired`
//! unless every difference is one `LiveUpdate` applies (`validLiveUpdateVolumes`,
//! `validLiveUpdateDisks`, CPU sockets, guest memory, node placement), then the CPU and memory
//! hotplug handlers, which may still refuse. With the `Stage` rollout strategy every difference
//! needs a restart.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::cluster::profile::KubeVirtVersion;
use crate::controller::liveupdate::defaults::{
    HotplugOff, Topology, architecture, setup_cpu_hotplug, setup_memory_hotplug,
};
use crate::controller::liveupdate::memory::validate_live_update_memory;
use crate::controller::liveupdate::{ClusterSettings, Rollout};
use crate::k8s::quantity::{Format, Quantity};

/// KubeVirt's `RestartRequired` message for a template difference it cannot apply live.
pub const NON_LIVE_UPDATABLE: &str = "a non-live-updatable field was changed in the template spec";

/// Why the controller does not apply a part of the change to the running VM.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Refusal {
    /// The message of the `RestartRequired` condition it sets.
    RestartRequired(String),
    /// The VMI started without memory hotplug (KubeVirt's message does not say why).
    NoMemoryHotplug(HotplugOff),
}

/// What the controller does with a running VM whose template spec changed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TemplateUpdate {
    /// `RestartRequired` ([`NON_LIVE_UPDATABLE`]): `seen`, the last template with what could be
    /// applied live applied, still differs from `head`.
    NotLiveUpdatable { seen: Value, head: Value },
    /// A hotplug handler refuses: the first refusal and every refused part.
    Refused {
        refusal: Refusal,
        parts: Vec<String>,
    },
    /// Applied to the running VM: what is applied.
    Live(Vec<String>),
}

/// What a running VM needs to know about its cluster.
pub(crate) struct Cluster<'a> {
    pub(crate) rollout: Rollout,
    pub(crate) settings: &'a ClusterSettings,
    pub(crate) version: KubeVirtVersion,
}

/// What the controller does when the template spec of a running VM changes from `last` to
/// `current`; `None` when they do not differ. `volume_migration`: the VM's
/// `updateVolumesStrategy` is `Migration`.
pub(crate) fn update_running_vm(
    last: &Value,
    current: &Value,
    cluster: &Cluster<'_>,
    volume_migration: bool,
) -> Option<TemplateUpdate> {
    let (base, head) = (without_empty(last), without_empty(current));
    if base == head {
        return None;
    }
    if cluster.rollout == Rollout::Stage {
        return Some(TemplateUpdate::NotLiveUpdatable { seen: base, head });
    }
    let mut live = Vec::new();
    let (seen, placement) = sync_restart_required(&base, &head, volume_migration, &mut live);
    if seen != head {
        return Some(TemplateUpdate::NotLiveUpdatable { seen, head });
    }
    // The CPU and the memory handlers judge their parts separately: the first refusal leads,
    // every refused part is listed.
    let mut refused = Refused::default();
    handle_cpu_hotplug_request(&base, &head, cluster, &mut refused, &mut live);
    handle_memory_hotplug_request(&base, &head, cluster, &mut refused, &mut live);
    if let Some(refusal) = refused.first {
        return Some(TemplateUpdate::Refused {
            refusal,
            parts: refused.parts,
        });
    }
    if placement {
        live.push(
            "node placement (nodeSelector, affinity, tolerations) updated on the running VM"
                .to_owned(),
        );
    }
    Some(TemplateUpdate::Live(live))
}

/// `syncRestartRequired`: the last template with every live-updatable difference from `head`
/// taken over, and whether node placement changed. Hotplugged volumes are noted in `live`.
fn sync_restart_required(
    base: &Value,
    head: &Value,
    volume_migration: bool,
    live: &mut Vec<String>,
) -> (Value, bool) {
    let mut seen = base.clone();
    if valid_live_update_volumes(&seen, head, volume_migration) {
        if seen.get("volumes") != head.get("volumes") {
            live.push("hotpluggable volumes attached or detached".to_owned());
        }
        set_pointer(&mut seen, "/volumes", head.get("volumes").cloned());
    }
    if valid_live_update_disks(&seen, head) {
        set_pointer(
            &mut seen,
            "/domain/devices/disks",
            head.pointer("/domain/devices/disks").cloned(),
        );
    }
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
    let mut placement = false;
    for key in ["nodeSelector", "affinity", "tolerations"] {
        placement |= seen.get(key) != head.get(key);
        set_pointer(&mut seen, &format!("/{key}"), head.get(key).cloned());
    }
    (seen, placement)
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

fn is_hotplug_volume(volume: &Value) -> bool {
    ["persistentVolumeClaim", "dataVolume"].iter().any(|kind| {
        volume
            .get(*kind)
            .and_then(|v| v.get("hotpluggable"))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// `validLiveUpdateVolumes`: only hotpluggable volumes were added, removed or changed (or
/// PVC/DataVolume volumes with `updateVolumesStrategy: Migration`).
fn valid_live_update_volumes(last: &Value, current: &Value, migration: bool) -> bool {
    let mut old = named(last.get("volumes"));
    for (name, volume) in named(current.get("volumes")) {
        let previous = old.remove(&name);
        let storage =
            volume.get("persistentVolumeClaim").is_some() || volume.get("dataVolume").is_some();
        if is_hotplug_volume(volume) || (storage && migration && previous.is_some()) {
            continue;
        }
        match previous {
            Some(previous) if previous == volume => {}
            _ => return false,
        }
    }
    old.values().all(|v| is_hotplug_volume(v))
}

/// `validLiveUpdateDisks`: only the disks of hotpluggable volumes were added, changed or
/// removed, and no CD-ROM was removed.
fn valid_live_update_disks(last: &Value, current: &Value) -> bool {
    let disks = |spec: &Value| spec.pointer("/domain/devices/disks").cloned();
    let (old_disks, new_disks) = (disks(last), disks(current));
    let mut old = named(old_disks.as_ref());
    let new = named(new_disks.as_ref());
    let old_volumes = named(last.get("volumes"));
    let volumes = named(current.get("volumes"));
    for (name, disk) in &new {
        let previous = old.remove(name);
        if volumes.get(name).is_some_and(|v| is_hotplug_volume(v)) {
            continue;
        }
        match previous {
            Some(previous) if previous == *disk => {}
            _ => return false,
        }
    }
    old.iter().all(|(name, disk)| {
        let hotplug = old_volumes.get(name).is_none_or(|v| is_hotplug_volume(v));
        hotplug && (disk.get("cdrom").is_none() || new.contains_key(name))
    })
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
        let cluster = Cluster {
            rollout,
            settings: &settings,
            version,
        };
        update_running_vm(last, current, &cluster, false)
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
            let disks = valid_live_update_disks(&base, &head);
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
        assert!(valid_live_update_disks(&with_volume(&hotplug, true), &base));
        assert!(!valid_live_update_disks(&cdrom, &base));
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
                head: head.clone()
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
        let Some(TemplateUpdate::NotLiveUpdatable { seen, head: new }) =
            update(&base, &head, Rollout::LiveUpdate)
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
