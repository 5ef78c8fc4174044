//! The v1.7.0 preferences: one row each, built from a guest OS base and shared options.

use serde_json::{Map, Value, json};

use super::{PREFERENCE_KIND, VENDOR, empty, label, object, set};

/// The catalog publishes both URLs as block scalars holding a quoted string, so the values
/// carry the quotes and a trailing newline.
const DOCUMENTATION_URL: &str = "\"https://github.com/kubevirt/common-instancetypes\"\n";
const SUPPORT_URL: &str = "\"https://github.com/kubevirt/common-instancetypes/issues\"\n";
const PROVIDER: &str = "KubeVirt";
const TAG_PREFIX: &str = "hidden,kubevirt,";

struct Preference {
    name: &'static str,
    display_name: &'static str,
    look: Look,
    requires: Requires,
    /// Required and preferred architecture.
    arch: Option<&'static str>,
    base: Base,
    options: &'static [Opt],
}

/// Icon and tags shown by consoles.
#[derive(Clone, Copy)]
struct Look {
    icon: &'static str,
    /// The tags after the common `hidden,kubevirt,` prefix.
    tags: &'static str,
    /// A tag appended for a variant, such as `dpdk`.
    extra_tag: Option<&'static str>,
}

const fn look(icon: &'static str, tags: &'static str) -> Look {
    Look {
        icon,
        tags,
        extra_tag: None,
    }
}

impl Look {
    const fn plus_tag(self, tag: &'static str) -> Self {
        Self {
            extra_tag: Some(tag),
            ..self
        }
    }

    const fn with_tags(self, tags: &'static str) -> Self {
        Self { tags, ..self }
    }

    fn tags(&self) -> String {
        match self.extra_tag {
            Some(extra) => format!("{TAG_PREFIX}{},{extra}", self.tags),
            None => format!("{TAG_PREFIX}{}", self.tags),
        }
    }
}

const ALPINE: Look = look("icon-alpine", "alpine");
const CENTOS_STREAM: Look = look("icon-centos", "linux,centos-stream");
const CENTOS_STREAM_DPDK: Look = CENTOS_STREAM.plus_tag("dpdk");
const CIRROS: Look = look("icon-cirros", "cirros");
const DEBIAN: Look = look("icon-debian", "debian");
const FEDORA: Look = look("icon-fedora", "fedora");
const LEGACY: Look = look("icon-other", "legacy");
const LINUX: Look = look("icon-linux", "linux");
const LINUX_EFI: Look = LINUX.with_tags("linux-efi");
const LINUX_VIRTIO_TRANSITIONAL: Look = LINUX.with_tags("linux-virtio-transitional");
const OPENSUSE_LEAP: Look = look("icon-opensuse-leap", "opensuse.leap");
const OPENSUSE_TUMBLEWEED: Look = look("icon-opensuse-tumbleweed", "opensuse.tumbleweed");
const ORACLE_LINUX: Look = look("icon-oracle", "oraclelinux");
const RHEL: Look = look("icon-rhel", "linux,rhel");
const RHEL_DPDK: Look = RHEL.plus_tag("dpdk");
const RHEL_REALTIME: Look = RHEL.plus_tag("realtime");
const SLES: Look = look("icon-sles", "sles");
const UBUNTU: Look = look("icon-ubuntu", "ubuntu");
const WINDOWS: Look = look("icon-windows", "windows");

#[derive(Clone, Copy)]
enum Base {
    /// virtio disk and NIC, an RNG device.
    Linux,
    /// SATA disk, e1000e NIC, and the ACPI/Hyper-V/clock settings Windows needs.
    Windows,
    /// SATA disk and e1000 NIC, for guests without virtio drivers.
    Legacy,
}

