use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// `VirtualMachinePreferenceSpec` (both preference kinds).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PreferenceSpec {
    pub clock: Option<ClockPreferences>,
    pub cpu: Option<CpuPreferences>,
    pub devices: Option<DevicePreferences>,
    pub features: Option<FeaturePreferences>,
    pub firmware: Option<FirmwarePreferences>,
    pub machine: Option<MachinePreferences>,
    pub volumes: Option<VolumePreferences>,
    pub preferred_subdomain: Option<String>,
    pub preferred_termination_grace_period_seconds: Option<i64>,
    pub requirements: Option<Requirements>,
    pub annotations: Option<IndexMap<String, String>>,
    #[serde(default)]
    pub prefer_spread_socket_to_core_ratio: u32,
    pub preferred_architecture: Option<String>,
    pub preferred_launch_security: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClockPreferences {
    pub preferred_clock_offset: Option<Value>,
    pub preferred_timer: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CpuPreferences {
    #[serde(rename = "preferredCPUTopology")]
    pub preferred_cpu_topology: Option<String>,
    pub spread_options: Option<SpreadOptions>,
    #[serde(rename = "preferredCPUFeatures", default)]
    pub preferred_cpu_features: Vec<Value>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SpreadOptions {
    pub across: Option<String>,
    pub ratio: Option<u32>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DevicePreferences {
    pub preferred_autoattach_graphics_device: Option<bool>,
    pub preferred_autoattach_mem_balloon: Option<bool>,
    pub preferred_autoattach_pod_interface: Option<bool>,
    pub preferred_autoattach_serial_console: Option<bool>,
    pub preferred_autoattach_input_device: Option<bool>,
    pub preferred_disable_hotplug: Option<bool>,
    #[serde(rename = "preferredVirtualGPUOptions")]
    pub preferred_virtual_gpu_options: Option<Value>,
    #[serde(default)]
    pub preferred_sound_model: String,
    pub preferred_use_virtio_transitional: Option<bool>,
    #[serde(default)]
    pub preferred_input_bus: String,
    #[serde(default)]
    pub preferred_input_type: String,
    #[serde(default)]
    pub preferred_disk_bus: String,
    #[serde(default)]
    pub preferred_lun_bus: String,
    #[serde(default)]
    pub preferred_cdrom_bus: String,
    pub preferred_disk_dedicated_io_thread: Option<bool>,
    #[serde(default)]
    pub preferred_disk_cache: String,
    #[serde(rename = "preferredDiskIO", default)]
    pub preferred_disk_io: String,
    pub preferred_disk_block_size: Option<Value>,
    #[serde(default)]
    pub preferred_interface_model: String,
    pub preferred_rng: Option<Value>,
    pub preferred_block_multi_queue: Option<bool>,
    pub preferred_network_interface_multi_queue: Option<bool>,
    #[serde(rename = "preferredTPM")]
    pub preferred_tpm: Option<Value>,
    pub preferred_interface_masquerade: Option<Value>,
    pub preferred_panic_device_model: Option<String>,
    pub preferred_video_type: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FeaturePreferences {
    pub preferred_acpi: Option<Value>,
    pub preferred_apic: Option<Value>,
    pub preferred_hyperv: Option<serde_json::Map<String, Value>>,
    pub preferred_kvm: Option<Value>,
    pub preferred_pvspinlock: Option<Value>,
    pub preferred_smm: Option<Value>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FirmwarePreferences {
    pub preferred_use_bios: Option<bool>,
    pub preferred_use_bios_serial: Option<bool>,
    pub preferred_efi: Option<Value>,
    pub preferred_use_efi: Option<bool>,
    pub preferred_use_secure_boot: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MachinePreferences {
    #[serde(default)]
    pub preferred_machine_type: String,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct VolumePreferences {
    #[serde(default)]
    pub preferred_storage_class_name: String,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Requirements {
    pub cpu: Option<CpuRequirement>,
    pub memory: Option<MemoryRequirement>,
    pub architecture: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct CpuRequirement {
    #[serde(default)]
    pub guest: u32,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct MemoryRequirement {
    #[serde(default)]
    pub guest: Value,
}

/// `preferredCPUTopology`, matched exactly and case-sensitively.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    Sockets,
    Cores,
    Threads,
    Spread,
    Any,
    /// Any other string: KubeVirt lays vCPUs out as 1/1/1 and skips requirement checks.
    Unknown,
}

/// The spellings of `preferredCPUTopology` a release's API defines
/// (`staging/src/kubevirt.io/api/instancetype/v1beta1/types.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyNames {
    /// `preferSockets`, `preferCores`, `preferThreads` only: v1.0, before `preferSpread` and
    /// `preferAny` came with v1.1.
    PreferWithoutSpreadOrAny,
    /// `preferSockets`, `preferCores`, `preferThreads`, `preferSpread`, `preferAny` only: v1.1
    /// to v1.3, where `cores` and the other short names are unknown values.
    PreferOnly,
    /// The short names `sockets`, `cores`, `threads`, `spread`, `any` as well (since v1.4,
    /// which deprecates the `prefer*` ones).
    ShortAndPrefer,
}

impl Topology {
    pub fn parse(value: Option<&str>, names: TopologyNames) -> Self {
        let short = names == TopologyNames::ShortAndPrefer;
        let spread_or_any = names != TopologyNames::PreferWithoutSpreadOrAny;
        match value {
            None | Some("preferSockets") => Self::Sockets,
            Some("preferCores") => Self::Cores,
            Some("preferThreads") => Self::Threads,
            Some("preferSpread") if spread_or_any => Self::Spread,
            Some("preferAny") if spread_or_any => Self::Any,
            Some("sockets") if short => Self::Sockets,
            Some("cores") if short => Self::Cores,
            Some("threads") if short => Self::Threads,
            Some("spread") if short => Self::Spread,
            Some("any") if short => Self::Any,
            Some(_) => Self::Unknown,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadAcross {
    SocketsCores,
    CoresThreads,
    SocketsCoresThreads,
    Unknown,
}

impl PreferenceSpec {
    /// The topology the preference asks for (`sockets` when unset), among the spellings the
    /// release defines (`KubeVirtVersion::topology_names`).
    pub fn topology(&self, names: TopologyNames) -> Topology {
        Topology::parse(
            self.cpu
                .as_ref()
                .and_then(|c| c.preferred_cpu_topology.as_deref()),
            names,
        )
    }

    /// Spread ratio: `spreadOptions.ratio`, else [`Self::socket_to_core_ratio`].
    pub fn spread_ratio(&self) -> u32 {
        self.cpu
            .as_ref()
            .and_then(|c| c.spread_options.as_ref())
            .and_then(|o| o.ratio)
            .unwrap_or_else(|| self.socket_to_core_ratio())
    }

    /// `preferSpreadSocketToCoreRatio` if non-zero, else 2: the whole spread ratio up to v1.2,
    /// before `spreadOptions`.
    pub fn socket_to_core_ratio(&self) -> u32 {
        if self.prefer_spread_socket_to_core_ratio != 0 {
            return self.prefer_spread_socket_to_core_ratio;
        }
        2
    }

    /// Spread layout: `spreadOptions.across`, else `SocketsCores`.
    pub fn spread_across(&self) -> SpreadAcross {
        match self
            .cpu
            .as_ref()
            .and_then(|c| c.spread_options.as_ref())
            .and_then(|o| o.across.as_deref())
        {
            None | Some("SocketsCores") => SpreadAcross::SocketsCores,
            Some("CoresThreads") => SpreadAcross::CoresThreads,
            Some("SocketsCoresThreads") => SpreadAcross::SocketsCoresThreads,
            Some(_) => SpreadAcross::Unknown,
        }
    }
}
