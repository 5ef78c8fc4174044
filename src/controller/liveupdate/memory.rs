//! KubeVirt's `pkg/liveupdate/memory`: `ValidateLiveUpdateMemory`, whether a VMI spec can take
//! memory hotplug up to a `maxGuest`. Three callers ask it: the VM admitter for a template that
//! sets `maxGuest` (a refusal rejects the VM), the VMI defaults before setting a computed
//! `maxGuest` (a refusal turns hotplug off), and the VM controller for the changed template of
//! a running VM (a refusal sets `RestartRequired`).
//!
//! The function exists from v1.3 (before, the admitter and the controller had their own
//! checks; kvlint applies the v1.3 rules there). What changed since, by release (x.0):
//! - v1.4 adds the 1Gi minimum of guest memory (backported to v1.3.1);
//! - v1.7 accepts amd64 only, where v1.3–v1.6 accepted arm64 too (backported to v1.5.3 and
//!   v1.6.1, after v1.6 stopped setting up hotplug for arm64 VMIs at all).

use std::fmt;

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::quantity::{Format, Quantity};
use crate::model::value::{at_keys, is_set_at};

/// The block size of the virtio-mem device, at least a transparent hugepage (2Mi).
const HOTPLUG_BLOCK_ALIGNMENT: i64 = 0x20_0000;
/// The block size with 1Gi hugepages.
const HUGEPAGES_1G_BLOCK_ALIGNMENT: i64 = 0x4000_0000;
/// The least guest memory with hotplug (v1.4+): room for the guest kernel's structures and the
/// PCI hole.
const REQUIRED_MIN_GUEST_MEMORY: i64 = 0x4000_0000;

/// Why a VMI spec cannot have memory hotplug; its `Display` is KubeVirt's error text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsupported {
    Realtime,
    GuestMappingPassthrough,
    LaunchSecurity,
    NoGuestMemory,
    NoMaxGuest,
    GuestAboveMaxGuest,
    /// The guest memory is not a multiple of the block size (`alignment` bytes).
    GuestNotAligned {
        alignment: i64,
    },
    /// `maxGuest` is not a multiple of the block size (`alignment` bytes).
    MaxGuestNotAligned {
        alignment: i64,
    },
    /// Not one of the architectures of the release (`with_arm64`: the release accepts arm64).
    Architecture {
        with_arm64: bool,
    },
    BelowMinimumGuest,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let block = |bytes: i64| Quantity::from_i64(bytes, Format::BinarySI).canonical();
        match self {
            Self::Realtime => f.write_str("Memory hotplug is not compatible with realtime VMs"),
            Self::GuestMappingPassthrough => {
                f.write_str("Memory hotplug is not compatible with guest mapping passthrough")
            }
            Self::LaunchSecurity => {
                f.write_str("Memory hotplug is not compatible with encrypted VMs")
            }
            Self::NoGuestMemory => {
                f.write_str("Guest memory must be configured when memory hotplug is enabled")
            }
            Self::NoMaxGuest => {
                f.write_str("Max guest memory must be configured when memory hotplug is enabled")
            }
            Self::GuestAboveMaxGuest => {
                f.write_str("Guest memory is greater than the configured maxGuest memory")
            }
            Self::GuestNotAligned { alignment } => {
                write!(f, "Guest memory must be {} aligned", block(*alignment))
            }
            Self::MaxGuestNotAligned { alignment } => {
                write!(f, "MaxGuest must be {} aligned", block(*alignment))
            }
            Self::Architecture { with_arm64: true } => {
                f.write_str("Memory hotplug is only available for x86_64 and arm64 VMs")
            }
            Self::Architecture { with_arm64: false } => {
                f.write_str("Memory hotplug is only available for x86_64 VMs")
            }
            Self::BelowMinimumGuest => f.write_str(
                "Memory hotplug is only available for VMs with at least 1Gi of guest memory",
            ),
        }
    }
}

