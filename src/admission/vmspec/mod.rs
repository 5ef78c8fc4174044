//! Spec validation of the VM validating webhook, on the expanded and defaulted copy.
//!
//! The modules follow KubeVirt's files: `vms` (`vms-admitter.go`), `feature_gates`, `vmi`
//! (`vmi-create-admitter.go`, which runs the concerns beside it: `names`, `memory`, `machine`,
//! `cpu`, `lifecycle`, `dra`, `access_credentials`, `dns`, `launch_security`, `devices`),
//! `network` (`pkg/network/admitter`) and `storage` (`pkg/storage/admitters`); `read` is how
//! their Go code reads the spec.

// Mirrors KubeVirt v1.9 `pkg/virt-api/webhooks/validating-webhook/admitters` as
// `VMsAdmitter.Admit` runs it after the instance type and preference were applied:
// - on CREATE, `featuregate.ValidateFeatureGates` (discontinued `Passt`/`Macvtap` gates in use)
//   and `netadmitter.Validator.ValidateCreation` (discontinued bindings), each answering alone;
// - `ValidateVirtualMachineSpec`: `ValidateVirtualMachineInstanceMetadata`,
//   `ValidateVirtualMachineInstanceSpec`, `storageadmitters.ValidateDataVolumeTemplate`,
//   `validateRunStrategy` and `validateLiveUpdateFeatures` (`memory.ValidateLiveUpdateMemory`).
//
// Every helper of `ValidateVirtualMachineInstanceSpec` is reproduced (hostname, subdomain,
// memory and CPU requests/limits, hugepages, guest memory limit, emulated machine, ACPI, CPU
// pinning, NUMA, emulator thread, CPU features, CPU hotplug, start strategy, realtime, the
// network validator, DRA devices and claims, boot order and disk/volume pairing, input devices,
// IO threads, probes, `ValidateDisks`, firmware and secure boot, volumes, container disk paths,
// utility volumes, access credentials, DNS policy and config, eviction strategy, ramfb, host
// devices, sound, launch security, VSOCK, persistent reservation, downward metrics, virtiofs,
// video, panic devices, reboot policy, reserved overhead, service account) except:
// - `validateSpecAffinity` and `validateSpecTopologySpreadConstraints` (Kubernetes' own pod
//   affinity and spread validation);
// - `validateGraceIOVirtualization` and its annotation check, which only concern devices listed
//   in `permittedHostDevices` (not part of the cluster profile);
// - DRA claim/request pairs duplicated across GPUs, host devices and networks (KubeVirt reports
//   them in map order).
// Not part of this function either: the instance-type conflicts, preference requirements and
// spread checks that precede it, and the storage admitter and volume requests that follow it.
//
// Older releases: the checks follow v1.9, plus what the conformance cases of v1.4-v1.8 show
// differs (gate checks for panic devices, video, `MultiArchitecture` and `VMPersistentState`, the
// pre-v1.8 hugepages field name, the pre-v1.5 IO threads policies, no `LiveUpdate` before v1.6).
//
// The cluster profile carries neither `vmRolloutStrategy`, `emulatedMachines` nor
// `disabledFeatureGates`: the rollout strategy is the release's default, the emulated machines
// are the defaults plus any machine type the profile configures, and virt-api is taken to run on
// amd64. A feature gate is on when the profile lists it, or when it is GA, or Beta from v1.9 on
// (states as released in v1.9.0: `DecentralizedLiveMigration` is Alpha there, Beta only at the
// later commit the conformance cases were produced with, none of which uses it). Where KubeVirt
// itself panics (a zero hugepage size) no cause is produced.

use serde_json::Value;

use crate::admission::Cause;
use crate::cluster::profile::ClusterProfile;
use crate::model::value::{Fields, present_at};
use network::discontinued::discontinued_bindings;
use storage::data_volume_template::data_volume_templates;

use feature_gates::discontinued_feature_gates;
use vmi::{template_metadata, vmi_spec};
use vms::{live_update, run_strategy};

/// A field below the VMI template spec, as the webhook prints it.
macro_rules! ts {
    ($path:literal) => {
        concat!("spec.template.spec.", $path)
    };
}

mod access_credentials;
mod context;
mod cpu;
mod devices;
mod dns;
mod dra;
mod feature_gates;
mod launch_security;
mod lifecycle;
mod machine;
mod memory;
mod names;
mod network;
mod read;
#[cfg(test)]
mod release_differences_tests;
mod storage;
#[cfg(test)]
mod test_support;
mod vmi;
mod vms;

const TEMPLATE_SPEC: &str = "spec.template.spec";

/// The architecture virt-api runs on (`runtime.GOARCH`), which older releases compare against.
const CONTROL_PLANE_ARCH: &str = "amd64";

