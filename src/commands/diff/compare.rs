//! Building the diff: both sides' VMs paired, each with its summary and what KubeVirt does.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::MATCHER_RENAMED;
use super::changes::text_at;
use super::changes::{Prefixes, field_changes, field_lines, vm_spec};
use super::identity::{
    MatcherRef, ObjectKey, ROLES, VmKey, VmMatchers, full_kind, matchers, role_index,
};
use super::inputs::{Inputs, Revision, WrittenMatcher, WrittenVm, comparable};
use super::live::{as_controller_sees, template_effect};
use super::model::{
    DiffFinding, Effect, EffectKind, ObjectDiff, ObjectUser, Place, Relation, VmDiff, VmStatus,
};
use super::pool::{self, SELECTOR_IMMUTABLE};
use super::summary::{arrow, matcher_changes, section, summarise};
use crate::check::Report;
use crate::check::vm::Rendered;
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::controller::liveupdate::{ClusterSettings, Rollout};
use crate::controller::vm::{Cluster, without_empty};
use crate::diag::{Category, Finding, ObjectRef};
use crate::model::{Matcher, MatcherRole};
use crate::rules::verdict::Verdict;
use crate::yaml::emit::to_yaml;

/// One VM on one side.
#[derive(Default)]
pub(super) struct SideVm<'a> {
    kind: String,
    rendered: Option<&'a Rendered>,
    findings: Vec<&'a Finding>,
    resolved: VmMatchers,
    written: Option<&'a WrittenVm>,
    /// KV4001 (revisionName in spec) per role.
    revision_finding: [bool; 2],
}

impl SideVm<'_> {
    /// Messages of the findings of a category (whatever severity a configuration gives them:
    /// KubeVirt refuses all the same).
    pub(super) fn messages(&self, category: Category) -> Vec<String> {
        self.findings
            .iter()
            .filter(|f| f.rule.category == category)
            .map(|f| f.message.clone())
            .collect()
    }

    pub(super) fn place(&self) -> Option<Place> {
        self.rendered
            .map(|r| Place {
                file: r.file.to_string(),
                line: r.line,
            })
            .or_else(|| {
                self.written.map(|w| Place {
                    file: w.file.clone(),
                    line: w.line,
                })
            })
    }

    pub(super) fn run_strategy(&self) -> Option<String> {
        let spec = self.spec()?;
        text_at(spec, &["runStrategy"]).or_else(|| {
            spec.get("running")
                .and_then(Value::as_bool)
                .map(|running| format!("running: {running}"))
        })
    }

    pub(super) fn spec(&self) -> Option<&Value> {
        vm_spec(&self.rendered?.value, &self.kind)
    }

    /// The matcher as written, else as resolved with what the findings tell of `revisionName`.
    pub(super) fn written_matcher(&self, role: MatcherRole) -> Option<WrittenMatcher> {
        if let Some(written) = self.written {
            return written.matcher(role).cloned();
        }
        let resolved = self.resolved.get(role)?;
        Some(WrittenMatcher {
            matcher: Matcher {
                name: resolved.name.clone(),
                kind: resolved.kind.clone(),
                ..Matcher::default()
            },
            revision: if self.revision_finding[role_index(role)] {
                Revision::Unknown
            } else {
                Revision::Absent
            },
        })
    }

    /// Not rendered, but a `revisionName` names a ControllerRevision that only the cluster
    /// holds: the VM is live there all the same.
    pub(super) fn pinned_to_cluster_revision(&self) -> bool {
        self.rendered.is_none()
            && ROLES.iter().any(|role| {
                self.written_matcher(*role)
                    .is_some_and(|m| matches!(m.revision, Revision::Named(_) | Revision::Unknown))
            })
    }

    pub(super) fn is_stopped(&self) -> bool {
        let Some(spec) = self.spec() else {
            return false;
        };
        spec.get("runStrategy").and_then(Value::as_str) == Some("Halted")
            || spec.get("running").and_then(Value::as_bool) == Some(false)
    }
}

