//! `KubeVirt` types (`kubevirt.io/api/core/v1`, v1.9): the `VirtualMachine`, its spec, the
//! `VirtualMachineInstance` spec with the domain, volumes, networks and access credentials.

use super::cdi::DATA_VOLUME_SPEC;
use super::k8s::{
    AFFINITY, DOWNWARD_API_VOLUME_FILE, EXEC_ACTION, HTTP_GET_ACTION, LOCAL_OBJECT_REFERENCE,
    OBJECT_META, POD_DNS_CONFIG, PVC_VOLUME_SOURCE, TCP_SOCKET_ACTION, TOLERATION,
    TOPOLOGY_SPREAD_CONSTRAINT,
};
use super::{
    BOOL, CIDR, EMPTY, Field, INT, IP, PTR_BOOL, PTR_INT, PTR_QUANTITY, PTR_STR, QUANTITY, STR,
    STRINGS, Shape, opt, req,
};

// ----- VirtualMachine -----

/// `VirtualMachine` (`TypeMeta` inline, then metadata, spec, status).
pub(super) const VIRTUAL_MACHINE: &[Field] = &[
    opt("kind", STR),
    opt("apiVersion", STR),
    opt("metadata", Shape::Struct(OBJECT_META)),
    req("spec", Shape::Struct(VIRTUAL_MACHINE_SPEC)),
    opt("status", Shape::OpaqueStruct),
];

const VIRTUAL_MACHINE_SPEC: &[Field] = &[
    opt("running", PTR_BOOL),
    opt("runStrategy", PTR_STR),
    opt("instancetype", Shape::PtrStruct(MATCHER)),
    opt("preference", Shape::PtrStruct(MATCHER)),
    // A pointer without omitempty: `template: null` when absent.
    req("template", Shape::PtrStruct(VMI_TEMPLATE_SPEC)),
    opt(
        "dataVolumeTemplates",
        Shape::Slice(&Shape::Struct(DATA_VOLUME_TEMPLATE_SPEC)),
    ),
    opt("updateVolumesStrategy", PTR_STR),
];

/// `InstancetypeMatcher` and `PreferenceMatcher` (same fields).
const MATCHER: &[Field] = &[
    opt("name", STR),
    opt("kind", STR),
    opt("revisionName", STR),
    opt("inferFromVolume", STR),
    opt("inferFromVolumeFailurePolicy", PTR_STR),
];

const VMI_TEMPLATE_SPEC: &[Field] = &[
    opt("metadata", Shape::Struct(OBJECT_META)),
    opt("spec", Shape::Struct(VMI_SPEC)),
];

const DATA_VOLUME_TEMPLATE_SPEC: &[Field] = &[
    opt("kind", STR),
    opt("apiVersion", STR),
    opt("metadata", Shape::Struct(OBJECT_META)),
    req("spec", Shape::Struct(DATA_VOLUME_SPEC)),
    opt("status", Shape::PtrStruct(EMPTY)),
];

// ----- VirtualMachineInstanceSpec -----

/// `VirtualMachineInstanceSpec`.
pub(super) const VMI_SPEC: &[Field] = &[
    opt("priorityClassName", STR),
    req("domain", Shape::Struct(DOMAIN_SPEC)),
    opt("nodeSelector", Shape::StringMap),
    opt("affinity", Shape::PtrStruct(AFFINITY)),
    opt("schedulerName", STR),
    opt("serviceAccountName", STR),
    opt("tolerations", Shape::Slice(&Shape::Struct(TOLERATION))),
    opt(
        "topologySpreadConstraints",
        Shape::Slice(&Shape::Struct(TOPOLOGY_SPREAD_CONSTRAINT)),
    ),
    opt("evictionStrategy", PTR_STR),
    opt("startStrategy", PTR_STR),
    opt("terminationGracePeriodSeconds", PTR_INT),
    opt("volumes", Shape::Slice(&Shape::Struct(VOLUME))),
    opt("livenessProbe", Shape::PtrStruct(PROBE)),
    opt("readinessProbe", Shape::PtrStruct(PROBE)),
    opt("hostname", STR),
    opt("subdomain", STR),
    opt("networks", Shape::Slice(&Shape::Struct(NETWORK))),
    opt("dnsPolicy", STR),
    opt("dnsConfig", Shape::PtrStruct(POD_DNS_CONFIG)),
    opt(
        "accessCredentials",
        Shape::Slice(&Shape::Struct(ACCESS_CREDENTIAL)),
    ),
    opt("architecture", STR),
    opt(
        "resourceClaims",
        Shape::Slice(&Shape::Struct(RESOURCE_CLAIM)),
    ),
    opt(
        "utilityVolumes",
        Shape::Slice(&Shape::Struct(UTILITY_VOLUME)),
    ),
];

