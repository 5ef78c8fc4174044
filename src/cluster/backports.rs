//! Webhook and defaulting changes KubeVirt backported to patch releases, read from the release
//! branches' history (`git log vX.Y.0..vX.Y.Z` over the VM mutator, the VM validator and what
//! they call). Each list holds, per minor line that got the change, its first patch release,
//! and the mainline release last; use them with [`KubeVirtVersion::has_change`].

use super::version::KubeVirtVersion;

const fn r(major: u32, minor: u32, patch: u32) -> KubeVirtVersion {
    KubeVirtVersion::release(major, minor, patch)
}

/// The VM mutator applies a preference's `preferredStorageClassName` to a DataVolumeTemplate's
/// `storage` as well as its `pvc` ("instancetype: Apply PreferredStorageClassName to
/// StorageSpec if provided", v1.0.1).
pub const STORAGE_CLASS_ON_STORAGE_SPEC: &[KubeVirtVersion] = &[r(1, 0, 1), r(1, 1, 0)];

/// The deprecated global `machineType` of the KubeVirt CR wins over the per-architecture
/// default ("Fix and deprecate `machineType` in KubeVirt CR Config", v1.0.1).
pub const GLOBAL_MACHINE_TYPE: &[KubeVirtVersion] = &[r(1, 0, 1), r(1, 1, 0)];

/// The VM validator checks a preference's requirements after the VMI-spec defaults
/// ("instancetype: Apply defaults before checking preference requirements", v1.0.1).
pub const REQUIREMENTS_AFTER_DEFAULTS: &[KubeVirtVersion] = &[r(1, 0, 1), r(1, 1, 0)];

/// `preferredUseBiosSerial` and `preferredUseSecureBoot` no longer overwrite the VM's own
/// `useSerial` / `secureBoot` ("instancetype: Fix PreferredUse{BiosSerial,SecureBoot}",
/// v1.0.1).
pub const FIRMWARE_PREFERENCES_KEEP_VM_VALUES: &[KubeVirtVersion] = &[r(1, 0, 1), r(1, 1, 0)];

/// The VMI-spec defaults write the cluster's `evictionStrategy` (KubeVirt's default `None`)
/// into a spec that sets none ("virt-controller: always store evictionStrategy in Spec",
/// v1.0.1).
pub const EVICTION_STRATEGY_DEFAULT: &[KubeVirtVersion] = &[r(1, 0, 1), r(1, 1, 0)];

/// A revision the VM's status references is used only when it is of the object the matcher
/// names ("instancetype: Only return revision of currently referenced object", v1.5.2;
/// mainline v1.6.0).
pub const STATUS_REVISION_OF_REFERENCED_OBJECT: &[KubeVirtVersion] = &[r(1, 5, 2), r(1, 6, 0)];

/// Memory hotplug (`maxGuest`) is refused on arm64 as well as other non-amd64 architectures
/// ("liveupdate: Align ValidateLiveUpdateMemory with webhooks", v1.5.3 and v1.6.1; mainline
/// v1.7.0).
pub const MEMORY_HOTPLUG_AMD64_ONLY: &[KubeVirtVersion] = &[r(1, 5, 3), r(1, 6, 1), r(1, 7, 0)];

/// The VM mutator generates `firmware.serial` on create ("vm-mutator: ensure default
/// Firmware.Serial value on newly created vms", v1.5.3 and v1.6.1; mainline v1.7.0).
pub const FIRMWARE_SERIAL: &[KubeVirtVersion] = &[r(1, 5, 3), r(1, 6, 1), r(1, 7, 0)];

/// The VM mutator reads the architecture from a golden image's DataSource label
/// ("defaults: Find arch from DataSource backed DataVolumeTemplates" and "defaults: Add simple
/// validation of DataSource provided Architecture", v1.6.4; mainline v1.7.0).
pub const ARCHITECTURE_FROM_DATA_SOURCE: &[KubeVirtVersion] = &[r(1, 6, 4), r(1, 7, 0)];

