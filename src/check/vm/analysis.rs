//! The findings of one VM: what the webhooks refuse, what cannot be resolved, and what the
//! catalog says about the names used.

use serde_json::Value;

use super::resolution::{Resolution, related_at};
use super::view::{VmView, feature_gate_help, instancetype_field, vm_path_of};
use crate::admission::mutate::MutateRefusal;
use crate::admission::validate::Rejection;
use crate::cluster::profile::ClusterProfile;
use crate::diag::Finding;
use crate::model::value::Fields;
use crate::model::{InstancetypeSpec, Matcher, MatcherRole, PreferenceSpec};
use crate::render::Conflict;
use crate::resolve::{self, Found, Repo};
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;

pub(super) struct Analysis<'r, 'a> {
    pub(super) profile: &'r ClusterProfile,
    pub(super) view: VmView<'a>,
    pub(super) findings: Vec<Finding>,
}

impl Analysis<'_, '_> {
    pub(super) fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    pub(super) fn conflict_finding(
        &self,
        conflict: &Conflict,
        instancetype: Option<&Found<'_>>,
    ) -> Finding {
        let mut finding = self
            .view
            .finding(
                &rules::INSTANCETYPE_CONFLICT,
                &vm_path_of(&conflict.path),
                conflict.message_for(self.profile.version),
            )
            .with_kubevirt_field(conflict.path.clone())
            .with_help("remove the field from the VM: the instance type sets it, and KubeVirt refuses to override either");
        if let Some(found) = instancetype {
            finding = finding.with_related(related_at(
                found,
                &instancetype_field(&conflict.path),
                format!(
                    "set by {} {}",
                    found.origin.object().kind,
                    found.origin.object().name
                ),
            ));
        }
        finding
    }

    pub(super) fn report_mutation(&mut self, refusal: &MutateRefusal) {
        match refusal {
            MutateRefusal::Matcher(causes) => {
                for cause in causes {
                    let finding = self
                        .view
                        .finding(
                            &rules::INVALID_MATCHER,
                            &FieldPath::parse(&cause.field),
                            cause.message.clone(),
                        )
                        .with_kubevirt_field(cause.field.clone());
                    self.push(finding);
                }
            }
            MutateRefusal::Schema(paths) => {
                for path in paths {
                    let finding = self
                        .view
                        .finding(
                            &rules::SCHEMA_VIOLATION,
                            &FieldPath::parse(path),
                            crate::schema::forbidden_property_message(path),
                        )
                        .with_help(format!(
                            "KubeVirt {} does not have this field yet: remove it or target a newer release",
                            self.profile.version
                        ));
                    self.push(finding);
                }
            }
            MutateRefusal::TooMany(fields) => {
                for field in fields {
                    let finding = self.view.finding(
                        &rules::SCHEMA_VIOLATION,
                        &FieldPath::parse(field),
                        crate::admission::list_limits::too_many_message(field),
                    );
                    self.push(finding);
                }
            }
            MutateRefusal::Inference { role, message } => {
                let path = FieldPath::parse(&format!("spec.{}.inferFromVolume", role.field()));
                let finding = self
                    .view
                    .finding(&rules::INFERENCE_FAILED, &path, message.clone())
                    .with_help("kvlint resolves inferFromVolume from the PVCs, DataVolumes, DataSources and VolumeSnapshots in the repository; set inferFromVolumeFailurePolicy: Ignore to tolerate a missing label, or name the instance type directly");
                self.push(finding);
            }
        }
    }

