//! The findings of one VM: what the webhooks refuse, what cannot be resolved, and what the
//! catalog says about the names used.

use serde_json::Value;

use super::resolution::{Resolution, related_at};
use super::view::{VmView, instancetype_field, vm_path_of};
use crate::admission::Cause;
use crate::admission::mutate::MutateRefusal;
use crate::admission::validate::Rejection;
use crate::cluster::profile::ClusterProfile;
use crate::diag::Finding;
use crate::model::value::Fields;
use crate::model::{InstancetypeSpec, MatcherRole, PreferenceSpec};
use crate::render::Conflict;
use crate::resolve::{self, Found, Repo};
use crate::rules;
use crate::rules::reject::catalog_content_approximated::{self, Approximated};
use crate::rules::reject::{
    At, Matcher, RelatedField, Reported, deprecated_catalog_entry, infer_from_volume_failed,
    instancetype_conflict, invalid_matcher, missing_reference_rejected, mutation_schema,
    pool_spec_invalid, pool_vm_rejected, preference_requirement, spread_not_divisible, unresolved,
    vm_spec_invalid, webhook_failure,
};
use crate::yaml::FieldPath;

pub(super) struct Analysis<'r, 'a> {
    pub(super) profile: &'r ClusterProfile,
    pub(super) view: VmView<'a>,
    pub(super) findings: Vec<Finding>,
    /// The references not found, by the index of their finding: their help says whether the
    /// VM is admitted, known once every finding is.
    pub(super) not_found: Vec<(usize, unresolved::NotFound)>,
    /// For a pool, the causes its validator gives for the template: a VM webhook's refusal that
    /// is not among them refuses only the VMs the pool creates.
    pool_template: Option<Vec<Cause>>,
    /// Whether a conflict with the instance type was reported as a refusal.
    pub(super) conflict_refused: bool,
}

impl<'r, 'a> Analysis<'r, 'a> {
    pub(super) fn new(profile: &'r ClusterProfile, view: VmView<'a>) -> Self {
        Self {
            profile,
            view,
            findings: Vec::new(),
            not_found: Vec::new(),
            pool_template: None,
            conflict_refused: false,
        }
    }
}

impl Analysis<'_, '_> {
    pub(super) fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Places a rule's finding in the VM's object: at its VM field, with the places it names
    /// in the instance type and the preference, those that were found.
    pub(super) fn place(
        &self,
        reported: Reported,
        instancetype: Option<&Found<'_>>,
        preference: Option<&Found<'_>>,
    ) -> Finding {
        let path = match &reported.at {
            At::Field(field) => FieldPath::parse(field),
            At::Cause(field) => vm_path_of(field),
        };
        let mut finding = self.view.finding(reported.rule, &path, reported.message);
        if let Some(field) = reported.kubevirt_field {
            finding = finding.with_kubevirt_field(field);
        }
        if let Some(help) = reported.help {
            finding = finding.with_help(help);
        }
        for related in reported.related {
            let found = match related.object {
                Matcher::Instancetype => instancetype,
                Matcher::Preference => preference,
            };
            let Some(found) = found else {
                continue;
            };
            let field = match &related.field {
                RelatedField::Field(field) => FieldPath::parse(field),
                RelatedField::SettingOf(conflict) => instancetype_field(conflict),
            };
            finding = finding.with_related(related_at(found, &field, related.label));
        }
        finding
    }

    /// Places a finding that names no place in a referenced object.
    fn push_reported(&mut self, reported: Reported) {
        let finding = self.place(reported, None, None);
        self.push(finding);
    }

    /// A VM webhook's refusal as this object's finding: a pool's is about the VMs it creates.
    fn vm_refusal(&self, refusal: Reported) -> Reported {
        if self.pool_template.is_some() {
            pool_vm_rejected::each_vm_refused(refusal)
        } else {
            refusal
        }
    }

    /// Reports the pool validator's refusals of a pool's template (`verdict`: its causes, named
    /// as it names them, or why its code panics); the VM webhooks' refusals then are of the VMs
    /// the pool creates.
    pub(super) fn judge_pool_template(&mut self, verdict: Result<Vec<Cause>, String>) {
        let causes = verdict.unwrap_or_else(|panic| {
            self.push_reported(webhook_failure::panicked(panic));
            Vec::new()
        });
        for cause in &causes {
            let cause = vm_spec_invalid::Cause {
                shown_field: self.view.kubevirt_text(&cause.field),
                shown_message: self.view.kubevirt_text(&cause.message),
                field: cause.field.clone(),
            };
            let reported = pool_spec_invalid::template_refused(cause, &self.profile.version);
            self.push_reported(reported);
        }
        self.pool_template = Some(causes);
    }

    /// The conflict of a VM field with the instance type (`instancetype`, when found).
    fn conflict(&self, conflict: &Conflict, instancetype: Option<&Found<'_>>) -> Reported {
        let set_by = instancetype.map(|found| {
            let object = found.origin.object();
            (object.kind.as_str(), object.name.as_str())
        });
        instancetype_conflict::conflict(
            &conflict.path,
            conflict.message_for(self.profile.version),
            set_by,
        )
    }

