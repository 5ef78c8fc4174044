//! Stage two: every VirtualMachine (and VirtualMachinePool template) is resolved, admitted
//! and rendered as KubeVirt would; the outcome is findings and the rendered VM.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::admission::mutate::{self, MutateRefusal};
use crate::admission::validate::{self, FindErrors};
use crate::cluster::profile::ClusterProfile;
use crate::controller::drift::DriftPolicy;
use crate::diag::Finding;
use crate::k8s::Object;
use crate::model::value::Fields;
use crate::model::{InstancetypeSpec, MatcherRole, PreferenceSpec};
use crate::render::{self, ExpandError, Specs};
use crate::resolve::Repo;
use crate::rules::reject::{expand_failed, webhook_failure};
use crate::yaml::FieldPath;

use analysis::Analysis;
use drift::{drift_finding, for_drift};
use resolution::{Resolution, origin_text, resolve_role};
use view::VmView;

mod analysis;
mod drift;
mod resolution;
mod unknown;
mod view;

/// A rendered VM, ready for output.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub namespace: String,
    pub name: String,
    pub file: Arc<str>,
    pub line: u32,
    pub value: Value,
    /// Where the instance type and preference came from, for humans
    /// (`instancetype: VirtualMachineClusterInstancetype u1.medium (built-in catalog v1.7.0)`).
    pub origins: Vec<String>,
    /// The unit the VM was rendered in (its directory), for VMs of a Kustomize unit.
    pub unit: Option<String>,
    /// The VirtualMachinePool that creates the VM, for the VMs of a pool.
    pub pool: Option<String>,
}

/// Everything kvlint concluded about one VM.
#[derive(Clone, Debug, Default)]
pub struct VmReport {
    pub findings: Vec<Finding>,
    /// The rendered VM (the VMs a pool creates), when asked for.
    pub rendered: Vec<Rendered>,
    /// Whether the VM could be rendered.
    pub renders: bool,
}

/// The closest known name to a misspelled field, when one is close: case-insensitive equality
/// first, then a small edit distance.
pub fn did_you_mean<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = name.to_ascii_lowercase();
    if let Some(exact) = known.iter().find(|k| k.to_ascii_lowercase() == lower) {
        return Some(exact);
    }
    known
        .iter()
        .map(|k| (strsim::levenshtein(&k.to_ascii_lowercase(), &lower), *k))
        .filter(|(distance, k)| *distance <= 2.max(k.len() / 5))
        .min()
        .map(|(_, k)| k)
}

fn has_matchers(vm: &Value) -> bool {
    let spec = vm.field("spec");
    ["instancetype", "preference"]
        .iter()
        .any(|k| spec.and_then(|s| s.field(k)).is_some_and(|m| !m.is_null()))
}

/// Removes the fields only the mutating webhook writes (random firmware identity, the PCI
/// topology annotation, storage classes) from the expand of a stored VM, leaving their parent
/// objects in place, so that an inferred VM renders as the VM the user wrote would.
fn strip_webhook_only(stored: &mut Value, written: &Value) {
    for key in ["uuid", "serial"] {
        let had = written
            .pointer(&format!("/spec/template/spec/domain/firmware/{key}"))
            .is_some();
        if !had
            && let Some(firmware) = stored
                .pointer_mut("/spec/template/spec/domain/firmware")
                .and_then(Value::as_object_mut)
        {
            firmware.remove(key);
        }
    }
    let had_pci = written
        .pointer("/spec/template/metadata/annotations")
        .and_then(|a| a.field("kubevirt.io/pci-topology-version"))
        .is_some();
    if !had_pci
        && let Some(annotations) = stored
            .pointer_mut("/spec/template/metadata/annotations")
            .and_then(Value::as_object_mut)
    {
        annotations.remove("kubevirt.io/pci-topology-version");
    }
    let written_templates = written
        .pointer("/spec/dataVolumeTemplates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(templates) = stored
        .pointer_mut("/spec/dataVolumeTemplates")
        .and_then(Value::as_array_mut)
    {
        for (template, original) in templates.iter_mut().zip(written_templates.iter()) {
            for kind in ["pvc", "storage"] {
                let had = original
                    .field("spec")
                    .and_then(|s| s.get(kind))
                    .and_then(|k| k.field("storageClassName"))
                    .is_some();
                if !had
                    && let Some(target) = template
                        .field_mut("spec")
                        .and_then(|s| s.get_mut(kind))
                        .and_then(Value::as_object_mut)
                {
                    target.remove("storageClassName");
                }
            }
        }
    }
}

/// The VM JSON of an object: the VirtualMachine itself, or a pool's template as a VM.
fn vm_json(object: &Object) -> Option<(Value, FieldPath)> {
    let json = object.node.to_json();
    if object.kind == "VirtualMachine" {
        return Some((json, FieldPath::root()));
    }
    let template = json.pointer("/spec/virtualMachineTemplate")?;
    let mut metadata = template
        .field("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    metadata.insert("name".to_owned(), object.name.clone().into());
    let vm = json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": Value::Object(metadata),
        "spec": template.field("spec").cloned().unwrap_or(Value::Object(Map::new())),
    });
    Some((vm, FieldPath::parse("spec.virtualMachineTemplate")))
}

