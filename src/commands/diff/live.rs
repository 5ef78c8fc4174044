//! What KubeVirt does with a running VM whose template changed.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::changes::field_lines;
use super::inputs::{ClusterSettings, Rollout};
use super::model::{Effect, EffectKind, refuse, restart_message};
use super::summary::{Topology, at, text_at};
use super::{EXPLICIT_LIMIT, NON_LIVE_UPDATABLE};
use crate::cluster::profile::KubeVirtVersion;
use crate::controller::liveupdate::memory::{Unsupported, validate_live_update_memory};
use crate::k8s::quantity::{Format, Quantity};

pub(super) fn quantity(value: Option<&Value>) -> Option<Quantity> {
    value.and_then(|v| Quantity::from_json(v).ok())
}

pub(super) fn bytes_text(bytes: i64) -> String {
    Quantity::from_i64(bytes, Format::BinarySI).canonical()
}

pub(super) fn set_pointer(root: &mut Value, pointer: &str, value: Option<Value>) {
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
pub(super) fn without_empty(value: &Value) -> Value {
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

pub(super) fn named(items: Option<&Value>) -> BTreeMap<String, &Value> {
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

pub(super) fn is_hotplug_volume(volume: &Value) -> bool {
    ["persistentVolumeClaim", "dataVolume"].iter().any(|kind| {
        volume
            .get(*kind)
            .and_then(|v| v.get("hotpluggable"))
            .and_then(Value::as_bool)
            == Some(true)
    })
}

/// KubeVirt's `validLiveUpdateVolumes`: only hotpluggable volumes were added, removed or
/// changed (or PVC/DataVolume volumes with `updateVolumesStrategy: Migration`).
pub(super) fn volumes_live(last: &Value, current: &Value, migration: bool) -> bool {
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

/// KubeVirt's `validLiveUpdateDisks`.
pub(super) fn disks_live(last: &Value, current: &Value) -> bool {
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

/// The architecture of a rendered template (`amd64` when it sets none).
pub(super) fn architecture_of(template: &Value) -> String {
    text_at(template, &["architecture"]).unwrap_or_else(|| "amd64".to_owned())
}

/// Why memory hotplug is off, in the words of the diff.
pub(super) fn hotplug_off_reason(unsupported: Unsupported, architecture: &str) -> String {
    match unsupported {
        Unsupported::Realtime => "realtime VMs".to_owned(),
        Unsupported::GuestMappingPassthrough => "guest mapping passthrough".to_owned(),
        Unsupported::LaunchSecurity => "encrypted VMs (launchSecurity)".to_owned(),
        Unsupported::NoGuestMemory => "no guest memory is set".to_owned(),
        Unsupported::NoMaxGuest => "no maxGuest".to_owned(),
        Unsupported::GuestAboveMaxGuest => "guest memory above maxGuest".to_owned(),
        Unsupported::GuestNotAligned { alignment }
        | Unsupported::MaxGuestNotAligned { alignment } => format!(
            "guest memory or maxGuest not aligned to {}",
            bytes_text(alignment)
        ),
        Unsupported::Architecture { .. } => format!("architecture {architecture}"),
        Unsupported::BelowMinimumGuest => "less than 1Gi of guest memory".to_owned(),
    }
}

/// KubeVirt's `setupMemoryHotplug` for a VMI started from `template`: its `maxGuest` and where
/// that comes from, else why memory hotplug is off. From v1.6 no hotplug is set up for arm64
/// VMIs; from v1.3 a computed `maxGuest` is set only when `ValidateLiveUpdateMemory` accepts it.
pub(super) fn memory_hotplug(
    template: &Value,
    settings: &ClusterSettings,
    version: KubeVirtVersion,
) -> Result<(Quantity, String), String> {
    let domain = template.get("domain").unwrap_or(&Value::Null);
    let guest = quantity(at(domain, &["memory", "guest"]))
        .ok_or_else(|| "no guest memory is set".to_owned())?;
    if let Some(explicit) = quantity(at(domain, &["memory", "maxGuest"])) {
        return Ok((explicit, EXPLICIT_LIMIT.to_owned()));
    }
    let architecture = architecture_of(template);
    if version.at_least(1, 6) && architecture == "arm64" {
        return Err(format!("architecture {architecture}"));
    }
    let (max_guest, source) =
        if let Some(Ok(max)) = settings.max_guest.as_deref().map(Quantity::parse) {
            (max, "the cluster's maxGuest".to_owned())
        } else {
            let ratio = settings.ratio();
            let bytes = guest
                .value()
                .saturating_mul(i64::try_from(ratio).unwrap_or(4));
            (
                Quantity::from_i64(bytes, Format::BinarySI),
                format!("{ratio} × the base guest memory"),
            )
        };
    if version.at_least(1, 3) {
        validate_live_update_memory(template, &architecture, Some(&max_guest), version)
            .map_err(|unsupported| hotplug_off_reason(unsupported, &architecture))?;
    }
    Ok((max_guest, source))
}

/// KubeVirt's `setupCPUHotplug`: the maximum number of sockets of a VM started from `template`.
pub(super) fn max_sockets(template: &Value, settings: &ClusterSettings) -> (u64, String) {
    let domain = template.get("domain").unwrap_or(&Value::Null);
    if let Some(explicit) = at(domain, &["cpu", "maxSockets"])
        .and_then(Value::as_u64)
        .filter(|m| *m > 0)
    {
        return (explicit, EXPLICIT_LIMIT.to_owned());
    }
    let topology = Topology::of(domain);
    if let Some(max) = settings.max_cpu_sockets.filter(|m| *m > 0) {
        return (
            max.max(topology.sockets),
            "the cluster's maxCpuSockets".to_owned(),
        );
    }
    let ratio = settings.ratio();
    let mut max = topology.sockets * ratio;
    let per_socket = (topology.cores * topology.threads).max(1);
    if max * per_socket > 512 {
        max = (512 / per_socket).max(topology.sockets);
    }
    (max, format!("{ratio} × the base sockets"))
}

/// What the VM controller does when the template spec of a running VM changes from `last`
/// to `current` (`syncRestartRequired` and the CPU and memory hotplug handlers).
pub(super) fn template_effect(
    last: &Value,
    current: &Value,
    rollout: Rollout,
    settings: &ClusterSettings,
    volume_migration: bool,
    version: KubeVirtVersion,
) -> Option<Effect> {
    let (base, head) = (without_empty(last), without_empty(current));
    if base == head {
        return None;
    }
    if rollout == Rollout::Stage {
        return Some(Effect::restart(
            NON_LIVE_UPDATABLE,
            field_lines(&base, &head),
        ));
    }
    let mut seen = base.clone();
    let mut live = Vec::new();
    if volumes_live(&seen, &head, volume_migration) {
        if seen.get("volumes") != head.get("volumes") {
            live.push("hotpluggable volumes attached or detached".to_owned());
        }
        set_pointer(&mut seen, "/volumes", head.get("volumes").cloned());
    }
    if disks_live(&seen, &head) {
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
    if seen != head {
        return Some(Effect::restart(
            NON_LIVE_UPDATABLE,
            field_lines(&seen, &head),
        ));
    }

    let (bd, hd) = (
        base.get("domain").unwrap_or(&Value::Null),
        head.get("domain").unwrap_or(&Value::Null),
    );
    let (bt, ht) = (Topology::of(bd), Topology::of(hd));
    // The CPU and the memory handlers judge their parts separately: the first refusal gives
    // the message, every refused part is listed.
    let mut refused: Option<Effect> = None;
    if bt.sockets != ht.sockets {
        let (max, source) = max_sockets(&base, settings);
        let detail = format!(
            "CPU sockets {} → {} (vCPUs {} → {}); maxSockets {max} ({source})",
            bt.sockets,
            ht.sockets,
            bt.vcpus(),
            ht.vcpus()
        );
        if ht.sockets > max {
            refuse(
                &mut refused,
                restart_message(
                    "CPU sockets updated in template spec to a value higher than what's available",
                ),
                detail,
            );
        } else {
            live.push(detail);
        }
    }
    let (bg, hg) = (
        quantity(at(bd, &["memory", "guest"])),
        quantity(at(hd, &["memory", "guest"])),
    );
    if let (Some(bg), Some(hg)) = (&bg, &hg)
        && bg.value() != hg.value()
    {
        let detail = format!(
            "guest memory {} → {}",
            bytes_text(bg.value()),
            bytes_text(hg.value())
        );
        match memory_hotplug(&base, settings, version) {
            Err(reason) => refuse(
                &mut refused,
                format!("needs a restart (memory hotplug is not available for {reason})"),
                detail,
            ),
            Ok((max, source)) => {
                let limited = format!("{detail}; maxGuest {} ({source})", bytes_text(max.value()));
                // `handleMemoryHotplugRequest` asks `ValidateLiveUpdateMemory` about the new
                // template (from v1.3) before comparing it with the boot size and `maxGuest`.
                let unsupported = if version.at_least(1, 3) {
                    validate_live_update_memory(&head, &architecture_of(&head), Some(&max), version)
                        .err()
                } else {
                    None
                };
                if let Some(unsupported) = unsupported {
                    refuse(
                        &mut refused,
                        restart_message(&format!("memory hotplug not supported, {unsupported}")),
                        limited,
                    );
                } else if hg.value() < bg.value() {
                    refuse(
                        &mut refused,
                        restart_message(
                            "memory updated in template spec to a value lower than what the VM started with",
                        ),
                        detail,
                    );
                } else if hg.value() > max.value() {
                    refuse(
                        &mut refused,
                        restart_message(
                            "memory updated in template spec to a value higher than what's available",
                        ),
                        limited,
                    );
                } else {
                    live.push(limited);
                }
            }
        }
    }
    if refused.is_some() {
        return refused;
    }
    if placement {
        live.push(
            "node placement (nodeSelector, affinity, tolerations) updated on the running VM"
                .to_owned(),
        );
    }
    Some(Effect::new(EffectKind::LiveUpdate, "applied live (LiveUpdate)").with_details(live))
}