    pub(super) fn report_mutation(&mut self, refusal: &MutateRefusal) {
        let version = self.profile.version;
        let refusals: Vec<Reported> = match refusal {
            MutateRefusal::Matcher(causes) => causes
                .iter()
                .map(|cause| invalid_matcher::refused(&cause.field, cause.message.clone()))
                .collect(),
            MutateRefusal::Schema(paths) => paths
                .iter()
                .map(|path| {
                    mutation_schema::unknown_to_release(
                        path,
                        crate::schema::forbidden_property_message(path),
                        &version,
                    )
                })
                .collect(),
            MutateRefusal::TooMany(fields) => fields
                .iter()
                .map(|field| {
                    mutation_schema::too_many(
                        field,
                        crate::admission::list_limits::too_many_message(field),
                    )
                })
                .collect(),
            // A missing template the pool validator refuses the pool for already.
            MutateRefusal::Required(field)
                if self
                    .pool_template
                    .as_ref()
                    .is_some_and(|causes| causes.iter().any(|cause| cause.field == *field)) =>
            {
                Vec::new()
            }
            MutateRefusal::Required(field) => vec![mutation_schema::required(field)],
            MutateRefusal::Inference { role, message } => vec![infer_from_volume_failed::failed(
                matcher_of(*role),
                message.clone(),
            )],
        };
        for refusal in refusals {
            self.push_reported(self.vm_refusal(refusal));
        }
    }

    pub(super) fn report_rejections(
        &mut self,
        rejections: Vec<Rejection>,
        instancetype: &Resolution<'_, InstancetypeSpec>,
        preference: &Resolution<'_, PreferenceSpec>,
    ) {
        for rejection in rejections {
            if let (Some(template_causes), Rejection::VmSpec(cause)) =
                (&self.pool_template, &rejection)
                && template_causes.contains(cause)
            {
                // The pool validator refuses the pool for it already.
                continue;
            }
            let reported = match rejection {
                Rejection::Conflict(conflict) => {
                    self.conflict_refused = true;
                    self.conflict(&conflict, instancetype.found())
                }
                Rejection::Spread(cause) => {
                    spread_not_divisible::not_divisible(cause.field, cause.message)
                }
                Rejection::Requirement {
                    cause,
                    by_instancetype,
                } => preference_requirement::unmet(cause.field, cause.message, by_instancetype),
                Rejection::FindFailure { role, cause } => missing_reference_rejected::refused(
                    matcher_of(role),
                    cause.field,
                    cause.message,
                ),
                Rejection::VmSpec(cause) => vm_spec_invalid::refused(
                    vm_spec_invalid::Cause {
                        shown_field: cause.field.clone(),
                        shown_message: cause.message,
                        field: cause.field,
                    },
                    &self.profile.version,
                ),
                Rejection::Panic(message) => webhook_failure::panicked(message),
                Rejection::Defaults(error) => vm_spec_invalid::defaults_failed(error.to_string()),
            };
            let reported = self.vm_refusal(reported);
            let finding = self.place(reported, instancetype.found(), preference.found());
            self.push(finding);
        }
    }

    pub(super) fn report_unresolved<T>(
        &mut self,
        role: MatcherRole,
        resolution: &Resolution<'_, T>,
    ) {
        let matcher = matcher_of(role);
        match resolution {
            Resolution::Failed(err) => {
                let not_found = unresolved::NotFound {
                    matcher,
                    revision: err.kind == resolve::FindErrorKind::Revision,
                    message: err.message.clone(),
                    note: err.note.clone(),
                };
                let reported = unresolved::not_found(&not_found, &self.profile.version, None);
                self.push_reported(reported);
                self.not_found.push((self.findings.len() - 1, not_found));
            }
            Resolution::Invalid { found, error } => {
                let object = found.origin.object();
                let reported = unresolved::unusable(matcher, &object.kind, &object.name, error);
                let finding = match role {
                    MatcherRole::Instancetype => self.place(reported, Some(found), None),
                    MatcherRole::Preference => self.place(reported, None, Some(found)),
                };
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
                .and_then(crate::model::Matcher::from_json)
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
            let reported =
                deprecated_catalog_entry::deprecated(matcher_of(role), &matcher.name, &version);
            self.push_reported(reported);
        }
    }

    /// Notes about references resolved from the catalog the cluster deploys.
    pub(super) fn catalog_notes(&mut self, repo: &Repo<'_>, role: MatcherRole, found: &Found<'_>) {
        let object = found.origin.object();
        if !repo.is_catalog(object) || !repo.catalog.deployed_by_operator {
            return;
        }
        let version = self.profile.version;
        if let Some(bundled) = repo.catalog.approximated_from {
            let reported = catalog_content_approximated::approximated(&Approximated {
                matcher: matcher_of(role),
                kind: &object.kind,
                name: &object.name,
                rendered_with: crate::resolve::catalog_source::BUILTIN_VERSION,
                version: &version,
                deployed: &bundled,
            });
            self.push_reported(reported);
        }
    }
}

/// The rule files' name for a matcher.
pub(super) const fn matcher_of(role: MatcherRole) -> Matcher {
    match role {
        MatcherRole::Instancetype => Matcher::Instancetype,
        MatcherRole::Preference => Matcher::Preference,
    }
}

impl Analysis<'_, '_> {
    /// The findings. A VM that a webhook refuses is not admitted: the help of its references
    /// not found says so instead of "admits the VM".
    pub(super) fn into_findings(self) -> Vec<Finding> {
        let mut findings = self.findings;
        let rejected_by = findings
            .iter()
            .find(|f| {
                f.severity == rules::Severity::Error
                    && crate::rules::verdict::Verdict::of(f.rule.category)
                        == Some(crate::rules::verdict::Verdict::Rejected)
            })
            .map(|f| f.rule.code);
        let Some(rejected_by) = rejected_by else {
            return findings;
        };
        for (index, not_found) in &self.not_found {
            let reported =
                unresolved::not_found(not_found, &self.profile.version, Some(rejected_by));
            findings[*index].help = reported.help;
        }
        findings
    }
}