/// Causes the VM validating webhook returns for `vm` (a `VirtualMachine` as JSON, whose
/// `spec.template.spec` is already expanded and defaulted), in the webhook's order. `create` is
/// true for CREATE.
pub(super) fn validate(vm: &Value, profile: &ClusterProfile, create: bool) -> Vec<Cause> {
    let Some(template) = present_at(vm, &["spec", "template"]) else {
        return vec![Cause::new(
            "spec.template",
            "missing virtual machine template.",
        )];
    };
    let spec = template.field("spec").unwrap_or(&Value::Null);
    if create {
        let causes = discontinued_feature_gates(spec, profile);
        if !causes.is_empty() {
            return causes;
        }
        let causes = discontinued_bindings(spec, profile.version);
        if !causes.is_empty() {
            return causes;
        }
    }
    let mut causes = template_metadata(template, profile);
    causes.extend(vmi_spec(spec, profile));
    let vm_spec = vm.field("spec").unwrap_or(&Value::Null);
    causes.extend(data_volume_templates(vm_spec));
    causes.extend(run_strategy(vm_spec, profile));
    causes.extend(live_update(spec, profile));
    causes
}

/// Causes the VirtualMachinePool validator returns for a pool's VM template (`vm`: the template
/// as a VirtualMachine, as written): `ValidateVirtualMachineSpec` on it as it stands, with no
/// instance type, preference or defaults applied (the pool has no mutating webhook), then, on
/// CREATE from v1.3, the discontinued feature gates it uses (`Admit` and `ValidateVMPoolSpec`
/// in vmpool-admitter.go). `Err` when KubeVirt's code panics instead: from v1.3 the gate check
/// reads the VMI template spec without checking there is a template (a pool whose
/// `virtualMachineTemplate` has no `spec`: the CRD requires `template` only inside a spec).
pub(super) fn validate_pool_template(
    vm: &Value,
    profile: &ClusterProfile,
) -> Result<Vec<Cause>, String> {
    let mut causes = validate(vm, profile, false);
    if profile.version.at_least(1, 3) {
        let Some(template) = present_at(vm, &["spec", "template"]) else {
            return Err("a pool template without a VM spec makes KubeVirt's pool webhook dereference a nil VMI template while checking feature gates; the webhook call fails".to_owned());
        };
        let spec = template.field("spec").unwrap_or(&Value::Null);
        causes.extend(feature_gates::discontinued_gates_in_use(spec, profile));
    }
    Ok(causes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::vmspec::test_support::{one, profile, run, run_vm, run_with};
    use crate::cluster::profile::ClusterProfile;

    #[test]
    fn accepts_the_base_vm() {
        assert_eq!(run(&json!({})), Vec::new());
        assert_eq!(
            run_vm(&json!({}), &ClusterProfile::default(), false),
            Vec::new()
        );
    }

    /// The pool validator judges the template as written and, from v1.3, the discontinued
    /// gates it uses besides (not instead: the VM admitter answers with those alone).
    #[test]
    fn a_pool_template_is_validated_as_written_with_the_discontinued_gates_from_v1_3() {
        let passt = Cause::new(
            "",
            "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
        );
        let template = |run_strategy: &str| {
            json!({"spec": {"runStrategy": run_strategy, "template": {"spec": {
                "domain": {"devices": {"interfaces": [{"name": "default", "passt": {}}]}},
                "networks": [{"name": "default", "pod": {}}]
            }}}})
        };
        let gated = |minor| profile((1, minor), &["Passt"]);
        assert_eq!(
            validate_pool_template(&template("Halted"), &gated(2)),
            Ok(vec![])
        );
        assert_eq!(
            validate_pool_template(&template("Halted"), &gated(3)),
            Ok(vec![passt.clone()])
        );
        assert_eq!(
            validate_pool_template(&template("Sometimes"), &gated(4)),
            Ok(vec![
                Cause::new("spec.runStrategy", "Invalid RunStrategy (Sometimes)"),
                passt
            ])
        );
        // Without a VMI template: refused for it up to v1.2, the webhook panics from v1.3.
        let without = json!({"spec": {}});
        assert_eq!(
            validate_pool_template(&without, &gated(2)),
            Ok(vec![Cause::new(
                "spec.template",
                "missing virtual machine template."
            )])
        );
        assert!(validate_pool_template(&without, &gated(3)).is_err());
        // No instance type, preference or defaults: a template without memory stands as it is.
        assert_eq!(
            validate_pool_template(
                &json!({"spec": {"runStrategy": "Halted", "template": {"spec": {"domain": {"devices": {}}}}}}),
                &profile((1, 9), &[])
            ),
            Ok(vec![])
        );
    }

    #[test]
    fn requires_a_template() {
        let vm = json!({"spec": {"runStrategy": "Always"}});
        let causes = validate(&vm, &ClusterProfile::default(), true);
        assert_eq!(
            causes,
            vec![Cause::new(
                "spec.template",
                "missing virtual machine template."
            )]
        );
    }

    #[test]
    fn release_specific_gates() {
        let arm = json!({"architecture": "arm64", "domain": {"machine": {"type": "virt"}}});
        assert_eq!(run(&arm), Vec::new());
        assert_eq!(
            run_with(&arm, &profile((1, 7), &[])),
            one(
                "spec.template.spec.architecture",
                "MultiArchitecture feature gate is not enabled in kubevirt-config, invalid entry spec.template.spec.architecture"
            )
        );
        let tpm = json!({"domain": {"devices": {"tpm": {"persistent": true}}}});
        assert_eq!(run(&tpm), Vec::new());
        assert_eq!(
            run_with(&tpm, &profile((1, 4), &[])),
            one(
                "spec.template.spec.domain.devices.tpm.persistent",
                "VMPersistentState feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(
            run_with(
                &json!({"domain": {"ioThreadsPolicy": "supplementalPool"}}),
                &profile((1, 4), &[])
            ),
            one(
                "spec.template.spec.domain.ioThreadsPolicy",
                "Invalid IOThreadsPolicy (supplementalPool)"
            )
        );
    }

    #[test]
    fn more_accepted_and_refused_inputs() {
        assert_eq!(
            run(&json!({"subdomain": "Web_Tier"})),
            one(
                "spec.template.spec.subdomain",
                "spec.template.spec.subdomain does not conform to the kubernetes DNS_SUBDOMAIN rules : a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            )
        );
        let isolated = json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "isolateEmulatorThread": true}}});
        assert_eq!(run(&isolated), Vec::new());
        assert_eq!(
            run(
                &json!({"readinessProbe": {"tcpSocket": {"port": 22}}, "networks": [{"name": "default", "multus": {"networkName": "br"}}],
                        "domain": {"devices": {"interfaces": [{"name": "default", "bridge": {}}]}}})
            ),
            one(
                "spec.template.spec.readinessProbe.tcpSocket",
                "spec.template.spec.readinessProbe.tcpSocket is only allowed if the Pod Network is attached"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1", "path": "/disk/img.qcow2"}}]})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"evictionStrategy": "LiveMigrateIfPossible"})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {"sound": {"name": "s", "model": "ich9"}}}})),
            Vec::new()
        );
        assert_eq!(
            run_with(
                &json!({"domain": {"devices": {"downwardMetrics": {}}}}),
                &profile((1, 9), &["DownwardMetrics"])
            ),
            Vec::new()
        );
        let reserved =
            json!({"domain": {"memory": {"reservedOverhead": {"addedOverhead": "1Gi"}}}});
        assert_eq!(
            run_with(&reserved, &profile((1, 9), &["ReservedOverheadMemlock"])),
            Vec::new()
        );
        let virtiofs = json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "fs", "persistentVolumeClaim": {"claimName": "c"}}],
                              "domain": {"devices": {"filesystems": [{"name": "fs", "virtiofs": {}}]}}});
        assert_eq!(
            run_with(
                &virtiofs,
                &profile((1, 9), &["EnableVirtioFsStorageVolumes"])
            ),
            Vec::new()
        );
        let reservation = json!({"volumes": [{"name": "root", "persistentVolumeClaim": {"claimName": "c"}}],
                                 "domain": {"devices": {"disks": [{"name": "root", "lun": {"reservation": true}}]}}});
        // GA in v1.9, yet `PersistentReservationEnabled` needs the configuration or the gate.
        assert_eq!(
            run(&reservation),
            one(
                "spec.template.spec.domain.devices.disks.luns.reservation",
                "persistent reservation is not enabled in kubevirt config"
            )
        );
        assert_eq!(
            run_with(&reservation, &profile((1, 9), &["PersistentReservation"])),
            Vec::new()
        );
        assert_eq!(
            run_with(&reservation, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.disks.luns.reservation",
                "PersistentReservation feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}],
                        "domain": {"devices": {"disks": [{"name": "root", "lun": {}}]}}})
            ),
            one(
                "spec.template.spec.domain.devices.disks[0].lun",
                "spec.template.spec.domain.devices.disks[0].lun can only be mapped to a DataVolume or PersistentVolumeClaim volume."
            )
        );
        assert_eq!(
            run(&json!({"volumes": [{"name": "root", "configMap": {}}]})),
            one(
                "spec.template.spec.volumes[0].configMap.name",
                "spec.template.spec.volumes[0].configMap.name is a required field"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}, "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 70000}]}]}}})
            ),
            vec![
                (
                    "spec.template.spec.domain.devices.interfaces[0].ports[1].name".to_owned(),
                    "Duplicate name of the port: http".to_owned()
                ),
                (
                    "spec.template.spec.domain.devices.interfaces[0].ports[1].port".to_owned(),
                    "Port field must be in range 0 < x < 65536.".to_owned()
                ),
            ]
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}, "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}]}}})
            ),
            Vec::new()
        );
    }
}
