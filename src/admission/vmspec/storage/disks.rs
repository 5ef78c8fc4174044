//! `disks.go` and the disk checks of `vmi-create-admitter.go`: boot order, the disk of each
//! volume, `ValidateDisks`.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::Value;

use crate::admission::vmspec::TEMPLATE_SPEC;
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::names::dns1123_label;
use crate::admission::vmspec::network::iface_field;
use crate::admission::vmspec::read::{count_present, is_pci_address};
use crate::model::value::{array_at, bool_at, is_set_at, present_at, str_at, u64_at};

/// `validateBootOrder`: disks need a volume, LUN and downward-metrics pairing, unique boot orders.
pub(in crate::admission::vmspec) fn boot_order(cx: &mut Ctx) {
    let volumes = array_at(cx.spec, &["volumes"]);
    let mut orders = HashSet::new();
    for (idx, disk) in cx.devices("disks").iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
        let name = str_at(disk, &["name"]);
        let volume = volumes.iter().rev().find(|v| str_at(v, &["name"]) == name);
        if volume.is_none() {
            // An empty CD-ROM is allowed from v1.6, behind DeclarativeHotplugVolumes.
            let empty_cdrom = cx.profile.version.at_least(1, 6) && is_set_at(disk, &["cdrom"]);
            if !empty_cdrom {
                cx.push(
                    format!("{field}.name"),
                    format!("{field}.Name '{name}' not found."),
                );
            } else if !cx.gate("DeclarativeHotplugVolumes") {
                cx.push(
                    format!("{field}.name"),
                    "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk",
                );
            }
        }
        if let Some(volume) = volume {
            disk_volume_pairing(cx, &field, disk, volume);
        }
        let order = present_at(disk, &["bootOrder"]).and_then(Value::as_u64);
        if order.is_some_and(|order| !orders.insert(order)) {
            let bad = format!("{field}.bootOrder");
            cx.push(
                bad.clone(),
                format!("Boot order for {bad} already set for a different device."),
            );
        }
    }
    for (idx, iface) in cx.devices("interfaces").iter().enumerate() {
        let Some(order) = present_at(iface, &["bootOrder"]).and_then(Value::as_u64) else {
            continue;
        };
        if order < 1 {
            let message = format!("{TEMPLATE_SPEC}[{idx}] must have a boot order > 0, if supplied");
            cx.push(format!("{TEMPLATE_SPEC}[{idx}].bootOrder"), message);
        } else if !orders.insert(order) {
            let bad = iface_field(idx, "bootOrder");
            cx.push(
                bad.clone(),
                format!("Boot order for {bad} already set for a different device."),
            );
        }
    }
}

fn disk_volume_pairing(cx: &mut Ctx, field: &str, disk: &Value, volume: &Value) {
    if is_set_at(disk, &["lun"])
        && !is_set_at(volume, &["persistentVolumeClaim"])
        && !is_set_at(volume, &["dataVolume"])
    {
        let lun = format!("{field}.lun");
        cx.push(
            lun.clone(),
            format!("{lun} can only be mapped to a DataVolume or PersistentVolumeClaim volume."),
        );
    }
    if !is_set_at(volume, &["downwardMetrics"]) {
        return;
    }
    let bus = str_at(disk, &["disk", "bus"]);
    if !is_set_at(disk, &["disk"]) {
        let target = format!("{field}.disk");
        let message = format!(
            "DownwardMetrics volume must be mapped to a disk, but disk is not set on {target}."
        );
        cx.push(target, message);
    } else if !bus.is_empty() && bus != "virtio" {
        let target = format!("{field}.disk.bus");
        let message = format!(
            "DownwardMetrics volume must be mapped to virtio bus, but {target} is set to {bus}"
        );
        cx.push(target, message);
    }
}

