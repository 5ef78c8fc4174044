//! The VirtualMachine of older KubeVirt releases, derived from the current one.
//!
//! Every release generates its VirtualMachine CRD schema, and the OpenAPI schema its webhooks
//! validate a VM's spec against, from its own Go types. Compared release by release (the
//! `virtualmachine` schema of `validations_generated.go` at tags v1.0.0 to v1.9.0), an older
//! release's VirtualMachine spec is the current one without the fields added since: [`ADDED`]
//! lists them. Such a field is refused by that release's webhook ("`FIELD` in body is a
//! forbidden property": its OpenAPI schema allows no other property) and dropped by its Go
//! decoder, so `expand` returns the VM without it.
//!
//! The status is left out: the webhooks accept any status field, and a status is never compared
//! or rendered.

use serde_json::Value;

use crate::cluster::version::KubeVirtVersion;
use crate::model::value::same_key;
use crate::yaml::{FieldPath, Segment};

/// VirtualMachine fields (`[*]` for list items) and the first v1 minor release whose schema
/// declares them; a field not listed is declared from v1.0 on. Nested fields added together
/// with their parent are not listed. Kubernetes and CDI fields are here too: a KubeVirt release
/// declares the ones of the Kubernetes and CDI APIs it was built with.
pub(super) const ADDED: &[(&str, u32)] = &[
    ("spec.instancetype.inferFromVolumeFailurePolicy", 1),
    ("spec.preference.inferFromVolumeFailurePolicy", 1),
    (
        "spec.template.spec.accessCredentials[*].sshPublicKey.propagationMethod.noCloud",
        1,
    ),
    ("spec.template.spec.domain.devices.disks[*].errorPolicy", 1),
    ("spec.template.spec.domain.devices.downwardMetrics", 1),
    ("spec.template.spec.domain.devices.interfaces[*].binding", 1),
    ("spec.template.spec.domain.devices.logSerialConsole", 1),
    (
        "spec.template.spec.domain.firmware.bootloader.efi.persistent",
        1,
    ),
    (
        "spec.template.spec.domain.launchSecurity.sev.attestation",
        1,
    ),
    ("spec.template.spec.domain.launchSecurity.sev.dhCert", 1),
    ("spec.template.spec.domain.launchSecurity.sev.session", 1),
    ("spec.template.spec.domain.memory.maxGuest", 1),
    ("spec.template.spec.domain.firmware.acpi", 2),
    (
        "spec.dataVolumeTemplates[*].spec.pvc.volumeAttributesClassName",
        3,
    ),
    (
        "spec.template.spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.matchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.mismatchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].matchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].mismatchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.matchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[*].podAffinityTerm.mismatchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].matchLabelKeys",
        3,
    ),
    (
        "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].mismatchLabelKeys",
        3,
    ),
    ("spec.template.spec.domain.features.hypervPassthrough", 3),
    ("spec.updateVolumesStrategy", 3),
    ("spec.template.spec.domain.ioThreads", 5),
    ("spec.template.spec.domain.devices.gpus[*].claimName", 6),
    ("spec.template.spec.domain.devices.gpus[*].requestName", 6),
    (
        "spec.template.spec.domain.devices.hostDevices[*].claimName",
        6,
    ),
    (
        "spec.template.spec.domain.devices.hostDevices[*].requestName",
        6,
    ),
    ("spec.template.spec.domain.devices.panicDevices", 6),
    ("spec.template.spec.domain.devices.tpm.enabled", 6),
    ("spec.template.spec.domain.devices.video", 6),
    ("spec.template.spec.domain.devices.watchdog.diag288", 6),
    ("spec.template.spec.domain.firmware.acpi.msdmNameRef", 6),
    ("spec.template.spec.resourceClaims", 6),
    (
        "spec.dataVolumeTemplates[*].spec.source.registry.platform",
        7,
    ),
    ("spec.dataVolumeTemplates[*].spec.source.vddk.extraArgs", 7),
    (
        "spec.template.spec.domain.devices.disks[*].blockSize.custom.discardGranularity",
        7,
    ),
    (
        "spec.template.spec.domain.devices.disks[*].changedBlockTracking",
        7,
    ),
    ("spec.template.spec.domain.launchSecurity.snp", 7),
    ("spec.template.spec.domain.launchSecurity.tdx", 7),
    (
        "spec.dataVolumeTemplates[*].spec.source.imageio.insecureSkipVerify",
        8,
    ),
    (
        "spec.template.spec.domain.devices.interfaces[*].passtBinding",
        8,
    ),
    (
        "spec.template.spec.domain.features.hyperv.tlbflush.direct",
        8,
    ),
    (
        "spec.template.spec.domain.features.hyperv.tlbflush.extended",
        8,
    ),
    ("spec.template.spec.domain.memory.reservedOverhead", 8),
    ("spec.template.spec.domain.rebootPolicy", 8),
    ("spec.template.spec.utilityVolumes", 8),
    ("spec.template.spec.volumes[*].containerPath", 8),
    (
        "spec.template.spec.domain.devices.interfaces[*].portRanges",
        9,
    ),
    ("spec.template.spec.networks[*].resourceClaim", 9),
    ("spec.template.spec.serviceAccountName", 9),
];

