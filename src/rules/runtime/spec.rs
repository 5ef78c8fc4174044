//! What a runtime rule declares besides its metadata and words: how `kvlint fix` fixes its
//! findings (`diag::fix` makes the edit).

use crate::rules::FixKind;

/// How `kvlint fix` removes runtime data from a manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeFix {
    /// Not fixable: the cluster writes the field after create.
    None,
    /// Remove the field.
    Remove,
    /// Remove a revisionName, right from KubeVirt v1.5 (older releases need it in the spec).
    RemoveRevisionName,
    /// Remove inferFromVolume (and its failure policy) from a matcher, keep the inferred name.
    DropInference,
}

impl RuntimeFix {
    /// The rule's fix kind (`Rule::fix`) this way of fixing makes.
    pub const fn kind(self) -> FixKind {
        match self {
            Self::None => FixKind::None,
            Self::Remove | Self::RemoveRevisionName | Self::DropInference => FixKind::Safe,
        }
    }
}