const RESOURCE_CLAIM: &[Field] = &[
    req("name", STR),
    opt("resourceClaimName", PTR_STR),
    opt("resourceClaimTemplateName", PTR_STR),
];

/// `UtilityVolume`: name, `corev1.PersistentVolumeClaimVolumeSource` inline, type.
const UTILITY_VOLUME: &[Field] = &[
    req("name", STR),
    req("claimName", STR),
    opt("readOnly", BOOL),
    opt("type", PTR_STR),
];

/// `Probe`: `Handler` inline, then the timings.
const PROBE: &[Field] = &[
    opt("exec", Shape::PtrStruct(EXEC_ACTION)),
    opt("guestAgentPing", Shape::PtrStruct(EMPTY)),
    opt("httpGet", Shape::PtrStruct(HTTP_GET_ACTION)),
    opt("tcpSocket", Shape::PtrStruct(TCP_SOCKET_ACTION)),
    opt("initialDelaySeconds", INT),
    opt("timeoutSeconds", INT),
    opt("periodSeconds", INT),
    opt("successThreshold", INT),
    opt("failureThreshold", INT),
];

// ----- DomainSpec -----

const DOMAIN_SPEC: &[Field] = &[
    opt("resources", Shape::Struct(RESOURCE_REQUIREMENTS)),
    opt("cpu", Shape::PtrStruct(CPU)),
    opt("memory", Shape::PtrStruct(MEMORY)),
    opt("machine", Shape::PtrStruct(MACHINE)),
    opt("firmware", Shape::PtrStruct(FIRMWARE)),
    opt("clock", Shape::PtrStruct(CLOCK)),
    opt("features", Shape::PtrStruct(FEATURES)),
    req("devices", Shape::Struct(DEVICES)),
    opt("ioThreadsPolicy", PTR_STR),
    opt("ioThreads", Shape::PtrStruct(DISK_IO_THREADS)),
    opt("chassis", Shape::PtrStruct(CHASSIS)),
    opt("launchSecurity", Shape::PtrStruct(LAUNCH_SECURITY)),
    opt("rebootPolicy", PTR_STR),
];

/// The `ResourceRequirements` of `KubeVirt` (not the Kubernetes one).
const RESOURCE_REQUIREMENTS: &[Field] = &[
    opt("requests", Shape::QuantityMap),
    opt("limits", Shape::QuantityMap),
    opt("overcommitGuestOverhead", BOOL),
];

const CPU: &[Field] = &[
    opt("cores", INT),
    opt("sockets", INT),
    opt("maxSockets", INT),
    opt("threads", INT),
    opt("model", STR),
    opt("features", Shape::Slice(&Shape::Struct(CPU_FEATURE))),
    opt("dedicatedCpuPlacement", BOOL),
    opt("numa", Shape::PtrStruct(NUMA)),
    opt("isolateEmulatorThread", BOOL),
    opt("realtime", Shape::PtrStruct(REALTIME)),
];

const CPU_FEATURE: &[Field] = &[req("name", STR), opt("policy", STR)];

