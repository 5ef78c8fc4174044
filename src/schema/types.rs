//! Typed `instancetype.kubevirt.io/v1beta1` objects and the VM matchers, as the CRDs declare them.
//!
//! The types mirror KubeVirt's Go types field for field, with the JSON names of the CRDs. Their
//! `JsonSchema` implementations produce the OpenAPI schema KubeVirt generates for the CRDs
//! (`pkg/virt-operator/resource/generate/components/validations_generated.go`), with two
//! deliberate additions:
//!
//! * every object schema has `additionalProperties: false`, because the API server prunes
//!   unknown fields of these kinds without an error (no `x-kubernetes-preserve-unknown-fields`);
//! * nothing is nullable: the API server drops `null` values of object fields before it
//!   validates, so `null` never reaches the schema (the checker removes them the same way).
//!
//! What the CRD does *not* constrain is not constrained here either: strings that KubeVirt treats
//! as enumerations (`preferredDiskBus`, `preferredCPUTopology`, `ioThreadsPolicy`, ...) are plain
//! strings, and `uint32` fields are `integer` with `format: int32` and no minimum, exactly as in
//! the CRD. KubeVirt's webhooks check those later (the `admission` module).
//!
//! Besides the two spec types, the module has the parts of the VirtualMachine(Instance) domain
//! (`kubevirt.io/v1`) that instance types and preferences embed or fill in:
//!
//! | `kubevirt.io/v1` type | used by | VMI target |
//! |---|---|---|
//! | [`Numa`], [`NumaGuestMappingPassthrough`], [`Realtime`] | instance type `cpu` | `domain.cpu.numa`, `domain.cpu.realtime` |
//! | [`Hugepages`] | instance type `memory` | `domain.memory.hugepages` |
//! | [`Gpu`], [`VgpuOptions`], [`VgpuDisplayOptions`] | instance type `gpus`, preference `preferredVirtualGPUOptions` | `domain.devices.gpus` |
//! | [`HostDevice`] | instance type `hostDevices` | `domain.devices.hostDevices` |
//! | [`DiskIoThreads`] | instance type `ioThreads` | `domain.ioThreads` |
//! | [`LaunchSecurity`], [`Sev`], [`SevPolicy`], [`SevAttestation`], [`SevSnp`], [`Tdx`] | instance type `launchSecurity`, preference `preferredLaunchSecurity` | `domain.launchSecurity` |
//! | [`CpuFeature`] | preference `cpu.preferredCPUFeatures` | `domain.cpu.features` |
//! | [`BlockSize`], [`CustomBlockSize`] | preference `devices.preferredDiskBlockSize` | `disks[*].blockSize` |
//! | [`Rng`], [`TpmDevice`], [`InterfaceMasquerade`] | preference `devices` | `domain.devices.rng`, `domain.devices.tpm`, `interfaces[*].masquerade` |
//! | [`FeatureState`], [`FeatureApic`], [`FeatureHyperv`], [`FeatureKvm`], [`FeatureSpinlocks`], [`FeatureVendorId`], [`SynicTimer`], [`TlbFlush`] | preference `features` | `domain.features` |
//! | [`Efi`] | preference `firmware.preferredEfi` | `domain.firmware.bootloader.efi` |
//! | [`ClockOffset`], [`ClockOffsetUtc`], [`Timer`], [`HpetTimer`], [`KvmTimer`], [`PitTimer`], [`RtcTimer`], [`HypervTimer`] | preference `clock` | `domain.clock` |
//! | [`InstancetypeMatcher`], [`PreferenceMatcher`] | VirtualMachine `spec.instancetype`, `spec.preference` | — |
//!
//! Plain strings and booleans of the domain that preferences fill in (`machine.type`,
//! `subdomain`, `terminationGracePeriodSeconds`, disk buses, input bus and type, ...) have no type
//! of their own.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// The pattern the CRDs put on every `resource.Quantity` field.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// A Kubernetes `resource.Quantity`: an integer or a string such as `2Gi`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Quantity {
    Integer(i64),
    String(String),
}

impl Default for Quantity {
    fn default() -> Self {
        Self::String("0".to_owned())
    }
}

impl JsonSchema for Quantity {
    fn schema_name() -> Cow<'static, str> {
        "Quantity".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [{ "type": "integer" }, { "type": "string" }],
            "pattern": QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": true,
        })
    }
}

