//! The schemas of older KubeVirt releases, derived from the current one.
//!
//! Every release from v1.0 to v1.9 generates its instance-type and preference CRD schemas from its
//! own Go types. Compared release by release (`validations_generated.go` at tags v1.0.0 to
//! v1.9.0), an older schema is the current one without the fields added since, except for a few
//! `required` lists that older releases had and later ones dropped (`deviceName` of GPUs and host
//! devices up to v1.5, the custom block sizes up to v1.6). Both differences are listed
//! here, so that a field the target release does not know is reported as unknown (the API server
//! of that release prunes it).

use serde_json::Value;

/// Which spec a schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Family {
    Instancetype,
    Preference,
}

impl Family {
    pub(super) fn of_kind(kind: &str) -> Option<Self> {
        match kind {
            "VirtualMachineInstancetype" | "VirtualMachineClusterInstancetype" => {
                Some(Self::Instancetype)
            }
            "VirtualMachinePreference" | "VirtualMachineClusterPreference" => {
                Some(Self::Preference)
            }
            _ => None,
        }
    }
}

/// The newest minor release of KubeVirt v1 whose schema is known; later releases are assumed to
/// have its schema.
pub(super) const NEWEST_MINOR: u32 = 9;

/// Fields (with `[*]` for list items) and the first v1 minor release whose schema declares them;
/// a field not listed is declared from v1.0 on. Nested fields added together with their parent
/// are not listed.
const ADDED: &[(Family, &str, u32)] = &[
    (Family::Instancetype, "spec.annotations", 1),
    (Family::Instancetype, "spec.cpu.maxSockets", 3),
    (Family::Instancetype, "spec.gpus[*].claimName", 6),
    (Family::Instancetype, "spec.gpus[*].requestName", 6),
    (Family::Instancetype, "spec.hostDevices[*].claimName", 6),
    (Family::Instancetype, "spec.hostDevices[*].requestName", 6),
    (Family::Instancetype, "spec.ioThreads", 7),
    (
        Family::Instancetype,
        "spec.launchSecurity.sev.attestation",
        1,
    ),
    (Family::Instancetype, "spec.launchSecurity.sev.dhCert", 1),
    (Family::Instancetype, "spec.launchSecurity.sev.session", 1),
    (Family::Instancetype, "spec.launchSecurity.snp", 7),
    (Family::Instancetype, "spec.launchSecurity.tdx", 7),
    (Family::Instancetype, "spec.memory.maxGuest", 3),
    (Family::Instancetype, "spec.nodeSelector", 1),
    (Family::Instancetype, "spec.schedulerName", 1),
    (Family::Preference, "spec.annotations", 1),
    (Family::Preference, "spec.cpu.spreadOptions", 3),
    (
        Family::Preference,
        "spec.devices.preferredDiskBlockSize.custom.discardGranularity",
        7,
    ),
    (
        Family::Preference,
        "spec.devices.preferredPanicDeviceModel",
        6,
    ),
    (Family::Preference, "spec.devices.preferredTPM.enabled", 6),
    (Family::Preference, "spec.devices.preferredVideoType", 9),
    (
        Family::Preference,
        "spec.features.preferredHyperv.tlbflush.direct",
        8,
    ),
    (
        Family::Preference,
        "spec.features.preferredHyperv.tlbflush.extended",
        8,
    ),
    (Family::Preference, "spec.firmware.preferredEfi", 4),
    (Family::Preference, "spec.preferSpreadSocketToCoreRatio", 1),
    (Family::Preference, "spec.preferredArchitecture", 7),
    (Family::Preference, "spec.preferredLaunchSecurity", 9),
    (Family::Preference, "spec.requirements.architecture", 7),
];

