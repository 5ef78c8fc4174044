//! KubeVirt's `setupHotplug` (`pkg/defaults/defaults.go`; the VMI mutator in v1.3, the VM
//! controller before): the `maxSockets` and `maxGuest` a VMI gets when it starts with the
//! `LiveUpdate` rollout strategy, unless its template sets them. From v1.6 nothing is set up
//! for arm64 VMIs.

use std::fmt;

use serde_json::Value;

use super::ClusterSettings;
use super::memory::{Unsupported, validate_live_update_memory};
use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::quantity::{Format, Quantity};
use crate::model::value::present_at;

/// Where a `maxSockets` or `maxGuest` the template sets comes from.
pub(crate) const EXPLICIT_LIMIT: &str = "set by the VM or its instance type";

/// Why a VMI starts without memory hotplug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HotplugOff {
    /// v1.6+ sets up no hotplug for arm64 VMIs.
    Arm64,
    /// `ValidateLiveUpdateMemory` refuses the computed `maxGuest`.
    Unsupported(Unsupported),
}

/// A hotplug limit and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Limit<T> {
    pub(crate) value: T,
    pub(crate) source: String,
}

/// The architecture of a VMI spec: `amd64` when it sets none.
pub(crate) fn architecture(spec: &Value) -> String {
    match present_at(spec, &["architecture"]) {
        None => "amd64".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// KubeVirt's CPU topology of a domain: each count 1 when unset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Topology {
    pub(crate) sockets: u64,
    pub(crate) cores: u64,
    pub(crate) threads: u64,
}

impl Topology {
    pub(crate) fn of(domain: &Value) -> Self {
        let count = |key| {
            present_at(domain, &["cpu", key])
                .and_then(Value::as_u64)
                .unwrap_or(1)
        };
        Self {
            sockets: count("sockets"),
            cores: count("cores"),
            threads: count("threads"),
        }
    }

    pub(crate) fn vcpus(self) -> u64 {
        self.sockets * self.cores * self.threads
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}×{}×{}", self.sockets, self.cores, self.threads)
    }
}

/// `setupMemoryHotplug` for a VMI started from the template spec `spec`: its `maxGuest`, else
/// why it gets none. From v1.3 a computed `maxGuest` is set only when `ValidateLiveUpdateMemory`
/// accepts it.
pub(crate) fn setup_memory_hotplug(
    spec: &Value,
    settings: &ClusterSettings,
    version: KubeVirtVersion,
) -> Result<Limit<Quantity>, HotplugOff> {
    let guest = Quantity::at(spec, &["domain", "memory", "guest"])
        .ok_or(HotplugOff::Unsupported(Unsupported::NoGuestMemory))?;
    if let Some(explicit) = Quantity::at(spec, &["domain", "memory", "maxGuest"]) {
        return Ok(Limit {
            value: explicit,
            source: EXPLICIT_LIMIT.to_owned(),
        });
    }
    let architecture = architecture(spec);
    if version.at_least(1, 6) && architecture == "arm64" {
        return Err(HotplugOff::Arm64);
    }
    let limit = if let Some(Ok(max)) = settings.max_guest.as_deref().map(Quantity::parse) {
        Limit {
            value: max,
            source: "the cluster's maxGuest".to_owned(),
        }
    } else {
        let ratio = settings.ratio();
        let bytes = guest
            .value()
            .saturating_mul(i64::try_from(ratio).unwrap_or(4));
        Limit {
            value: Quantity::from_i64(bytes, Format::BinarySI),
            source: format!("{ratio} × the base guest memory"),
        }
    };
    if version.at_least(1, 3) {
        validate_live_update_memory(spec, &architecture, Some(&limit.value), version)
            .map_err(HotplugOff::Unsupported)?;
    }
    Ok(limit)
}

/// The most vCPUs `setupCPUHotplug` allows a computed `maxSockets` (every machine type has its
/// own maximum; KubeVirt picks one bound).
const MAX_VCPUS: u64 = 512;

/// `setupCPUHotplug` for a VMI started from the template spec `spec`: its `maxSockets` (0 for
/// an arm64 VMI of v1.6+ that sets none).
pub(crate) fn setup_cpu_hotplug(
    spec: &Value,
    settings: &ClusterSettings,
    version: KubeVirtVersion,
) -> Limit<u64> {
    if let Some(explicit) = present_at(spec, &["domain", "cpu", "maxSockets"])
        .and_then(Value::as_u64)
        .filter(|m| *m > 0)
    {
        return Limit {
            value: explicit,
            source: EXPLICIT_LIMIT.to_owned(),
        };
    }
    if version.at_least(1, 6) && architecture(spec) == "arm64" {
        return Limit {
            value: 0,
            source: "no CPU hotplug is set up for arm64 VMs".to_owned(),
        };
    }
    let topology = Topology::of(spec.get("domain").unwrap_or(&Value::Null));
    if let Some(max) = settings.max_cpu_sockets.filter(|m| *m > 0) {
        return Limit {
            value: max.max(topology.sockets),
            source: "the cluster's maxCpuSockets".to_owned(),
        };
    }
    let ratio = settings.ratio();
    let mut max = topology.sockets * ratio;
    let per_socket = (topology.cores * topology.threads).max(1);
    if max * per_socket > MAX_VCPUS {
        max = (MAX_VCPUS / per_socket).max(topology.sockets);
    }
    Limit {
        value: max,
        source: format!("{ratio} × the base sockets"),
    }
}