/// Schema of a Go `int32`/`uint32` field in KubeVirt's CRDs (no range).
struct Int32;

impl JsonSchema for Int32 {
    fn schema_name() -> Cow<'static, str> {
        "int32".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "format": "int32" })
    }
}

/// Schema of a Go `int`/`uint` field in KubeVirt's CRDs: an integer without format.
struct Integer;

impl JsonSchema for Integer {
    fn schema_name() -> Cow<'static, str> {
        "integer".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer" })
    }
}

/// Schema of `metadata`: the CRDs declare it as a bare object (ObjectMeta is checked by the API
/// server itself).
struct ObjectMeta;

impl JsonSchema for ObjectMeta {
    fn schema_name() -> Cow<'static, str> {
        "ObjectMeta".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "object" })
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero_u32(value: &u32) -> bool {
    *value == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero_i64(value: &i64) -> bool {
    *value == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero_u64(value: &u64) -> bool {
    *value == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(value: &bool) -> bool {
    !*value
}

// ---------------------------------------------------------------------------------------------
// Objects

macro_rules! object_kind {
    ($(#[$doc:meta])* $name:ident, $spec:ty) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The versioned schema of this representation of the object.
            #[serde(rename = "apiVersion", default, skip_serializing_if = "Option::is_none")]
            pub api_version: Option<String>,
            /// The kind of the object.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub kind: Option<String>,
            /// Standard object metadata.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(with = "Option<ObjectMeta>")]
            pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
            /// The required spec.
            pub spec: $spec,
        }
    };
}

object_kind!(
    /// A namespaced instance type: the resources (vCPUs, memory, devices) of the VMs that use it.
    VirtualMachineInstancetype,
    VirtualMachineInstancetypeSpec
);

object_kind!(
    /// A cluster-wide instance type: the resources (vCPUs, memory, devices) of the VMs that use it.
    VirtualMachineClusterInstancetype,
    VirtualMachineInstancetypeSpec
);

object_kind!(
    /// A namespaced preference: optional defaults and requirements for the VMs that use it.
    VirtualMachinePreference,
    VirtualMachinePreferenceSpec
);

object_kind!(
    /// A cluster-wide preference: optional defaults and requirements for the VMs that use it.
    VirtualMachineClusterPreference,
    VirtualMachinePreferenceSpec
);

// ---------------------------------------------------------------------------------------------
// VirtualMachineInstancetypeSpec

/// The spec of both instance-type kinds. `cpu.guest` and `memory.guest` are required, so every
/// instance type provides a vCPU count and an amount of memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VirtualMachineInstancetypeSpec {
    /// Node labels the VMI's node must carry; imposed on the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<BTreeMap<String, String>>,
    /// The scheduler that places the VMI; imposed on the VMI.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scheduler_name: String,
    /// Required CPU attributes.
    pub cpu: CpuInstancetype,
    /// Required memory attributes.
    pub memory: MemoryInstancetype,
    /// GPUs given to the VMI (the whole list is imposed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub gpus: Vec<Gpu>,
    /// Host devices given to the VMI (the whole list is imposed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub host_devices: Vec<HostDevice>,
    /// IO threads policy of the VMI: `shared`, `auto` or `supplementalPool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_threads_policy: Option<String>,
    /// IO threads options of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_threads: Option<DiskIoThreads>,
    /// Launch security of the VMI. Deprecated: set `preferredLaunchSecurity` in a preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_security: Option<LaunchSecurity>,
    /// Annotations imposed on the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
}

/// CPU attributes of an instance type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CpuInstancetype {
    /// Required number of vCPUs; the preference's `preferredCPUTopology` lays them out.
    #[schemars(with = "Int32")]
    pub guest: u32,
    /// CPU model of the VMI (`host-passthrough`, `host-model` or a libvirt model name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Pin the vCPUs to dedicated host CPUs.
    #[serde(
        rename = "dedicatedCPUPlacement",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dedicated_cpu_placement: Option<bool>,
    /// Guest NUMA topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa: Option<Numa>,
    /// Give the emulator thread a dedicated host CPU too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolate_emulator_thread: Option<bool>,
    /// Tune the VMI for low latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub realtime: Option<Realtime>,
    /// Maximum number of sockets that CPU hotplug can reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Int32>")]
    pub max_sockets: Option<u32>,
}

/// Memory attributes of an instance type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MemoryInstancetype {
    /// Required amount of memory visible to the guest.
    pub guest: Quantity,
    /// Back the guest memory with hugepages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hugepages: Option<Hugepages>,
    /// Percentage of the guest memory the launcher pod does not request (0 to 100).
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    #[schemars(with = "Integer", range(min = 0, max = 100))]
    pub overcommit_percent: i64,
    /// Maximum guest memory that memory hotplug can reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_guest: Option<Quantity>,
}

