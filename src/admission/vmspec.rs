//! Spec validation of the VM validating webhook, on the expanded and defaulted copy.

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

use std::net::IpAddr;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::Value;

use super::Cause;
use super::list_limits::{self, List};
use crate::cluster::backports;
use crate::cluster::profile::ClusterProfile;
use crate::controller::liveupdate::memory::validate_live_update_memory;
use crate::k8s::quantity::Quantity;
use crate::model::value::{
    Fields, array_at, bool_at, i64_at, is_set_at, present_at, str_at, strs_at, u64_at,
};

/// A field below the VMI template spec, as the webhook prints it.
macro_rules! ts {
    ($path:literal) => {
        concat!("spec.template.spec.", $path)
    };
}

const TEMPLATE_SPEC: &str = "spec.template.spec";

/// The architecture virt-api runs on (`runtime.GOARCH`), which older releases compare against.
const CONTROL_PLANE_ARCH: &str = "amd64";

/// Causes the VM validating webhook returns for `vm` (a `VirtualMachine` as JSON, whose
/// `spec.template.spec` is already expanded and defaulted), in the webhook's order. `create` is
/// true for CREATE.
pub fn validate(vm: &Value, profile: &ClusterProfile, create: bool) -> Vec<Cause> {
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
        let causes = discontinued_bindings(spec);
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

// ---------------------------------------------------------------------------------------------
// Reading the spec. A `null` is Go's nil: absent (`model::value`).

/// How many of `keys` are set on `value`.
fn count_present(value: &Value, keys: &[&str]) -> usize {
    keys.iter().filter(|key| is_set_at(value, &[key])).count()
}

/// `spec.domain.resources.<kind>.<name>` (the webhook reads an absent one as zero).
fn resource(spec: &Value, kind: &str, name: &str) -> Option<Quantity> {
    Quantity::at(spec, &["domain", "resources", kind, name])
}

fn value_of(quantity: Option<&Quantity>) -> i64 {
    quantity.map_or(0, Quantity::value)
}

fn shown(quantity: Option<&Quantity>) -> String {
    quantity.map_or_else(|| "0".to_owned(), Quantity::canonical)
}

/// Go's `MilliValue`: the quantity in thousandths, rounded up.
fn milli_value(quantity: &Quantity) -> i64 {
    let at_most = |milli: i64| {
        Quantity::parse(&format!("{milli}m")).is_ok_and(|bound| quantity.cmp_value(&bound).is_le())
    };
    let upper = quantity.value().saturating_add(1).saturating_mul(1000);
    let (mut low, mut high) = (upper.saturating_sub(3000), upper);
    while low < high {
        let middle = low + (high - low) / 2;
        if at_most(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}

/// Go's `%v` of a string slice.
fn go_list<S: AsRef<str>>(values: &[S]) -> String {
    let joined: Vec<&str> = values.iter().map(AsRef::as_ref).collect();
    format!("[{}]", joined.join(" "))
}

// ---------------------------------------------------------------------------------------------
// Cluster configuration.

/// Gates that are on without configuration from a release on: GA ones, and Beta ones from v1.9
/// (earlier releases left Beta gates off).
const DEFAULT_ON_SINCE: &[(&str, u32, u32)] = &[
    ("NUMA", 1, 4),
    ("PasstBinding", 1, 9),
    ("WorkloadEncryptionSEV", 1, 9),
    ("DeclarativeHotplugVolumes", 1, 9),
    ("GPUsWithDRA", 1, 9),
    ("HostDevicesWithDRA", 1, 9),
    ("RebootPolicy", 1, 9),
];

fn gate(profile: &ClusterProfile, name: &str) -> bool {
    let default_on = DEFAULT_ON_SINCE
        .iter()
        .any(|&(gate, major, minor)| gate == name && profile.version.at_least(major, minor));
    profile.has_feature_gate(name) || (default_on && !profile.has_disabled_feature_gate(name))
}

fn live_update(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    if !rollout_live_update(profile) {
        return causes;
    }
    if let Some(cpu) = present_at(spec, &["domain", "cpu"]) {
        let (sockets, max) = (u64_at(cpu, &["sockets"]), u64_at(cpu, &["maxSockets"]));
        if sockets != 0 && max != 0 && sockets > max {
            causes.push(Cause::new(ts!("domain.cpu.sockets"), TOO_MANY_SOCKETS));
        }
    }
    if let Some(max_guest) = Quantity::at(spec, &["domain", "memory", "maxGuest"]) {
        let architecture = architecture(spec, profile);
        let validated =
            validate_live_update_memory(spec, architecture, Some(&max_guest), profile.version);
        if let Err(unsupported) = validated {
            causes.push(Cause::new(
                ts!("domain.memory.guest"),
                unsupported.to_string(),
            ));
        }
    }
    causes
}

/// `IsVMRolloutStrategyLiveUpdate` with the default rollout strategy.
fn rollout_live_update(profile: &ClusterProfile) -> bool {
    profile.version.at_least(1, 6)
}

fn architecture<'a>(spec: &'a Value, profile: &'a ClusterProfile) -> &'a str {
    match str_at(spec, &["architecture"]) {
        "" => &profile.default_architecture,
        arch => arch,
    }
}

// ---------------------------------------------------------------------------------------------
// CREATE-only checks.

fn discontinued_feature_gates(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let uses = |binding: &str| {
        array_at(spec, &["domain", "devices", "interfaces"])
            .iter()
            .any(|i| is_set_at(i, &[binding]))
    };
    profile
        .feature_gates
        .iter()
        .filter_map(|gate| match gate.as_str() {
            "Passt" if uses("passt") => Some(
                "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
            ),
            "Macvtap" if uses("macvtap") => Some(
                "Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.",
            ),
            _ => None,
        })
        .map(|message| Cause::new("", message))
        .collect()
}

fn discontinued_bindings(spec: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    for (idx, iface) in array_at(spec, &["domain", "devices", "interfaces"])
        .iter()
        .enumerate()
    {
        for (binding, name) in [
            ("slirp", "Slirp interface support"),
            ("passt", "Passt network binding"),
            ("macvtap", "Macvtap network binding"),
        ] {
            if is_set_at(iface, &[binding]) {
                causes.push(Cause::new(
                    format!("{TEMPLATE_SPEC}.domain.devices.interfaces[{idx}].{binding}"),
                    format!("{name} has been discontinued since v1.3"),
                ));
            }
        }
    }
    causes
}

// ---------------------------------------------------------------------------------------------
// VirtualMachine-level checks.

const RESTRICTED_LABELS: &[&str] = &[
    "kubevirt.io/created-by",
    "kubevirt.io/migrationJobUID",
    "kubevirt.io/nodeName",
    "kubevirt.io/migrationTargetNodeName",
    "kubevirt.io/schedulable",
    "kubevirt.io/install-strategy",
];

/// `ValidateVirtualMachineInstanceMetadata` for a request from an ordinary user.
fn template_metadata(template: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    let labels = present_at(template, &["metadata", "labels"]).and_then(Value::as_object);
    if labels.is_some_and(|labels| {
        labels
            .keys()
            .any(|key| RESTRICTED_LABELS.contains(&key.as_str()))
    }) {
        causes.push(Cause::new(
            "spec.template.metadata.labels",
            "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited",
        ));
    }
    let annotation = |key: &str| {
        present_at(template, &["metadata", "annotations"])
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .is_some_and(|v| !v.is_empty())
    };
    if annotation("kubevirt.io/ignitiondata") && !gate(profile, "ExperimentalIgnitionSupport") {
        causes.push(Cause::new(
            "spec.template.metadata.annotations",
            "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.kubevirt.io/ignitiondata",
        ));
    }
    if annotation("hooks.kubevirt.io/hookSidecars") && !gate(profile, "Sidecar") {
        causes.push(Cause::new(
            "spec.template.metadata.annotations",
            "sidecar feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.hooks.kubevirt.io/hookSidecars",
        ));
    }
    causes
}

const DATA_VOLUME_SOURCES: &[&str] = &[
    "http", "s3", "gcs", "registry", "pvc", "upload", "blank", "imageio", "vddk", "snapshot",
];

/// `storageadmitters.ValidateDataVolumeTemplate`.
fn data_volume_templates(vm_spec: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let volumes = array_at(vm_spec, &["template", "spec", "volumes"]);
    for (idx, template) in array_at(vm_spec, &["dataVolumeTemplates"])
        .iter()
        .enumerate()
    {
        let field = format!("spec.dataVolumeTemplate[{idx}]");
        if let Some(cause) = data_volume_template(&field, template) {
            causes.push(cause);
            continue;
        }
        let name = str_at(template, &["metadata", "name"]);
        let referenced = volumes.iter().any(|v| {
            (is_set_at(v, &["persistentVolumeClaim"])
                && str_at(v, &["persistentVolumeClaim", "claimName"]) == name)
                || (is_set_at(v, &["dataVolume"]) && str_at(v, &["dataVolume", "name"]) == name)
        });
        if !referenced {
            causes.push(Cause::new(
                field.clone(),
                format!("DataVolumeTemplate entry {field} must be referenced in the VMI template's 'volumes' list"),
            ));
        }
    }
    causes
}

fn data_volume_template(field: &str, template: &Value) -> Option<Cause> {
    let invalid =
        |suffix: &str, message: &str| Some(Cause::new(format!("{field}.{suffix}"), message));
    if str_at(template, &["metadata", "name"]).is_empty() {
        return Some(Cause::new(
            format!("{field}.name"),
            format!("'name' field must not be empty for DataVolumeTemplate entry {field}.name."),
        ));
    }
    let (pvc, storage) = (
        present_at(template, &["spec", "pvc"]),
        present_at(template, &["spec", "storage"]),
    );
    let target = match (pvc, storage) {
        (None, None) => return invalid("PVC.Storage", "Missing Data volume PVC or Storage"),
        (Some(_), Some(_)) => {
            return invalid(
                "PVC.Storage",
                "Duplicate storage definition, both target storage and target pvc defined",
            );
        }
        (Some(target), None) | (None, Some(target)) => target,
    };
    let external = is_set_at(target, &["dataSourceRef"]) || is_set_at(target, &["dataSource"]);
    let source = present_at(template, &["spec", "source"]);
    let sourced = source.is_some() || is_set_at(template, &["spec", "sourceRef"]);
    if external && sourced {
        return invalid(
            "source",
            "External population is incompatible with Source and SourceRef",
        );
    }
    if !external && !sourced {
        return invalid(
            "source.sourceRef",
            "Data volume should have either Source, SourceRef, or be externally populated",
        );
    }
    let count = source.map_or(1, |s| count_present(s, DATA_VOLUME_SOURCES));
    match count {
        0 => invalid("source", "Missing dataVolume valid source"),
        1 => None,
        _ => invalid("source", "Multiple dataVolume sources"),
    }
}

const RUN_STRATEGIES: &[&str] = &["Halted", "Manual", "Always", "RerunOnFailure", "Once"];

/// `validateRunStrategy`.
fn run_strategy(vm_spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut causes = Vec::new();
    let running = is_set_at(vm_spec, &["running"]);
    let strategy = present_at(vm_spec, &["runStrategy"]).map(|v| v.as_str().unwrap_or(""));
    if running && strategy.is_some() {
        causes.push(Cause::new(
            "spec.running",
            "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
        ));
    }
    if !running && strategy.is_none() {
        causes.push(Cause::new("spec.running", "RunStrategy must be specified"));
    }
    match strategy {
        Some("WaitAsReceiver") if !gate(profile, "DecentralizedLiveMigration") => causes.push(Cause::new(
            "spec.runStrategy",
            "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource",
        )),
        Some(strategy) if strategy != "WaitAsReceiver" && !RUN_STRATEGIES.contains(&strategy) => {
            causes.push(Cause::new("spec.runStrategy", format!("Invalid RunStrategy ({strategy})")));
        }
        _ => {}
    }
    causes
}

// ---------------------------------------------------------------------------------------------
// ValidateVirtualMachineInstanceSpec.

const TOO_MANY_SOCKETS: &str =
    "Number of sockets in CPU topology is greater than the maximum sockets allowed";

struct Ctx<'a> {
    spec: &'a Value,
    profile: &'a ClusterProfile,
    causes: Vec<Cause>,
}

impl<'a> Ctx<'a> {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.causes.push(Cause::new(field, message));
    }

    fn gate(&self, name: &str) -> bool {
        gate(self.profile, name)
    }

    fn cpu(&self) -> Option<&'a Value> {
        present_at(self.spec, &["domain", "cpu"])
    }

    fn dedicated(&self) -> bool {
        self.cpu()
            .and_then(|cpu| bool_at(cpu, &["dedicatedCpuPlacement"]))
            == Some(true)
    }

    fn devices(&self, key: &str) -> &'a [Value] {
        array_at(self.spec, &["domain", "devices", key])
    }
}

fn vmi_spec(spec: &Value, profile: &ClusterProfile) -> Vec<Cause> {
    let mut cx = Ctx {
        spec,
        profile,
        causes: Vec::new(),
    };
    // Up to v1.2 the webhook limits the lists itself (later the CRD does, before it runs).
    let webhook_limits = !profile.version.at_least(1, 3);
    for list in [List::Disks, List::Volumes] {
        if webhook_limits && list_limits::exceeds(spec, list) {
            return vec![list_limits::webhook_cause(TEMPLATE_SPEC, list)];
        }
    }
    let before_network: &[fn(&mut Ctx)] = &[
        hostname,
        subdomain,
        memory_requests,
        memory_limits,
        hugepages,
        guest_memory_limit,
        emulated_machine,
        firmware_acpi,
        cpu_requests_not_negative,
        cpu_request_within_limit,
        cpu_pinning,
        numa,
        isolate_emulator_thread,
        cpu_feature_policies,
        cpu_hotplug,
        start_strategy,
        realtime,
        architecture_gate,
    ];
    for check in before_network {
        check(&mut cx);
    }
    for list in [List::Interfaces, List::Networks] {
        if webhook_limits && list_limits::exceeds(spec, list) {
            cx.causes
                .push(list_limits::webhook_cause(TEMPLATE_SPEC, list));
            return cx.causes;
        }
    }
    let checks: &[fn(&mut Ctx)] = &[
        network,
        dra,
        boot_order,
        input_devices,
        io_threads_policy,
        probes,
        domain_spec,
        volumes,
        container_disk_paths,
        utility_volumes,
        access_credentials,
        dns,
        eviction_strategy,
        mdev_ramfb,
        host_devices,
        sound,
        launch_security,
        vsock,
        persistent_reservation,
        persistent_state,
        downward_metrics,
        virtiofs,
        video,
        panic_devices,
        reboot_policy,
        reserved_overhead,
        service_account_name,
    ];
    for check in checks {
        check(&mut cx);
    }
    cx.causes
}

// --- names -----------------------------------------------------------------------------------

const DNS_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS_SUBDOMAIN_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

fn matches_dns_label(value: &str) -> bool {
    let bytes = value.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum)
        && bytes.iter().all(|b| alnum(b) || *b == b'-')
}

fn matches_dns_subdomain(value: &str) -> bool {
    value.split('.').all(matches_dns_label)
}

/// Kubernetes' `IsDNS1123Label`.
fn dns1123_label(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_owned());
    }
    if !matches_dns_label(value) {
        if matches_dns_subdomain(value) {
            errors.push("must not contain dots".to_owned());
        } else {
            errors.push(format!(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{DNS_LABEL_FMT}')"
            ));
        }
    }
    errors
}

/// Kubernetes' `IsDNS1123Subdomain`.
fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 characters".to_owned());
    }
    if !matches_dns_subdomain(value) {
        errors.push(format!(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '{DNS_SUBDOMAIN_FMT}')"
        ));
    }
    errors
}

fn hostname(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["hostname"]);
    let errors = if name.is_empty() {
        Vec::new()
    } else {
        dns1123_label(name)
    };
    if !errors.is_empty() {
        let message = format!(
            "{} does not conform to the kubernetes DNS_LABEL rules : {}",
            ts!("hostname"),
            errors.join(", ")
        );
        cx.push(ts!("hostname"), message);
    }
}

fn subdomain(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["subdomain"]);
    let errors = if name.is_empty() {
        Vec::new()
    } else {
        dns1123_subdomain(name)
    };
    if !errors.is_empty() {
        let message = format!(
            "{} does not conform to the kubernetes DNS_SUBDOMAIN rules : {}",
            ts!("subdomain"),
            errors.join(", ")
        );
        cx.push(ts!("subdomain"), message);
    }
}

