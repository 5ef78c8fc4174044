//! KV4004: annotations a VirtualMachineRestore writes, committed to Git.

use super::RuntimeFix;
use crate::rules::drift::Explained;
use crate::rules::{Category, Rule, Severity};

pub static RESTORE_ANNOTATION_COMMITTED: Rule = Rule {
    code: "KV4004",
    name: "restore-annotation-committed",
    category: Category::Runtime,
    severity: Severity::Warning,
    summary: "Annotations written by a VirtualMachineRestore are committed to Git.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV4004.md"),
    fix: FIX.kind(),
    drift: None,
};

pub const FIX: RuntimeFix = RuntimeFix::Remove;

/// The prefix of the VM annotations the rule reports.
pub const ANNOTATION_PREFIX: &str = "restore.kubevirt.io/";

/// The finding for the annotation `key`.
pub fn explain(key: &str) -> Explained {
    Explained {
        message: format!("{key} is written by a VirtualMachineRestore"),
        help:
            "remove it from Git; a restored VM also carries revisionName values, which must go too"
                .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_annotation() {
        let explained = explain("restore.kubevirt.io/lastRestoreUID");
        assert_eq!(
            explained.message,
            "restore.kubevirt.io/lastRestoreUID is written by a VirtualMachineRestore"
        );
        assert!(explained.help.contains("revisionName"));
    }
}
