//! `kvlint diff`: what a change to the repository does to every VM, for pull-request previews.
//!
//! Both sides are checked as usual ([`crate::check::run`]); this module compares the outcomes.
//! It is pure except for [`load_inputs`], which reads a side's manifests once more.
//!
//! # What a side consists of
//!
//! * The [`Report`] of `check::run`: the rendered VMs (KubeVirt's expand) and the findings.
//! * Optionally the side's [`Inputs`]: what the report does not keep — the instance types and
//!   preferences the repository defines, the VMs as written (their matchers, with
//!   `revisionName`) and the live-update settings of a `KubeVirt` object or of `.kvlint.yaml`'s
//!   `cluster:`. [`load_inputs`] reads them with the same options as `check::run`.
//!
//! [`diff`] compares two reports alone; the matchers are then taken from the rendered VMs'
//! origins ([`matchers`]) and a `revisionName` is known only from the KV4001 finding. [`diff_with`]
//! also takes both sides' inputs and adds the comparison of instance types and preferences.
//!
//! # What KubeVirt does with a change
//!
//! Judged as KubeVirt's VM controller judges a running VM whose template changed
//! (`pkg/virt-controller/watch/vm/vm.go`): with the `LiveUpdate` rollout strategy CPU sockets
//! within `maxSockets`,
//! guest memory within `maxGuest`, node placement (nodeSelector, affinity, tolerations) and
//! hotpluggable volumes are applied to the running VM; any other difference of the template
//! spec sets `RestartRequired`. With `Stage` every template difference needs a restart but
//! hotpluggable volumes and network interfaces, which are hotplugged whatever the strategy
//! (and also beside a restart). The templates are compared as the controller compares them:
//! as stored (the mutating webhook's architecture and machine type) and without the VMI
//! defaults that expand adds to a VM with an instance type or preference.
//! The matcher update rule of the mutating webhook (`pkg/instancetype/webhooks/vm/mutator.go`,
//! `validateMatcherUpdate`), the pool validator's immutable selector (`pool`) and the findings
//! of category
//! `reject` of the head side decide rejections. Existing VMs keep the ControllerRevision of
//! their instance type and preference (`pkg/instancetype/revision/store.go`, `Store`), so a
//! changed instance type reaches only
//! new VMs and VMs that switch to it. A base VM that cannot be rendered because its
//! `revisionName` names a ControllerRevision only the cluster holds is live all the same: what
//! its running VM gets is undetermined.
//!
//! [`revision`] reads a side from a git revision (`--base`, `--head`).
pub mod revision;

mod changes;
mod compare;
mod identity;
mod inputs;
mod live;
mod model;
mod output;
mod pool;
mod summary;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use crate::check::Report;
use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use compare::{Context, object_diffs, only_in, side_vms, vm_diff};

pub use crate::controller::liveupdate::{ClusterSettings, Rollout};
pub use crate::controller::vm::NON_LIVE_UPDATABLE;
pub use changes::field_changes;
pub use identity::{MatcherRef, ObjectKey, VmKey, VmMatchers, matchers};
pub use inputs::{
    Inputs, Revision, SpecObject, WrittenMatcher, WrittenVm, load_inputs, load_inputs_from,
    relabel, relabel_copy,
};
pub use model::{
    Aspect, Change, Counts, Diff, DiffFinding, Effect, EffectKind, FieldChange, ObjectDiff,
    ObjectUser, Place, Relation, VmDiff, VmStatus,
};
pub use output::{json, markdown, text};

/// The mutating webhook's refusal of a matcher rename that keeps the `revisionName`.
pub const MATCHER_RENAMED: &str =
    "the Matcher Name has been updated without updating the RevisionName";

/// Field changes listed under "other" before the rest is counted.
const OTHER_FIELDS: usize = 8;

/// Compares two reports alone (no instance-type comparison; see [`diff_with`]).
pub fn diff(base: &Report, head: &Report) -> Diff {
    diff_with(base, &Inputs::default(), head, &Inputs::default())
}

