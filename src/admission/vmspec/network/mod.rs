//! KubeVirt's network admitter (`pkg/network/admitter`): `validator.go` runs the checks of the
//! modules below in its order; names shared by networks and interfaces.

mod binding;
pub(super) mod discontinued;
mod dra;
mod netiface;
mod netsource;

use foldhash::{HashSet, HashSetExt};
use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use crate::model::value::{array_at, bool_at, is_set_at, str_at};

use binding::interface_bindings;
use dra::dra_networks;
use netiface::{interface_fields, interface_states};
use netsource::{network_sources, single_pod_network};

/// `netadmitter.Validator.Validate`.
pub(super) fn network(cx: &mut Ctx) {
    let networks = array_at(cx.spec, &["networks"]);
    let interfaces = cx.devices("interfaces");
    single_pod_network(cx, networks);
    network_sources(cx, networks);
    interface_states(cx, networks, interfaces);
    interface_bindings(cx, networks, interfaces);
    unique_names(cx, networks, interfaces, false);
    dra_networks(cx, networks, interfaces);
    networks_have_interfaces(cx, networks, interfaces);
    unique_names(cx, networks, interfaces, true);
    interfaces_have_networks(cx, networks, interfaces);
    for (idx, iface) in interfaces.iter().enumerate() {
        interface_fields(
            cx,
            idx,
            iface,
            network_named(networks, str_at(iface, &["name"])),
        );
    }
}

fn network_named<'a>(networks: &'a [Value], name: &str) -> Option<&'a Value> {
    networks.iter().rev().find(|n| str_at(n, &["name"]) == name)
}

fn is_pod(network: Option<&Value>) -> bool {
    network.is_some_and(|n| is_set_at(n, &["pod"]))
}

fn is_default_multus(network: &Value) -> bool {
    is_set_at(network, &["multus"]) && bool_at(network, &["multus", "default"]) == Some(true)
}

pub(super) fn iface_field(idx: usize, child: &str) -> String {
    if child.is_empty() {
        format!("{TEMPLATE_SPEC}.domain.devices.interfaces[{idx}]")
    } else {
        format!("{TEMPLATE_SPEC}.domain.devices.interfaces[{idx}].{child}")
    }
}

/// Duplicate network names, or (`interfaces`) duplicate interface names.
fn unique_names(cx: &mut Ctx, networks: &[Value], interfaces: &[Value], of_interfaces: bool) {
    let list = if of_interfaces { interfaces } else { networks };
    let mut seen = HashSet::new();
    for (idx, item) in list.iter().enumerate() {
        let name = str_at(item, &["name"]);
        if seen.insert(name) {
            continue;
        }
        if of_interfaces {
            cx.push(
                iface_field(idx, "name"),
                "Only one interface can be connected to one specific network",
            );
        } else {
            cx.push(
                format!("{TEMPLATE_SPEC}.networks[{idx}].name"),
                format!("Network with name {name:?} already exists, every network must have a unique name"),
            );
        }
    }
}

fn networks_have_interfaces(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    for (idx, network) in networks.iter().enumerate() {
        let name = str_at(network, &["name"]);
        if !interfaces.iter().any(|i| str_at(i, &["name"]) == name) {
            let field = format!("{TEMPLATE_SPEC}.networks[{idx}].name");
            cx.push(field.clone(), format!("{field} '{name}' not found."));
        }
    }
}

fn interfaces_have_networks(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    for (idx, iface) in interfaces.iter().enumerate() {
        let name = str_at(iface, &["name"]);
        if network_named(networks, name).is_none() {
            let field = iface_field(idx, "name");
            cx.push(field.clone(), format!("{field} '{name}' not found."));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};
    use crate::cluster::profile::ClusterProfile;

    #[test]
    fn networks_and_interfaces() {
        let iface_name = "spec.template.spec.domain.devices.interfaces[0].name";
        assert_eq!(
            run(&json!({"networks": [{"name": "other", "pod": {}}]})),
            vec![
                (
                    iface_name.to_owned(),
                    "Masquerade interface only implemented with pod network".to_owned()
                ),
                (
                    "spec.template.spec.networks[0].name".to_owned(),
                    "spec.template.spec.networks[0].name 'other' not found.".to_owned()
                ),
                (
                    iface_name.to_owned(),
                    format!("{iface_name} 'default' not found.")
                ),
            ]
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}}, {"name": "default", "bridge": {}}]}}})
            ),
            one(
                "spec.template.spec.domain.devices.interfaces[1].name",
                "Only one interface can be connected to one specific network"
            )
        );
        assert_eq!(
            run(&json!({"networks": [{"name": "default", "multus": {"networkName": "br"}}]})),
            one(
                iface_name,
                "Masquerade interface only implemented with pod network"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}, "macAddress": "02:00:00:00:00", "model": "rtl"}]}}})
            ),
            vec![
                (
                    "spec.template.spec.domain.devices.interfaces[0].model".to_owned(),
                    format!("interface {iface_name} uses model rtl that is not supported.")
                ),
                (
                    "spec.template.spec.domain.devices.interfaces[0].macAddress".to_owned(),
                    format!("interface {iface_name} has malformed MAC address (02:00:00:00:00).")
                ),
            ]
        );
        let bridge =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "bridge": {}}]}}});
        assert_eq!(run(&bridge), Vec::new());
        let strict = ClusterProfile {
            permit_bridge_on_pod_network: false,
            ..ClusterProfile::default()
        };
        assert_eq!(
            run_with(&bridge, &strict),
            one(
                iface_name,
                "Bridge on pod network configuration is not enabled under kubevirt-config"
            )
        );
        let passt = json!({"domain": {"devices": {"interfaces": [{"name": "default", "passtBinding": {}}]}}});
        assert_eq!(run(&passt), Vec::new());
        assert_eq!(
            run_with(&passt, &profile((1, 8), &[])),
            one(iface_name, "PasstBinding feature gate is not enabled")
        );
    }
}
