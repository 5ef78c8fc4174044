//! `preference/apply/firmware.go`.

use serde_json::{Map, Value};

use crate::cluster::backports;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::PreferenceSpec;
use crate::model::value::{Fields, Obj, child, is_set};

pub(super) fn apply(preference: &PreferenceSpec, spec: &mut Obj, version: KubeVirtVersion) {
    let Some(prefs) = &preference.firmware else {
        return;
    };
    let overwrite = !version.has_change(backports::FIRMWARE_PREFERENCES_KEEP_VM_VALUES);
    let bootloader = child(child(child(spec, "domain"), "firmware"), "bootloader");
    let neither = |b: &Obj| !is_set(b, "bios") && !is_set(b, "efi");

    if prefs.preferred_use_bios == Some(true) && neither(bootloader) {
        bootloader.insert("bios".to_owned(), Value::Object(Map::new()));
    }
    if let Some(serial) = prefs.preferred_use_bios_serial
        && let Some(bios) = bootloader.field_mut("bios").and_then(Value::as_object_mut)
        && (overwrite || !is_set(bios, "useSerial"))
    {
        bios.insert("useSerial".to_owned(), serial.into());
    }
    if version.at_least(1, 4)
        && let Some(efi) = prefs.preferred_efi.as_ref().filter(|v| !v.is_null())
    {
        if neither(bootloader) {
            bootloader.insert("efi".to_owned(), efi.clone());
        }
        return;
    }
    if prefs.preferred_use_efi == Some(true) && neither(bootloader) {
        bootloader.insert("efi".to_owned(), Value::Object(Map::new()));
    }
    if let Some(secure_boot) = prefs.preferred_use_secure_boot
        && let Some(efi) = bootloader.field_mut("efi").and_then(Value::as_object_mut)
        && (overwrite || !is_set(efi, "secureBoot"))
    {
        efi.insert("secureBoot".to_owned(), secure_boot.into());
    }
}