const NUMA: &[Field] = &[opt("guestMappingPassthrough", Shape::PtrStruct(EMPTY))];

const REALTIME: &[Field] = &[opt("mask", STR)];

const MEMORY: &[Field] = &[
    opt("hugepages", Shape::PtrStruct(HUGEPAGES)),
    opt("guest", PTR_QUANTITY),
    opt("maxGuest", PTR_QUANTITY),
    opt("reservedOverhead", Shape::PtrStruct(RESERVED_OVERHEAD)),
];

const HUGEPAGES: &[Field] = &[opt("pageSize", STR)];

const RESERVED_OVERHEAD: &[Field] = &[opt("addedOverhead", PTR_QUANTITY), opt("memLock", PTR_STR)];

/// `Machine`: `type` has no omitempty.
const MACHINE: &[Field] = &[req("type", STR)];

const FIRMWARE: &[Field] = &[
    opt("uuid", STR),
    opt("bootloader", Shape::PtrStruct(BOOTLOADER)),
    opt("serial", STR),
    opt("kernelBoot", Shape::PtrStruct(KERNEL_BOOT)),
    opt("acpi", Shape::PtrStruct(ACPI)),
];

const BOOTLOADER: &[Field] = &[
    opt("bios", Shape::PtrStruct(BIOS)),
    opt("efi", Shape::PtrStruct(EFI)),
];

const BIOS: &[Field] = &[opt("useSerial", PTR_BOOL)];

const EFI: &[Field] = &[opt("secureBoot", PTR_BOOL), opt("persistent", PTR_BOOL)];

const KERNEL_BOOT: &[Field] = &[
    opt("kernelArgs", STR),
    opt("container", Shape::PtrStruct(KERNEL_BOOT_CONTAINER)),
];

const KERNEL_BOOT_CONTAINER: &[Field] = &[
    req("image", STR),
    opt("imagePullSecret", STR),
    opt("imagePullPolicy", STR),
    opt("kernelPath", STR),
    opt("initrdPath", STR),
];

const ACPI: &[Field] = &[opt("slicNameRef", STR), opt("msdmNameRef", STR)];

/// `Clock`: `ClockOffset` inline (utc, timezone), then the timers.
const CLOCK: &[Field] = &[
    opt("utc", Shape::PtrStruct(CLOCK_OFFSET_UTC)),
    opt("timezone", PTR_STR),
    opt("timer", Shape::PtrStruct(TIMER)),
];

const CLOCK_OFFSET_UTC: &[Field] = &[opt("offsetSeconds", PTR_INT)];

const TIMER: &[Field] = &[
    opt("hpet", Shape::PtrStruct(TICK_POLICY_TIMER)),
    opt("kvm", Shape::PtrStruct(PRESENT_TIMER)),
    opt("pit", Shape::PtrStruct(TICK_POLICY_TIMER)),
    opt("rtc", Shape::PtrStruct(RTC_TIMER)),
    opt("hyperv", Shape::PtrStruct(PRESENT_TIMER)),
];

/// `HPETTimer` and `PITTimer`.
const TICK_POLICY_TIMER: &[Field] = &[opt("tickPolicy", STR), opt("present", PTR_BOOL)];

/// `KVMTimer` and `HypervTimer`.
const PRESENT_TIMER: &[Field] = &[opt("present", PTR_BOOL)];

const RTC_TIMER: &[Field] = &[
    opt("tickPolicy", STR),
    opt("present", PTR_BOOL),
    opt("track", STR),
];

/// `Features`: `acpi` is a non-pointer `FeatureState`, printed as `{}` when absent.
const FEATURES: &[Field] = &[
    opt("acpi", Shape::Struct(FEATURE_STATE)),
    opt("apic", Shape::PtrStruct(FEATURE_APIC)),
    opt("hypervPassthrough", Shape::PtrStruct(FEATURE_STATE)),
    opt("hyperv", Shape::PtrStruct(FEATURE_HYPERV)),
    opt("smm", Shape::PtrStruct(FEATURE_STATE)),
    opt("kvm", Shape::PtrStruct(FEATURE_KVM)),
    opt("pvspinlock", Shape::PtrStruct(FEATURE_STATE)),
];