fn service_account_name(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["serviceAccountName"]);
    if name.is_empty() {
        return;
    }
    let errors = dns1123_subdomain(name);
    if !errors.is_empty() {
        let message = format!(
            "{} is not a valid service account name: {}",
            ts!("serviceAccountName"),
            errors.join("; ")
        );
        cx.push(ts!("serviceAccountName"), message);
    }
    let volumes = array_at(cx.spec, &["volumes"]);
    let other = volumes
        .iter()
        .filter(|v| is_set_at(v, &["serviceAccount"]))
        .map(|v| str_at(v, &["serviceAccount", "serviceAccountName"]))
        .find(|other| *other != name);
    if let Some(other) = other {
        let message = format!(
            "spec.serviceAccountName {name:?} and serviceAccount volume {other:?} must reference the same service account"
        );
        cx.push(ts!("serviceAccountName"), message);
    }
}

// --- memory ----------------------------------------------------------------------------------

fn memory_requests(cx: &mut Ctx) {
    let Some(request) = resource(cx.spec, "requests", "memory") else {
        return;
    };
    let field = ts!("domain.resources.requests.memory");
    let one_m = Quantity::parse("1M").ok();
    if request.value() < 0 {
        cx.push(
            field,
            format!(
                "{field} '{}': must be greater than or equal to 0.",
                request.canonical()
            ),
        );
    } else if request.value() > 0 && one_m.is_some_and(|one_m| request.cmp_value(&one_m).is_lt()) {
        cx.push(
            field,
            format!(
                "{field} '{}': must be greater than or equal to 1M.",
                request.canonical()
            ),
        );
    }
}

fn memory_limits(cx: &mut Ctx) {
    let limit = resource(cx.spec, "limits", "memory");
    let request = resource(cx.spec, "requests", "memory");
    let limit_field = ts!("domain.resources.limits.memory");
    let request_field = ts!("domain.resources.requests.memory");
    if value_of(limit.as_ref()) < 0 {
        let message = format!(
            "{limit_field} '{}': must be greater than or equal to 0.",
            shown(limit.as_ref())
        );
        cx.push(limit_field, message);
    }
    if value_of(limit.as_ref()) > 0 && value_of(request.as_ref()) > value_of(limit.as_ref()) {
        let message = format!(
            "{request_field} '{}' is greater than {limit_field} '{}'",
            shown(request.as_ref()),
            shown(limit.as_ref())
        );
        cx.push(request_field, message);
    }
}

fn hugepages(cx: &mut Ctx) {
    let Some(pages) = present_at(cx.spec, &["domain", "memory", "hugepages"]) else {
        return;
    };
    let page_size = str_at(pages, &["pageSize"]);
    let size_field = if cx.profile.version.at_least(1, 8) {
        ts!("domain.memory.hugepages.pageSize")
    } else {
        ts!("domain.hugepages.size")
    };
    let Ok(size) = Quantity::parse(page_size) else {
        let message = format!(
            "{size_field} '{page_size}': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        cx.push(size_field, message);
        return;
    };
    let request = resource(cx.spec, "requests", "memory");
    let mut memory = value_of(request.as_ref());
    if memory == 0 {
        memory = value_of(Quantity::at(cx.spec, &["domain", "memory", "guest"]).as_ref());
    }
    if memory == 0
        && cx
            .profile
            .version
            .has_change(backports::HUGEPAGES_CHECKED_AGAINST_LIMITS)
    {
        memory = value_of(resource(cx.spec, "limits", "memory").as_ref());
    }
    let request_field = ts!("domain.resources.requests.memory");
    let shown_request = shown(request.as_ref());
    if memory != 0 && memory < size.value() {
        let message = format!(
            "{request_field} '{shown_request}' must be equal to or larger than page size {size_field} '{page_size}'"
        );
        cx.push(request_field, message);
    } else if memory
        .checked_rem(size.value())
        .is_some_and(|rest| rest != 0)
    {
        let message = format!(
            "{request_field} '{shown_request}' is not a multiple of the page size {size_field} '{page_size}'"
        );
        cx.push(request_field, message);
    }
}

fn guest_memory_limit(cx: &mut Ctx) {
    if rollout_live_update(cx.profile) {
        return;
    }
    let Some(guest) = Quantity::at(cx.spec, &["domain", "memory", "guest"]) else {
        return;
    };
    let limit = resource(cx.spec, "limits", "memory");
    let limits = value_of(limit.as_ref());
    if limits < guest.value() && limits != 0 {
        let message = format!(
            "{} '{}' must be equal to or less than the memory limit {} '{}'",
            ts!("domain.memory.guest"),
            guest.canonical(),
            ts!("domain.resources.limits.memory"),
            shown(limit.as_ref())
        );
        cx.push(ts!("domain.memory.guest"), message);
    }
}

fn reserved_overhead(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "memory", "reservedOverhead"])
        && !cx.gate("ReservedOverheadMemlock")
    {
        cx.push(
            ts!("domain.memory.reservedOverhead"),
            "Reserved overhead memlock feature gate is not enabled in kubevirt-config",
        );
    }
}

// --- machine and firmware --------------------------------------------------------------------

/// `filepath.Match` for the `*` and `?` patterns of emulated machine lists.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len())
            .take_while(|&skip| skip == 0 || name[skip - 1] != b'/')
            .any(|skip| glob_match(rest, &name[skip..])),
        Some((b'?', rest)) => name
            .split_first()
            .is_some_and(|(c, tail)| *c != b'/' && glob_match(rest, tail)),
        Some((c, rest)) => name
            .split_first()
            .is_some_and(|(n, tail)| n == c && glob_match(rest, tail)),
    }
}

fn emulated_machines(arch: &str) -> &'static [&'static str] {
    match arch {
        "arm64" => &["virt*"],
        "s390x" => &["s390-ccw-virtio*"],
        _ => &["q35*", "pc-q35*"],
    }
}

fn emulated_machine(cx: &mut Ctx) {
    let machine = str_at(cx.spec, &["domain", "machine", "type"]);
    if machine.is_empty() {
        return;
    }
    let allowed = emulated_machines(architecture(cx.spec, cx.profile));
    let mut configured = cx
        .profile
        .machine_type
        .iter()
        .chain(cx.profile.arch_machine_types.iter().map(|(_, m)| m));
    let matched = allowed
        .iter()
        .any(|p| glob_match(p.as_bytes(), machine.as_bytes()))
        || configured.any(|m| m == machine);
    if !matched {
        let field = ts!("domain.machine.type");
        cx.push(
            field,
            format!(
                "{field} is not supported: {machine} (allowed values: {})",
                go_list(allowed)
            ),
        );
    }
}

fn firmware_acpi(cx: &mut Ctx) {
    let Some(acpi) = present_at(cx.spec, &["domain", "firmware", "acpi"]) else {
        return;
    };
    let field = ts!("acpi");
    let (slic, msdm) = (
        str_at(acpi, &["slicNameRef"]),
        str_at(acpi, &["msdmNameRef"]),
    );
    if slic.is_empty() && msdm.is_empty() {
        cx.push(
            field,
            "ACPI was set but no SLIC nor MSDM volume reference was set",
        );
        return;
    }
    for (name, key) in [(slic, "slicNameRef"), (msdm, "msdmNameRef")] {
        if name.is_empty() {
            continue;
        }
        let volume = array_at(cx.spec, &["volumes"])
            .iter()
            .find(|v| str_at(v, &["name"]) == name);
        let message = match volume {
            Some(v) if is_set_at(v, &["secret"]) => continue,
            Some(_) => format!("{field} refers to Volume of unsupported type."),
            None => format!("{field} does not have a matching Volume."),
        };
        cx.push(format!("{field}.{key}"), message);
    }
}

fn domain_spec(cx: &mut Ctx) {
    disks(cx);
    let firmware = present_at(cx.spec, &["domain", "firmware"]);
    if let Some(firmware) = firmware {
        if is_set_at(firmware, &["bootloader", "efi"])
            && is_set_at(firmware, &["bootloader", "bios"])
        {
            let field = ts!("domain.firmware.bootloader");
            cx.push(
                field,
                format!(
                    "{field} has both EFI and BIOS configured, but they are mutually exclusive."
                ),
            );
        }
        kernel_boot(cx, firmware);
    }
    let secure_boot = firmware.is_some_and(|f| {
        is_set_at(f, &["bootloader", "efi"])
            && bool_at(f, &["bootloader", "efi", "secureBoot"]) != Some(false)
    });
    let smm = is_set_at(cx.spec, &["domain", "features", "smm"])
        && bool_at(cx.spec, &["domain", "features", "smm", "enabled"]) != Some(false);
    let tdx = is_set_at(cx.spec, &["domain", "launchSecurity", "tdx"]);
    if secure_boot && !smm && !tdx {
        let field = ts!("domain");
        cx.push(
            field,
            format!("{field} has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled."),
        );
    }
}

fn kernel_boot(cx: &mut Ctx, firmware: &Value) {
    let Some(boot) = present_at(firmware, &["kernelBoot"]) else {
        return;
    };
    let Some(container) = present_at(boot, &["container"]) else {
        if !str_at(boot, &["kernelArgs"]).is_empty() {
            cx.push(
                ts!("domain.firmware.kernelBoot.kernelArgs"),
                "kernel arguments cannot be provided without an external kernel",
            );
        }
        return;
    };
    let field = ts!("domain.firmware.kernelBoot.container");
    if str_at(container, &["image"]).is_empty() {
        cx.push(
            format!("{field}.image"),
            format!("{field} must be defined with an image"),
        );
    }
    let (kernel, initrd) = (
        str_at(container, &["kernelPath"]),
        str_at(container, &["initrdPath"]),
    );
    if kernel.is_empty() && initrd.is_empty() {
        cx.push(
            field,
            format!(
                "{field} must be defined with at least one of the following: kernelPath, initrdPath"
            ),
        );
    }
    for (path, key) in [(kernel, "kernelPath"), (initrd, "initrdPath")] {
        if !path.is_empty() {
            cx.causes
                .extend(validate_path(&format!("{field}.{key}"), path));
        }
    }
}

/// Go's `filepath.Join("/", path)`.
fn clean_absolute(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `storageadmitters.ValidatePath`.
fn validate_path(field: &str, path: &str) -> Vec<Cause> {
    if path == "/" {
        return vec![Cause::new(field, format!("{field} must not point to root"))];
    }
    let provided = path.strip_suffix('/').unwrap_or(path);
    if clean_absolute(path) == provided {
        return Vec::new();
    }
    vec![Cause::new(
        field,
        format!("{field} must be an absolute path to a file without relative components"),
    )]
}

// --- CPU -------------------------------------------------------------------------------------

fn cpu_requests_not_negative(cx: &mut Ctx) {
    for kind in ["requests", "limits"] {
        let Some(cpu) = resource(cx.spec, kind, "cpu") else {
            continue;
        };
        if milli_value(&cpu) < 0 {
            let field = format!("{TEMPLATE_SPEC}.domain.resources.{kind}.cpu");
            let message = format!(
                "{field} '{}': must be greater than or equal to 0.",
                cpu.canonical()
            );
            cx.push(field, message);
        }
    }
}

fn cpu_request_within_limit(cx: &mut Ctx) {
    let (Some(request), Some(limit)) = (
        resource(cx.spec, "requests", "cpu"),
        resource(cx.spec, "limits", "cpu"),
    ) else {
        return;
    };
    let limit_milli = milli_value(&limit);
    if limit_milli > 0 && milli_value(&request) > limit_milli {
        let message = format!(
            "{} '{}' is greater than {} '{}'",
            ts!("domain.resources.requests.cpu"),
            request.canonical(),
            ts!("domain.resources.limits.cpu"),
            limit.canonical()
        );
        cx.push(ts!("domain.resources.requests.cpu"), message);
    }
}

/// `hwutil.GetNumberOfVCPUs`.
fn vcpus(cpu: &Value) -> u64 {
    [u64_at(cpu, &["sockets"]), u64_at(cpu, &["threads"])]
        .into_iter()
        .fold(u64_at(cpu, &["cores"]), |total, n| match (total, n) {
            (_, 0) => total,
            (0, n) => n,
            (total, n) => total.saturating_mul(n),
        })
}

fn cpu_pinning(cx: &mut Ctx) {
    if !cx.dedicated() {
        return;
    }
    memory_is_provided(cx);
    cpu_is_integer(cx);
    dedicated_memory_request_equals_limit(cx);
    dedicated_cpu_amount(cx);
    thread_counts(cx);
}

fn memory_is_provided(cx: &mut Ctx) {
    let nonzero = |q: Option<Quantity>| q.is_some_and(|q| !q.is_zero());
    if nonzero(resource(cx.spec, "limits", "memory"))
        || nonzero(resource(cx.spec, "requests", "memory"))
    {
        return;
    }
    let memory = present_at(cx.spec, &["domain", "memory"]);
    if memory.is_some_and(|m| is_set_at(m, &["hugepages"]) || nonzero(Quantity::at(m, &["guest"])))
    {
        return;
    }
    let message = format!(
        "{}, {}, {} or {} should be provided",
        ts!("domain.resources.requests.memory"),
        ts!("domain.resources.limits.memory"),
        ts!("domain.memory.hugepages"),
        ts!("domain.memory.guest")
    );
    cx.push(ts!("domain.resources.limits.memory"), message);
}

fn cpu_is_integer(cx: &mut Ctx) {
    for kind in ["requests", "limits"] {
        let Some(cpu) = resource(cx.spec, kind, "cpu") else {
            continue;
        };
        if cpu.value() > 0 && cpu.value().saturating_mul(1000) != milli_value(&cpu) {
            let message = format!("provided resources CPU {kind} must be an interger");
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.resources.{kind}.cpu"),
                message,
            );
        }
    }
}

fn dedicated_memory_request_equals_limit(cx: &mut Ctx) {
    let request = value_of(resource(cx.spec, "requests", "memory").as_ref());
    let limit = value_of(resource(cx.spec, "limits", "memory").as_ref());
    if request > 0 && limit > 0 && request != limit {
        let message = format!(
            "{} must be equal to {}",
            ts!("domain.resources.requests.memory"),
            ts!("domain.resources.limits.memory")
        );
        cx.push(ts!("domain.resources.requests.memory"), message);
    }
}

fn dedicated_cpu_amount(cx: &mut Ctx) {
    let request = value_of(resource(cx.spec, "requests", "cpu").as_ref());
    let limit = value_of(resource(cx.spec, "limits", "cpu").as_ref());
    let vcpus = cx.cpu().map_or(0, vcpus);
    let vcpus = i64::try_from(vcpus).unwrap_or(i64::MAX);
    let (request_field, limit_field, cores_field) = (
        ts!("domain.resources.requests.cpu"),
        ts!("domain.resources.limits.cpu"),
        ts!("domain.cpu.cores"),
    );
    let field = ts!("domain.cpu.dedicatedCpuPlacement");
    if request == 0 && limit == 0 && vcpus == 0 {
        let message = format!(
            "either {request_field} or {limit_field} or {cores_field} must be provided when DedicatedCPUPlacement is true "
        );
        cx.push(field, message);
    }
    if request > 0 && limit > 0 && request != limit {
        cx.push(
            field,
            format!(
                "{request_field} or {limit_field} must be equal when DedicatedCPUPlacement is true "
            ),
        );
    }
    if (request > 0 || limit > 0) && vcpus > 0 && request != vcpus && limit != vcpus {
        let message = format!(
            "{request_field} or {limit_field} must not be provided at the same time with {cores_field} when DedicatedCPUPlacement is true "
        );
        cx.push(field, message);
    }
}

fn thread_counts(cx: &mut Ctx) {
    let threads = cx.cpu().map_or(0, |cpu| u64_at(cpu, &["threads"]));
    if threads > 1 && architecture(cx.spec, cx.profile) == "arm64" {
        let message = format!(
            "threads must not be greater than 1 at {} (got {threads}) when {} is arm64",
            ts!("domain.cpu.threads"),
            ts!("architecture")
        );
        cx.push(ts!("architecture"), message);
    }
    if threads > 2 {
        let message = format!(
            "Not more than two threads must be provided at {} (got {threads}) when DedicatedCPUPlacement is true",
            ts!("domain.cpu.threads")
        );
        cx.push(ts!("domain.cpu.dedicatedCpuPlacement"), message);
    }
}

fn numa(cx: &mut Ctx) {
    if !cx
        .cpu()
        .is_some_and(|cpu| is_set_at(cpu, &["numa", "guestMappingPassthrough"]))
    {
        return;
    }
    let field = ts!("domain.cpu.numa.guestMappingPassthrough");
    if !cx.gate("NUMA") {
        cx.push(
            field,
            format!("NUMA feature gate is not enabled in kubevirt-config, invalid entry {field}"),
        );
    }
    if !cx.dedicated() {
        let message = format!(
            "{} must be set to true when NUMA topology strategy is set in {field}",
            ts!("domain.cpu.dedicatedCpuPlacement")
        );
        cx.push(field, message);
    }
    if !is_set_at(cx.spec, &["domain", "memory", "hugepages"]) {
        let message = format!(
            "{} must be requested when NUMA topology strategy is set in {field}",
            ts!("domain.memory.hugepages")
        );
        cx.push(field, message);
    }
}