/// `storageadmitters.ValidateDisks`.
pub(in crate::admission::vmspec) fn disks(cx: &mut Ctx) {
    let list = cx.devices("disks");
    // KubeVirt reports a duplicate name against every earlier disk of that name; the lists'
    // length limit keeps that at most 256 * 255 / 2 causes.
    let mut earlier_by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (idx, disk) in list.iter().enumerate() {
        let name = str_at(disk, &["name"]);
        let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
        let earlier = earlier_by_name.entry(name).or_default();
        for other_idx in earlier.iter() {
            let message = format!(
                "{field} and {TEMPLATE_SPEC}.domain.devices.disks[{other_idx}] must not have the same Name."
            );
            cx.push(format!("{field}.name"), message);
        }
        earlier.push(idx);
        if count_present(disk, &["disk", "lun", "cdrom"]) > 1 {
            cx.push(
                field.clone(),
                format!("{field} can only have a single target type defined"),
            );
        }
        disk_pci_address(cx, idx, disk);
        if present_at(disk, &["bootOrder"]).and_then(Value::as_u64) == Some(0) {
            cx.push(
                format!("{field}.bootOrder"),
                format!("{field} must have a boot order > 0, if supplied"),
            );
        }
        disk_bus(cx, idx, disk);
        disk_attributes(cx, idx, disk);
        block_size(cx, idx, disk);
    }
}

/// The disk target (`disk`, `lun` or `cdrom`) and its bus.
fn disk_target(disk: &Value) -> (&'static str, &str) {
    ["disk", "lun", "cdrom"]
        .into_iter()
        .find(|key| is_set_at(disk, &[*key]))
        .map_or(("", ""), |key| (key, str_at(disk, &[key, "bus"])))
}

fn disk_pci_address(cx: &mut Ctx, idx: usize, disk: &Value) {
    let address = str_at(disk, &["disk", "pciAddress"]);
    if address.is_empty() {
        return;
    }
    let base = format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks.disk[{idx}]");
    if str_at(disk, &["disk", "bus"]) != "virtio" {
        let message = format!(
            "disk {base}.name - setting a PCI address is only possible with bus type virtio."
        );
        cx.push(format!("{base}.pciAddress"), message);
    }
    if !is_pci_address(address) {
        cx.push(
            format!("{base}.pciAddress"),
            format!("disk {base}.name has malformed PCI address ({address})."),
        );
    }
}

fn disk_bus(cx: &mut Ctx, idx: usize, disk: &Value) {
    let (target, bus) = disk_target(disk);
    if bus.is_empty() {
        return;
    }
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
    match bus {
        "ide" => cx.push(format!("{field}.{target}.bus"), "IDE bus is not supported"),
        "virtio" if target == "cdrom" => {
            cx.push(
                format!("{field}.cdrom.bus"),
                format!("Bus type {bus} is invalid for CD-ROM device"),
            );
        }
        "sata" if bool_at(disk, &["disk", "readOnly"]) == Some(true) => {
            cx.push(
                format!("{field}.disk.bus"),
                format!("{bus} hard-disks do not support read-only."),
            );
        }
        "virtio" | "sata" | "scsi" | "usb" => {}
        _ => {
            let message = format!(
                "{field} is set with an unrecognized bus {bus}, must be one of: [virtio scsi sata usb]"
            );
            cx.push(format!("{field}.{target}.bus"), message);
        }
    }
    if bool_at(disk, &["dedicatedIOThread"]) == Some(true) && bus != "virtio" {
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}]"),
            format!("IOThreads are not supported for disks on a {bus} bus"),
        );
    }
}

