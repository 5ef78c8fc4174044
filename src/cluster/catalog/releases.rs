//! Which catalog release each KubeVirt minor release bundles and which names that bundle has,
//! recorded as changes from one release to the next. KubeVirt v1.0 bundles no catalog.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use super::instancetypes;

/// A group of object names.
#[derive(Clone, Copy)]
enum Names {
    /// `<series>.<size>` for each size.
    Sizes(&'static str, &'static [&'static str]),
    /// The regular sizes the series has in the v1.7.0 catalog.
    Series(&'static str),
    /// The `<size>1gi` hugepage variants the series has in the v1.7.0 catalog.
    OneGiVariants(&'static str),
    Exact(&'static [&'static str]),
}

use Names::{Exact, OneGiVariants, Series, Sizes};

impl Names {
    fn expand(self) -> Vec<String> {
        match self {
            Sizes(series, sizes) => sizes.iter().map(|s| format!("{series}.{s}")).collect(),
            Series(series) => instancetypes::names(series, false),
            OneGiVariants(series) => instancetypes::names(series, true),
            Exact(names) => names.iter().map(|&n| n.to_owned()).collect(),
        }
    }
}

#[derive(Clone, Copy)]
struct Delta {
    added: &'static [Names],
    removed: &'static [Names],
}

const UNCHANGED: Delta = Delta {
    added: &[],
    removed: &[],
};

struct Release {
    kubevirt_minor: u32,
    catalog: &'static str,
    instancetypes: Delta,
    preferences: Delta,
    /// Names labelled `instancetype.kubevirt.io/deprecated` in this release's bundle; the label
    /// is not inherited by later releases.
    deprecated: &'static [Names],
}

const KUBEVIRT_MAJOR: u32 = 1;

const FROM_MEDIUM: &[&str] = &["medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge"];
const FROM_LARGE: &[&str] = &["large", "xlarge", "2xlarge", "4xlarge", "8xlarge"];
const FROM_XLARGE: &[&str] = &["xlarge", "2xlarge", "4xlarge", "8xlarge"];

const HIGHPERFORMANCE: Names = Sizes("highperformance", &["small", "medium", "large"]);
const SERVER: Names = Sizes("server", &["tiny", "micro", "small", "medium", "large"]);
const GN1: Names = Sizes("gn1", FROM_XLARGE);

const CENTOS_7: Names = Exact(&["centos.7", "centos.7.desktop"]);
const CENTOS_STREAM8: Names = Exact(&["centos.stream8", "centos.stream8.desktop"]);
const CENTOS_STREAM8_DPDK: Names = Exact(&["centos.stream8.dpdk"]);
const WINDOWS_2K12: Names = Exact(&["windows.2k12", "windows.2k12.virtio"]);

const RELEASES: [Release; 9] = [
    Release {
        kubevirt_minor: 1,
        catalog: "v0.3.4",
        instancetypes: Delta {
            added: &[
                Series("cx1"),
                GN1,
                HIGHPERFORMANCE,
                Series("m1"),
                Sizes("o1", FROM_MEDIUM),
                SERVER,
                Sizes("u1", &["nano", "micro", "small"]),
                Sizes("u1", FROM_MEDIUM),
            ],
            removed: &[],
        },
        preferences: Delta {
            added: &[
                Exact(&[
                    "alpine",
                    "centos.stream9",
                    "centos.stream9.desktop",
                    "cirros",
                    "fedora",
                    "rhel.7",
                    "rhel.7.desktop",
                    "rhel.8",
                    "rhel.8.desktop",
                    "rhel.9",
                    "rhel.9.desktop",
                    "ubuntu",
                    "windows.10",
                    "windows.10.virtio",
                    "windows.11",
                    "windows.11.virtio",
                    "windows.2k16",
                    "windows.2k16.virtio",
                    "windows.2k19",
                    "windows.2k19.virtio",
                    "windows.2k22",
                    "windows.2k22.virtio",
                ]),
                CENTOS_7,
                CENTOS_STREAM8,
                WINDOWS_2K12,
            ],
            removed: &[],
        },
        deprecated: &[HIGHPERFORMANCE, SERVER],
    },
    Release {
        kubevirt_minor: 2,
        catalog: "v0.4.0",
        instancetypes: Delta {
            added: &[
                Sizes("n1", FROM_LARGE),
                Sizes("o1", &["nano", "micro", "small"]),
            ],
            removed: &[HIGHPERFORMANCE, SERVER],
        },
        preferences: Delta {
            added: &[
                CENTOS_STREAM8_DPDK,
                Exact(&["centos.stream9.dpdk", "rhel.8.dpdk", "rhel.9.dpdk"]),
            ],
            removed: &[],
        },
        deprecated: &[WINDOWS_2K12],
    },
    Release {
        kubevirt_minor: 3,
        catalog: "v1.0.1",
        instancetypes: Delta {
            added: &[Sizes("n1", &["medium"])],
            removed: &[],
        },
        preferences: UNCHANGED,
        deprecated: &[WINDOWS_2K12],
    },
    Release {
        kubevirt_minor: 4,
        catalog: "v1.2.0",
        instancetypes: Delta {
            added: &[Series("rt1"), Sizes("u1", &["2xmedium"])],
            removed: &[],
        },
        preferences: Delta {
            added: &[Exact(&[
                "centos.stream10",
                "centos.stream10.desktop",
                "fedora.arm64",
                "opensuse.leap",
                "opensuse.tumbleweed",
                "rhel.10",
                "rhel.10.arm64",
                "rhel.9.arm64",
                "rhel.9.realtime",
                "sles",
                "windows.2k25",
                "windows.2k25.virtio",
            ])],
            removed: &[WINDOWS_2K12],
        },
        deprecated: &[GN1, CENTOS_7, CENTOS_STREAM8, CENTOS_STREAM8_DPDK],
    },
    Release {
        kubevirt_minor: 5,
        catalog: "v1.3.0",
        instancetypes: Delta {
            added: &[],
            removed: &[GN1],
        },
        preferences: Delta {
            added: &[Exact(&["fedora.s390x", "rhel.9.s390x"])],
            removed: &[CENTOS_7, CENTOS_STREAM8, CENTOS_STREAM8_DPDK],
        },
        deprecated: &[],
    },
    Release {
        kubevirt_minor: 6,
        catalog: "v1.4.0",
        instancetypes: Delta {
            added: &[OneGiVariants("cx1"), OneGiVariants("m1")],
            removed: &[],
        },
        preferences: Delta {
            added: &[
                Exact(&[
                    "debian",
                    "legacy",
                    "linux",
                    "linux.efi",
                    "linux.virtiotransitional",
                    "oraclelinux",
                    "rhel.10.s390x",
                    "windows.2k3",
                    "windows.2k8",
                    "windows.2k8.virtio",
                    "windows.7",
                    "windows.7.virtio",
                    "windows.xp",
                ]),
                WINDOWS_2K12,
            ],
            removed: &[],
        },
        deprecated: &[],
    },
    Release {
        kubevirt_minor: 7,
        catalog: "v1.5.1",
        instancetypes: UNCHANGED,
        preferences: UNCHANGED,
        deprecated: &[],
    },
    Release {
        kubevirt_minor: 8,
        catalog: "v1.6.0",
        instancetypes: Delta {
            added: &[Series("d1")],
            removed: &[],
        },
        preferences: UNCHANGED,
        deprecated: &[],
    },
    Release {
        kubevirt_minor: 9,
        catalog: "v1.7.0",
        instancetypes: UNCHANGED,
        preferences: UNCHANGED,
        deprecated: &[],
    },
];

/// The names in one KubeVirt release's bundle.
pub(super) struct ReleaseNames {
    pub(super) kubevirt_minor: u32,
    pub(super) catalog: &'static str,
    pub(super) instancetypes: BTreeSet<String>,
    pub(super) preferences: BTreeSet<String>,
    pub(super) deprecated: BTreeSet<String>,
}

fn expand_all(groups: &[Names]) -> impl Iterator<Item = String> + '_ {
    groups.iter().flat_map(|g| g.expand())
}

fn apply(names: &mut BTreeSet<String>, delta: Delta) {
    for name in expand_all(delta.removed) {
        names.remove(&name);
    }
    names.extend(expand_all(delta.added));
}

fn all() -> &'static [ReleaseNames] {
    static ALL: OnceLock<Vec<ReleaseNames>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut instancetypes = BTreeSet::new();
        let mut preferences = BTreeSet::new();
        RELEASES
            .iter()
            .map(|release| {
                apply(&mut instancetypes, release.instancetypes);
                apply(&mut preferences, release.preferences);
                ReleaseNames {
                    kubevirt_minor: release.kubevirt_minor,
                    catalog: release.catalog,
                    instancetypes: instancetypes.clone(),
                    preferences: preferences.clone(),
                    deprecated: expand_all(release.deprecated).collect(),
                }
            })
            .collect()
    })
}