fn isolate_emulator_thread(cx: &mut Ctx) {
    let isolated = cx
        .cpu()
        .and_then(|cpu| bool_at(cpu, &["isolateEmulatorThread"]))
        == Some(true);
    if isolated && !cx.dedicated() {
        cx.push(
            ts!("domain.cpu.isolateEmulatorThread"),
            "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement",
        );
    }
}

fn cpu_feature_policies(cx: &mut Ctx) {
    const POLICIES: &[&str] = &["", "force", "require", "optional", "disable", "forbid"];
    let features = cx.cpu().map_or(&[][..], |cpu| array_at(cpu, &["features"]));
    for (idx, feature) in features.iter().enumerate() {
        let policy = str_at(feature, &["policy"]);
        if !POLICIES.contains(&policy) {
            let name = str_at(feature, &["name"]);
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.cpu.features[{idx}].policy"),
                format!("CPU feature {name} uses policy {policy} that is not supported."),
            );
        }
    }
}

fn cpu_hotplug(cx: &mut Ctx) {
    let Some(cpu) = cx.cpu() else {
        return;
    };
    let max = u64_at(cpu, &["maxSockets"]);
    if max != 0 && u64_at(cpu, &["sockets"]) > max {
        cx.push(ts!("domain.cpu.sockets"), TOO_MANY_SOCKETS);
    }
}

fn realtime(cx: &mut Ctx) {
    if !cx.cpu().is_some_and(|cpu| is_set_at(cpu, &["realtime"])) {
        return;
    }
    if !cx.dedicated() {
        let message = format!(
            "{} must be set to true when {} is used",
            ts!("domain.cpu.dedicatedCpuPlacement"),
            ts!("domain.cpu.realtime")
        );
        cx.push(ts!("domain.cpu.dedicatedCpuPlacement"), message);
    }
    if !cx
        .cpu()
        .is_some_and(|cpu| is_set_at(cpu, &["numa", "guestMappingPassthrough"]))
    {
        let field = ts!("domain.cpu.numa.guestMappingPassthrough");
        cx.push(
            field,
            format!(
                "{field} must be defined when {} is used",
                ts!("domain.cpu.realtime")
            ),
        );
    }
}

fn start_strategy(cx: &mut Ctx) {
    let Some(strategy) = present_at(cx.spec, &["startStrategy"]) else {
        return;
    };
    let field = ts!("startStrategy");
    let strategy = strategy.as_str().unwrap_or("");
    if strategy != "Paused" {
        cx.push(
            field,
            format!("{field} is set with an unrecognized option: {strategy}"),
        );
    } else if is_set_at(cx.spec, &["livenessProbe"]) {
        let message = format!(
            "either {field} or {} should be provided.Pausing VMI with LivenessProbe is not supported",
            ts!("livenessProbe")
        );
        cx.push(field, message);
    }
}

// --- network ---------------------------------------------------------------------------------

/// `netadmitter.Validator.Validate`.
fn network(cx: &mut Ctx) {
    let networks = array_at(cx.spec, &["networks"]);
    let interfaces = cx.devices("interfaces");
    single_pod_network(cx, networks);
    network_sources(cx, networks);
    interface_states(cx, networks, interfaces);
    interface_bindings(cx, networks, interfaces);
    unique_names(cx, networks, interfaces, false);
    dra_networks(cx, networks, interfaces);
    networks_have_interfaces(cx, networks, interfaces);
    unique_names(cx, networks, interfaces, true);
    interfaces_have_networks(cx, networks, interfaces);
    for (idx, iface) in interfaces.iter().enumerate() {
        interface_fields(
            cx,
            idx,
            iface,
            network_named(networks, str_at(iface, &["name"])),
        );
    }
}

fn network_named<'a>(networks: &'a [Value], name: &str) -> Option<&'a Value> {
    networks.iter().rev().find(|n| str_at(n, &["name"]) == name)
}

fn is_pod(network: Option<&Value>) -> bool {
    network.is_some_and(|n| is_set_at(n, &["pod"]))
}

fn is_default_multus(network: &Value) -> bool {
    is_set_at(network, &["multus"]) && bool_at(network, &["multus", "default"]) == Some(true)
}

fn iface_field(idx: usize, child: &str) -> String {
    if child.is_empty() {
        format!("{TEMPLATE_SPEC}.domain.devices.interfaces[{idx}]")
    } else {
        format!("{TEMPLATE_SPEC}.domain.devices.interfaces[{idx}].{child}")
    }
}

fn single_pod_network(cx: &mut Ctx, networks: &[Value]) {
    let pods = networks.iter().filter(|n| is_pod(Some(n))).count();
    let defaults = networks.iter().filter(|n| is_default_multus(n)).count();
    if pods > 1 {
        let field = ts!("interfaces");
        cx.push(
            field,
            format!("more than one interface is connected to a pod network in {field}"),
        );
    }
    if defaults > 1 {
        cx.push(
            ts!("networks"),
            "Multus CNI should only have one default network",
        );
    }
    if pods > 0 && defaults > 0 {
        cx.push(
            ts!("networks"),
            "Pod network cannot be defined when Multus default network is defined",
        );
    }
}

fn network_sources(cx: &mut Ctx, networks: &[Value]) {
    for (idx, network) in networks.iter().enumerate() {
        let count = count_present(network, &["pod", "multus", "resourceClaim"]);
        let field = format!("{TEMPLATE_SPEC}.networks[{idx}]");
        match count {
            0 => cx.push(field, "should have a network type"),
            1 => {}
            _ => cx.push(field, "should have only one network type"),
        }
    }
    let unnamed = networks.iter().position(|n| {
        is_set_at(n, &["multus"]) && str_at(n, &["multus", "networkName"]).is_empty()
    });
    if let Some(idx) = unnamed {
        cx.push(
            format!("{TEMPLATE_SPEC}.networks[{idx}]"),
            "CNI delegating plugin must have a networkName",
        );
    }
}

fn interface_states(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    let default_network = networks
        .iter()
        .find(|n| is_pod(Some(n)) || is_default_multus(n));
    for (idx, iface) in interfaces.iter().enumerate() {
        let (name, state) = (str_at(iface, &["name"]), str_at(iface, &["state"]));
        let field = iface_field(idx, "state");
        if !matches!(state, "" | "absent" | "down" | "up") {
            cx.push(
                field.clone(),
                format!("logical {name} interface state value is unsupported: {state}"),
            );
        }
        if is_set_at(iface, &["sriov"]) && matches!(state, "down" | "up") {
            cx.push(
                field.clone(),
                format!("{name:?} interface's state {state:?} is not supported for SR-IOV NICs"),
            );
        }
        if state == "absent" && !is_set_at(iface, &["bridge"]) {
            cx.push(
                field.clone(),
                format!(
                    "{name:?} interface's state {state:?} is supported only for bridge binding"
                ),
            );
        }
        if state == "absent" && default_network.is_some_and(|n| str_at(n, &["name"]) == name) {
            cx.push(
                field,
                format!(
                    "{name:?} interface's state {state:?} is not supported on default networks"
                ),
            );
        }
    }
}

fn interface_bindings(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    const BINDINGS: &[&str] = &["bridge", "masquerade", "sriov", "passtBinding", "binding"];
    for (idx, iface) in interfaces.iter().enumerate() {
        let name = str_at(iface, &["name"]);
        let on_pod = is_pod(network_named(networks, name));
        if count_present(iface, BINDINGS) != 1 {
            cx.push(
                iface_field(idx, ""),
                format!("logical {name} interface must have exactly one binding method or binding plugin"),
            );
        }
        if is_set_at(iface, &["masquerade"]) && !on_pod {
            cx.push(
                iface_field(idx, "name"),
                "Masquerade interface only implemented with pod network",
            );
        }
        if is_set_at(iface, &["masquerade"])
            && str_at(iface, &["macAddress"]) == "02:00:00:00:00:00"
        {
            cx.push(
                iface_field(idx, "macAddress"),
                "The requested MAC address is reserved for the in-pod bridge. Please choose another one.",
            );
        }
        if is_set_at(iface, &["bridge"]) && on_pod && !cx.profile.permit_bridge_on_pod_network {
            cx.push(
                iface_field(idx, "name"),
                "Bridge on pod network configuration is not enabled under kubevirt-config",
            );
        }
        if is_set_at(iface, &["passtBinding"]) && !cx.gate("PasstBinding") {
            cx.push(
                iface_field(idx, "name"),
                "PasstBinding feature gate is not enabled",
            );
        }
        if is_set_at(iface, &["passtBinding"]) && !on_pod {
            cx.push(
                iface_field(idx, "name"),
                "PasstBinding interface only implemented with pod network",
            );
        }
    }
}

/// Duplicate network names, or (`interfaces`) duplicate interface names.
fn unique_names(cx: &mut Ctx, networks: &[Value], interfaces: &[Value], of_interfaces: bool) {
    let list = if of_interfaces { interfaces } else { networks };
    let mut seen = HashSet::new();
    for (idx, item) in list.iter().enumerate() {
        let name = str_at(item, &["name"]);
        if seen.insert(name) {
            continue;
        }
        if of_interfaces {
            cx.push(
                iface_field(idx, "name"),
                "Only one interface can be connected to one specific network",
            );
        } else {
            cx.push(
                format!("{TEMPLATE_SPEC}.networks[{idx}].name"),
                format!("Network with name {name:?} already exists, every network must have a unique name"),
            );
        }
    }
}

fn networks_have_interfaces(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    for (idx, network) in networks.iter().enumerate() {
        let name = str_at(network, &["name"]);
        if !interfaces.iter().any(|i| str_at(i, &["name"]) == name) {
            let field = format!("{TEMPLATE_SPEC}.networks[{idx}].name");
            cx.push(field.clone(), format!("{field} '{name}' not found."));
        }
    }
}

fn interfaces_have_networks(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    for (idx, iface) in interfaces.iter().enumerate() {
        let name = str_at(iface, &["name"]);
        if network_named(networks, name).is_none() {
            let field = iface_field(idx, "name");
            cx.push(field.clone(), format!("{field} '{name}' not found."));
        }
    }
}

fn dra_networks(cx: &mut Ctx, networks: &[Value], interfaces: &[Value]) {
    if !networks.iter().any(|n| is_set_at(n, &["resourceClaim"])) {
        return;
    }
    if !cx.gate("NetworkDevicesWithDRA") {
        cx.push(
            ts!("networks"),
            "vmi.spec.networks contains DRA networks but NetworkDevicesWithDRA feature gate is not enabled",
        );
        return;
    }
    if networks.iter().any(|n| is_set_at(n, &["multus"])) {
        cx.push(
            ts!("networks"),
            "mixing Multus and DRA resourceClaim networks in the same VMI is not supported",
        );
        return;
    }
    let claims = strings_of(array_at(cx.spec, &["resourceClaims"]), "name");
    let mut first_by_pair: HashMap<String, usize> = HashMap::new();
    for (idx, network) in networks.iter().enumerate() {
        let Some(claim) = present_at(network, &["resourceClaim"]) else {
            continue;
        };
        let name = str_at(network, &["name"]);
        let iface = interfaces.iter().find(|i| str_at(i, &["name"]) == name);
        if iface.is_some_and(|i| !is_set_at(i, &["sriov"]) && !is_set_at(i, &["binding"])) {
            cx.push(
                ts!("domain.devices.interfaces"),
                format!("DRA network {name:?} requires an SR-IOV or binding plugin interface"),
            );
        }
        let field = format!("{TEMPLATE_SPEC}.networks[{idx}]");
        let (claim_name, request) = (
            str_at(claim, &["claimName"]),
            str_at(claim, &["requestName"]),
        );
        if claim_name.is_empty() {
            cx.push(
                format!("{field}.resourceClaim.claimName"),
                "claimName is required for DRA network",
            );
        }
        if request.is_empty() {
            cx.push(
                format!("{field}.resourceClaim.requestName"),
                "requestName is required for DRA network",
            );
        }
        if claim_name.is_empty() || request.is_empty() {
            continue;
        }
        if !claims.contains(&claim_name) {
            cx.push(
                format!("{field}.resourceClaim.claimName"),
                format!("network references resourceClaim {claim_name:?} which is not defined in spec.resourceClaims"),
            );
        }
        let pair = format!("{claim_name}/{request}");
        let first = *first_by_pair.entry(pair.clone()).or_insert(idx);
        if first != idx {
            cx.push(
                field,
                format!("duplicate claimName/requestName combination {pair:?}"),
            );
        }
    }
}

fn strings_of<'a>(list: &'a [Value], key: &str) -> Vec<&'a str> {
    list.iter().map(|item| str_at(item, &[key])).collect()
}

fn interface_fields(cx: &mut Ctx, idx: usize, iface: &Value, network: Option<&Value>) {
    const MODELS: &[&str] = &[
        "e1000", "e1000e", "igb", "ne2k_pci", "pcnet", "rtl8139", "virtio",
    ];
    let name_field = iface_field(idx, "name");
    let name = str_at(iface, &["name"]);
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        cx.push(
            name_field.clone(),
            "Network interface name can only contain alphabetical characters, numbers, dashes (-) or underscores (_)",
        );
    }
    let model = str_at(iface, &["model"]);
    if !model.is_empty() && !MODELS.contains(&model) {
        cx.push(
            iface_field(idx, "model"),
            format!("interface {name_field} uses model {model} that is not supported."),
        );
    }
    if let Err(problem) = validate_mac(str_at(iface, &["macAddress"])) {
        cx.push(
            iface_field(idx, "macAddress"),
            format!("interface {name_field} has {problem}."),
        );
    }
    let pci = str_at(iface, &["pciAddress"]);
    if !pci.is_empty() && !is_pci_address(pci) {
        cx.push(
            iface_field(idx, "pciAddress"),
            format!("interface {name_field} has malformed PCI address ({pci})."),
        );
    }
    if is_pod(network) && is_set_at(iface, &["ports"]) {
        forward_ports(cx, idx, array_at(iface, &["ports"]));
    }
    port_ranges(cx, idx, iface, network);
    dhcp_options(cx, idx, iface);
}

/// `link.ValidateMacAddress` (Go's `net.ParseMAC`, limited to 6 bytes).
fn validate_mac(mac: &str) -> Result<(), String> {
    if mac.is_empty() {
        return Ok(());
    }
    match parse_mac_len(mac) {
        None => Err(format!("malformed MAC address ({mac})")),
        Some(len) if len > 6 => Err(format!("too long MAC address ({mac})")),
        Some(_) => Ok(()),
    }
}

/// The byte length of a MAC address in one of Go's accepted notations.
fn parse_mac_len(mac: &str) -> Option<usize> {
    let bytes = mac.as_bytes();
    if bytes.len() < 14 {
        return None;
    }
    let hex = |group: &[u8]| group.iter().all(u8::is_ascii_hexdigit);
    let (separator, group) = match (bytes[2], bytes[4]) {
        (b':' | b'-', _) => (bytes[2], 2),
        (_, b'.') => (b'.', 4),
        _ => return None,
    };
    if !(bytes.len() + 1).is_multiple_of(group + 1) {
        return None;
    }
    let groups: Vec<&[u8]> = bytes.split(|b| *b == separator).collect();
    if !groups.iter().all(|g| g.len() == group && hex(g)) {
        return None;
    }
    let len = groups.len() * group / 2;
    matches!(len, 6 | 8 | 20).then_some(len)
}

/// `hwutil.ParsePciAddress`: `DDDD:BB:SS.F` in hexadecimal, function 0-7.
fn is_pci_address(address: &str) -> bool {
    let bytes = address.as_bytes();
    let hex = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_hexdigit);
    bytes.len() == 12
        && hex(0..4)
        && bytes[4] == b':'
        && hex(5..7)
        && bytes[7] == b':'
        && hex(8..10)
        && bytes[10] == b'.'
        && (b'0'..=b'7').contains(&bytes[11])
}

/// Kubernetes' `IsValidPortName`.
fn is_valid_port_name(name: &str) -> bool {
    name.len() <= 15
        && !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && name.bytes().any(|b| b.is_ascii_lowercase())
        && !name.contains("--")
        && !name.starts_with('-')
        && !name.ends_with('-')
}