/// The VM mutator adds `kubevirt.io/pci-topology-version: v3` to the template on create ("Set
/// PCI topology v3 annotation in VM mutating webhook", v1.6.4 and v1.7.2; mainline v1.8.0).
pub const PCI_TOPOLOGY_ANNOTATION: &[KubeVirtVersion] = &[r(1, 6, 4), r(1, 7, 2), r(1, 8, 0)];

/// ... only for amd64 and arm64 ("s390x: Skip v3 PCI topology changes for s390x architecture",
/// v1.6.5, v1.7.3, v1.8.2; mainline v1.9.0).
pub const PCI_TOPOLOGY_BY_ARCHITECTURE: &[KubeVirtVersion] =
    &[r(1, 6, 5), r(1, 7, 3), r(1, 8, 2), r(1, 9, 0)];

/// ... and only for q35 and virt machine types ("Gate PCI topology on machine type, not just
/// architecture", v1.6.6, v1.7.4, v1.8.3; mainline v1.9.0).
pub const PCI_TOPOLOGY_BY_MACHINE_TYPE: &[KubeVirtVersion] =
    &[r(1, 6, 6), r(1, 7, 4), r(1, 8, 3), r(1, 9, 0)];

/// The VMI-spec defaults no longer set `resources.requests.memory` (the pod's memory request
/// moved to virt-controller: "memory overcommit: handle at the pod creation level instead of as
/// a VMI creation default" and "virt-controller: move remaining memory request code to resource
/// renderer", v1.6.4; mainline v1.7.0).
pub const NO_MEMORY_REQUEST_DEFAULT: &[KubeVirtVersion] = &[r(1, 6, 4), r(1, 7, 0)];

/// v1.6.2 alone defaulted the memory request to the guest memory without the cluster's
/// `memoryOvercommit` (the first backport of the overcommit change, reverted in v1.6.3).
pub const MEMORY_REQUEST_WITHOUT_OVERCOMMIT: KubeVirtVersion = r(1, 6, 2);

/// The hugepages check also compares the page size with `resources.limits.memory` when neither
/// a memory request nor guest memory is set ("vmi-admitter: fail if memory limits < hugepages
/// size", v1.6.4; mainline v1.7.0).
pub const HUGEPAGES_CHECKED_AGAINST_LIMITS: &[KubeVirtVersion] = &[r(1, 6, 4), r(1, 7, 0)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_ends_with_its_mainline_release_and_is_ordered() {
        for list in [
            STORAGE_CLASS_ON_STORAGE_SPEC,
            GLOBAL_MACHINE_TYPE,
            REQUIREMENTS_AFTER_DEFAULTS,
            FIRMWARE_PREFERENCES_KEEP_VM_VALUES,
            EVICTION_STRATEGY_DEFAULT,
            STATUS_REVISION_OF_REFERENCED_OBJECT,
            MEMORY_HOTPLUG_AMD64_ONLY,
            FIRMWARE_SERIAL,
            ARCHITECTURE_FROM_DATA_SOURCE,
            PCI_TOPOLOGY_ANNOTATION,
            PCI_TOPOLOGY_BY_ARCHITECTURE,
            PCI_TOPOLOGY_BY_MACHINE_TYPE,
            NO_MEMORY_REQUEST_DEFAULT,
            HUGEPAGES_CHECKED_AGAINST_LIMITS,
        ] {
            assert!(list.windows(2).all(|w| w[0].minor < w[1].minor));
            assert_eq!(list.last().map(|v| v.patch), Some(0));
        }
    }

    #[test]
    fn the_pci_topology_annotation_follows_each_minor_line() {
        let added = |minor, patch| {
            KubeVirtVersion::release(1, minor, patch).has_change(PCI_TOPOLOGY_ANNOTATION)
        };
        assert!(!added(6, 3) && added(6, 4));
        assert!(!added(7, 0) && !added(7, 1) && added(7, 2));
        assert!(added(8, 0) && added(9, 0));
        assert!(!added(5, 3));
    }
}
