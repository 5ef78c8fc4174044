//! KubeVirt's VM mutating webhook (`virtualmachines-mutator.kubevirt.io`;
//! `pkg/virt-api/webhooks/mutating-webhook/mutators/vm-mutator.go`, `Mutate`):
//! matcher validation, inference from volumes, preference-driven writes and VM defaults.

use serde_json::{Map, Value, json};

use super::Cause;
use super::list_limits;
use crate::cluster::backports;
use crate::cluster::profile::ClusterProfile;
use crate::k8s::Object;
use crate::model::value::{Fields, Obj, at_keys, at_keys_mut, child, get_obj, is_set_at, str_of};
use crate::model::{Matcher, MatcherRole, PreferenceSpec};
use crate::render::with_template;
use crate::resolve::{self, Repo};

/// The placeholder KubeVirt's random firmware UUID and serial are pinned to in kvlint's output.
const PINNED_UUID: &str = "00000000-0000-4000-8000-000000000000";

/// Why the mutating webhook refuses a VM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MutateRefusal {
    /// Matcher content rules (`pkg/instancetype/webhooks/vm/mutator.go`,
    /// `validateInstancetypeMatcher`), with KubeVirt's causes.
    Matcher(Vec<Cause>),
    /// Inference failed and may not be ignored: HTTP 400 with this message and no causes.
    Inference { role: MatcherRole, message: String },
    /// The OpenAPI schema check of the preamble: fields this release does not have.
    Schema(Vec<String>),
    /// The API server's CRD validation of the mutated VM (v1.3 on): lists of the template spec
    /// over `maxItems`, by field.
    TooMany(Vec<String>),
    /// The API server's CRD validation of the mutated VM: a field the CRD requires is missing
    /// (`spec`, `spec.template`); the validating webhook never sees the VM.
    Required(String),
}

/// The outcome of the mutating webhook.
#[derive(Clone, Debug)]
pub(crate) struct Mutation {
    /// The VM as KubeVirt stores it (meaningful when `refusal` is None).
    pub(crate) vm: Value,
    pub(crate) refusal: Option<MutateRefusal>,
    /// Matchers that inference rewrote (so rendering can follow the stored VM).
    pub(crate) inferred: bool,
}

/// Causes of the matcher content rules for one matcher, in KubeVirt's order.
fn matcher_causes(role: MatcherRole, matcher: &Matcher, profile: &ClusterProfile) -> Vec<Cause> {
    let field = format!("spec.{}", role.field());
    let mut causes = Vec::new();
    if matcher.name.is_empty() && matcher.infer_from_volume.is_empty() {
        causes.push(Cause::new(
            field.clone(),
            format!(
                "Either Name or InferFromVolume should be provided within the {}",
                role.go_type()
            ),
        ));
        if !profile.version.at_least(1, 1) {
            return causes;
        }
    }
    let new_texts = profile.version.at_least(1, 7);
    if !matcher.infer_from_volume.is_empty() {
        if !matcher.name.is_empty() {
            causes.push(Cause::new(
                format!("{field}.name"),
                if new_texts {
                    "Name already set, should be cleared before setting inferFromVolume".to_owned()
                } else {
                    format!(
                        "Name should not be provided when InferFromVolume is used within the {}",
                        role.go_type()
                    )
                },
            ));
        }
        if !matcher.kind.is_empty() {
            causes.push(Cause::new(
                format!("{field}.kind"),
                if new_texts {
                    "Kind already set, should be cleared before setting inferFromVolume".to_owned()
                } else {
                    format!(
                        "Kind should not be provided when InferFromVolume is used within the {}",
                        role.go_type()
                    )
                },
            ));
        }
    }
    if let Some(policy) = &matcher.infer_from_volume_failure_policy
        && policy != "Ignore"
        && policy != "Reject"
        && profile.version.at_least(1, 1)
    {
        causes.push(Cause::new(
            format!("{field}.inferFromVolumeFailurePolicy"),
            format!("Invalid value '{policy}' for InferFromVolumeFailurePolicy"),
        ));
    }
    causes
}

fn matcher_of(vm: &Value, role: MatcherRole) -> Option<Matcher> {
    vm.field("spec")
        .and_then(|s| s.field(role.field()))
        .and_then(Matcher::from_json)
}

