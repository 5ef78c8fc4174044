//! `netiface.go`: an interface's own fields (state, model, MAC, PCI address, ports, DHCP
//! options).

use std::net::IpAddr;

use foldhash::{HashSet, HashSetExt};
use serde_json::Value;

use super::{iface_field, is_default_multus, is_pod};
use crate::admission::vmspec::TEMPLATE_SPEC;
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::is_pci_address;
use crate::model::value::{array_at, i64_at, is_set_at, present_at, str_at, strs_at};

pub(super) fn interface_states(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    let default_network = networks
        .iter()
        .find(|n| is_pod(Some(n)) || is_default_multus(n));
    for (idx, iface) in interfaces.iter().enumerate() {
        let (name, state) = (str_at(iface, &["name"]), str_at(iface, &["state"]));
        let field = iface_field(idx, "state");
        // Link state (`up`, `down`) arrived in v1.5 (admit.go, `validateInterfaceStateValue`).
        let link_state = cx.profile.version.at_least(1, 5);
        if !(matches!(state, "" | "absent") || link_state && matches!(state, "down" | "up")) {
            cx.push(
                field.clone(),
                format!("logical {name} interface state value is unsupported: {state}"),
            );
        }
        if link_state && is_set_at(iface, &["sriov"]) && matches!(state, "down" | "up") {
            cx.push(
                field.clone(),
                format!("{name:?} interface's state {state:?} is not supported for SR-IOV NICs"),
            );
        }
        if state == "absent" && !is_set_at(iface, &["bridge"]) {
            cx.push(
                field.clone(),
                format!(
                    "{name:?} interface's state {state:?} is supported only for bridge binding"
                ),
            );
        }
        if state == "absent" && default_network.is_some_and(|n| str_at(n, &["name"]) == name) {
            cx.push(
                field,
                format!(
                    "{name:?} interface's state {state:?} is not supported on default networks"
                ),
            );
        }
    }
}

pub(super) fn interface_fields(cx: &mut Ctx, idx: usize, iface: &Value, network: Option<&Value>) {
    const MODELS: &[&str] = &[
        "e1000", "e1000e", "igb", "ne2k_pci", "pcnet", "rtl8139", "virtio",
    ];
    let name_field = iface_field(idx, "name");
    let name = str_at(iface, &["name"]);
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        cx.push(
            name_field.clone(),
            "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)",
        );
    }
    let model = str_at(iface, &["model"]);
    if !model.is_empty() && !MODELS.contains(&model) {
        cx.push(
            iface_field(idx, "model"),
            format!("interface {name_field} uses model {model} that is not supported."),
        );
    }
    if let Err(problem) = validate_mac(str_at(iface, &["macAddress"])) {
        cx.push(
            iface_field(idx, "macAddress"),
            format!("interface {name_field} has {problem}."),
        );
    }
    let pci = str_at(iface, &["pciAddress"]);
    if !pci.is_empty() && !is_pci_address(pci) {
        cx.push(
            iface_field(idx, "pciAddress"),
            format!("interface {name_field} has malformed PCI address ({pci})."),
        );
    }
    if is_pod(network) && is_set_at(iface, &["ports"]) {
        forward_ports(cx, idx, array_at(iface, &["ports"]));
    }
    port_ranges(cx, idx, iface, network);
    dhcp_options(cx, idx, iface);
}

/// Why `link.ValidateMacAddress` refuses a MAC address, in KubeVirt's words.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum BadMac<'a> {
    #[error("malformed MAC address ({0})")]
    Malformed(&'a str),
    #[error("too long MAC address ({0})")]
    TooLong(&'a str),
}

/// `link.ValidateMacAddress` (Go's `net.ParseMAC`, limited to 6 bytes).
fn validate_mac(mac: &str) -> Result<(), BadMac<'_>> {
    if mac.is_empty() {
        return Ok(());
    }
    match parse_mac_len(mac) {
        None => Err(BadMac::Malformed(mac)),
        Some(len) if len > 6 => Err(BadMac::TooLong(mac)),
        Some(_) => Ok(()),
    }
}

