//! How the webhook's Go code reads the spec: counts of set fields, resource quantities
//! (absent reads as zero), `%v` of a list, the VMI's architecture, a PCI address.

use serde_json::Value;

use crate::cluster::profile::ClusterProfile;
use crate::k8s::quantity::Quantity;
use crate::model::value::{is_set_at, str_at};

/// How many of `keys` are set on `value`.
pub(super) fn count_present(value: &Value, keys: &[&str]) -> usize {
    keys.iter().filter(|key| is_set_at(value, &[key])).count()
}

/// `spec.domain.resources.<kind>.<name>` (the webhook reads an absent one as zero).
pub(super) fn resource(spec: &Value, kind: &str, name: &str) -> Option<Quantity> {
    Quantity::at(spec, &["domain", "resources", kind, name])
}

pub(super) fn value_of(quantity: Option<&Quantity>) -> i64 {
    quantity.map_or(0, Quantity::value)
}

pub(super) fn shown(quantity: Option<&Quantity>) -> String {
    quantity.map_or_else(|| "0".to_owned(), Quantity::canonical)
}

/// Go's `%v` of a string slice.
pub(super) fn go_list<S: AsRef<str>>(values: &[S]) -> String {
    let joined: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
    format!("[{}]", joined.join(" "))
}

pub(super) fn architecture<'a>(spec: &'a Value, profile: &'a ClusterProfile) -> &'a str {
    match str_at(spec, &["architecture"]) {
        "" => &profile.default_architecture,
        arch => arch,
    }
}

pub(super) fn strings_of<'a>(list: &'a [Value], key: &str) -> Vec<&'a str> {
    list.iter().map(|item| str_at(item, &[key])).collect()
}

/// `hwutil.ParsePciAddress`: `DDDD:BB:SS.F` in hexadecimal, function 0-7.
pub(super) fn is_pci_address(address: &str) -> bool {
    let bytes = address.as_bytes();
    let hex = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_hexdigit);
    bytes.len() == 12
        && hex(0..4)
        && bytes[4] == b':'
        && hex(5..7)
        && bytes[7] == b':'
        && hex(8..10)
        && bytes[10] == b'.'
        && (b'0'..=b'7').contains(&bytes[11])
}

#[cfg(test)]
mod tests {
    use super::is_pci_address;

    #[test]
    fn go_parsers() {
        assert!(is_pci_address("0000:81:00.1"));
        assert!(!is_pci_address("0000:81:00.8"));
    }

    #[test]
    fn a_pci_address_needs_every_part() {
        for address in [
            "0000:81:00.1x",
            "000g:81:00.1",
            "0000-81:00.1",
            "0000:8g:00.1",
            "0000:81-00.1",
            "0000:81:0g.1",
            "0000:81:00-1",
        ] {
            assert!(!is_pci_address(address), "{address}");
        }
        assert!(is_pci_address("abcd:ef:1f.7"));
    }
}