/// `FeatureState`, and `HyperVPassthrough` (same single field).
const FEATURE_STATE: &[Field] = &[opt("enabled", PTR_BOOL)];

const FEATURE_APIC: &[Field] = &[opt("enabled", PTR_BOOL), opt("endOfInterrupt", BOOL)];

const FEATURE_HYPERV: &[Field] = &[
    opt("relaxed", Shape::PtrStruct(FEATURE_STATE)),
    opt("vapic", Shape::PtrStruct(FEATURE_STATE)),
    opt("spinlocks", Shape::PtrStruct(FEATURE_SPINLOCKS)),
    opt("vpindex", Shape::PtrStruct(FEATURE_STATE)),
    opt("runtime", Shape::PtrStruct(FEATURE_STATE)),
    opt("synic", Shape::PtrStruct(FEATURE_STATE)),
    opt("synictimer", Shape::PtrStruct(SYNIC_TIMER)),
    opt("reset", Shape::PtrStruct(FEATURE_STATE)),
    opt("vendorid", Shape::PtrStruct(FEATURE_VENDOR_ID)),
    opt("frequencies", Shape::PtrStruct(FEATURE_STATE)),
    opt("reenlightenment", Shape::PtrStruct(FEATURE_STATE)),
    opt("tlbflush", Shape::PtrStruct(TLB_FLUSH)),
    opt("ipi", Shape::PtrStruct(FEATURE_STATE)),
    opt("evmcs", Shape::PtrStruct(FEATURE_STATE)),
];

const FEATURE_SPINLOCKS: &[Field] = &[opt("enabled", PTR_BOOL), opt("spinlocks", PTR_INT)];

const SYNIC_TIMER: &[Field] = &[
    opt("enabled", PTR_BOOL),
    opt("direct", Shape::PtrStruct(FEATURE_STATE)),
];

const FEATURE_VENDOR_ID: &[Field] = &[opt("enabled", PTR_BOOL), opt("vendorid", STR)];

const TLB_FLUSH: &[Field] = &[
    opt("enabled", PTR_BOOL),
    opt("direct", Shape::PtrStruct(FEATURE_STATE)),
    opt("extended", Shape::PtrStruct(FEATURE_STATE)),
];

const FEATURE_KVM: &[Field] = &[opt("hidden", BOOL)];

const DISK_IO_THREADS: &[Field] = &[opt("supplementalPoolThreadCount", PTR_INT)];

const CHASSIS: &[Field] = &[
    opt("manufacturer", STR),
    opt("version", STR),
    opt("serial", STR),
    opt("asset", STR),
    opt("sku", STR),
];

const LAUNCH_SECURITY: &[Field] = &[
    opt("sev", Shape::PtrStruct(SEV)),
    opt("snp", Shape::PtrStruct(EMPTY)),
    opt("tdx", Shape::PtrStruct(EMPTY)),
];

const SEV: &[Field] = &[
    opt("policy", Shape::PtrStruct(SEV_POLICY)),
    opt("attestation", Shape::PtrStruct(EMPTY)),
    opt("session", STR),
    opt("dhCert", STR),
];

const SEV_POLICY: &[Field] = &[opt("encryptedState", PTR_BOOL)];

// ----- Devices -----