pub(super) fn side_vms<'a>(report: &'a Report, inputs: &'a Inputs) -> BTreeMap<VmKey, SideVm<'a>> {
    let mut vms: BTreeMap<VmKey, SideVm<'a>> = BTreeMap::new();
    for rendered in &report.rendered {
        // A pool's VMs share its template: the first stands for the pool.
        let name = rendered.pool.as_deref().unwrap_or(&rendered.name);
        let key = VmKey::new(&rendered.namespace, name);
        let vm = vms.entry(key).or_default();
        if vm.rendered.is_none() {
            vm.rendered = Some(rendered);
            // A pool is named as the object written in Git, not as the VMs it creates.
            let kind = if rendered.pool.is_some() {
                "VirtualMachinePool"
            } else {
                rendered_kind(rendered)
            };
            kind.clone_into(&mut vm.kind);
        }
    }
    for finding in &report.findings {
        let Some(object) = &finding.object else {
            continue;
        };
        if !matches!(
            object.kind.as_str(),
            "VirtualMachine" | "VirtualMachinePool"
        ) {
            continue;
        }
        let key = VmKey::new(object.namespace.clone().unwrap_or_default(), &object.name);
        let vm = vms.entry(key).or_default();
        if vm.kind.is_empty() {
            vm.kind.clone_from(&object.kind);
        }
        vm.findings.push(finding);
        if finding.rule == &crate::rules::REVISION_NAME_IN_SPEC {
            let path = finding.path.as_deref().unwrap_or_default();
            for role in ROLES {
                if path.ends_with(&format!("{}.revisionName", role.field())) {
                    vm.revision_finding[role_index(role)] = true;
                }
            }
        }
    }
    for (key, written) in &inputs.vms {
        let vm = vms.entry(key.clone()).or_default();
        if vm.kind.is_empty() {
            vm.kind.clone_from(&written.kind);
        }
        vm.written = Some(written);
    }
    let resolved = matchers(report);
    for (key, vm) in &mut vms {
        vm.resolved = resolved.get(key).cloned().unwrap_or_default();
        if let Some(written) = vm.written {
            for role in ROLES {
                if vm.resolved.get(role).is_none()
                    && let Some(m) = written.matcher(role)
                    && !m.matcher.name.is_empty()
                {
                    *vm.resolved.slot(role) = Some(MatcherRef {
                        kind: full_kind(role, m.matcher.resolved_kind(role), &m.matcher.kind),
                        name: m.matcher.name.clone(),
                    });
                }
            }
        }
    }
    vms
}

fn rendered_kind(rendered: &Rendered) -> &str {
    rendered
        .value
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("VirtualMachine")
}

/// The mutating webhook's update rule (`pkg/instancetype/webhooks/vm/mutator.go`,
/// `validateMatcherUpdate`) for a live VM created from `base`
/// and updated to `head`, and what KubeVirt up to v1.4 wrote into the live spec.
pub(super) fn matcher_update_refusal(
    base: &SideVm<'_>,
    head: &SideVm<'_>,
    version: KubeVirtVersion,
) -> Option<Effect> {
    // VirtualMachinePools have a validating webhook only: nothing refuses a renamed matcher
    // in a pool's template.
    if head.kind == "VirtualMachinePool" {
        return None;
    }
    for role in ROLES {
        let (Some(old), Some(new)) = (base.written_matcher(role), head.written_matcher(role))
        else {
            continue;
        };
        let renamed = old.matcher.name != new.matcher.name;
        if !renamed {
            continue;
        }
        let field = format!("spec.{}.revisionName", role.field());
        // Up to v1.4 the controller wrote revisionName into the live spec; an apply that does
        // not mention it keeps it (`pkg/instancetype/instancetype.go` at v1.4.0,
        // `GenerateRevisionNamePatch`).
        let live_old = match (&old.revision, version.at_least(1, 5)) {
            (Revision::Absent, false) => Revision::Unknown,
            (revision, _) => revision.clone(),
        };
        let new_revision = match (&new.revision, &live_old) {
            (Revision::Absent, Revision::Unknown) if !version.at_least(1, 5) => Revision::Unknown,
            (revision, _) => revision.clone(),
        };
        let same = match (&new_revision, &live_old) {
            (Revision::Absent | Revision::Empty, _)
            | (Revision::Unknown | Revision::Named(_), Revision::Absent | Revision::Empty) => false,
            (Revision::Named(a), Revision::Named(b)) => a == b,
            (Revision::Unknown, _) | (_, Revision::Unknown) => true,
        };
        if same {
            let mut details = vec![format!(
                "{} {} → {} while {field} stays set; clear {field} in the same change (or remove it)",
                role.noun(),
                old.matcher.name,
                new.matcher.name
            )];
            if !version.at_least(1, 5) && old.revision == Revision::Absent {
                details.push(format!(
                    "KubeVirt {version} wrote {field} into the live VM; set it to \"\" to clear it"
                ));
            }
            return Some(
                Effect::new(EffectKind::Rejected, format!("rejected: {MATCHER_RENAMED}"))
                    .with_details(details),
            );
        }
    }
    None
}