// ---------------------------------------------------------------------------------------------
// VirtualMachinePreferenceSpec

/// The spec of both preference kinds. Every field is optional; a preferred value is used where
/// the VM leaves the target empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VirtualMachinePreferenceSpec {
    /// Clock preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockPreferences>,
    /// CPU preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuPreferences>,
    /// Device preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub devices: Option<DevicePreferences>,
    /// Feature preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<FeaturePreferences>,
    /// Firmware preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware: Option<FirmwarePreferences>,
    /// Machine preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachinePreferences>,
    /// Volume preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volumes: Option<VolumePreferences>,
    /// Subdomain of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_subdomain: Option<String>,
    /// Grace period between asking the VMI to stop and killing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_termination_grace_period_seconds: Option<i64>,
    /// Minimum resources the instance type (or the VM) must provide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirements: Option<PreferenceRequirements>,
    /// Annotations added to the VMI where it does not have them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    /// Legacy ratio for spreading vCPUs over sockets and cores (0 means the default, 2).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    #[schemars(with = "Int32")]
    pub prefer_spread_socket_to_core_ratio: u32,
    /// Architecture of the VM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_architecture: Option<String>,
    /// Launch security of the VMI when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_launch_security: Option<LaunchSecurity>,
}

/// Volume preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VolumePreferences {
    /// Storage class of the VM's DataVolume templates that name none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_storage_class_name: String,
}

/// CPU preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CpuPreferences {
    /// Layout of the vCPUs: `sockets` (default), `cores`, `threads`, `spread` or `any`
    /// (or the deprecated `preferSockets`, `preferCores`, `preferThreads`, `preferSpread`,
    /// `preferAny`).
    #[serde(
        rename = "preferredCPUTopology",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub preferred_cpu_topology: Option<String>,
    /// How `spread` lays the vCPUs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_options: Option<SpreadOptions>,
    /// CPU features added to the VMI.
    #[serde(
        rename = "preferredCPUFeatures",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub preferred_cpu_features: Vec<CpuFeature>,
}

/// Options of the `spread` topology.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SpreadOptions {
    /// `SocketsCores` (default), `CoresThreads` or `SocketsCoresThreads`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub across: Option<String>,
    /// Ratio of the spread (default 2; only 2 with `CoresThreads`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Int32>")]
    pub ratio: Option<u32>,
}

/// Device preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DevicePreferences {
    /// `autoattachGraphicsDevice` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_autoattach_graphics_device: Option<bool>,
    /// `autoattachMemBalloon` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_autoattach_mem_balloon: Option<bool>,
    /// `autoattachPodInterface` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_autoattach_pod_interface: Option<bool>,
    /// `autoattachSerialConsole` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_autoattach_serial_console: Option<bool>,
    /// `autoattachInputDevice` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_autoattach_input_device: Option<bool>,
    /// `disableHotplug` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_disable_hotplug: Option<bool>,
    /// vGPU options (declared by KubeVirt, applied by no code path).
    #[serde(
        rename = "preferredVirtualGPUOptions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub preferred_virtual_gpu_options: Option<VgpuOptions>,
    /// Model of the sound device.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_sound_model: String,
    /// `useVirtioTransitional` of the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_use_virtio_transitional: Option<bool>,
    /// Bus of the input devices: `usb` or `virtio`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_input_bus: String,
    /// Type of the input devices: `tablet` or `keyboard`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_input_type: String,
    /// Bus of the disks: `virtio`, `sata`, `scsi` or `usb`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_disk_bus: String,
    /// Bus of the LUN disks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_lun_bus: String,
    /// Bus of the CD-ROM disks.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_cdrom_bus: String,
    /// Dedicated IO threads for the disks on the virtio bus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_disk_dedicated_io_thread: Option<bool>,
    /// Cache mode of the disks: `none`, `writethrough` or `writeback`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_disk_cache: String,
    /// IO mode of the disks: `native` or `threads`.
    #[serde(
        rename = "preferredDiskIO",
        default,
        skip_serializing_if = "String::is_empty"
    )]
    pub preferred_disk_io: String,
    /// Block size of the disks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_disk_block_size: Option<BlockSize>,
    /// Model of the network interfaces.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_interface_model: String,
    /// Random number generator device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_rng: Option<Rng>,
    /// vhost multiqueue for virtio disks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_block_multi_queue: Option<bool>,
    /// vhost multiqueue for virtio network interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_network_interface_multi_queue: Option<bool>,
    /// TPM device.
    #[serde(
        rename = "preferredTPM",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub preferred_tpm: Option<TpmDevice>,
    /// Masquerade binding for pod-network interfaces that have no binding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_interface_masquerade: Option<InterfaceMasquerade>,
    /// Model of the panic devices: `hyperv`, `isa` or `pvpanic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_panic_device_model: Option<String>,
    /// Type of the video device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_video_type: Option<String>,
}

