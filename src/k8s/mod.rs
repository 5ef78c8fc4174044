//! Kubernetes objects: the envelope of every document, the scope of kinds, and the index;
//! resource quantities (`quantity`).

mod index;
mod kustomize;
pub mod names;
pub mod quantity;

use std::sync::Arc;

pub use index::{Index, ObjectId};
pub use kustomize::{Kustomizations, is_kustomization_file, normalise as normalise_path};

use crate::diag::{Location, ObjectRef};
use crate::yaml::{FieldPath, Node, Span};

pub const KUBEVIRT_GROUP: &str = "kubevirt.io";
pub const INSTANCETYPE_GROUP: &str = "instancetype.kubevirt.io";

/// One Kubernetes object read from a document (or from an item of a `List`).
#[derive(Clone, Debug)]
pub struct Object {
    pub file: Arc<str>,
    /// Directory of the Kustomize unit the object is applied with (or "" for a plain tree).
    pub unit: Arc<str>,
    pub api_version: String,
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    /// Effective namespace: as written, else from Kustomize or `--namespace`; None when
    /// cluster-scoped.
    pub namespace: Option<String>,
    /// Whether `metadata.namespace` was written in the manifest.
    pub namespace_written: bool,
    pub node: Node,
    /// The same object in the file it came from, when the input is `kustomize build` output
    /// with origin annotations.
    pub origin: Option<Arc<OriginSource>>,
    /// The unit the object was rendered in (`kustomize build` run by kvlint): its spans are
    /// positions in `file`, the file the object came from.
    pub rendered_in: Option<Arc<RenderedIn>>,
}

/// Where a rendered object comes from.
#[derive(Debug)]
pub struct RenderedIn {
    pub unit: Arc<crate::diag::UnitRef>,
    /// Finds the patch or transformer line that wrote a field, when an overlay did.
    pub attribution: Option<Box<dyn Attribute>>,
    /// Fields whose rendered value still holds a `${…}` expression the unit's controller
    /// substitutes with a value kvlint cannot read (a SOPS-encrypted variable source).
    pub unresolved: Vec<FieldPath>,
    /// Fields whose rendered value the controller substituted from variables, with where
    /// those are defined (Flux `postBuild`).
    pub variables: Vec<(FieldPath, Vec<crate::diag::Related>)>,
}

impl RenderedIn {
    /// Whether a finding at `path` would judge a value that is unknown offline: the path is an
    /// unresolved field, or the object that holds one.
    pub fn judges_unknown(&self, path: &str) -> bool {
        let path = FieldPath::parse(path);
        self.unresolved.iter().any(|field| concerns(field, &path))
    }

    /// Where the variables substituted into the value a finding at `path` judges are defined.
    pub fn variables_of(&self, path: &str) -> Vec<&crate::diag::Related> {
        let path = FieldPath::parse(path);
        self.variables
            .iter()
            .filter(|(field, _)| concerns(field, &path))
            .flat_map(|(_, related)| related)
            .collect()
    }
}

/// Whether a finding at `path` is about `field`: it is the field, or the object that holds it
/// (`spec.instancetype` for `spec.instancetype.name`).
fn concerns(field: &FieldPath, path: &FieldPath) -> bool {
    field == path
        || field
            .0
            .split_last()
            .is_some_and(|(_, parent)| parent == path.0.as_slice())
}

/// Which line of another file (a patch, a kustomization) produced a field of a rendered
/// object.
pub trait Attribute: std::fmt::Debug + Send + Sync {
    fn location(&self, path: &FieldPath) -> Option<Location>;
}

/// An object as written in its original source file.
#[derive(Clone, Debug)]
pub struct OriginSource {
    pub file: Arc<str>,
    pub node: Node,
}

impl Object {
    pub fn object_ref(&self) -> ObjectRef {
        ObjectRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }

    pub fn location(&self, span: Span) -> Location {
        Location {
            file: Arc::clone(&self.file),
            span,
        }
    }

    /// Location of the field at `path`, or of its nearest existing parent. For `kustomize
    /// build` output, a field that exists in the original file is located there.
    pub fn field_location(&self, path: &FieldPath) -> Location {
        if let Some(found) = self
            .rendered_in
            .as_ref()
            .and_then(|rendered| rendered.attribution.as_ref())
            .and_then(|attribution| attribution.location(path))
        {
            return found;
        }
        if let Some(origin) = &self.origin {
            let (span, exact) = origin.node.lookup_entry_span(path);
            if exact {
                return Location {
                    file: Arc::clone(&origin.file),
                    span,
                };
            }
        }
        self.location(self.node.lookup_entry_span(path).0)
    }

    /// Location of the object itself: its `kind` line, or the document start.
    pub fn head_location(&self) -> Location {
        if self.origin.is_some() {
            return self.field_location(&FieldPath::parse("kind"));
        }
        let span = self.node.entry("kind").map_or(self.node.span, |e| Span {
            start: e.key_span.start,
            end: e.value.span.end,
        });
        self.location(span)
    }

    pub fn display_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{}/{}", ns, self.name),
            None => self.name.clone(),
        }
    }
}

/// Splits `group/version` (core objects have no group).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

/// Whether a kind is cluster-scoped. Unknown kinds are assumed namespaced, as most custom
/// resources are.
pub fn is_cluster_scoped(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        (
            INSTANCETYPE_GROUP,
            "VirtualMachineClusterInstancetype" | "VirtualMachineClusterPreference"
        ) | (
            "",
            "Namespace" | "Node" | "PersistentVolume" | "ComponentStatus"
        ) | (
            "rbac.authorization.k8s.io",
            "ClusterRole" | "ClusterRoleBinding"
        ) | ("apiextensions.k8s.io", "CustomResourceDefinition")
            | (
                "storage.k8s.io",
                "StorageClass" | "CSIDriver" | "CSINode" | "VolumeAttachment"
            )
            | ("scheduling.k8s.io", "PriorityClass")
            | ("node.k8s.io", "RuntimeClass")
            | (
                "admissionregistration.k8s.io",
                "MutatingWebhookConfiguration"
                    | "ValidatingWebhookConfiguration"
                    | "ValidatingAdmissionPolicy"
                    | "ValidatingAdmissionPolicyBinding"
            )
            | ("apiregistration.k8s.io", "APIService")
            | ("snapshot.storage.k8s.io", "VolumeSnapshotClass")
            | ("cdi.kubevirt.io", "CDI" | "CDIConfig" | "StorageProfile")
            | ("networking.k8s.io", "IngressClass")
            | ("config.openshift.io", _)
            | ("cluster.x-k8s.io", "ClusterClass")
            | ("policy", "PodSecurityPolicy")
    )
}
