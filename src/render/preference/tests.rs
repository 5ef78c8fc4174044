//! Each preference step against KubeVirt's `pkg/instancetype/preference/apply/` (v1.9, and the
//! older releases where a step differs): a preference fills what the VM leaves unset and keeps
//! what it sets.

use serde_json::{Value, json};

use super::apply;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::PreferenceSpec;
use crate::model::value::Obj;

fn object(value: Value) -> Obj {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The VMI spec and metadata after applying `preference` at v1.`minor`.
fn applied_with_metadata(
    minor: u32,
    preference: Value,
    spec: Value,
    metadata: Value,
) -> (Value, Value) {
    let preference: PreferenceSpec = serde_json::from_value(preference).unwrap();
    let (mut spec, mut metadata) = (object(spec), object(metadata));
    apply(
        &preference,
        &mut spec,
        &mut metadata,
        KubeVirtVersion::new(1, minor),
    )
    .unwrap();
    (Value::Object(spec), Value::Object(metadata))
}

fn applied(minor: u32, preference: Value, spec: Value) -> Value {
    applied_with_metadata(minor, preference, spec, json!({})).0
}

/// `{key: value}`.
fn under(key: &str, value: Value) -> Value {
    Value::Object(Obj::from_iter([(key.to_owned(), value)]))
}

fn domain_of(minor: u32, preference: Value, domain: Value) -> Value {
    applied(minor, preference, under("domain", domain))["domain"].clone()
}

#[test]
fn annotations_fill_only_keys_the_vm_lacks() {
    let preference = json!({"annotations": {"a": "pref", "b": "pref"}});
    let (_, metadata) = applied_with_metadata(
        9,
        preference,
        json!({}),
        json!({"annotations": {"a": "vm"}}),
    );
    assert_eq!(metadata["annotations"], json!({"a": "vm", "b": "pref"}));
}

#[test]
fn architecture_subdomain_and_grace_period_fill_only_empty_fields() {
    let preference = json!({
        "preferredArchitecture": "arm64",
        "preferredSubdomain": "pref",
        "preferredTerminationGracePeriodSeconds": 30
    });
    assert_eq!(
        applied(9, preference.clone(), json!({})),
        json!({"architecture": "arm64", "subdomain": "pref", "terminationGracePeriodSeconds": 30})
    );
    let set =
        json!({"architecture": "amd64", "subdomain": "vm", "terminationGracePeriodSeconds": 0});
    assert_eq!(applied(9, preference, set.clone()), set);
    // An empty preferred value is no preference.
    let empty = json!({"preferredArchitecture": "", "preferredSubdomain": ""});
    assert_eq!(applied(9, empty, json!({})), json!({}));
}

#[test]
fn a_clock_offset_is_copied_whole_only_when_the_vm_sets_neither_utc_nor_a_timezone() {
    let preference = json!({"clock": {
        "preferredClockOffset": {"timezone": "Europe/Paris"},
        "preferredTimer": {"hpet": {"present": false}}
    }});
    let clock = |vm_clock: Value| {
        domain_of(9, preference.clone(), json!({"clock": vm_clock}))["clock"].clone()
    };
    assert_eq!(
        clock(json!({})),
        json!({"timezone": "Europe/Paris", "timer": {"hpet": {"present": false}}})
    );
    assert_eq!(
        clock(json!({"utc": {}, "timer": {}})),
        json!({"utc": {}, "timer": {}})
    );
    assert_eq!(
        clock(json!({"timezone": "UTC", "timer": {"rtc": {}}})),
        json!({"timezone": "UTC", "timer": {"rtc": {}}})
    );
}

#[test]
fn preferred_cpu_features_are_added_unless_the_vm_names_them() {
    let preference = json!({"cpu": {"preferredCPUFeatures": [
        {"name": "vmx", "policy": "require"}, {"name": "pcid"}
    ]}});
    let cpu = domain_of(
        9,
        preference.clone(),
        json!({"cpu": {"features": [{"name": "vmx", "policy": "disable"}]}}),
    )["cpu"]
        .clone();
    assert_eq!(
        cpu,
        json!({"features": [{"name": "vmx", "policy": "disable"}, {"name": "pcid"}]})
    );
    // KubeVirt dereferences the VM's nil domain.cpu.
    let preference: PreferenceSpec = crate::model::decode(&preference).unwrap();
    let result = apply(
        &preference,
        &mut Obj::new(),
        &mut Obj::new(),
        KubeVirtVersion::LATEST,
    );
    assert!(result.is_err());
}

#[test]
fn device_settings_fill_unset_fields_and_disable_hotplug_overwrites() {
    let preference = json!({"devices": {
        "preferredUseVirtioTransitional": true,
        "preferredBlockMultiQueue": true,
        "preferredDisableHotplug": true,
        "preferredSoundModel": "ac97",
        "preferredAutoattachMemBalloon": false,
        "preferredInputBus": "usb"
    }});
    let devices = |vm_devices: Value| {
        domain_of(9, preference.clone(), json!({"devices": vm_devices}))["devices"].clone()
    };
    assert_eq!(
        devices(json!({"sound": {"name": "s"}, "inputs": [{"name": "i"}]})),
        json!({
            "useVirtioTransitional": true, "blockMultiQueue": true, "disableHotplug": true,
            "sound": {"name": "s", "model": "ac97"}, "autoattachMemBalloon": false,
            "inputs": [{"name": "i", "bus": "usb"}]
        })
    );
    assert_eq!(
        devices(json!({
            "useVirtioTransitional": false, "disableHotplug": false,
            "sound": {"name": "s", "model": "ich9"}, "autoattachMemBalloon": true,
            "inputs": [{"name": "i", "bus": "virtio", "type": "tablet"}]
        })),
        json!({
            "useVirtioTransitional": false, "blockMultiQueue": true, "disableHotplug": true,
            "sound": {"name": "s", "model": "ich9"}, "autoattachMemBalloon": true,
            "inputs": [{"name": "i", "bus": "virtio", "type": "tablet"}]
        })
    );
}

#[test]
fn disk_preferences_go_to_disk_targets_cdroms_and_luns_by_their_type() {
    let preference = json!({"devices": {
        "preferredDiskBus": "virtio", "preferredCdromBus": "sata", "preferredLunBus": "scsi",
        "preferredDiskBlockSize": {"custom": {"logical": 512, "physical": 512}},
        "preferredDiskCache": "none", "preferredDiskDedicatedIoThread": true
    }});
    let disks = domain_of(
        9,
        preference,
        json!({"devices": {"disks": [
            {"name": "bare"},
            {"name": "sata", "disk": {"bus": "sata"}},
            {"name": "kept", "disk": {}, "blockSize": {"matchVolume": {}}, "dedicatedIOThread": false},
            {"name": "cd", "cdrom": {}},
            {"name": "lun", "lun": {}}
        ]}}),
    )["devices"]["disks"]
        .clone();
    let block = json!({"custom": {"logical": 512, "physical": 512}});
    assert_eq!(
        disks,
        json!([
            {"name": "bare", "disk": {"bus": "virtio"}, "blockSize": block, "cache": "none", "dedicatedIOThread": true},
            {"name": "sata", "disk": {"bus": "sata"}, "blockSize": block, "cache": "none"},
            {"name": "kept", "disk": {"bus": "virtio"}, "blockSize": {"matchVolume": {}}, "cache": "none", "dedicatedIOThread": false},
            {"name": "cd", "cdrom": {"bus": "sata"}},
            {"name": "lun", "lun": {"bus": "scsi"}}
        ])
    );
}

#[test]
fn a_preferred_masquerade_binds_only_unbound_interfaces_of_the_pod_network() {
    let preference = json!({"devices": {
        "preferredInterfaceModel": "e1000", "preferredInterfaceMasquerade": {}
    }});
    let spec = applied(
        9,
        preference,
        json!({
            "networks": [{"name": "default", "pod": {}}, {"name": "m", "multus": {"networkName": "n"}}],
            "domain": {"devices": {"interfaces": [
                {"name": "default"}, {"name": "m"}, {"name": "default", "bridge": {}, "model": "virtio"}
            ]}}
        }),
    );
    assert_eq!(
        spec["domain"]["devices"]["interfaces"],
        json!([
            {"name": "default", "model": "e1000", "masquerade": {}},
            {"name": "m", "model": "e1000"},
            {"name": "default", "bridge": {}, "model": "virtio"}
        ])
    );
}

#[test]
fn a_panic_device_model_fills_each_device_or_adds_one_from_v1_9() {
    let preference = json!({"devices": {"preferredPanicDeviceModel": "hyperv"}});
    let panic_devices = |minor, vm_devices: Value| {
        domain_of(minor, preference.clone(), json!({"devices": vm_devices}))["devices"]
            .get("panicDevices")
            .cloned()
    };
    assert_eq!(
        panic_devices(9, json!({"panicDevices": []})),
        Some(json!([{"model": "hyperv"}]))
    );
    assert_eq!(
        panic_devices(9, json!({})),
        Some(json!([{"model": "hyperv"}]))
    );
    assert_eq!(panic_devices(8, json!({})), None);
    assert_eq!(
        panic_devices(8, json!({"panicDevices": [{}, {"model": "isa"}]})),
        Some(json!([{"model": "hyperv"}, {"model": "isa"}]))
    );
}

#[test]
fn acpi_is_overwritten_and_other_features_fill_unset_ones() {
    let preference = json!({"features": {
        "preferredAcpi": {}, "preferredApic": {"enabled": true},
        "preferredHyperv": {"relaxed": {}, "vapic": {}}
    }});
    let features = domain_of(
        9,
        preference,
        json!({"features": {"acpi": {"enabled": false}, "hyperv": {"vapic": {"enabled": false}}}}),
    )["features"]
        .clone();
    assert_eq!(
        features,
        json!({"acpi": {}, "apic": {"enabled": true}, "hyperv": {"vapic": {"enabled": false}, "relaxed": {}}})
    );
}

fn bootloader(minor: u32, firmware: Value, vm_bootloader: Value) -> Value {
    domain_of(
        minor,
        under("firmware", firmware),
        under("firmware", under("bootloader", vm_bootloader)),
    )["firmware"]["bootloader"]
        .clone()
}

#[test]
fn bios_and_its_serial_apply_only_to_a_vm_without_a_bootloader_choice() {
    let bios = json!({"preferredUseBios": true, "preferredUseBiosSerial": true});
    assert_eq!(
        bootloader(9, bios.clone(), json!({})),
        json!({"bios": {"useSerial": true}})
    );
    assert_eq!(
        bootloader(9, bios.clone(), json!({"efi": {}})),
        json!({"efi": {}})
    );
    let no_bios = json!({"preferredUseBios": false, "preferredUseBiosSerial": true});
    assert_eq!(bootloader(9, no_bios, json!({})), json!({}));
    // v1.0.1 and v1.1 onwards keep the VM's own serial setting; v1.0.0 overwrote it.
    let own = json!({"bios": {"useSerial": false}});
    assert_eq!(bootloader(9, bios.clone(), own.clone()), own);
    assert_eq!(
        bootloader(0, bios, own),
        json!({"bios": {"useSerial": true}})
    );
}

#[test]
fn efi_and_secure_boot_apply_only_to_a_vm_without_a_bootloader_choice() {
    let efi = json!({"preferredUseEfi": true, "preferredUseSecureBoot": true});
    assert_eq!(
        bootloader(9, efi.clone(), json!({})),
        json!({"efi": {"secureBoot": true}})
    );
    assert_eq!(
        bootloader(9, efi.clone(), json!({"bios": {}})),
        json!({"bios": {}})
    );
    let own = json!({"efi": {"secureBoot": false}});
    assert_eq!(bootloader(9, efi.clone(), own.clone()), own);
    assert_eq!(
        bootloader(0, efi, own),
        json!({"efi": {"secureBoot": true}})
    );
    // preferredEfi (v1.4+) is copied whole and the deprecated fields are then ignored.
    let preferred = json!({"preferredEfi": {"persistent": true}, "preferredUseSecureBoot": true});
    assert_eq!(
        bootloader(9, preferred.clone(), json!({})),
        json!({"efi": {"persistent": true}})
    );
    assert_eq!(
        bootloader(9, preferred, json!({"bios": {}})),
        json!({"bios": {}})
    );
}

#[test]
fn launch_security_from_v1_9_fills_only_a_vm_without_one() {
    let preference = json!({"preferredLaunchSecurity": {"sev": {}}});
    assert_eq!(
        domain_of(9, preference.clone(), json!({})),
        json!({"launchSecurity": {"sev": {}}})
    );
    assert_eq!(domain_of(8, preference.clone(), json!({})), json!({}));
    let own = json!({"launchSecurity": {"snp": {}}});
    assert_eq!(domain_of(9, preference, own.clone()), own);
}

#[test]
fn a_machine_type_fills_an_empty_one_and_an_empty_section_creates_machine_up_to_v1_4() {
    let preference = json!({"machine": {"preferredMachineType": "q35"}});
    assert_eq!(
        domain_of(9, preference.clone(), json!({})),
        json!({"machine": {"type": "q35"}})
    );
    let own = json!({"machine": {"type": "pc"}});
    assert_eq!(domain_of(9, preference, own.clone()), own);
    let empty = json!({"machine": {}});
    assert_eq!(
        domain_of(4, empty.clone(), json!({})),
        json!({"machine": {}})
    );
    assert_eq!(domain_of(5, empty, json!({})), json!({}));
}
