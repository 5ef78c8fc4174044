//! The remaining devices and their gates: inputs, ramfb, host devices, sound, VSOCK, persistent
//! reservation and state, downward metrics, virtiofs, video, panic devices.

use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use super::read::architecture;
use crate::model::value::{array_at, bool_at, is_set_at, present_at, str_at};

pub(super) fn input_devices(cx: &mut Ctx) {
    for (idx, input) in cx.devices("inputs").iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.domain.devices.inputs[{idx}]");
        if !matches!(str_at(input, &["bus"]), "" | "virtio" | "usb") {
            cx.push(
                format!("{field}.bus"),
                "Input device can have only virtio or usb bus.",
            );
        }
        if str_at(input, &["type"]) != "tablet" {
            cx.push(
                format!("{field}.type"),
                "Input device can have only tablet type.",
            );
        }
    }
}

/// `validateGPUsWithPassthroughEnabled` up to v1.3 (vmi-create-admitter.go at v1.2.0 and
/// v1.3.0): GPUs need the `GPU` feature gate, GA since v1.4; the ramfb count came with v1.3 and
/// stayed as `validateMDEVRamFB`.
pub(super) fn gpus(cx: &mut Ctx) {
    let version = cx.profile.version;
    if !version.at_least(1, 4)
        && is_set_at(cx.spec, &["domain", "devices", "gpus"])
        && !cx.gate("GPU")
    {
        cx.push(
            ts!("GPUs"),
            "GPU feature gate is not enabled in kubevirt-config",
        );
    }
    if version.at_least(1, 3) {
        mdev_ramfb(cx);
    }
}

fn mdev_ramfb(cx: &mut Ctx) {
    let enabled = |gpu: &&Value| {
        let display = present_at(gpu, &["virtualGPUOptions", "display"]);
        // `ramFB` absent counts; written, only with `enabled: true` (an empty `ramFB: {}`
        // does not: `countConfiguredMDEVRamFBs`).
        display.is_some_and(|d| {
            bool_at(d, &["enabled"]) != Some(false)
                && (!is_set_at(d, &["ramFB"]) || bool_at(d, &["ramFB", "enabled"]) == Some(true))
        })
    };
    if cx.devices("gpus").iter().filter(enabled).count() > 1 {
        cx.push(
            ts!("GPUs"),
            "configuring multiple displays with ramfb is not valid ",
        );
    }
}

pub(super) fn host_devices(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "devices", "hostDevices"]) && !cx.gate("HostDevices") {
        cx.push(
            ts!("HostDevices"),
            "Host Devices feature gate is not enabled in kubevirt-config",
        );
    }
}

pub(super) fn sound(cx: &mut Ctx) {
    let Some(sound) = present_at(cx.spec, &["domain", "devices", "sound"]) else {
        return;
    };
    if !matches!(str_at(sound, &["model"]), "" | "ich9" | "ac97") {
        cx.push(
            ts!("Sound"),
            "Sound device type is not supported. Options: 'ich9' or 'ac97'",
        );
    }
    if str_at(sound, &["name"]).is_empty() {
        cx.push(ts!("Sound"), "Sound device requires a name field.");
    }
}

pub(super) fn vsock(cx: &mut Ctx) {
    let wanted = bool_at(cx.spec, &["domain", "devices", "autoattachVSOCK"]) == Some(true);
    if wanted && !cx.gate("VSOCK") {
        cx.push(
            ts!("domain.devices.autoattachVSOCK"),
            "VSOCK feature gate is not enabled in kubevirt-config",
        );
    }
}

pub(super) fn persistent_reservation(cx: &mut Ctx) {
    let wanted = cx
        .devices("disks")
        .iter()
        .any(|d| is_set_at(d, &["lun"]) && bool_at(d, &["lun", "reservation"]) == Some(true));
    if wanted && !cx.profile.persistent_reservation_enabled() {
        cx.push(
            ts!("domain.devices.disks.luns.reservation"),
            if cx.profile.version.at_least(1, 9) {
                "persistent reservation is not enabled in kubevirt config"
            } else {
                "PersistentReservation feature gate is not enabled in kubevirt-config"
            },
        );
    }
}

/// Before v1.6, persistent TPM and EFI state need the `VMPersistentState` gate.
pub(super) fn persistent_state(cx: &mut Ctx) {
    if cx.profile.version.at_least(1, 6) || cx.gate("VMPersistentState") {
        return;
    }
    let tpm = is_set_at(cx.spec, &["domain", "devices", "tpm"])
        && bool_at(cx.spec, &["domain", "devices", "tpm", "persistent"]) == Some(true);
    let efi = bool_at(
        cx.spec,
        &["domain", "firmware", "bootloader", "efi", "persistent"],
    ) == Some(true);
    let message = "VMPersistentState feature gate is not enabled in kubevirt-config";
    if tpm {
        cx.push(ts!("domain.devices.tpm.persistent"), message);
    }
    if efi {
        cx.push(ts!("domain.firmware.bootloader.efi.persistent"), message);
    }
}