/// Runs the mutating webhook on a CREATE (`create`) or UPDATE of `vm_json`, then the API
/// server's check of the CRD's list limits on the result.
pub(crate) fn mutate(
    repo: &Repo<'_>,
    vm: &Object,
    vm_json: &Value,
    profile: &ClusterProfile,
    create: bool,
) -> Mutation {
    let mut mutation = mutate_by_webhook(repo, vm, vm_json, profile, create);
    if mutation.refusal.is_none() {
        // KubeVirt's mutator writes into a template only when there is one.
        if let Some(missing) = missing_required(vm_json) {
            mutation.refusal = Some(MutateRefusal::Required(missing.to_owned()));
            return mutation;
        }
        let too_many = list_limits::crd_violations(&mutation.vm, profile.version);
        if !too_many.is_empty() {
            mutation.refusal = Some(MutateRefusal::TooMany(too_many));
        }
    }
    mutation
}

/// The first field the VirtualMachine CRD requires (at every release) that `vm` lacks: `spec`,
/// then `spec.template` inside a spec.
fn missing_required(vm: &Value) -> Option<&'static str> {
    match vm.field("spec") {
        None | Some(Value::Null) => Some("spec"),
        Some(spec) if matches!(spec.field("template"), None | Some(Value::Null)) => {
            Some("spec.template")
        }
        Some(_) => None,
    }
}

fn mutate_by_webhook(
    repo: &Repo<'_>,
    vm: &Object,
    vm_json: &Value,
    profile: &ClusterProfile,
    create: bool,
) -> Mutation {
    let mut out = vm_json.clone();
    // A field the release does not declare yet: the API server prunes it before the webhook
    // sees the VM, except inside the template's spec, which the webhook checks against its
    // own schema and refuses ("... is a forbidden property").
    let (refused, pruned): (Vec<_>, Vec<_>) =
        crate::render::shape::newer_fields(vm_json, profile.version)
            .into_iter()
            .partition(|path| path.to_string().starts_with("spec.template.spec."));
    if !refused.is_empty() {
        return Mutation {
            vm: out,
            refusal: Some(MutateRefusal::Schema(
                refused.iter().map(ToString::to_string).collect(),
            )),
            inferred: false,
        };
    }
    if !pruned.is_empty() {
        // `out` is still `vm_json`: every newer field is one of `pruned`.
        crate::render::shape::prune_unknown_and(&mut out, pruned);
    }
    if is_set_at(vm_json, &["metadata", "deletionTimestamp"]) {
        return Mutation {
            vm: out,
            refusal: None,
            inferred: false,
        };
    }
    for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
        if let Some(matcher) = matcher_of(vm_json, role) {
            let causes = matcher_causes(role, &matcher, profile);
            if !causes.is_empty() {
                return Mutation {
                    vm: out,
                    refusal: Some(MutateRefusal::Matcher(causes)),
                    inferred: false,
                };
            }
        }
    }
    let mut inferred = false;
    for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
        let Some(matcher) = matcher_of(&out, role).filter(|m| !m.infer_from_volume.is_empty())
        else {
            continue;
        };
        inferred = true;
        let ignore = matcher.infer_from_volume_failure_policy.as_deref() == Some("Ignore");
        let spec = out.field_mut("spec").and_then(Value::as_object_mut);
        match resolve::infer(repo, vm, vm_json, role, &matcher.infer_from_volume) {
            Ok(found) => {
                let mut replaced = Map::new();
                replaced.insert("name".to_owned(), found.name.into());
                if !found.kind.is_empty() {
                    replaced.insert("kind".to_owned(), found.kind.into());
                }
                if let Some(spec) = spec {
                    spec.insert(role.field().to_owned(), Value::Object(replaced));
                }
                if ignore && role == MatcherRole::Instancetype && profile.version.at_least(1, 1) {
                    with_template(&mut out, |template, _| {
                        if let Some(domain) =
                            template.field_mut("domain").and_then(Value::as_object_mut)
                        {
                            domain.remove("memory");
                        }
                    });
                }
            }
            Err(err) if err.ignorable && ignore => {
                if let Some(spec) = spec {
                    spec.remove(role.field());
                }
            }
            Err(err) => {
                return Mutation {
                    vm: out,
                    refusal: Some(MutateRefusal::Inference {
                        role,
                        message: err.message,
                    }),
                    inferred,
                };
            }
        }
    }
    apply_preference_writes(repo, vm, &mut out, profile);
    if create {
        apply_firmware_identity(&mut out, profile);
    }
    apply_vm_defaults(repo, vm, &mut out, profile);
    if create {
        apply_pci_topology(&mut out, profile);
    }
    // The API server prunes fields the CRD does not know; the webhook's patch then replaces
    // spec and metadata with Go's serialisation of the result.
    crate::render::shape::prune_unknown(&mut out, profile.version);
    crate::render::shape::normalize_vm_at(
        &mut out,
        profile.version,
        &crate::k8s::quantity::canonical_json,
    );
    Mutation {
        vm: out,
        refusal: None,
        inferred,
    }
}

