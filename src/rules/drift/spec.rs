//! What a drift rule declares besides its metadata: the changed fields it reports, how its
//! finding reads, how it is fixed, and how a GitOps engine takes it. `controller::drift` detects
//! the changes (what KubeVirt writes) and hands each to the rule that claims it.

use std::fmt::Display;

use serde_json::Value;

use crate::rules::FixKind;

/// A drift rule's behaviour, declared in its file.
#[derive(Debug)]
pub struct DriftRule {
    /// The changed fields the rule reports and how its finding reads; `None` for a rule whose
    /// producer builds its finding itself (a controller rewrite, a HyperConverged default).
    pub changes: Option<Changes>,
    /// What the next apply of the same manifest does once KubeVirt made the change.
    pub next_sync: NextSync,
    /// How `kvlint fix` writes what the cluster stores.
    pub fix: DriftFix,
    /// How the human, GitHub and Markdown reports name the field when they gather KubeVirt's
    /// webhook defaults into one item per VM; `None` for a rule they do not gather.
    pub gathered: Option<Gathered>,
}

/// The changed fields of the VM a rule reports, and the words of its finding.
#[derive(Debug)]
pub struct Changes {
    pub claims: &'static [Claim],
    pub explain: fn(&Change<'_>) -> Explained,
}

/// A changed field a rule reports. A claim with a condition wins over every claim without one;
/// a field no claim matches is `NORMALIZED_BY_KUBEVIRT`'s.
#[derive(Debug)]
pub struct Claim {
    /// The field's keys from the VM's root: `[]` stands for any list index, `**` for any
    /// number of keys (none included).
    pub path: &'static [&'static str],
    pub when: Option<Written>,
}

impl Claim {
    pub const fn always(path: &'static [&'static str]) -> Self {
        Self { path, when: None }
    }

    pub const fn when(path: &'static [&'static str], when: Written) -> Self {
        Self {
            path,
            when: Some(when),
        }
    }
}

/// A condition on the VM as written.
#[derive(Debug)]
pub enum Written {
    /// The field holds a non-empty string.
    NonEmpty(&'static [&'static str]),
    /// The field holds this string.
    Is(&'static [&'static str], &'static str),
}

/// What the next apply of the same manifest does once KubeVirt made a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSync {
    /// It applies: the change shows as a difference, or not at all.
    Applies,
    /// It is refused, unless the GitOps engine ignores the field and leaves it out of the
    /// apply (Argo CD with RespectIgnoreDifferences).
    Refused,
    /// It is refused whatever the engine ignores: KubeVirt's controller already replaced what
    /// the manifest still sends.
    RefusedWhateverIgnored,
}

impl NextSync {
    pub const fn is_refused(self) -> bool {
        !matches!(self, Self::Applies)
    }
}

/// How `kvlint fix` handles a drift finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriftFix {
    None,
    /// Write what the cluster stores at the finding's field (remove it where the cluster does).
    CommitStored,
    /// Write a scalar as KubeVirt spells it; a dropped field or a map is left alone, as it may
    /// be a typo the owner wants to correct instead.
    CanonicalScalar,
    /// Pin a generated identity to a value derived from the object and field: a choice, so
    /// applied only with `--unsafe-fixes`.
    PinIdentity,
}

impl DriftFix {
    /// The rule's fix kind (`Rule::fix`) this way of fixing makes.
    pub const fn kind(self) -> FixKind {
        match self {
            Self::None => FixKind::None,
            Self::CommitStored | Self::CanonicalScalar => FixKind::Safe,
            Self::PinIdentity => FixKind::Unsafe,
        }
    }
}

/// How a gathered webhook default names its field.
#[derive(Clone, Copy, Debug)]
pub enum Gathered {
    /// The field's short name, followed by the value written.
    Field(&'static str),
    /// A generated value: the words for one field, and for more than one.
    Generated {
        one: &'static str,
        several: &'static str,
    },
}

/// One detected change, as a rule words it.
pub struct Change<'a> {
    /// The KubeVirt release judged against.
    pub version: &'a dyn Display,
    /// The field as shown (`spec.template.spec.domain.machine.type`).
    pub field: &'a str,
    /// The field's last key (`[]` for a list index).
    pub last_key: &'a str,
    pub written: Option<&'a Value>,
    pub stored: Option<&'a Value>,
    /// The VM's own name and the firmware UUID KubeVirt's VM controller derives from it, when
    /// the manifest creates a VM of its own (not a pool's template).
    pub legacy_uuid: Option<(&'a str, String)>,
    /// The YAML that sets the field to a value.
    pub snippet: &'a dyn Fn(&Value) -> String,
}

impl Change<'_> {
    /// The help that tells to commit what the cluster stores (or to remove the field), after
    /// `why`.
    pub fn commit_help(&self, why: &str) -> String {
        match self.stored {
            Some(value) => format!(
                "{why}; commit what the cluster stores:\n{}",
                (self.snippet)(value)
            ),
            None => format!("{why}; remove `{}` from the manifest", self.field),
        }
    }
}

/// A drift finding's words.
#[derive(Debug, PartialEq, Eq)]
pub struct Explained {
    pub message: String,
    pub help: String,
}

/// A value as a message shows it: a string plainly in backticks, anything else as JSON.
pub(super) fn describe(value: Option<&Value>) -> String {
    match value {
        None => "nothing".to_owned(),
        Some(Value::String(s)) => format!("`{s}`"),
        Some(other) => format!("`{other}`"),
    }
}

#[cfg(test)]
pub(super) mod testing {
    use serde_json::Value;

    use super::{Change, Explained};

    /// `explain` of a change at `field` on KubeVirt v1.9, with a snippet that names the value.
    pub(crate) fn explain_at(
        explain: fn(&Change<'_>) -> Explained,
        field: &str,
        written: Option<&Value>,
        stored: Option<&Value>,
        legacy_uuid: Option<(&str, String)>,
    ) -> Explained {
        let last_key = field.rsplit('.').next().unwrap_or(field);
        explain(&Change {
            version: &"v1.9",
            field,
            last_key,
            written,
            stored,
            legacy_uuid,
            snippet: &|value| format!("<{value}>"),
        })
    }
}
