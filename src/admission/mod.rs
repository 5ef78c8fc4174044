//! What KubeVirt's admission webhooks do with a VirtualMachine: the mutating webhook
//! (`mutate`), the validating webhook's instance-type part (`validate`) and its VM spec
//! validation on the expanded copy (`vmspec`).

pub(crate) mod list_limits;
pub(crate) mod mutate;
pub(crate) mod objects;
pub(crate) mod validate;
mod vm_defaults;
mod vmspec;

/// One status cause of a refusal, as KubeVirt returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cause {
    /// KubeVirt's `field`, verbatim (not always a path).
    pub(crate) field: String,
    pub(crate) message: String,
}

impl Cause {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}
