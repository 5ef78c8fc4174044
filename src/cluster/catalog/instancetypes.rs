//! The v1.7.0 instance types: one row per series, one table of sizes × series.

use serde_json::{Map, Value};

use super::{INSTANCETYPE_KIND, VENDOR, empty, label, object, set};

struct Series {
    name: &'static str,
    class: &'static str,
    display_name: &'static str,
    icon: &'static str,
    description: &'static str,
    traits: &'static [Trait],
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Trait {
    /// `memory.overcommitPercent`.
    Overcommit(u32),
    /// Dedicated CPUs with an isolated emulator thread.
    DedicatedCpu,
    /// `cpu.numa.guestMappingPassthrough`.
    NumaPassthrough,
    /// `cpu.maxSockets` equal to the vCPU count, so no sockets are reserved for hotplug.
    NoCpuHotplugHeadroom,
    /// `ioThreadsPolicy: auto`.
    AutoIoThreads,
    /// Hugepages of one size.
    Hugepages(&'static str),
    /// 2Mi hugepages, and a `<size>1gi` variant of every size with 1Gi pages.
    HugepagesWith1GiVariant,
    /// The CRI-O annotations that keep the host from balancing load onto the VM's CPUs.
    CrioIsolation,
    /// `cpu.realtime`.
    Realtime,
}

use Trait::{
    AutoIoThreads, CrioIsolation, DedicatedCpu, Hugepages, HugepagesWith1GiVariant,
    NoCpuHotplugHeadroom, NumaPassthrough, Overcommit, Realtime,
};

const CRIO_ANNOTATIONS: [&str; 3] = [
    "cpu-load-balancing.crio.io",
    "cpu-quota.crio.io",
    "irq-load-balancing.crio.io",
];

/// The series, in the column order of [`SIZES`].
const SERIES: [Series; 7] = [
    Series {
        name: "u1",
        class: "general.purpose",
        display_name: "General Purpose",
        icon: "pficon-server-group",
        description: "\
The U Series is quite neutral and provides resources for
general purpose applications.

*U* is the abbreviation for \"Universal\", hinting at the universal
attitude towards workloads.

VMs of instance types will share physical CPU cores on a
time-slice basis with other VMs.",
        traits: &[],
    },
    Series {
        name: "o1",
        class: "overcommitted",
        display_name: "Overcommitted",
        icon: "pficon-virtual-machine",
        description: "\
The O Series is based on the U Series, with the only difference
being that memory is overcommitted.

*O* is the abbreviation for \"Overcommitted\".",
        traits: &[Overcommit(50)],
    },
    Series {
        name: "d1",
        class: "dedicated.vcpu",
        display_name: "Dedicated vCPU",
        icon: "pficon-server-group",
        description: "\
The D Series is designed for consistent and predictable performance,
providing resources for general purpose applications.

*D* is the abbreviation for \"Dedicated\", reflecting the use of
dedicated CPU placement for workloads.

VMs of this instance type are assigned exclusive physical CPU cores,
avoiding CPU sharing and time-slice contention with other VMs.",
        traits: &[DedicatedCpu, AutoIoThreads],
    },
    Series {
        name: "cx1",
        class: "compute.exclusive",
        display_name: "Compute Exclusive",
        icon: "pficon-registry",
        description: "\
The CX Series provides exclusive compute resources for compute
intensive applications.

*CX* is the abbreviation of \"Compute Exclusive\".

The exclusive resources are given to the compute threads of the
VM. In order to ensure this, some additional cores (depending
on the number of disks and NICs) will be requested to offload
the IO threading from cores dedicated to the workload.
In addition, in this series, the NUMA topology of the used
cores is provided to the VM.

The amount of spec.cpu.maxSockets is set to the same as
guest cpus. This avoids KubeVirt's default behavior of
providing extra CPUs for hotplugging, which can exceed the
amount of available CPUs on a node and cause the VM to fail.

Requirements for CX series instance types:
- CPU manager has to be enabled.
- Huge pages have to be available on the nodes.",
        traits: &[
            DedicatedCpu,
            NumaPassthrough,
            NoCpuHotplugHeadroom,
            HugepagesWith1GiVariant,
            AutoIoThreads,
        ],
    },
    Series {
        name: "m1",
        class: "memory.intensive",
        display_name: "Memory Intensive",
        icon: "fa-memory",
        description: "\
The M Series provides resources for memory intensive
applications.

*M* is the abbreviation of \"Memory\".",
        traits: &[HugepagesWith1GiVariant],
    },
    Series {
        name: "n1",
        class: "network",
        display_name: "Network",
        icon: "pficon-network",
        description: "\
The N Series provides resources for network intensive DPDK
applications, like VNFs.

*N* is the abbreviation for \"Network\".

This series of instancetypes requires nodes capable
of running DPDK workloads and being marked with the respective
node-role.kubevirt.io/worker-dpdk label as such.",
        traits: &[DedicatedCpu, Hugepages("1Gi"), CrioIsolation],
    },
    Series {
        name: "rt1",
        class: "realtime",
        display_name: "Realtime",
        icon: "pficon-server-group",
        description: "\
The RT Series provides resources for realtime applications, like Oslat.

*RT* is the abbreviation for \"realtime\".

This series of instance types requires nodes capable of running
realtime applications.",
        traits: &[
            DedicatedCpu,
            NumaPassthrough,
            Hugepages("1Gi"),
            CrioIsolation,
            Realtime,
        ],
    },
];

/// vCPUs and guest memory of one size of one series, or `NA` where the series lacks the size.
#[derive(Clone, Copy)]
enum Shape {
    S(u32, &'static str),
    NA,
}

use Shape::{NA, S};

/// Sizes in catalog order; the columns follow [`SERIES`].
#[rustfmt::skip]
const SIZES: [(&str, [Shape; 7]); 10] = [
    //            u1              o1              d1              cx1             m1                n1               rt1
    ("nano",     [S(1, "512Mi"),  S(1, "512Mi"),  S(1, "512Mi"),  NA,             NA,               NA,              NA]),
    ("micro",    [S(1, "1Gi"),    S(1, "1Gi"),    S(1, "1Gi"),    NA,             NA,               NA,              S(1, "1Gi")]),
    ("small",    [S(1, "2Gi"),    S(1, "2Gi"),    S(1, "2Gi"),    NA,             NA,               NA,              S(1, "2Gi")]),
    ("medium",   [S(1, "4Gi"),    S(1, "4Gi"),    S(1, "4Gi"),    S(1, "2Gi"),    NA,               S(4, "4Gi"),     S(1, "4Gi")]),
    ("2xmedium", [S(2, "4Gi"),    NA,             S(2, "4Gi"),    NA,             NA,               NA,              NA]),
    ("large",    [S(2, "8Gi"),    S(2, "8Gi"),    S(2, "8Gi"),    S(2, "4Gi"),    S(2, "16Gi"),     S(4, "8Gi"),     S(2, "8Gi")]),
    ("xlarge",   [S(4, "16Gi"),   S(4, "16Gi"),   S(4, "16Gi"),   S(4, "8Gi"),    S(4, "32Gi"),     S(8, "16Gi"),    S(4, "16Gi")]),
    ("2xlarge",  [S(8, "32Gi"),   S(8, "32Gi"),   S(8, "32Gi"),   S(8, "16Gi"),   S(8, "64Gi"),     S(16, "32Gi"),   S(8, "32Gi")]),
    ("4xlarge",  [S(16, "64Gi"),  S(16, "64Gi"),  S(16, "64Gi"),  S(16, "32Gi"),  S(16, "128Gi"),   S(32, "64Gi"),   S(16, "64Gi")]),
    ("8xlarge",  [S(32, "128Gi"), S(32, "128Gi"), S(32, "128Gi"), S(32, "64Gi"),  S(32, "256Gi"),   S(64, "128Gi"),  S(32, "128Gi")]),
];

/// Suffix of the size (and name) of the 1Gi hugepage variants.
const ONE_GI_SUFFIX: &str = "1gi";

/// One instance type of the catalog.
struct Instancetype {
    series: &'static Series,
    size: &'static str,
    cpu: u32,
    memory: &'static str,
    /// The `<size>1gi` variant of a series with [`Trait::HugepagesWith1GiVariant`].
    one_gi: bool,
}

impl Instancetype {
    fn size_label(&self) -> String {
        if self.one_gi {
            format!("{}{ONE_GI_SUFFIX}", self.size)
        } else {
            self.size.to_owned()
        }
    }

    fn name(&self) -> String {
        format!("{}.{}", self.series.name, self.size_label())
    }

    fn hugepages(&self) -> Option<&'static str> {
        self.series.traits.iter().find_map(|t| match t {
            Hugepages(size) => Some(*size),
            HugepagesWith1GiVariant if self.one_gi => Some("1Gi"),
            HugepagesWith1GiVariant => Some("2Mi"),
            _ => None,
        })
    }

    fn to_json(&self) -> Value {
        let series = self.series;
        let yes = || Value::from("true");

        let mut annotations = Map::new();
        annotations.insert(label("description"), series.description.into());
        annotations.insert(label("displayName"), series.display_name.into());

        let mut labels = Map::new();
        labels.insert(label("class"), series.class.into());
        labels.insert(label("cpu"), self.cpu.to_string().into());
        labels.insert(label("icon-pf"), series.icon.into());
        labels.insert(label("memory"), self.memory.into());
        labels.insert(label("size"), self.size_label().into());
        labels.insert(label("vendor"), VENDOR.into());
        labels.insert(label("version"), "1".into());

        let mut spec = Map::new();
        set(&mut spec, &["cpu", "guest"], self.cpu.into());
        set(&mut spec, &["memory", "guest"], self.memory.into());
        if let Some(size) = self.hugepages() {
            set(&mut spec, &["memory", "hugepages", "pageSize"], size.into());
            labels.insert(label("hugepages"), size.into());
        }
        for t in series.traits {
            match *t {
                Overcommit(percent) => {
                    set(&mut spec, &["memory", "overcommitPercent"], percent.into());
                }
                DedicatedCpu => {
                    set(&mut spec, &["cpu", "dedicatedCPUPlacement"], true.into());
                    set(&mut spec, &["cpu", "isolateEmulatorThread"], true.into());
                    labels.insert(label("dedicatedCPUPlacement"), yes());
                    labels.insert(label("isolateEmulatorThread"), yes());
                }
                NumaPassthrough => {
                    set(
                        &mut spec,
                        &["cpu", "numa", "guestMappingPassthrough"],
                        empty(),
                    );
                    labels.insert(label("numa"), yes());
                }
                NoCpuHotplugHeadroom => set(&mut spec, &["cpu", "maxSockets"], self.cpu.into()),
                AutoIoThreads => set(&mut spec, &["ioThreadsPolicy"], "auto".into()),
                CrioIsolation => {
                    for annotation in CRIO_ANNOTATIONS {
                        set(&mut spec, &["annotations", annotation], "disable".into());
                    }
                }
                Realtime => {
                    set(&mut spec, &["cpu", "realtime"], empty());
                    labels.insert(label("realtime"), yes());
                }
                Hugepages(_) | HugepagesWith1GiVariant => {}
            }
        }
        object(INSTANCETYPE_KIND, &self.name(), annotations, labels, spec)
    }
}

/// Every instance type of the catalog, sorted by name.
fn catalog() -> Vec<Instancetype> {
    let mut all = Vec::new();
    for (column, series) in SERIES.iter().enumerate() {
        let variants: &[bool] = if series.traits.contains(&HugepagesWith1GiVariant) {
            &[false, true]
        } else {
            &[false]
        };
        for (size, shapes) in &SIZES {
            let S(cpu, memory) = shapes[column] else {
                continue;
            };
            for &one_gi in variants {
                all.push(Instancetype {
                    series,
                    size,
                    cpu,
                    memory,
                    one_gi,
                });
            }
        }
    }
    all.sort_by_cached_key(Instancetype::name);
    all
}

pub(super) fn objects() -> Vec<Value> {
    catalog().iter().map(Instancetype::to_json).collect()
}

/// Names of the v1.7.0 instance types of `series`: the regular sizes, or the 1Gi hugepage
/// variants when `one_gi` is set.
pub(super) fn names(series: &str, one_gi: bool) -> Vec<String> {
    catalog()
        .iter()
        .filter(|it| it.series.name == series && it.one_gi == one_gi)
        .map(Instancetype::name)
        .collect()
}