fn forward_ports(cx: &mut Ctx, idx: usize, ports: &[Value]) {
    let mut names = HashSet::new();
    for (port_idx, port) in ports.iter().enumerate() {
        let name = str_at(port, &["name"]);
        let field = |child: &str| iface_field(idx, &format!("ports[{port_idx}].{child}"));
        if name.is_empty() {
            continue;
        }
        if !names.insert(name) {
            cx.push(field("name"), format!("Duplicate name of the port: {name}"));
        }
        if !is_valid_port_name(name) {
            cx.push(field("name"), format!("Invalid name of the port: {name}"));
        }
    }
    for (port_idx, port) in ports.iter().enumerate() {
        let field = |child: &str| iface_field(idx, &format!("ports[{port_idx}].{child}"));
        let number = i64_at(port, &["port"]);
        if number == 0 {
            cx.push(field("port"), "Port field is mandatory.");
        }
        if !(0..65536).contains(&number) {
            cx.push(field("port"), "Port field must be in range 0 < x < 65536.");
        }
        if !matches!(str_at(port, &["protocol"]), "" | "TCP" | "UDP") {
            cx.push(
                field("protocol"),
                "Unknown protocol, only TCP or UDP allowed",
            );
        }
    }
}

fn port_ranges(cx: &mut Ctx, idx: usize, iface: &Value, network: Option<&Value>) {
    let present = is_set_at(iface, &["portRanges"]);
    if !cx.gate("PortRangesSpec") {
        if present {
            cx.push(
                iface_field(idx, "name"),
                "portRanges is specified on interface but the PortRangesSpec feature gate is not enabled",
            );
        }
        return;
    }
    if !present || !is_pod(network) {
        return;
    }
    if is_set_at(iface, &["ports"]) {
        cx.push(
            iface_field(idx, "name"),
            "Cannot define both ports and portRanges on interface",
        );
    }
    if !is_set_at(iface, &["masquerade"]) {
        cx.push(
            iface_field(idx, "name"),
            "portRanges are only supported on masquerade interfaces",
        );
    }
    let ranges = array_at(iface, &["portRanges"]);
    if ranges.len() > 10 {
        cx.push(
            iface_field(idx, "portRanges"),
            "No more than 10 portRanges are allowed",
        );
        return;
    }
    let mut by_protocol: Vec<(&str, Vec<(i64, i64)>)> =
        vec![("TCP", Vec::new()), ("UDP", Vec::new())];
    for (range_idx, range) in ranges.iter().enumerate() {
        let field = |child: &str| iface_field(idx, &format!("portRanges[{range_idx}].{child}"));
        let (protocol, start, end) = (
            str_at(range, &["protocol"]),
            i64_at(range, &["start"]),
            i64_at(range, &["end"]),
        );
        if !matches!(protocol, "TCP" | "UDP") {
            cx.push(
                field("protocol"),
                "Unknown protocol, only TCP or UDP allowed",
            );
        } else if !(1..65536).contains(&start) {
            cx.push(
                field("start"),
                "Start must be a valid port number, 0 < x < 65536",
            );
        } else if !(1..65536).contains(&end) {
            cx.push(
                field("end"),
                "End must be a valid port number, 0 < x < 65536",
            );
        } else if start > end {
            cx.push(field("start"), "Start must be less than or equal to end");
        } else if let Some((_, intervals)) = by_protocol.iter_mut().find(|(p, _)| *p == protocol) {
            intervals.push((start, end));
        }
    }
    for (protocol, mut intervals) in by_protocol {
        intervals.sort_unstable();
        for pair in intervals.windows(2) {
            let ((prev_start, prev_end), (start, end)) = (pair[0], pair[1]);
            if start <= prev_end {
                cx.push(
                    iface_field(idx, "portRanges"),
                    format!("{protocol} portRanges [{prev_start}-{prev_end}] and [{start}-{end}] overlap"),
                );
            }
        }
    }
}

fn dhcp_options(cx: &mut Ctx, idx: usize, iface: &Value) {
    let Some(options) = present_at(iface, &["dhcpOptions"]) else {
        return;
    };
    let private: Vec<i64> = array_at(options, &["privateOptions"])
        .iter()
        .map(|o| i64_at(o, &["option"]))
        .collect();
    if private.iter().collect::<HashSet<_>>().len() < private.len() {
        cx.push(
            TEMPLATE_SPEC,
            "Found Duplicates: you have provided duplicate DHCPPrivateOptions",
        );
    }
    for option in &private {
        if !(224..=254).contains(option) {
            cx.push(
                TEMPLATE_SPEC,
                "provided DHCPPrivateOptions are out of range, must be in range 224 to 254",
            );
        }
    }
    for (server_idx, server) in strs_at(options, &["ntpServers"]).iter().enumerate() {
        let ipv4 = match server.parse::<IpAddr>() {
            Ok(IpAddr::V4(_)) => true,
            Ok(IpAddr::V6(v6)) => v6.to_ipv4_mapped().is_some(),
            Err(_) => false,
        };
        if !ipv4 {
            cx.push(
                iface_field(idx, &format!("dhcpOptions.ntpServers[{server_idx}]")),
                "NTP servers must be a list of valid IPv4 addresses.",
            );
        }
    }
}

// --- DRA devices -----------------------------------------------------------------------------

/// `draadmitter.ValidateCreation`, without the cross-kind duplicate pair check.
fn dra(cx: &mut Ctx) {
    resource_claims(cx);
    let mut used = Vec::new();
    for (key, kind, gate_name, reject_mixed) in [
        ("gpus", "GPU", "GPUsWithDRA", true),
        ("hostDevices", "HostDevice", "HostDevicesWithDRA", false),
    ] {
        let enabled = cx.gate(gate_name);
        used.extend(dra_devices(cx, key, kind, enabled, reject_mixed));
    }
    let declared = strings_of(array_at(cx.spec, &["resourceClaims"]), "name");
    if used.iter().any(|claim| !declared.contains(claim)) {
        cx.push(
            ts!("resourceClaims"),
            "vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus and vmi.spec.domain.devices.hostDevices",
        );
    }
}

fn resource_claims(cx: &mut Ctx) {
    let mut names = HashSet::new();
    for (idx, claim) in array_at(cx.spec, &["resourceClaims"]).iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.resourceClaims[{idx}]");
        let name = str_at(claim, &["name"]);
        if name.is_empty() {
            cx.push(
                format!("{field}.name"),
                format!("{field}.name is a required field"),
            );
        } else if !names.insert(name) {
            cx.push(
                format!("{field}.name"),
                format!("duplicate resourceClaims name {name:?}"),
            );
        } else {
            let errors = dns1123_label(name);
            if !errors.is_empty() {
                let message = format!(
                    "{field}.name does not conform to the kubernetes DNS_LABEL rules: {}",
                    errors.join(", ")
                );
                cx.push(format!("{field}.name"), message);
            }
        }
        let (by_name, by_template) = (
            present_at(claim, &["resourceClaimName"]),
            present_at(claim, &["resourceClaimTemplateName"]),
        );
        match (by_name, by_template) {
            (Some(_), Some(_)) => {
                cx.push(
                    field.clone(),
                    "at most one of resourceClaimName or resourceClaimTemplateName may be specified",
                );
            }
            (None, None) => cx.push(
                field.clone(),
                "must specify one of: resourceClaimName, resourceClaimTemplateName",
            ),
            _ => {}
        }
        for (value, key) in [
            (by_name, "resourceClaimName"),
            (by_template, "resourceClaimTemplateName"),
        ] {
            let Some(value) = value else {
                continue;
            };
            for error in dns1123_subdomain(value.as_str().unwrap_or("")) {
                cx.push(format!("{field}.{key}"), error);
            }
        }
    }
}

/// Checks the DRA and non-DRA entries of one device list; returns the claim names used.
fn dra_devices<'a>(
    cx: &mut Ctx<'a>,
    key: &str,
    kind: &str,
    enabled: bool,
    reject_mixed: bool,
) -> Vec<&'a str> {
    let field = format!("{TEMPLATE_SPEC}.domain.devices.{key}");
    let devices = array_at(cx.spec, &["domain", "devices", key]);
    let has_claim = |d: &Value| is_set_at(d, &["claimName"]) || is_set_at(d, &["requestName"]);
    let is_dra = |d: &Value| str_at(d, &["deviceName"]).is_empty() && has_claim(d);
    let (dra, plain): (Vec<_>, Vec<_>) = devices.iter().enumerate().partition(|(_, d)| is_dra(d));
    if reject_mixed && !dra.is_empty() && !plain.is_empty() {
        let message = format!(
            "vmi.spec.domain.devices.{key} contains both DRA and non-DRA {kind}s; each {kind} must be either DRA or non-DRA"
        );
        cx.push(field, message);
        return Vec::new();
    }
    for (_, device) in &plain {
        if str_at(device, &["deviceName"]).is_empty() {
            let message = format!(
                "vmi.spec.domain.devices.{key} contains {kind}s without deviceName or claimRequest; each {kind} must specify either a deviceName or a claimRequest"
            );
            cx.push(field.clone(), message);
        } else if has_claim(device) {
            let message = format!(
                "vmi.spec.domain.devices.{key} contains {kind}s with both deviceName and claimRequest"
            );
            cx.push(field.clone(), message);
        }
    }
    if !dra.is_empty() && !enabled {
        cx.push(
            field,
            format!("vmi.spec.domain.devices.{key} contains DRA enabled {kind}s but feature gate is not enabled"),
        );
        return Vec::new();
    }
    let mut claims = Vec::new();
    let mut pairs = HashSet::new();
    for (idx, device) in dra {
        let (claim, request) = (
            str_at(device, &["claimName"]),
            str_at(device, &["requestName"]),
        );
        if claim.is_empty() {
            cx.push(
                format!("{field}[{idx}].claimName"),
                format!("claimName is required for DRA {kind}"),
            );
        }
        if request.is_empty() {
            cx.push(
                format!("{field}[{idx}].requestName"),
                format!("requestName is required for DRA {kind}"),
            );
        }
        if claim.is_empty() || request.is_empty() {
            continue;
        }
        claims.push(claim);
        let pair = format!("{claim}/{request}");
        if !pairs.insert(pair.clone()) {
            cx.push(
                format!("{field}[{idx}]"),
                format!("duplicate claimName/requestName pair {pair:?}"),
            );
        }
    }
    claims
}

// --- disks and volumes -----------------------------------------------------------------------

/// `validateBootOrder`: disks need a volume, LUN and downward-metrics pairing, unique boot orders.
fn boot_order(cx: &mut Ctx) {
    let volumes = array_at(cx.spec, &["volumes"]);
    let mut orders = HashSet::new();
    for (idx, disk) in cx.devices("disks").iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
        let name = str_at(disk, &["name"]);
        let volume = volumes.iter().rev().find(|v| str_at(v, &["name"]) == name);
        if volume.is_none() {
            if !is_set_at(disk, &["cdrom"]) {
                cx.push(
                    format!("{field}.name"),
                    format!("{field}.Name '{name}' not found."),
                );
            } else if !cx.gate("DeclarativeHotplugVolumes") {
                cx.push(
                    format!("{field}.name"),
                    "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk",
                );
            }
        }
        if let Some(volume) = volume {
            disk_volume_pairing(cx, &field, disk, volume);
        }
        let order = present_at(disk, &["bootOrder"]).and_then(Value::as_u64);
        if order.is_some_and(|order| !orders.insert(order)) {
            let bad = format!("{field}.bootOrder");
            cx.push(
                bad.clone(),
                format!("Boot order for {bad} already set for a different device."),
            );
        }
    }
    for (idx, iface) in cx.devices("interfaces").iter().enumerate() {
        let Some(order) = present_at(iface, &["bootOrder"]).and_then(Value::as_u64) else {
            continue;
        };
        if order < 1 {
            let message = format!("{TEMPLATE_SPEC}[{idx}] must have a boot order > 0, if supplied");
            cx.push(format!("{TEMPLATE_SPEC}[{idx}].bootOrder"), message);
        } else if !orders.insert(order) {
            let bad = iface_field(idx, "bootOrder");
            cx.push(
                bad.clone(),
                format!("Boot order for {bad} already set for a different device."),
            );
        }
    }
}

fn disk_volume_pairing(cx: &mut Ctx, field: &str, disk: &Value, volume: &Value) {
    if is_set_at(disk, &["lun"])
        && !is_set_at(volume, &["persistentVolumeClaim"])
        && !is_set_at(volume, &["dataVolume"])
    {
        let lun = format!("{field}.lun");
        cx.push(
            lun.clone(),
            format!("{lun} can only be mapped to a DataVolume or PersistentVolumeClaim volume."),
        );
    }
    if !is_set_at(volume, &["downwardMetrics"]) {
        return;
    }
    let bus = str_at(disk, &["disk", "bus"]);
    if !is_set_at(disk, &["disk"]) {
        let target = format!("{field}.disk");
        let message = format!(
            "DownwardMetrics volume must be mapped to a disk, but disk is not set on {target}."
        );
        cx.push(target, message);
    } else if !bus.is_empty() && bus != "virtio" {
        let target = format!("{field}.disk.bus");
        let message = format!(
            "DownwardMetrics volume must be mapped to virtio bus, but {target} is set to {bus}"
        );
        cx.push(target, message);
    }
}

/// `storageadmitters.ValidateDisks`.
fn disks(cx: &mut Ctx) {
    let list = cx.devices("disks");
    // KubeVirt reports a duplicate name against every earlier disk of that name; the lists'
    // length limit keeps that at most 256 * 255 / 2 causes.
    let mut earlier_by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (idx, disk) in list.iter().enumerate() {
        let name = str_at(disk, &["name"]);
        let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
        let earlier = earlier_by_name.entry(name).or_default();
        for other_idx in earlier.iter() {
            let message = format!(
                "{field} and {TEMPLATE_SPEC}.domain.devices.disks[{other_idx}] must not have the same Name."
            );
            cx.push(format!("{field}.name"), message);
        }
        earlier.push(idx);
        if count_present(disk, &["disk", "lun", "cdrom"]) > 1 {
            cx.push(
                field.clone(),
                format!("{field} can only have a single target type defined"),
            );
        }
        disk_pci_address(cx, idx, disk);
        if present_at(disk, &["bootOrder"]).and_then(Value::as_u64) == Some(0) {
            cx.push(
                format!("{field}.bootOrder"),
                format!("{field} must have a boot order > 0, if supplied"),
            );
        }
        disk_bus(cx, idx, disk);
        disk_attributes(cx, idx, disk);
        block_size(cx, idx, disk);
    }
}

/// The disk target (`disk`, `lun` or `cdrom`) and its bus.
fn disk_target(disk: &Value) -> (&'static str, &str) {
    ["disk", "lun", "cdrom"]
        .into_iter()
        .find(|key| is_set_at(disk, &[*key]))
        .map_or(("", ""), |key| (key, str_at(disk, &[key, "bus"])))
}

fn disk_pci_address(cx: &mut Ctx, idx: usize, disk: &Value) {
    let address = str_at(disk, &["disk", "pciAddress"]);
    if address.is_empty() {
        return;
    }
    let base = format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks.disk[{idx}]");
    if str_at(disk, &["disk", "bus"]) != "virtio" {
        let message = format!(
            "disk {base}.name - setting a PCI address is only possible with bus type virtio."
        );
        cx.push(format!("{base}.pciAddress"), message);
    }
    if !is_pci_address(address) {
        cx.push(
            format!("{base}.pciAddress"),
            format!("disk {base}.name has malformed PCI address ({address})."),
        );
    }
}

fn disk_bus(cx: &mut Ctx, idx: usize, disk: &Value) {
    let (target, bus) = disk_target(disk);
    if bus.is_empty() {
        return;
    }
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
    match bus {
        "ide" => cx.push(format!("{field}.{target}.bus"), "IDE bus is not supported"),
        "virtio" if target == "cdrom" => {
            cx.push(
                format!("{field}.cdrom.bus"),
                format!("Bus type {bus} is invalid for CD-ROM device"),
            );
        }
        "sata" if bool_at(disk, &["disk", "readOnly"]) == Some(true) => {
            cx.push(
                format!("{field}.disk.bus"),
                format!("{bus} hard-disks do not support read-only."),
            );
        }
        "virtio" | "sata" | "scsi" | "usb" => {}
        _ => {
            let message = format!(
                "{field} is set with an unrecognized bus {bus}, must be one of: [virtio scsi sata usb]"
            );
            cx.push(format!("{field}.{target}.bus"), message);
        }
    }
    if bool_at(disk, &["dedicatedIOThread"]) == Some(true) && bus != "virtio" {
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}]"),
            format!("IOThreads are not supported for disks on a {bus} bus"),
        );
    }
}