/// The zero value Go prints for a field without `omitempty`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Zero {
    Str,
    Int,
}

/// Fields that older releases print even when empty, as their Go field had no `omitempty` yet:
/// the field (`[*]` for list items), the first v1 minor release that leaves it out when empty,
/// its zero value, and the field Go prints just before it (none: it comes first).
const PRINTED_WHEN_EMPTY: &[(&str, u32, Zero, Option<&str>)] = &[
    (
        "spec.template.spec.domain.devices.gpus[*].deviceName",
        6,
        Zero::Str,
        Some("name"),
    ),
    (
        "spec.template.spec.domain.devices.hostDevices[*].deviceName",
        6,
        Zero::Str,
        Some("name"),
    ),
    (
        "spec.template.spec.domain.devices.disks[*].blockSize.custom.logical",
        7,
        Zero::Int,
        None,
    ),
    (
        "spec.template.spec.domain.devices.disks[*].blockSize.custom.physical",
        7,
        Zero::Int,
        Some("logical"),
    ),
];

/// Writes the empty fields that release `version` prints and the current one leaves out into
/// `vm`, a VM as the current release encodes it.
pub(crate) fn print_empty_fields_of_release(vm: &mut Value, version: KubeVirtVersion) {
    for &(path, since, zero, after) in PRINTED_WHEN_EMPTY {
        if declared_at(since, version) {
            continue;
        }
        let steps = steps(path);
        let Some((Step::Field(name), parent)) = steps.split_last() else {
            continue;
        };
        for_each_object(vm, parent, &mut |object| {
            if object.keys().any(|key| same_key(key, name)) {
                return;
            }
            let index = after
                .and_then(|after| object.keys().position(|key| same_key(key, after)))
                .map_or(0, |i| i + 1);
            let value = match zero {
                Zero::Str => Value::from(""),
                Zero::Int => Value::from(0),
            };
            object.shift_insert(index, (*name).to_owned(), value);
        });
    }
}

/// Calls `f` on each object that `steps` lead to.
fn for_each_object(
    value: &mut Value,
    steps: &[Step<'_>],
    f: &mut dyn FnMut(&mut serde_json::Map<String, Value>),
) {
    let Some((step, rest)) = steps.split_first() else {
        if let Value::Object(object) = value {
            f(object);
        }
        return;
    };
    match (step, value) {
        (Step::Field(name), Value::Object(map)) => {
            if let Some((_, child)) = map.iter_mut().find(|(key, _)| same_key(key, name)) {
                for_each_object(child, rest, f);
            }
        }
        (Step::Items, Value::Array(items)) => {
            for item in items {
                for_each_object(item, rest, f);
            }
        }
        _ => {}
    }
}

/// One step of a table path: a field, or every item of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step<'a> {
    Field(&'a str),
    Items,
}

/// `a.b[*].c` as `[Field(a), Field(b), Items, Field(c)]`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        match part.strip_suffix("[*]") {
            Some(name) => {
                out.push(Step::Field(name));
                out.push(Step::Items);
            }
            None => out.push(Step::Field(part)),
        }
    }
    out
}

/// Whether release v1.`minor` declares the table field added in v1.`since`.
fn declared_at(since: u32, version: KubeVirtVersion) -> bool {
    version >= KubeVirtVersion::new(1, since)
}

/// The fields of `vm` that the VirtualMachine of release `version` does not declare, in the
/// table's order and then the lists' order, each with the release that declares it first.
pub(crate) fn newer_vm_fields(vm: &Value, version: KubeVirtVersion) -> Vec<(FieldPath, u32)> {
    let mut out = Vec::new();
    for &(path, since) in ADDED {
        if declared_at(since, version) {
            continue;
        }
        let mut found = Vec::new();
        collect(vm, &steps(path), &mut Vec::new(), &mut found);
        out.extend(found.into_iter().map(|path| (path, since)));
    }
    out
}