/// The analysis of a VM, with a pool's template judged by the pool validator (the VM webhooks
/// then judge the VMs the pool controller creates from it); None for a pool the API server
/// refuses for a template spec without `template` (the CRD requires it;
/// `check::pool_admission` reports it): no validator sees it and it creates no VM.
fn start_analysis<'r, 'a>(
    view: VmView<'a>,
    written: &Value,
    profile: &'r ClusterProfile,
) -> Option<Analysis<'r, 'a>> {
    let is_pool = !view.base.0.is_empty();
    if is_pool
        && view.object.node.get("spec").is_some_and(|spec| {
            super::pool_admission::template_spec_lacks_template(&spec.to_json())
        })
    {
        return None;
    }
    let mut analysis = Analysis::new(profile, view);
    if is_pool {
        analysis.judge_pool_template(validate::validate_pool_template(written, profile));
    }
    Some(analysis)
}

/// What a caller needs from the analysis beyond the findings.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wanted {
    /// The rendered VM, in the report.
    pub rendered: bool,
    /// The fixes of drift findings (`kvlint fix`; other reports do not show them).
    pub fixes: bool,
}

/// Analyzes one VM object; `policy` judges its predicted drift.
pub fn analyze_vm<'a>(
    repo: &Repo<'a>,
    object: &'a Object,
    profile: &ClusterProfile,
    wanted: Wanted,
    policy: DriftPolicy,
) -> VmReport {
    let keep_rendered = wanted.rendered;
    let Some((mut written, base)) = vm_json(object) else {
        return VmReport::default();
    };
    if let Some(metadata) = written.field_mut("metadata").and_then(Value::as_object_mut)
        && let Some(namespace) = &object.namespace
    {
        metadata.insert("namespace".to_owned(), namespace.clone().into());
    }
    // The pool object is stored as written (KubeVirt has no mutating webhook for pools); the
    // VMs its controller creates are not in Git, so nothing drifts.
    let is_pool = !base.0.is_empty();
    let Some(mut analysis) = start_analysis(VmView { object, base }, &written, profile) else {
        return VmReport::default();
    };

    let mutation = mutate::mutate(repo, object, &written, profile, true);
    if let Some(refusal) = &mutation.refusal {
        analysis.report_mutation(refusal);
    }
    let inference_failed = matches!(mutation.refusal, Some(MutateRefusal::Inference { .. }));
    // The webhooks see the mutated VM; a VM the mutating webhook refuses is judged as written.
    let judged = if mutation.refusal.is_none() {
        &mutation.vm
    } else {
        &written
    };
    let instancetype: Resolution<'_, InstancetypeSpec> =
        resolve_role(repo, object, judged, MatcherRole::Instancetype);
    let preference: Resolution<'_, PreferenceSpec> =
        resolve_role(repo, object, judged, MatcherRole::Preference);
    let specs = Specs {
        instancetype: instancetype.spec(),
        preference: preference.spec(),
    };
    analysis.deprecated_catalog_names(repo, judged);
    let origins = matcher_origins(&mut analysis, repo, &instancetype, &preference);
    let unknown_fields = render::shape::unknown_fields(&written);
    let runtime =
        crate::controller::committed_runtime::vm_findings(object, &analysis.view.base, &written);
    analysis.findings.extend(runtime);
    let admitted = mutation.refusal.is_none();
    // Rendering follows expand of the VM as written; inferred VMs follow the stored VM.
    let follow_stored = mutation.inferred && admitted;
    let mut stored_for_render = None;
    let mut dropped = std::collections::BTreeMap::new();
    if admitted {
        if follow_stored {
            stored_for_render = Some(mutation.vm.clone());
        }
        let judge = Judge {
            wanted,
            policy,
            is_pool,
        };
        dropped = judge.admitted(
            &mut analysis,
            (&written, mutation.vm),
            &instancetype,
            &preference,
            &unknown_fields,
        );
    }
    let drift_context = unknown::DriftContext {
        gitops: policy.gitops,
        owns_volumes: owns_volumes(&written),
    };
    unknown::report(&mut analysis, &unknown_fields, dropped, drift_context);
    if inference_failed {
        return unrendered(analysis, false);
    }

    if instancetype.is_unresolved() || preference.is_unresolved() {
        // A refused VM already has its error; an unresolvable matcher is then a consequence
        // (e.g. inferFromVolume that the refused request never resolved).
        if profile.version.at_least(1, 6) && admitted {
            analysis.report_unresolved(MatcherRole::Instancetype, &instancetype);
            analysis.report_unresolved(MatcherRole::Preference, &preference);
        }
        return unrendered(analysis, false);
    }
    let (render_input, written_for_strip) = match stored_for_render {
        Some(stored) => (stored, Some(written)),
        None => (written, None),
    };
    let matchers = has_matchers(&render_input);
    if !matchers && !keep_rendered {
        return unrendered(analysis, true);
    }
    let rendered = match render::expand(render_input, specs, matchers, profile) {
        Ok(_) if !keep_rendered => {
            return unrendered(analysis, true);
        }
        Ok(value) => Some(normalized(value, profile, written_for_strip.as_ref())),
        Err(error) => {
            report_expand_error(&mut analysis, error);
            None
        }
    };
    let renders = rendered.is_some();
    let rendered = match rendered {
        None => Vec::new(),
        Some(value) => rendered_vms(object, value, &origins, is_pool),
    };
    VmReport {
        renders,
        rendered,
        findings: analysis.into_findings(),
    }
}

