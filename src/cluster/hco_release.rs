//! What each HyperConverged Cluster Operator release writes into the KubeVirt CR's feature
//! gates, read from its `controllers/handlers/kubevirt.go` (`controllers/operands/kubevirt.go`
//! in 1.15: `getMandatoryKvFeatureGates`, `getFeatureGateChecks`,
//! `getKvDisabledFeatureGateList`), `api/v1/featuregates` and
//! `pkg/internal/kvfeaturegates/kv-beta-feature-gates.json`. Every HCO release builds one
//! KubeVirt release: HCO 1.15 ships KubeVirt v1.5, … HCO 1.19 ships v1.9.

use super::profile::KubeVirtVersion;

/// An HCO feature gate that turns on KubeVirt gates, and its default when the HyperConverged
/// object does not set it (`ptr.Deref` in `getFeatureGateChecks`, the phase in v1).
#[derive(Debug)]
pub struct MappedGate {
    pub hco: &'static str,
    pub kubevirt: &'static [&'static str],
    pub default: bool,
}

const fn mapped(hco: &'static str, kubevirt: &'static [&'static str], default: bool) -> MappedGate {
    MappedGate {
        hco,
        kubevirt,
        default,
    }
}

/// One HCO release's gate generation.
#[derive(Debug)]
pub struct HcoRelease {
    /// The HCO release (`1.19`).
    pub hco: &'static str,
    pub kubevirt: KubeVirtVersion,
    /// Gates HCO always enables (with KVM emulation off).
    pub mandatory: &'static [&'static str],
    pub mapped: &'static [MappedGate],
    /// The default of `declarativeHotplugVolumes` (on: `DeclarativeHotplugVolumes`, off:
    /// `HotplugVolumes`); `None` before HCO had the gate (`HotplugVolumes` is mandatory).
    pub declarative_hotplug_default: Option<bool>,
    /// The gate `hco.kubevirt.io/deployPasstNetworkBinding: "true"` enables.
    pub passt_gate: Option<&'static str>,
    /// KubeVirt's Beta gates: HCO writes every one it did not enable into
    /// `disabledFeatureGates` (1.19 on; earlier releases write no disabled gates).
    pub beta_gates: &'static [&'static str],
    /// Whether the `v1` API's `featureGates` list matches names case-insensitively
    /// (`HyperConvergedFeatureGates.Index` lower-cases both sides from 1.19).
    pub v1_names_case_insensitive: bool,
    /// Whether HCO writes `persistentReservationConfiguration` (from
    /// `storage.persistentReservationConfiguration.enabled` or the deprecated
    /// `persistentReservation` gate) instead of the `PersistentReservation` gate.
    pub reservation_configuration: bool,
}

const FIRST_MANDATORY: &[&str] = &[
    "CPUManager",
    "Snapshot",
    "HotplugVolumes",
    "ExpandDisks",
    "HostDevices",
    "VMExport",
    "KubevirtSeccompProfile",
    "VMPersistentState",
    "InstancetypeReferencePolicy",
    "WithHostModelCPU",
    "HypervStrictCheck",
];