fn disk_attributes(cx: &mut Ctx, idx: usize, disk: &Value) {
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
    let serial = str_at(disk, &["serial"]);
    if !serial.is_empty()
        && !serial
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.+-".contains(&b))
    {
        let message = format!(
            "{field} must be made up of the following characters [A-Za-z0-9_.+-], if specified"
        );
        cx.push(format!("{field}.serial"), message);
    }
    if serial.chars().count() > 256 {
        let message = format!("{field} must be less than or equal to 256 in length, if specified");
        cx.push(format!("{field}.serial"), message);
    }
    let cache = str_at(disk, &["cache"]);
    if !matches!(cache, "" | "none" | "writethrough" | "writeback") {
        cx.push(
            format!("{field}.cache"),
            format!("{field}.cache has invalid value {cache}"),
        );
    }
    let io = str_at(disk, &["io"]);
    if !matches!(io, "" | "native" | "threads") {
        let message = format!(
            "Disk IO mode for {TEMPLATE_SPEC}.domain.devices.disks is not supported. Supported modes are: native, threads."
        );
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}].io"),
            message,
        );
    }
    if let Some(policy) = present_at(disk, &["errorPolicy"]) {
        let policy = policy.as_str().unwrap_or("");
        if !matches!(policy, "stop" | "ignore" | "report" | "enospace") {
            cx.push(
                format!("{field}.errorPolicy"),
                format!("{field}.errorPolicy has invalid value \"{policy}\""),
            );
        }
    }
    for error in dns1123_label(str_at(disk, &["name"])) {
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}].name"),
            error,
        );
    }
}

