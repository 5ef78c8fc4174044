//! The GitOps unit a finding's object was rendered in: what a controller applies together.

use serde::Serialize;

/// Which engine renders a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    /// A Kustomize root: a kustomization no other kustomization uses, built as `kustomize build`.
    Kustomize,
    /// The directory a Flux Kustomization names, built as the kustomize-controller builds it.
    Flux,
    /// The directory an Argo CD Application source names, rendered as the repo server does.
    ArgoCd,
    /// The manifests a Flux HelmRelease or an Argo CD helm source gives a raw-manifest chart in
    /// its values, read in place.
    Helm,
}

impl UnitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Kustomize => "kustomize",
            Self::Flux => "flux",
            Self::ArgoCd => "argocd",
            Self::Helm => "helm",
        }
    }
}

/// A rendered unit, as findings name it: `{"kind": "kustomize", "path": "apps/web/overlays/dev"}`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct UnitRef {
    pub kind: UnitKind,
    /// The unit's directory, as the report names files.
    pub path: String,
    /// The entry point (an Argo CD Application, a Flux Kustomization) that names the unit;
    /// None for a Kustomize root that no entry point names.
    pub via: Option<Via>,
}

/// An entry point that names a unit.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Via {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub file: String,
    pub line: u32,
    /// The unit whose build output holds the entry point, when a unit renders it rather than
    /// a file of the repository holding it as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

impl UnitRef {
    /// `apps/web/overlays/dev (web-dev/web)`: the unit and an object rendered in it.
    fn with_object(&self, object: Option<&super::ObjectRef>) -> String {
        let unit = self.shown();
        match object {
            Some(object) => format!("{unit} ({})", object_name(object)),
            None => unit,
        }
    }

    /// The unit's path, and the unit that renders its entry point when one does: one chart
    /// or directory may be installed by several (a release per cluster).
    fn shown(&self) -> String {
        match self.via.as_ref().and_then(|via| via.unit.as_deref()) {
            Some(by) => format!("{} via {by}", self.path),
            None => self.path.clone(),
        }
    }

    /// What tells two units of one path apart: the entry point that names it, and the unit
    /// that renders that entry point.
    pub fn entry_key(&self) -> String {
        self.via.as_ref().map_or_else(String::new, |via| {
            format!(
                "{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}",
                via.kind,
                via.namespace.as_deref().unwrap_or_default(),
                via.name,
                via.file,
                via.line,
                via.unit.as_deref().unwrap_or_default()
            )
        })
    }
}

fn object_name(object: &super::ObjectRef) -> String {
    match &object.namespace {
        Some(namespace) => format!("{namespace}/{}", object.name),
        None => object.name.clone(),
    }
}

impl super::Finding {
    /// Where the finding's object was rendered, for reports that have no field for it:
    /// `rendered in apps/web/overlays/dev (web-dev/web)`, or every unit of a merged finding.
    pub fn unit_note(&self) -> Option<String> {
        if self.instances.len() > 1 {
            let listed: Vec<String> = self
                .instances
                .iter()
                .map(|i| i.unit.with_object(Some(&i.object)))
                .collect();
            return Some(format!(
                "rendered in {} units: {}",
                self.instances.len(),
                listed.join(", ")
            ));
        }
        let unit = self.unit.as_ref()?;
        Some(format!(
            "rendered in {}",
            unit.with_object(self.object.as_ref())
        ))
    }
}

/// One of the rendered objects a merged finding stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Instance {
    pub unit: UnitRef,
    pub object: super::ObjectRef,
}

