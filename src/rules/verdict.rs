//! What KubeVirt does with a VM, worded once for `check` (help), `explain` and `diff`.

use std::fmt::Display;

use super::Category;

/// KubeVirt's verdict on a VM, from the category of its most telling error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A webhook refuses the VM: it is never stored.
    Rejected,
    /// The VM is stored, but a reference cannot be resolved: it cannot start.
    CannotStart,
}

impl Verdict {
    /// The verdict an error of `category` means, if it is one.
    pub fn of(category: Category) -> Option<Self> {
        match category {
            Category::Reject => Some(Self::Rejected),
            Category::Unresolved => Some(Self::CannotStart),
            _ => None,
        }
    }

    /// How `diff` names it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Rejected => "rejected",
            Self::CannotStart => "admitted, but cannot start",
        }
    }
}

/// The help of an unresolved instance type or preference (`condition` is the VM condition
/// KubeVirt sets, `FailedFindInstancetype`). `rejected_by` names the rule of a refusal of the
/// same VM: then the VM is not admitted at all, and the help says so rather than "admits".
pub fn unresolved_help(
    version: impl Display,
    condition: &str,
    rejected_by: Option<&str>,
) -> String {
    match rejected_by {
        None => format!(
            "KubeVirt {version} admits the VM, but it cannot start (condition {condition}) until the object exists"
        ),
        Some(code) => format!(
            "KubeVirt {version} rejects the VM ({code}); fixed for that, it would be admitted but could not start (condition {condition}) until the object exists"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_vm_is_never_said_to_be_admitted() {
        let help = unresolved_help("v1.9", "FailedFindInstancetype", Some("KV1002"));
        assert!(
            help.starts_with("KubeVirt v1.9 rejects the VM (KV1002)"),
            "{help}"
        );
        assert!(!help.contains("admits"), "{help}");
        assert!(unresolved_help("v1.9", "FailedFindPreference", None).contains("admits the VM"));
        assert_eq!(
            Verdict::of(Category::Reject).map(Verdict::label),
            Some("rejected")
        );
        assert_eq!(Verdict::of(Category::Drift), None);
    }
}