/// The bundle of KubeVirt `major.minor`; `None` for v1.0 (no bundle) and unknown releases.
pub(super) fn find(major: u32, minor: u32) -> Option<&'static ReleaseNames> {
    if major != KUBEVIRT_MAJOR {
        return None;
    }
    all().iter().find(|release| release.kubevirt_minor == minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every addition is new and every removal drops a name that was there.
    #[test]
    fn changes_are_consistent() {
        let mut instancetypes = BTreeSet::new();
        let mut preferences = BTreeSet::new();
        for release in &RELEASES {
            let minor = release.kubevirt_minor;
            for (names, delta) in [
                (&mut instancetypes, release.instancetypes),
                (&mut preferences, release.preferences),
            ] {
                for name in expand_all(delta.removed) {
                    assert!(names.remove(&name), "v1.{minor} removes absent {name}");
                }
                for name in expand_all(delta.added) {
                    assert!(names.insert(name.clone()), "v1.{minor} re-adds {name}");
                }
            }
        }
        let ordered = RELEASES
            .windows(2)
            .all(|w| w[0].kubevirt_minor + 1 == w[1].kubevirt_minor);
        assert!(ordered && RELEASES[0].kubevirt_minor == 1);
    }

    #[test]
    fn series_groups_expand_from_the_catalog() {
        assert_eq!(
            Series("cx1").expand(),
            [
                "cx1.2xlarge",
                "cx1.4xlarge",
                "cx1.8xlarge",
                "cx1.large",
                "cx1.medium",
                "cx1.xlarge"
            ]
        );
        assert_eq!(OneGiVariants("m1").expand().len(), 5);
        assert_eq!(Series("d1").expand().len(), 10);
        assert_eq!(Series("rt1").expand().len(), 8);
    }
}
