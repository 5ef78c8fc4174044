//! The semantic summary: one line per part of a VM that changed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::OTHER_FIELDS;
use super::changes::{
    Prefixes, at, describe, field_changes, pointer_of, present, short, starts_with_segment,
    text_at, under,
};
use super::identity::{MatcherRef, ROLES, VmMatchers};
use super::model::{Aspect, Change, FieldChange};
use crate::controller::liveupdate::defaults::Topology;
use crate::model::MatcherRole;

pub(super) fn arrow(before: &str, after: &str) -> String {
    if before == after {
        before.to_owned()
    } else {
        format!("{before} → {after}")
    }
}

pub(super) fn opt_arrow(before: Option<&str>, after: Option<&str>) -> Option<String> {
    (before != after).then(|| arrow(before.unwrap_or("(none)"), after.unwrap_or("(none)")))
}

pub(super) fn list_of(items: Option<&Value>, describe: fn(&Value) -> String) -> String {
    let items: Vec<String> = items
        .and_then(Value::as_array)
        .map(|items| items.iter().map(describe).collect())
        .unwrap_or_default();
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

pub(super) fn device_item(device: &Value) -> String {
    let name = text_at(device, &["name"]).unwrap_or_default();
    match text_at(device, &["deviceName"]) {
        Some(dev) => format!("{name} ({dev})"),
        None => name,
    }
}

pub(super) fn disk_item(disk: &Value) -> String {
    let name = text_at(disk, &["name"]).unwrap_or_default();
    for kind in ["disk", "cdrom", "lun"] {
        if let Some(target) = disk.get(kind) {
            let bus = text_at(target, &["bus"]);
            return match (kind, bus) {
                ("disk", Some(bus)) => format!("{name} ({bus})"),
                ("disk", None) => name,
                (kind, Some(bus)) => format!("{name} ({kind}, {bus})"),
                (kind, None) => format!("{name} ({kind})"),
            };
        }
    }
    name
}

pub(super) fn interface_item(interface: &Value) -> String {
    let name = text_at(interface, &["name"]).unwrap_or_default();
    let binding = text_at(interface, &["binding", "name"]).or_else(|| {
        ["bridge", "masquerade", "sriov", "slirp", "macvtap", "passt"]
            .iter()
            .find(|k| interface.get(**k).is_some())
            .map(|k| (*k).to_owned())
    });
    let mut parts = Vec::new();
    if let Some(model) = text_at(interface, &["model"]) {
        parts.push(model);
    }
    if let Some(binding) = binding {
        parts.push(binding);
    }
    if parts.is_empty() {
        name
    } else {
        format!("{name} ({})", parts.join(", "))
    }
}

pub(super) fn toleration_item(toleration: &Value) -> String {
    let key = text_at(toleration, &["key"]).unwrap_or_else(|| "*".to_owned());
    let mut text = match text_at(toleration, &["value"]) {
        Some(value) => format!("{key}={value}"),
        None => key,
    };
    if let Some(effect) = text_at(toleration, &["effect"]) {
        let _ = write!(text, ":{effect}");
    }
    text
}

pub(super) fn map_text(map: Option<&Value>) -> String {
    match map.and_then(Value::as_object) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| format!("{k}={}", short(Some(v))))
            .collect::<Vec<_>>()
            .join(", "),
        _ => "none".to_owned(),
    }
}

pub(super) fn bootloader(domain: &Value) -> String {
    let Some(loader) = at(domain, &["firmware", "bootloader"]) else {
        return "default (BIOS)".to_owned();
    };
    if let Some(efi) = loader.get("efi") {
        let mut text = "EFI".to_owned();
        match efi.get("secureBoot").and_then(Value::as_bool) {
            Some(false) => text.push_str(" without secure boot"),
            _ => text.push_str(" with secure boot"),
        }
        if efi.get("persistent").and_then(Value::as_bool) == Some(true) {
            text.push_str(", persistent");
        }
        text
    } else if loader.get("bios").is_some() {
        "BIOS".to_owned()
    } else {
        short(Some(loader))
    }
}

/// Added, removed and changed keys of a string map, `prefix` before each.
pub(super) fn map_changes(
    before: Option<&Value>,
    after: Option<&Value>,
    prefix: &str,
    out: &mut Vec<String>,
) {
    let empty = Map::new();
    let before = before.and_then(Value::as_object).unwrap_or(&empty);
    let after = after.and_then(Value::as_object).unwrap_or(&empty);
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in keys {
        match (before.get(key), after.get(key)) {
            (None, Some(v)) => out.push(format!("{prefix}+{key}={}", short(Some(v)))),
            (Some(_), None) => out.push(format!("{prefix}-{key}")),
            (Some(a), Some(b)) if a != b => out.push(format!(
                "{prefix}{key}: {} → {}",
                short(Some(a)),
                short(Some(b))
            )),
            _ => {}
        }
    }
}

/// The memory fields the summary names (label, path in the domain).
pub(super) const MEMORY_FIELDS: [(&str, &str); 5] = [
    ("guest", "memory.guest"),
    ("maxGuest", "memory.maxGuest"),
    ("hugepages", "memory.hugepages.pageSize"),
    ("requests.memory", "resources.requests.memory"),
    ("limits.memory", "resources.limits.memory"),
];

