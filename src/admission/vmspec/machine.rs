//! The machine: emulated machine type, architecture gate, ACPI tables, and `validateDomainSpec`'s
//! firmware part (bootloader, Secure Boot, kernel boot).

use serde_json::Value;

use super::CONTROL_PLANE_ARCH;
use super::context::Ctx;
use super::read::{architecture, go_list};
use super::storage::disks::disks;
use super::storage::volumes::validate_path;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::{array_at, bool_at, is_set_at, present_at, str_at};

/// `filepath.Match` for the `*` and `?` patterns of emulated machine lists.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len())
            .take_while(|&skip| skip == 0 || name[skip - 1] != b'/')
            .any(|skip| glob_match(rest, &name[skip..])),
        Some((b'?', rest)) => name
            .split_first()
            .is_some_and(|(c, tail)| *c != b'/' && glob_match(rest, tail)),
        Some((c, rest)) => name
            .split_first()
            .is_some_and(|(n, tail)| n == c && glob_match(rest, tail)),
    }
}

/// The default emulated machines per architecture (virt-config.go); ppc64le had its own until
/// v1.7 removed the architecture, and s390x has its own since v1.3 (`GetEmulatedMachines` at
/// v1.2.0 gives it amd64's, as `GetMachineType` gives it q35).
fn emulated_machines(arch: &str, version: KubeVirtVersion) -> &'static [&'static str] {
    match arch {
        "arm64" => &["virt*"],
        "s390x" if version.at_least(1, 3) => &["s390-ccw-virtio*"],
        "ppc64le" if !version.at_least(1, 7) => &["pseries*"],
        _ => &["q35*", "pc-q35*"],
    }
}

pub(super) fn emulated_machine(cx: &mut Ctx) {
    let machine = str_at(cx.spec, &["domain", "machine", "type"]);
    if machine.is_empty() {
        return;
    }
    let allowed = emulated_machines(architecture(cx.spec, cx.profile), cx.profile.version);
    let mut configured = cx
        .profile
        .machine_type
        .iter()
        .chain(cx.profile.arch_machine_types.iter().map(|(_, m)| m));
    let matched = allowed
        .iter()
        .any(|p| glob_match(p.as_bytes(), machine.as_bytes()))
        || configured.any(|m| m == machine);
    if !matched {
        let field = ts!("domain.machine.type");
        cx.push(
            field,
            format!(
                "{field} is not supported: {machine} (allowed values: {})",
                go_list(allowed)
            ),
        );
    }
}

/// Before v1.8, an architecture other than the control plane's needs the `MultiArchitecture` gate.
pub(super) fn architecture_gate(cx: &mut Ctx) {
    let arch = str_at(cx.spec, &["architecture"]);
    if cx.profile.version.at_least(1, 8)
        || arch.is_empty()
        || arch == CONTROL_PLANE_ARCH
        || cx.gate("MultiArchitecture")
    {
        return;
    }
    let field = ts!("architecture");
    cx.push(
        field,
        format!("MultiArchitecture feature gate is not enabled in kubevirt-config, invalid entry {field}"),
    );
}

pub(super) fn firmware_acpi(cx: &mut Ctx) {
    let Some(acpi) = present_at(cx.spec, &["domain", "firmware", "acpi"]) else {
        return;
    };
    let field = ts!("acpi");
    let (slic, msdm) = (
        str_at(acpi, &["slicNameRef"]),
        str_at(acpi, &["msdmNameRef"]),
    );
    if slic.is_empty() && msdm.is_empty() {
        cx.push(
            field,
            "ACPI was set but no SLIC nor MSDM volume reference was set",
        );
        return;
    }
    for (name, key) in [(slic, "slicNameRef"), (msdm, "msdmNameRef")] {
        if name.is_empty() {
            continue;
        }
        let volume = array_at(cx.spec, &["volumes"])
            .iter()
            .find(|v| str_at(v, &["name"]) == name);
        let message = match volume {
            Some(v) if is_set_at(v, &["secret"]) => continue,
            Some(_) => format!("{field} refers to Volume of unsupported type."),
            None => format!("{field} does not have a matching Volume."),
        };
        cx.push(format!("{field}.{key}"), message);
    }
}

pub(super) fn domain_spec(cx: &mut Ctx) {
    disks(cx);
    let firmware = present_at(cx.spec, &["domain", "firmware"]);
    if let Some(firmware) = firmware {
        if is_set_at(firmware, &["bootloader", "efi"])
            && is_set_at(firmware, &["bootloader", "bios"])
        {
            let field = ts!("domain.firmware.bootloader");
            cx.push(
                field,
                format!(
                    "{field} has both EFI and BIOS configured, but they are mutually exclusive."
                ),
            );
        }
        kernel_boot(cx, firmware);
    }
    let secure_boot = firmware.is_some_and(|f| {
        is_set_at(f, &["bootloader", "efi"])
            && bool_at(f, &["bootloader", "efi", "secureBoot"]) != Some(false)
    });
    let smm = is_set_at(cx.spec, &["domain", "features", "smm"])
        && bool_at(cx.spec, &["domain", "features", "smm", "enabled"]) != Some(false);
    let tdx = is_set_at(cx.spec, &["domain", "launchSecurity", "tdx"]);
    if secure_boot && !smm && !tdx {
        let field = ts!("domain");
        cx.push(
            field,
            format!("{field} has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled."),
        );
    }
}

