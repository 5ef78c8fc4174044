//! What the VM controller's handling of a running VM's changed template
//! ([`crate::controller::vm`]) means for the diff.

use serde_json::Value;

use super::changes::{field_lines, text_at};
use super::model::{Effect, EffectKind, restart_message};
use crate::controller::liveupdate::defaults::HotplugOff;
use crate::controller::liveupdate::memory::Unsupported;
use crate::controller::vm::{
    Cluster, NON_LIVE_UPDATABLE, Refusal, TemplateUpdate, update_running_vm,
};
use crate::k8s::quantity::{Format, Quantity};

/// What KubeVirt does when the template spec of a running VM changes from `last` to `current`;
/// `None` when they do not differ.
pub(super) fn template_effect(
    last: &Value,
    current: &Value,
    cluster: &Cluster<'_>,
    volume_migration: bool,
) -> Option<Effect> {
    Some(
        match update_running_vm(last, current, cluster, volume_migration)? {
            TemplateUpdate::NotLiveUpdatable { seen, head } => {
                Effect::restart(NON_LIVE_UPDATABLE, field_lines(&seen, &head))
            }
            TemplateUpdate::Refused { refusal, parts } => {
                let message = match refusal {
                    Refusal::RestartRequired(message) => restart_message(&message),
                    Refusal::NoMemoryHotplug(off) => format!(
                        "needs a restart (memory hotplug is not available for {})",
                        hotplug_off_reason(off, &architecture_of(last))
                    ),
                };
                Effect::new(EffectKind::RestartRequired, message).with_details(parts)
            }
            TemplateUpdate::Live(applied) => {
                Effect::new(EffectKind::LiveUpdate, "applied live (LiveUpdate)")
                    .with_details(applied)
            }
        },
    )
}

/// The architecture of a rendered template as the diff shows it (`amd64` when it sets none).
fn architecture_of(template: &Value) -> String {
    text_at(template, &["architecture"]).unwrap_or_else(|| "amd64".to_owned())
}

/// Why memory hotplug is off, in the words of the diff.
fn hotplug_off_reason(off: HotplugOff, architecture: &str) -> String {
    let unsupported = match off {
        HotplugOff::Arm64 => return format!("architecture {architecture}"),
        HotplugOff::Unsupported(unsupported) => unsupported,
    };
    match unsupported {
        Unsupported::Realtime => "realtime VMs".to_owned(),
        Unsupported::GuestMappingPassthrough => "guest mapping passthrough".to_owned(),
        Unsupported::LaunchSecurity => "encrypted VMs (launchSecurity)".to_owned(),
        Unsupported::NoGuestMemory => "no guest memory is set".to_owned(),
        Unsupported::NoMaxGuest => "no maxGuest".to_owned(),
        Unsupported::GuestAboveMaxGuest => "guest memory above maxGuest".to_owned(),
        Unsupported::GuestNotAligned { alignment }
        | Unsupported::MaxGuestNotAligned { alignment } => format!(
            "guest memory or maxGuest not aligned to {}",
            Quantity::from_i64(alignment, Format::BinarySI).canonical()
        ),
        Unsupported::Architecture { .. } => format!("architecture {architecture}"),
        Unsupported::BelowMinimumGuest => "less than 1Gi of guest memory".to_owned(),
    }
}
