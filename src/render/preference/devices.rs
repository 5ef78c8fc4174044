//! `preference/apply/device.go`, `disk.go`, `interface.go`: device preferences.

use serde_json::{Map, Value};

use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::{Fields, Obj, child, copy_if_unset, is_set, str_of};
use crate::model::{DevicePreferences, PreferenceSpec};

fn set_if_unset(target: &mut Obj, key: &str, value: Option<bool>) {
    if let Some(value) = value
        && !is_set(target, key)
    {
        target.insert(key.to_owned(), value.into());
    }
}

fn set_str_if_empty(target: &mut Obj, key: &str, value: &str) {
    if !value.is_empty() && str_of(target, key).is_empty() {
        target.insert(key.to_owned(), value.into());
    }
}

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj, version: KubeVirtVersion) {
    let Some(prefs) = &preference.devices else {
        return;
    };
    let networks: Vec<(String, bool)> = spec
        .field("networks")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|n| {
                    (
                        n.field("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                        n.field("pod").is_some_and(|p| !p.is_null()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let devices = child(child(spec, "domain"), "devices");

    set_if_unset(
        devices,
        "useVirtioTransitional",
        prefs.preferred_use_virtio_transitional,
    );
    set_if_unset(
        devices,
        "blockMultiQueue",
        prefs.preferred_block_multi_queue,
    );
    set_if_unset(
        devices,
        "networkInterfaceMultiqueue",
        prefs.preferred_network_interface_multi_queue,
    );
    if let Some(disable) = prefs.preferred_disable_hotplug {
        devices.insert("disableHotplug".to_owned(), disable.into());
    }
    if !prefs.preferred_sound_model.is_empty()
        && let Some(sound) = devices.field_mut("sound").and_then(Value::as_object_mut)
    {
        set_str_if_empty(sound, "model", &prefs.preferred_sound_model);
    }
    copy_if_unset(devices, "rng", prefs.preferred_rng.as_ref());
    copy_if_unset(devices, "tpm", prefs.preferred_tpm.as_ref());
    if version.at_least(1, 9)
        && let Some(video_type) = &prefs.preferred_video_type
    {
        let video = child(devices, "video");
        set_str_if_empty(video, "type", video_type);
    }
    set_if_unset(
        devices,
        "autoattachGraphicsDevice",
        prefs.preferred_autoattach_graphics_device,
    );
    set_if_unset(
        devices,
        "autoattachMemBalloon",
        prefs.preferred_autoattach_mem_balloon,
    );
    set_if_unset(
        devices,
        "autoattachPodInterface",
        prefs.preferred_autoattach_pod_interface,
    );
    set_if_unset(
        devices,
        "autoattachSerialConsole",
        prefs.preferred_autoattach_serial_console,
    );
    set_if_unset(
        devices,
        "autoattachInputDevice",
        prefs.preferred_autoattach_input_device,
    );

    if let Some(disks) = devices.field_mut("disks").and_then(Value::as_array_mut) {
        for disk in disks.iter_mut().filter_map(Value::as_object_mut) {
            apply_disk(prefs, disk, version);
        }
    }
    if let Some(interfaces) = devices
        .field_mut("interfaces")
        .and_then(Value::as_array_mut)
    {
        for interface in interfaces.iter_mut().filter_map(Value::as_object_mut) {
            apply_interface(prefs, interface, &networks);
        }
    }
    if let Some(inputs) = devices.field_mut("inputs").and_then(Value::as_array_mut) {
        for input in inputs.iter_mut().filter_map(Value::as_object_mut) {
            set_str_if_empty(input, "bus", &prefs.preferred_input_bus);
            set_str_if_empty(input, "type", &prefs.preferred_input_type);
        }
    }
    if version.at_least(1, 6)
        && let Some(model) = &prefs.preferred_panic_device_model
    {
        apply_panic_devices(devices, model, version);
    }
}

/// Disk preferences: `bus` lives on the disk target, the rest on the disk entry. Only disk-type
/// entries (not CD-ROMs or LUNs) get them; a bare entry becomes a disk-type one.
fn apply_disk(prefs: &DevicePreferences, disk: &mut Obj, version: KubeVirtVersion) {
    if !is_set(disk, "disk") && !is_set(disk, "cdrom") && !is_set(disk, "lun") {
        disk.insert("disk".to_owned(), Value::Object(Map::new()));
    }
    if let Some(target) = disk.field_mut("disk").and_then(Value::as_object_mut) {
        set_str_if_empty(target, "bus", &prefs.preferred_disk_bus);
        let bus_is_virtio = str_of(target, "bus") == "virtio";
        if let Some(block_size) = prefs
            .preferred_disk_block_size
            .as_ref()
            .filter(|v| !v.is_null())
            && !is_set(disk, "blockSize")
        {
            disk.insert("blockSize".to_owned(), block_size.clone());
        }
        set_str_if_empty(disk, "cache", &prefs.preferred_disk_cache);
        set_str_if_empty(disk, "io", &prefs.preferred_disk_io);
        if let Some(dedicated) = prefs.preferred_disk_dedicated_io_thread {
            let virtio_only = version.at_least(1, 3);
            if !is_set(disk, "dedicatedIOThread") && (!virtio_only || bus_is_virtio) {
                disk.insert("dedicatedIOThread".to_owned(), dedicated.into());
            }
        }
    }
    if let Some(target) = disk.field_mut("cdrom").and_then(Value::as_object_mut) {
        set_str_if_empty(target, "bus", &prefs.preferred_cdrom_bus);
    }
    if let Some(target) = disk.field_mut("lun").and_then(Value::as_object_mut) {
        set_str_if_empty(target, "bus", &prefs.preferred_lun_bus);
    }
}

const BINDINGS: [&str; 8] = [
    "bridge",
    "slirp",
    "masquerade",
    "sriov",
    "macvtap",
    "passt",
    "passtBinding",
    "binding",
];

fn apply_interface(prefs: &DevicePreferences, interface: &mut Obj, networks: &[(String, bool)]) {
    set_str_if_empty(interface, "model", &prefs.preferred_interface_model);
    let Some(masquerade) = prefs
        .preferred_interface_masquerade
        .as_ref()
        .filter(|v| !v.is_null())
    else {
        return;
    };
    if BINDINGS.iter().any(|b| is_set(interface, b)) {
        return;
    }
    let name = str_of(interface, "name");
    if networks.iter().any(|(n, pod)| n == name && *pod) {
        interface.insert("masquerade".to_owned(), masquerade.clone());
    }
}

fn apply_panic_devices(devices: &mut Obj, model: &str, version: KubeVirtVersion) {
    let has_devices = devices
        .field("panicDevices")
        .and_then(Value::as_array)
        .is_some_and(|d| !d.is_empty());
    if !has_devices {
        if version.at_least(1, 9) {
            let mut device = Map::new();
            device.insert("model".to_owned(), model.into());
            devices.insert(
                "panicDevices".to_owned(),
                Value::Array(vec![Value::Object(device)]),
            );
        }
        return;
    }
    if let Some(items) = devices
        .field_mut("panicDevices")
        .and_then(Value::as_array_mut)
    {
        for device in items.iter_mut().filter_map(Value::as_object_mut) {
            if !is_set(device, "model") {
                device.insert("model".to_owned(), model.into());
            }
        }
    }
}
