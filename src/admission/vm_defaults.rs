//! The disk defaults the VM admitter set on its copy before validating it, up to v1.3: there it
//! ran `webhooks.SetDefaultVirtualMachine` (vms-admitter.go at v1.0.0 to v1.3.0), which adds
//! `SetObjectDefaults_VirtualMachine` and `setDefaultCPUArch` to the VMI-spec defaults. v1.4
//! runs `SetDefaultVirtualMachineInstanceSpec` only. Of what they add, the disk targets and buses
//! change what validation says: a disk without a bus is validated as `sata` on amd64 and as
//! `virtio` on arm64 and s390x (`amd64.go`, `arm64.go`, `s390x.go` in pkg/virt-api/webhooks at
//! v1.3.0).

use serde_json::Value;

use crate::model::value::{Obj, is_set, str_of};

/// The targets a disk may have, each with a `bus`.
const TARGETS: [&str; 3] = ["disk", "cdrom", "lun"];

/// Sets, on a VMI spec whose architecture is already defaulted, what `SetDefaultVirtualMachine`
/// sets on disks beyond `SetDefaultVirtualMachineInstanceSpec`.
pub(crate) fn set_disk_defaults(spec: &mut Obj) {
    let bus = match str_of(spec, "architecture") {
        "arm64" | "s390x" => "virtio",
        _ => "sata",
    };
    let Some(disks) = spec
        .get_mut("domain")
        .and_then(|d| d.get_mut("devices"))
        .and_then(|d| d.get_mut("disks"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for disk in disks.iter_mut().filter_map(Value::as_object_mut) {
        set_disk_device_defaults(disk);
        for target in TARGETS {
            if let Some(Value::Object(target)) = disk.get_mut(target)
                && str_of(target, "bus").is_empty()
            {
                target.insert("bus".to_owned(), bus.into());
            }
        }
    }
}

/// `SetDefaults_DiskDevice` and `SetDefaults_CDRomTarget` (core/v1/defaults.go at v1.3.0).
fn set_disk_device_defaults(disk: &mut Obj) {
    if !TARGETS.iter().any(|target| is_set(disk, target)) {
        disk.insert("disk".to_owned(), Value::Object(Obj::new()));
    }
    if let Some(Value::Object(cdrom)) = disk.get_mut("cdrom") {
        if !is_set(cdrom, "readonly") {
            cdrom.insert("readonly".to_owned(), true.into());
        }
        if str_of(cdrom, "tray").is_empty() {
            cdrom.insert("tray".to_owned(), "closed".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::set_disk_defaults;
    use crate::admission::validate::{FindErrors, Rejection, validate};
    use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
    use crate::render::Specs;

    fn defaulted(spec: &serde_json::Value) -> serde_json::Value {
        let mut spec = spec.as_object().unwrap().clone();
        set_disk_defaults(&mut spec);
        spec["domain"]["devices"]["disks"].clone()
    }

    /// The VM admitter's causes for a template `spec` at `minor`, without instance type.
    fn causes(spec: &serde_json::Value, minor: u32) -> Vec<String> {
        let vm = json!({
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "vm", "namespace": "default"},
            "spec": {"runStrategy": "Halted", "template": {"spec": spec}},
        });
        let profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
        validate(vm, Specs::default(), &FindErrors::default(), &profile, true)
            .into_iter()
            .map(|rejection| match rejection {
                Rejection::VmSpec(cause) => format!("{}: {}", cause.field, cause.message),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// Up to v1.3 a downwardMetrics disk without a bus is refused as a sata disk, and a disk
    /// with a dedicated IO thread too (vms-admitter.go and pkg/virt-api/webhooks/amd64.go at
    /// v1.3.0); v1.4 validates the bus as written.
    #[test]
    fn up_to_v1_3_a_disk_without_a_bus_is_validated_as_sata() {
        let metrics = json!({
            "domain": {"devices": {"disks": [{"name": "m", "disk": {}}]}, "memory": {"guest": "1Gi"}},
            "volumes": [{"name": "m", "downwardMetrics": {}}],
        });
        let sata = "spec.template.spec.domain.devices.disks[0].disk.bus: DownwardMetrics volume must be mapped to virtio bus, but spec.template.spec.domain.devices.disks[0].disk.bus is set to sata";
        for minor in [2, 3] {
            assert_eq!(
                causes(&metrics, minor).first().map(String::as_str),
                Some(sata)
            );
        }
        assert!(causes(&metrics, 4).iter().all(|c| c != sata));
        let io_thread = json!({
            "domain": {"devices": {"disks": [{"name": "r", "dedicatedIOThread": true}]}, "memory": {"guest": "1Gi"}},
            "volumes": [{"name": "r", "containerDisk": {"image": "example.org/disk:1"}}],
        });
        let refused = "IOThreads are not supported for disks on a sata bus";
        assert!(causes(&io_thread, 3).iter().any(|c| c.ends_with(refused)));
        assert_eq!(causes(&io_thread, 4), Vec::<String>::new());
        let arm = json!({
            "architecture": "arm64",
            "domain": {"devices": {"disks": [{"name": "r", "dedicatedIOThread": true}]}, "machine": {"type": "virt"}, "memory": {"guest": "1Gi"}},
            "volumes": [{"name": "r", "containerDisk": {"image": "example.org/disk:1"}}],
        });
        assert!(causes(&arm, 3).iter().all(|c| !c.contains("IOThreads")));
    }

    #[test]
    fn a_disk_without_a_bus_gets_the_architectures_bus() {
        let disks = json!([
            {"name": "a"},
            {"name": "b", "disk": {}},
            {"name": "c", "cdrom": {}},
            {"name": "d", "lun": {"bus": "scsi"}},
            {"name": "e", "disk": null},
        ]);
        let amd64 = json!({"architecture": "amd64", "domain": {"devices": {"disks": disks}}});
        assert_eq!(
            defaulted(&amd64),
            json!([
                {"name": "a", "disk": {"bus": "sata"}},
                {"name": "b", "disk": {"bus": "sata"}},
                {"name": "c", "cdrom": {"readonly": true, "tray": "closed", "bus": "sata"}},
                {"name": "d", "lun": {"bus": "scsi"}},
                {"name": "e", "disk": {"bus": "sata"}},
            ])
        );
        for arch in ["arm64", "s390x"] {
            let spec =
                json!({"architecture": arch, "domain": {"devices": {"disks": [{"name": "a"}]}}});
            assert_eq!(
                defaulted(&spec),
                json!([{"name": "a", "disk": {"bus": "virtio"}}])
            );
        }
    }
}