pub(super) struct SummaryInput<'a> {
    base: &'a Value,
    head: &'a Value,
    prefixes: &'a Prefixes,
}

impl SummaryInput<'_> {
    pub(super) fn domain(&self, value: &Value) -> Value {
        section(value, &self.prefixes.domain)
    }

    pub(super) fn template(&self, value: &Value) -> Value {
        section(value, &self.prefixes.template)
    }

    /// The headline of an aspect, from the values; the fields it explains are not repeated.
    pub(super) fn headline(&self, aspect: Aspect) -> Headline {
        let (bd, hd) = (self.domain(self.base), self.domain(self.head));
        let (bt, ht) = (self.template(self.base), self.template(self.head));
        match aspect {
            Aspect::Cpu => cpu_headline(&bd, &hd),
            Aspect::Memory => memory_headline(&bd, &hd),
            Aspect::Gpus | Aspect::HostDevices => host_devices_headline(aspect, &bd, &hd),
            Aspect::Devices => devices_headline(&bd, &hd),
            Aspect::Firmware => firmware_headline(&bd, &hd),
            Aspect::MachineType => machine_type_headline(&bd, &hd),
            Aspect::Placement => placement_headline(&bt, &ht),
            Aspect::Annotations | Aspect::Labels => self.metadata_headline(aspect),
            Aspect::Instancetype | Aspect::Preference | Aspect::Other => (Vec::new(), |_| false),
        }
    }

    /// The headline of labels or annotations of the VM and its template.
    fn metadata_headline(&self, aspect: Aspect) -> Headline {
        let mut parts = Vec::new();
        let key = if aspect == Aspect::Labels {
            "labels"
        } else {
            "annotations"
        };
        map_changes(
            at(self.base, &["metadata", key]),
            at(self.head, &["metadata", key]),
            "",
            &mut parts,
        );
        let template = pointer_of(&format!("{}.template.metadata.{key}", self.prefixes.vm));
        map_changes(
            self.base.pointer(&template),
            self.head.pointer(&template),
            "template: ",
            &mut parts,
        );
        (parts, |_| true)
    }
}

/// The lines of an aspect's headline, and which of its fields (relative to the domain or the
/// template) they explain.
pub(super) type Headline = (Vec<String>, fn(&str) -> bool);

/// The headline of vCPUs and topology.
fn cpu_headline(bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    let (b, h) = (Topology::of(bd), Topology::of(hd));
    if b != h {
        parts.push(format!(
            "{} (sockets×cores×threads {})",
            arrow(&b.vcpus().to_string(), &h.vcpus().to_string()),
            arrow(&b.to_string(), &h.to_string())
        ));
    }
    (parts, |rest| {
        ["cpu.sockets", "cpu.cores", "cpu.threads"]
            .iter()
            .any(|s| starts_with_segment(rest, s))
    })
}

/// The headline of the memory fields that changed.
fn memory_headline(bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    for (label, path) in MEMORY_FIELDS {
        let path: Vec<&str> = path.split('.').collect();
        if let Some(change) =
            opt_arrow(text_at(bd, &path).as_deref(), text_at(hd, &path).as_deref())
        {
            parts.push(format!("{label} {change}"));
        }
    }
    (parts, |rest| {
        MEMORY_FIELDS
            .iter()
            .any(|(_, path)| starts_with_segment(rest, path))
    })
}

/// The headline of GPUs or host devices by name.
fn host_devices_headline(aspect: Aspect, bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    let key = if aspect == Aspect::Gpus {
        "gpus"
    } else {
        "hostDevices"
    };
    let b = list_of(at(bd, &["devices", key]), device_item);
    let h = list_of(at(hd, &["devices", key]), device_item);
    if b != h {
        parts.push(arrow(&b, &h));
    }
    (parts, |_| true)
}

/// The headline of disks and interfaces, when their names or buses changed.
fn devices_headline(bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    let mut listed = [false; 2];
    for (i, (label, key, item)) in [
        ("disks", "disks", disk_item as fn(&Value) -> String),
        ("interfaces", "interfaces", interface_item),
    ]
    .into_iter()
    .enumerate()
    {
        let (bv, hv) = (at(bd, &["devices", key]), at(hd, &["devices", key]));
        let (bl, hl) = (list_of(bv, item), list_of(hv, item));
        // Same names and buses: the fields that differ say more than the list.
        if bl != hl {
            let n = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, Vec::len);
            parts.push(format!(
                "{label} {}: {}",
                arrow(&n(bv).to_string(), &n(hv).to_string()),
                arrow(&bl, &hl)
            ));
            listed[i] = true;
        }
    }
    let explained: fn(&str) -> bool = match listed {
        [true, true] => |rest| {
            starts_with_segment(rest, "devices.disks")
                || starts_with_segment(rest, "devices.interfaces")
        },
        [true, false] => |rest| starts_with_segment(rest, "devices.disks"),
        [false, true] => |rest| starts_with_segment(rest, "devices.interfaces"),
        [false, false] => |_| false,
    };
    (parts, explained)
}