pub const RELEASES: &[HcoRelease] = &[
    HcoRelease {
        hco: "1.15",
        kubevirt: KubeVirtVersion::new(1, 5),
        mandatory: FIRST_MANDATORY,
        mapped: &[
            mapped("downwardMetrics", &["DownwardMetrics"], false),
            mapped(
                "disableMDevConfiguration",
                &["DisableMDEVConfiguration"],
                false,
            ),
            mapped("persistentReservation", &["PersistentReservation"], false),
            mapped("alignCPUs", &["AlignCPUs"], false),
        ],
        declarative_hotplug_default: None,
        passt_gate: None,
        beta_gates: &[],
        v1_names_case_insensitive: false,
        reservation_configuration: false,
    },
    HcoRelease {
        hco: "1.16",
        kubevirt: KubeVirtVersion::new(1, 6),
        mandatory: &[
            "CPUManager",
            "Snapshot",
            "ExpandDisks",
            "HostDevices",
            "VMExport",
            "KubevirtSeccompProfile",
            "VMPersistentState",
            "InstancetypeReferencePolicy",
            "WithHostModelCPU",
            "HypervStrictCheck",
        ],
        mapped: &[
            mapped("downwardMetrics", &["DownwardMetrics"], false),
            mapped(
                "disableMDevConfiguration",
                &["DisableMDEVConfiguration"],
                false,
            ),
            mapped("persistentReservation", &["PersistentReservation"], false),
            mapped("alignCPUs", &["AlignCPUs"], false),
            mapped(
                "decentralizedLiveMigration",
                &["DecentralizedLiveMigration"],
                false,
            ),
            mapped(
                "enableMultiArchBootImageImport",
                &["MultiArchitecture"],
                false,
            ),
        ],
        declarative_hotplug_default: Some(false),
        passt_gate: Some("PasstIPStackMigration"),
        beta_gates: &[],
        v1_names_case_insensitive: false,
        reservation_configuration: false,
    },
    HcoRelease {
        hco: "1.17",
        kubevirt: KubeVirtVersion::new(1, 7),
        mandatory: &[
            "CPUManager",
            "Snapshot",
            "ExpandDisks",
            "HostDevices",
            "VMExport",
            "KubevirtSeccompProfile",
            "WithHostModelCPU",
            "HypervStrictCheck",
        ],
        mapped: &[
            mapped("downwardMetrics", &["DownwardMetrics"], false),
            mapped(
                "disableMDevConfiguration",
                &["DisableMDEVConfiguration"],
                false,
            ),
            mapped("persistentReservation", &["PersistentReservation"], false),
            mapped("alignCPUs", &["AlignCPUs"], false),
            mapped("videoConfig", &["VideoConfig"], true),
            mapped("objectGraph", &["ObjectGraph"], false),
            mapped(
                "decentralizedLiveMigration",
                &["DecentralizedLiveMigration"],
                false,
            ),
            mapped(
                "enableMultiArchBootImageImport",
                &["MultiArchitecture"],
                false,
            ),
        ],
        declarative_hotplug_default: Some(false),
        passt_gate: Some("PasstIPStackMigration"),
        beta_gates: &[],
        v1_names_case_insensitive: false,
        reservation_configuration: false,
    },
    HcoRelease {
        hco: "1.18",
        kubevirt: KubeVirtVersion::new(1, 8),
        mandatory: &[
            "CPUManager",
            "Snapshot",
            "ExpandDisks",
            "HostDevices",
            "VMExport",
            "KubevirtSeccompProfile",
            "LiveUpdateNADRef",
            "PanicDevices",
            "WithHostModelCPU",
            "HypervStrictCheck",
        ],
        mapped: &[
            mapped("downwardMetrics", &["DownwardMetrics"], false),
            mapped("persistentReservation", &["PersistentReservation"], false),
            mapped("alignCPUs", &["AlignCPUs"], false),
            mapped("videoConfig", &["VideoConfig"], true),
            mapped("objectGraph", &["ObjectGraph"], false),
            mapped(
                "decentralizedLiveMigration",
                &["DecentralizedLiveMigration"],
                true,
            ),
            mapped(
                "incrementalBackup",
                &["IncrementalBackup", "UtilityVolumes"],
                false,
            ),
            mapped("containerPathVolumes", &["ContainerPathVolumes"], false),
        ],
        declarative_hotplug_default: Some(false),
        passt_gate: Some("PasstBinding"),
        beta_gates: &[],
        v1_names_case_insensitive: false,
        reservation_configuration: false,
    },
    HcoRelease {
        hco: "1.19",
        kubevirt: KubeVirtVersion::new(1, 9),
        mandatory: &[
            "CPUManager",
            "Snapshot",
            "HostDevices",
            "KubevirtSeccompProfile",
            "HypervStrictCheck",
        ],
        mapped: &[
            mapped("downwardMetrics", &["DownwardMetrics"], false),
            mapped("alignCPUs", &["AlignCPUs"], false),
            mapped("objectGraph", &["ObjectGraph"], false),
            mapped(
                "decentralizedLiveMigration",
                &["DecentralizedLiveMigration"],
                true,
            ),
            mapped(
                "incrementalBackup",
                &["IncrementalBackup", "UtilityVolumes"],
                false,
            ),
            mapped("containerPathVolumes", &["ContainerPathVolumes"], false),
            mapped("template", &["Template"], true),
        ],
        declarative_hotplug_default: Some(true),
        passt_gate: Some("PasstBinding"),
        // KubeVirt v1.9's Beta gates (`featuregate/active.go`), as HCO 1.19 lists them.
        beta_gates: &[
            "DeclarativeHotplugVolumes",
            "ExternalNetResourceInjection",
            "GPUsWithDRA",
            "HostDevicesWithDRA",
            "ImageVolume",
            "KubevirtSeccompProfile",
            "LibvirtHooksServerAndClient",
            "NodeRestriction",
            "OptOutRoleAggregation",
            "PasstBinding",
            "PodSecondaryInterfaceNamingUpgrade",
            "RebootPolicy",
            "Snapshot",
            "Template",
            "VmiMemoryOverheadReport",
            "WorkloadEncryptionSEV",
        ],
        v1_names_case_insensitive: true,
        reservation_configuration: true,
    },
];

/// The HCO release that ships a KubeVirt release. KubeVirt releases before v1.5 get HCO
/// 1.15's generation (older HCO releases are not modelled).
pub fn for_kubevirt(version: KubeVirtVersion) -> &'static HcoRelease {
    RELEASES
        .iter()
        .rev()
        .find(|r| r.kubevirt <= version)
        .unwrap_or(&RELEASES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_each_hco_release_with_its_kubevirt_release() {
        let hco = |minor| for_kubevirt(KubeVirtVersion::new(1, minor)).hco;
        assert_eq!(hco(9), "1.19");
        assert_eq!(hco(8), "1.18");
        assert_eq!(hco(5), "1.15");
        assert_eq!(hco(2), "1.15");
    }

    #[test]
    fn only_1_19_disables_beta_gates_and_each_list_is_sorted() {
        for release in RELEASES {
            assert_eq!(release.beta_gates.is_empty(), release.hco != "1.19");
            assert!(release.beta_gates.is_sorted(), "{}", release.hco);
        }
    }
}