/// The pool validator's refusal of an update that changes a pool's selector. It validates the
/// pool as on create as well, and names those refusals first.
fn pool_update_refusal(base: &SideVm<'_>, head: &SideVm<'_>) -> Option<Effect> {
    let (Some(old), Some(new)) = (base.written, head.written) else {
        return None;
    };
    if new.kind != "VirtualMachinePool" || old.kind != new.kind {
        return None;
    }
    let detail = pool::selector_change(&old.object, &new.object)?;
    let mut effect = match first_error_effect(head).filter(|e| e.kind == EffectKind::Rejected) {
        Some(mut effect) => {
            effect.details.push(SELECTOR_IMMUTABLE.to_owned());
            effect
        }
        None => Effect::new(
            EffectKind::Rejected,
            format!("rejected: {SELECTOR_IMMUTABLE}"),
        ),
    };
    effect.details.push(detail);
    Some(effect)
}

/// Whether a VM has an instance type or a preference.
fn has_matchers(vm: &SideVm<'_>) -> bool {
    ROLES.iter().any(|role| vm.resolved.get(*role).is_some())
}

pub(super) struct Context<'a> {
    pub(super) rollout: Rollout,
    pub(super) version: KubeVirtVersion,
    /// The head side's cluster.
    pub(super) profile: &'a ClusterProfile,
    pub(super) settings: &'a ClusterSettings,
    pub(super) changed_objects: &'a BTreeSet<ObjectKey>,
}

/// What the findings of a side say KubeVirt does with it: rejections first, then references
/// it admits but cannot resolve. The first message leads, the others are details.
pub(super) fn first_error_effect(vm: &SideVm<'_>) -> Option<Effect> {
    [
        (Category::Reject, EffectKind::Rejected),
        (Category::Unresolved, EffectKind::CannotStart),
    ]
    .into_iter()
    .find_map(|(category, kind)| {
        let verdict = Verdict::of(category)?.label();
        let mut messages = vm.messages(category).into_iter();
        let first = messages.next()?;
        Some(Effect::new(kind, format!("{verdict}: {first}")).with_details(messages.collect()))
    })
}

pub(super) fn uses_changed_object(key: &VmKey, vm: &SideVm<'_>, ctx: &Context<'_>) -> Vec<String> {
    vm.resolved
        .object_keys(&key.namespace)
        .into_iter()
        .filter(|k| ctx.changed_objects.contains(k))
        .map(|k| k.to_string())
        .collect()
}

