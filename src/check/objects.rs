//! Findings about one object on its own, and about objects that share an identity.

use std::collections::hash_map::Entry;

use foldhash::HashMap;

use crate::cluster::profile::KubeVirtVersion;
use crate::diag::{Finding, Location, ObjectRef, Related};
use crate::k8s::Object;
use crate::k8s::names::is_placeholder;
use crate::rules;
use crate::schema::SchemaLocations;
use crate::yaml::FieldPath;

/// Every check that needs nothing but the object itself and the target release.
pub(super) fn object_findings(
    object: &Object,
    version: KubeVirtVersion,
    locations: &SchemaLocations,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = wrapper_findings(object).into_iter().collect();
    out.extend(crate::controller::committed_runtime::object_findings(
        object,
    ));
    out.extend(crate::schema::check_object_for_release(object, version));
    out.extend(crate::schema::check_vm_matchers(object));
    out.extend(crate::schema::check_with_locations(object, locations));
    let webhook = crate::admission::objects::check_object(object, version);
    let refused_by_schema = out.iter().any(|f| f.rule == &rules::SCHEMA_VIOLATION);
    out.extend(
        webhook
            .into_iter()
            .filter(|f| !(refused_by_schema && is_validating_webhook_finding(f))),
    );
    out.extend(super::pool_admission::findings(object, version));
    out
}

/// Whether a finding is what KubeVirt's validating webhook for instance types and preferences
/// says. The API server validates an object against its CRD schema before validating webhooks
/// run: an object the schema refuses (KV0015) never reaches the webhook, so the webhook's
/// refusal of the same value would describe the same problem twice.
fn is_validating_webhook_finding(finding: &Finding) -> bool {
    finding.rule == &rules::INVALID_SPEC_OBJECT || finding.rule == &rules::OBJECT_REJECTED
}

/// Group, kind, namespace, name, and the unit the object is applied with, NUL-separated: one
/// allocation per object seen, which matters at 100,000s of objects.
type Key = Box<str>;

/// What duplicate detection keeps of an object once its tree is gone.
#[derive(Clone, Debug)]
pub(super) struct Identity {
    key: Key,
    name_is_placeholder: bool,
    kind: String,
    display_name: String,
    object: ObjectRef,
    head: Location,
}

impl Identity {
    pub(super) fn of(object: &Object) -> Self {
        // Judged per unit: one directory or chart that several entry points install (a
        // release per cluster) is as many units.
        let entry = object
            .rendered_in
            .as_ref()
            .map(|rendered| rendered.unit.entry_key())
            .unwrap_or_default();
        Self {
            key: [
                object.group.as_str(),
                object.kind.as_str(),
                object.namespace.as_deref().unwrap_or("\u{1}"),
                object.name.as_str(),
                &object.unit,
                &entry,
            ]
            .join("\u{0}")
            .into_boxed_str(),
            name_is_placeholder: is_placeholder(&object.name),
            kind: object.kind.clone(),
            display_name: object.display_name(),
            object: object.object_ref(),
            head: object.head_location(),
        }
    }
}

/// Objects with the same identity applied together (in one Kustomize unit, or one plain
/// directory): the later one silently replaces the earlier. Objects are seen in load order.
#[derive(Debug, Default)]
pub(super) struct Duplicates {
    first: HashMap<Key, Location>,
}

impl Duplicates {
    pub(super) fn see(&mut self, identity: Identity) -> Option<Finding> {
        if identity.name_is_placeholder {
            return None;
        }
        match self.first.entry(identity.key) {
            Entry::Vacant(slot) => {
                slot.insert(identity.head);
                None
            }
            Entry::Occupied(first) => Some(
                Finding::new(
                    &rules::DUPLICATE_OBJECT,
                    identity.head,
                    format!(
                        "{} {} is defined twice; applied together, the later one silently replaces the earlier",
                        identity.kind, identity.display_name
                    ),
                )
                .with_object(Some(identity.object))
                .with_related(Related {
                    location: first.get().clone(),
                    message: "first defined here".to_owned(),
                }),
            ),
        }
    }
}

/// Findings about objects that wrap or resemble VMs without being rendered.
fn wrapper_findings(object: &Object) -> Option<Finding> {
    let finding = |rule, path: &str, message: String| {
        Some(
            Finding::new(
                rule,
                object.field_location(&FieldPath::parse(path)),
                message,
            )
            .with_object(Some(object.object_ref())),
        )
    };
    match (object.group.as_str(), object.version.as_str(), object.kind.as_str()) {
        ("template.openshift.io", _, "Template") => {
            let has_vm = object
                .node
                .get("objects")
                .and_then(|o| o.as_seq())
                .is_some_and(|items| items.iter().any(|i| i.get("kind").and_then(|k| k.as_str()) == Some("VirtualMachine")));
            if has_vm {
                return finding(
                    &rules::WRAPPED_VM,
                    "objects",
                    "this OpenShift Template holds a VirtualMachine with parameters; kvlint does not render templates (process it with `oc process` and check the output)".to_owned(),
                );
            }
            None
        }
        ("infrastructure.cluster.x-k8s.io", _, "KubevirtMachineTemplate") => finding(
            &rules::WRAPPED_VM,
            "spec",
            "a Cluster API KubevirtMachineTemplate holds a VM template that the KubeVirt provider completes at run time; kvlint does not render it".to_owned(),
        ),
        (crate::k8s::KUBEVIRT_GROUP, "v1alpha3", "VirtualMachine") => finding(
            &rules::DEPRECATED_VM_API,
            "apiVersion",
            "kubevirt.io/v1alpha3 is deprecated; use kubevirt.io/v1".to_owned(),
        ),
        _ => None,
    }
}
