//! Typed model of the `instancetype.kubevirt.io` kinds and of the VM matchers.
//!
//! All served versions (v1alpha1, v1alpha2, v1beta1) share one schema and the CRDs convert with
//! strategy `None`: an alpha object is stored as written, and KubeVirt reads its JSON with the
//! v1beta1 types. The alpha-only differences (plain values where v1beta1 has pointers) serialise
//! the same way, so one v1beta1 model reads every version. Sub-objects KubeVirt only copies
//! (NUMA, hugepages, GPUs, timers, ...) are kept as JSON so that nothing is lost.
//!
//! `value` holds the helpers that read and edit that JSON, and the VMs' JSON, the way KubeVirt's
//! Go code reads and sets struct fields.

use std::fmt;
use std::sync::Arc;

mod instancetype;
mod matcher;
mod preference;
pub(crate) mod value;

pub use instancetype::{InstancetypeCpu, InstancetypeMemory, InstancetypeSpec, IoThreads};
pub use matcher::{Matcher, MatcherKind, MatcherRole};
pub use preference::{
    ClockPreferences, CpuPreferences, DevicePreferences, FeaturePreferences, FirmwarePreferences,
    PreferenceSpec, Requirements, SpreadAcross, SpreadOptions, Topology, TopologyNames,
};

/// Why a spec cannot be decoded as KubeVirt's Go types: the decoder's error, and the field it
/// is about. Cheap to clone (decoded specs are shared between the VMs that reference them).
#[derive(Clone, Debug)]
pub struct DecodeError {
    /// The field below `spec` (`cpu.guest`), `None` for the spec itself.
    pub field: Option<String>,
    pub source: Arc<serde_json::Error>,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            None => write!(f, "{}", self.source),
            Some(field) => write!(f, "spec.{field}: {}", self.source),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// Decodes a spec as Go's encoding/json would: unknown fields are ignored, a wrong JSON type is
/// an error naming the field.
pub fn decode<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        DecodeError {
            field: (path != ".").then_some(path),
            source: Arc::new(err.into_inner()),
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_decode_error_names_the_field_and_keeps_the_decoder_s_error() {
        let error = decode::<InstancetypeSpec>(&json!({"cpu": {"guest": "two"}})).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("cpu.guest"));
        assert!(
            error
                .to_string()
                .starts_with("spec.cpu.guest: invalid type: string \"two\"")
        );
        assert!(std::error::Error::source(&error).is_some());
        let whole = decode::<InstancetypeSpec>(&json!("text")).unwrap_err();
        assert_eq!(whole.field, None);
        assert!(
            whole
                .to_string()
                .starts_with("invalid type: string \"text\""),
            "{whole}"
        );
    }
}
