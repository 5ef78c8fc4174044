//! The pod's DNS policy and configuration, as Kubernetes validates them for the VMI.

use std::net::IpAddr;

use super::context::Ctx;
use super::names::dns1123_subdomain;
use super::read::go_list;
use crate::model::value::{array_at, present_at, str_at, strs_at};

pub(super) fn dns(cx: &mut Ctx) {
    let policy = str_at(cx.spec, &["dnsPolicy"]);
    if !matches!(
        policy,
        "" | "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None"
    ) {
        cx.push(
            ts!("dnsPolicy"),
            format!("DNSPolicy: {policy} is not supported, valid values: [ClusterFirstWithHostNet ClusterFirst Default None ]"),
        );
    }
    let config = present_at(cx.spec, &["dnsConfig"]);
    let nameservers = config
        .map(|c| strs_at(c, &["nameservers"]))
        .unwrap_or_default();
    if policy == "None" {
        if config.is_none() {
            cx.push(
                ts!("dnsConfig"),
                "must provide `dnsConfig` when `dnsPolicy` is None",
            );
            return;
        }
        if nameservers.is_empty() {
            cx.push(
                "nameservers",
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            );
            return;
        }
    }
    let Some(config) = config else {
        return;
    };
    if nameservers.len() > 3 {
        cx.push(
            "nameservers",
            format!(
                "must not have more than 3 nameservers: {}",
                go_list(&nameservers)
            ),
        );
    }
    for server in &nameservers {
        if server.parse::<IpAddr>().is_err() {
            cx.push("nameservers", format!("must be valid IP address: {server}"));
        }
    }
    let searches = strs_at(config, &["searches"]);
    if searches.len() > 6 {
        cx.push("searchDomains", "must not have more than 6 search paths");
    }
    if searches.join(" ").len() > 256 {
        cx.push(
            "searchDomains",
            "must not have more than 256 characters (including spaces) in the search list",
        );
    }
    for search in &searches {
        for error in dns1123_subdomain(search) {
            cx.push("searchDomains", error);
        }
    }
    for option in array_at(config, &["options"]) {
        if str_at(option, &["name"]).is_empty() {
            cx.push("options", "Option.Name must not be empty");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, run};

    #[test]
    fn dns_policy_and_config() {
        assert_eq!(
            run(&json!({"dnsPolicy": "Custom"})),
            one(
                "spec.template.spec.dnsPolicy",
                "DNSPolicy: Custom is not supported, valid values: [ClusterFirstWithHostNet ClusterFirst Default None ]"
            )
        );
        assert_eq!(
            run(&json!({"dnsPolicy": "None"})),
            one(
                "spec.template.spec.dnsConfig",
                "must provide `dnsConfig` when `dnsPolicy` is None"
            )
        );
        assert_eq!(
            run(&json!({"dnsPolicy": "None", "dnsConfig": {"nameservers": ["10.0.0.10"]}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"dnsConfig": {"nameservers": ["dns.local"]}})),
            one("nameservers", "must be valid IP address: dns.local")
        );
    }

    #[test]
    fn the_limits_on_nameservers_and_searches_are_inclusive() {
        let servers = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"];
        assert_eq!(
            run(&json!({"dnsConfig": {"nameservers": servers[..3]}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"dnsConfig": {"nameservers": servers}})),
            one(
                "nameservers",
                "must not have more than 3 nameservers: [10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4]"
            )
        );
        let paths = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(
            run(&json!({"dnsConfig": {"searches": paths[..6]}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"dnsConfig": {"searches": paths}})),
            one("searchDomains", "must not have more than 6 search paths")
        );
        // Four searches joined by three spaces: 256 characters are allowed, 257 are not.
        let long = format!("{}.b", "a".repeat(62));
        let within = [long.as_str(), &long, &long, &"a".repeat(61)];
        assert_eq!(run(&json!({"dnsConfig": {"searches": within}})), Vec::new());
        let over = [long.as_str(), &long, &long, &"a".repeat(62)];
        assert_eq!(
            run(&json!({"dnsConfig": {"searches": over}})),
            one(
                "searchDomains",
                "must not have more than 256 characters (including spaces) in the search list"
            )
        );
    }
}