pub(super) fn vm_effect(
    key: &VmKey,
    base: &SideVm<'_>,
    head: &SideVm<'_>,
    ctx: &Context<'_>,
    notes: &mut Vec<String>,
) -> Effect {
    // The update rule is the mutating webhook's first step on an update: it refuses before
    // anything else. (A base that kvlint finds rejected may still be live: a `revisionName`
    // names a ControllerRevision that exists only in the cluster.)
    if let Some(effect) = matcher_update_refusal(base, head, ctx.version) {
        return effect;
    }
    let base_in_cluster = base.pinned_to_cluster_revision();
    if !base_in_cluster && first_error_effect(base).is_some_and(|e| e.kind == EffectKind::Rejected)
    {
        notes.push("KubeVirt rejects the base revision of this VM, so no live VM exists from it: the change applies as a create".to_owned());
        return first_error_effect(head)
            .unwrap_or_else(|| Effect::new(EffectKind::Created, "created"));
    }
    if let Some(effect) = pool_update_refusal(base, head) {
        return effect;
    }
    if let Some(effect) = first_error_effect(head) {
        return effect;
    }
    let changed_objects = uses_changed_object(key, head, ctx);
    let switched = base.resolved != head.resolved;
    if let (Some(b), Some(h)) = (base.written, head.written)
        && b.object == h.object
    {
        let mut effect = Effect::new(
            EffectKind::KeepsRevision,
            "no change to the existing VM: its manifest is unchanged",
        );
        if !changed_objects.is_empty() {
            effect.details.push(format!(
                "the rendered difference comes from {}, which this VM does not see: it keeps its stored ControllerRevision; only new VMs, and VMs that switch to it, get the new values",
                changed_objects.join(" and ")
            ));
        }
        return effect;
    }
    if !changed_objects.is_empty() && !switched {
        notes.push(format!(
            "part of the rendered difference comes from {}, which this existing VM does not see (it keeps its stored ControllerRevision); the verdict counts it and may overstate the change",
            changed_objects.join(" and ")
        ));
    }
    let (Some(b), Some(h)) = (base.rendered, head.rendered) else {
        return unrendered_effect(base, base_in_cluster, notes);
    };
    let prefixes = Prefixes::for_kind(&head.kind);
    // Expand gives a VM with an instance type or preference KubeVirt's VMI defaults, a VM
    // without them none: when only one side has them, the other gets the same defaults.
    let mixed = has_matchers(base) != has_matchers(head);
    let seen = |rendered: &Value, side: &SideVm<'_>| {
        let template = section(rendered, &prefixes.template);
        as_controller_sees(&template, ctx.profile, mixed, has_matchers(side))
    };
    let (last, current) = (seen(&b.value, base), seen(&h.value, head));
    let migration = head
        .spec()
        .and_then(|s| s.get("updateVolumesStrategy"))
        .and_then(Value::as_str)
        == Some("Migration");
    let cluster = Cluster::new(ctx.rollout, ctx.settings, ctx.profile);
    let effect = template_effect(&last, &current, &cluster, migration);
    let mut effect = match effect {
        Some(_) if base.is_stopped() => Effect::new(
            EffectKind::AppliedAtStart,
            "applied when the VM starts (it is not running on the base revision)",
        )
        .with_details(field_lines(&without_empty(&last), &without_empty(&current))),
        Some(mut effect) => {
            if switched && effect.kind == EffectKind::LiveUpdate {
                effect.details.insert(
                    0,
                    "the switch changes only what LiveUpdate applies to a running VM".to_owned(),
                );
            }
            effect
        }
        None if comparable(&b.value) == comparable(&h.value) => Effect::none(),
        None => Effect::new(
            EffectKind::NoRestart,
            "updated without a restart (no field of the template spec changed)",
        ),
    };
    let (before, after) = (base.run_strategy(), head.run_strategy());
    if before != after {
        effect.details.push(format!(
            "run strategy {}: the VM controller starts or stops the VM to match",
            arrow(
                before.as_deref().unwrap_or("(none)"),
                after.as_deref().unwrap_or("(none)")
            )
        ));
    }
    effect
}

/// What KubeVirt does with a changed VM when a side could not be rendered.
fn unrendered_effect(base: &SideVm<'_>, base_in_cluster: bool, notes: &mut Vec<String>) -> Effect {
    if base_in_cluster {
        let revisions: Vec<String> = ROLES
            .iter()
            .filter_map(|role| match base.written_matcher(*role)?.revision {
                Revision::Named(name) => {
                    Some(format!("{name} (spec.{}.revisionName)", role.field()))
                }
                _ => None,
            })
            .collect();
        let mut effect = Effect::new(
            EffectKind::Undetermined,
            "accepted; what the running VM gets is not known: the base revision uses a ControllerRevision that only the cluster holds",
        );
        if !revisions.is_empty() {
            effect.details.push(format!(
                "ControllerRevision {} is not in the repository; the running VM was built from it",
                revisions.join(", ")
            ));
        }
        return effect;
    }
    if base.rendered.is_none() {
        notes.push("the base revision could not be rendered".to_owned());
        return Effect::new(
            EffectKind::AppliedAtStart,
            "applied: the base revision of this VM could not start, this one can",
        );
    }
    Effect::new(EffectKind::CannotStart, "cannot be rendered")
}

