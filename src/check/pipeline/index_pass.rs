//! The index pass: every file read a batch at a time, everything but plain VM documents
//! parsed and checked, and what VMs may reference kept for the run.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use foldhash::HashMap;
use rayon::prelude::*;

use crate::check::Summary;
use crate::check::objects::{Duplicates, Identity, object_findings};
use crate::check::vm;
use crate::cluster::profile::KubeVirtVersion;
use crate::diag::Finding;
use crate::k8s::{self, Object};
use crate::load::{self, DeferredFile};
use crate::schema::SchemaLocations;
use crate::suppress::inline::Suppression;
use crate::yaml::Value;

/// Whether VMs may reference the object, or it configures the cluster.
pub(super) fn referenced(object: &Object) -> bool {
    crate::resolve::is_referenced_kind(&object.group, &object.kind)
        || (object.group == k8s::KUBEVIRT_GROUP && object.kind == "KubeVirt")
        || crate::cluster::hyperconverged::is_hyperconverged(object)
}

/// Volumes are kept for inference from volumes only, which reads their metadata, `spec.source`
/// and `spec.sourceRef`; the rest of their trees need not stay in memory.
fn keep_inference_fields(object: &mut Object) {
    let volume = matches!(
        (object.group.as_str(), object.kind.as_str()),
        ("", "PersistentVolumeClaim")
            | ("snapshot.storage.k8s.io", "VolumeSnapshot")
            | ("cdi.kubevirt.io", "DataVolume" | "DataSource")
    );
    let Value::Map(entries) = &mut object.node.value else {
        return;
    };
    if !volume {
        return;
    }
    entries.retain(|e| matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata" | "spec"));
    if let Some(Value::Map(spec)) = entries.value_mut("spec").map(|spec| &mut spec.value) {
        spec.retain(|e| matches!(e.key.as_str(), "source" | "sourceRef"));
    }
}

/// A referenced object as the index keeps it for the whole run: a volume with only the fields
/// inference reads, and every map, list and string copied at its length. The parser grows
/// collections by doubling and the scanner's strings carry spare capacity, which kept objects
/// would hold for nothing (tens of MB of peak RSS on the 100k repository).
pub(super) fn kept_for_the_run(mut object: Object) -> Object {
    keep_inference_fields(&mut object);
    object.node = object.node.clone();
    object
}

/// Findings and suppressions waiting for their file's turn in the report.
#[derive(Debug, Default)]
pub(super) struct Pending {
    pub(super) findings: BTreeMap<Arc<str>, Vec<Finding>>,
    pub(super) suppressions: BTreeMap<Arc<str>, Vec<Suppression>>,
}

impl Pending {
    pub(super) fn add(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for finding in findings {
            self.findings
                .entry(Arc::clone(&finding.location.file))
                .or_default()
                .push(finding);
        }
    }

    pub(super) fn add_suppressions(&mut self, suppressions: impl IntoIterator<Item = Suppression>) {
        for suppression in suppressions {
            self.suppressions
                .entry(Arc::clone(&suppression.file))
                .or_default()
                .push(suppression);
        }
    }

    /// Takes everything about files up to `last` (everything when None), in file order.
    pub(super) fn take(&mut self, last: Option<&str>) -> (Vec<Finding>, Vec<Suppression>) {
        self.take_up_to(last.map_or(Bound::Unbounded, Bound::Included))
    }

    /// Takes everything about files before `first`, in file order.
    pub(super) fn take_before(&mut self, first: &str) -> (Vec<Finding>, Vec<Suppression>) {
        self.take_up_to(Bound::Excluded(first))
    }

    fn take_up_to(&mut self, end: Bound<&str>) -> (Vec<Finding>, Vec<Suppression>) {
        fn split<T>(map: &mut BTreeMap<Arc<str>, Vec<T>>, end: Bound<&str>) -> Vec<T> {
            let keys: Vec<Arc<str>> = map
                .range::<str, _>((Bound::Unbounded, end))
                .map(|(key, _)| Arc::clone(key))
                .collect();
            keys.iter()
                .filter_map(|key| map.remove(key))
                .flatten()
                .collect()
        }
        (
            split(&mut self.findings, end),
            split(&mut self.suppressions, end),
        )
    }
}

/// What the index pass keeps.
#[derive(Debug, Default)]
pub(super) struct IndexPass {
    pub(super) summary: Summary,
    /// Objects VMs may reference.
    pub(super) referenced: Vec<Object>,
    /// VMs the index pass had to parse (flow style, JSON, suppression comments, ...), by file.
    pub(super) vms: HashMap<Arc<str>, Vec<Object>>,
    /// VM documents left for the VM pass, by input position.
    pub(super) deferred: HashMap<usize, DeferredFile>,
    pub(super) pending: Pending,
    pub(super) duplicates: Duplicates,
    pub(super) sources: Vec<(Arc<str>, Arc<str>)>,
    /// False when a finding may point into another file than its object's (`kustomize build`
    /// output with origin annotations): the VM pass then runs as one batch.
    pub(super) streamable: bool,
}

impl IndexPass {
    pub(super) fn absorb(
        &mut self,
        pass: load::FirstPass,
        version: KubeVirtVersion,
        locations: &SchemaLocations,
    ) {
        let loaded = pass.loaded;
        self.summary.files += loaded.files;
        self.summary.documents += loaded.documents;
        self.summary.skipped += loaded.skipped;
        self.summary.units += loaded.units;
        self.summary.objects += loaded.objects.len();
        self.sources.extend(loaded.sources);
        self.pending.add(loaded.findings);
        self.pending.add_suppressions(loaded.suppressions);
        self.deferred
            .extend(pass.deferred.into_iter().map(|file| (file.input, file)));
        self.streamable &= loaded.objects.iter().all(|o| o.origin.is_none());

        let (vms, others): (Vec<Object>, Vec<Object>) =
            loaded.objects.into_iter().partition(vm::is_vm);
        for vm in vms {
            self.vms.entry(Arc::clone(&vm.file)).or_default().push(vm);
        }
        let checked: Vec<Vec<Finding>> = others
            .par_iter()
            .map(|object| in_unit(object, object_findings(object, version, locations)))
            .collect();
        for findings in checked {
            self.pending.add(findings);
        }
        for object in others {
            let duplicate = self.duplicates.see(Identity::of(&object));
            self.pending
                .add(in_unit(&object, duplicate.into_iter().collect()));
            if referenced(&object) {
                self.referenced.push(kept_for_the_run(object));
            }
        }
    }
}

impl IndexPass {
    /// Takes rendered objects as the units stage reads them (a unit at a time): those that are
    /// not VMs are checked and indexed now (under their rendered names and namespaces), and
    /// their findings returned, to be merged across units; so are the VMs (those read without
    /// a build: an Argo CD Directory app's), for the VM pass. The units' other VMs stay in
    /// their build outputs.
    pub(super) fn absorb_rendered(
        &mut self,
        objects: Vec<Object>,
        version: KubeVirtVersion,
        locations: &SchemaLocations,
    ) -> (Vec<Object>, Vec<Finding>) {
        self.summary.objects += objects.len();
        self.summary.documents += objects.len();
        let (vms, others): (Vec<Object>, Vec<Object>) = objects.into_iter().partition(vm::is_vm);
        let checked: Vec<Vec<Finding>> = others
            .par_iter()
            .map(|object| in_unit(object, object_findings(object, version, locations)))
            .collect();
        let mut findings: Vec<Finding> = checked.into_iter().flatten().collect();
        for object in others {
            let duplicate = self.duplicates.see(Identity::of(&object));
            findings.extend(in_unit(&object, duplicate.into_iter().collect()));
            if referenced(&object) {
                self.referenced.push(kept_for_the_run(object));
            }
        }
        (vms, findings)
    }

    /// Takes what the units stage leaves besides the objects it handed to
    /// [`IndexPass::absorb_rendered`], and returns the units whose VMs stay in their build
    /// outputs.
    pub(super) fn absorb_units(
        &mut self,
        rendering: crate::units::Rendering,
    ) -> crate::units::StreamedUnits {
        let streamed = rendering.streamed.objects();
        self.summary.objects += streamed;
        self.summary.documents += streamed;
        self.summary.units += rendering.units;
        self.summary.kustomize = rendering.tool;
        self.summary.helm = rendering.helm;
        self.sources.extend(rendering.sources);
        self.pending.add(rendering.findings);
        self.pending.add_suppressions(rendering.suppressions);
        rendering.streamed
    }
}

/// Findings about an object rendered in a unit name that unit; those that would judge a
/// value the unit leaves unknown offline are dropped (the unit reports the variable).
pub(super) fn in_unit(object: &Object, mut findings: Vec<Finding>) -> Vec<Finding> {
    if let Some(rendered) = &object.rendered_in {
        if !rendered.unresolved.is_empty() {
            findings.retain(|finding| {
                !finding
                    .path
                    .as_deref()
                    .is_some_and(|path| rendered.judges_unknown(path))
            });
        }
        if !rendered.variables.is_empty() {
            for finding in &mut findings {
                let Some(path) = finding.path.as_deref() else {
                    continue;
                };
                for related in rendered.variables_of(path) {
                    if !finding.related.contains(related) {
                        finding.related.push(related.clone());
                    }
                }
            }
        }
        for finding in &mut findings {
            finding.unit = Some(Arc::clone(&rendered.unit));
        }
    }
    findings
}
