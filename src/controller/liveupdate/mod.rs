//! What KubeVirt applies to a running VM when its template changes: the cluster's live-update
//! settings (here), `defaults`, the hotplug limits a VMI gets when it starts (`setupHotplug`),
//! and `memory`, KubeVirt's `pkg/liveupdate/memory`, which the VM admitter, the VMI defaults and
//! the VM controller all ask whether memory hotplug is possible. The VM controller's handling of
//! the changed template is `controller::vm`.

pub(crate) mod defaults;
pub(crate) mod memory;

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};

/// `vmRolloutStrategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Rollout {
    LiveUpdate,
    Stage,
}

impl Rollout {
    /// KubeVirt's default: `Stage` up to v1.5 (there was no choice before v1.2), `LiveUpdate`
    /// from v1.6 (KubeVirt `pkg/virt-config/virt-config.go`, `IsVMRolloutStrategyLiveUpdate`).
    pub fn default_for(version: KubeVirtVersion) -> Self {
        if version.at_least(1, 6) {
            Self::LiveUpdate
        } else {
            Self::Stage
        }
    }
}

impl Rollout {
    /// The strategy the VM controller follows: the configured one, else the release's
    /// default; a configured `LiveUpdate` counts only with the `VMLiveUpdateFeatures` gate up
    /// to v1.4 (GA from v1.5; KubeVirt v1.4.0 `pkg/virt-config/virt-config.go`,
    /// `IsVMRolloutStrategyLiveUpdate`).
    pub fn effective(configured: Option<Self>, profile: &ClusterProfile) -> Self {
        match configured {
            Some(Self::LiveUpdate) if !live_update_gate_on(profile) => Self::Stage,
            Some(rollout) => rollout,
            None => Self::default_for(profile.version),
        }
    }
}

/// `VMLiveUpdateFeaturesEnabled`: the gate is listed, or the release has it GA (v1.5).
fn live_update_gate_on(profile: &ClusterProfile) -> bool {
    profile.version.at_least(1, 5) || profile.has_feature_gate("VMLiveUpdateFeatures")
}

impl fmt::Display for Rollout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::LiveUpdate => "LiveUpdate",
            Self::Stage => "Stage",
        })
    }
}

/// The live-update settings of a KubeVirt CR's `spec.configuration`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterSettings {
    pub rollout: Option<Rollout>,
    /// `liveUpdateConfiguration.maxHotplugRatio` (KubeVirt's default 4).
    pub max_hotplug_ratio: Option<u64>,
    /// `liveUpdateConfiguration.maxCpuSockets`.
    pub max_cpu_sockets: Option<u64>,
    /// `liveUpdateConfiguration.maxGuest`.
    pub max_guest: Option<String>,
}

impl ClusterSettings {
    /// Applies a `spec.configuration`.
    pub fn configure(&mut self, configuration: &Value) {
        match configuration
            .get("vmRolloutStrategy")
            .and_then(Value::as_str)
        {
            Some("LiveUpdate") => self.rollout = Some(Rollout::LiveUpdate),
            Some("Stage") => self.rollout = Some(Rollout::Stage),
            _ => {}
        }
        let live = configuration.get("liveUpdateConfiguration");
        let number = |key: &str| live.and_then(|l| l.get(key)).and_then(Value::as_u64);
        if let Some(ratio) = number("maxHotplugRatio") {
            self.max_hotplug_ratio = Some(ratio);
        }
        if let Some(sockets) = number("maxCpuSockets") {
            self.max_cpu_sockets = Some(sockets);
        }
        if let Some(guest) = live.and_then(|l| l.get("maxGuest")) {
            self.max_guest = match guest {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => self.max_guest.take(),
            };
        }
    }

    /// `maxHotplugRatio`, 4 when unset or zero.
    pub(crate) fn ratio(&self) -> u64 {
        self.max_hotplug_ratio.filter(|r| *r > 0).unwrap_or(4)
    }
}
