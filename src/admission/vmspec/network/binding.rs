//! `binding.go`: one binding method per interface, and what each allows.

use serde_json::Value;

use super::{iface_field, is_pod, network_named};
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::count_present;
use crate::model::value::{is_set_at, str_at};

/// The interface binding methods; a binding plugin (`binding`) is the other way to bind.
const BINDING_METHODS: &[&str] = &["bridge", "masquerade", "sriov", "passtBinding"];

/// Before v1.8, the discontinued methods still counted as binding methods
/// (`hasInterfaceBindingMethod`, pkg/network/admitter/binding.go at v1.7.0).
const BINDING_METHODS_BEFORE_V1_8: &[&str] =
    &["bridge", "slirp", "masquerade", "sriov", "macvtap", "passt"];

/// From v1.9 an interface has exactly one binding method or plugin; before, only a plugin
/// together with a method is refused, and an interface with neither is admitted
/// (`validateInterfaceBindingExists`, pkg/network/admitter/binding.go at v1.8.0 and v1.9.0).
fn binding_count(cx: &mut Ctx, idx: usize, iface: &Value, name: &str) {
    let methods = count_present(
        iface,
        if cx.profile.version.at_least(1, 8) {
            BINDING_METHODS
        } else {
            BINDING_METHODS_BEFORE_V1_8
        },
    );
    let plugin = is_set_at(iface, &["binding"]);
    if cx.profile.version.at_least(1, 9) {
        if methods + usize::from(plugin) != 1 {
            cx.push(
                iface_field(idx, ""),
                format!("logical {name} interface must have exactly one binding method or binding plugin"),
            );
        }
    } else if plugin && methods > 0 {
        cx.push(
            iface_field(idx, "binding"),
            format!("logical {name} interface cannot have both binding plugin and interface binding method"),
        );
    }
}

/// Up to v1.7, macvtap and the old passt binding were validated behind their gates, on Multus
/// and pod networks (pkg/network/admitter/macvtap.go and passt.go at v1.7.0); v1.8 refuses them
/// on create instead (`discontinued_bindings`).
fn gated_discontinued_binding(cx: &mut Ctx, idx: usize, iface: &Value, networks: &[Value]) {
    let network = network_named(networks, str_at(iface, &["name"]));
    if is_set_at(iface, &["macvtap"]) {
        if !cx.gate("Macvtap") {
            cx.push(
                iface_field(idx, "name"),
                "Macvtap feature gate is not enabled",
            );
        }
        if !network.is_some_and(|n| is_set_at(n, &["multus"])) {
            cx.push(
                iface_field(idx, "name"),
                "Macvtap interface only implemented with Multus network",
            );
        }
    }
    if is_set_at(iface, &["passt"]) {
        if !cx.gate("Passt") {
            cx.push(
                iface_field(idx, "name"),
                "Passt feature gate is not enabled",
            );
        }
        if !is_pod(network) {
            cx.push(
                iface_field(idx, "name"),
                "Passt interface only implemented with pod network",
            );
        }
    }
}

/// Up to v1.2 slirp was a binding of the pod network behind a configuration switch
/// (`validateInterfaceNetworkBasics`, vmi-create-admitter.go at v1.2.0).
fn slirp_before_v1_3(cx: &mut Ctx, idx: usize, on_pod: bool) {
    let message = if !on_pod {
        "Slirp interface only implemented with pod network"
    } else if !cx.profile.permit_slirp_interface {
        "Slirp interface is not enabled in kubevirt-config"
    } else {
        return;
    };
    cx.push(iface_field(idx, "name"), message);
}