#[derive(Clone, Copy)]
enum Opt {
    /// A virtio tablet as input device.
    Tablet,
    /// virtio disk, NIC and video for Windows guests with the virtio drivers installed.
    VirtioDrivers,
    /// An interface model other than the base's.
    Nic(&'static str),
    /// A dedicated I/O thread for the disks.
    IoThread,
    /// Multi-queue virtio NICs.
    MultiQueue,
    /// Transitional virtio devices for guests that only have legacy virtio drivers.
    VirtioTransitional,
    /// EFI without secure boot.
    Efi,
    /// EFI with secure boot, and SMM.
    SecureBoot,
    /// Persistent EFI with secure boot, SMM, and a persistent TPM.
    SecureBootTpm,
    /// `spread` CPU topology across sockets, cores and threads, with this `ratio` if any.
    Spread(Option<u32>),
    /// Serial console only: no graphics device and no memory balloon.
    Headless,
    /// `kubevirt.io/disablePCIHole64` for guests that cannot use the 64-bit PCI hole.
    NoPciHole64,
}

use Base::{Legacy, Linux, Windows};
use Opt::{
    Efi, Headless, IoThread, MultiQueue, Nic, NoPciHole64, SecureBoot, SecureBootTpm, Spread,
    Tablet, VirtioDrivers, VirtioTransitional,
};

#[derive(Clone, Copy)]
enum Requires {
    /// Minimum vCPUs and guest memory.
    AtLeast(u32, &'static str),
    Nothing,
}

use Requires::{AtLeast, Nothing};

const ANY: Option<&str> = None;
const AMD64: Option<&str> = Some("amd64");
const ARM64: Option<&str> = Some("arm64");
const S390X: Option<&str> = Some("s390x");

const fn p(
    name: &'static str,
    display_name: &'static str,
    look: Look,
    requires: Requires,
    arch: Option<&'static str>,
    base: Base,
    options: &'static [Opt],
) -> Preference {
    Preference {
        name,
        display_name,
        look,
        requires,
        arch,
        base,
        options,
    }
}

#[rustfmt::skip]
const PREFERENCES: [Preference; 54] = [
    // name                       display name                                      look                       requires             arch   base     options
    p("alpine",                   "Alpine",                                         ALPINE,                    AtLeast(1, "512Mi"), ANY,   Linux,   &[]),
    p("centos.stream10",          "CentOS Stream 10",                               CENTOS_STREAM,             AtLeast(1, "1.5Gi"), ANY,   Linux,   &[IoThread]),
    p("centos.stream10.desktop",  "CentOS Stream 10",                               CENTOS_STREAM,             AtLeast(1, "1.5Gi"), ANY,   Linux,   &[Tablet, IoThread]),
    p("centos.stream9",           "CentOS Stream 9",                                CENTOS_STREAM,             AtLeast(1, "1.5Gi"), ANY,   Linux,   &[IoThread]),
    p("centos.stream9.desktop",   "CentOS Stream 9",                                CENTOS_STREAM,             AtLeast(1, "1.5Gi"), ANY,   Linux,   &[Tablet, IoThread]),
    p("centos.stream9.dpdk",      "CentOS Stream 9",                                CENTOS_STREAM_DPDK,        AtLeast(8, "1.5Gi"), ANY,   Linux,   &[IoThread, MultiQueue, Spread(Some(4))]),
    p("cirros",                   "Cirros",                                         CIRROS,                    AtLeast(1, "256Mi"), ANY,   Linux,   &[]),
    p("debian",                   "Debian",                                         DEBIAN,                    AtLeast(1, "512Mi"), ANY,   Linux,   &[Efi]),
    p("fedora",                   "Fedora (amd64)",                                 FEDORA,                    AtLeast(1, "2Gi"),   AMD64, Linux,   &[SecureBoot]),
    p("fedora.arm64",             "Fedora (arm64)",                                 FEDORA,                    AtLeast(1, "2Gi"),   ARM64, Linux,   &[]),
    p("fedora.s390x",             "Fedora (s390x)",                                 FEDORA,                    AtLeast(1, "2Gi"),   S390X, Linux,   &[]),
    p("legacy",                   "Legacy Guest",                                   LEGACY,                    Nothing,             ANY,   Legacy,  &[]),
    p("linux",                    "Linux Guest",                                    LINUX,                     Nothing,             ANY,   Linux,   &[]),
    p("linux.efi",                "Linux EFI Guest",                                LINUX_EFI,                 Nothing,             ANY,   Linux,   &[Efi]),
    p("linux.virtiotransitional", "Linux Virtio Transitional Guest",                LINUX_VIRTIO_TRANSITIONAL, Nothing,             ANY,   Linux,   &[VirtioTransitional]),
    p("opensuse.leap",            "OpenSUSE Leap",                                  OPENSUSE_LEAP,             AtLeast(1, "2Gi"),   ANY,   Linux,   &[]),
    p("opensuse.tumbleweed",      "OpenSUSE Tumbleweed",                            OPENSUSE_TUMBLEWEED,       AtLeast(1, "2Gi"),   ANY,   Linux,   &[]),
    p("oraclelinux",              "Oracle Linux",                                   ORACLE_LINUX,              AtLeast(2, "4Gi"),   ANY,   Linux,   &[Efi]),
    p("rhel.10",                  "Red Hat Enterprise Linux 10 (amd64)",            RHEL,                      AtLeast(1, "1.5Gi"), AMD64, Linux,   &[IoThread, SecureBoot]),
    p("rhel.10.arm64",            "Red Hat Enterprise Linux 10 (arm64)",            RHEL,                      AtLeast(1, "1.5Gi"), ARM64, Linux,   &[IoThread]),
    p("rhel.10.s390x",            "Red Hat Enterprise Linux 10 (s390x)",            RHEL,                      AtLeast(1, "1.5Gi"), S390X, Linux,   &[IoThread]),
    p("rhel.7",                   "Red Hat Enterprise Linux 7",                     RHEL,                      AtLeast(1, "1Gi"),   ANY,   Linux,   &[]),
    p("rhel.7.desktop",           "Red Hat Enterprise Linux 7",                     RHEL,                      AtLeast(1, "1Gi"),   ANY,   Linux,   &[Tablet]),
    p("rhel.8",                   "Red Hat Enterprise Linux 8",                     RHEL,                      AtLeast(1, "1.5Gi"), ANY,   Linux,   &[]),
    p("rhel.8.desktop",           "Red Hat Enterprise Linux 8",                     RHEL,                      AtLeast(1, "1.5Gi"), ANY,   Linux,   &[Tablet]),
    p("rhel.8.dpdk",              "Red Hat Enterprise Linux 8",                     RHEL_DPDK,                 AtLeast(8, "1.5Gi"), ANY,   Linux,   &[MultiQueue, Spread(Some(4))]),
    p("rhel.9",                   "Red Hat Enterprise Linux 9 (amd64)",             RHEL,                      AtLeast(1, "1.5Gi"), AMD64, Linux,   &[IoThread, SecureBoot]),
    p("rhel.9.arm64",             "Red Hat Enterprise Linux 9 (arm64)",             RHEL,                      AtLeast(1, "1.5Gi"), ARM64, Linux,   &[IoThread]),
    p("rhel.9.desktop",           "Red Hat Enterprise Linux 9 Desktop (amd64)",     RHEL,                      AtLeast(1, "1.5Gi"), AMD64, Linux,   &[Tablet, IoThread, SecureBoot]),
    p("rhel.9.dpdk",              "Red Hat Enterprise Linux 9 DPDK (amd64)",        RHEL_DPDK,                 AtLeast(8, "1.5Gi"), AMD64, Linux,   &[IoThread, MultiQueue, SecureBoot, Spread(Some(4))]),
    p("rhel.9.realtime",          "Red Hat Enterprise Linux 9 Realtime (amd64)",    RHEL_REALTIME,             AtLeast(4, "4Gi"),   AMD64, Linux,   &[Headless, IoThread, MultiQueue, SecureBoot, Spread(None)]),
    p("rhel.9.s390x",             "Red Hat Enterprise Linux 9 (s390x)",             RHEL,                      AtLeast(1, "1.5Gi"), S390X, Linux,   &[IoThread]),
    p("sles",                     "SUSE Linux Enterprise Server",                   SLES,                      AtLeast(1, "2Gi"),   ANY,   Linux,   &[]),
    p("ubuntu",                   "Ubuntu",                                         UBUNTU,                    AtLeast(1, "2Gi"),   ANY,   Linux,   &[]),
    p("windows.10",               "Microsoft Windows 10",                           WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[SecureBoot]),
    p("windows.10.virtio",        "Microsoft Windows 10 (virtio)",                  WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBoot]),
    p("windows.11",               "Microsoft Windows 11",                           WINDOWS,                   AtLeast(2, "4Gi"),   ANY,   Windows, &[SecureBootTpm]),
    p("windows.11.virtio",        "Microsoft Windows 11 (virtio)",                  WINDOWS,                   AtLeast(2, "4Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBootTpm]),
    p("windows.2k12",             "Microsoft Windows Server 2012/2012 R2",          WINDOWS,                   AtLeast(1, "512Mi"), ANY,   Windows, &[]),
    p("windows.2k12.virtio",      "Microsoft Windows Server 2012/2012 R2 (virtio)", WINDOWS,                   AtLeast(1, "512Mi"), ANY,   Windows, &[VirtioDrivers, Tablet]),
    p("windows.2k16",             "Microsoft Windows Server 2016",                  WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[SecureBoot]),
    p("windows.2k16.virtio",      "Microsoft Windows Server 2016 (virtio)",         WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBoot]),
    p("windows.2k19",             "Microsoft Windows Server 2019",                  WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[SecureBoot]),
    p("windows.2k19.virtio",      "Microsoft Windows Server 2019 (virtio)",         WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBoot]),
    p("windows.2k22",             "Microsoft Windows Server 2022",                  WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[SecureBootTpm]),
    p("windows.2k22.virtio",      "Microsoft Windows Server 2022 (virtio)",         WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBootTpm]),
    p("windows.2k25",             "Microsoft Windows Server 2025",                  WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[SecureBootTpm]),
    p("windows.2k25.virtio",      "Microsoft Windows Server 2025 (virtio)",         WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet, SecureBootTpm]),
    p("windows.2k3",              "Microsoft Windows Server 2003",                  WINDOWS,                   AtLeast(1, "256Mi"), ANY,   Windows, &[Nic("rtl8139"), NoPciHole64]),
    p("windows.2k8",              "Microsoft Windows Server 2008/2008 R2",          WINDOWS,                   AtLeast(1, "512Mi"), ANY,   Windows, &[Nic("e1000")]),
    p("windows.2k8.virtio",       "Microsoft Windows Server 2008/2008 R2 (virtio)", WINDOWS,                   AtLeast(1, "512Mi"), ANY,   Windows, &[VirtioDrivers, Tablet]),
    p("windows.7",                "Microsoft Windows 7",                            WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[]),
    p("windows.7.virtio",         "Microsoft Windows 7 (virtio)",                   WINDOWS,                   AtLeast(1, "2Gi"),   ANY,   Windows, &[VirtioDrivers, Tablet]),
    p("windows.xp",               "Microsoft Windows XP",                           WINDOWS,                   AtLeast(1, "128Mi"), ANY,   Windows, &[NoPciHole64]),
];

