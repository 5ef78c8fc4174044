//! Who is who across the sides: VMs, the instance types and preferences they use.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::check::Report;
use crate::model::{MatcherKind, MatcherRole};

/// A VM (or VirtualMachinePool) by namespace and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct VmKey {
    pub namespace: String,
    pub name: String,
}

impl VmKey {
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for VmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

/// An instance type or preference a VM uses: its resolved kind and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct MatcherRef {
    /// `VirtualMachineClusterInstancetype`, `VirtualMachineInstancetype`, ... (an unexpected
    /// kind as written).
    pub kind: String,
    pub name: String,
}

impl MatcherRef {
    pub(super) fn object_key(&self, vm_namespace: &str) -> ObjectKey {
        ObjectKey {
            namespace: (!self.kind.contains("Cluster")).then(|| vm_namespace.to_owned()),
            kind: self.kind.clone(),
            name: self.name.clone(),
        }
    }
}

/// The instance type and preference of a VM.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VmMatchers {
    pub instancetype: Option<MatcherRef>,
    pub preference: Option<MatcherRef>,
}

impl VmMatchers {
    pub(super) fn get(&self, role: MatcherRole) -> Option<&MatcherRef> {
        match role {
            MatcherRole::Instancetype => self.instancetype.as_ref(),
            MatcherRole::Preference => self.preference.as_ref(),
        }
    }

    /// The objects the VM (in `namespace`) uses, instance type first.
    pub(super) fn object_keys(&self, namespace: &str) -> Vec<ObjectKey> {
        ROLES
            .iter()
            .filter_map(|role| self.get(*role))
            .map(|m| m.object_key(namespace))
            .collect()
    }

    pub(super) fn slot(&mut self, role: MatcherRole) -> &mut Option<MatcherRef> {
        match role {
            MatcherRole::Instancetype => &mut self.instancetype,
            MatcherRole::Preference => &mut self.preference,
        }
    }
}

/// An instance type or preference object by identity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ObjectKey {
    pub kind: String,
    /// `None` for the cluster kinds.
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{} {namespace}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

pub(super) const ROLES: [MatcherRole; 2] = [MatcherRole::Instancetype, MatcherRole::Preference];

pub(super) fn role_index(role: MatcherRole) -> usize {
    match role {
        MatcherRole::Instancetype => 0,
        MatcherRole::Preference => 1,
    }
}

pub(super) fn full_kind(role: MatcherRole, kind: MatcherKind, written: &str) -> String {
    match (role, kind) {
        (MatcherRole::Instancetype, MatcherKind::Cluster) => "VirtualMachineClusterInstancetype",
        (MatcherRole::Instancetype, MatcherKind::Namespaced) => "VirtualMachineInstancetype",
        (MatcherRole::Preference, MatcherKind::Cluster) => "VirtualMachineClusterPreference",
        (MatcherRole::Preference, MatcherKind::Namespaced) => "VirtualMachinePreference",
        (_, MatcherKind::Unexpected) => written,
    }
    .to_owned()
}

/// Reads `instancetype: VirtualMachineClusterInstancetype u1.medium from built-in catalog
/// v1.7.0` (the format of [`Rendered::origins`](crate::check::vm::Rendered::origins)).
pub(super) fn parse_origin(origin: &str) -> Option<(MatcherRole, MatcherRef)> {
    let (role, rest) = origin.split_once(": ")?;
    let role = match role {
        "instancetype" => MatcherRole::Instancetype,
        "preference" => MatcherRole::Preference,
        _ => return None,
    };
    let mut words = rest.split_whitespace();
    let kind = words.next()?.to_owned();
    let name = words.next()?.to_owned();
    Some((role, MatcherRef { kind, name }))
}

/// The instance type and preference of every rendered VM, as resolved (after inference), read
/// from [`Rendered::origins`](crate::check::vm::Rendered::origins).
pub fn matchers(report: &Report) -> BTreeMap<VmKey, VmMatchers> {
    let mut out = BTreeMap::new();
    for rendered in &report.rendered {
        let key = VmKey::new(&rendered.namespace, &rendered.name);
        if out.contains_key(&key) {
            continue;
        }
        let mut matchers = VmMatchers::default();
        for origin in &rendered.origins {
            if let Some((role, matcher)) = parse_origin(origin) {
                *matchers.slot(role) = Some(matcher);
            }
        }
        out.insert(key, matchers);
    }
    out
}
