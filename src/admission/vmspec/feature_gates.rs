//! Feature gates as the webhook sees them (`virtconfig`), and `featuregate.ValidateFeatureGates`:
//! discontinued gates a VM still uses, refused on CREATE.

use serde_json::Value;

use crate::admission::Cause;
use crate::cluster::profile::ClusterProfile;
use crate::model::value::{array_at, is_set_at};

/// Gates that are on without configuration from a release on: GA ones, and Beta ones from v1.9
/// (earlier releases left Beta gates off).
const DEFAULT_ON_SINCE: &[(&str, u32, u32)] = &[
    ("NUMA", 1, 4),
    ("PasstBinding", 1, 9),
    ("WorkloadEncryptionSEV", 1, 9),
    ("DeclarativeHotplugVolumes", 1, 9),
    ("GPUsWithDRA", 1, 9),
    ("HostDevicesWithDRA", 1, 9),
    ("RebootPolicy", 1, 9),
];

pub(super) fn gate(profile: &ClusterProfile, name: &str) -> bool {
    let default_on = DEFAULT_ON_SINCE
        .iter()
        .any(|&(gate, major, minor)| gate == name && profile.version.at_least(major, minor));
    profile.has_feature_gate(name) || (default_on && !profile.has_disabled_feature_gate(name))
}

/// The VM admitter's causes. At v1.4 it computed them and then overwrote them with the network
/// validator's (`causes = netValidator.ValidateCreation()`, vms-admitter.go at v1.4.0): a VM
/// using a discontinued binding with its gate still configured was admitted.
pub(super) fn discontinued_feature_gates(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    if !profile.version.at_least(1, 5) {
        return Vec::new();
    }
    discontinued_gates_in_use(spec, profile)
}

/// `ValidateFeatureGates`: a refusal for each configured discontinued gate whose binding the
/// VMI spec `spec` uses (the gates were discontinued in v1.3).
pub(super) fn discontinued_gates_in_use(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let uses = |binding: &str| {
        array_at(spec, &["domain", "devices", "interfaces"])
            .iter()
            .any(|i| is_set_at(i, &[binding]))
    };
    profile
        .feature_gates
        .iter()
        .filter_map(|gate| match gate.as_str() {
            "Passt" if uses("passt") => Some(
                "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
            ),
            "Macvtap" if uses("macvtap") => Some(
                "Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
            ),
            _ => None,
        })
        .map(|message| Cause::new("", message))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run_vm};

    /// vms-admitter.go at v1.4.0 overwrites the discontinued-gate causes with the network
    /// validator's; v1.5.0 returns them.
    #[test]
    fn a_discontinued_binding_with_its_gate_is_refused_from_v1_5() {
        let vm = json!({"spec": {"template": {"spec": {
            "domain": {"devices": {"interfaces": [{"name": "default", "passt": {}}]}}
        }}}});
        assert_eq!(run_vm(&vm, &profile((1, 4), &["Passt"]), true), vec![]);
        assert_eq!(
            run_vm(&vm, &profile((1, 5), &["Passt"]), true),
            one(
                "",
                "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives."
            )
        );
    }

    #[test]
    fn a_discontinued_gate_without_its_binding_is_no_refusal() {
        let vm = json!({});
        assert_eq!(
            run_vm(&vm, &profile((1, 5), &["Passt", "Macvtap"]), true),
            vec![]
        );
    }
}