fn block_size(cx: &mut Ctx, idx: usize, disk: &Value) {
    let Some(custom) = present_at(disk, &["blockSize", "custom"]) else {
        return;
    };
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}].blockSize");
    if is_set_at(disk, &["blockSize", "matchVolume"])
        && bool_at(disk, &["blockSize", "matchVolume", "enabled"]) != Some(false)
    {
        cx.push(
            field,
            "Block size matching can't be enabled together with a custom value",
        );
        return;
    }
    let (logical, physical) = (u64_at(custom, &["logical"]), u64_at(custom, &["physical"]));
    let discard = present_at(custom, &["discardGranularity"]).and_then(Value::as_u64);
    if logical > physical {
        let message = format!(
            "Logical size {logical} must be the same or less than the physical size of {physical}"
        );
        cx.push(format!("{field}.custom.logical"), message);
    } else if disk_target(disk).1 == "sata" && logical != 512 {
        cx.push(
            format!("{field}.custom.logical"),
            format!("Logical size {logical} must be 512 for SATA devices"),
        );
    } else if let Some(discard) = discard.filter(|d| logical != 0 && d % logical != 0) {
        let message =
            format!("Discard granularity {discard} must be multiples of logical size {logical}");
        cx.push(format!("{field}.custom.discardGranularity"), message);
    } else {
        for (size, key) in [(logical, "logical"), (physical, "physical")] {
            let message = if size < 512 {
                format!("Provided size of {size} is less than the supported minimum size of 512")
            } else if size > 2_097_152 {
                format!(
                    "Provided size of {size} is greater than the supported maximum size of 2097152"
                )
            } else if !size.is_power_of_two() {
                format!("Provided size of {size} is not a power of 2")
            } else {
                continue;
            };
            cx.push(format!("{field}.custom.{key}"), message);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};

    #[test]
    fn disks_need_volumes() {
        assert_eq!(
            run(&json!({"domain": {"devices": {"disks": [{"name": "root"}, {"name": "data"}]}}})),
            one(
                "spec.template.spec.domain.devices.disks[1].name",
                "spec.template.spec.domain.devices.disks[1].Name 'data' not found."
            )
        );
        let cdrom = json!({"domain": {"devices": {"disks": [{"name": "root"}, {"name": "cd", "cdrom": {"bus": "sata"}}]}}});
        assert_eq!(run(&cdrom), Vec::new());
        assert_eq!(
            run_with(&cdrom, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.disks[1].name",
                "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {
                "disks": [{"name": "root", "bootOrder": 1}],
                "interfaces": [{"name": "default", "masquerade": {}, "bootOrder": 1}]}}})),
            one(
                "spec.template.spec.domain.devices.interfaces[0].bootOrder",
                "Boot order for spec.template.spec.domain.devices.interfaces[0].bootOrder already set for a different device."
            )
        );
    }

    #[test]
    fn disk_devices() {
        let disks = |disk: Value| json!({"domain": {"devices": {"disks": [disk]}}});
        assert_eq!(
            run(&disks(json!({"name": "root", "cdrom": {"bus": "virtio"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].cdrom.bus",
                "Bus type virtio is invalid for CD-ROM device"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {"bus": "ide"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].disk.bus",
                "IDE bus is not supported"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {"bus": "nvme"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].disk.bus",
                "spec.template.spec.domain.devices.disks[0] is set with an unrecognized bus nvme, must be one of: [virtio scsi sata usb]"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {}, "cache": "unsafe", "serial": "a b"}))),
            vec![
                (
                    "spec.template.spec.domain.devices.disks[0].serial".to_owned(),
                    "spec.template.spec.domain.devices.disks[0] must be made up of the following characters [A-Za-z0-9_.+-], if specified".to_owned()
                ),
                (
                    "spec.template.spec.domain.devices.disks[0].cache".to_owned(),
                    "spec.template.spec.domain.devices.disks[0].cache has invalid value unsafe".to_owned()
                ),
            ]
        );
        assert_eq!(
            run(&disks(
                json!({"name": "root", "disk": {}, "blockSize": {"custom": {"logical": 512, "physical": 1000}}})
            )),
            one(
                "spec.template.spec.domain.devices.disks[0].blockSize.custom.physical",
                "Provided size of 1000 is not a power of 2"
            )
        );
        assert_eq!(
            run(&disks(
                json!({"name": "root", "disk": {}, "blockSize": {"custom": {"logical": 512, "physical": 4096}}})
            )),
            Vec::new()
        );
        let renamed = json!({"volumes": [{"name": "Root", "containerDisk": {"image": "x:1"}}],
            "domain": {"devices": {"disks": [{"name": "Root", "disk": {}}]}}});
        assert_eq!(
            run(&renamed),
            one(
                "spec.template.spec.domain.devices.disks.domain.devices.disks[0].name",
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            )
        );
    }

    const DISK: &str = "spec.template.spec.domain.devices.disks[0]";

    fn disk(disk: &Value) -> Vec<(String, String)> {
        run(&json!({"domain": {"devices": {"disks": [disk]}}}))
    }

    fn block_size(custom: &Value, bus: &str) -> Vec<(String, String)> {
        disk(&json!({"name": "root", "disk": {"bus": bus}, "blockSize": {"custom": custom}}))
    }

    #[test]
    fn an_interface_boot_order_needs_only_to_be_positive_and_unique() {
        let boot = |order: u64| {
            run(&json!({"domain": {"devices": {
                "disks": [{"name": "root", "bootOrder": 1}],
                "interfaces": [{"name": "default", "masquerade": {}, "bootOrder": order}]}}}))
        };
        assert_eq!(boot(2), Vec::new());
        assert_eq!(
            boot(0),
            one(
                "spec.template.spec[0].bootOrder",
                "spec.template.spec[0] must have a boot order > 0, if supplied"
            )
        );
    }

    #[test]
    fn a_downward_metrics_disk_needs_the_virtio_bus_if_any() {
        let metrics = |disk: Value| {
            let patch = json!({"domain": {"devices": {"disks": [{"name": "root"}, disk]}},
                "volumes": [{"name": "root", "containerDisk": {"image": "x:1"}},
                    {"name": "metrics", "downwardMetrics": {}}]});
            run_with(&patch, &profile((1, 9), &["DownwardMetrics"]))
        };
        assert_eq!(metrics(json!({"name": "metrics", "disk": {}})), Vec::new());
        assert_eq!(
            metrics(json!({"name": "metrics", "disk": {"bus": "virtio"}})),
            Vec::new()
        );
        assert_eq!(
            metrics(json!({"name": "metrics", "disk": {"bus": "sata"}})),
            one(
                "spec.template.spec.domain.devices.disks[1].disk.bus",
                "DownwardMetrics volume must be mapped to virtio bus, but spec.template.spec.domain.devices.disks[1].disk.bus is set to sata"
            )
        );
    }

    #[test]
    fn a_disk_pci_address_needs_virtio_and_the_pci_form() {
        let base = "spec.template.spec.domain.devices.disks.domain.devices.disks.disk[0]";
        let pci = |bus: &str, address: &str| {
            disk(&json!({"name": "root", "disk": {"bus": bus, "pciAddress": address}}))
        };
        assert_eq!(pci("virtio", "0000:81:01.0"), Vec::new());
        assert_eq!(
            pci("sata", "0000:81:01.0"),
            one(
                &format!("{base}.pciAddress"),
                &format!(
                    "disk {base}.name - setting a PCI address is only possible with bus type virtio."
                )
            )
        );
        assert_eq!(
            pci("virtio", "0000:81:01"),
            one(
                &format!("{base}.pciAddress"),
                &format!("disk {base}.name has malformed PCI address (0000:81:01).")
            )
        );
    }

    #[test]
    fn sata_read_only_serials_and_error_policies() {
        assert_eq!(
            disk(&json!({"name": "root", "disk": {"bus": "sata", "readOnly": true}})),
            one(
                &format!("{DISK}.disk.bus"),
                "sata hard-disks do not support read-only."
            )
        );
        let serial = |serial: &str| disk(&json!({"name": "root", "disk": {}, "serial": serial}));
        assert_eq!(serial("Ab9_.+-"), Vec::new());
        assert_eq!(serial(&"a".repeat(256)), Vec::new());
        assert_eq!(
            serial(&"a".repeat(257)),
            one(
                &format!("{DISK}.serial"),
                &format!("{DISK} must be less than or equal to 256 in length, if specified")
            )
        );
        let policy =
            |policy: &str| disk(&json!({"name": "root", "disk": {}, "errorPolicy": policy}));
        assert_eq!(policy("stop"), Vec::new());
        assert_eq!(
            policy("retry"),
            one(
                &format!("{DISK}.errorPolicy"),
                &format!("{DISK}.errorPolicy has invalid value \"retry\"")
            )
        );
    }

    #[test]
    fn a_custom_block_size_at_its_bounds() {
        let field = |key: &str| format!("{DISK}.blockSize.custom.{key}");
        let matching = |enabled: Value| {
            let block = json!({"custom": {"logical": 512, "physical": 512}, "matchVolume": {"enabled": enabled}});
            disk(&json!({"name": "root", "disk": {}, "blockSize": block}))
        };
        assert_eq!(matching(json!(false)), Vec::new());
        assert_eq!(
            matching(json!(true)),
            one(
                &format!("{DISK}.blockSize"),
                "Block size matching can't be enabled together with a custom value"
            )
        );
        assert_eq!(
            block_size(&json!({"logical": 4096, "physical": 4096}), "virtio"),
            Vec::new()
        );
        assert_eq!(
            block_size(&json!({"logical": 4096, "physical": 512}), "virtio"),
            one(
                &field("logical"),
                "Logical size 4096 must be the same or less than the physical size of 512"
            )
        );
        assert_eq!(
            block_size(&json!({"logical": 512, "physical": 4096}), "sata"),
            Vec::new()
        );
        assert_eq!(
            block_size(&json!({"logical": 4096, "physical": 4096}), "sata"),
            one(
                &field("logical"),
                "Logical size 4096 must be 512 for SATA devices"
            )
        );
        let discard = |granularity: u64| json!({"logical": 4096, "physical": 4096, "discardGranularity": granularity});
        assert_eq!(block_size(&discard(8192), "virtio"), Vec::new());
        assert_eq!(
            block_size(&discard(6144), "virtio"),
            one(
                &field("discardGranularity"),
                "Discard granularity 6144 must be multiples of logical size 4096"
            )
        );
        assert_eq!(
            block_size(
                &json!({"logical": 0, "physical": 512, "discardGranularity": 512}),
                "virtio"
            ),
            one(
                &field("logical"),
                "Provided size of 0 is less than the supported minimum size of 512"
            )
        );
        let largest = 2_097_152;
        assert_eq!(
            block_size(&json!({"logical": largest, "physical": largest}), "virtio"),
            Vec::new()
        );
        assert_eq!(
            block_size(
                &json!({"logical": largest, "physical": 2 * largest}),
                "virtio"
            ),
            one(
                &field("physical"),
                "Provided size of 4194304 is greater than the supported maximum size of 2097152"
            )
        );
    }
}
