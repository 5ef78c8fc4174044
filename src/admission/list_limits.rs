//! KubeVirt's limit on the length of the VMI spec's lists: 256 disks, interfaces, networks,
//! volumes and access credentials (and utility volumes from v1.8 on).
//!
//! Up to v1.2 the VMI-spec validation of the webhook (`arrayLenMax`) checks the lengths and stops
//! at an over-long list. From v1.3 on the limit is the CRD's `maxItems`: the API server refuses
//! the VM when it validates the mutated object against the CRD schema, before the validating
//! webhook runs. Either way the checks that compare list items with each other (duplicate disk
//! names are reported per pair) only ever see at most 256 items.

use serde_json::Value;

use super::Cause;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::at_keys;

/// `arrayLenMax` of the webhook, and the `maxItems` of the CRD.
const MAX_ITEMS: usize = 256;

/// A limited list, below the VMI spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum List {
    AccessCredentials,
    Disks,
    Interfaces,
    Networks,
    UtilityVolumes,
    Volumes,
}

impl List {
    /// In the order of their paths.
    const ALL: [Self; 6] = [
        Self::AccessCredentials,
        Self::Disks,
        Self::Interfaces,
        Self::Networks,
        Self::UtilityVolumes,
        Self::Volumes,
    ];

    /// The path below the VMI spec.
    pub(crate) fn keys(self) -> &'static [&'static str] {
        match self {
            Self::AccessCredentials => &["accessCredentials"],
            Self::Disks => &["domain", "devices", "disks"],
            Self::Interfaces => &["domain", "devices", "interfaces"],
            Self::Networks => &["networks"],
            Self::UtilityVolumes => &["utilityVolumes"],
            Self::Volumes => &["volumes"],
        }
    }

    /// Whether the CRD of `version` limits the list.
    fn limited_by_crd(self, version: KubeVirtVersion) -> bool {
        match self {
            Self::UtilityVolumes => version.at_least(1, 8),
            _ => version.at_least(1, 3),
        }
    }

    /// The field as KubeVirt and the API server print it, below `template_spec`.
    fn field(self, template_spec: &str) -> String {
        let mut field = template_spec.to_owned();
        for key in self.keys() {
            field.push('.');
            field.push_str(key);
        }
        field
    }
}

/// Whether `list` of `spec` (a VMI spec) holds more than [`MAX_ITEMS`] items.
pub(crate) fn exceeds(spec: &Value, list: List) -> bool {
    at_keys(spec, list.keys())
        .and_then(Value::as_array)
        .is_some_and(|items| items.len() > MAX_ITEMS)
}

/// The webhook's cause for an over-long list (v1.0-v1.2).
pub(super) fn webhook_cause(template_spec: &str, list: List) -> Cause {
    let field = list.field(template_spec);
    let message = format!("{field} list exceeds the {MAX_ITEMS} element limit in length");
    Cause::new(field, message)
}

/// The fields of `vm`'s template spec over the CRD's `maxItems` in `version` (none before v1.3),
/// in the order of their paths.
pub(super) fn crd_violations(vm: &Value, version: KubeVirtVersion) -> Vec<String> {
    let Some(spec) = at_keys(vm, &["spec", "template", "spec"]) else {
        return Vec::new();
    };
    List::ALL
        .into_iter()
        .filter(|list| list.limited_by_crd(version) && exceeds(spec, *list))
        .map(|list| list.field("spec.template.spec"))
        .collect()
}

/// The API server's message for a list over `maxItems` (its validator does not pass the actual
/// length on, so the message has none).
pub(crate) fn too_many_message(field: &str) -> String {
    format!("{field}: Too many: must have at most {MAX_ITEMS} items")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vm_with(list: List, len: usize) -> Value {
        let mut spec = json!({});
        let keys = list.keys();
        let mut at = &mut spec;
        for key in &keys[..keys.len() - 1] {
            at = &mut at[*key];
        }
        at[keys[keys.len() - 1]] = Value::Array(vec![json!({"name": "a"}); len]);
        json!({"spec": {"template": {"spec": spec}}})
    }

    #[test]
    fn the_crd_limits_lists_from_v1_3_on() {
        let vm = vm_with(List::Disks, MAX_ITEMS + 1);
        assert_eq!(
            crd_violations(&vm, KubeVirtVersion::new(1, 3)),
            ["spec.template.spec.domain.devices.disks"]
        );
        assert!(crd_violations(&vm, KubeVirtVersion::new(1, 2)).is_empty());
        let at_limit = vm_with(List::Disks, MAX_ITEMS);
        assert!(crd_violations(&at_limit, KubeVirtVersion::LATEST).is_empty());
    }

    #[test]
    fn utility_volumes_are_limited_from_v1_8_on() {
        let vm = vm_with(List::UtilityVolumes, MAX_ITEMS + 1);
        assert!(crd_violations(&vm, KubeVirtVersion::new(1, 7)).is_empty());
        assert_eq!(
            crd_violations(&vm, KubeVirtVersion::new(1, 8)),
            ["spec.template.spec.utilityVolumes"]
        );
    }

    #[test]
    fn messages_are_kubevirts() {
        let cause = webhook_cause("spec.template.spec", List::Volumes);
        assert_eq!(cause.field, "spec.template.spec.volumes");
        assert_eq!(
            cause.message,
            "spec.template.spec.volumes list exceeds the 256 element limit in length"
        );
        assert_eq!(
            too_many_message("spec.template.spec.networks"),
            "spec.template.spec.networks: Too many: must have at most 256 items"
        );
    }
}