/// The report of a VM that is not rendered; `renders` tells whether it could be.
fn unrendered(analysis: Analysis<'_, '_>, renders: bool) -> VmReport {
    VmReport {
        findings: analysis.into_findings(),
        rendered: Vec::new(),
        renders,
    }
}

/// The expanded VM as the API server stores and prints it; `written` is the VM as written when
/// the expand is of the stored VM.
fn normalized(mut value: Value, profile: &ClusterProfile, written: Option<&Value>) -> Value {
    render::shape::prune_unknown(&mut value, profile.version);
    render::shape::normalize_vm_at(&mut value, profile.version, &|v| {
        crate::k8s::quantity::canonical_json(v)
    });
    if let Some(written) = written {
        strip_webhook_only(&mut value, written);
    }
    value
}

/// Where the instance type and preference came from, for the rendered VM; notes what the
/// catalog says about them on the way.
fn matcher_origins(
    analysis: &mut Analysis<'_, '_>,
    repo: &Repo<'_>,
    instancetype: &Resolution<'_, InstancetypeSpec>,
    preference: &Resolution<'_, PreferenceSpec>,
) -> Vec<String> {
    let mut origins = Vec::new();
    for (role, found) in [
        (MatcherRole::Instancetype, instancetype.found()),
        (MatcherRole::Preference, preference.found()),
    ] {
        if let Some(found) = found {
            origins.push(origin_text(repo, role, found));
            analysis.catalog_notes(repo, role, found);
        }
    }
    origins
}

/// Whether the VM creates volumes of its own (`dataVolumeTemplates`), which a recreation of
/// the VM deletes with it.
fn owns_volumes(written: &Value) -> bool {
    written
        .pointer("/spec/dataVolumeTemplates")
        .and_then(Value::as_array)
        .is_some_and(|templates| !templates.is_empty())
}

/// How an admitted VM is judged: which fixes are wanted, how drift is judged, and whether the
/// VM is a pool's template (whose VMs are not in Git, so nothing drifts).
struct Judge {
    wanted: Wanted,
    policy: DriftPolicy,
    is_pool: bool,
}

