//! `inferFromVolume` (`pkg/instancetype/infer`): the instance type or preference named by the
//! labels of the volume's PVC, DataVolume, DataSource or VolumeSnapshot.

use serde_json::Value;

use super::Repo;
use crate::k8s::Object;
use crate::model::MatcherRole;
use crate::yaml::Node;

/// What inference found: the matcher KubeVirt writes instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inferred {
    pub name: String,
    pub kind: String,
}

/// Why inference failed. `ignorable` errors are dropped under the `Ignore` failure policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferError {
    pub message: String,
    pub ignorable: bool,
}

fn ignorable(message: impl Into<String>) -> InferError {
    InferError {
        message: message.into(),
        ignorable: true,
    }
}

fn fatal(message: impl Into<String>) -> InferError {
    InferError {
        message: message.into(),
        ignorable: false,
    }
}

fn label_keys(role: MatcherRole) -> (&'static str, &'static str) {
    match role {
        MatcherRole::Instancetype => (
            "instancetype.kubevirt.io/default-instancetype",
            "instancetype.kubevirt.io/default-instancetype-kind",
        ),
        MatcherRole::Preference => (
            "instancetype.kubevirt.io/default-preference",
            "instancetype.kubevirt.io/default-preference-kind",
        ),
    }
}

fn labels(object: &Object) -> Option<&Node> {
    object.node.get("metadata").and_then(|m| m.get("labels"))
}

fn from_labels(labels: Option<&Node>, role: MatcherRole) -> Option<Inferred> {
    let (name_key, kind_key) = label_keys(role);
    let labels = labels?;
    let name = labels.get(name_key).and_then(Node::as_str)?;
    Some(Inferred {
        name: name.to_owned(),
        kind: labels
            .get(kind_key)
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_owned(),
    })
}

fn missing_label(role: MatcherRole) -> InferError {
    ignorable(format!(
        "unable to find required {} label on the volume",
        label_keys(role).0
    ))
}

struct Lookup<'r, 'a> {
    repo: &'r Repo<'a>,
    unit: &'r str,
    namespace: &'r str,
    role: MatcherRole,
}

impl Lookup<'_, '_> {
    fn object(&self, group: &str, kind: &str, namespace: &str, name: &str) -> Option<&Object> {
        self.repo
            .find(self.unit, group, kind, Some(namespace), name)
    }

    fn pvc(&self, namespace: &str, name: &str) -> Result<Inferred, InferError> {
        let pvc = self
            .object("", "PersistentVolumeClaim", namespace, name)
            .ok_or_else(|| fatal(format!("persistentvolumeclaims \"{name}\" not found")))?;
        from_labels(labels(pvc), self.role).ok_or_else(|| missing_label(self.role))
    }

    fn snapshot(&self, namespace: &str, name: &str) -> Result<Inferred, InferError> {
        let snapshot = self
            .object("snapshot.storage.k8s.io", "VolumeSnapshot", namespace, name)
            .ok_or_else(|| {
                fatal(format!(
                    "volumesnapshots.snapshot.storage.k8s.io \"{name}\" not found"
                ))
            })?;
        from_labels(labels(snapshot), self.role).ok_or_else(|| missing_label(self.role))
    }

    fn data_source(&self, namespace: &str, name: &str) -> Result<Inferred, InferError> {
        let source = self
            .object("cdi.kubevirt.io", "DataSource", namespace, name)
            .ok_or_else(|| fatal(format!("datasources.cdi.kubevirt.io \"{name}\" not found")))?;
        if let Some(found) = from_labels(labels(source), self.role) {
            return Ok(found);
        }
        let spec_source = source.node.get("spec").and_then(|s| s.get("source"));
        if let Some(pvc) = spec_source.and_then(|s| s.get("pvc")) {
            let ns = pvc.get("namespace").and_then(Node::as_str).unwrap_or("");
            let name = pvc.get("name").and_then(Node::as_str).unwrap_or("");
            return self.pvc(ns, name);
        }
        if self.repo.version.at_least(1, 9) {
            if let Some(snapshot) = spec_source.and_then(|s| s.get("snapshot")) {
                let ns = snapshot
                    .get("namespace")
                    .and_then(Node::as_str)
                    .unwrap_or("");
                let name = snapshot.get("name").and_then(Node::as_str).unwrap_or("");
                return self.snapshot(ns, name);
            }
            return Err(ignorable(
                "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC or DataVolumeSourceSnapshot",
            ));
        }
        Err(ignorable(
            "unable to infer defaults from DataSource that doesn't provide DataVolumeSourcePVC",
        ))
    }