pub(super) fn downward_metrics(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "devices", "downwardMetrics"]) && !cx.gate("DownwardMetrics")
    {
        cx.push(
            ts!("domain.devices.downwardMetrics"),
            "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled",
        );
    }
}

/// virtiofs volumes behind their gates (vmi-create-admitter.go, `validateVirtioFsVolumes`):
/// none before v1.5; config and storage volumes each behind a gate, or the old
/// ExperimentalVirtiofsSupport one, from v1.5 to v1.7; storage volumes only from v1.8, where the
/// config volumes' gate went GA.
pub(super) fn virtiofs(cx: &mut Ctx) {
    let version = cx.profile.version;
    if !version.at_least(1, 2) {
        privileged_virtiofs(cx);
        return;
    }
    if !version.at_least(1, 5) {
        return;
    }
    let old_gate = !version.at_least(1, 8) && cx.gate("ExperimentalVirtiofsSupport");
    let volumes = array_at(cx.spec, &["volumes"]);
    for filesystem in cx.devices("filesystems") {
        let name = str_at(filesystem, &["name"]);
        let Some(volume) = volumes.iter().rev().find(|v| str_at(v, &["name"]) == name) else {
            continue;
        };
        let config = ["configMap", "secret", "serviceAccount", "downwardAPI"]
            .iter()
            .any(|kind| is_set_at(volume, &[kind]));
        let storage =
            is_set_at(volume, &["persistentVolumeClaim"]) || is_set_at(volume, &["dataVolume"]);
        let message = if config
            && !version.at_least(1, 8)
            && !old_gate
            && !cx.gate("EnableVirtioFsConfigVolumes")
        {
            "virtiofs is not allowed: virtiofs feature gate is not enabled for config volumes"
        } else if storage && !old_gate && !cx.gate("EnableVirtioFsStorageVolumes") {
            "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC"
        } else {
            continue;
        };
        cx.push(ts!("domain.devices.filesystems"), message);
    }
}

/// v1.0 and v1.1 (`validateFilesystemsWithVirtIOFSEnabled`, vmi-create-admitter.go): a
/// filesystem whose volume is not a config volume runs a privileged virtiofs container
/// (`virtiofs.RequiresRootPrivileges`), which needs the ExperimentalVirtiofsSupport gate.
fn privileged_virtiofs(cx: &mut Ctx) {
    let volumes = array_at(cx.spec, &["volumes"]);
    let privileged = cx.devices("filesystems").iter().any(|filesystem| {
        let name = str_at(filesystem, &["name"]);
        // Go builds a map by name: the last volume of a name wins.
        volumes
            .iter()
            .rev()
            .find(|v| str_at(v, &["name"]) == name)
            .is_some_and(|volume| {
                !["configMap", "secret", "serviceAccount", "downwardAPI"]
                    .iter()
                    .any(|kind| is_set_at(volume, &[kind]))
            })
    });
    if privileged && !cx.gate("ExperimentalVirtiofsSupport") {
        cx.push(
            ts!("Filesystems"),
            "virtiofs feature gate is not enabled in kubevirt-config",
        );
    }
}

pub(super) fn video(cx: &mut Ctx) {
    let video = is_set_at(cx.spec, &["domain", "devices", "video"]);
    if video && gated_before_v1_9(cx, "VideoConfig") {
        let message =
            "Video configuration is specified but the VideoConfig feature gate is not enabled";
        cx.push(ts!("video"), message);
        return;
    }
    if video && bool_at(cx.spec, &["domain", "devices", "autoattachGraphicsDevice"]) == Some(false)
    {
        cx.push(
            ts!("video"),
            "Video configuration is not allowed when autoattachGraphicsDevice is set to false",
        );
    }
}

pub(super) fn panic_devices(cx: &mut Ctx) {
    let devices = cx.devices("panicDevices");
    if devices.is_empty() {
        return;
    }
    if gated_before_v1_9(cx, "PanicDevices") {
        cx.push(
            ts!("domain.devices.panicDevices"),
            "Panic Devices feature gate is not enabled in kubevirt-config",
        );
        return;
    }
    let arch = architecture(cx.spec, cx.profile);
    if arch == "s390x" {
        cx.push(
            ts!("domain.devices.panicDevices"),
            format!("custom panic devices are not supported on {arch} architecture"),
        );
    }
    for (idx, device) in devices.iter().enumerate() {
        let Some(model) = present_at(device, &["model"]) else {
            continue;
        };
        let model = model.as_str().unwrap_or("");
        if !matches!(model, "hyperv" | "isa" | "pvpanic") {
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.devices.panicDevices[{idx}].model"),
                format!("invalid PanicDeviceModel({model})"),
            );
        }
    }
}

