//! The cluster profile: the KubeVirt release and configuration a manifest is judged against.
//! Defaults are KubeVirt's for an unconfigured cluster; a `KubeVirt` object in the repository
//! (its `spec.configuration`) overrides them.

use serde_json::Value;

pub use super::version::KubeVirtVersion;

/// Binding of the default pod-network interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodBinding {
    Bridge,
    Masquerade,
    Slirp,
}

/// What the cluster KubeVirt runs in looks like.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterProfile {
    pub version: KubeVirtVersion,
    /// `architectureConfiguration.defaultArchitecture`, else the control plane's (amd64).
    pub default_architecture: String,
    /// Global `machineType` override (v1.1+).
    pub machine_type: Option<String>,
    /// `architectureConfiguration.<arch>.machineType`.
    pub arch_machine_types: Vec<(String, String)>,
    pub eviction_strategy: Option<String>,
    /// `cpuRequest` (KubeVirt's default is 100m).
    pub cpu_request: Option<Value>,
    /// `developerConfiguration.memoryOvercommit` (percent, v1.0–v1.6 memory-request default).
    pub memory_overcommit: i64,
    pub feature_gates: Vec<String>,
    /// `developerConfiguration.disabledFeatureGates`: gates turned off, Beta ones included.
    pub disabled_feature_gates: Vec<String>,
    /// `persistentReservationConfiguration.enabled` (v1.9+).
    pub persistent_reservation: Option<bool>,
    pub pod_binding: PodBinding,
    pub permit_bridge_on_pod_network: bool,
    /// `network.permitSlirpInterface` (up to v1.2; slirp was discontinued in v1.3).
    pub permit_slirp_interface: bool,
    /// `instancetype.referencePolicy`: reference, expand or expandAll.
    pub reference_policy: String,
    /// Whether virt-operator deploys the common-instancetypes catalog.
    pub deploy_catalog: bool,
}

impl ClusterProfile {
    pub fn new(version: KubeVirtVersion) -> Self {
        Self {
            version,
            default_architecture: "amd64".to_owned(),
            machine_type: None,
            arch_machine_types: Vec::new(),
            eviction_strategy: None,
            cpu_request: None,
            memory_overcommit: 100,
            feature_gates: Vec::new(),
            disabled_feature_gates: Vec::new(),
            persistent_reservation: None,
            pod_binding: PodBinding::Bridge,
            permit_bridge_on_pod_network: true,
            permit_slirp_interface: false,
            reference_policy: "reference".to_owned(),
            deploy_catalog: true,
        }
    }