fn kernel_boot(cx: &mut Ctx, firmware: &Value) {
    let Some(boot) = present_at(firmware, &["kernelBoot"]) else {
        return;
    };
    let Some(container) = present_at(boot, &["container"]) else {
        if !str_at(boot, &["kernelArgs"]).is_empty() {
            cx.push(
                ts!("domain.firmware.kernelBoot.kernelArgs"),
                "kernel arguments cannot be provided without an external kernel",
            );
        }
        return;
    };
    let field = ts!("domain.firmware.kernelBoot.container");
    if str_at(container, &["image"]).is_empty() {
        cx.push(
            format!("{field}.image"),
            format!("{field} must be defined with an image"),
        );
    }
    let (kernel, initrd) = (
        str_at(container, &["kernelPath"]),
        str_at(container, &["initrdPath"]),
    );
    if kernel.is_empty() && initrd.is_empty() {
        cx.push(
            field,
            format!(
                "{field} must be defined with at least one of the following: kernelPath, initrdPath"
            ),
        );
    }
    for (path, key) in [(kernel, "kernelPath"), (initrd, "initrdPath")] {
        if !path.is_empty() {
            cx.causes
                .extend(validate_path(&format!("{field}.{key}"), path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;
    use serde_json::json;

    use crate::admission::vmspec::test_support::{merge, one, profile, run, run_with};
    use crate::cluster::profile::ClusterProfile;

    #[test]
    fn machine_type() {
        let patch = json!({"domain": {"machine": {"type": "pc-i440fx-rhel7.6.0"}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.template.spec.domain.machine.type",
                "spec.template.spec.domain.machine.type is not supported: pc-i440fx-rhel7.6.0 (allowed values: [q35* pc-q35*])"
            )
        );
        let configured = ClusterProfile {
            machine_type: Some("pc-i440fx-rhel7.6.0".to_owned()),
            ..ClusterProfile::default()
        };
        assert_eq!(run_with(&patch, &configured), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"machine": {"type": "pc-q35-rhel9.6.0"}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"architecture": "arm64", "domain": {"machine": {"type": "q35"}}})),
            one(
                "spec.template.spec.domain.machine.type",
                "spec.template.spec.domain.machine.type is not supported: q35 (allowed values: [virt*])"
            )
        );
    }

    /// v1.2 knows no s390x machines: the amd64 defaults apply (virt-config.go at v1.2.0).
    #[test]
    fn up_to_v1_2_s390x_takes_the_amd64_machines() {
        let s390x = |machine: &str| json!({"architecture": "s390x", "domain": {"machine": {"type": machine}}});
        let v1_2 = profile((1, 2), &["MultiArchitecture"]);
        assert_eq!(run_with(&s390x("q35"), &v1_2), Vec::new());
        assert_eq!(
            run_with(&s390x("s390-ccw-virtio"), &v1_2),
            one(
                "spec.template.spec.domain.machine.type",
                "spec.template.spec.domain.machine.type is not supported: s390-ccw-virtio (allowed values: [q35* pc-q35*])"
            )
        );
        let v1_3 = profile((1, 3), &["MultiArchitecture"]);
        assert_eq!(run_with(&s390x("s390-ccw-virtio"), &v1_3), Vec::new());
    }

    #[test]
    fn firmware_acpi() {
        let acpi = |name: &str| json!({"domain": {"firmware": {"acpi": {"slicNameRef": name}}}});
        assert_eq!(
            run(&acpi("root")),
            one(
                "spec.template.spec.acpi.slicNameRef",
                "spec.template.spec.acpi refers to Volume of unsupported type."
            )
        );
        assert_eq!(
            run(&acpi("missing")),
            one(
                "spec.template.spec.acpi.slicNameRef",
                "spec.template.spec.acpi does not have a matching Volume."
            )
        );
        let mut with_secret = acpi("slic");
        merge(
            &mut with_secret,
            &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "slic", "secret": {"secretName": "s"}}],
                    "domain": {"devices": {"disks": [{"name": "root"}, {"name": "slic"}]}}}),
        );
        assert_eq!(run(&with_secret), Vec::new());
    }

    #[test]
    fn firmware_and_secure_boot() {
        let field = "spec.template.spec.domain";
        let message = "spec.template.spec.domain has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.";
        assert_eq!(
            run(&json!({"domain": {"firmware": {"bootloader": {"efi": {}}}}})),
            one(field, message)
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"bootloader": {"efi": {}}}, "features": {"smm": {}}}})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": false}}}}})),
            Vec::new()
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"bootloader": {"bios": {}, "efi": {"secureBoot": false}}}}})
            ),
            one(
                "spec.template.spec.domain.firmware.bootloader",
                "spec.template.spec.domain.firmware.bootloader has both EFI and BIOS configured, but they are mutually exclusive."
            )
        );
        assert_eq!(
            run(&json!({"domain": {"firmware": {"kernelBoot": {"kernelArgs": "console=ttyS0"}}}})),
            one(
                "spec.template.spec.domain.firmware.kernelBoot.kernelArgs",
                "kernel arguments cannot be provided without an external kernel"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"kernelBoot": {"container": {"image": "k:1", "kernelPath": "boot/vmlinuz"}}}}})
            ),
            one(
                "spec.template.spec.domain.firmware.kernelBoot.container.kernelPath",
                "spec.template.spec.domain.firmware.kernelBoot.container.kernelPath must be an absolute path to a file without relative components"
            )
        );
    }

    #[test]
    fn go_parsers() {
        assert!(glob_match(b"pc-q35*", b"pc-q35-rhel9.6.0"));
        assert!(!glob_match(b"q35*", b"pc-i440fx"));
    }

    #[test]
    fn a_question_mark_matches_one_character_but_a_slash() {
        assert!(glob_match(b"pc-q35-?", b"pc-q35-8"));
        assert!(!glob_match(b"pc-q35-?", b"pc-q35-/"));
        assert!(!glob_match(b"pc-q35-?.0", b"pc-q35-8.1"));
    }
}