    pub(super) fn report_rejections(
        &mut self,
        rejections: Vec<Rejection>,
        instancetype: &Resolution<'_, InstancetypeSpec>,
        preference: &Resolution<'_, PreferenceSpec>,
    ) {
        for rejection in rejections {
            let finding = match rejection {
                Rejection::Conflict(conflict) => {
                    self.conflict_finding(&conflict, instancetype.found())
                }
                Rejection::Spread(cause) => {
                    let mut finding = self
                        .view
                        .finding(
                            &rules::SPREAD_NOT_DIVISIBLE,
                            &FieldPath::parse("spec.preference"),
                            cause.message,
                        )
                        .with_kubevirt_field(cause.field);
                    if let Some(found) = instancetype.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("cpu.guest"),
                            "vCPUs of the instance type",
                        ));
                    }
                    if let Some(found) = preference.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("cpu"),
                            "spread preference",
                        ));
                    }
                    finding
                }
                Rejection::Requirement {
                    cause,
                    by_instancetype,
                } => {
                    let first = cause.field.split(", ").next().unwrap_or("").to_owned();
                    let mut finding = self
                        .view
                        .finding(
                            &rules::PREFERENCE_REQUIREMENT,
                            &vm_path_of(&first),
                            cause.message,
                        )
                        .with_kubevirt_field(cause.field);
                    if by_instancetype && let Some(found) = instancetype.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::root(),
                            "the instance type provides",
                        ));
                    }
                    if let Some(found) = preference.found() {
                        finding = finding.with_related(related_at(
                            found,
                            &FieldPath::parse("requirements"),
                            "the preference requires",
                        ));
                    }
                    finding
                }
                Rejection::FindFailure { role, cause } => self
                    .view
                    .finding(
                        &rules::REFERENCE_REJECTED,
                        &FieldPath::parse(&format!("spec.{}", role.field())),
                        cause.message,
                    )
                    .with_kubevirt_field(cause.field),
                Rejection::VmSpec(cause) => {
                    // The pool validator runs this validation on its template: a pool's refusal.
                    let rule = if self.view.base.0.is_empty() {
                        &rules::VM_SPEC_INVALID
                    } else {
                        &rules::POOL_SPEC_INVALID
                    };
                    let finding = self
                        .view
                        .finding(
                            rule,
                            &vm_path_of(&cause.field),
                            self.view.kubevirt_text(&cause.message),
                        )
                        .with_kubevirt_field(self.view.kubevirt_text(&cause.field));
                    match feature_gate_help(&cause.message, self.profile.version) {
                        Some(help) => finding.with_help(help),
                        None => finding,
                    }
                }
                Rejection::Panic(message) => {
                    self.view
                        .finding(&rules::WEBHOOK_FAILURE, &FieldPath::parse("spec"), message)
                }
                Rejection::Defaults(error) => self.view.finding(
                    &rules::VM_SPEC_INVALID,
                    &FieldPath::parse("spec.template.spec"),
                    error.to_string(),
                ),
            };
            self.push(finding);
        }
    }

    pub(super) fn report_unresolved<T>(
        &mut self,
        role: MatcherRole,
        resolution: &Resolution<'_, T>,
    ) {
        let unresolved_rule = unresolved_rule(role);
        let mut path = FieldPath::parse(&format!("spec.{}", role.field()));
        match resolution {
            Resolution::Failed(err) => {
                if err.kind == resolve::FindErrorKind::Revision {
                    path = path.key("revisionName");
                }
                let mut finding = self
                    .view
                    .finding(unresolved_rule, &path, err.message.clone());
                let mut help = crate::rules::verdict::unresolved_help(
                    self.profile.version,
                    failed_find_condition(role),
                    None,
                );
                if let Some(note) = &err.note {
                    help = format!("{note}; {help}");
                }
                finding = finding.with_help(help);
                self.push(finding);
            }
            Resolution::Invalid { found, error } => {
                let object = found.origin.object();
                let finding = self
                    .view
                    .finding(
                        unresolved_rule,
                        &path,
                        format!("{} {} cannot be used: {error}", object.kind, object.name),
                    )
                    .with_related(related_at(found, &FieldPath::root(), "invalid object"));
                self.push(finding);
            }
            Resolution::Absent | Resolution::Found(_) => {}
        }
    }
}