/// `ValidateLiveUpdateMemory` of KubeVirt `version` for the VMI spec `spec` (a VM template's
/// `spec`), whose `architecture` the caller defaulted, with `max_guest` as the hotplug limit.
/// The first reason KubeVirt checks is the one returned.
pub(crate) fn validate_live_update_memory(
    spec: &Value,
    architecture: &str,
    max_guest: Option<&Quantity>,
    version: KubeVirtVersion,
) -> Result<(), Unsupported> {
    if is_set_at(spec, &["domain", "cpu", "realtime"]) {
        return Err(Unsupported::Realtime);
    }
    if is_set_at(spec, &["domain", "cpu", "numa", "guestMappingPassthrough"]) {
        return Err(Unsupported::GuestMappingPassthrough);
    }
    if is_set_at(spec, &["domain", "launchSecurity"]) {
        return Err(Unsupported::LaunchSecurity);
    }
    let alignment = block_alignment(spec);
    let guest =
        Quantity::at(spec, &["domain", "memory", "guest"]).ok_or(Unsupported::NoGuestMemory)?;
    let max_guest = max_guest.ok_or(Unsupported::NoMaxGuest)?;
    if guest.cmp_value(max_guest).is_gt() {
        return Err(Unsupported::GuestAboveMaxGuest);
    }
    if guest.value() % alignment != 0 {
        return Err(Unsupported::GuestNotAligned { alignment });
    }
    if max_guest.value() % alignment != 0 {
        return Err(Unsupported::MaxGuestNotAligned { alignment });
    }
    let with_arm64 = !version.has_change(crate::cluster::backports::MEMORY_HOTPLUG_AMD64_ONLY);
    if architecture != "amd64" && !(with_arm64 && architecture == "arm64") {
        return Err(Unsupported::Architecture { with_arm64 });
    }
    if version.at_least(1, 4) && guest.value() < REQUIRED_MIN_GUEST_MEMORY {
        return Err(Unsupported::BelowMinimumGuest);
    }
    Ok(())
}