/// Feature preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeaturePreferences {
    /// ACPI (always overwrites the VMI's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_acpi: Option<FeatureState>,
    /// APIC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_apic: Option<FeatureApic>,
    /// Hyper-V enlightenments, merged field by field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_hyperv: Option<FeatureHyperv>,
    /// KVM features.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_kvm: Option<FeatureKvm>,
    /// Paravirtual spinlocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_pvspinlock: Option<FeatureState>,
    /// System management mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_smm: Option<FeatureState>,
}

/// Firmware preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FirmwarePreferences {
    /// Boot with BIOS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_use_bios: Option<bool>,
    /// Send BIOS output to the serial console (needs `preferredUseBios`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_use_bios_serial: Option<bool>,
    /// Boot with EFI. Deprecated: use `preferredEfi`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_use_efi: Option<bool>,
    /// EFI secure boot (needs EFI and SMM). Deprecated: use `preferredEfi`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_use_secure_boot: Option<bool>,
    /// EFI firmware, as a whole object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_efi: Option<Efi>,
}

/// Machine preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MachinePreferences {
    /// Machine type of the VMI.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_machine_type: String,
}

/// Clock preferences.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClockPreferences {
    /// UTC offset or time zone of the guest clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_clock_offset: Option<ClockOffset>,
    /// Timers attached to the VMI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_timer: Option<Timer>,
}

/// Minimum resources that a preference requires; checked, never applied.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PreferenceRequirements {
    /// Minimum vCPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuPreferenceRequirement>,
    /// Minimum guest memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryPreferenceRequirement>,
    /// Architecture the VM must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub architecture: Option<String>,
}

/// Minimum vCPUs of a preference.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CpuPreferenceRequirement {
    /// Required minimum number of vCPUs.
    #[schemars(with = "Int32")]
    pub guest: u32,
}

/// Minimum memory of a preference.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MemoryPreferenceRequirement {
    /// Required minimum amount of guest memory.
    pub guest: Quantity,
}

// ---------------------------------------------------------------------------------------------
// kubevirt.io/v1 domain types

/// A GPU given to the VMI.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Gpu {
    /// Required name of the GPU in the VMI.
    pub name: String,
    /// Resource name of the device (device plugins).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device_name: String,
    /// Name of the pod resource claim (dynamic resource allocation).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub claim_name: String,
    /// Name of the request within the resource claim.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_name: String,
    /// vGPU options.
    #[serde(
        rename = "virtualGPUOptions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub virtual_gpu_options: Option<VgpuOptions>,
    /// Tag the guest sees for the device.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
}

/// A host device given to the VMI.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HostDevice {
    /// Required name of the device in the VMI.
    pub name: String,
    /// Resource name of the device (device plugins).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub device_name: String,
    /// Name of the pod resource claim (dynamic resource allocation).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub claim_name: String,
    /// Name of the request within the resource claim.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub request_name: String,
    /// Tag the guest sees for the device.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
}

/// vGPU options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VgpuOptions {
    /// Display options of the vGPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<VgpuDisplayOptions>,
}

/// Display options of a vGPU.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VgpuDisplayOptions {
    /// Whether a display adapter backed by the vGPU is attached (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Ramfb display (default enabled).
    #[serde(rename = "ramFB", default, skip_serializing_if = "Option::is_none")]
    pub ram_fb: Option<FeatureState>,
}