impl Analysis<'_, '_> {
    /// References to catalog names that the target release's bundle labels deprecated (whether
    /// or not kvlint has their content).
    pub(super) fn deprecated_catalog_names(&mut self, repo: &Repo<'_>, vm: &Value) {
        if !repo.catalog.deployed_by_operator {
            return;
        }
        let version = self.profile.version;
        for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
            let Some(matcher) = vm
                .field("spec")
                .and_then(|s| s.field(role.field()))
                .and_then(Matcher::from_json)
            else {
                continue;
            };
            if matcher.resolved_kind(role) != crate::model::MatcherKind::Cluster
                || !crate::cluster::catalog::deprecated_in_release(
                    version.major,
                    version.minor,
                    &matcher.name,
                )
            {
                continue;
            }
            let defined_in_repo = repo.index.find(
                repo.objects,
                "",
                crate::k8s::INSTANCETYPE_GROUP,
                match role {
                    MatcherRole::Instancetype => "VirtualMachineClusterInstancetype",
                    MatcherRole::Preference => "VirtualMachineClusterPreference",
                },
                None,
                &matcher.name,
            );
            if defined_in_repo.is_some() {
                continue;
            }
            let path = FieldPath::parse(&format!("spec.{}.name", role.field()));
            let finding = self
                .view
                .finding(
                    &rules::CATALOG_DEPRECATED,
                    &path,
                    format!(
                        "{} is labelled deprecated in the common-instancetypes catalog KubeVirt {version} deploys, and a later release removes it",
                        matcher.name
                    ),
                )
                .with_help("switch to a current catalog entry (for example the u1 or o1 series, or the OS's current preference)");
            self.push(finding);
        }
    }

    /// Notes about references resolved from the catalog the cluster deploys.
    pub(super) fn catalog_notes(&mut self, repo: &Repo<'_>, role: MatcherRole, found: &Found<'_>) {
        let object = found.origin.object();
        if !repo.is_catalog(object) || !repo.catalog.deployed_by_operator {
            return;
        }
        let path = FieldPath::parse(&format!("spec.{}.name", role.field()));
        let version = self.profile.version;
        if let Some(bundled) = repo.catalog.approximated_from {
            let finding = self.view.finding(
                &rules::CATALOG_CONTENT_APPROXIMATED,
                &path,
                format!(
                    "{} {} is rendered with the content of common-instancetypes {}; KubeVirt {version} deploys {bundled}, whose content may differ",
                    object.kind,
                    object.name,
                    crate::resolve::catalog_source::BUILTIN_VERSION
                ),
            );
            self.push(finding);
        }
    }
}
/// The VM condition KubeVirt sets when it cannot find the object a matcher names.
pub(super) fn failed_find_condition(role: MatcherRole) -> &'static str {
    match role {
        MatcherRole::Instancetype => "FailedFindInstancetype",
        MatcherRole::Preference => "FailedFindPreference",
    }
}

/// A VM that a webhook refuses is not admitted: the help of its unresolved references says
/// so instead of "admits the VM".
pub(super) fn reconcile_verdicts(
    findings: &mut [Finding],
    version: crate::cluster::profile::KubeVirtVersion,
) {
    let Some(rejected_by) = findings
        .iter()
        .find(|f| {
            f.severity == rules::Severity::Error
                && crate::rules::verdict::Verdict::of(f.rule.category)
                    == Some(crate::rules::verdict::Verdict::Rejected)
        })
        .map(|f| f.rule.code)
    else {
        return;
    };
    for finding in findings {
        let Some(role) = [MatcherRole::Instancetype, MatcherRole::Preference]
            .into_iter()
            .find(|role| unresolved_rule(*role) == finding.rule)
        else {
            continue;
        };
        let condition = failed_find_condition(role);
        let admitted = crate::rules::verdict::unresolved_help(version, condition, None);
        let rejected =
            crate::rules::verdict::unresolved_help(version, condition, Some(rejected_by));
        if let Some(help) = &mut finding.help {
            *help = help.replace(&admitted, &rejected);
        }
    }
}

/// The rule that reports a matcher of `role` whose object cannot be found or used.
fn unresolved_rule(role: MatcherRole) -> &'static Rule {
    match role {
        MatcherRole::Instancetype => &rules::UNRESOLVED_INSTANCETYPE,
        MatcherRole::Preference => &rules::UNRESOLVED_PREFERENCE,
    }
}