/// The settings every Windows preference shares besides disk and NIC.
fn windows_settings(spec: &mut Map<String, Value>) {
    let hyperv = json!({
        "relaxed": {}, "vapic": {}, "vpindex": {}, "runtime": {}, "synic": {}, "reset": {},
        "frequencies": {}, "reenlightenment": {}, "tlbflush": {}, "ipi": {},
        "spinlocks": { "spinlocks": 8191 },
        "synictimer": { "direct": {} },
    });
    let timer = json!({
        "hpet": { "present": false },
        "hyperv": {},
        "pit": { "tickPolicy": "delay" },
        "rtc": { "tickPolicy": "catchup" },
    });
    set(spec, &["cpu", "preferredCPUTopology"], "sockets".into());
    set(spec, &["features", "preferredAcpi"], empty());
    set(spec, &["features", "preferredApic"], empty());
    set(spec, &["features", "preferredHyperv"], hyperv);
    set(
        spec,
        &["clock", "preferredClockOffset"],
        json!({ "utc": {} }),
    );
    set(spec, &["clock", "preferredTimer"], timer);
    set(
        spec,
        &["preferredTerminationGracePeriodSeconds"],
        3600.into(),
    );
    set(
        spec,
        &["devices", "preferredAutoattachInputDevice"],
        true.into(),
    );
}