fn disk_attributes(cx: &mut Ctx, idx: usize, disk: &Value) {
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}]");
    let serial = str_at(disk, &["serial"]);
    if !serial.is_empty()
        && !serial
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.+-".contains(&b))
    {
        let message = format!(
            "{field} must be made up of the following characters [A-Za-z0-9_.+-], if specified"
        );
        cx.push(format!("{field}.serial"), message);
    }
    if serial.chars().count() > 256 {
        let message = format!("{field} must be less than or equal to 256 in length, if specified");
        cx.push(format!("{field}.serial"), message);
    }
    let cache = str_at(disk, &["cache"]);
    if !matches!(cache, "" | "none" | "writethrough" | "writeback") {
        cx.push(
            format!("{field}.cache"),
            format!("{field}.cache has invalid value {cache}"),
        );
    }
    let io = str_at(disk, &["io"]);
    if !matches!(io, "" | "native" | "threads") {
        let message = format!(
            "Disk IO mode for {TEMPLATE_SPEC}.domain.devices.disks is not supported. Supported modes are: native, threads."
        );
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}].io"),
            message,
        );
    }
    if let Some(policy) = present_at(disk, &["errorPolicy"]) {
        let policy = policy.as_str().unwrap_or("");
        if !matches!(policy, "stop" | "ignore" | "report" | "enospace") {
            cx.push(
                format!("{field}.errorPolicy"),
                format!("{field}.errorPolicy has invalid value \"{policy}\""),
            );
        }
    }
    for error in dns1123_label(str_at(disk, &["name"])) {
        cx.push(
            format!("{TEMPLATE_SPEC}.domain.devices.disks.domain.devices.disks[{idx}].name"),
            error,
        );
    }
}

fn block_size(cx: &mut Ctx, idx: usize, disk: &Value) {
    let Some(custom) = present_at(disk, &["blockSize", "custom"]) else {
        return;
    };
    let field = format!("{TEMPLATE_SPEC}.domain.devices.disks[{idx}].blockSize");
    if is_set_at(disk, &["blockSize", "matchVolume"])
        && bool_at(disk, &["blockSize", "matchVolume", "enabled"]) != Some(false)
    {
        cx.push(
            field,
            "Block size matching can't be enabled together with a custom value",
        );
        return;
    }
    let (logical, physical) = (u64_at(custom, &["logical"]), u64_at(custom, &["physical"]));
    let discard = present_at(custom, &["discardGranularity"]).and_then(Value::as_u64);
    if logical > physical {
        let message = format!(
            "Logical size {logical} must be the same or less than the physical size of {physical}"
        );
        cx.push(format!("{field}.custom.logical"), message);
    } else if disk_target(disk).1 == "sata" && logical != 512 {
        cx.push(
            format!("{field}.custom.logical"),
            format!("Logical size {logical} must be 512 for SATA devices"),
        );
    } else if let Some(discard) = discard.filter(|d| logical != 0 && d % logical != 0) {
        let message =
            format!("Discard granularity {discard} must be multiples of logical size {logical}");
        cx.push(format!("{field}.custom.discardGranularity"), message);
    } else {
        for (size, key) in [(logical, "logical"), (physical, "physical")] {
            let message = if size < 512 {
                format!("Provided size of {size} is less than the supported minimum size of 512")
            } else if size > 2_097_152 {
                format!(
                    "Provided size of {size} is greater than the supported maximum size of 2097152"
                )
            } else if !size.is_power_of_two() {
                format!("Provided size of {size} is not a power of 2")
            } else {
                continue;
            };
            cx.push(format!("{field}.custom.{key}"), message);
        }
    }
}

const VOLUME_SOURCES: &[&str] = &[
    "persistentVolumeClaim",
    "sysprep",
    "cloudInitNoCloud",
    "cloudInitConfigDrive",
    "containerDisk",
    "ephemeral",
    "emptyDisk",
    "hostDisk",
    "dataVolume",
    "configMap",
    "secret",
    "downwardAPI",
    "serviceAccount",
    "downwardMetrics",
    "memoryDump",
    "containerPath",
];

/// `validateVolumes`.
fn volumes(cx: &mut Ctx) {
    let list = array_at(cx.spec, &["volumes"]);
    let mut first_by_name: HashMap<&str, usize> = HashMap::new();
    for (idx, volume) in list.iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.volumes[{idx}]");
        let name = str_at(volume, &["name"]);
        let first = *first_by_name.entry(name).or_insert(idx);
        if first != idx {
            let message = format!(
                "{field} and {TEMPLATE_SPEC}.volumes[{first}] must not have the same Name."
            );
            cx.push(format!("{field}.name"), message);
        }
        if is_set_at(volume, &["dataVolume"]) && str_at(volume, &["dataVolume", "name"]).is_empty()
        {
            cx.push(format!("{field}.name"), "DataVolume 'name' must be set");
        }
        if count_present(volume, VOLUME_SOURCES) != 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one source type set"),
            );
        }
        cloud_init(cx, &field, volume);
        volume_sources(cx, &field, volume);
    }
    for (key, what) in [
        ("serviceAccount", "serviceAccount"),
        ("downwardMetrics", "downwardMetric"),
        ("memoryDump", "memory dump"),
    ] {
        if list.iter().filter(|v| is_set_at(v, &[key])).count() > 1 {
            let field = ts!("volumes");
            cx.push(
                field,
                format!("{field} must have max one {what} volume set"),
            );
        }
    }
}

fn volume_sources(cx: &mut Ctx, field: &str, volume: &Value) {
    if is_set_at(volume, &["downwardMetrics"]) && !cx.gate("DownwardMetrics") {
        cx.push(
            field,
            "downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled.",
        );
    }
    if let Some(disk) = present_at(volume, &["hostDisk"]) {
        host_disk(cx, field, disk);
    }
    for (source, key) in [
        ("configMap", "name"),
        ("secret", "secretName"),
        ("serviceAccount", "serviceAccountName"),
    ] {
        if is_set_at(volume, &[source]) && str_at(volume, &[source, key]).is_empty() {
            let required = format!("{field}.{source}.{key}");
            cx.push(required.clone(), format!("{required} is a required field"));
        }
    }
}

fn host_disk(cx: &mut Ctx, field: &str, disk: &Value) {
    if !cx.gate("HostDisk") {
        cx.push(field, "HostDisk feature gate is not enabled");
    }
    if str_at(disk, &["path"]).is_empty() {
        let path = format!("{field}.hostDisk.path");
        cx.push(
            path.clone(),
            format!("{path} is required for hostDisk volume"),
        );
    }
    let kind = str_at(disk, &["type"]);
    let type_field = format!("{field}.hostDisk.type");
    if !matches!(kind, "Disk" | "DiskOrCreate") {
        let message = format!(
            "{type_field} has invalid value '{kind}', allowed are 'Disk' or 'DiskOrCreate'"
        );
        cx.push(type_field.clone(), message);
    }
    let capacity = Quantity::at(disk, &["capacity"]).is_some_and(|c| !c.is_zero());
    if kind == "Disk" && capacity {
        let capacity_field = format!("{field}.hostDisk.capacity");
        let message = format!(
            "{capacity_field} is allowed to pass only with {type_field} equal to 'DiskOrCreate'"
        );
        cx.push(capacity_field, message);
    }
}

/// Go's `base64.StdEncoding.DecodeString`: the decoded length, and whether the input was valid.
fn base64_decoded_len(input: &str) -> (usize, bool) {
    let symbols: Vec<u8> = input
        .bytes()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    let is_symbol = |b: &&u8| b.is_ascii_alphanumeric() || **b == b'+' || **b == b'/';
    let mut decoded = 0;
    let mut chunks = symbols.chunks(4).peekable();
    while let Some(chunk) = chunks.next() {
        let data = chunk.iter().take_while(is_symbol).count();
        if data == 4 {
            decoded += 3;
            continue;
        }
        // A short quantum ends the input, padded with `=` to four symbols.
        let padded = chunk.len() == 4 && data >= 2 && chunk[data..].iter().all(|b| *b == b'=');
        return if padded && chunks.peek().is_none() {
            (decoded + data - 1, true)
        } else {
            (decoded, false)
        };
    }
    (decoded, true)
}

/// The size limits and single-source rules of a cloud-init volume.
fn cloud_init(cx: &mut Ctx, field: &str, volume: &Value) {
    let Some((kind, source)) = ["cloudInitNoCloud", "cloudInitConfigDrive"]
        .into_iter()
        .find_map(|kind| present_at(volume, &[kind]).map(|source| (kind, source)))
    else {
        return;
    };
    let base = format!("{field}.{kind}");
    let user = cloud_init_data(
        cx,
        &base,
        source,
        ["secretRef", "userDataBase64", "userData"],
    );
    if user.sources > 1 {
        cx.push(
            base.clone(),
            format!("{base} must have only one userdatasource set."),
        );
    }
    if user.len > 2048 {
        let message = format!(
            "{base} userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data."
        );
        cx.push(base.clone(), message);
    }
    let network = cloud_init_data(
        cx,
        &base,
        source,
        ["networkDataSecretRef", "networkDataBase64", "networkData"],
    );
    if network.sources > 1 {
        cx.push(
            base.clone(),
            format!("{base} must have only one networkdata source set."),
        );
    }
    if network.len > 2048 {
        let message = format!(
            "{base} networkdata exceeds 2048 byte limit. Should use NetworkDataSecretRef for larger data."
        );
        cx.push(base.clone(), message);
    }
    if user.sources == 0 && network.sources == 0 {
        cx.push(
            base.clone(),
            format!("{base} must have at least one userdatasource or one networkdatasource set."),
        );
    }
}

struct CloudInitData {
    sources: usize,
    len: usize,
}

fn cloud_init_data(
    cx: &mut Ctx,
    base: &str,
    source: &Value,
    [secret, encoded, plain]: [&str; 3],
) -> CloudInitData {
    let mut data = CloudInitData { sources: 0, len: 0 };
    if !str_at(source, &[secret, "name"]).is_empty() {
        data.sources += 1;
    }
    let encoded_text = str_at(source, &[encoded]);
    if !encoded_text.is_empty() {
        data.sources += 1;
        let (len, valid) = base64_decoded_len(encoded_text);
        if !valid {
            let kind = base.rsplit('.').next().unwrap_or("");
            let field = format!("{base}.{encoded}");
            cx.push(
                field.clone(),
                format!("{field}.{kind}.{encoded} is not a valid base64 value."),
            );
        }
        data.len = len;
    }
    let plain_text = str_at(source, &[plain]);
    if !plain_text.is_empty() {
        data.sources += 1;
        data.len = plain_text.len();
    }
    data
}

fn container_disk_paths(cx: &mut Ctx) {
    for (idx, volume) in array_at(cx.spec, &["volumes"]).iter().enumerate() {
        let path = str_at(volume, &["containerDisk", "path"]);
        if !path.is_empty() {
            let field = format!("{TEMPLATE_SPEC}.volumes[{idx}].containerDisk");
            cx.causes.extend(validate_path(&field, path));
        }
    }
}

fn utility_volumes(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["utilityVolumes"]) {
        cx.push(
            ts!("utilityVolumes"),
            "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug",
        );
    }
}

// --- remaining devices and settings ----------------------------------------------------------

fn input_devices(cx: &mut Ctx) {
    for (idx, input) in cx.devices("inputs").iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.domain.devices.inputs[{idx}]");
        if !matches!(str_at(input, &["bus"]), "" | "virtio" | "usb") {
            cx.push(
                format!("{field}.bus"),
                "Input device can have only virtio or usb bus.",
            );
        }
        if str_at(input, &["type"]) != "tablet" {
            cx.push(
                format!("{field}.type"),
                "Input device can have only tablet type.",
            );
        }
    }
}

fn io_threads_policy(cx: &mut Ctx) {
    let Some(policy) = present_at(cx.spec, &["domain", "ioThreadsPolicy"]) else {
        return;
    };
    let policy = policy.as_str().unwrap_or("");
    // The supplemental pool arrived in v1.5, together with its thread count check.
    let pool_known = cx.profile.version.at_least(1, 5);
    let valid = matches!(policy, "shared" | "auto") || (pool_known && policy == "supplementalPool");
    if !valid {
        cx.push(
            ts!("domain.ioThreadsPolicy"),
            format!("Invalid IOThreadsPolicy ({policy})"),
        );
    }
    if !pool_known {
        return;
    }
    let count = present_at(
        cx.spec,
        &["domain", "ioThreads", "supplementalPoolThreadCount"],
    )
    .and_then(Value::as_u64);
    if policy == "supplementalPool" && count.is_none_or(|c| c < 1) {
        cx.push(
            ts!("domain.ioThreads.count"),
            "the number of iothreads needs to be set and positive for the dedicated policy",
        );
    }
}

fn probes(cx: &mut Ctx) {
    for key in ["readinessProbe", "livenessProbe"] {
        let Some(probe) = present_at(cx.spec, &[key]) else {
            continue;
        };
        let field = format!("{TEMPLATE_SPEC}.{key}");
        let handlers = count_present(probe, &["httpGet", "tcpSocket", "exec", "guestAgentPing"]);
        if handlers > 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one probe type set"),
            );
        }
        if handlers < 1 {
            let message = format!(
                "either {field}.tcpSocket, {field}.exec or {field}.httpGet must be set if a {field} is specified"
            );
            cx.push(field, message);
        }
    }
    if array_at(cx.spec, &["networks"])
        .iter()
        .any(|n| is_set_at(n, &["pod"]))
    {
        return;
    }
    for key in ["readinessProbe", "livenessProbe"] {
        for handler in ["httpGet", "tcpSocket"] {
            if is_set_at(cx.spec, &[key, handler]) {
                let field = format!("{TEMPLATE_SPEC}.{key}.{handler}");
                cx.push(
                    field.clone(),
                    format!("{field} is only allowed if the Pod Network is attached"),
                );
            }
        }
    }
}

fn access_credentials(cx: &mut Ctx) {
    if !cx.profile.version.at_least(1, 3) && list_limits::exceeds(cx.spec, List::AccessCredentials)
    {
        let cause = list_limits::webhook_cause(TEMPLATE_SPEC, List::AccessCredentials);
        cx.causes.push(cause);
        return;
    }
    let volumes = array_at(cx.spec, &["volumes"]);
    let no_cloud = volumes.iter().any(|v| is_set_at(v, &["cloudInitNoCloud"]));
    let config_drive = volumes
        .iter()
        .any(|v| is_set_at(v, &["cloudInitConfigDrive"]));
    for (idx, credential) in array_at(cx.spec, &["accessCredentials"]).iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.accessCredentials[{idx}]");
        let mut types = 0;
        if let Some(ssh) = present_at(credential, &["sshPublicKey"]) {
            types += 1;
            let method = format!("{field}.sshPublicKey.propagationMethod");
            if is_set_at(ssh, &["propagationMethod", "noCloud"]) && !no_cloud {
                let message = format!(
                    "{field} requires a noCloud volume to exist when the noCloud propagationMethod is in use."
                );
                cx.push(method.clone(), message);
            }
            if is_set_at(ssh, &["propagationMethod", "configDrive"]) && !config_drive {
                let message = format!(
                    "{field} requires a configDrive volume to exist when the configDrive propagationMethod is in use."
                );
                cx.push(method.clone(), message);
            }
            let agent = is_set_at(ssh, &["propagationMethod", "qemuGuestAgent"]);
            if agent && array_at(ssh, &["propagationMethod", "qemuGuestAgent", "users"]).is_empty()
            {
                cx.push(
                    format!("{method}.qemuGuestAgent.users"),
                    format!("{field} requires at least one user to be present in the users list"),
                );
            }
            credential_shape(
                cx,
                &field,
                "sshPublicKey",
                ssh,
                &["noCloud", "configDrive", "qemuGuestAgent"],
            );
        }
        if let Some(password) = present_at(credential, &["userPassword"]) {
            types += 1;
            credential_shape(cx, &field, "userPassword", password, &["qemuGuestAgent"]);
        }
        if types != 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one access credential type set"),
            );
        }
    }
}

fn credential_shape(cx: &mut Ctx, field: &str, kind: &str, credential: &Value, methods: &[&str]) {
    if !is_set_at(credential, &["source", "secret"]) {
        cx.push(
            format!("{field}.{kind}.source"),
            format!("{field} must have exactly one source set"),
        );
    }
    let method = present_at(credential, &["propagationMethod"]).unwrap_or(&Value::Null);
    if count_present(method, methods) != 1 {
        cx.push(
            format!("{field}.{kind}.propagationMethod"),
            format!("{field} must have exactly one propagationMethod set"),
        );
    }
}