/// Compares two sides: their reports and their [`Inputs`]. The head side's target version and
/// its inputs' cluster settings decide the rollout strategy.
pub fn diff_with(base: &Report, base_inputs: &Inputs, head: &Report, head_inputs: &Inputs) -> Diff {
    let profile = head
        .profile
        .clone()
        .unwrap_or_else(|| ClusterProfile::new(KubeVirtVersion::LATEST));
    let version = profile.version;
    let settings = &head_inputs.cluster;
    let rollout = Rollout::effective(settings.rollout, &profile);
    let base_vms = side_vms(base, base_inputs);
    let head_vms = side_vms(head, head_inputs);
    let objects = object_diffs(base_inputs, head_inputs, &base_vms, &head_vms);
    let changed_objects: BTreeSet<ObjectKey> = objects
        .iter()
        .filter(|o| o.status != VmStatus::Added)
        .map(ObjectDiff::key)
        .collect();
    let ctx = Context {
        rollout,
        version,
        profile: &profile,
        settings,
        changed_objects: &changed_objects,
    };
    let keys: BTreeSet<&VmKey> = base_vms.keys().chain(head_vms.keys()).collect();
    let vms: Vec<VmDiff> = keys
        .into_iter()
        .map(|key| vm_diff(key, base_vms.get(key), head_vms.get(key), &ctx))
        .collect();
    let introduced = only_in(head, base);
    let fixed = only_in(base, head);

    let rollout_source = if settings.rollout == Some(Rollout::LiveUpdate)
        && rollout == Rollout::Stage
    {
        format!(
            "the repository's KubeVirt configuration sets LiveUpdate, which KubeVirt {version} follows only with the VMLiveUpdateFeatures feature gate"
        )
    } else if settings.rollout.is_some() {
        "as the repository's KubeVirt configuration sets".to_owned()
    } else if rollout == Rollout::LiveUpdate {
        "KubeVirt v1.6+ default".to_owned()
    } else if version.at_least(1, 2) {
        "the default up to KubeVirt v1.5".to_owned()
    } else {
        // vmRolloutStrategy exists from v1.2; before it nothing was applied to a running VM.
        "KubeVirt before v1.2 has no vmRolloutStrategy and behaves so".to_owned()
    };
    let mut assumptions = vec![
        "the live VM was created from the base revision and is running".to_owned(),
        format!("{rollout} rollout ({rollout_source}; target KubeVirt {version})"),
    ];
    if rollout == Rollout::LiveUpdate {
        assumptions.push(format!(
            "hotplug limits: maxSockets and maxGuest as the VM or its instance type sets them, else {} (KubeVirt's defaults for a VM without them)",
            match (&settings.max_cpu_sockets, &settings.max_guest) {
                (None, None) => format!("{} × the base revision's sockets and guest memory", settings.ratio()),
                _ => "the cluster's liveUpdateConfiguration".to_owned(),
            }
        ));
    }
    let mut diff = Diff {
        assumptions,
        rollout,
        kubevirt_version: version.to_string(),
        counts: Counts::default(),
        vms,
        objects,
        introduced,
        fixed,
    };
    diff.recount();
    diff
}

impl Diff {
    /// Sets `counts` from the lists, after they were built or narrowed.
    pub fn recount(&mut self) {
        let mut counts = Counts {
            objects: self.objects.len(),
            introduced: self.introduced.len(),
            fixed: self.fixed.len(),
            ..Counts::default()
        };
        for vm in &self.vms {
            match vm.status {
                VmStatus::Added => counts.added += 1,
                VmStatus::Removed => counts.removed += 1,
                VmStatus::Changed => counts.changed += 1,
                VmStatus::Unchanged => counts.unchanged += 1,
            }
            match vm.effect.kind {
                EffectKind::Rejected => counts.rejected += 1,
                EffectKind::RestartRequired => counts.restart_required += 1,
                EffectKind::LiveUpdate => counts.live_update += 1,
                _ => {}
            }
        }
        self.counts = counts;
    }
}
