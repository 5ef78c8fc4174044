//! The VM controller's volume rules: `validLiveUpdateVolumes`, `validLiveUpdateDisks` and,
//! before v1.7, `handleVolumeUpdateRequest`'s `Replacement` case.

use serde_json::Value;

use super::{Cluster, Refused, named, restart_required};
use crate::cluster::profile::KubeVirtVersion;

/// KubeVirt's `RestartRequired` message, from v1.3 to v1.6, for template volumes that are no
/// longer the running VM's (`handleVolumeUpdateRequest`, `Replacement` strategy).
const VOLUMES_REPLACED: &str = "the volumes replacement is effective only after restart";

/// `handleVolumeUpdateRequest` from v1.3 to v1.6 with the `Replacement` volume strategy: when
/// the template's volumes are no longer the VMI's (a hotpluggable volume added or changed,
/// which the handler sees before any hotplug reached the VMI) the VM needs a restart, unless
/// a hotpluggable volume of the VMI left the template (an unplug under way). From v1.7 the
/// handler leaves `Replacement` alone; up to v1.4 it runs only with the VolumesUpdateStrategy
/// gate (KubeVirt v1.4.0 `handleVolumeUpdateRequest`).
pub(super) fn handle_volume_replacement(
    base: &Value,
    head: &Value,
    cluster: &Cluster<'_>,
    refused: &mut Refused,
) {
    let version = cluster.version;
    if !cluster.volumes_update_strategy
        || version.at_least(1, 7)
        || !version.at_least(1, 3)
        || base.get("volumes") == head.get("volumes")
    {
        return;
    }
    let (old, new) = (named(base.get("volumes")), named(head.get("volumes")));
    let unplugging = old
        .iter()
        .any(|(name, volume)| is_hotplug_volume(volume) && !new.contains_key(name));
    if unplugging {
        return;
    }
    let replaced: Vec<&str> = new
        .iter()
        .filter(|(name, volume)| old.get(*name) != Some(*volume))
        .map(|(name, _)| name.as_str())
        .collect();
    let part = if replaced.is_empty() {
        "the template's volumes reordered".to_owned()
    } else {
        format!("volumes replaced: {}", replaced.join(", "))
    };
    refused.add(restart_required(VOLUMES_REPLACED), part);
}

/// The claim a PVC or DataVolume volume uses.
pub(super) fn claim_of(volume: &Value) -> Option<&Value> {
    volume
        .pointer("/persistentVolumeClaim/claimName")
        .or_else(|| volume.pointer("/dataVolume/name"))
}

/// A volume of both templates uses another claim (`PersistentVolumesUpdated`).
pub(super) fn claims_changed(base: &Value, head: &Value) -> bool {
    let old = named(base.get("volumes"));
    named(head.get("volumes")).iter().any(|(name, volume)| {
        match (claim_of(volume), old.get(name).and_then(|v| claim_of(v))) {
            (Some(new), Some(previous)) => new != previous,
            _ => false,
        }
    })
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

/// `validLiveUpdateVolumes`: only hotpluggable volumes were added, removed or changed (or
/// PVC/DataVolume volumes with `updateVolumesStrategy: Migration`).
pub(super) fn valid_live_update_volumes(last: &Value, current: &Value, migration: bool) -> bool {
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
/// removed, and (from v1.7) no CD-ROM was removed.
pub(super) fn valid_live_update_disks(
    last: &Value,
    current: &Value,
    version: KubeVirtVersion,
) -> bool {
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
        let cdrom_removed = disk.get("cdrom").is_some() && !new.contains_key(name);
        hotplug && !(cdrom_removed && version.at_least(1, 7))
    })
}