    /// Applies a `KubeVirt` object's `spec.configuration`.
    pub fn configure(&mut self, configuration: &Value) {
        let get = |path: &[&str]| {
            path.iter()
                .try_fold(configuration, |node, key| node.get(key))
        };
        let text = |path: &[&str]| get(path).and_then(Value::as_str).map(str::to_owned);
        if let Some(arch) = text(&["architectureConfiguration", "defaultArchitecture"]) {
            self.default_architecture = arch;
        }
        if let Some(machine) = text(&["machineType"]) {
            self.machine_type = Some(machine);
        }
        if let Some(archs) = get(&["architectureConfiguration"]).and_then(Value::as_object) {
            for (arch, config) in archs {
                if let Some(machine) = config.get("machineType").and_then(Value::as_str) {
                    self.arch_machine_types
                        .push((arch.clone(), machine.to_owned()));
                }
            }
        }
        if let Some(strategy) = text(&["evictionStrategy"]) {
            self.eviction_strategy = Some(strategy);
        }
        if let Some(cpu) = get(&["cpuRequest"]) {
            self.cpu_request = Some(cpu.clone());
        }
        if let Some(percent) =
            get(&["developerConfiguration", "memoryOvercommit"]).and_then(Value::as_i64)
        {
            self.memory_overcommit = percent;
        }
        if let Some(gates) =
            get(&["developerConfiguration", "featureGates"]).and_then(Value::as_array)
        {
            self.feature_gates
                .extend(gates.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        if let Some(gates) =
            get(&["developerConfiguration", "disabledFeatureGates"]).and_then(Value::as_array)
        {
            self.disabled_feature_gates
                .extend(gates.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        if let Some(enabled) =
            get(&["persistentReservationConfiguration", "enabled"]).and_then(Value::as_bool)
        {
            self.persistent_reservation = Some(enabled);
        }
        if let Some(binding) = text(&["network", "defaultNetworkInterface"]) {
            self.pod_binding = match binding.as_str() {
                "masquerade" => PodBinding::Masquerade,
                "slirp" => PodBinding::Slirp,
                _ => PodBinding::Bridge,
            };
        }
        if let Some(permit) =
            get(&["network", "permitBridgeInterfaceOnPodNetwork"]).and_then(Value::as_bool)
        {
            self.permit_bridge_on_pod_network = permit;
        }
        if let Some(permit) = get(&["network", "permitSlirpInterface"]).and_then(Value::as_bool) {
            self.permit_slirp_interface = permit;
        }
        if let Some(policy) = text(&["instancetype", "referencePolicy"]) {
            self.reference_policy = policy;
        }
        if let Some(enabled) =
            get(&["commonInstancetypesDeployment", "enabled"]).and_then(Value::as_bool)
        {
            self.deploy_catalog = enabled;
        }
    }

    /// Whether `featureGates` lists a gate: KubeVirt then enables it even when
    /// `disabledFeatureGates` lists it too (`featuregate.IsEnabled`, `isFeatureGateEnabled`).
    pub fn has_feature_gate(&self, gate: &str) -> bool {
        self.feature_gates.iter().any(|g| g == gate)
    }

    pub fn has_disabled_feature_gate(&self, gate: &str) -> bool {
        self.disabled_feature_gates.iter().any(|g| g == gate)
    }

    /// `PersistentReservationEnabled`: the `PersistentReservation` gate until v1.8 (Alpha);
    /// from v1.9 `persistentReservationConfiguration.enabled` when set, else the gate listed in
    /// `featureGates` (the gate is GA, yet not on by default).
    pub fn persistent_reservation_enabled(&self) -> bool {
        let configured = self
            .persistent_reservation
            .filter(|_| self.version.at_least(1, 9));
        configured.unwrap_or_else(|| self.has_feature_gate("PersistentReservation"))
    }

    /// The machine type KubeVirt defaults for an architecture (`pkg/virt-config/virt-config.go`,
    /// `GetMachineType`).
    pub fn machine_type_for(&self, architecture: &str) -> String {
        // The deprecated global override wins over the per-architecture setting.
        if self
            .version
            .has_change(super::backports::GLOBAL_MACHINE_TYPE)
            && let Some(machine) = &self.machine_type
        {
            return machine.clone();
        }
        if let Some((_, machine)) = self
            .arch_machine_types
            .iter()
            .find(|(arch, _)| arch == architecture)
        {
            return machine.clone();
        }
        match architecture {
            "arm64" => "virt".to_owned(),
            "s390x" if self.version.at_least(1, 3) => "s390-ccw-virtio".to_owned(),
            "ppc64le" if !self.version.at_least(1, 7) => "pseries".to_owned(),
            _ => "q35".to_owned(),
        }
    }
}

impl Default for ClusterProfile {
    fn default() -> Self {
        Self::new(KubeVirtVersion::LATEST)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions() {
        assert_eq!("v1.9".parse(), Ok(KubeVirtVersion::new(1, 9)));
        assert_eq!("1.6.2".parse(), Ok(KubeVirtVersion::release(1, 6, 2)));
        assert!("v2.0".parse::<KubeVirtVersion>().is_err());
        assert!("latest".parse::<KubeVirtVersion>().is_err());
    }

    #[test]
    fn persistent_reservation_follows_the_field_from_v1_9_and_the_gate_before() {
        let at = |minor, configuration: serde_json::Value| {
            let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
            profile.configure(&configuration);
            profile.persistent_reservation_enabled()
        };
        let field = serde_json::json!({"persistentReservationConfiguration": {"enabled": true}});
        let gate = serde_json::json!({"developerConfiguration": {"featureGates": ["PersistentReservation"]}});
        let both = serde_json::json!({
            "persistentReservationConfiguration": {"enabled": false},
            "developerConfiguration": {"featureGates": ["PersistentReservation"]}
        });
        assert!(!at(9, serde_json::json!({})));
        assert!(at(9, field.clone()));
        assert!(at(9, gate.clone()));
        assert!(!at(9, both.clone()));
        assert!(!at(8, field));
        assert!(at(8, gate));
        assert!(at(8, both));
    }

    #[test]
    fn an_enabled_gate_wins_over_the_same_gate_disabled() {
        let mut profile = ClusterProfile::default();
        profile.configure(&serde_json::json!({"developerConfiguration": {
            "featureGates": ["RebootPolicy"], "disabledFeatureGates": ["RebootPolicy"]}}));
        assert!(profile.has_feature_gate("RebootPolicy"));
    }

    #[test]
    fn machine_type_defaults() {
        let mut profile = ClusterProfile::default();
        assert_eq!(profile.machine_type_for("amd64"), "q35");
        assert_eq!(profile.machine_type_for("arm64"), "virt");
        profile.configure(&serde_json::json!({"machineType": "pc-q35-rhel9.6.0"}));
        assert_eq!(profile.machine_type_for("amd64"), "pc-q35-rhel9.6.0");
    }
}
