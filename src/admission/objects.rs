//! KubeVirt's webhooks for instance types and preferences themselves
//! (`pkg/instancetype/webhooks/admitter.go`, `ValidateInstanceTypeSpec`;
//! `pkg/instancetype/preference/webhooks/admitter.go`, `ValidatePreferenceSpec`): what they
//! refuse or warn about, and what no webhook catches but breaks every VM that uses the object.

use crate::cluster::profile::KubeVirtVersion;
use crate::diag::Finding;
use crate::k8s::{INSTANCETYPE_GROUP, Object};
use crate::model::{self, InstancetypeSpec, PreferenceSpec, SpreadAcross, Topology};
use crate::resolve::is_served;
use crate::rules::reject::{
    Reported, instancetype_object_rejected, invalid_instancetype_object, spread_ratio_zero,
};
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;

fn finding(
    object: &Object,
    rule: &'static Rule,
    path: &str,
    message: impl Into<String>,
) -> Finding {
    let field = FieldPath::parse(path);
    Finding::new(rule, object.field_location(&field), message)
        .with_object(Some(object.object_ref()))
        .with_path(field.to_string())
}

/// KV0011: KubeVirt `version` does not serve the object's API version; `help` names the one
/// to use.
pub(crate) fn unserved_api_version(
    object: &Object,
    version: KubeVirtVersion,
    help: &str,
) -> Finding {
    finding(
        object,
        &rules::UNSERVED_API_VERSION,
        "apiVersion",
        format!(
            "KubeVirt {version} does not serve {}: the API server refuses the object",
            object.api_version
        ),
    )
    .with_help(help)
}

/// A rule file's finding about the object, at its field.
fn place(object: &Object, reported: Reported) -> Finding {
    let mut placed = finding(object, reported.rule, reported.at.text(), reported.message);
    if let Some(field) = reported.kubevirt_field {
        placed = placed.with_kubevirt_field(field);
    }
    if let Some(help) = reported.help {
        placed = placed.with_help(help);
    }
    placed
}

fn is_instancetype(object: &Object) -> bool {
    matches!(
        object.kind.as_str(),
        "VirtualMachineInstancetype" | "VirtualMachineClusterInstancetype"
    )
}

fn is_preference(object: &Object) -> bool {
    matches!(
        object.kind.as_str(),
        "VirtualMachinePreference" | "VirtualMachineClusterPreference"
    )
}

/// Findings about one instance type or preference object.
pub(crate) fn check_object(object: &Object, version: KubeVirtVersion) -> Vec<Finding> {
    if object.group != INSTANCETYPE_GROUP || !(is_instancetype(object) || is_preference(object)) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if !is_served(&object.version, version) {
        out.push(unserved_api_version(
            object,
            version,
            "use instancetype.kubevirt.io/v1beta1 (the fields are the same)",
        ));
        return out;
    }
    if object.version != "v1beta1" {
        out.push(finding(
            object,
            &rules::DEPRECATED_API_VERSION,
            "apiVersion",
            format!(
                "{} {}s is now deprecated and will be removed in v1.",
                object.api_version, object.kind
            ),
        ));
    }
    let spec = object
        .node
        .get("spec")
        .map(crate::yaml::Node::to_json)
        .unwrap_or_default();
    // The CRD requires a spec object: the API server refuses the object (KV0015, from the
    // schema check) before the webhook sees it.
    if !spec.is_object() {
        return out;
    }
    if is_instancetype(object) {
        match model::decode::<InstancetypeSpec>(&spec) {
            Ok(instancetype) => out.extend(check_instancetype(object, &instancetype, version)),
            Err(error) => out.push(place(
                object,
                invalid_instancetype_object::undecodable(&error),
            )),
        }
    } else {
        match model::decode::<PreferenceSpec>(&spec) {
            Ok(preference) => out.extend(check_preference(object, &preference, version)),
            Err(error) => out.push(place(
                object,
                invalid_instancetype_object::undecodable(&error),
            )),
        }
    }
    out
}

