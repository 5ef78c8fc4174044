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
    use super::{BadMac, is_valid_port_name, parse_mac_len, validate_mac};

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
}