/// The hotplug block size of `spec`: 1Gi with 1Gi hugepages, else 2Mi.
pub(crate) fn block_alignment(spec: &Value) -> i64 {
    let page_size = at_keys(spec, &["domain", "memory", "hugepages", "pageSize"]);
    if page_size.and_then(Value::as_str) == Some("1Gi") {
        HUGEPAGES_1G_BLOCK_ALIGNMENT
    } else {
        HOTPLUG_BLOCK_ALIGNMENT
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const LATEST: KubeVirtVersion = KubeVirtVersion::LATEST;

    fn quantity(text: &str) -> Quantity {
        Quantity::parse(text).expect("a valid quantity")
    }

    /// A VMI spec with `memory.guest` set to `guest` (when not empty) and `domain` merged in.
    fn spec(guest: &str, domain: Value) -> Value {
        let mut domain = domain;
        if !guest.is_empty() {
            domain["memory"]["guest"] = json!(guest);
        }
        json!({"domain": domain})
    }

    fn validate(spec: &Value, architecture: &str, max_guest: &str) -> Result<(), Unsupported> {
        validate_live_update_memory(spec, architecture, Some(&quantity(max_guest)), LATEST)
    }

    #[test]
    fn refuses_each_configuration_kubevirt_refuses() {
        let cases: [(&str, Value, &str, &str, Unsupported); 10] = [
            (
                "realtime, checked before the rest",
                spec(
                    "1Gi",
                    json!({"cpu": {"dedicatedCpuPlacement": true, "realtime": {},
                        "numa": {"guestMappingPassthrough": {}}},
                        "memory": {"hugepages": {"pageSize": "2Mi"}}}),
                ),
                "amd64",
                "4Gi",
                Unsupported::Realtime,
            ),
            (
                "launch security",
                spec("1Gi", json!({"launchSecurity": {"sev": {}}})),
                "amd64",
                "4Gi",
                Unsupported::LaunchSecurity,
            ),
            (
                "guest mapping passthrough",
                spec(
                    "1Gi",
                    json!({"cpu": {"numa": {"guestMappingPassthrough": {}}},
                        "memory": {"hugepages": {"pageSize": "2Mi"}}}),
                ),
                "amd64",
                "4Gi",
                Unsupported::GuestMappingPassthrough,
            ),
            (
                "no guest memory",
                spec("", json!({})),
                "amd64",
                "4Gi",
                Unsupported::NoGuestMemory,
            ),
            (
                "guest memory above maxGuest",
                spec("4Gi", json!({})),
                "amd64",
                "2Gi",
                Unsupported::GuestAboveMaxGuest,
            ),
            (
                "maxGuest not aligned",
                spec("1Gi", json!({})),
                "amd64",
                "1025Mi",
                Unsupported::MaxGuestNotAligned {
                    alignment: HOTPLUG_BLOCK_ALIGNMENT,
                },
            ),
            (
                "guest memory not aligned",
                spec("123", json!({})),
                "amd64",
                "4Gi",
                Unsupported::GuestNotAligned {
                    alignment: HOTPLUG_BLOCK_ALIGNMENT,
                },
            ),
            (
                "guest memory not aligned to 1Gi hugepages",
                spec("2G", json!({"memory": {"hugepages": {"pageSize": "1Gi"}}})),
                "amd64",
                "16Gi",
                Unsupported::GuestNotAligned {
                    alignment: HUGEPAGES_1G_BLOCK_ALIGNMENT,
                },
            ),
            (
                "an architecture other than amd64",
                spec("1Gi", json!({})),
                "arm64",
                "4Gi",
                Unsupported::Architecture { with_arm64: false },
            ),
            (
                "less than 1Gi of guest memory",
                spec("1022Mi", json!({})),
                "amd64",
                "4Gi",
                Unsupported::BelowMinimumGuest,
            ),
        ];
        for (name, spec, architecture, max_guest, refusal) in cases {
            assert_eq!(
                validate(&spec, architecture, max_guest),
                Err(refusal),
                "{name}"
            );
        }
    }

    #[test]
    fn accepts_an_aligned_amd64_vm_within_max_guest() {
        let cases: [(&str, Value, &str); 4] = [
            ("at maxGuest", spec("4Gi", json!({})), "4Gi"),
            ("exactly 1Gi", spec("1Gi", json!({})), "8Gi"),
            (
                "2Mi hugepages",
                spec("2Gi", json!({"memory": {"hugepages": {"pageSize": "2Mi"}}})),
                "8Gi",
            ),
            (
                "1Gi hugepages",
                spec("2Gi", json!({"memory": {"hugepages": {"pageSize": "1Gi"}}})),
                "16Gi",
            ),
        ];
        for (name, spec, max_guest) in cases {
            assert_eq!(validate(&spec, "amd64", max_guest), Ok(()), "{name}");
        }
    }

    #[test]
    fn without_max_guest_it_refuses_after_the_guest_memory_check() {
        let guest = spec("1Gi", json!({}));
        assert_eq!(
            validate_live_update_memory(&guest, "amd64", None, LATEST),
            Err(Unsupported::NoMaxGuest)
        );
        assert_eq!(
            validate_live_update_memory(&spec("", json!({})), "amd64", None, LATEST),
            Err(Unsupported::NoGuestMemory)
        );
    }

    #[test]
    fn the_architectures_and_the_minimum_follow_the_release() {
        let arm = |version| {
            validate_live_update_memory(
                &spec("1Gi", json!({})),
                "arm64",
                Some(&quantity("4Gi")),
                version,
            )
        };
        for minor in 3..=6 {
            assert_eq!(arm(KubeVirtVersion::new(1, minor)), Ok(()), "v1.{minor}");
        }
        for minor in 7..=9 {
            assert_eq!(
                arm(KubeVirtVersion::new(1, minor)),
                Err(Unsupported::Architecture { with_arm64: false }),
                "v1.{minor}"
            );
        }
        let s390x = validate_live_update_memory(
            &spec("1Gi", json!({})),
            "s390x",
            Some(&quantity("4Gi")),
            KubeVirtVersion::new(1, 6),
        );
        assert_eq!(s390x, Err(Unsupported::Architecture { with_arm64: true }));

        let small = |version| {
            validate_live_update_memory(
                &spec("512Mi", json!({})),
                "amd64",
                Some(&quantity("4Gi")),
                version,
            )
        };
        assert_eq!(small(KubeVirtVersion::new(1, 3)), Ok(()));
        assert_eq!(
            small(KubeVirtVersion::new(1, 4)),
            Err(Unsupported::BelowMinimumGuest)
        );
    }

    #[test]
    fn messages_are_kubevirts() {
        let messages: Vec<String> = [
            Unsupported::Realtime,
            Unsupported::GuestNotAligned {
                alignment: HOTPLUG_BLOCK_ALIGNMENT,
            },
            Unsupported::MaxGuestNotAligned {
                alignment: HUGEPAGES_1G_BLOCK_ALIGNMENT,
            },
            Unsupported::Architecture { with_arm64: true },
            Unsupported::Architecture { with_arm64: false },
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        assert_eq!(
            messages,
            [
                "Memory hotplug is not compatible with realtime VMs",
                "Guest memory must be 2Mi aligned",
                "MaxGuest must be 1Gi aligned",
                "Memory hotplug is only available for x86_64 and arm64 VMs",
                "Memory hotplug is only available for x86_64 VMs",
            ]
        );
    }
}