fn check_instancetype(
    object: &Object,
    instancetype: &InstancetypeSpec,
    version: KubeVirtVersion,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let percent = instancetype.memory.overcommit_percent;
    if !(0..=100).contains(&percent) {
        out.push(place(
            object,
            instancetype_object_rejected::refused(
                "spec.memory.overcommitPercent",
                format!(
                    "spec.memory.overcommitPercent '{percent}': must be in range between 0 and 100."
                ),
            ),
        ));
    }
    if percent != 0
        && instancetype
            .memory
            .hugepages
            .as_ref()
            .is_some_and(|h| !h.is_null())
    {
        out.push(
            place(object, instancetype_object_rejected::refused("spec.memory.overcommitPercent", "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together.")),
        );
    }
    if version.at_least(1, 9)
        && instancetype
            .launch_security
            .as_ref()
            .is_some_and(|l| !l.is_null())
    {
        out.push(
            finding(
                object,
                &rules::DEPRECATED_FIELD,
                "spec.launchSecurity",
                "launchSecurity is deprecated and will be removed in a future release. Use preference instead.",
            )
            .with_help("move it to the preference as preferredLaunchSecurity"),
        );
    }
    out
}

const DEPRECATED_TOPOLOGIES: [(&str, &str); 5] = [
    ("preferSockets", "sockets"),
    ("preferCores", "cores"),
    ("preferThreads", "threads"),
    ("preferSpread", "spread"),
    ("preferAny", "any"),
];

fn check_preference(
    object: &Object,
    preference: &PreferenceSpec,
    version: KubeVirtVersion,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let topology_text = preference
        .cpu
        .as_ref()
        .and_then(|c| c.preferred_cpu_topology.as_deref());
    let topology = preference.topology(version.topology_names());
    if version.at_least(1, 4)
        && let Some(text) = topology_text
    {
        if topology == Topology::Unknown {
            out.push(place(
                object,
                instancetype_object_rejected::refused(
                    "spec.cpu.preferredCPUTopology",
                    format!("unknown preferredCPUTopology {text}"),
                ),
            ));
        } else if let Some((_, new)) = DEPRECATED_TOPOLOGIES.iter().find(|(old, _)| *old == text) {
            out.push(finding(
                    object,
                    &rules::DEPRECATED_FIELD,
                    "spec.cpu.preferredCPUTopology",
                    format!("PreferredCPUTopology {text} is deprecated for removal in a future release, please use {new} instead"),
                ).with_fix(Some(crate::diag::fix::rename_value(&crate::yaml::FieldPath::parse("spec.cpu.preferredCPUTopology"), new))));
        }
    }
    if version.at_least(1, 3) && topology == Topology::Spread {
        let across = preference.spread_across();
        if across == SpreadAcross::Unknown {
            let value = preference
                .cpu
                .as_ref()
                .and_then(|c| c.spread_options.as_ref())
                .and_then(|o| o.across.clone())
                .unwrap_or_default();
            out.push(place(
                object,
                instancetype_object_rejected::refused(
                    "spec.cpu.spreadOptions.across",
                    format!("across {value} is not supported"),
                ),
            ));
        } else if across == SpreadAcross::CoresThreads && preference.spread_ratio() != 2 {
            out.push(
                place(object, instancetype_object_rejected::refused("spec.cpu.spreadOptions.ratio", "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads")),
            );
        } else if preference.spread_ratio() == 0 {
            out.push(place(object, spread_ratio_zero::ratio_zero()));
        }
    }
    if version.at_least(1, 5)
        && let Some(firmware) = &preference.firmware
    {
        for (field, set, replacement) in [
            (
                "preferredUseEfi",
                firmware.preferred_use_efi.is_some(),
                "preferredEfi: {}",
            ),
            (
                "preferredUseSecureBoot",
                firmware.preferred_use_secure_boot.is_some(),
                "preferredEfi: {secureBoot: ...}",
            ),
        ] {
            if set {
                out.push(
                        finding(
                            object,
                            &rules::DEPRECATED_FIELD,
                            &format!("spec.firmware.{field}"),
                            format!("firmware.{field} is deprecated since KubeVirt v1.5 (KubeVirt gives no warning); it is ignored when preferredEfi is set"),
                        )
                        .with_help(format!("use {replacement}")),
                    );
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "objects_tests.rs"]
mod tests;
