//! What a Kustomize build that gave no output says: a refusal by Kustomize, or a failure to run
//! it. The cache keeps the first kind; the second is never cached.

/// Why a build gave no output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BuildError {
    /// Kustomize refused the unit: its message.
    Refused(String),
    /// The process could not run, ran too long, or printed too much.
    Failed(String),
}