pub(super) fn unified(before: &str, after: &str, a: &str, b: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string()
}

pub(super) fn vm_diff(
    key: &VmKey,
    base: Option<&SideVm<'_>>,
    head: Option<&SideVm<'_>>,
    ctx: &Context<'_>,
) -> VmDiff {
    let empty = SideVm::default();
    let (b, h) = (base.unwrap_or(&empty), head.unwrap_or(&empty));
    let kind = if h.kind.is_empty() { &b.kind } else { &h.kind };
    let mut notes = Vec::new();
    let rendered_values = (
        b.rendered.map(|r| comparable(&r.value)),
        h.rendered.map(|r| comparable(&r.value)),
    );
    let status = match (base, head) {
        (None, _) => VmStatus::Added,
        (_, None) => VmStatus::Removed,
        _ => {
            let written_same = match (b.written, h.written) {
                (Some(x), Some(y)) => x.object == y.object,
                _ => true,
            };
            let rendered_same = rendered_values.0 == rendered_values.1;
            // A manifest that changes while its rendering does not (a matcher renamed while its
            // revisionName pins the old ControllerRevision) is a change the webhooks judge.
            let same = if b.rendered.is_none() && h.rendered.is_none() {
                written_same
            } else {
                rendered_same && written_same
            };
            if same && b.resolved == h.resolved {
                VmStatus::Unchanged
            } else {
                VmStatus::Changed
            }
        }
    };
    let effect = match status {
        VmStatus::Unchanged => Effect::none(),
        VmStatus::Added => {
            first_error_effect(h).unwrap_or_else(|| Effect::new(EffectKind::Created, "created"))
        }
        VmStatus::Removed => Effect::new(
            EffectKind::Deleted,
            "deleted where the sync prunes (Argo CD with pruning, Flux with prune: true); kubectl apply leaves it",
        ),
        VmStatus::Changed => vm_effect(key, b, h, ctx, &mut notes),
    };
    let changes = match (status, &rendered_values) {
        (VmStatus::Changed, (Some(bv), Some(hv))) => {
            // The renderings are VMs (a pool's, the VM it creates): their paths are a VM's.
            let rendered = h
                .rendered
                .or(b.rendered)
                .map_or("VirtualMachine", rendered_kind);
            summarise(bv, hv, rendered, &b.resolved, &h.resolved)
        }
        (VmStatus::Changed | VmStatus::Added, _) => matcher_changes(&b.resolved, &h.resolved),
        _ => Vec::new(),
    };
    let diff = match (status, &rendered_values) {
        (VmStatus::Changed, (Some(bv), Some(hv))) => unified(
            &to_yaml(bv),
            &to_yaml(hv),
            &format!("a/{key}"),
            &format!("b/{key}"),
        ),
        (VmStatus::Added, (_, Some(hv))) => {
            unified("", &to_yaml(hv), "/dev/null", &format!("b/{key}"))
        }
        // A side that cannot be rendered: the manifests as written say what changed.
        (VmStatus::Changed, _) => match (b.written, h.written) {
            (Some(x), Some(y)) => unified(
                &to_yaml(&x.object),
                &to_yaml(&y.object),
                &format!("a/{key} (as written)"),
                &format!("b/{key} (as written)"),
            ),
            _ => String::new(),
        },
        _ => String::new(),
    };
    if status == VmStatus::Changed {
        for (side, vm) in [("base", b), ("head", h)] {
            if vm.rendered.is_none() {
                notes.push(format!("not rendered on the {side} side; see its findings"));
            }
        }
    }
    VmDiff {
        namespace: key.namespace.clone(),
        name: key.name.clone(),
        kind: kind.clone(),
        status,
        base: b.place(),
        head: h.place(),
        base_matchers: b.resolved.clone(),
        head_matchers: h.resolved.clone(),
        changes,
        effect,
        notes,
        diff,
    }
}

