//! `binding.go`: one binding method per interface, and what each allows.

use serde_json::Value;

use super::{iface_field, is_pod, network_named};
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::count_present;
use crate::model::value::{is_set_at, str_at};

pub(super) fn interface_bindings(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    const BINDINGS: &[&str] = &["bridge", "masquerade", "sriov", "passtBinding", "binding"];
    for (idx, iface) in interfaces.iter().enumerate() {
        let name = str_at(iface, &["name"]);
        let on_pod = is_pod(network_named(networks, name));
        if count_present(iface, BINDINGS) != 1 {
            cx.push(
                iface_field(idx, ""),
                format!("logical {name} interface must have exactly one binding method or binding plugin"),
            );
        }
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
        if is_set_at(iface, &["bridge"]) && on_pod && !cx.profile.permit_bridge_on_pod_network {
            cx.push(
                iface_field(idx, "name"),
                "Bridge on pod network configuration is not enabled under kubevirt-config",
            );
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