const DEVICES: &[Field] = &[
    opt("useVirtioTransitional", PTR_BOOL),
    opt("disableHotplug", BOOL),
    opt("disks", Shape::Slice(&Shape::Struct(DISK))),
    opt("watchdog", Shape::PtrStruct(WATCHDOG)),
    opt("interfaces", Shape::Slice(&Shape::Struct(INTERFACE))),
    opt("inputs", Shape::Slice(&Shape::Struct(INPUT))),
    opt("autoattachPodInterface", PTR_BOOL),
    opt("autoattachGraphicsDevice", PTR_BOOL),
    opt("autoattachSerialConsole", PTR_BOOL),
    opt("logSerialConsole", PTR_BOOL),
    opt("autoattachMemBalloon", PTR_BOOL),
    opt("autoattachInputDevice", PTR_BOOL),
    opt("autoattachVSOCK", PTR_BOOL),
    opt("rng", Shape::PtrStruct(EMPTY)),
    opt("blockMultiQueue", PTR_BOOL),
    opt("networkInterfaceMultiqueue", PTR_BOOL),
    opt("gpus", Shape::Slice(&Shape::Struct(GPU))),
    opt("downwardMetrics", Shape::PtrStruct(EMPTY)),
    opt("panicDevices", Shape::Slice(&Shape::Struct(PANIC_DEVICE))),
    opt("filesystems", Shape::Slice(&Shape::Struct(FILESYSTEM))),
    opt("hostDevices", Shape::Slice(&Shape::Struct(HOST_DEVICE))),
    opt("clientPassthrough", Shape::PtrStruct(EMPTY)),
    opt("sound", Shape::PtrStruct(SOUND_DEVICE)),
    opt("tpm", Shape::PtrStruct(TPM_DEVICE)),
    opt("video", Shape::PtrStruct(VIDEO_DEVICE)),
];

/// `Disk`: name, `DiskDevice` inline (disk, lun, cdrom), then the rest.
const DISK: &[Field] = &[
    req("name", STR),
    opt("disk", Shape::PtrStruct(DISK_TARGET)),
    opt("lun", Shape::PtrStruct(LUN_TARGET)),
    opt("cdrom", Shape::PtrStruct(CDROM_TARGET)),
    opt("bootOrder", PTR_INT),
    opt("serial", STR),
    opt("dedicatedIOThread", PTR_BOOL),
    opt("cache", STR),
    opt("io", STR),
    opt("tag", STR),
    opt("blockSize", Shape::PtrStruct(BLOCK_SIZE)),
    opt("shareable", PTR_BOOL),
    opt("errorPolicy", PTR_STR),
    opt("changedBlockTracking", PTR_BOOL),
];

const DISK_TARGET: &[Field] = &[
    opt("bus", STR),
    opt("readonly", BOOL),
    opt("pciAddress", STR),
];

const LUN_TARGET: &[Field] = &[
    opt("bus", STR),
    opt("readonly", BOOL),
    opt("reservation", BOOL),
];

const CDROM_TARGET: &[Field] = &[opt("bus", STR), opt("readonly", PTR_BOOL), opt("tray", STR)];

const BLOCK_SIZE: &[Field] = &[
    opt("custom", Shape::PtrStruct(CUSTOM_BLOCK_SIZE)),
    opt("matchVolume", Shape::PtrStruct(FEATURE_STATE)),
];

const CUSTOM_BLOCK_SIZE: &[Field] = &[
    opt("logical", INT),
    opt("physical", INT),
    opt("discardGranularity", PTR_INT),
];

/// `Watchdog`: name, `WatchdogDevice` inline.
const WATCHDOG: &[Field] = &[
    req("name", STR),
    opt("i6300esb", Shape::PtrStruct(WATCHDOG_ACTION)),
    opt("diag288", Shape::PtrStruct(WATCHDOG_ACTION)),
];

/// `I6300ESBWatchdog` and `Diag288Watchdog`.
const WATCHDOG_ACTION: &[Field] = &[opt("action", STR)];

