//! Finding the instance type and preference a VM references (`pkg/instancetype/find`,
//! `pkg/instancetype/preference/find`), with the repository index in place of the API server;
//! where cluster-scoped names resolve when the repository does not define them
//! (`catalog_source`).

pub mod catalog_source;
mod infer;

pub use infer::{InferError, Inferred, infer};

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex, PoisonError};

use foldhash::HashMap;
use serde_json::Value;

use crate::cluster::backports;
use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::{INSTANCETYPE_GROUP, Index, Object};
use crate::model::{DecodeError, Matcher, MatcherKind, MatcherRole};
use crate::resolve::catalog_source::Catalog;

/// Whether a VM may reference objects of this kind: only these are kept for [`Repo::find`] once
/// a large repository has been indexed (every lookup asserts that its kind is listed here).
pub fn is_referenced_kind(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        (crate::k8s::INSTANCETYPE_GROUP, _)
            | ("apps", "ControllerRevision")
            | ("", "PersistentVolumeClaim")
            | ("snapshot.storage.k8s.io", "VolumeSnapshot")
            | ("cdi.kubevirt.io", "DataVolume" | "DataSource")
    )
}

/// The objects kvlint can see: the repository, then the cluster catalog.
#[derive(Clone, Copy)]
pub struct Repo<'a> {
    pub objects: &'a [Object],
    pub index: &'a Index,
    pub catalog: &'a Catalog,
    pub version: KubeVirtVersion,
    /// Specs already converted and decoded, shared by every VM that references them.
    pub specs: &'a SpecCache,
}

/// The specs of referenced objects, converted to JSON and decoded once per object (a shared
/// instance type is referenced by thousands of VMs).
#[derive(Default)]
pub struct SpecCache {
    json: Mutex<HashMap<(usize, &'static str), Arc<Value>>>,
    decoded: Mutex<HashMap<(usize, TypeId), Arc<dyn Any + Send + Sync>>>,
}

impl SpecCache {
    /// The JSON of `object`'s node at `field` (`spec`, or `data` of a ControllerRevision).
    fn json(&self, object: &Object, field: &'static str) -> Arc<Value> {
        let key = (std::ptr::from_ref(object) as usize, field);
        let mut json = self.json.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(json.entry(key).or_insert_with(|| {
            Arc::new(
                object
                    .node
                    .get(field)
                    .map_or(Value::Null, crate::yaml::Node::to_json),
            )
        }))
    }

    /// `found`'s spec decoded as `T`, or the decoder's error.
    pub fn decode<T>(&self, found: &Found<'_>) -> Arc<Result<T, DecodeError>>
    where
        T: serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        let key = (
            std::ptr::from_ref(found.origin.object()) as usize,
            TypeId::of::<T>(),
        );
        let cached = self
            .decoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .cloned();
        if let Some(decoded) = cached.and_then(|any| any.downcast::<Result<T, DecodeError>>().ok())
        {
            return decoded;
        }
        // Decoded outside the lock: two threads may both decode the same spec, with the same result.
        let decoded = Arc::new(crate::model::decode::<T>(&found.spec));
        self.decoded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, Arc::clone(&decoded) as Arc<dyn Any + Send + Sync>);
        decoded
    }
}

impl<'a> Repo<'a> {
    /// An object by identity: the repository's copy (the one applied with `unit` first), else
    /// the catalog's. Repository objects always win.
    pub fn find(
        &self,
        unit: &str,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&'a Object> {
        debug_assert!(
            is_referenced_kind(group, kind),
            "{group}/{kind} is looked up but not kept by the index pass"
        );
        self.index
            .find(self.objects, unit, group, kind, namespace, name)
            .or_else(|| {
                self.catalog
                    .index
                    .find(&self.catalog.objects, unit, group, kind, namespace, name)
            })
    }

    /// Whether an object came from the catalog rather than the repository.
    pub fn is_catalog(&self, object: &Object) -> bool {
        self.catalog
            .sources
            .iter()
            .any(|(file, _)| *file == object.file)
    }
}

