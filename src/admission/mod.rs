//! What KubeVirt's admission webhooks do with a VirtualMachine: the mutating webhook
//! (`mutate`), the validating webhook's instance-type part (`validate`) and its VM spec
//! validation on the expanded copy (`vmspec`).

pub mod list_limits;
pub mod mutate;
pub mod objects;
pub mod validate;
pub mod vmspec;

/// One status cause of a refusal, as KubeVirt returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// KubeVirt's `field`, verbatim (not always a path).
    pub field: String,
    pub message: String,
}

impl Cause {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}