/// A feature introduced behind a gate in v1.6 that v1.9 made GA: before v1.9 it needs the gate.
fn gated_before_v1_9(cx: &Ctx, name: &str) -> bool {
    cx.profile.version.at_least(1, 6) && !cx.profile.version.at_least(1, 9) && !cx.gate(name)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{merge, one, profile, run, run_with};

    #[test]
    fn input_devices() {
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"inputs": [{"name": "t", "type": "mouse", "bus": "ps2"}]}}})
            ),
            vec![
                (
                    "spec.template.spec.domain.devices.inputs[0].bus".to_owned(),
                    "Input device can have only virtio or usb bus.".to_owned()
                ),
                (
                    "spec.template.spec.domain.devices.inputs[0].type".to_owned(),
                    "Input device can have only tablet type.".to_owned()
                ),
            ]
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"inputs": [{"name": "t", "type": "tablet", "bus": "usb"}]}}})
            ),
            Vec::new()
        );
    }

    /// vmi-create-admitter.go at v1.1.0, `validateFilesystemsWithVirtIOFSEnabled`: only a volume
    /// that is not a config volume needs the privileged container and so the gate; v1.2 to
    /// v1.4 ask for no gate.
    #[test]
    fn up_to_v1_1_a_privileged_virtiofs_filesystem_needs_the_gate() {
        let with = |volume: Value| {
            json!({"domain": {"devices": {"filesystems": [{"name": "fs", "virtiofs": {}}]}},
                   "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}, volume]})
        };
        let pvc = with(json!({"name": "fs", "persistentVolumeClaim": {"claimName": "data"}}));
        let config = with(json!({"name": "fs", "configMap": {"name": "cfg"}}));
        let refused = one(
            "spec.template.spec.Filesystems",
            "virtiofs feature gate is not enabled in kubevirt-config",
        );
        for minor in [0, 1] {
            assert_eq!(
                run_with(&pvc, &profile((1, minor), &[])),
                refused,
                "v1.{minor}"
            );
            assert_eq!(run_with(&config, &profile((1, minor), &[])), Vec::new());
            let gated = profile((1, minor), &["ExperimentalVirtiofsSupport"]);
            assert_eq!(run_with(&pvc, &gated), Vec::new());
        }
        assert_eq!(run_with(&pvc, &profile((1, 2), &[])), Vec::new());
    }

    #[test]
    fn gated_devices() {
        let host_devices = json!({"domain": {"devices": {"hostDevices": [{"name": "h", "deviceName": "vendor.com/dev"}]}}});
        assert_eq!(
            run(&host_devices),
            one(
                "spec.template.spec.HostDevices",
                "Host Devices feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(
            run_with(&host_devices, &profile((1, 9), &["HostDevices"])),
            Vec::new()
        );
        let vsock = json!({"domain": {"devices": {"autoattachVSOCK": true}}});
        assert_eq!(
            run(&vsock),
            one(
                "spec.template.spec.domain.devices.autoattachVSOCK",
                "VSOCK feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(run_with(&vsock, &profile((1, 9), &["VSOCK"])), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"devices": {"downwardMetrics": {}}}})),
            one(
                "spec.template.spec.domain.devices.downwardMetrics",
                "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "fs", "persistentVolumeClaim": {"claimName": "c"}}],
                        "domain": {"devices": {"filesystems": [{"name": "fs", "virtiofs": {}}]}}})
            ),
            one(
                "spec.template.spec.domain.devices.filesystems",
                "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"reservedOverhead": {"addedOverhead": "1Gi"}}}})),
            one(
                "spec.template.spec.domain.memory.reservedOverhead",
                "Reserved overhead memlock feature gate is not enabled in kubevirt-config"
            )
        );
        let reboot = json!({"domain": {"rebootPolicy": "Terminate"}});
        assert_eq!(run(&reboot), Vec::new());
        assert_eq!(
            run_with(&reboot, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.rebootPolicy",
                "RebootPolicy is specified but the RebootPolicy feature gate is not enabled"
            )
        );
    }

    /// Up to v1.3 GPUs need the GPU feature gate, and v1.2 does not count ramfb displays
    /// (`validateGPUsWithPassthroughEnabled`, vmi-create-admitter.go at v1.2.0 and v1.3.0).
    #[test]
    fn up_to_v1_3_gpus_need_the_gpu_gate() {
        let gpu = json!({"name": "a", "deviceName": "nvidia.com/GRID"});
        let one_gpu = json!({"domain": {"devices": {"gpus": [gpu]}}});
        let refusal = one(
            "spec.template.spec.GPUs",
            "GPU feature gate is not enabled in kubevirt-config",
        );
        for minor in [2, 3] {
            assert_eq!(run_with(&one_gpu, &profile((1, minor), &[])), refusal);
            assert_eq!(
                run_with(&one_gpu, &profile((1, minor), &["GPU"])),
                Vec::new()
            );
        }
        assert_eq!(run_with(&one_gpu, &profile((1, 4), &[])), Vec::new());
        let display = json!({"name": "b", "deviceName": "nvidia.com/GRID", "virtualGPUOptions": {"display": {}}});
        let mut second = display.clone();
        second["name"] = json!("c");
        let two_displays = json!({"domain": {"devices": {"gpus": [display, second]}}});
        assert_eq!(
            run_with(&two_displays, &profile((1, 2), &["GPU"])),
            Vec::new()
        );
        assert_eq!(
            run_with(&two_displays, &profile((1, 3), &["GPU"])),
            one(
                "spec.template.spec.GPUs",
                "configuring multiple displays with ramfb is not valid "
            )
        );
    }

    #[test]
    fn display_devices() {
        let display = json!({"virtualGPUOptions": {"display": {}}});
        let gpu = |name: &str| {
            let mut gpu = json!({"name": name, "deviceName": "nvidia.com/GRID"});
            merge(&mut gpu, &display);
            gpu
        };
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [gpu("a"), gpu("b")]}}})),
            one(
                "spec.template.spec.GPUs",
                "configuring multiple displays with ramfb is not valid "
            )
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [gpu("a")]}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {"sound": {"name": "s", "model": "sb16"}}}})),
            one(
                "spec.template.spec.Sound",
                "Sound device type is not supported. Options: 'ich9' or 'ac97'"
            )
        );
        let video = json!({"domain": {"devices": {"video": {"type": "virtio"}, "autoattachGraphicsDevice": false}}});
        assert_eq!(
            run(&video),
            one(
                "spec.template.spec.video",
                "Video configuration is not allowed when autoattachGraphicsDevice is set to false"
            )
        );
        assert_eq!(
            run_with(&video, &profile((1, 8), &[])),
            one(
                "spec.template.spec.video",
                "Video configuration is specified but the VideoConfig feature gate is not enabled"
            )
        );
        let panic = json!({"domain": {"devices": {"panicDevices": [{"model": "hyperv"}]}}});
        assert_eq!(run(&panic), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"devices": {"panicDevices": [{"model": "isa-debug"}]}}})),
            one(
                "spec.template.spec.domain.devices.panicDevices[0].model",
                "invalid PanicDeviceModel(isa-debug)"
            )
        );
        assert_eq!(
            run_with(&panic, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.panicDevices",
                "Panic Devices feature gate is not enabled in kubevirt-config"
            )
        );
    }

    #[test]
    fn ramfb_counts_only_displays_with_ramfb_on() {
        let gpu = |name: &str, ramfb: bool| {
            json!({"name": name, "deviceName": "nvidia.com/GRID", "virtualGPUOptions":
                {"display": {"enabled": true, "ramFB": {"enabled": ramfb}}}})
        };
        let gpus = |list: Value| run(&json!({"domain": {"devices": {"gpus": list}}}));
        assert_eq!(gpus(json!([gpu("a", false), gpu("b", false)])), Vec::new());
        // An empty `ramFB` is not on; an absent one is.
        let display = |name: &str, display: Value| {
            json!({"name": name, "deviceName": "nvidia.com/GRID",
                "virtualGPUOptions": {"display": display}})
        };
        let empty = json!({"enabled": true, "ramFB": {}});
        assert_eq!(
            gpus(json!([display("a", empty.clone()), display("b", empty)])),
            Vec::new()
        );
        assert_eq!(
            gpus(json!([
                display("a", json!({})),
                display("b", json!({"ramFB": null}))
            ]))
            .len(),
            1
        );
        assert_eq!(
            gpus(json!([gpu("a", true), gpu("b", true)])),
            one(
                "spec.template.spec.GPUs",
                "configuring multiple displays with ramfb is not valid "
            )
        );
    }

    #[test]
    fn a_tpm_that_is_not_persistent_needs_no_gate_before_v1_6() {
        let tpm = json!({"domain": {"devices": {"tpm": {}}}});
        assert_eq!(run_with(&tpm, &profile((1, 5), &[])), Vec::new());
    }

    #[test]
    fn no_graphics_device_refuses_only_a_video_configuration() {
        let devices = |devices: Value| run(&json!({"domain": {"devices": devices}}));
        assert_eq!(
            devices(json!({"autoattachGraphicsDevice": false})),
            Vec::new()
        );
        assert_eq!(
            devices(json!({"autoattachGraphicsDevice": false, "video": {"type": "virtio"}})),
            one(
                "spec.template.spec.video",
                "Video configuration is not allowed when autoattachGraphicsDevice is set to false"
            )
        );
    }
}