/// The byte length of a MAC address in one of Go's accepted notations.
fn parse_mac_len(mac: &str) -> Option<usize> {
    let bytes = mac.as_bytes();
    if bytes.len() < 14 {
        return None;
    }
    let hex = |group: &[u8]| group.iter().all(u8::is_ascii_hexdigit);
    let (separator, group) = match (bytes[2], bytes[4]) {
        (b':' | b'-', _) => (bytes[2], 2),
        (_, b'.') => (b'.', 4),
        _ => return None,
    };
    if !(bytes.len() + 1).is_multiple_of(group + 1) {
        return None;
    }
    let groups: Vec<&[u8]> = bytes.split(|b| *b == separator).collect();
    if !groups.iter().all(|g| g.len() == group && hex(g)) {
        return None;
    }
    let len = groups.len() * group / 2;
    matches!(len, 6 | 8 | 20).then_some(len)
}

/// Kubernetes' `IsValidPortName`.
fn is_valid_port_name(name: &str) -> bool {
    name.len() <= 15
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && name.bytes().any(|b| b.is_ascii_lowercase())
        && !name.contains("--")
        && !name.starts_with('-')
        && !name.ends_with('-')
}

fn forward_ports(cx: &mut Ctx, idx: usize, ports: &[Value]) {
    let mut names = HashSet::new();
    for (port_idx, port) in ports.iter().enumerate() {
        let name = str_at(port, &["name"]);
        let field = |child: &str| iface_field(idx, &format!("ports[{port_idx}].{child}"));
        if name.is_empty() {
            continue;
        }
        if !names.insert(name) {
            cx.push(field("name"), format!("Duplicate name of the port: {name}"));
        }
        if !is_valid_port_name(name) {
            cx.push(field("name"), format!("Invalid name of the port: {name}"));
        }
    }
    for (port_idx, port) in ports.iter().enumerate() {
        let field = |child: &str| iface_field(idx, &format!("ports[{port_idx}].{child}"));
        let number = i64_at(port, &["port"]);
        if number == 0 {
            cx.push(field("port"), "Port field is mandatory.");
        }
        if !(0..65536).contains(&number) {
            cx.push(field("port"), "Port field must be in range 0 < x < 65536.");
        }
        if !matches!(str_at(port, &["protocol"]), "" | "TCP" | "UDP") {
            cx.push(
                field("protocol"),
                "Unknown protocol, only TCP or UDP allowed",
            );
        }
    }
}

fn port_ranges(cx: &mut Ctx, idx: usize, iface: &Value, network: Option<&Value>) {
    let present = is_set_at(iface, &["portRanges"]);
    if !cx.gate("PortRangesSpec") {
        if present {
            cx.push(
                iface_field(idx, "name"),
                "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled",
            );
        }
        return;
    }
    if !present || !is_pod(network) {
        return;
    }
    if is_set_at(iface, &["ports"]) {
        cx.push(
            iface_field(idx, "name"),
            "Cannot define both ports and portRanges on interface",
        );
    }
    if !is_set_at(iface, &["masquerade"]) {
        cx.push(
            iface_field(idx, "name"),
            "portRanges are only supported on masquerade interfaces",
        );
    }
    let ranges = array_at(iface, &["portRanges"]);
    if ranges.len() > 10 {
        cx.push(
            iface_field(idx, "portRanges"),
            "No more than 10 portRanges are allowed",
        );
        return;
    }
    let mut by_protocol: Vec<(&str, Vec<(i64, i64)>)> =
        vec![("TCP", Vec::new()), ("UDP", Vec::new())];
    for (range_idx, range) in ranges.iter().enumerate() {
        let field = |child: &str| iface_field(idx, &format!("portRanges[{range_idx}].{child}"));
        let (protocol, start, end) = (
            str_at(range, &["protocol"]),
            i64_at(range, &["start"]),
            i64_at(range, &["end"]),
        );
        if !matches!(protocol, "TCP" | "UDP") {
            cx.push(
                field("protocol"),
                "Unknown protocol, only TCP or UDP allowed",
            );
        } else if !(1..65536).contains(&start) {
            cx.push(
                field("start"),
                "Start must be a valid port number, 0 < x < 65536",
            );
        } else if !(1..65536).contains(&end) {
            cx.push(
                field("end"),
                "End must be a valid port number, 0 < x < 65536",
            );
        } else if start > end {
            cx.push(field("start"), "Start must be less than or equal to end");
        } else if let Some((_, intervals)) = by_protocol.iter_mut().find(|(p, _)| *p == protocol) {
            intervals.push((start, end));
        }
    }
    for (protocol, mut intervals) in by_protocol {
        intervals.sort_unstable();
        for pair in intervals.windows(2) {
            let ((prev_start, prev_end), (start, end)) = (pair[0], pair[1]);
            if start <= prev_end {
                cx.push(
                    iface_field(idx, "portRanges"),
                    format!("{protocol} portRanges [{prev_start}-{prev_end}] and [{start}-{end}] overlap"),
                );
            }
        }
    }
}