    /// A DataVolume spec (from a dataVolumeTemplate or a DataVolume object).
    fn data_volume_spec(&self, spec: Option<&Value>) -> Result<Inferred, InferError> {
        let source = spec.and_then(|s| s.get("source"));
        if let Some(pvc) = source.and_then(|s| s.get("pvc")) {
            let ns = pvc.get("namespace").and_then(Value::as_str).unwrap_or("");
            let name = pvc.get("name").and_then(Value::as_str).unwrap_or("");
            return self.pvc(ns, name);
        }
        if self.repo.version.at_least(1, 9)
            && let Some(snapshot) = source.and_then(|s| s.get("snapshot"))
        {
            let ns = snapshot
                .get("namespace")
                .and_then(Value::as_str)
                .unwrap_or("");
            let name = snapshot.get("name").and_then(Value::as_str).unwrap_or("");
            return self.snapshot(ns, name);
        }
        if let Some(source_ref) = spec.and_then(|s| s.get("sourceRef")) {
            let kind = source_ref.get("kind").and_then(Value::as_str).unwrap_or("");
            if kind == "DataSource" {
                let ns = source_ref
                    .get("namespace")
                    .and_then(Value::as_str)
                    .unwrap_or(self.namespace);
                let name = source_ref.get("name").and_then(Value::as_str).unwrap_or("");
                return self.data_source(ns, name);
            }
            return Err(ignorable(format!(
                "unable to infer defaults from DataVolumeSourceRef as Kind {kind} is not supported"
            )));
        }
        Err(ignorable(
            "unable to infer defaults from DataVolumeSpec as DataVolumeSource is not supported",
        ))
    }

    fn data_volume(&self, vm: &Value, name: &str) -> Result<Inferred, InferError> {
        let template = vm
            .pointer("/spec/dataVolumeTemplates")
            .and_then(Value::as_array)
            .and_then(|templates| {
                templates
                    .iter()
                    .find(|t| t.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
            });
        if let Some(template) = template {
            return self.data_volume_spec(template.get("spec"));
        }
        match self.object("cdi.kubevirt.io", "DataVolume", self.namespace, name) {
            // A garbage-collected DataVolume leaves its PVC of the same name.
            None => self.pvc(self.namespace, name),
            Some(dv) => match from_labels(labels(dv), self.role) {
                Some(found) => Ok(found),
                None => self.data_volume_spec(dv.node.get("spec").map(Node::to_json).as_ref()),
            },
        }
    }
}

/// Infers the matcher for `role` from volume `volume_name` of `vm_json` (KubeVirt
/// `pkg/instancetype/infer/volume.go`, `fromVolumes`).
pub fn infer(
    repo: &Repo<'_>,
    vm: &Object,
    vm_json: &Value,
    role: MatcherRole,
    volume_name: &str,
) -> Result<Inferred, InferError> {
    let namespace = vm.namespace.as_deref().unwrap_or("default");
    let lookup = Lookup {
        repo,
        unit: &vm.unit,
        namespace,
        role,
    };
    let volume = vm_json
        .pointer("/spec/template/spec/volumes")
        .and_then(Value::as_array)
        .and_then(|volumes| {
            volumes
                .iter()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(volume_name))
        })
        .ok_or_else(|| {
            fatal(format!(
                "unable to find volume {volume_name} to infer defaults"
            ))
        })?;
    if let Some(pvc) = volume.get("persistentVolumeClaim").filter(|v| !v.is_null()) {
        let claim = pvc.get("claimName").and_then(Value::as_str).unwrap_or("");
        return lookup.pvc(namespace, claim);
    }
    if let Some(dv) = volume.get("dataVolume").filter(|v| !v.is_null()) {
        let name = dv.get("name").and_then(Value::as_str).unwrap_or("");
        return lookup.data_volume(vm_json, name);
    }
    Err(ignorable(format!(
        "unable to infer defaults from volume {volume_name} as type is not supported"
    )))
}