fn device(spec: &mut Map<String, Value>, field: &str, value: Value) {
    set(spec, &["devices", field], value);
}

impl Preference {
    fn to_json(&self) -> Value {
        let mut spec = Map::new();
        let (os, disk, nic) = match self.base {
            Linux => ("linux", "virtio", "virtio"),
            Windows => ("windows", "sata", "e1000e"),
            Legacy => ("legacy", "sata", "e1000"),
        };
        set(&mut spec, &["annotations", "vm.kubevirt.io/os"], os.into());
        device(&mut spec, "preferredDiskBus", disk.into());
        device(&mut spec, "preferredInterfaceModel", nic.into());
        match self.base {
            Linux => device(&mut spec, "preferredRng", empty()),
            Windows => windows_settings(&mut spec),
            Legacy => {}
        }

        for option in self.options {
            match *option {
                Tablet => {
                    device(&mut spec, "preferredInputBus", "virtio".into());
                    device(&mut spec, "preferredInputType", "tablet".into());
                    device(&mut spec, "preferredAutoattachInputDevice", true.into());
                }
                VirtioDrivers => {
                    device(&mut spec, "preferredDiskBus", "virtio".into());
                    device(&mut spec, "preferredInterfaceModel", "virtio".into());
                    device(&mut spec, "preferredVideoType", "virtio".into());
                }
                Nic(model) => device(&mut spec, "preferredInterfaceModel", model.into()),
                IoThread => device(&mut spec, "preferredDiskDedicatedIoThread", true.into()),
                MultiQueue => {
                    device(
                        &mut spec,
                        "preferredNetworkInterfaceMultiQueue",
                        true.into(),
                    );
                }
                VirtioTransitional => {
                    device(&mut spec, "preferredUseVirtioTransitional", true.into());
                }
                Efi => {
                    let efi = json!({ "secureBoot": false });
                    set(&mut spec, &["firmware", "preferredEfi"], efi);
                }
                SecureBoot => {
                    let efi = json!({ "secureBoot": true });
                    set(&mut spec, &["firmware", "preferredEfi"], efi);
                    set(&mut spec, &["features", "preferredSmm"], empty());
                }
                SecureBootTpm => {
                    let efi = json!({ "persistent": true, "secureBoot": true });
                    set(&mut spec, &["firmware", "preferredEfi"], efi);
                    set(&mut spec, &["features", "preferredSmm"], empty());
                    device(&mut spec, "preferredTPM", json!({ "persistent": true }));
                }
                Spread(ratio) => {
                    set(&mut spec, &["cpu", "preferredCPUTopology"], "spread".into());
                    let across = "SocketsCoresThreads".into();
                    set(&mut spec, &["cpu", "spreadOptions", "across"], across);
                    if let Some(ratio) = ratio {
                        set(&mut spec, &["cpu", "spreadOptions", "ratio"], ratio.into());
                    }
                }
                Headless => {
                    device(&mut spec, "preferredAutoattachGraphicsDevice", false.into());
                    device(&mut spec, "preferredAutoattachMemBalloon", false.into());
                    device(&mut spec, "preferredAutoattachSerialConsole", true.into());
                }
                NoPciHole64 => {
                    let key = "kubevirt.io/disablePCIHole64";
                    set(&mut spec, &["annotations", key], "true".into());
                }
            }
        }

        let mut labels = Map::new();
        labels.insert(label("os-type"), os.into());
        labels.insert(label("vendor"), VENDOR.into());
        if let AtLeast(cpu, memory) = self.requires {
            set(&mut spec, &["requirements", "cpu", "guest"], cpu.into());
            set(
                &mut spec,
                &["requirements", "memory", "guest"],
                memory.into(),
            );
            labels.insert(label("required-cpu"), cpu.to_string().into());
            labels.insert(label("required-memory"), memory.into());
        }
        if let Some(arch) = self.arch {
            set(&mut spec, &["preferredArchitecture"], arch.into());
            set(&mut spec, &["requirements", "architecture"], arch.into());
            for name in ["arch", "preferred-architecture", "required-architecture"] {
                labels.insert(label(name), arch.into());
            }
        }

        let mut annotations = Map::new();
        annotations.insert("iconClass".into(), self.look.icon.into());
        annotations.insert("openshift.io/display-name".into(), self.display_name.into());
        annotations.insert(
            "openshift.io/documentation-url".into(),
            DOCUMENTATION_URL.into(),
        );
        annotations.insert("openshift.io/provider-display-name".into(), PROVIDER.into());
        annotations.insert("openshift.io/support-url".into(), SUPPORT_URL.into());
        annotations.insert("tags".into(), self.look.tags().into());

        object(PREFERENCE_KIND, self.name, annotations, labels, spec)
    }
}

pub(super) fn objects() -> Vec<Value> {
    let mut rows: Vec<&Preference> = PREFERENCES.iter().collect();
    rows.sort_by_key(|p| p.name);
    rows.into_iter().map(Preference::to_json).collect()
}
