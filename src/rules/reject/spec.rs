//! What a VM-outcome rule's builder returns: the finding's words and where it points, as plain
//! values (`check::vm` turns them into a `diag::Finding` at the VM's field in its object).

use crate::rules::Rule;

/// A finding about a VM, before it is placed in the VM's object.
#[derive(Debug, PartialEq, Eq)]
pub struct Reported {
    pub rule: &'static Rule,
    pub at: At,
    pub message: String,
    pub help: Option<String>,
    /// KubeVirt's own cause field, verbatim.
    pub kubevirt_field: Option<String>,
    /// Places in the instance type or preference the VM references; a place in an object that
    /// was not found is left out.
    pub related: Vec<Related>,
}

impl Reported {
    pub fn new(rule: &'static Rule, at: At, message: impl Into<String>) -> Self {
        Self {
            rule,
            at,
            message: message.into(),
            help: None,
            kubevirt_field: None,
            related: Vec::new(),
        }
    }

    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn with_kubevirt_field(mut self, field: impl Into<String>) -> Self {
        self.kubevirt_field = Some(field.into());
        self
    }

    #[must_use]
    pub fn with_related(
        mut self,
        object: Matcher,
        field: RelatedField,
        label: impl Into<String>,
    ) -> Self {
        self.related.push(Related {
            object,
            field,
            label: label.into(),
        });
        self
    }
}

/// Where a finding points in the VM.
#[derive(Debug, PartialEq, Eq)]
pub enum At {
    /// A field of the VM in Kubernetes notation (`spec.instancetype.inferFromVolume`).
    Field(String),
    /// A field as a KubeVirt cause names it (`spec.template.spec.domain.cpu.sockets`,
    /// `annotations.<key>`), which `check::vm` maps to the VM field it means.
    Cause(String),
}

impl At {
    /// The field as written: a cause's as KubeVirt names it.
    pub fn text(&self) -> &str {
        match self {
            Self::Field(field) | Self::Cause(field) => field,
        }
    }
}

/// The matcher of a VM, and the object it references.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matcher {
    Instancetype,
    Preference,
}

impl Matcher {
    /// The matcher's field under the VM's `spec`.
    pub const fn field(self) -> &'static str {
        match self {
            Self::Instancetype => "instancetype",
            Self::Preference => "preference",
        }
    }
}

/// A place in the instance type or preference the VM references.
#[derive(Debug, PartialEq, Eq)]
pub struct Related {
    pub object: Matcher,
    pub field: RelatedField,
    pub label: String,
}

/// A field of a referenced object.
#[derive(Debug, PartialEq, Eq)]
pub enum RelatedField {
    /// A field of the object's spec in Kubernetes notation (empty: the spec itself).
    Field(&'static str),
    /// The instance type's field that sets a VM field (a conflict's path as KubeVirt names it).
    SettingOf(String),
}