/// `Interface`: name, model, `InterfaceBindingMethod` inline, then the rest.
const INTERFACE: &[Field] = &[
    req("name", STR),
    opt("model", STR),
    opt("bridge", Shape::PtrStruct(EMPTY)),
    opt("slirp", Shape::PtrStruct(EMPTY)),
    opt("masquerade", Shape::PtrStruct(EMPTY)),
    opt("sriov", Shape::PtrStruct(EMPTY)),
    opt("macvtap", Shape::PtrStruct(EMPTY)),
    opt("passt", Shape::PtrStruct(EMPTY)),
    opt("passtBinding", Shape::PtrStruct(EMPTY)),
    opt("binding", Shape::PtrStruct(PLUGIN_BINDING)),
    opt("ports", Shape::Slice(&Shape::Struct(PORT))),
    opt("portRanges", Shape::Slice(&Shape::Struct(PORT_RANGE))),
    opt("macAddress", STR),
    opt("bootOrder", PTR_INT),
    opt("pciAddress", STR),
    opt("dhcpOptions", Shape::PtrStruct(DHCP_OPTIONS)),
    opt("tag", STR),
    opt("acpiIndex", INT),
    opt("state", STR),
];

const PLUGIN_BINDING: &[Field] = &[req("name", STR)];

const PORT: &[Field] = &[opt("name", STR), opt("protocol", STR), req("port", INT)];

const PORT_RANGE: &[Field] = &[req("protocol", STR), req("start", INT), req("end", INT)];

/// `DHCPOptions`; the `KubeVirt` decoder sanitises the NTP servers.
const DHCP_OPTIONS: &[Field] = &[
    opt("bootFileName", STR),
    opt("tftpServerName", STR),
    opt("ntpServers", Shape::Slice(&IP)),
    opt(
        "privateOptions",
        Shape::Slice(&Shape::Struct(DHCP_PRIVATE_OPTIONS)),
    ),
];

const DHCP_PRIVATE_OPTIONS: &[Field] = &[req("option", INT), req("value", STR)];

const INPUT: &[Field] = &[opt("bus", STR), req("type", STR), req("name", STR)];

/// `GPU`: `*ClaimRequest` inline after deviceName.
const GPU: &[Field] = &[
    req("name", STR),
    opt("deviceName", STR),
    opt("claimName", STR),
    opt("requestName", STR),
    opt("virtualGPUOptions", Shape::PtrStruct(VGPU_OPTIONS)),
    opt("tag", STR),
];

const VGPU_OPTIONS: &[Field] = &[opt("display", Shape::PtrStruct(VGPU_DISPLAY_OPTIONS))];

const VGPU_DISPLAY_OPTIONS: &[Field] = &[
    opt("enabled", PTR_BOOL),
    opt("ramFB", Shape::PtrStruct(FEATURE_STATE)),
];

const PANIC_DEVICE: &[Field] = &[opt("model", PTR_STR)];

/// `Filesystem`: `virtiofs` is a pointer without omitempty (`null` when absent).
const FILESYSTEM: &[Field] = &[req("name", STR), req("virtiofs", Shape::PtrStruct(EMPTY))];

/// `HostDevice`: `*ClaimRequest` inline after deviceName.
const HOST_DEVICE: &[Field] = &[
    req("name", STR),
    opt("deviceName", STR),
    opt("claimName", STR),
    opt("requestName", STR),
    opt("tag", STR),
];

const SOUND_DEVICE: &[Field] = &[req("name", STR), opt("model", STR)];

const TPM_DEVICE: &[Field] = &[opt("enabled", PTR_BOOL), opt("persistent", PTR_BOOL)];

const VIDEO_DEVICE: &[Field] = &[opt("type", STR)];

// ----- Volumes -----