/// The paths where `steps` lead to a value that is set (not `null`).
fn collect(value: &Value, steps: &[Step<'_>], at: &mut Vec<Segment>, out: &mut Vec<FieldPath>) {
    let Some((step, rest)) = steps.split_first() else {
        if !value.is_null() {
            out.push(FieldPath(at.clone()));
        }
        return;
    };
    match (step, value) {
        (Step::Field(name), Value::Object(map)) => {
            if let Some((key, child)) = map.iter().find(|(key, _)| same_key(key, name)) {
                at.push(Segment::Key(key.clone()));
                collect(child, rest, at, out);
                at.pop();
            }
        }
        (Step::Items, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                at.push(Segment::Index(i));
                collect(item, rest, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// KubeVirt's refusal of a field its release does not declare, as its webhook's OpenAPI check
/// words it: the field without list indices (`devices.gpus.claimName`).
pub(crate) fn forbidden_property_message(path: &str) -> String {
    let mut field = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']').map(|c| open + c) else {
            break;
        };
        field.push_str(&rest[..open]);
        let inner = &rest[open + 1..close];
        if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
            field.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    field.push_str(rest);
    format!("{field} in body is a forbidden property")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::render::shape::{PathSegment, Shape, shape_at};

    fn shape_of(path: &str) -> Option<&'static Shape> {
        let segments: Vec<PathSegment<'_>> = steps(path)
            .into_iter()
            .map(|step| match step {
                Step::Field(name) => PathSegment::Key(name),
                Step::Items => PathSegment::Index(0),
            })
            .collect();
        shape_at(&segments)
    }

    #[test]
    fn every_added_field_is_a_field_of_the_current_virtual_machine() {
        for &(path, since) in ADDED {
            assert!(shape_of(path).is_some(), "{path} (v1.{since})");
            let (parent, _) = path.rsplit_once('.').expect(path);
            assert!(
                matches!(
                    shape_of(parent),
                    Some(Shape::Struct(_) | Shape::PtrStruct(_))
                ),
                "{path}: the parent is no struct"
            );
        }
    }

    #[test]
    fn the_table_lists_each_field_once_with_a_release_after_v1_0() {
        for (i, &(path, since)) in ADDED.iter().enumerate() {
            assert!(
                (1..=KubeVirtVersion::LATEST.minor).contains(&since),
                "{path}: v1.{since}"
            );
            assert!(
                path.starts_with("spec."),
                "{path}: only the spec is compared"
            );
            for &(other, other_since) in &ADDED[..i] {
                assert_ne!(path, other, "listed twice");
                // A field nested in a listed one is listed only when added later than it.
                if let Some(rest) = path.strip_prefix(other) {
                    assert!(
                        !rest.starts_with(['.', '[']) || since > other_since,
                        "{path} (v1.{since}) came with {other} (v1.{other_since})"
                    );
                }
                if let Some(rest) = other.strip_prefix(path) {
                    assert!(
                        !rest.starts_with(['.', '[']) || other_since > since,
                        "{other} (v1.{other_since}) came with {path} (v1.{since})"
                    );
                }
            }
        }
        let mut releases: Vec<u32> = ADDED.iter().map(|&(_, since)| since).collect();
        releases.dedup();
        assert!(releases.is_sorted(), "the table is in release order");
    }

    /// A VM with one field of each release that added any, two of them in list items.
    fn vm_with_a_field_of_each_release() -> Value {
        json!({"spec": {
            "instancetype": {"name": "u1.small", "inferFromVolumeFailurePolicy": "Ignore"},
            "updateVolumesStrategy": "Migration",
            "template": {"spec": {
                "serviceAccountName": "sa",
                "utilityVolumes": [{"name": "u", "claimName": "c"}],
                "domain": {
                    "firmware": {"acpi": {"slicNameRef": "slic"}},
                    "ioThreads": {"supplementalPoolThreadCount": 2},
                    "devices": {
                        "video": {"type": "virtio"},
                        "disks": [
                            {"name": "a"},
                            {"name": "b", "changedBlockTracking": true},
                        ],
                    },
                },
            }},
        }})
    }

    fn newer_at(minor: u32) -> Vec<String> {
        newer_vm_fields(
            &vm_with_a_field_of_each_release(),
            KubeVirtVersion::new(1, minor),
        )
        .iter()
        .map(|(path, since)| format!("{path} v1.{since}"))
        .collect()
    }

    #[test]
    fn each_release_lacks_exactly_the_fields_added_after_it() {
        let all = [
            "spec.instancetype.inferFromVolumeFailurePolicy v1.1",
            "spec.template.spec.domain.firmware.acpi v1.2",
            "spec.updateVolumesStrategy v1.3",
            "spec.template.spec.domain.ioThreads v1.5",
            "spec.template.spec.domain.devices.video v1.6",
            "spec.template.spec.domain.devices.disks[1].changedBlockTracking v1.7",
            "spec.template.spec.utilityVolumes v1.8",
            "spec.template.spec.serviceAccountName v1.9",
        ];
        let since = |line: &str| -> u32 { line.rsplit_once("v1.").unwrap().1.parse().unwrap() };
        for minor in 0..=9 {
            let want: Vec<&str> = all.iter().copied().filter(|l| since(l) > minor).collect();
            assert_eq!(newer_at(minor), want, "v1.{minor}");
        }
        assert!(newer_at(10).is_empty());
        assert!(
            newer_vm_fields(
                &vm_with_a_field_of_each_release(),
                KubeVirtVersion::new(2, 0)
            )
            .is_empty()
        );
    }

    #[test]
    fn only_set_fields_at_the_exact_name_count() {
        let vm = json!({"spec": {"template": {"spec": {
            "serviceAccountName": null,
            "ServiceAccountName": "sa",
            "networks": [{"name": "a"}, {"name": "b", "resourceClaim": {"claimName": "c"}}],
            "volumes": "not a list",
        }}}});
        let found: Vec<String> = newer_vm_fields(&vm, KubeVirtVersion::new(1, 8))
            .iter()
            .map(|(path, _)| path.to_string())
            .collect();
        assert_eq!(found, ["spec.template.spec.networks[1].resourceClaim"]);
    }

    #[test]
    fn the_refusal_names_the_field_without_list_indices() {
        assert_eq!(
            forbidden_property_message("spec.template.spec.domain.devices.gpus[0].claimName"),
            "spec.template.spec.domain.devices.gpus.claimName in body is a forbidden property"
        );
        assert_eq!(
            forbidden_property_message("spec.template.spec.domain.rebootPolicy"),
            "spec.template.spec.domain.rebootPolicy in body is a forbidden property"
        );
        assert_eq!(
            forbidden_property_message("a[b.c/d].e[12][x"),
            "a[b.c/d].e[x in body is a forbidden property"
        );
    }

    #[test]
    fn releases_before_omitempty_print_the_empty_fields() {
        let encoded = json!({"spec": {"template": {"spec": {"domain": {"devices": {
            "gpus": [{"name": "g", "claimName": "c"}, {"name": "h", "deviceName": "nvidia.com/A"}],
            "hostDevices": [{"claimName": "c", "name": "d"}],
            "disks": [{"name": "a", "blockSize": {"custom": {"discardGranularity": 4096}}}, {"name": "b"}],
        }}}}}});
        let at = |minor: u32| {
            let mut vm = encoded.clone();
            print_empty_fields_of_release(&mut vm, KubeVirtVersion::new(1, minor));
            vm
        };
        for minor in 7..=9 {
            assert_eq!(at(minor), encoded, "v1.{minor}");
        }
        let v1_6 = at(6);
        assert_eq!(
            v1_6["spec"]["template"]["spec"]["domain"]["devices"]["disks"][0]["blockSize"]["custom"],
            json!({"logical": 0, "physical": 0, "discardGranularity": 4096})
        );
        assert_eq!(
            v1_6["spec"]["template"]["spec"]["domain"]["devices"]["gpus"],
            encoded["spec"]["template"]["spec"]["domain"]["devices"]["gpus"]
        );
        let devices = &at(5)["spec"]["template"]["spec"]["domain"]["devices"];
        assert_eq!(
            serde_json::to_string(&devices["gpus"]).unwrap(),
            r#"[{"name":"g","deviceName":"","claimName":"c"},{"name":"h","deviceName":"nvidia.com/A"}]"#
        );
        assert_eq!(
            serde_json::to_string(&devices["hostDevices"]).unwrap(),
            r#"[{"claimName":"c","name":"d","deviceName":""}]"#
        );
        assert_eq!(devices["disks"][1], json!({"name": "b"}));
    }
}