/// Merges findings that several units report alike (same rule, position, message and path:
/// a base shared by overlays) into one that lists every unit and object in `instances`; the
/// finding itself keeps the first by unit path and object. Other findings pass unchanged.
pub fn merge_instances(findings: Vec<super::Finding>) -> Vec<super::Finding> {
    use std::collections::BTreeMap;

    type Key = (
        &'static str,
        String,
        u32,
        u32,
        u32,
        u32,
        String,
        Option<String>,
    );
    let mut order: Vec<Key> = Vec::new();
    let mut groups: BTreeMap<Key, Vec<super::Finding>> = BTreeMap::new();
    let mut out = Vec::with_capacity(findings.len());
    for finding in findings {
        if finding.unit.is_none() {
            out.push(finding);
            continue;
        }
        let span = finding.location.span;
        let key = (
            finding.rule.code,
            finding.location.file.to_string(),
            span.start.line,
            span.start.column,
            span.end.line,
            span.end.column,
            finding.message.clone(),
            finding.path.clone(),
        );
        let group = groups.entry(key.clone()).or_default();
        if group.is_empty() {
            order.push(key);
        }
        group.push(finding);
    }
    for key in order {
        let Some(mut group) = groups.remove(&key) else {
            continue;
        };
        let instance = |finding: &super::Finding| -> Option<Instance> {
            Some(Instance {
                unit: finding.unit.as_deref()?.clone(),
                object: finding.object.clone()?,
            })
        };
        let mut instances: Vec<Instance> = group.iter().filter_map(instance).collect();
        instances.sort();
        instances.dedup();
        group.sort_by(|a, b| {
            (a.unit.as_deref(), a.object.as_ref()).cmp(&(b.unit.as_deref(), b.object.as_ref()))
        });
        let fixes_differ = group.windows(2).any(|pair| pair[0].fix != pair[1].fix);
        let mut first = group.swap_remove(0);
        if fixes_differ && let Some(fix) = &mut first.fix {
            fix.varies = true;
        }
        if instances.len() > 1 {
            first.instances = instances;
        }
        out.push(first);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::{Finding, Location, ObjectRef};

    fn finding(unit: &str, namespace: &str, message: &str) -> Finding {
        let mut finding = Finding::new(
            &crate::rules::UNRESOLVED_INSTANCETYPE,
            Location::lines(Arc::from("base/vm.yaml"), (9, 5), (9, 20)),
            message,
        )
        .with_object(Some(ObjectRef {
            api_version: "kubevirt.io/v1".to_owned(),
            kind: "VirtualMachine".to_owned(),
            namespace: Some(namespace.to_owned()),
            name: "web".to_owned(),
        }));
        finding.unit = Some(Arc::new(UnitRef {
            kind: UnitKind::Kustomize,
            path: unit.to_owned(),
            via: None,
        }));
        finding
    }

    #[test]
    fn the_same_finding_from_several_units_is_reported_once() {
        let merged = merge_instances(vec![
            finding("overlays/prod", "prod", "not found"),
            finding("overlays/dev", "dev", "not found"),
            finding("overlays/dev", "dev", "another message"),
        ]);
        assert_eq!(merged.len(), 2);
        let first = &merged[0];
        assert_eq!(first.unit.as_ref().unwrap().path, "overlays/dev");
        let units: Vec<&str> = first
            .instances
            .iter()
            .map(|i| i.unit.path.as_str())
            .collect();
        assert_eq!(units, ["overlays/dev", "overlays/prod"]);
        assert!(merged[1].instances.is_empty(), "one instance is not listed");
    }

    #[test]
    fn a_merged_fix_that_differs_between_instances_is_marked() {
        let with_fix = |unit: &str, namespace: &str, value: &str| {
            let mut finding = finding(unit, namespace, "not found");
            finding.fix = Some(crate::diag::Fix::new(
                "set".to_owned(),
                vec![crate::yaml::edit::Action::Set(
                    crate::yaml::FieldPath(Vec::new()),
                    serde_json::Value::String(value.to_owned()),
                )],
            ));
            finding
        };
        let same = merge_instances(vec![
            with_fix("overlays/prod", "prod", "a"),
            with_fix("overlays/dev", "dev", "a"),
        ]);
        assert!(!same[0].fix.as_ref().unwrap().varies);
        let differ = merge_instances(vec![
            with_fix("overlays/prod", "prod", "a"),
            with_fix("overlays/dev", "dev", "b"),
        ]);
        assert_eq!(differ.len(), 1);
        assert!(differ[0].fix.as_ref().unwrap().varies);
    }
}