fn dns(cx: &mut Ctx) {
    let policy = str_at(cx.spec, &["dnsPolicy"]);
    if !matches!(
        policy,
        "" | "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None"
    ) {
        cx.push(
            ts!("dnsPolicy"),
            format!("DNSPolicy: {policy} is not supported, valid values: [ClusterFirstWithHostNet ClusterFirst Default None ]"),
        );
    }
    let config = present_at(cx.spec, &["dnsConfig"]);
    let nameservers = config
        .map(|c| strs_at(c, &["nameservers"]))
        .unwrap_or_default();
    if policy == "None" {
        if config.is_none() {
            cx.push(
                ts!("dnsConfig"),
                "must provide `dnsConfig` when `dnsPolicy` is None",
            );
            return;
        }
        if nameservers.is_empty() {
            cx.push(
                "nameservers",
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            );
            return;
        }
    }
    let Some(config) = config else {
        return;
    };
    if nameservers.len() > 3 {
        cx.push(
            "nameservers",
            format!(
                "must not have more than 3 nameservers: {}",
                go_list(&nameservers)
            ),
        );
    }
    for server in &nameservers {
        if server.parse::<IpAddr>().is_err() {
            cx.push("nameservers", format!("must be valid IP address: {server}"));
        }
    }
    let searches = strs_at(config, &["searches"]);
    if searches.len() > 6 {
        cx.push("searchDomains", "must not have more than 6 search paths");
    }
    if searches.join(" ").len() > 256 {
        cx.push(
            "searchDomains",
            "must not have more than 256 characters (including spaces) in the search list",
        );
    }
    for search in &searches {
        for error in dns1123_subdomain(search) {
            cx.push("searchDomains", error);
        }
    }
    for option in array_at(config, &["options"]) {
        if str_at(option, &["name"]).is_empty() {
            cx.push("options", "Option.Name must not be empty");
        }
    }
}

fn eviction_strategy(cx: &mut Ctx) {
    let Some(strategy) =
        present_at(cx.spec, &["evictionStrategy"]).map(|s| s.as_str().unwrap_or(""))
    else {
        return;
    };
    if !matches!(
        strategy,
        "LiveMigrate" | "LiveMigrateIfPossible" | "None" | "External"
    ) {
        let field = ts!("evictionStrategy");
        cx.push(
            field,
            format!("{field} is set with an unrecognized option: {strategy}"),
        );
    }
}

fn mdev_ramfb(cx: &mut Ctx) {
    let enabled = |gpu: &&Value| {
        let display = present_at(gpu, &["virtualGPUOptions", "display"]);
        display.is_some_and(|d| {
            bool_at(d, &["enabled"]) != Some(false)
                && bool_at(d, &["ramFB", "enabled"]) != Some(false)
        })
    };
    if cx.devices("gpus").iter().filter(enabled).count() > 1 {
        cx.push(
            ts!("GPUs"),
            "configuring multiple displays with ramfb is not valid ",
        );
    }
}

fn host_devices(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "devices", "hostDevices"]) && !cx.gate("HostDevices") {
        cx.push(
            ts!("HostDevices"),
            "Host Devices feature gate is not enabled in kubevirt-config",
        );
    }
}

fn sound(cx: &mut Ctx) {
    let Some(sound) = present_at(cx.spec, &["domain", "devices", "sound"]) else {
        return;
    };
    if !matches!(str_at(sound, &["model"]), "" | "ich9" | "ac97") {
        cx.push(
            ts!("Sound"),
            "Sound device type is not supported. Options: 'ich9' or 'ac97'",
        );
    }
    if str_at(sound, &["name"]).is_empty() {
        cx.push(ts!("Sound"), "Sound device requires a name field.");
    }
}

fn launch_security(cx: &mut Ctx) {
    let Some(security) = present_at(cx.spec, &["domain", "launchSecurity"]) else {
        return;
    };
    match architecture(cx.spec, cx.profile) {
        "amd64" => launch_security_amd64(cx, security),
        "s390x" => {}
        arch => cx.push(
            ts!("architecture"),
            format!("No launchSecurity support for architecture: {arch}"),
        ),
    }
}

/// `webhooks.ValidateLaunchSecurityAmd64`.
fn launch_security_amd64(cx: &mut Ctx, security: &Value) {
    let field = ts!("launchSecurity");
    let selected: Vec<&str> = ["sev", "snp", "tdx"]
        .into_iter()
        .filter(|key| is_set_at(security, &[*key]))
        .collect();
    let [kind] = selected.as_slice() else {
        cx.push(field, "One and only one launchSecurity type can be set");
        return;
    };
    let (name, gate_name) = match *kind {
        "sev" => ("SEV", "WorkloadEncryptionSEV"),
        "snp" => ("SNP", "WorkloadEncryptionSEV"),
        _ => ("TDX", "WorkloadEncryptionTDX"),
    };
    if !cx.gate(gate_name) {
        cx.push(
            field,
            format!("{gate_name} feature gate is not enabled in kubevirt-config"),
        );
        return;
    }
    let smm = is_set_at(cx.spec, &["domain", "features", "smm"])
        && bool_at(cx.spec, &["domain", "features", "smm", "enabled"]) != Some(false);
    if name == "TDX" && smm {
        cx.push(field, "TDX does not work along with SMM");
    }
    match present_at(cx.spec, &["domain", "firmware", "bootloader", "efi"]) {
        None => cx.push(field, format!("{name} requires OVMF (UEFI)")),
        Some(efi) => {
            if name != "TDX" && bool_at(efi, &["secureBoot"]) != Some(false) {
                cx.push(field, format!("{name} does not work along with SecureBoot"));
            }
            if name != "SEV" && bool_at(efi, &["persistent"]) == Some(true) {
                cx.push(
                    field,
                    format!("{name} does not work along with Persistent EFI variables"),
                );
            }
        }
    }
    let paused = str_at(cx.spec, &["startStrategy"]) == "Paused";
    if name == "SEV" && !paused && is_set_at(security, &["sev", "attestation"]) {
        cx.push(field, "SEV attestation requires VMI StartStrategy 'Paused'");
    }
    for iface in cx.devices("interfaces") {
        if is_set_at(iface, &["bootOrder"]) {
            let message = format!(
                "{name} does not work with bootable NICs: {}",
                str_at(iface, &["name"])
            );
            cx.causes.push(Cause::new(field, message));
        }
    }
}

fn vsock(cx: &mut Ctx) {
    let wanted = bool_at(cx.spec, &["domain", "devices", "autoattachVSOCK"]) == Some(true);
    if wanted && !cx.gate("VSOCK") {
        cx.push(
            ts!("domain.devices.autoattachVSOCK"),
            "VSOCK feature gate is not enabled in kubevirt-config",
        );
    }
}

fn persistent_reservation(cx: &mut Ctx) {
    let wanted = cx
        .devices("disks")
        .iter()
        .any(|d| is_set_at(d, &["lun"]) && bool_at(d, &["lun", "reservation"]) == Some(true));
    if wanted && !cx.profile.persistent_reservation_enabled() {
        cx.push(
            ts!("domain.devices.disks.luns.reservation"),
            if cx.profile.version.at_least(1, 9) {
                "persistent reservation is not enabled in kubevirt config"
            } else {
                "PersistentReservation feature gate is not enabled in kubevirt-config"
            },
        );
    }
}

fn downward_metrics(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "devices", "downwardMetrics"]) && !cx.gate("DownwardMetrics")
    {
        cx.push(
            ts!("domain.devices.downwardMetrics"),
            "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled",
        );
    }
}

fn virtiofs(cx: &mut Ctx) {
    let volumes = array_at(cx.spec, &["volumes"]);
    for filesystem in cx.devices("filesystems") {
        let name = str_at(filesystem, &["name"]);
        let Some(volume) = volumes.iter().rev().find(|v| str_at(v, &["name"]) == name) else {
            continue;
        };
        let storage =
            is_set_at(volume, &["persistentVolumeClaim"]) || is_set_at(volume, &["dataVolume"]);
        if storage && !cx.gate("EnableVirtioFsStorageVolumes") {
            cx.push(
                ts!("domain.devices.filesystems"),
                "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC",
            );
        }
    }
}

fn video(cx: &mut Ctx) {
    let video = is_set_at(cx.spec, &["domain", "devices", "video"]);
    if video && gated_before_v1_9(cx, "VideoConfig") {
        let message =
            "Video configuration is specified but the VideoConfig feature gate is not enabled";
        cx.push(ts!("video"), message);
        return;
    }
    if video && bool_at(cx.spec, &["domain", "devices", "autoattachGraphicsDevice"]) == Some(false)
    {
        cx.push(
            ts!("video"),
            "Video configuration is not allowed when autoattachGraphicsDevice is set to false",
        );
    }
}

fn panic_devices(cx: &mut Ctx) {
    let devices = cx.devices("panicDevices");
    if devices.is_empty() {
        return;
    }
    if gated_before_v1_9(cx, "PanicDevices") {
        cx.push(
            ts!("domain.devices.panicDevices"),
            "Panic Devices feature gate is not enabled in kubevirt-config",
        );
        return;
    }
    let arch = architecture(cx.spec, cx.profile);
    if arch == "s390x" {
        cx.push(
            ts!("domain.devices.panicDevices"),
            format!("custom panic devices are not supported on {arch} architecture"),
        );
    }
    for (idx, device) in devices.iter().enumerate() {
        let Some(model) = present_at(device, &["model"]) else {
            continue;
        };
        let model = model.as_str().unwrap_or("");
        if !matches!(model, "hyperv" | "isa" | "pvpanic") {
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.devices.panicDevices[{idx}].model"),
                format!("invalid PanicDeviceModel({model})"),
            );
        }
    }
}

/// A feature introduced behind a gate in v1.6 that v1.9 made GA: before v1.9 it needs the gate.
fn gated_before_v1_9(cx: &Ctx, name: &str) -> bool {
    cx.profile.version.at_least(1, 6) && !cx.profile.version.at_least(1, 9) && !cx.gate(name)
}

/// Before v1.8, an architecture other than the control plane's needs the `MultiArchitecture` gate.
fn architecture_gate(cx: &mut Ctx) {
    let arch = str_at(cx.spec, &["architecture"]);
    if cx.profile.version.at_least(1, 8)
        || arch.is_empty()
        || arch == CONTROL_PLANE_ARCH
        || cx.gate("MultiArchitecture")
    {
        return;
    }
    let field = ts!("architecture");
    cx.push(
        field,
        format!("MultiArchitecture feature gate is not enabled in kubevirt-config, invalid entry {field}"),
    );
}

/// Before v1.6, persistent TPM and EFI state need the `VMPersistentState` gate.
fn persistent_state(cx: &mut Ctx) {
    if cx.profile.version.at_least(1, 6) || cx.gate("VMPersistentState") {
        return;
    }
    let tpm = is_set_at(cx.spec, &["domain", "devices", "tpm"])
        && bool_at(cx.spec, &["domain", "devices", "tpm", "persistent"]) == Some(true);
    let efi = bool_at(
        cx.spec,
        &["domain", "firmware", "bootloader", "efi", "persistent"],
    ) == Some(true);
    let message = "VMPersistentState feature gate is not enabled in kubevirt-config";
    if tpm {
        cx.push(ts!("domain.devices.tpm.persistent"), message);
    }
    if efi {
        cx.push(ts!("domain.firmware.bootloader.efi.persistent"), message);
    }
}

