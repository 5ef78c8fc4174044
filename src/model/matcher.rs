use serde_json::Value;

use super::value::Fields;

/// Which matcher: `spec.instancetype` or `spec.preference`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatcherRole {
    Instancetype,
    Preference,
}

impl MatcherRole {
    /// The VM spec field of the matcher.
    pub fn field(self) -> &'static str {
        match self {
            Self::Instancetype => "instancetype",
            Self::Preference => "preference",
        }
    }

    /// KubeVirt's Go type name, used in its messages.
    pub fn go_type(self) -> &'static str {
        match self {
            Self::Instancetype => "InstancetypeMatcher",
            Self::Preference => "PreferenceMatcher",
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            Self::Instancetype => "instance type",
            Self::Preference => "preference",
        }
    }
}

/// `spec.instancetype` / `spec.preference` of a VirtualMachine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Matcher {
    pub name: String,
    pub kind: String,
    pub revision_name: String,
    pub infer_from_volume: String,
    pub infer_from_volume_failure_policy: Option<String>,
}

/// Which kind a matcher's `kind` resolves to (KubeVirt `pkg/instancetype/find/spec.go`, `Find`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatcherKind {
    Namespaced,
    Cluster,
    /// Not one of the accepted spellings: `got unexpected kind in <Matcher>: <kind>`.
    Unexpected,
}

impl Matcher {
    /// Reads a matcher as Go would; fields of the wrong type read as empty (schema checks report
    /// them).
    pub fn from_json(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let text = |key: &str| {
            object
                .field(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some(Self {
            name: text("name"),
            kind: text("kind"),
            revision_name: text("revisionName"),
            infer_from_volume: text("inferFromVolume"),
            infer_from_volume_failure_policy: object
                .field("inferFromVolumeFailurePolicy")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }

    /// KubeVirt lower-cases the kind and compares it with the singular and plural of the two
    /// kinds of the matcher's role; empty means the cluster kind.
    pub fn resolved_kind(&self, role: MatcherRole) -> MatcherKind {
        let lower = self.kind.to_lowercase();
        let (namespaced, cluster) = match role {
            MatcherRole::Instancetype => (
                "virtualmachineinstancetype",
                "virtualmachineclusterinstancetype",
            ),
            MatcherRole::Preference => (
                "virtualmachinepreference",
                "virtualmachineclusterpreference",
            ),
        };
        let is = |base: &str| lower == base || lower.strip_suffix('s') == Some(base);
        if lower.is_empty() || is(cluster) {
            MatcherKind::Cluster
        } else if is(namespaced) {
            MatcherKind::Namespaced
        } else {
            MatcherKind::Unexpected
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_kind_spellings() {
        use MatcherRole::{Instancetype, Preference};
        let kind = |k: &str, role| {
            Matcher {
                kind: k.to_owned(),
                ..Matcher::default()
            }
            .resolved_kind(role)
        };
        assert_eq!(kind("", Instancetype), MatcherKind::Cluster);
        assert_eq!(
            kind("VirtualMachineInstancetype", Instancetype),
            MatcherKind::Namespaced
        );
        assert_eq!(
            kind("VIRTUALMACHINEINSTANCETYPES", Instancetype),
            MatcherKind::Namespaced
        );
        assert_eq!(
            kind("virtualmachineclusterinstancetype", Instancetype),
            MatcherKind::Cluster
        );
        assert_eq!(kind("vmf", Instancetype), MatcherKind::Unexpected);
        assert_eq!(
            kind("VirtualMachinePreference", Instancetype),
            MatcherKind::Unexpected
        );
        assert_eq!(
            kind("VirtualMachineClusterPreferences", Preference),
            MatcherKind::Cluster
        );
        assert_eq!(
            kind("virtualmachineinstancetypess", Instancetype),
            MatcherKind::Unexpected
        );
    }
}