/// Writes driven by the preference; a lookup failure is ignored (`pkg/instancetype/webhooks/vm/
/// mutator.go`, `Mutate`: `mutateArch`, `mutateMachineType`, `mutateDataVolumeTemplates`).
fn apply_preference_writes(
    repo: &Repo<'_>,
    vm: &Object,
    out: &mut Value,
    profile: &ClusterProfile,
) {
    let Some(matcher) = matcher_of(out, MatcherRole::Preference) else {
        return;
    };
    let status_ref = at_keys(out, &["status", "preferenceRef"]).cloned();
    let Ok(found) = resolve::find(
        repo,
        vm,
        MatcherRole::Preference,
        &matcher,
        status_ref.as_ref(),
    ) else {
        return;
    };
    let decoded = repo.specs.decode::<PreferenceSpec>(&found);
    let Ok(preference) = decoded.as_ref() else {
        return;
    };
    with_template(out, |spec, _| {
        if profile.version.at_least(1, 7)
            && let Some(arch) = preference
                .preferred_architecture
                .as_ref()
                .filter(|a| !a.is_empty())
            && str_of(spec, "architecture").is_empty()
        {
            spec.insert("architecture".to_owned(), arch.clone().into());
        }
        if let Some(machine) = preference.machine.as_ref() {
            let preferred = &machine.preferred_machine_type;
            let current = get_obj(spec, "domain")
                .and_then(|d| get_obj(d, "machine"))
                .map_or("", |m| str_of(m, "type"));
            if current.is_empty() && !preferred.is_empty() {
                child(child(spec, "domain"), "machine")
                    .insert("type".to_owned(), preferred.clone().into());
            }
        }
    });
    let class = preference
        .volumes
        .as_ref()
        .map(|v| v.preferred_storage_class_name.clone())
        .unwrap_or_default();
    if class.is_empty() {
        return;
    }
    let kinds: &[&str] = if profile
        .version
        .has_change(backports::STORAGE_CLASS_ON_STORAGE_SPEC)
    {
        &["pvc", "storage"]
    } else {
        &["pvc"]
    };
    if let Some(templates) =
        at_keys_mut(out, &["spec", "dataVolumeTemplates"]).and_then(Value::as_array_mut)
    {
        for template in templates {
            for kind in kinds {
                if let Some(target) = template
                    .field_mut("spec")
                    .and_then(|s| s.get_mut(*kind))
                    .and_then(Value::as_object_mut)
                    && target.field("storageClassName").is_none_or(Value::is_null)
                {
                    target.insert("storageClassName".to_owned(), class.clone().into());
                }
            }
        }
    }
}

/// Random firmware UUID (v1.6+) and serial (v1.5.3, v1.6.1, v1.7+) on CREATE (vm-mutator.go,
/// `setFirmwareDefaultsIfEmpty`), pinned
/// here.
fn apply_firmware_identity(out: &mut Value, profile: &ClusterProfile) {
    let uuid = profile.version.at_least(1, 6);
    let serial = profile.version.has_change(backports::FIRMWARE_SERIAL);
    if !uuid && !serial {
        return;
    }
    with_template(out, |spec, _| {
        let firmware = child(child(spec, "domain"), "firmware");
        if uuid && str_of(firmware, "uuid").is_empty() {
            firmware.insert("uuid".to_owned(), PINNED_UUID.into());
        }
        if serial && str_of(firmware, "serial").is_empty() {
            firmware.insert("serial".to_owned(), PINNED_UUID.into());
        }
    });
}

/// VM defaults (`pkg/defaults/defaults.go`, `SetVirtualMachineDefaults`): architecture (from a
/// golden-image DataSource label in v1.6.4+, else the cluster
/// default), machine type, and (v1.0–v1.6) the default matcher kinds.
fn apply_vm_defaults(repo: &Repo<'_>, vm: &Object, out: &mut Value, profile: &ClusterProfile) {
    let architecture_from_source = if profile
        .version
        .has_change(backports::ARCHITECTURE_FROM_DATA_SOURCE)
    {
        architecture_from_data_sources(repo, vm, out)
    } else {
        None
    };
    with_template(out, |spec, _| {
        if str_of(spec, "architecture").is_empty() {
            let arch =
                architecture_from_source.unwrap_or_else(|| profile.default_architecture.clone());
            spec.insert("architecture".to_owned(), arch.into());
        }
        let machine_type = profile.machine_type_for(str_of(spec, "architecture"));
        let machine = child(child(spec, "domain"), "machine");
        if str_of(machine, "type").is_empty() {
            machine.insert("type".to_owned(), machine_type.into());
        }
    });
    if !profile.version.at_least(1, 7) {
        for (role, kind) in [
            (
                MatcherRole::Instancetype,
                "virtualmachineclusterinstancetype",
            ),
            (MatcherRole::Preference, "virtualmachineclusterpreference"),
        ] {
            if let Some(matcher) =
                at_keys_mut(out, &["spec", role.field()]).and_then(Value::as_object_mut)
                && str_of(matcher, "kind").is_empty()
            {
                matcher.insert("kind".to_owned(), kind.into());
            }
        }
    }
}