/// `Volume`: name, `VolumeSource` inline.
const VOLUME: &[Field] = &[
    req("name", STR),
    opt("hostDisk", Shape::PtrStruct(HOST_DISK)),
    opt(
        "persistentVolumeClaim",
        Shape::PtrStruct(KUBEVIRT_PVC_VOLUME_SOURCE),
    ),
    opt("cloudInitNoCloud", Shape::PtrStruct(CLOUD_INIT_SOURCE)),
    opt("cloudInitConfigDrive", Shape::PtrStruct(CLOUD_INIT_SOURCE)),
    opt("sysprep", Shape::PtrStruct(SYSPREP_SOURCE)),
    opt("containerDisk", Shape::PtrStruct(CONTAINER_DISK_SOURCE)),
    opt("ephemeral", Shape::PtrStruct(EPHEMERAL_VOLUME_SOURCE)),
    opt("emptyDisk", Shape::PtrStruct(EMPTY_DISK_SOURCE)),
    opt("dataVolume", Shape::PtrStruct(DATA_VOLUME_SOURCE)),
    opt("configMap", Shape::PtrStruct(CONFIG_MAP_VOLUME_SOURCE)),
    opt("secret", Shape::PtrStruct(SECRET_VOLUME_SOURCE)),
    opt("downwardAPI", Shape::PtrStruct(DOWNWARD_API_VOLUME_SOURCE)),
    opt(
        "serviceAccount",
        Shape::PtrStruct(SERVICE_ACCOUNT_VOLUME_SOURCE),
    ),
    opt("downwardMetrics", Shape::PtrStruct(EMPTY)),
    // `MemoryDumpVolumeSource` only inlines the KubeVirt PVC volume source.
    opt("memoryDump", Shape::PtrStruct(KUBEVIRT_PVC_VOLUME_SOURCE)),
    opt(
        "containerPath",
        Shape::PtrStruct(CONTAINER_PATH_VOLUME_SOURCE),
    ),
];

/// `HostDisk`: `capacity` is a non-pointer quantity, printed as "0" when absent.
const HOST_DISK: &[Field] = &[
    req("path", STR),
    req("type", STR),
    opt("capacity", QUANTITY),
    opt("shared", PTR_BOOL),
];

/// The `KubeVirt` `PersistentVolumeClaimVolumeSource`: the Kubernetes one inline, hotpluggable.
const KUBEVIRT_PVC_VOLUME_SOURCE: &[Field] = &[
    req("claimName", STR),
    opt("readOnly", BOOL),
    opt("hotpluggable", BOOL),
];

/// `CloudInitNoCloudSource` and `CloudInitConfigDriveSource` (same fields).
const CLOUD_INIT_SOURCE: &[Field] = &[
    opt("secretRef", Shape::PtrStruct(LOCAL_OBJECT_REFERENCE)),
    opt("userDataBase64", STR),
    opt("userData", STR),
    opt(
        "networkDataSecretRef",
        Shape::PtrStruct(LOCAL_OBJECT_REFERENCE),
    ),
    opt("networkDataBase64", STR),
    opt("networkData", STR),
];

const SYSPREP_SOURCE: &[Field] = &[
    opt("secret", Shape::PtrStruct(LOCAL_OBJECT_REFERENCE)),
    opt("configMap", Shape::PtrStruct(LOCAL_OBJECT_REFERENCE)),
];

const CONTAINER_DISK_SOURCE: &[Field] = &[
    req("image", STR),
    opt("imagePullSecret", STR),
    opt("path", STR),
    opt("imagePullPolicy", STR),
];

const EPHEMERAL_VOLUME_SOURCE: &[Field] = &[opt(
    "persistentVolumeClaim",
    Shape::PtrStruct(PVC_VOLUME_SOURCE),
)];

/// `EmptyDiskSource`: `capacity` has no omitempty and is a non-pointer quantity.
const EMPTY_DISK_SOURCE: &[Field] = &[req("capacity", QUANTITY)];

const DATA_VOLUME_SOURCE: &[Field] = &[req("name", STR), opt("hotpluggable", BOOL)];

/// `ConfigMapVolumeSource`: `corev1.LocalObjectReference` inline.
const CONFIG_MAP_VOLUME_SOURCE: &[Field] = &[
    opt("name", STR),
    opt("optional", PTR_BOOL),
    opt("volumeLabel", STR),
];