/// A CPU feature and its policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CpuFeature {
    /// Required name of the feature.
    pub name: String,
    /// `force`, `require` (default), `optional`, `disable` or `forbid`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub policy: String,
}

/// Guest NUMA topology.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Numa {
    /// Mirror the host NUMA nodes of the dedicated CPUs in the guest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guest_mapping_passthrough: Option<NumaGuestMappingPassthrough>,
}

/// The guest-mapping-passthrough NUMA mode (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NumaGuestMappingPassthrough {}

/// Real-time tuning.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Realtime {
    /// vCPUs that run real-time, in libvirt's syntax (`0-3,^1`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mask: String,
}

/// Hugepages backing of the guest memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Hugepages {
    /// Page size, `2Mi` or `1Gi`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub page_size: String,
}

/// IO threads options.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DiskIoThreads {
    /// Number of IO threads of the `supplementalPool` policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Int32>")]
    pub supplemental_pool_thread_count: Option<u32>,
}

/// Confidential-computing technology of the VMI.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LaunchSecurity {
    /// AMD Secure Encrypted Virtualization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sev: Option<Sev>,
    /// AMD SEV with Secure Nested Paging.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snp: Option<SevSnp>,
    /// Intel Trust Domain Extensions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tdx: Option<Tdx>,
}

/// AMD SEV settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Sev {
    /// Guest policy flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<SevPolicy>,
    /// Ask for remote attestation of the launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attestation: Option<SevAttestation>,
    /// Session blob for the launch (base64).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session: String,
    /// Guest owner's Diffie-Hellman certificate (base64).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dh_cert: String,
}

/// AMD SEV guest policy (debugging is always off).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SevPolicy {
    /// SEV-ES: encrypt the CPU register state too (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_state: Option<bool>,
}

/// AMD SEV remote attestation (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SevAttestation {}

/// AMD SEV-SNP (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SevSnp {}

/// Intel TDX (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tdx {}

/// A feature that is on or off.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeatureState {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// The APIC feature.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeatureApic {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Whether the guest may use the end-of-interrupt optimisation.
    #[serde(default, skip_serializing_if = "is_false")]
    pub end_of_interrupt: bool,
}

/// Hyper-V enlightenments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub struct FeatureHyperv {
    /// Relaxed timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relaxed: Option<FeatureState>,
    /// Virtual APIC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vapic: Option<FeatureState>,
    /// Spinlock retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spinlocks: Option<FeatureSpinlocks>,
    /// Virtual processor index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpindex: Option<FeatureState>,
    /// Processor time spent running guest code and on behalf of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<FeatureState>,
    /// Synthetic interrupt controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synic: Option<FeatureState>,
    /// Synthetic timers (needs `synic`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synictimer: Option<SynicTimer>,
    /// Hypervisor reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<FeatureState>,
    /// Vendor ID shown to the guest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendorid: Option<FeatureVendorId>,
    /// TSC and APIC frequency MSRs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequencies: Option<FeatureState>,
    /// Re-enlightenment notifications on migration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reenlightenment: Option<FeatureState>,
    /// Paravirtual TLB flush.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlbflush: Option<TlbFlush>,
    /// Paravirtual inter-processor interrupts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipi: Option<FeatureState>,
    /// Enlightened VMCS (nested virtualization).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evmcs: Option<FeatureState>,
}

/// Hyper-V spinlocks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeatureSpinlocks {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Number of retries before the guest notifies the hypervisor (at least 4096).
    #[serde(rename = "spinlocks", default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Int32>")]
    pub retries: Option<u32>,
}

/// Hyper-V vendor ID.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeatureVendorId {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// The vendor ID, up to 12 characters.
    #[serde(rename = "vendorid", default, skip_serializing_if = "String::is_empty")]
    pub vendor_id: String,
}

/// Hyper-V synthetic timers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SynicTimer {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Direct mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<FeatureState>,
}

/// Hyper-V TLB flush.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TlbFlush {
    /// Whether the feature is on (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Direct flush.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<FeatureState>,
    /// Extended flush.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended: Option<FeatureState>,
}

