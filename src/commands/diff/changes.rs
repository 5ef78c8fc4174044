//! The fields that differ between two values, and which part of a VM each belongs to.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::model::{Aspect, FieldChange};

pub(super) fn join_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key}]"),
    }
}

pub(super) fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

pub(super) fn collect_changes(
    path: &str,
    a: Option<&Value>,
    b: Option<&Value>,
    out: &mut Vec<FieldChange>,
) {
    // An object or list on one side only is listed by its leaves.
    let empty_object = Value::Object(Map::new());
    let empty_array = Value::Array(Vec::new());
    let stand_in = |other: Option<&Value>| match other {
        Some(Value::Object(map)) if !map.is_empty() => Some(&empty_object),
        Some(Value::Array(items)) if !items.is_empty() => Some(&empty_array),
        _ => None,
    };
    let (a, b) = (present(a), present(b));
    let (a, b) = (a.or_else(|| stand_in(b)), b.or_else(|| stand_in(a)));
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                collect_changes(&join_key(path, key), x.get(key), y.get(key), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                collect_changes(&format!("{path}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(FieldChange {
            path: path.to_owned(),
            before: a.cloned(),
            after: b.cloned(),
        }),
    }
}

/// The fields that differ between two values, sorted by path.
pub fn field_changes(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    collect_changes("", Some(before), Some(after), &mut out);
    out
}

pub(super) fn short(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => return "(none)".to_owned(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(80).collect();
    if chars.next().is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

pub(super) fn describe(change: &FieldChange, strip: &str) -> String {
    let path = change
        .path
        .strip_prefix(strip)
        .map_or(change.path.as_str(), |p| p.trim_start_matches('.'));
    format!(
        "{path} {} → {}",
        short(change.before.as_ref()),
        short(change.after.as_ref())
    )
}

/// One line per field that differs.
pub(super) fn field_lines(before: &Value, after: &Value) -> Vec<String> {
    field_changes(before, after)
        .iter()
        .map(|f| describe(f, ""))
        .collect()
}

/// `rest` starts with the segment `segment` (followed by nothing, `.` or `[`).
pub(super) fn starts_with_segment(rest: &str, segment: &str) -> bool {
    rest.strip_prefix(segment)
        .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
}

pub(super) fn under<'p>(path: &'p str, prefix: &str) -> Option<&'p str> {
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some(rest)
    } else if let Some(r) = rest.strip_prefix('.') {
        Some(r)
    } else if rest.starts_with('[') {
        Some(rest)
    } else {
        None
    }
}

/// Paths of the VM spec inside a rendered object.
pub(super) struct Prefixes {
    pub(super) vm: String,
    pub(super) template: String,
    pub(super) domain: String,
}

/// The VM spec of a VirtualMachine, or of a VirtualMachinePool's VM template.
pub(super) fn vm_spec<'v>(object: &'v Value, kind: &str) -> Option<&'v Value> {
    object.pointer(&pointer_of(&Prefixes::for_kind(kind).vm))
}

impl Prefixes {
    pub(super) fn for_kind(kind: &str) -> Self {
        let vm = if kind == "VirtualMachinePool" {
            "spec.virtualMachineTemplate.spec"
        } else {
            "spec"
        };
        Self {
            vm: vm.to_owned(),
            template: format!("{vm}.template.spec"),
            domain: format!("{vm}.template.spec.domain"),
        }
    }

    pub(super) fn aspect(&self, path: &str) -> Aspect {
        if let Some(rest) = under(path, &self.domain) {
            let seg = |s| starts_with_segment(rest, s);
            return if seg("cpu") || (seg("resources") && rest.contains("cpu")) {
                Aspect::Cpu
            } else if seg("memory") || seg("resources") {
                Aspect::Memory
            } else if seg("devices.gpus") {
                Aspect::Gpus
            } else if seg("devices.hostDevices") {
                Aspect::HostDevices
            } else if seg("devices") {
                Aspect::Devices
            } else if seg("firmware") {
                Aspect::Firmware
            } else if seg("machine") {
                Aspect::MachineType
            } else {
                Aspect::Other
            };
        }
        if let Some(rest) = under(path, &self.template)
            && ["nodeSelector", "affinity", "tolerations", "schedulerName"]
                .iter()
                .any(|s| starts_with_segment(rest, s))
        {
            return Aspect::Placement;
        }
        let template_metadata = format!("{}.template.metadata", self.vm);
        for metadata in ["metadata", template_metadata.as_str()] {
            if let Some(rest) = under(path, metadata) {
                if starts_with_segment(rest, "labels") {
                    return Aspect::Labels;
                }
                if starts_with_segment(rest, "annotations") || rest.is_empty() {
                    return Aspect::Annotations;
                }
            }
        }
        Aspect::Other
    }
}

pub(super) fn at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v Value> {
    path.iter()
        .try_fold(value, |node, key| node.get(key))
        .filter(|v| !v.is_null())
}

pub(super) fn text_at(value: &Value, path: &[&str]) -> Option<String> {
    at(value, path).map(|v| short(Some(v)))
}

pub(super) fn pointer_of(path: &str) -> String {
    let mut pointer = String::new();
    for segment in path.split('.') {
        pointer.push('/');
        pointer.push_str(segment);
    }
    pointer
}
