//! `dra.go`: networks backed by DRA resource claims.

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use crate::admission::vmspec::TEMPLATE_SPEC;
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::strings_of;
use crate::model::value::{array_at, is_set_at, present_at, str_at};

pub(super) fn dra_networks(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    if !networks.iter().any(|n| is_set_at(n, &["resourceClaim"])) {
        return;
    }
    if !cx.gate("NetworkDevicesWithDRA") {
        cx.push(
            ts!("networks"),
            "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled",
        );
        return;
    }
    if networks.iter().any(|n| is_set_at(n, &["multus"])) {
        cx.push(
            ts!("networks"),
            "mixing Multus and DRA resourceClaim networks in the same VMI is not supported",
        );
        return;
    }
    let claims = strings_of(array_at(cx.spec, &["resourceClaims"]), "name");
    let mut first_by_pair: HashMap<String, usize> = HashMap::new();
    for (idx, network) in networks.iter().enumerate() {
        let Some(claim) = present_at(network, &["resourceClaim"]) else {
            continue;
        };
        let name = str_at(network, &["name"]);
        let iface = interfaces.iter().find(|i| str_at(i, &["name"]) == name);
        if iface.is_some_and(|i| !is_set_at(i, &["sriov"]) && !is_set_at(i, &["binding"])) {
            cx.push(
                ts!("domain.devices.interfaces"),
                format!("DRA network {name:?} requires an SR-IOV or binding plugin interface"),
            );
        }
        let field = format!("{TEMPLATE_SPEC}.networks[{idx}]");
        let (claim_name, request) = (
            str_at(claim, &["claimName"]),
            str_at(claim, &["requestName"]),
        );
        if claim_name.is_empty() {
            cx.push(
                format!("{field}.resourceClaim.claimName"),
                "claimName is required for DRA network",
            );
        }
        if request.is_empty() {
            cx.push(
                format!("{field}.resourceClaim.requestName"),
                "requestName is required for DRA network",
            );
        }
        if claim_name.is_empty() || request.is_empty() {
            continue;
        }
        if !claims.contains(&claim_name) {
            cx.push(
                format!("{field}.resourceClaim.claimName"),
                format!("network references resourceClaim {claim_name:?} which is not defined in spec.resourceClaims"),
            );
        }
        let pair = format!("{claim_name}/{request}");
        let first = *first_by_pair.entry(pair.clone()).or_insert(idx);
        if first != idx {
            cx.push(
                field,
                format!("duplicate claimName/requestName combination {pair:?}"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{one, profile, run_with};

    /// The causes of a VM with the pod network and `dra` beside it, with `gates` on at v1.9.
    fn causes(dra: &Value, dra_iface: &Value, gates: &[&str]) -> Vec<(String, String)> {
        let patch = json!({
            "domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}}, dra_iface]}},
            "networks": [{"name": "default", "pod": {}}, dra],
            "resourceClaims": [{"name": "nics", "resourceClaimName": "nics"}],
        });
        run_with(&patch, &profile((1, 9), gates))
    }

    fn dra_network(claim: &str, request: &str) -> Value {
        json!({"name": "dra", "resourceClaim": {"claimName": claim, "requestName": request}})
    }

    const GATE: &[&str] = &["NetworkDevicesWithDRA"];

    #[test]
    fn a_dra_network_needs_its_gate_and_an_sriov_or_plugin_interface() {
        let sriov = json!({"name": "dra", "sriov": {}});
        assert_eq!(
            causes(&dra_network("nics", "nic"), &sriov, &[]),
            one(
                "spec.template.spec.networks",
                "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled"
            )
        );
        assert_eq!(
            causes(&dra_network("nics", "nic"), &sriov, GATE),
            Vec::new()
        );
        let plugin = json!({"name": "dra", "binding": {"name": "plugin"}});
        let found = causes(&dra_network("nics", "nic"), &plugin, GATE);
        assert!(
            !found.iter().any(|(_, m)| m.starts_with("DRA network")),
            "{found:?}"
        );
        assert_eq!(
            causes(
                &dra_network("nics", "nic"),
                &json!({"name": "dra", "bridge": {}}),
                GATE
            ),
            one(
                "spec.template.spec.domain.devices.interfaces",
                "DRA network \"dra\" requires an SR-IOV or binding plugin interface"
            )
        );
    }

    #[test]
    fn a_dra_network_names_a_declared_claim_and_a_request() {
        let sriov = json!({"name": "dra", "sriov": {}});
        assert_eq!(
            causes(&dra_network("", "nic"), &sriov, GATE),
            one(
                "spec.template.spec.networks[1].resourceClaim.claimName",
                "claimName is required for DRA network"
            )
        );
        assert_eq!(
            causes(&dra_network("other", "nic"), &sriov, GATE),
            one(
                "spec.template.spec.networks[1].resourceClaim.claimName",
                "network references resourceClaim \"other\" which is not defined in spec.resourceClaims"
            )
        );
    }
}