/// Fields that some releases required and the current one does not: object path, field, and
/// the first and last v1 minor release that required it.
const REQUIRED: &[(Family, &str, &str, u32, u32)] = &[
    (Family::Instancetype, "spec.gpus[*]", "deviceName", 0, 5),
    (
        Family::Instancetype,
        "spec.hostDevices[*]",
        "deviceName",
        0,
        5,
    ),
    (
        Family::Preference,
        "spec.devices.preferredDiskBlockSize.custom",
        "logical",
        0,
        6,
    ),
    (
        Family::Preference,
        "spec.devices.preferredDiskBlockSize.custom",
        "physical",
        0,
        6,
    ),
];

/// The schema node at a dotted path with `[*]` for list items.
fn node_mut<'a>(schema: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut node = schema;
    for part in path.split('.') {
        let (name, items) = match part.strip_suffix("[*]") {
            Some(name) => (name, true),
            None => (part, false),
        };
        node = node.get_mut("properties")?.get_mut(name)?;
        if items {
            node = node.get_mut("items")?;
        }
    }
    Some(node)
}

/// The schema of a kind as release v1.`minor` declares it, from the current one.
pub(super) fn schema_for_release(current: &Value, family: Family, minor: u32) -> Value {
    let mut schema = current.clone();
    for (_, path, since) in ADDED
        .iter()
        .filter(|(f, _, since)| *f == family && *since > minor)
    {
        let (parent, name) = match path.rsplit_once('.') {
            Some((parent, name)) => (Some(parent), name),
            None => (None, *path),
        };
        let object = match parent {
            Some(parent) => node_mut(&mut schema, parent),
            None => Some(&mut schema),
        };
        let Some(object) = object.and_then(Value::as_object_mut) else {
            debug_assert!(false, "{path} (v1.{since}) is not in the current schema");
            continue;
        };
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.remove(name);
        }
        if let Some(Value::Array(required)) = object.get_mut("required") {
            required.retain(|r| r != name);
        }
    }
    for (_, path, field, _, _) in REQUIRED
        .iter()
        .filter(|(f, _, _, first, last)| *f == family && (*first..=*last).contains(&minor))
    {
        if let Some(Value::Object(object)) = node_mut(&mut schema, path) {
            let required = object
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(required) = required {
                required.push(Value::from(*field));
            }
        }
    }
    schema
}

/// The first v1 minor release that declares the field at `path` (Kubernetes notation, list
/// indices in any form), when it is later than `minor`.
pub(super) fn added_after(family: Family, path: &str, minor: u32) -> Option<u32> {
    let normalised = normalise(path);
    ADDED
        .iter()
        .filter(|(f, _, since)| *f == family && *since > minor)
        .find(|(_, added, _)| normalised == *added || normalised.starts_with(&format!("{added}.")))
        .map(|(_, _, since)| *since)
}

/// `spec.gpus[0].claimName` as `spec.gpus[*].claimName`.
fn normalise(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find('[') {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find(']') else {
            break;
        };
        let inner = &rest[start + 1..start + end];
        if inner.chars().all(|c| c.is_ascii_digit()) {
            out.push_str("[*]");
        } else {
            out.push_str(&rest[start..=start + end]);
        }
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_indices() {
        assert_eq!(
            normalise("spec.gpus[0].claimName"),
            "spec.gpus[*].claimName"
        );
        assert_eq!(
            normalise("spec.annotations[a.b/c]"),
            "spec.annotations[a.b/c]"
        );
        assert_eq!(normalise("spec.cpu"), "spec.cpu");
    }

    #[test]
    fn every_added_field_is_in_the_current_schema() {
        for family in [Family::Instancetype, Family::Preference] {
            let kind = match family {
                Family::Instancetype => "VirtualMachineInstancetype",
                Family::Preference => "VirtualMachinePreference",
            };
            let mut current = super::super::kind_schema(kind).expect("schema");
            for (_, path, _) in ADDED.iter().filter(|(f, _, _)| *f == family) {
                assert!(node_mut(&mut current, path).is_some(), "{path}");
            }
            for (_, path, field, _, _) in REQUIRED.iter().filter(|(f, ..)| *f == family) {
                let node = node_mut(&mut current, path).expect(path);
                assert!(node["properties"].get(*field).is_some(), "{path}.{field}");
            }
        }
    }
}