fn reboot_policy(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "rebootPolicy"]) && !cx.gate("RebootPolicy") {
        cx.push(
            ts!("domain.rebootPolicy"),
            "RebootPolicy is specified but the RebootPolicy feature gate is not enabled",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::cluster::profile::KubeVirtVersion;

    /// A defaulted VM that every check accepts.
    fn base_vm() -> Value {
        json!({
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "vm"},
            "spec": {
                "runStrategy": "Halted",
                "template": {
                    "metadata": {},
                    "spec": {
                        "architecture": "amd64",
                        "evictionStrategy": "None",
                        "domain": {
                            "cpu": {"sockets": 1, "cores": 1, "threads": 1},
                            "memory": {"guest": "1Gi"},
                            "machine": {"type": "q35"},
                            "resources": {},
                            "devices": {
                                "disks": [{"name": "root", "disk": {"bus": "virtio"}}],
                                "interfaces": [{"name": "default", "masquerade": {}}]
                            }
                        },
                        "networks": [{"name": "default", "pod": {}}],
                        "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}]
                    }
                }
            }
        })
    }

    /// JSON merge patch (RFC 7386).
    fn merge(target: &mut Value, patch: &Value) {
        let Value::Object(patch) = patch else {
            *target = patch.clone();
            return;
        };
        if !target.is_object() {
            *target = json!({});
        }
        if let Value::Object(object) = target {
            for (key, value) in patch {
                if value.is_null() {
                    object.remove(key);
                } else {
                    merge(object.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
        }
    }

    fn profile(version: (u32, u32), gates: &[&str]) -> ClusterProfile {
        let mut profile = ClusterProfile::new(KubeVirtVersion::new(version.0, version.1));
        profile.feature_gates = gates.iter().map(|g| (*g).to_owned()).collect();
        profile
    }

    fn run_vm(vm_patch: &Value, profile: &ClusterProfile, create: bool) -> Vec<(String, String)> {
        let mut vm = base_vm();
        merge(&mut vm, vm_patch);
        validate(&vm, profile, create)
            .into_iter()
            .map(|c| (c.field, c.message))
            .collect()
    }

    /// Causes for the base VM with `patch` merged into `spec.template.spec`, at v1.9 on CREATE.
    fn run(patch: &Value) -> Vec<(String, String)> {
        run_with(patch, &ClusterProfile::default())
    }

    fn run_with(patch: &Value, profile: &ClusterProfile) -> Vec<(String, String)> {
        run_vm(
            &json!({"spec": {"template": {"spec": patch}}}),
            profile,
            true,
        )
    }

    fn one(field: &str, message: &str) -> Vec<(String, String)> {
        vec![(field.to_owned(), message.to_owned())]
    }

    #[test]
    fn accepts_the_base_vm() {
        assert_eq!(run(&json!({})), Vec::new());
        assert_eq!(
            run_vm(&json!({}), &ClusterProfile::default(), false),
            Vec::new()
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
    fn run_strategy() {
        let default = ClusterProfile::default();
        assert_eq!(
            run_vm(&json!({"spec": {"runStrategy": null}}), &default, true),
            one("spec.running", "RunStrategy must be specified")
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": null, "running": false}}),
                &default,
                true
            ),
            Vec::new()
        );
        assert_eq!(
            run_vm(&json!({"spec": {"running": true}}), &default, true),
            one(
                "spec.running",
                "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead"
            )
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": "Sometimes"}}),
                &default,
                true
            ),
            one("spec.runStrategy", "Invalid RunStrategy (Sometimes)")
        );
        assert_eq!(
            run_vm(
                &json!({"spec": {"runStrategy": "RerunOnFailure"}}),
                &default,
                true
            ),
            Vec::new()
        );
        let wait = json!({"spec": {"runStrategy": "WaitAsReceiver"}});
        assert_eq!(
            run_vm(
                &wait,
                &profile((1, 9), &["DecentralizedLiveMigration"]),
                true
            ),
            Vec::new()
        );
        assert_eq!(
            run_vm(&wait, &default, true),
            one(
                "spec.runStrategy",
                "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource"
            )
        );
        assert_eq!(
            run_vm(&wait, &profile((1, 8), &[]), true),
            one(
                "spec.runStrategy",
                "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource"
            )
        );
    }

    #[test]
    fn discontinued_bindings_answer_alone_on_create() {
        let patch =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "slirp": {}}]}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.template.spec.domain.devices.interfaces[0].slirp",
                "Slirp interface support has been discontinued since v1.3"
            )
        );
        let update = run_vm(
            &json!({"spec": {"template": {"spec": patch}}}),
            &ClusterProfile::default(),
            false,
        );
        assert_eq!(
            update,
            one(
                "spec.template.spec.domain.devices.interfaces[0]",
                "logical default interface must have exactly one binding method or binding plugin"
            )
        );
        let passt =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "passt": {}}]}}});
        assert_eq!(
            run_with(&passt, &profile((1, 9), &["Passt"])),
            one(
                "",
                "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives."
            )
        );
    }

    #[test]
    fn template_metadata() {
        let default = ClusterProfile::default();
        let labelled = json!({"spec": {"template": {"metadata": {"labels": {"kubevirt.io/nodeName": "n1", "app": "x"}}}}});
        assert_eq!(
            run_vm(&labelled, &default, true),
            one(
                "spec.template.metadata.labels",
                "creation of the following reserved kubevirt.io/ labels on a VMI object is prohibited"
            )
        );
        let ignition = json!({"spec": {"template": {"metadata": {"annotations": {"kubevirt.io/ignitiondata": "{}"}}}}});
        assert_eq!(
            run_vm(&ignition, &default, true),
            one(
                "spec.template.metadata.annotations",
                "ExperimentalIgnitionSupport feature gate is not enabled in kubevirt-config, invalid entry spec.template.metadata.annotations.kubevirt.io/ignitiondata"
            )
        );
        assert_eq!(
            run_vm(
                &ignition,
                &profile((1, 9), &["ExperimentalIgnitionSupport"]),
                true
            ),
            Vec::new()
        );
    }

    #[test]
    fn data_volume_templates() {
        let default = ClusterProfile::default();
        let template = |spec: Value| json!({"spec": {"dataVolumeTemplates": [{"metadata": {"name": "root-dv"}, "spec": spec}]}});
        let source = json!({"sourceRef": {"kind": "DataSource", "name": "fedora"}, "storage": {}});
        assert_eq!(
            run_vm(&template(source.clone()), &default, true),
            one(
                "spec.dataVolumeTemplate[0]",
                "DataVolumeTemplate entry spec.dataVolumeTemplate[0] must be referenced in the VMI template's 'volumes' list"
            )
        );
        let mut referenced = template(source);
        merge(
            &mut referenced,
            &json!({"spec": {"template": {"spec": {"volumes": [{"name": "root", "dataVolume": {"name": "root-dv"}}]}}}}),
        );
        assert_eq!(run_vm(&referenced, &default, true), Vec::new());
        assert_eq!(
            run_vm(
                &template(json!({"source": {"http": {}, "blank": {}}, "pvc": {}})),
                &default,
                true
            ),
            one(
                "spec.dataVolumeTemplate[0].source",
                "Multiple dataVolume sources"
            )
        );
        assert_eq!(
            run_vm(&template(json!({"source": {"blank": {}}})), &default, true),
            one(
                "spec.dataVolumeTemplate[0].PVC.Storage",
                "Missing Data volume PVC or Storage"
            )
        );
    }

    #[test]
    fn hostname_and_subdomain() {
        assert_eq!(
            run(&json!({"hostname": "my-vm", "subdomain": "a.b"})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"hostname": "My_VM"})),
            one(
                "spec.template.spec.hostname",
                "spec.template.spec.hostname does not conform to the kubernetes DNS_LABEL rules : a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            )
        );
        assert_eq!(
            run(&json!({"hostname": "vm.example"})),
            one(
                "spec.template.spec.hostname",
                "spec.template.spec.hostname does not conform to the kubernetes DNS_LABEL rules : must not contain dots"
            )
        );
    }

    #[test]
    fn memory_requests_and_limits() {
        let field = "spec.template.spec.domain.resources.requests.memory";
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"memory": "-1Gi"}}}})),
            one(
                field,
                &format!("{field} '-1Gi': must be greater than or equal to 0.")
            )
        );
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"memory": "512Ki"}}}})),
            one(
                field,
                &format!("{field} '512Ki': must be greater than or equal to 1M.")
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}}}})
            ),
            one(
                field,
                &format!(
                    "{field} '2Gi' is greater than spec.template.spec.domain.resources.limits.memory '1Gi'"
                )
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn hugepages() {
        let field = "spec.template.spec.domain.resources.requests.memory";
        let patch = |request: &str, size: &str| json!({"domain": {"resources": {"requests": {"memory": request}}, "memory": {"guest": "2Gi", "hugepages": {"pageSize": size}}}});
        assert_eq!(run(&patch("2Gi", "2Mi")), Vec::new());
        assert_eq!(
            run(&patch("1932735232", "2Mi")),
            one(
                field,
                &format!(
                    "{field} '1932735232' is not a multiple of the page size spec.template.spec.domain.memory.hugepages.pageSize '2Mi'"
                )
            )
        );
        assert_eq!(
            run_with(&patch("1932735232", "2Mi"), &profile((1, 7), &[])),
            one(
                field,
                &format!(
                    "{field} '1932735232' is not a multiple of the page size spec.template.spec.domain.hugepages.size '2Mi'"
                )
            )
        );
        assert_eq!(
            run(&patch("1Mi", "1Gi")),
            one(
                field,
                &format!(
                    "{field} '1Mi' must be equal to or larger than page size spec.template.spec.domain.memory.hugepages.pageSize '1Gi'"
                )
            )
        );
        assert_eq!(
            run(&patch("2Gi", "big")),
            one(
                "spec.template.spec.domain.memory.hugepages.pageSize",
                "spec.template.spec.domain.memory.hugepages.pageSize 'big': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            )
        );
    }

    #[test]
    fn guest_memory_limit_before_live_update() {
        let patch = json!({"domain": {"memory": {"guest": "2Gi"}, "resources": {"limits": {"memory": "1Gi"}}}});
        assert_eq!(run(&patch), Vec::new());
        assert_eq!(
            run_with(&patch, &profile((1, 5), &[])),
            one(
                "spec.template.spec.domain.memory.guest",
                "spec.template.spec.domain.memory.guest '2Gi' must be equal to or less than the memory limit spec.template.spec.domain.resources.limits.memory '1Gi'"
            )
        );
    }

    #[test]
    fn machine_type() {
        let patch = json!({"domain": {"machine": {"type": "pc-i440fx-rhel7.6.0"}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.template.spec.domain.machine.type",
                "spec.template.spec.domain.machine.type is not supported: pc-i440fx-rhel7.6.0 (allowed values: [q35* pc-q35*])"
            )
        );
        let configured = ClusterProfile {
            machine_type: Some("pc-i440fx-rhel7.6.0".to_owned()),
            ..ClusterProfile::default()
        };
        assert_eq!(run_with(&patch, &configured), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"machine": {"type": "pc-q35-rhel9.6.0"}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"architecture": "arm64", "domain": {"machine": {"type": "q35"}}})),
            one(
                "spec.template.spec.domain.machine.type",
                "spec.template.spec.domain.machine.type is not supported: q35 (allowed values: [virt*])"
            )
        );
    }

    #[test]
    fn firmware_acpi() {
        let acpi = |name: &str| json!({"domain": {"firmware": {"acpi": {"slicNameRef": name}}}});
        assert_eq!(
            run(&acpi("root")),
            one(
                "spec.template.spec.acpi.slicNameRef",
                "spec.template.spec.acpi refers to Volume of unsupported type."
            )
        );
        assert_eq!(
            run(&acpi("missing")),
            one(
                "spec.template.spec.acpi.slicNameRef",
                "spec.template.spec.acpi does not have a matching Volume."
            )
        );
        let mut with_secret = acpi("slic");
        merge(
            &mut with_secret,
            &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "slic", "secret": {"secretName": "s"}}],
                    "domain": {"devices": {"disks": [{"name": "root"}, {"name": "slic"}]}}}),
        );
        assert_eq!(run(&with_secret), Vec::new());
    }

    #[test]
    fn cpu_requests() {
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"cpu": "-100m"}}}})),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "spec.template.spec.domain.resources.requests.cpu '-100m': must be greater than or equal to 0."
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1500m"}}}})
            ),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "spec.template.spec.domain.resources.requests.cpu '2' is greater than spec.template.spec.domain.resources.limits.cpu '1500m'"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1500m"}}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn dedicated_cpus() {
        let dedicated = |extra: Value| {
            let mut patch =
                json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2}}});
            merge(&mut patch, &extra);
            patch
        };
        assert_eq!(run(&dedicated(json!({}))), Vec::new());
        assert_eq!(
            run(&dedicated(
                json!({"domain": {"resources": {"requests": {"cpu": "1500m"}}}})
            )),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "provided resources CPU requests must be an interger"
            )
        );
        assert_eq!(
            run(&dedicated(
                json!({"domain": {"resources": {"requests": {"cpu": "4"}}}})
            )),
            one(
                "spec.template.spec.domain.cpu.dedicatedCpuPlacement",
                "spec.template.spec.domain.resources.requests.cpu or spec.template.spec.domain.resources.limits.cpu must not be provided at the same time with spec.template.spec.domain.cpu.cores when DedicatedCPUPlacement is true "
            )
        );
        assert_eq!(
            run(&dedicated(json!({"domain": {"cpu": {"threads": 4}}}))),
            one(
                "spec.template.spec.domain.cpu.dedicatedCpuPlacement",
                "Not more than two threads must be provided at spec.template.spec.domain.cpu.threads (got 4) when DedicatedCPUPlacement is true"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2}, "memory": null}})
            ),
            one(
                "spec.template.spec.domain.resources.limits.memory",
                "spec.template.spec.domain.resources.requests.memory, spec.template.spec.domain.resources.limits.memory, spec.template.spec.domain.memory.hugepages or spec.template.spec.domain.memory.guest should be provided"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"cpu": {"isolateEmulatorThread": true}}})),
            one(
                "spec.template.spec.domain.cpu.isolateEmulatorThread",
                "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement"
            )
        );
    }

    #[test]
    fn numa_and_realtime() {
        let field = "spec.template.spec.domain.cpu.numa.guestMappingPassthrough";
        assert_eq!(
            run(&json!({"domain": {"cpu": {"numa": {"guestMappingPassthrough": {}}}}})),
            vec![
                (
                    field.to_owned(),
                    format!(
                        "spec.template.spec.domain.cpu.dedicatedCpuPlacement must be set to true when NUMA topology strategy is set in {field}"
                    )
                ),
                (
                    field.to_owned(),
                    format!(
                        "spec.template.spec.domain.memory.hugepages must be requested when NUMA topology strategy is set in {field}"
                    )
                ),
            ]
        );
        let passthrough = json!({"domain": {
            "cpu": {"dedicatedCpuPlacement": true, "numa": {"guestMappingPassthrough": {}}, "realtime": {}},
            "memory": {"guest": "2Gi", "hugepages": {"pageSize": "1Gi"}}}});
        assert_eq!(run(&passthrough), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"cpu": {"realtime": {}}}})),
            vec![
                (
                    "spec.template.spec.domain.cpu.dedicatedCpuPlacement".to_owned(),
                    "spec.template.spec.domain.cpu.dedicatedCpuPlacement must be set to true when spec.template.spec.domain.cpu.realtime is used".to_owned()
                ),
                (
                    field.to_owned(),
                    format!("{field} must be defined when spec.template.spec.domain.cpu.realtime is used")
                ),
            ]
        );
    }

    #[test]
    fn cpu_features_and_sockets() {
        assert_eq!(
            run(&json!({"domain": {"cpu": {"features": [{"name": "vmx", "policy": "maybe"}]}}})),
            one(
                "spec.template.spec.domain.cpu.features[0].policy",
                "CPU feature vmx uses policy maybe that is not supported."
            )
        );
        assert_eq!(
            run(&json!({"domain": {"cpu": {"features": [{"name": "vmx", "policy": "require"}]}}})),
            Vec::new()
        );
        let sockets = json!({"domain": {"cpu": {"sockets": 4, "maxSockets": 2}}});
        let cause = (
            "spec.template.spec.domain.cpu.sockets".to_owned(),
            "Number of sockets in CPU topology is greater than the maximum sockets allowed"
                .to_owned(),
        );
        assert_eq!(run(&sockets), vec![cause.clone(), cause.clone()]);
        assert_eq!(run_with(&sockets, &profile((1, 4), &[])), vec![cause]);
        assert_eq!(
            run(&json!({"domain": {"cpu": {"sockets": 2, "maxSockets": 2}}})),
            Vec::new()
        );
    }

    #[test]
    fn start_strategy() {
        assert_eq!(run(&json!({"startStrategy": "Paused"})), Vec::new());
        assert_eq!(
            run(&json!({"startStrategy": "Later"})),
            one(
                "spec.template.spec.startStrategy",
                "spec.template.spec.startStrategy is set with an unrecognized option: Later"
            )
        );
    }

    #[test]
    fn networks_and_interfaces() {
        let iface_name = "spec.template.spec.domain.devices.interfaces[0].name";
        assert_eq!(
            run(&json!({"networks": [{"name": "other", "pod": {}}]})),
            vec![
                (
                    iface_name.to_owned(),
                    "Masquerade interface only implemented with pod network".to_owned()
                ),
                (
                    "spec.template.spec.networks[0].name".to_owned(),
                    "spec.template.spec.networks[0].name 'other' not found.".to_owned()
                ),
                (
                    iface_name.to_owned(),
                    format!("{iface_name} 'default' not found.")
                ),
            ]
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}}, {"name": "default", "bridge": {}}]}}})
            ),
            one(
                "spec.template.spec.domain.devices.interfaces[1].name",
                "Only one interface can be connected to one specific network"
            )
        );
        assert_eq!(
            run(&json!({"networks": [{"name": "default", "multus": {"networkName": "br"}}]})),
            one(
                iface_name,
                "Masquerade interface only implemented with pod network"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}, "macAddress": "02:00:00:00:00", "model": "rtl"}]}}})
            ),
            vec![
                (
                    "spec.template.spec.domain.devices.interfaces[0].model".to_owned(),
                    format!("interface {iface_name} uses model rtl that is not supported.")
                ),
                (
                    "spec.template.spec.domain.devices.interfaces[0].macAddress".to_owned(),
                    format!("interface {iface_name} has malformed MAC address (02:00:00:00:00).")
                ),
            ]
        );
        let bridge =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "bridge": {}}]}}});
        assert_eq!(run(&bridge), Vec::new());
        let strict = ClusterProfile {
            permit_bridge_on_pod_network: false,
            ..ClusterProfile::default()
        };
        assert_eq!(
            run_with(&bridge, &strict),
            one(
                iface_name,
                "Bridge on pod network configuration is not enabled under kubevirt-config"
            )
        );
        let passt = json!({"domain": {"devices": {"interfaces": [{"name": "default", "passtBinding": {}}]}}});
        assert_eq!(run(&passt), Vec::new());
        assert_eq!(
            run_with(&passt, &profile((1, 8), &[])),
            one(iface_name, "PasstBinding feature gate is not enabled")
        );
    }

    #[test]
    fn dra_devices() {
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [{"name": "gpu1"}]}}})),
            one(
                "spec.template.spec.domain.devices.gpus",
                "vmi.spec.domain.devices.gpus contains GPUs without deviceName or claimRequest; each GPU must specify either a deviceName or a claimRequest"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "c", "requestName": "r"}]}}})
            ),
            one(
                "spec.template.spec.resourceClaims",
                "vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus and vmi.spec.domain.devices.hostDevices"
            )
        );
        let declared = json!({"resourceClaims": [{"name": "c", "resourceClaimTemplateName": "t"}],
            "domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "c", "requestName": "r"}]}}});
        assert_eq!(run(&declared), Vec::new());
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/A10"}]}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn disks_need_volumes() {
        assert_eq!(
            run(&json!({"domain": {"devices": {"disks": [{"name": "root"}, {"name": "data"}]}}})),
            one(
                "spec.template.spec.domain.devices.disks[1].name",
                "spec.template.spec.domain.devices.disks[1].Name 'data' not found."
            )
        );
        let cdrom = json!({"domain": {"devices": {"disks": [{"name": "root"}, {"name": "cd", "cdrom": {"bus": "sata"}}]}}});
        assert_eq!(run(&cdrom), Vec::new());
        assert_eq!(
            run_with(&cdrom, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.disks[1].name",
                "DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {
                "disks": [{"name": "root", "bootOrder": 1}],
                "interfaces": [{"name": "default", "masquerade": {}, "bootOrder": 1}]}}})),
            one(
                "spec.template.spec.domain.devices.interfaces[0].bootOrder",
                "Boot order for spec.template.spec.domain.devices.interfaces[0].bootOrder already set for a different device."
            )
        );
    }

    #[test]
    fn disk_devices() {
        let disks = |disk: Value| json!({"domain": {"devices": {"disks": [disk]}}});
        assert_eq!(
            run(&disks(json!({"name": "root", "cdrom": {"bus": "virtio"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].cdrom.bus",
                "Bus type virtio is invalid for CD-ROM device"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {"bus": "ide"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].disk.bus",
                "IDE bus is not supported"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {"bus": "nvme"}}))),
            one(
                "spec.template.spec.domain.devices.disks[0].disk.bus",
                "spec.template.spec.domain.devices.disks[0] is set with an unrecognized bus nvme, must be one of: [virtio scsi sata usb]"
            )
        );
        assert_eq!(
            run(&disks(json!({"name": "root", "disk": {}, "cache": "unsafe", "serial": "a b"}))),
            vec![
                (
                    "spec.template.spec.domain.devices.disks[0].serial".to_owned(),
                    "spec.template.spec.domain.devices.disks[0] must be made up of the following characters [A-Za-z0-9_.+-], if specified".to_owned()
                ),
                (
                    "spec.template.spec.domain.devices.disks[0].cache".to_owned(),
                    "spec.template.spec.domain.devices.disks[0].cache has invalid value unsafe".to_owned()
                ),
            ]
        );
        assert_eq!(
            run(&disks(
                json!({"name": "root", "disk": {}, "blockSize": {"custom": {"logical": 512, "physical": 1000}}})
            )),
            one(
                "spec.template.spec.domain.devices.disks[0].blockSize.custom.physical",
                "Provided size of 1000 is not a power of 2"
            )
        );
        assert_eq!(
            run(&disks(
                json!({"name": "root", "disk": {}, "blockSize": {"custom": {"logical": 512, "physical": 4096}}})
            )),
            Vec::new()
        );
        let renamed = json!({"volumes": [{"name": "Root", "containerDisk": {"image": "x:1"}}],
            "domain": {"devices": {"disks": [{"name": "Root", "disk": {}}]}}});
        assert_eq!(
            run(&renamed),
            one(
                "spec.template.spec.domain.devices.disks.domain.devices.disks[0].name",
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            )
        );
    }

    #[test]
    fn firmware_and_secure_boot() {
        let field = "spec.template.spec.domain";
        let message = "spec.template.spec.domain has EFI SecureBoot enabled. SecureBoot requires SMM, which is currently disabled.";
        assert_eq!(
            run(&json!({"domain": {"firmware": {"bootloader": {"efi": {}}}}})),
            one(field, message)
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"bootloader": {"efi": {}}}, "features": {"smm": {}}}})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": false}}}}})),
            Vec::new()
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"bootloader": {"bios": {}, "efi": {"secureBoot": false}}}}})
            ),
            one(
                "spec.template.spec.domain.firmware.bootloader",
                "spec.template.spec.domain.firmware.bootloader has both EFI and BIOS configured, but they are mutually exclusive."
            )
        );
        assert_eq!(
            run(&json!({"domain": {"firmware": {"kernelBoot": {"kernelArgs": "console=ttyS0"}}}})),
            one(
                "spec.template.spec.domain.firmware.kernelBoot.kernelArgs",
                "kernel arguments cannot be provided without an external kernel"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"firmware": {"kernelBoot": {"container": {"image": "k:1", "kernelPath": "boot/vmlinuz"}}}}})
            ),
            one(
                "spec.template.spec.domain.firmware.kernelBoot.container.kernelPath",
                "spec.template.spec.domain.firmware.kernelBoot.container.kernelPath must be an absolute path to a file without relative components"
            )
        );
    }

    #[test]
    fn volumes() {
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}, "emptyDisk": {"capacity": "1Gi"}}]})
            ),
            one(
                "spec.template.spec.volumes[0]",
                "spec.template.spec.volumes[0] must have exactly one source type set"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "root", "emptyDisk": {"capacity": "1Gi"}}]})
            ),
            one(
                "spec.template.spec.volumes[1].name",
                "spec.template.spec.volumes[1] and spec.template.spec.volumes[0] must not have the same Name."
            )
        );
        let cloud_init = |source: Value| {
            json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "ci", "cloudInitNoCloud": source}],
                   "domain": {"devices": {"disks": [{"name": "root"}, {"name": "ci"}]}}})
        };
        assert_eq!(
            run(&cloud_init(
                json!({"userDataBase64": "I2Nsb3VkLWNvbmZpZwo="})
            )),
            Vec::new()
        );
        assert_eq!(
            run(&cloud_init(json!({"userDataBase64": "not base64!"}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud.userDataBase64",
                "spec.template.spec.volumes[1].cloudInitNoCloud.userDataBase64.cloudInitNoCloud.userDataBase64 is not a valid base64 value."
            )
        );
        assert_eq!(
            run(&cloud_init(json!({"userData": "x".repeat(2049)}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud",
                "spec.template.spec.volumes[1].cloudInitNoCloud userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data."
            )
        );
        assert_eq!(
            run(&cloud_init(json!({}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud",
                "spec.template.spec.volumes[1].cloudInitNoCloud must have at least one userdatasource or one networkdatasource set."
            )
        );
        let host_disk = json!({"volumes": [{"name": "root", "hostDisk": {"path": "/data/disk.img", "type": "Disk"}}]});
        assert_eq!(
            run(&host_disk),
            one(
                "spec.template.spec.volumes[0]",
                "HostDisk feature gate is not enabled"
            )
        );
        assert_eq!(
            run_with(&host_disk, &profile((1, 9), &["HostDisk"])),
            Vec::new()
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1", "path": "../disk"}}]})
            ),
            one(
                "spec.template.spec.volumes[0].containerDisk",
                "spec.template.spec.volumes[0].containerDisk must be an absolute path to a file without relative components"
            )
        );
        assert_eq!(
            run(&json!({"utilityVolumes": []})),
            one(
                "spec.template.spec.utilityVolumes",
                "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug"
            )
        );
    }

    #[test]
    fn inputs_io_threads_and_probes() {
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"inputs": [{"name": "t", "type": "mouse", "bus": "ps2"}]}}})
            ),
            vec![
                (
                    "spec.template.spec.domain.devices.inputs[0].bus".to_owned(),
                    "Input device can have only virtio or usb bus.".to_owned()
                ),
                (
                    "spec.template.spec.domain.devices.inputs[0].type".to_owned(),
                    "Input device can have only tablet type.".to_owned()
                ),
            ]
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"inputs": [{"name": "t", "type": "tablet", "bus": "usb"}]}}})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"ioThreadsPolicy": "supplementalPool"}})),
            one(
                "spec.template.spec.domain.ioThreads.count",
                "the number of iothreads needs to be set and positive for the dedicated policy"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"ioThreadsPolicy": "supplementalPool", "ioThreads": {"supplementalPoolThreadCount": 4}}})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"readinessProbe": {}})),
            one(
                "spec.template.spec.readinessProbe",
                "either spec.template.spec.readinessProbe.tcpSocket, spec.template.spec.readinessProbe.exec or spec.template.spec.readinessProbe.httpGet must be set if a spec.template.spec.readinessProbe is specified"
            )
        );
        assert_eq!(
            run(&json!({"readinessProbe": {"httpGet": {"port": 80}}})),
            Vec::new()
        );
    }

    #[test]
    fn lists_over_the_webhook_limit_of_v1_2() {
        let v1_2 = profile((1, 2), &[]);
        let many = |len: usize| vec![json!({"name": "default", "masquerade": {}}); len];
        let interfaces =
            json!({"hostname": "Bad_Name", "domain": {"devices": {"interfaces": many(257)}}});
        let causes = run_with(&interfaces, &v1_2);
        assert_eq!(causes.len(), 2, "{causes:?}");
        assert_eq!(causes[0].0, "spec.template.spec.hostname");
        assert_eq!(
            causes[1],
            (
                "spec.template.spec.domain.devices.interfaces".to_owned(),
                "spec.template.spec.domain.devices.interfaces list exceeds the 256 element limit in length".to_owned()
            )
        );
        let volumes = json!({"hostname": "Bad_Name", "volumes": many(257)});
        assert_eq!(
            run_with(&volumes, &v1_2),
            one(
                "spec.template.spec.volumes",
                "spec.template.spec.volumes list exceeds the 256 element limit in length"
            )
        );
        // From v1.3 on the CRD limits them, before the webhook runs.
        assert!(
            run(&json!({"domain": {"devices": {"disks": many(257)}}}))
                .iter()
                .all(|c| !c.1.contains("element limit"))
        );
    }

    #[test]
    fn access_credentials_and_dns() {
        assert_eq!(
            run(
                &json!({"accessCredentials": [{"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
                "propagationMethod": {"noCloud": {}}}}]})
            ),
            one(
                "spec.template.spec.accessCredentials[0].sshPublicKey.propagationMethod",
                "spec.template.spec.accessCredentials[0] requires a noCloud volume to exist when the noCloud propagationMethod is in use."
            )
        );
        assert_eq!(
            run(
                &json!({"accessCredentials": [{"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
                "propagationMethod": {"qemuGuestAgent": {"users": ["fedora"]}}}}]})
            ),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"dnsPolicy": "Custom"})),
            one(
                "spec.template.spec.dnsPolicy",
                "DNSPolicy: Custom is not supported, valid values: [ClusterFirstWithHostNet ClusterFirst Default None ]"
            )
        );
        assert_eq!(
            run(&json!({"dnsPolicy": "None"})),
            one(
                "spec.template.spec.dnsConfig",
                "must provide `dnsConfig` when `dnsPolicy` is None"
            )
        );
        assert_eq!(
            run(&json!({"dnsPolicy": "None", "dnsConfig": {"nameservers": ["10.0.0.10"]}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"dnsConfig": {"nameservers": ["dns.local"]}})),
            one("nameservers", "must be valid IP address: dns.local")
        );
        assert_eq!(
            run(&json!({"evictionStrategy": "Evict"})),
            one(
                "spec.template.spec.evictionStrategy",
                "spec.template.spec.evictionStrategy is set with an unrecognized option: Evict"
            )
        );
    }

    #[test]
    fn gated_devices() {
        let host_devices = json!({"domain": {"devices": {"hostDevices": [{"name": "h", "deviceName": "vendor.com/dev"}]}}});
        assert_eq!(
            run(&host_devices),
            one(
                "spec.template.spec.HostDevices",
                "Host Devices feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(
            run_with(&host_devices, &profile((1, 9), &["HostDevices"])),
            Vec::new()
        );
        let vsock = json!({"domain": {"devices": {"autoattachVSOCK": true}}});
        assert_eq!(
            run(&vsock),
            one(
                "spec.template.spec.domain.devices.autoattachVSOCK",
                "VSOCK feature gate is not enabled in kubevirt-config"
            )
        );
        assert_eq!(run_with(&vsock, &profile((1, 9), &["VSOCK"])), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"devices": {"downwardMetrics": {}}}})),
            one(
                "spec.template.spec.domain.devices.downwardMetrics",
                "downwardMetrics virtio serial is not allowed: DownwardMetrics feature gate is not enabled"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "fs", "persistentVolumeClaim": {"claimName": "c"}}],
                        "domain": {"devices": {"filesystems": [{"name": "fs", "virtiofs": {}}]}}})
            ),
            one(
                "spec.template.spec.domain.devices.filesystems",
                "virtiofs is not allowed: virtiofs feature gate is not enabled for PVC"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"reservedOverhead": {"addedOverhead": "1Gi"}}}})),
            one(
                "spec.template.spec.domain.memory.reservedOverhead",
                "Reserved overhead memlock feature gate is not enabled in kubevirt-config"
            )
        );
        let reboot = json!({"domain": {"rebootPolicy": "Terminate"}});
        assert_eq!(run(&reboot), Vec::new());
        assert_eq!(
            run_with(&reboot, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.rebootPolicy",
                "RebootPolicy is specified but the RebootPolicy feature gate is not enabled"
            )
        );
    }

    #[test]
    fn display_devices() {
        let display = json!({"virtualGPUOptions": {"display": {}}});
        let gpu = |name: &str| {
            let mut gpu = json!({"name": name, "deviceName": "nvidia.com/GRID"});
            merge(&mut gpu, &display);
            gpu
        };
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [gpu("a"), gpu("b")]}}})),
            one(
                "spec.template.spec.GPUs",
                "configuring multiple displays with ramfb is not valid "
            )
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [gpu("a")]}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"devices": {"sound": {"name": "s", "model": "sb16"}}}})),
            one(
                "spec.template.spec.Sound",
                "Sound device type is not supported. Options: 'ich9' or 'ac97'"
            )
        );
        let video = json!({"domain": {"devices": {"video": {"type": "virtio"}, "autoattachGraphicsDevice": false}}});
        assert_eq!(
            run(&video),
            one(
                "spec.template.spec.video",
                "Video configuration is not allowed when autoattachGraphicsDevice is set to false"
            )
        );
        assert_eq!(
            run_with(&video, &profile((1, 8), &[])),
            one(
                "spec.template.spec.video",
                "Video configuration is specified but the VideoConfig feature gate is not enabled"
            )
        );
        let panic = json!({"domain": {"devices": {"panicDevices": [{"model": "hyperv"}]}}});
        assert_eq!(run(&panic), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"devices": {"panicDevices": [{"model": "isa-debug"}]}}})),
            one(
                "spec.template.spec.domain.devices.panicDevices[0].model",
                "invalid PanicDeviceModel(isa-debug)"
            )
        );
        assert_eq!(
            run_with(&panic, &profile((1, 8), &[])),
            one(
                "spec.template.spec.domain.devices.panicDevices",
                "Panic Devices feature gate is not enabled in kubevirt-config"
            )
        );
    }

    #[test]
    fn launch_security() {
        let field = "spec.template.spec.launchSecurity";
        let sev = json!({"domain": {"launchSecurity": {"sev": {}}}});
        assert_eq!(run(&sev), one(field, "SEV requires OVMF (UEFI)"));
        assert_eq!(
            run_with(&sev, &profile((1, 8), &[])),
            one(
                field,
                "WorkloadEncryptionSEV feature gate is not enabled in kubevirt-config"
            )
        );
        let mut uefi = sev.clone();
        merge(
            &mut uefi,
            &json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": false}}}}}),
        );
        assert_eq!(run(&uefi), Vec::new());
        merge(
            &mut uefi,
            &json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": true}}}, "features": {"smm": {}}}}),
        );
        assert_eq!(
            run(&uefi),
            one(field, "SEV does not work along with SecureBoot")
        );
        assert_eq!(
            run(&json!({"domain": {"launchSecurity": {"sev": {}, "tdx": {}}}})),
            one(field, "One and only one launchSecurity type can be set")
        );
    }

    #[test]
    fn service_account() {
        let patch = json!({"serviceAccountName": "builder",
            "volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "sa", "serviceAccount": {"serviceAccountName": "other"}}],
            "domain": {"devices": {"disks": [{"name": "root"}, {"name": "sa"}]}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.template.spec.serviceAccountName",
                "spec.serviceAccountName \"builder\" and serviceAccount volume \"other\" must reference the same service account"
            )
        );
        assert_eq!(run(&json!({"serviceAccountName": "builder"})), Vec::new());
    }

    #[test]
    fn memory_hotplug_on_arm64_is_refused_from_v1_6_1() {
        let arm = json!({"architecture": "arm64", "domain": {"machine": {"type": "virt"}, "memory": {"guest": "2Gi", "maxGuest": "8Gi"}}});
        let hotplug = |version: KubeVirtVersion| {
            run_with(&arm, &ClusterProfile::new(version))
                .into_iter()
                .filter(|(_, message)| message.starts_with("Memory hotplug"))
                .map(|(_, message)| message)
                .collect::<Vec<_>>()
        };
        assert!(hotplug(KubeVirtVersion::new(1, 6)).is_empty());
        assert_eq!(
            hotplug(KubeVirtVersion::release(1, 6, 1)),
            ["Memory hotplug is only available for x86_64 VMs"]
        );
        let s390x = json!({"architecture": "s390x", "domain": {"memory": {"guest": "2Gi", "maxGuest": "8Gi"}}});
        let at_v1_6_0 = run_with(&s390x, &ClusterProfile::new(KubeVirtVersion::new(1, 6)));
        assert!(
            at_v1_6_0
                .iter()
                .any(|(_, m)| m == "Memory hotplug is only available for x86_64 and arm64 VMs"),
            "{at_v1_6_0:?}"
        );
    }

    #[test]
    fn live_update_memory() {
        let field = "spec.template.spec.domain.memory.guest";
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "4Gi", "maxGuest": "2Gi"}}})),
            one(
                field,
                "Guest memory is greater than the configured maxGuest memory"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "2Gi", "maxGuest": "8Gi"}}})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "1025Mi", "maxGuest": "8Gi"}}})),
            one(field, "Guest memory must be 2Mi aligned")
        );
        assert_eq!(
            run(&json!({"domain": {"memory": {"guest": "512Mi", "maxGuest": "8Gi"}}})),
            one(
                field,
                "Memory hotplug is only available for VMs with at least 1Gi of guest memory"
            )
        );
        assert_eq!(
            run_with(
                &json!({"domain": {"memory": {"guest": "4Gi", "maxGuest": "2Gi"}}}),
                &profile((1, 5), &[])
            ),
            Vec::new()
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

    #[test]
    fn go_parsers() {
        let milli = |text: &str| Quantity::parse(text).map(|q| milli_value(&q)).ok();
        assert_eq!(milli("1500m"), Some(1500));
        assert_eq!(milli("2"), Some(2000));
        assert_eq!(milli("1500u"), Some(2));
        assert_eq!(milli("-100m"), Some(-100));
        assert_eq!(base64_decoded_len("aGVsbG8="), (5, true));
        assert_eq!(base64_decoded_len("aGVsbG8"), (3, false));
        assert_eq!(base64_decoded_len("aGVs\nbG8h"), (6, true));
        assert_eq!(parse_mac_len("02:00:00:00:00:01"), Some(6));
        assert_eq!(parse_mac_len("0200.0000.0001"), Some(6));
        assert_eq!(parse_mac_len("02:00:00:00:00:00:00:01"), Some(8));
        assert_eq!(
            validate_mac("02:00:00:00:00:00:00:01"),
            Err("too long MAC address (02:00:00:00:00:00:00:01)".to_owned())
        );
        assert_eq!(parse_mac_len("02-00:00:00:00:01"), None);
        assert!(glob_match(b"pc-q35*", b"pc-q35-rhel9.6.0"));
        assert!(!glob_match(b"q35*", b"pc-i440fx"));
        assert!(is_pci_address("0000:81:00.1"));
        assert!(!is_pci_address("0000:81:00.8"));
        assert_eq!(clean_absolute("a/./b/../c/"), "/a/c");
        assert!(is_valid_port_name("http"));
        assert!(!is_valid_port_name("80"));
    }
}