const SECRET_VOLUME_SOURCE: &[Field] = &[
    opt("secretName", STR),
    opt("optional", PTR_BOOL),
    opt("volumeLabel", STR),
];

const DOWNWARD_API_VOLUME_SOURCE: &[Field] = &[
    opt(
        "fields",
        Shape::Slice(&Shape::Struct(DOWNWARD_API_VOLUME_FILE)),
    ),
    opt("volumeLabel", STR),
];

const SERVICE_ACCOUNT_VOLUME_SOURCE: &[Field] = &[opt("serviceAccountName", STR)];

const CONTAINER_PATH_VOLUME_SOURCE: &[Field] = &[req("path", STR), opt("readOnly", PTR_BOOL)];

// ----- Networks -----

/// `Network`: name, `NetworkSource` inline.
const NETWORK: &[Field] = &[
    req("name", STR),
    opt("pod", Shape::PtrStruct(POD_NETWORK)),
    opt("multus", Shape::PtrStruct(MULTUS_NETWORK)),
    opt("resourceClaim", Shape::PtrStruct(CLAIM_REQUEST)),
];

/// `PodNetwork`; the `KubeVirt` decoder sanitises `vmNetworkCIDR` (only the IPv4 one).
const POD_NETWORK: &[Field] = &[opt("vmNetworkCIDR", CIDR), opt("vmIPv6NetworkCIDR", STR)];

const MULTUS_NETWORK: &[Field] = &[req("networkName", STR), opt("default", BOOL)];

const CLAIM_REQUEST: &[Field] = &[opt("claimName", STR), opt("requestName", STR)];

// ----- Access credentials -----

const ACCESS_CREDENTIAL: &[Field] = &[
    opt(
        "sshPublicKey",
        Shape::PtrStruct(SSH_PUBLIC_KEY_ACCESS_CREDENTIAL),
    ),
    opt(
        "userPassword",
        Shape::PtrStruct(USER_PASSWORD_ACCESS_CREDENTIAL),
    ),
];

const SSH_PUBLIC_KEY_ACCESS_CREDENTIAL: &[Field] = &[
    req("source", Shape::Struct(ACCESS_CREDENTIAL_SOURCE)),
    req(
        "propagationMethod",
        Shape::Struct(SSH_PUBLIC_KEY_PROPAGATION_METHOD),
    ),
];

const USER_PASSWORD_ACCESS_CREDENTIAL: &[Field] = &[
    req("source", Shape::Struct(ACCESS_CREDENTIAL_SOURCE)),
    req(
        "propagationMethod",
        Shape::Struct(USER_PASSWORD_PROPAGATION_METHOD),
    ),
];

/// `SSHPublicKeyAccessCredentialSource` and `UserPasswordAccessCredentialSource`.
const ACCESS_CREDENTIAL_SOURCE: &[Field] = &[opt(
    "secret",
    Shape::PtrStruct(ACCESS_CREDENTIAL_SECRET_SOURCE),
)];

const ACCESS_CREDENTIAL_SECRET_SOURCE: &[Field] = &[req("secretName", STR)];

const SSH_PUBLIC_KEY_PROPAGATION_METHOD: &[Field] = &[
    opt("configDrive", Shape::PtrStruct(EMPTY)),
    opt("noCloud", Shape::PtrStruct(EMPTY)),
    opt(
        "qemuGuestAgent",
        Shape::PtrStruct(QEMU_GUEST_AGENT_SSH_PROPAGATION),
    ),
];

/// `users` has no omitempty: `null` when absent, `[]` kept.
const QEMU_GUEST_AGENT_SSH_PROPAGATION: &[Field] = &[req("users", STRINGS)];

const USER_PASSWORD_PROPAGATION_METHOD: &[Field] =
    &[opt("qemuGuestAgent", Shape::PtrStruct(EMPTY))];