/// Why a catalog name is missing in the target release, when the built-in catalog knows it.
fn missing_catalog_name_note(repo: &Repo<'_>, name: &str) -> Option<String> {
    if !repo.catalog.deployed_by_operator {
        return None;
    }
    let latest = KubeVirtVersion::LATEST;
    let (instancetypes, preferences) =
        crate::cluster::catalog::names_in_release(latest.major, latest.minor);
    if !instancetypes.contains(&name) && !preferences.contains(&name) {
        return None;
    }
    let bundled = crate::cluster::catalog::bundled_version(repo.version.major, repo.version.minor)
        .unwrap_or("none");
    Some(format!(
        "{name} is in common-instancetypes {}, but KubeVirt {} deploys {bundled}, which does not have it",
        crate::resolve::catalog_source::BUILTIN_VERSION,
        repo.version
    ))
}

/// Where a resolved spec came from.
#[derive(Clone, Copy, Debug)]
pub enum Origin<'a> {
    /// An instance type or preference object (repository or built-in catalog).
    Object(&'a Object),
    /// A ControllerRevision; the spec is its embedded object's.
    Revision(&'a Object),
}

impl<'a> Origin<'a> {
    pub fn object(&self) -> &'a Object {
        match self {
            Self::Object(o) | Self::Revision(o) => o,
        }
    }

    /// Path of the spec inside the origin object.
    pub fn spec_prefix(&self) -> &'static str {
        match self {
            Self::Object(_) => "spec",
            Self::Revision(_) => "data.spec",
        }
    }
}

/// A found spec, still as JSON (decoded by the caller).
#[derive(Clone, Debug)]
pub struct Found<'a> {
    pub spec: Arc<Value>,
    pub origin: Origin<'a>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindErrorKind {
    NotFound,
    UnexpectedKind,
    Revision,
    Unserved,
}

/// Why a reference cannot be resolved, with KubeVirt's error text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindError {
    pub kind: FindErrorKind,
    pub message: String,
    /// Extra explanation for humans (not part of KubeVirt's text).
    pub note: Option<String>,
}

fn kinds(role: MatcherRole) -> (&'static str, &'static str, &'static str, &'static str) {
    match role {
        MatcherRole::Instancetype => (
            "VirtualMachineInstancetype",
            "virtualmachineinstancetypes",
            "VirtualMachineClusterInstancetype",
            "virtualmachineclusterinstancetypes",
        ),
        MatcherRole::Preference => (
            "VirtualMachinePreference",
            "virtualmachinepreferences",
            "VirtualMachineClusterPreference",
            "virtualmachineclusterpreferences",
        ),
    }
}

/// Whether KubeVirt `version` serves `instancetype.kubevirt.io/<api_version>`.
pub fn is_served(api_version: &str, version: KubeVirtVersion) -> bool {
    match api_version {
        "v1beta1" => true,
        "v1alpha1" | "v1alpha2" => !version.at_least(1, 6),
        _ => false,
    }
}