fn architecture_from_data_sources(repo: &Repo<'_>, vm: &Object, out: &Value) -> Option<String> {
    if !at_keys(out, &["spec", "template", "spec", "architecture"])
        .and_then(Value::as_str)
        .unwrap_or("")
        .is_empty()
    {
        return None;
    }
    let namespace = vm.namespace.as_deref().unwrap_or("default");
    let templates = at_keys(out, &["spec", "dataVolumeTemplates"]).and_then(Value::as_array)?;
    for template in templates {
        let Some(source_ref) = at_keys(template, &["spec", "sourceRef"]) else {
            continue;
        };
        if !source_ref
            .field("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .eq_ignore_ascii_case("datasource")
        {
            continue;
        }
        let ns = source_ref
            .field("namespace")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or(namespace);
        let name = source_ref
            .field("name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(mut source) = repo.find(&vm.unit, "cdi.kubevirt.io", "DataSource", Some(ns), name)
        else {
            continue;
        };
        // One hop through a DataSource that points at another DataSource.
        if let Some(next) = source
            .node
            .get("spec")
            .and_then(|s| s.get("source"))
            .and_then(|s| s.get("dataSource"))
        {
            let next_ns = next
                .get("namespace")
                .and_then(crate::yaml::Node::as_str)
                .unwrap_or(ns);
            let next_name = next
                .get("name")
                .and_then(crate::yaml::Node::as_str)
                .unwrap_or("");
            match repo.find(
                &vm.unit,
                "cdi.kubevirt.io",
                "DataSource",
                Some(next_ns),
                next_name,
            ) {
                Some(next) => source = next,
                None => continue,
            }
        }
        let label = source
            .node
            .get("metadata")
            .and_then(|m| m.get("labels"))
            .and_then(|l| l.get("template.kubevirt.io/architecture"))
            .and_then(crate::yaml::Node::as_str);
        if let Some(arch @ ("amd64" | "arm64" | "s390x")) = label {
            return Some(arch.to_owned());
        }
    }
    None
}

/// The PCI topology annotation on CREATE (vm-mutator.go, `Mutate`; vmi-mutator.go,
/// `setDefaultPciTopologyVersion`): on every VM from v1.6.4, v1.7.2 and v1.8.0;
/// from v1.6.5, v1.7.3 and v1.8.2 only for amd64 and arm64; from v1.6.6, v1.7.4 and v1.8.3
/// only for those with a q35 or virt machine type (the defaulted spec is what is checked).
fn apply_pci_topology(out: &mut Value, profile: &ClusterProfile) {
    let version = profile.version;
    if !version.has_change(backports::PCI_TOPOLOGY_ANNOTATION) {
        return;
    }
    let by_architecture = version.has_change(backports::PCI_TOPOLOGY_BY_ARCHITECTURE);
    let by_machine_type = version.has_change(backports::PCI_TOPOLOGY_BY_MACHINE_TYPE);
    let supports_pcie = |spec: &Obj| {
        let arch_supports = matches!(str_of(spec, "architecture"), "amd64" | "arm64" | "");
        let machine = get_obj(spec, "domain").and_then(|d| get_obj(d, "machine"));
        let machine_supports = machine.is_none_or(|m| {
            let t = str_of(m, "type");
            t.contains("q35") || t.starts_with("virt")
        });
        (!by_architecture || arch_supports) && (!by_machine_type || machine_supports)
    };
    with_template(out, |spec, metadata| {
        if !supports_pcie(spec) {
            return;
        }
        let annotations = child(metadata, "annotations");
        if !annotations.contains_key("kubevirt.io/pci-topology-version") {
            annotations.insert("kubevirt.io/pci-topology-version".to_owned(), json!("v3"));
        }
    });
}

#[cfg(test)]
#[path = "mutate_tests.rs"]
mod tests;