impl Judge {
    /// Predicts the drift of an admitted VM and validates the stored VM. Drift is predicted
    /// before validation takes the stored VM over; only an admitted VM is stored, so it is
    /// reported only when validation accepts the VM.
    /// Returns the drift that only drops fields of `unknown` (their findings carry it).
    fn admitted(
        &self,
        analysis: &mut Analysis<'_, '_>,
        (written, stored): (&Value, Value),
        instancetype: &Resolution<'_, InstancetypeSpec>,
        preference: &Resolution<'_, PreferenceSpec>,
        unknown: &[FieldPath],
    ) -> std::collections::BTreeMap<usize, unknown::Dropped> {
        let object = analysis.view.object;
        let profile = analysis.profile;
        let specs = Specs {
            instancetype: instancetype.spec(),
            preference: preference.spec(),
        };
        let find_errors = FindErrors {
            instancetype: instancetype.error_text(),
            preference: preference.error_text(),
        };
        let own_name = (object.kind == "VirtualMachine").then_some(object.name.as_str());
        let drifts: Vec<crate::controller::drift::Drift> = crate::controller::drift::predict_for(
            written,
            &stored,
            profile.version,
            own_name,
            self.policy.gitops,
        )
        .into_iter()
        .chain(crate::controller::predict(written, &stored, specs, profile))
        .collect();
        let owns_volumes = owns_volumes(written);
        let rejections = validate::validate(stored, specs, &find_errors, profile, true);
        let mut dropped = std::collections::BTreeMap::new();
        if rejections.is_empty() && !self.is_pool {
            let (drifts, taken) = unknown::take_over(unknown, drifts);
            dropped = taken;
            for drift in drifts {
                // The webhook's defaults carry their fix always: the reports gather them into
                // one snippet to commit per VM.
                let fix = if self.wanted.fixes || drift.rule.is_webhook_default() {
                    let identity = format!(
                        "{}/{}",
                        object.namespace.as_deref().unwrap_or(""),
                        object.name
                    );
                    for_drift(&drift, &analysis.view.path(&drift.path), &identity)
                } else {
                    None
                };
                let mut finding = drift_finding(&analysis.view, drift, self.policy, owns_volumes);
                finding = finding.with_fix(fix);
                analysis.push(finding);
            }
        }
        analysis.report_rejections(rejections, instancetype, preference);
        dropped
    }
}

/// Why expand failed, as a finding.
fn report_expand_error(analysis: &mut Analysis<'_, '_>, error: ExpandError) {
    let reported = match error {
        ExpandError::Conflicts(conflicts) => {
            // Conflicts admission also sees are already reported as rejections; expand also
            // sees what the mutating webhook's re-serialisation hides (an empty nodeSelector).
            if analysis.conflict_refused {
                return;
            }
            let fields: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
            expand_failed::conflicts(&fields, render::conflicts_message(&conflicts))
        }
        ExpandError::Panic(message) => webhook_failure::panicked(message),
        ExpandError::Find { field, message } => expand_failed::not_found(field, message),
        ExpandError::Defaults(error) => expand_failed::defaults_failed(error.to_string()),
    };
    let finding = analysis.place(reported, None, None);
    analysis.push(finding);
}

/// The rendered VM of an object: the VM itself, or the VMs a pool creates from it.
fn rendered_vms(object: &Object, value: Value, origins: &[String], is_pool: bool) -> Vec<Rendered> {
    let one = |name: String, value: Value, pool: Option<String>| Rendered {
        namespace: object.namespace.clone().unwrap_or_default(),
        name,
        file: Arc::clone(&object.file),
        line: object.node.span.start.line,
        value,
        origins: origins.to_vec(),
        unit: object
            .rendered_in
            .as_ref()
            .map(|rendered| rendered.unit.path.clone()),
        pool,
    };
    if is_pool {
        let pool = object.node.to_json();
        super::pool::created_vms(&pool, &object.name, &value)
            .into_iter()
            .map(|vm| {
                let name = vm
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                one(name, vm, Some(object.name.clone()))
            })
            .collect()
    } else {
        vec![one(object.name.clone(), value, None)]
    }
}

/// Whether an object is analyzed as a VM.
pub fn is_vm(object: &Object) -> bool {
    (object.group == crate::k8s::KUBEVIRT_GROUP && object.kind == "VirtualMachine")
        || (object.group == "pool.kubevirt.io" && object.kind == "VirtualMachinePool")
}