/// The headline of the bootloader.
fn firmware_headline(bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    let (b, h) = (bootloader(bd), bootloader(hd));
    if b != h {
        parts.push(format!("bootloader {}", arrow(&b, &h)));
    }
    (parts, |rest| {
        starts_with_segment(rest, "firmware.bootloader")
    })
}

/// The headline of the machine type.
fn machine_type_headline(bd: &Value, hd: &Value) -> Headline {
    let mut parts = Vec::new();
    let path = &["machine", "type"][..];
    if let Some(change) = opt_arrow(text_at(bd, path).as_deref(), text_at(hd, path).as_deref()) {
        parts.push(change);
    }
    (parts, |rest| starts_with_segment(rest, "machine.type"))
}

/// The headline of node selector, affinity and tolerations.
fn placement_headline(bt: &Value, ht: &Value) -> Headline {
    let mut parts = Vec::new();
    let (bs, hs) = (
        map_text(bt.get("nodeSelector")),
        map_text(ht.get("nodeSelector")),
    );
    if bs != hs {
        parts.push(format!("nodeSelector {}", arrow(&bs, &hs)));
    }
    let (ba, ha) = (present(bt.get("affinity")), present(ht.get("affinity")));
    if ba != ha {
        parts.push(
            match (ba, ha) {
                (None, Some(_)) => "affinity added",
                (Some(_), None) => "affinity removed",
                _ => "affinity changed",
            }
            .to_owned(),
        );
    }
    let b = list_of(bt.get("tolerations"), toleration_item);
    let h = list_of(ht.get("tolerations"), toleration_item);
    if b != h {
        parts.push(format!("tolerations {}", arrow(&b, &h)));
    }
    (parts, |rest| {
        ["nodeSelector", "affinity", "tolerations"]
            .iter()
            .any(|s| starts_with_segment(rest, s))
    })
}

/// The value at a dotted path (a copy), or null.
pub(super) fn section(value: &Value, path: &str) -> Value {
    value
        .pointer(&pointer_of(path))
        .cloned()
        .unwrap_or(Value::Null)
}

pub(super) fn matcher_text(matcher: Option<&MatcherRef>) -> String {
    matcher.map_or_else(|| "(none)".to_owned(), |m| m.name.clone())
}

pub(super) fn matcher_change(
    role: MatcherRole,
    base: &VmMatchers,
    head: &VmMatchers,
) -> Option<Change> {
    let (b, h) = (base.get(role), head.get(role));
    if b == h {
        return None;
    }
    let summary = match (b, h) {
        (Some(b), Some(h)) if b.kind != h.kind => {
            format!("{} {} → {} {}", b.kind, b.name, h.kind, h.name)
        }
        _ => arrow(&matcher_text(b), &matcher_text(h)),
    };
    Some(Change {
        aspect: match role {
            MatcherRole::Instancetype => Aspect::Instancetype,
            MatcherRole::Preference => Aspect::Preference,
        },
        summary,
        fields: Vec::new(),
    })
}

pub(super) fn matcher_changes(base: &VmMatchers, head: &VmMatchers) -> Vec<Change> {
    ROLES
        .iter()
        .filter_map(|role| matcher_change(*role, base, head))
        .collect()
}

/// The semantic summary of a changed VM.
pub(super) fn summarise(
    base: &Value,
    head: &Value,
    kind: &str,
    base_matchers: &VmMatchers,
    head_matchers: &VmMatchers,
) -> Vec<Change> {
    let prefixes = Prefixes::for_kind(kind);
    let mut changes = matcher_changes(base_matchers, head_matchers);
    let mut by_aspect: BTreeMap<Aspect, Vec<FieldChange>> = BTreeMap::new();
    for field in field_changes(base, head) {
        by_aspect
            .entry(prefixes.aspect(&field.path))
            .or_default()
            .push(field);
    }
    let input = SummaryInput {
        base,
        head,
        prefixes: &prefixes,
    };
    for (aspect, fields) in by_aspect {
        let (mut parts, explained) = input.headline(aspect);
        // A headline that says nothing explains no field.
        let explained: fn(&str) -> bool = if parts.is_empty() {
            |_| false
        } else {
            explained
        };
        let strip = match aspect {
            Aspect::Placement | Aspect::Other => prefixes.template.as_str(),
            _ => prefixes.domain.as_str(),
        };
        let rest: Vec<&FieldChange> = fields
            .iter()
            .filter(|f| {
                let relative = under(&f.path, strip).unwrap_or(&f.path);
                !explained(relative)
            })
            .collect();
        let limit = if aspect == Aspect::Other {
            OTHER_FIELDS
        } else {
            usize::MAX
        };
        for field in rest.iter().take(limit) {
            parts.push(describe(field, strip));
        }
        if rest.len() > limit {
            parts.push(format!("and {} more", rest.len() - limit));
        }
        if parts.is_empty() {
            continue;
        }
        changes.push(Change {
            aspect,
            summary: parts.join("; "),
            fields,
        });
    }
    changes
}
