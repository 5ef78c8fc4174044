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

/// Decodes a spec as Go's encoding/json would: unknown fields are ignored, a wrong JSON type is
/// an error naming the field.
pub fn decode<T: serde::de::DeserializeOwned>(value: &serde_json::Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        if path == "." {
            err.inner().to_string()
        } else {
            format!("spec.{path}: {}", err.inner())
        }
    })
}