pub(super) fn object_diffs(
    base: &Inputs,
    head: &Inputs,
    base_vms: &BTreeMap<VmKey, SideVm<'_>>,
    head_vms: &BTreeMap<VmKey, SideVm<'_>>,
) -> Vec<ObjectDiff> {
    let keys: BTreeSet<&ObjectKey> = base.objects.keys().chain(head.objects.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        let (b, h) = (base.objects.get(key), head.objects.get(key));
        let status = match (b, h) {
            (None, Some(_)) => VmStatus::Added,
            (Some(_), None) => VmStatus::Removed,
            (Some(b), Some(h)) if b.spec != h.spec => VmStatus::Changed,
            _ => continue,
        };
        let null = Value::Null;
        let (bs, hs) = (b.map_or(&null, |o| &o.spec), h.map_or(&null, |o| &o.spec));
        let label = match &key.namespace {
            Some(namespace) => format!("{}/{namespace}/{}", key.kind, key.name),
            None => format!("{}/{}", key.kind, key.name),
        };
        let yaml = |v: &Value| {
            if v.is_null() {
                String::new()
            } else {
                to_yaml(v)
            }
        };
        let mut used_by = Vec::new();
        for (vm_key, vm) in head_vms {
            if !vm.resolved.object_keys(&vm_key.namespace).contains(key) {
                continue;
            }
            let relation = match base_vms.get(vm_key) {
                None => Relation::NewVm,
                Some(before) if before.resolved.object_keys(&vm_key.namespace).contains(key) => {
                    Relation::KeepsRevision
                }
                Some(_) => Relation::Switches,
            };
            used_by.push(ObjectUser {
                namespace: vm_key.namespace.clone(),
                name: vm_key.name.clone(),
                relation,
            });
        }
        let note = match status {
            VmStatus::Changed => {
                "existing VMs keep their stored ControllerRevision: only new VMs, and VMs that switch to it, see the new values"
            }
            VmStatus::Removed => {
                "existing VMs keep their stored ControllerRevision; VMs created later that reference it cannot start"
            }
            _ => "new VMs, and VMs that switch to it, use these values",
        };
        let place = h
            .or(b)
            .map_or((String::new(), 0), |o| (o.file.clone(), o.line));
        out.push(ObjectDiff {
            kind: key.kind.clone(),
            namespace: key.namespace.clone(),
            name: key.name.clone(),
            status,
            file: place.0,
            line: place.1,
            fields: field_changes(bs, hs),
            used_by,
            note: note.to_owned(),
            diff: unified(
                &yaml(bs),
                &yaml(hs),
                &format!("a/{label}"),
                &format!("b/{label}"),
            ),
        });
    }
    out
}

pub(super) type FindingKey = (
    &'static str,
    Option<ObjectRef>,
    Option<String>,
    String,
    Option<String>,
);

/// A finding's identity across the sides: rule, object, path and message; the file only for
/// findings about no object. Lines are ignored.
pub(super) fn finding_key(finding: &Finding) -> FindingKey {
    (
        finding.rule.code,
        finding.object.clone(),
        finding.path.clone(),
        finding.message.clone(),
        finding
            .object
            .is_none()
            .then(|| finding.location.file.to_string()),
    )
}

/// Findings of `from` that `other` does not have (counted as a multiset).
pub(super) fn only_in(from: &Report, other: &Report) -> Vec<DiffFinding> {
    let mut available: BTreeMap<FindingKey, usize> = BTreeMap::new();
    for finding in &other.findings {
        *available.entry(finding_key(finding)).or_default() += 1;
    }
    let mut out = Vec::new();
    for finding in &from.findings {
        match available.get_mut(&finding_key(finding)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(DiffFinding::of(finding)),
        }
    }
    out
}