/// Finds the spec a matcher references (KubeVirt `pkg/instancetype/find/spec.go`, `Find`;
/// `pkg/instancetype/find/revision.go`): `revisionName` first, then a status
/// reference to a revision (v1.5+; of the object the matcher names from v1.5.2), then the
/// object by kind.
pub fn find<'a>(
    repo: &Repo<'a>,
    vm: &Object,
    role: MatcherRole,
    matcher: &Matcher,
    status_ref: Option<&Value>,
) -> Result<Found<'a>, FindError> {
    let namespace = vm.namespace.as_deref();
    if !matcher.revision_name.is_empty() {
        return find_revision(repo, vm, role, &matcher.revision_name);
    }
    if repo.version.at_least(1, 5) {
        let revision = status_ref
            .and_then(|r| r.get("controllerRevisionRef"))
            .and_then(|r| r.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        if let Some(revision) = revision
            && let Some(object) =
                repo.find(&vm.unit, "apps", "ControllerRevision", namespace, revision)
        {
            let label = object
                .node
                .get("metadata")
                .and_then(|m| m.get("labels"))
                .and_then(|l| l.get("instancetype.kubevirt.io/object-name"))
                .and_then(|n| n.as_str());
            let of_referenced_object = label == Some(matcher.name.as_str())
                || !repo
                    .version
                    .has_change(backports::STATUS_REVISION_OF_REFERENCED_OBJECT);
            if of_referenced_object {
                return revision_spec(repo, object, role);
            }
        }
    }
    let (namespaced_kind, namespaced_plural, cluster_kind, cluster_plural) = kinds(role);
    let (kind, plural, namespace) = match matcher.resolved_kind(role) {
        MatcherKind::Namespaced => (namespaced_kind, namespaced_plural, namespace),
        MatcherKind::Cluster => (cluster_kind, cluster_plural, None),
        MatcherKind::Unexpected => {
            return Err(FindError {
                kind: FindErrorKind::UnexpectedKind,
                message: format!(
                    "got unexpected kind in {}: {}",
                    role.go_type(),
                    matcher.kind
                ),
                note: Some(format!(
                    "accepted kinds are {namespaced_kind} and {cluster_kind} (any case, singular or plural); short names are not"
                )),
            });
        }
    };
    let not_found = |note: Option<String>| FindError {
        kind: FindErrorKind::NotFound,
        message: format!(
            "{plural}.{INSTANCETYPE_GROUP} \"{}\" not found",
            matcher.name
        ),
        note,
    };
    let Some(object) = repo.find(&vm.unit, INSTANCETYPE_GROUP, kind, namespace, &matcher.name)
    else {
        let note = namespace
            .is_none()
            .then(|| missing_catalog_name_note(repo, &matcher.name))
            .flatten();
        return Err(not_found(note));
    };
    if !is_served(&object.version, repo.version) {
        return Err(FindError {
            kind: FindErrorKind::Unserved,
            ..not_found(Some(format!(
                "{} defines it as {}, which KubeVirt {} does not serve",
                object.file, object.api_version, repo.version
            )))
        });
    }
    Ok(Found {
        spec: repo.specs.json(object, "spec"),
        origin: Origin::Object(object),
    })
}

fn find_revision<'a>(
    repo: &Repo<'a>,
    vm: &Object,
    role: MatcherRole,
    name: &str,
) -> Result<Found<'a>, FindError> {
    match repo.find(&vm.unit, "apps", "ControllerRevision", vm.namespace.as_deref(), name) {
        Some(object) => revision_spec(repo, object, role),
        None => Err(FindError {
            kind: FindErrorKind::Revision,
            message: format!("controllerrevisions.apps \"{name}\" not found"),
            note: Some(
                "revisionName names a ControllerRevision that the cluster created; it is not in the repository".to_owned(),
            ),
        }),
    }
}

/// The spec embedded in a ControllerRevision (KubeVirt `pkg/instancetype/compatibility/
/// compatibility.go`, `GetInstancetypeSpec`). v1.7+ only decode v1beta1 payloads.
fn revision_spec<'a>(
    repo: &Repo<'a>,
    revision: &'a Object,
    role: MatcherRole,
) -> Result<Found<'a>, FindError> {
    let data = repo.specs.json(revision, "data");
    let api_version = data.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = data.get("kind").and_then(Value::as_str).unwrap_or("");
    let (namespaced_kind, _, cluster_kind, _) = kinds(role);
    let version = api_version
        .strip_prefix("instancetype.kubevirt.io/")
        .unwrap_or("");
    let decodable = if repo.version.at_least(1, 7) {
        version == "v1beta1"
    } else {
        matches!(version, "v1beta1" | "v1alpha1" | "v1alpha2")
    };
    if !decodable {
        return Err(FindError {
            kind: FindErrorKind::Revision,
            message: format!(
                "failed to decode object in ControllerRevision: no kind \"{kind}\" is registered for version \"{api_version}\""
            ),
            note: Some(format!(
                "KubeVirt {} only reads v1beta1 revisions",
                repo.version
            )),
        });
    }
    if kind != namespaced_kind && kind != cluster_kind {
        return Err(FindError {
            kind: FindErrorKind::Revision,
            message: format!("unexpected type in ControllerRevision: {kind}"),
            note: None,
        });
    }
    Ok(Found {
        spec: Arc::new(data.get("spec").cloned().unwrap_or(Value::Null)),
        origin: Origin::Revision(revision),
    })
}

#[cfg(test)]
#[path = "find_tests.rs"]
mod tests;