/// KVM features.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeatureKvm {
    /// Hide the KVM hypervisor from the guest.
    #[serde(default, skip_serializing_if = "is_false")]
    pub hidden: bool,
}

/// EFI firmware.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Efi {
    /// Secure boot (default true; needs SMM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure_boot: Option<bool>,
    /// Keep the EFI variables across restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
}

/// Virtual TPM device.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TpmDevice {
    /// Whether the TPM is attached (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Keep the TPM state across restarts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
}

/// Masquerade (NAT) binding of a network interface (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterfaceMasquerade {}

/// Random number generator device (no options).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rng {}

/// Block size of a disk: custom sizes or those of the volume.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BlockSize {
    /// Explicit sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomBlockSize>,
    /// Take the sizes from the volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_volume: Option<FeatureState>,
}

/// Explicit block sizes, in bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CustomBlockSize {
    /// Logical block size.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    #[schemars(with = "Integer")]
    pub logical: u64,
    /// Physical block size.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    #[schemars(with = "Integer")]
    pub physical: u64,
    /// Discard granularity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Integer>")]
    pub discard_granularity: Option<u64>,
}

/// Offset of the guest clock: UTC with an offset, or a time zone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClockOffset {
    /// UTC with an optional offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utc: Option<ClockOffsetUtc>,
    /// Time zone name, such as `Europe/Paris`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

/// UTC clock offset.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClockOffsetUtc {
    /// Seconds added to UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Integer>")]
    pub offset_seconds: Option<i64>,
}

/// Timers of the guest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub struct Timer {
    /// High Precision Event Timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hpet: Option<HpetTimer>,
    /// KVM paravirtual clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm: Option<KvmTimer>,
    /// Programmable Interval Timer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pit: Option<PitTimer>,
    /// Real Time Clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtc: Option<RtcTimer>,
    /// Hyper-V reference time counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hyperv: Option<HypervTimer>,
}

/// HPET timer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HpetTimer {
    /// `delay`, `catchup`, `merge` or `discard`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tick_policy: String,
    /// Whether the timer is attached (default true).
    #[serde(rename = "present", default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// KVM timer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KvmTimer {
    /// Whether the timer is attached (default true).
    #[serde(rename = "present", default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// PIT timer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PitTimer {
    /// `delay`, `catchup` or `discard`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tick_policy: String,
    /// Whether the timer is attached (default true).
    #[serde(rename = "present", default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// RTC timer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RtcTimer {
    /// `delay` or `catchup`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tick_policy: String,
    /// Whether the timer is attached (default true).
    #[serde(rename = "present", default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// What the RTC tracks: `guest` or `wall`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub track: String,
}

/// Hyper-V timer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HypervTimer {
    /// Whether the timer is attached (default true).
    #[serde(rename = "present", default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

// ---------------------------------------------------------------------------------------------
// VirtualMachine matchers

/// `spec.instancetype` of a VirtualMachine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstancetypeMatcher {
    /// Name of the instance type.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `VirtualMachineClusterInstancetype` (default) or `VirtualMachineInstancetype`, in any
    /// letter case, singular or plural.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// ControllerRevision holding the copy of the instance type the VM uses.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub revision_name: String,
    /// Volume whose labels name the instance type; resolved and removed at admission.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub infer_from_volume: String,
    /// `Reject` (default) or `Ignore`: what happens when inference fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infer_from_volume_failure_policy: Option<String>,
}

/// `spec.preference` of a VirtualMachine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PreferenceMatcher {
    /// Name of the preference.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `VirtualMachineClusterPreference` (default) or `VirtualMachinePreference`, in any letter
    /// case, singular or plural.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// ControllerRevision holding the copy of the preference the VM uses.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub revision_name: String,
    /// Volume whose labels name the preference; resolved and removed at admission.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub infer_from_volume: String,
    /// `Reject` (default) or `Ignore`: what happens when inference fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infer_from_volume_failure_policy: Option<String>,
}

/// The matcher fields of a VirtualMachine (other fields are allowed and not described).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VirtualMachineMatchers {
    /// The VirtualMachine spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<VirtualMachineMatchersSpec>,
}

/// The matcher fields of a VirtualMachine spec.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VirtualMachineMatchersSpec {
    /// The instance type of the VM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instancetype: Option<InstancetypeMatcher>,
    /// The preference of the VM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preference: Option<PreferenceMatcher>,
}