pub(super) fn interface_bindings(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    for (idx, iface) in interfaces.iter().enumerate() {
        let name = str_at(iface, &["name"]);
        let on_pod = is_pod(network_named(networks, name));
        binding_count(cx, idx, iface, name);
        if is_set_at(iface, &["masquerade"]) && !on_pod {
            cx.push(
                iface_field(idx, "name"),
                "Masquerade interface only implemented with pod network",
            );
        }
        if is_set_at(iface, &["masquerade"])
            && str_at(iface, &["macAddress"]) == "02:00:00:00:00:00"
        {
            cx.push(
                iface_field(idx, "macAddress"),
                "The requested MAC address is reserved for the in-pod bridge. Please choose another one.",
            );
        }
        if is_set_at(iface, &["slirp"]) && !cx.profile.version.at_least(1, 3) {
            slirp_before_v1_3(cx, idx, on_pod);
        }
        if is_set_at(iface, &["bridge"]) && on_pod && !cx.profile.permit_bridge_on_pod_network {
            cx.push(
                iface_field(idx, "name"),
                "Bridge on pod network configuration is not enabled under kubevirt-config",
            );
        }
        if is_set_at(iface, &["binding"])
            && !cx.profile.version.at_least(1, 5)
            && !cx.gate("NetworkBindingPlugins")
        {
            cx.push(
                iface_field(idx, "name"),
                "Binding plugins feature gate is not enabled",
            );
        }
        if !cx.profile.version.at_least(1, 8) {
            gated_discontinued_binding(cx, idx, iface, networks);
        }
        if is_set_at(iface, &["passtBinding"]) && !cx.gate("PasstBinding") {
            cx.push(
                iface_field(idx, "name"),
                "PasstBinding feature gate is not enabled",
            );
        }
        if is_set_at(iface, &["passtBinding"]) && !on_pod {
            cx.push(
                iface_field(idx, "name"),
                "PasstBinding interface only implemented with pod network",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run_with};

    fn with_interface(iface: &serde_json::Value) -> serde_json::Value {
        json!({"domain": {"devices": {"interfaces": [iface]}}})
    }

    /// pkg/network/admitter/binding.go, `validateInterfaceBindingExists`: v1.9.0 counts the
    /// bindings, v1.8.0 only refuses a plugin next to a method.
    #[test]
    fn an_interface_needs_exactly_one_binding_from_v1_9_only() {
        let none = with_interface(&json!({"name": "default"}));
        let two = with_interface(&json!({"name": "default", "bridge": {}, "masquerade": {}}));
        for spec in [&none, &two] {
            assert_eq!(
                run_with(spec, &profile((1, 9), &[])),
                one(
                    "spec.template.spec.domain.devices.interfaces[0]",
                    "logical default interface must have exactly one binding method or binding plugin"
                )
            );
            for minor in 4..=8 {
                assert_eq!(
                    run_with(spec, &profile((1, minor), &[])),
                    vec![],
                    "v1.{minor}"
                );
            }
        }
        let plugin_and_method =
            with_interface(&json!({"name": "default", "masquerade": {}, "binding": {"name": "x"}}));
        assert_eq!(
            run_with(&plugin_and_method, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.interfaces[0].binding",
                "logical default interface cannot have both binding plugin and interface binding method"
            )
        );
    }

    /// pkg/network/admitter/binding.go at v1.4.0, `validateBindingPlugin`: the plugins were behind
    /// the NetworkBindingPlugins gate until v1.5 made them GA.
    #[test]
    fn binding_plugins_need_their_gate_before_v1_5() {
        let plugin = with_interface(&json!({"name": "default", "binding": {"name": "custom"}}));
        let refused = one(
            "spec.template.spec.domain.devices.interfaces[0].name",
            "Binding plugins feature gate is not enabled",
        );
        assert_eq!(run_with(&plugin, &profile((1, 4), &[])), refused);
        assert_eq!(
            run_with(&plugin, &profile((1, 4), &["NetworkBindingPlugins"])),
            vec![]
        );
        assert_eq!(run_with(&plugin, &profile((1, 5), &[])), vec![]);
    }

    /// pkg/network/admitter/macvtap.go at v1.7.0; v1.8.0 refuses the binding on create, as
    /// discontinued, whatever the gates.
    #[test]
    fn macvtap_is_validated_behind_its_gate_before_v1_8() {
        let vm = json!({
            "domain": {"devices": {"interfaces": [{"name": "net1", "macvtap": {}}]}},
            "networks": [{"name": "net1", "multus": {"networkName": "macvtap-net"}}]
        });
        assert_eq!(run_with(&vm, &profile((1, 4), &["Macvtap"])), vec![]);
        // From v1.5 the configured gate itself is refused first (featuregate.ValidateFeatureGates).
        assert_eq!(
            run_with(&vm, &profile((1, 7), &["Macvtap"])),
            one(
                "",
                "Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives."
            )
        );
        assert_eq!(
            run_with(&vm, &profile((1, 7), &[])),
            one(
                "spec.template.spec.domain.devices.interfaces[0].name",
                "Macvtap feature gate is not enabled"
            )
        );
        assert_eq!(
            run_with(&vm, &profile((1, 8), &[])),
            one(
                "spec.domain.devices.interfaces[0].macvtap",
                "Macvtap network binding has been discontinued since v1.3"
            )
        );
    }

    #[test]
    fn without_bridge_on_the_pod_network_masquerade_is_still_allowed() {
        let mut no_bridge = profile((1, 9), &[]);
        no_bridge.permit_bridge_on_pod_network = false;
        let masquerade = with_interface(&json!({"name": "default", "masquerade": {}}));
        assert_eq!(run_with(&masquerade, &no_bridge), Vec::new());
        let bridge = with_interface(&json!({"name": "default", "bridge": {}}));
        assert_eq!(
            run_with(&bridge, &no_bridge),
            one(
                "spec.template.spec.domain.devices.interfaces[0].name",
                "Bridge on pod network configuration is not enabled under kubevirt-config"
            )
        );
    }
}
