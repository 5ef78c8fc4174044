//! What the VM controller's handling of a running VM's changed template
//! ([`crate::controller::vm`]) means for the diff.

use serde_json::{Map, Value};

use super::changes::{field_lines, text_at};
use super::model::{Effect, EffectKind};
use crate::cluster::profile::ClusterProfile;
use crate::controller::liveupdate::Rollout;
use crate::controller::liveupdate::defaults::HotplugOff;
use crate::controller::liveupdate::memory::Unsupported;
use crate::controller::vm::{
    Cluster, NO_MEMORY_HOTPLUG, NON_LIVE_UPDATABLE, Refusal, RunningVmUpdate, TemplateUpdate,
    update_running_vm,
};
use crate::k8s::quantity::{Format, Quantity};
use crate::render::defaults::{derived_memory_request, set_vmi_spec_defaults};

/// What KubeVirt does when the template spec of a running VM changes from `last` to `current`;
/// `None` when they do not differ.
pub(super) fn template_effect(
    last: &Value,
    current: &Value,
    cluster: &Cluster<'_>,
    volume_migration: bool,
) -> Option<Effect> {
    let RunningVmUpdate { update, pending } =
        update_running_vm(last, current, cluster, volume_migration)?;
    let mut effect = match update {
        TemplateUpdate::NotLiveUpdatable {
            seen,
            head,
            applied,
        } => Effect::restart(
            NON_LIVE_UPDATABLE,
            with_applied(field_lines(&seen, &head), applied),
        ),
        TemplateUpdate::Refused {
            refusal,
            mut parts,
            applied,
        } => {
            let reason = match refusal {
                Refusal::RestartRequired(message) => message,
                Refusal::NoMemoryHotplug(off) => {
                    parts.push(format!(
                        "memory hotplug is not available for {}",
                        hotplug_off_reason(off, &architecture_of(last))
                    ));
                    NO_MEMORY_HOTPLUG.to_owned()
                }
            };
            Effect::restart(&reason, with_applied(parts, applied))
        }
        // The controller takes the change over and the running VM keeps what it has.
        TemplateUpdate::Live(applied) if applied.is_empty() && !pending.is_empty() => Effect::new(
            EffectKind::NoRestart,
            "updated without a restart (the running VM is not changed)",
        ),
        TemplateUpdate::Live(applied) => {
            let message = match cluster.rollout {
                Rollout::LiveUpdate => "applied live (LiveUpdate)",
                // With Stage only volume and interface hotplug reach a running VM.
                Rollout::Stage => "applied live (hotplug)",
            };
            Effect::new(EffectKind::LiveUpdate, message).with_details(applied)
        }
    };
    effect.details.extend(pending);
    Some(effect)
}

/// A rendered template spec as the VM controller compares it: as the API server stores it,
/// with the VM mutating webhook's defaults (`SetVirtualMachineDefaults`: the architecture and
/// its machine type), and with the instance type and preference applied (`ApplyToVM`).
/// `vmi_defaults`: also the VMI defaults that expand adds for a VM with an instance type or
/// preference, for comparing such a VM with one without (the controller compares neither with
/// them). `expanded`: the rendering is expand's, with those VMI defaults.
pub(super) fn as_controller_sees(
    template: &Value,
    profile: &ClusterProfile,
    vmi_defaults: bool,
    expanded: bool,
) -> Value {
    let mut template = template.clone();
    let Some(spec) = template.as_object_mut() else {
        return template;
    };
    if spec
        .get("architecture")
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        spec.insert(
            "architecture".to_owned(),
            profile.default_architecture.clone().into(),
        );
    }
    let architecture = architecture_of(&Value::Object(spec.clone()));
    let machine = spec
        .entry("domain")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .map(|domain| {
            domain
                .entry("machine")
                .or_insert_with(|| Value::Object(Map::new()))
        });
    if let Some(Value::Object(machine)) = machine
        && machine
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty()
    {
        machine.insert(
            "type".to_owned(),
            profile.machine_type_for(&architecture).into(),
        );
    }
    if vmi_defaults {
        let mut defaulted = spec.clone();
        if set_vmi_spec_defaults(&mut defaulted, profile).is_ok() {
            *spec = defaulted;
        }
    }
    if vmi_defaults || expanded {
        drop_derived_memory_request(spec, profile);
    }
    template
}

/// Up to v1.6.3 the VMI defaults derive a memory request from the guest memory, which the
/// controller, comparing templates without VMI defaults (`ApplyToVM` only), never sees: a
/// request that only follows the guest memory is no difference of its own.
fn drop_derived_memory_request(spec: &mut Map<String, Value>, profile: &ClusterProfile) {
    let Some(Value::Object(domain)) = spec.get_mut("domain") else {
        return;
    };
    let Some(derived) = derived_memory_request(domain, profile) else {
        return;
    };
    let Some(Value::Object(resources)) = domain.get_mut("resources") else {
        return;
    };
    let Some(Value::Object(requests)) = resources.get_mut("requests") else {
        return;
    };
    let same = |a: &Value, b: &Value| match (Quantity::from_json(a), Quantity::from_json(b)) {
        (Ok(a), Ok(b)) => a.cmp_value(&b).is_eq(),
        _ => a == b,
    };
    if requests
        .get("memory")
        .is_some_and(|request| same(request, &derived))
    {
        requests.remove("memory");
    }
}

/// The details of a restart, then what is applied to the running VM all the same.
fn with_applied(mut details: Vec<String>, applied: Vec<String>) -> Vec<String> {
    details.extend(applied.into_iter().map(|a| format!("applied live: {a}")));
    details
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