fn dhcp_options(cx: &mut Ctx, idx: usize, iface: &Value) {
    let Some(options) = present_at(iface, &["dhcpOptions"]) else {
        return;
    };
    let private: Vec<i64> = array_at(options, &["privateOptions"])
        .iter()
        .map(|o| i64_at(o, &["option"]))
        .collect();
    if private.iter().collect::<HashSet<_>>().len() < private.len() {
        cx.push(
            TEMPLATE_SPEC,
            "Found Duplicates: you have provided duplicate DHCPPrivateOptions",
        );
    }
    for option in &private {
        if !(224..=254).contains(option) {
            cx.push(
                TEMPLATE_SPEC,
                "provided DHCPPrivateOptions are out of range, must be in range 224 to 254",
            );
        }
    }
    for (server_idx, server) in strs_at(options, &["ntpServers"]).iter().enumerate() {
        let ipv4 = match server.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => true,
            Ok(IpAddr::V6(v6)) => v6.to_ipv4_mapped().is_some(),
            Err(_) => false,
        };
        if !ipv4 {
            cx.push(
                iface_field(idx, &format!("dhcpOptions.ntpServers[{server_idx}]")),
                "NTP servers must be a list of valid IPv4 addresses.",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{BadMac, is_valid_port_name, parse_mac_len, validate_mac};
    use crate::admission::vmspec::test_support::{profile, run, run_with};

    const IFACE: &str = "spec.template.spec.domain.devices.interfaces[0]";

    /// The causes of one interface on one network, with `gates` on at v1.9.
    fn causes_with(iface: &Value, network: &Value, gates: &[&str]) -> Vec<(String, String)> {
        let patch = json!({"domain": {"devices": {"interfaces": [iface]}}, "networks": [network]});
        run_with(&patch, &profile((1, 9), gates))
    }

    fn causes(iface: &Value, network: &Value) -> Vec<(String, String)> {
        causes_with(iface, network, &[])
    }

    fn messages(causes: &[(String, String)]) -> Vec<&str> {
        causes.iter().map(|(_, message)| message.as_str()).collect()
    }

    fn pod() -> Value {
        json!({"name": "default", "pod": {}})
    }

    fn multus(default: bool) -> Value {
        json!({"name": "default", "multus": {"networkName": "br", "default": default}})
    }

    #[test]
    fn go_parsers() {
        assert_eq!(parse_mac_len("02:00:00:00:00:01"), Some(6));
        assert_eq!(parse_mac_len("0200.0000.0001"), Some(6));
        assert_eq!(parse_mac_len("02:00:00:00:00:00:00:01"), Some(8));
        let long = "02:00:00:00:00:00:00:01";
        assert_eq!(validate_mac(long), Err(BadMac::TooLong(long)));
        assert_eq!(
            validate_mac(long).unwrap_err().to_string(),
            "too long MAC address (02:00:00:00:00:00:00:01)"
        );
        assert_eq!(
            validate_mac("02:00").unwrap_err().to_string(),
            "malformed MAC address (02:00)"
        );
        assert_eq!(parse_mac_len("02-00:00:00:00:01"), None);
        assert!(is_valid_port_name("http"));
        assert!(!is_valid_port_name("80"));
    }

    #[test]
    fn an_absent_interface_needs_bridge_binding_and_a_secondary_network() {
        let absent_bridge = json!({"name": "default", "bridge": {}, "state": "absent"});
        let on_default =
            "\"default\" interface's state \"absent\" is not supported on default networks";
        assert_eq!(
            messages(&causes(&absent_bridge, &multus(true))),
            [on_default]
        );
        assert_eq!(
            messages(&causes(&absent_bridge, &multus(false))),
            Vec::<&str>::new()
        );
        let absent_masquerade = json!({"name": "default", "masquerade": {}, "state": "absent"});
        assert_eq!(
            messages(&causes(&absent_masquerade, &pod())),
            [
                "\"default\" interface's state \"absent\" is supported only for bridge binding",
                on_default
            ]
        );
        // A secondary network beside the pod network: only the pod network's interface is on a
        // default network.
        let patch = json!({"domain": {"devices": {"interfaces": [
                {"name": "default", "masquerade": {}},
                {"name": "second", "bridge": {}, "state": "absent"}]}},
            "networks": [pod(), {"name": "second", "multus": {"networkName": "br"}}]});
        assert_eq!(run(&patch), Vec::new());
    }

    #[test]
    fn interface_names_pci_addresses_and_ports_of_other_networks() {
        let name_rule = "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)";
        let named = |name: &str| {
            let patch = json!({"domain": {"devices": {"interfaces": [{"name": name, "masquerade": {}}]}},
                "networks": [{"name": name, "pod": {}}]});
            run(&patch).iter().any(|(_, message)| message == name_rule)
        };
        assert!(!named("my-net_1"));
        assert!(named("my.net"));
        let pci = |address: &str| {
            causes(
                &json!({"name": "default", "masquerade": {}, "pciAddress": address}),
                &pod(),
            )
        };
        assert_eq!(pci("0000:81:01.0"), Vec::new());
        assert_eq!(
            pci("0000:81:01"),
            [(
                format!("{IFACE}.pciAddress"),
                format!("interface {IFACE}.name has malformed PCI address (0000:81:01).")
            )]
        );
        // Forwarded ports are checked on the pod network only.
        let zero_port = json!({"name": "default", "bridge": {}, "ports": [{"port": 0}]});
        assert_eq!(causes(&zero_port, &multus(false)), Vec::new());
        assert_eq!(
            messages(&causes(&zero_port, &pod())),
            ["Port field is mandatory."]
        );
    }

    #[test]
    fn mac_addresses_as_go_parses_them() {
        assert_eq!(validate_mac("02:00:00:00:00:01"), Ok(()));
        let dotted_eight = "0200.0000.0000.0001";
        assert_eq!(
            validate_mac(dotted_eight),
            Err(BadMac::TooLong(dotted_eight))
        );
        for malformed in ["02:00:00:00:00:zz", "02:00:00:00:0:001"] {
            assert_eq!(validate_mac(malformed), Err(BadMac::Malformed(malformed)));
        }
    }

    #[test]
    fn port_names_follow_kubernetes() {
        for valid in ["a-b", "http", "a1", "abcdefghijklmno"] {
            assert!(is_valid_port_name(valid), "{valid}");
        }
        for invalid in [
            "",
            "abcdefghijklmnop",
            "Http",
            "a_b",
            "12",
            "a--b",
            "-ab",
            "ab-",
        ] {
            assert!(!is_valid_port_name(invalid), "{invalid}");
        }
    }

    fn port_ranges(ranges: &Value) -> Vec<(String, String)> {
        let iface = json!({"name": "default", "masquerade": {}, "portRanges": ranges});
        causes_with(&iface, &pod(), &["PortRangesSpec"])
    }

    #[test]
    fn port_ranges_need_their_gate_a_pod_network_and_masquerade() {
        let ranges = json!([{"protocol": "TCP", "start": 80, "end": 90}]);
        let iface = json!({"name": "default", "masquerade": {}, "portRanges": ranges});
        assert_eq!(
            messages(&causes(&iface, &pod())),
            [
                "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled"
            ]
        );
        assert_eq!(
            causes(&json!({"name": "default", "masquerade": {}}), &pod()),
            Vec::new()
        );
        assert_eq!(port_ranges(&ranges), Vec::new());
        let gate = &["PortRangesSpec"];
        let bridge = json!({"name": "default", "bridge": {}, "portRanges": ranges});
        assert_eq!(causes_with(&bridge, &multus(false), gate), Vec::new());
        assert_eq!(
            messages(&causes_with(&bridge, &pod(), gate)),
            ["portRanges are only supported on masquerade interfaces"]
        );
        let with_ports = json!({"name": "default", "masquerade": {}, "portRanges": ranges, "ports": [{"port": 80}]});
        assert_eq!(
            messages(&causes_with(&with_ports, &pod(), gate)),
            ["Cannot define both ports and portRanges on interface"]
        );
    }

    #[test]
    fn port_ranges_at_their_bounds() {
        let range = |protocol: &str, start: i64, end: i64| json!({"protocol": protocol, "start": start, "end": end});
        let ten: Vec<Value> = (0..10)
            .map(|i| range("TCP", 100 * i + 1, 100 * i + 50))
            .collect();
        assert_eq!(port_ranges(&json!(ten)), Vec::new());
        let mut eleven = ten.clone();
        eleven.push(range("UDP", 1, 1));
        assert_eq!(
            messages(&port_ranges(&json!(eleven))),
            ["No more than 10 portRanges are allowed"]
        );
        let edges = json!([
            range("TCP", 1, 1),
            range("TCP", 65535, 65535),
            range("UDP", 2, 3),
            range("UDP", 4, 5)
        ]);
        assert_eq!(port_ranges(&edges), Vec::new());
        let bad = json!([
            range("SCTP", 1, 2),
            range("TCP", 0, 2),
            range("TCP", 65536, 65536),
            range("TCP", 1, 0),
            range("TCP", 1, 65536),
            range("TCP", 3, 2)
        ]);
        assert_eq!(
            port_ranges(&bad),
            [
                (
                    format!("{IFACE}.portRanges[0].protocol"),
                    "Unknown protocol, only TCP or UDP allowed".to_owned()
                ),
                (
                    format!("{IFACE}.portRanges[1].start"),
                    "Start must be a valid port number, 0 < x < 65536".to_owned()
                ),
                (
                    format!("{IFACE}.portRanges[2].start"),
                    "Start must be a valid port number, 0 < x < 65536".to_owned()
                ),
                (
                    format!("{IFACE}.portRanges[3].end"),
                    "End must be a valid port number, 0 < x < 65536".to_owned()
                ),
                (
                    format!("{IFACE}.portRanges[4].end"),
                    "End must be a valid port number, 0 < x < 65536".to_owned()
                ),
                (
                    format!("{IFACE}.portRanges[5].start"),
                    "Start must be less than or equal to end".to_owned()
                ),
            ]
        );
        let overlapping = json!([
            range("UDP", 10, 20),
            range("TCP", 10, 20),
            range("TCP", 20, 30),
            range("TCP", 31, 40)
        ]);
        assert_eq!(
            port_ranges(&overlapping),
            [(
                format!("{IFACE}.portRanges"),
                "TCP portRanges [10-20] and [20-30] overlap".to_owned()
            )]
        );
    }

    #[test]
    fn dhcp_private_options_and_ntp_servers() {
        let dhcp = |options: Value| {
            causes(
                &json!({"name": "default", "masquerade": {}, "dhcpOptions": options}),
                &pod(),
            )
        };
        let private = |numbers: &[i64]| {
            let options: Vec<Value> = numbers
                .iter()
                .map(|n| json!({"option": n, "value": "x"}))
                .collect();
            json!({"privateOptions": options})
        };
        assert_eq!(dhcp(private(&[224, 254])), Vec::new());
        let spec = "spec.template.spec".to_owned();
        assert_eq!(
            dhcp(private(&[240, 240])),
            [(
                spec.clone(),
                "Found Duplicates: you have provided duplicate DHCPPrivateOptions".to_owned()
            )]
        );
        let out_of_range =
            "provided DHCPPrivateOptions are out of range, must be in range 224 to 254".to_owned();
        assert_eq!(
            dhcp(private(&[223, 255])),
            [(spec.clone(), out_of_range.clone()), (spec, out_of_range)]
        );
        let ntp = json!({"ntpServers": ["192.0.2.1", "::ffff:192.0.2.2", "2001:db8::1"]});
        assert_eq!(
            dhcp(ntp),
            [(
                format!("{IFACE}.dhcpOptions.ntpServers[2]"),
                "NTP servers must be a list of valid IPv4 addresses.".to_owned()
            )]
        );
    }
}
