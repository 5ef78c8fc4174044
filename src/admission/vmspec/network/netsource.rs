//! `netsource.go`: one pod network at most, one source per network.

use serde_json::Value;

use super::{is_default_multus, is_pod};
use crate::admission::vmspec::TEMPLATE_SPEC;
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::count_present;
use crate::model::value::{is_set_at, str_at};

pub(super) fn single_pod_network(cx: &mut Ctx, networks: &[Value]) {
    let pods = networks.iter().filter(|n| is_pod(Some(n))).count();
    let defaults = networks.iter().filter(|n| is_default_multus(n)).count();
    if pods > 1 {
        let field = ts!("interfaces");
        cx.push(
            field,
            format!("more than one interface is connected to a pod network in {field}"),
        );
    }
    if defaults > 1 {
        cx.push(
            ts!("networks"),
            "Multus CNI should only have one default network",
        );
    }
    if pods > 0 && defaults > 0 {
        cx.push(
            ts!("networks"),
            "Pod network cannot be defined when Multus default network is defined",
        );
    }
}

pub(super) fn network_sources(cx: &mut Ctx, networks: &[Value]) {
    for (idx, network) in networks.iter().enumerate() {
        let count = count_present(network, &["pod", "multus", "resourceClaim"]);
        let field = format!("{TEMPLATE_SPEC}.networks[{idx}]");
        match count {
            0 => cx.push(field, "should have a network type"),
            1 => {}
            _ => cx.push(field, "should have only one network type"),
        }
    }
    let unnamed = networks.iter().position(|n| {
        is_set_at(n, &["multus"]) && str_at(n, &["multus", "networkName"]).is_empty()
    });
    if let Some(idx) = unnamed {
        cx.push(
            format!("{TEMPLATE_SPEC}.networks[{idx}]"),
            "CNI delegating plugin must have a networkName",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::run;

    /// Causes for the base VM with `interfaces` and `networks`.
    fn causes(interfaces: &Value, networks: &Value) -> Vec<(String, String)> {
        run(&json!({"domain": {"devices": {"interfaces": interfaces}}, "networks": networks}))
    }

    fn has(causes: &[(String, String)], field: &str, message: &str) -> bool {
        causes.iter().any(|(f, m)| f == field && m == message)
    }

    #[test]
    fn one_default_multus_network_alone_is_allowed() {
        let interfaces = json!([{"name": "default", "bridge": {}}]);
        let networks =
            json!([{"name": "default", "multus": {"networkName": "br", "default": true}}]);
        assert_eq!(causes(&interfaces, &networks), Vec::new());
    }

    #[test]
    fn a_pod_network_beside_a_default_multus_network_is_refused() {
        let interfaces =
            json!([{"name": "default", "masquerade": {}}, {"name": "second", "bridge": {}}]);
        let networks = json!([{"name": "default", "pod": {}},
            {"name": "second", "multus": {"networkName": "br", "default": true}}]);
        let found = causes(&interfaces, &networks);
        assert!(
            has(
                &found,
                "spec.template.spec.networks",
                "Pod network cannot be defined when Multus default network is defined"
            ),
            "{found:?}"
        );
        let two_pods = json!([{"name": "default", "pod": {}}, {"name": "second", "pod": {}}]);
        let found = causes(&interfaces, &two_pods);
        assert!(
            has(
                &found,
                "spec.template.spec.interfaces",
                "more than one interface is connected to a pod network in spec.template.spec.interfaces"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn a_network_needs_a_source() {
        let interfaces = json!([{"name": "default", "bridge": {}}]);
        let found = causes(&interfaces, &json!([{"name": "default"}]));
        assert!(
            has(
                &found,
                "spec.template.spec.networks[0]",
                "should have a network type"
            ),
            "{found:?}"
        );
    }

    #[test]
    fn a_pod_network_beside_a_secondary_multus_network_is_allowed() {
        let interfaces =
            json!([{"name": "default", "masquerade": {}}, {"name": "second", "bridge": {}}]);
        let networks = json!([{"name": "default", "pod": {}},
            {"name": "second", "multus": {"networkName": "br"}}]);
        assert_eq!(causes(&interfaces, &networks), Vec::new());
    }
}
