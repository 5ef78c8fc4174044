//! Offline schema validation, as the API server validates objects against their CRD schema.
//!
//! The four `instancetype.kubevirt.io` kinds are validated against schemas generated from the
//! typed model in [`types`] (the same schema for v1alpha1, v1alpha2 and v1beta1, as KubeVirt
//! attaches one schema to every version). Other kinds can be validated against JSON Schemas on
//! disk laid out as kubeconform lays them out ([`parse_locations`], [`check_with_locations`]).
//!
//! Two rules come out of it:
//!
//! * `KV0014 unknown-field`: a field the schema does not declare. The API server prunes such
//!   fields silently, so a typo loses the setting without an error.
//! * `KV0015 schema-violation`: everything else the schema refuses (a wrong type, a missing
//!   required field, a value out of range, a quantity that does not parse); the API server
//!   refuses the object.
//!
//! [`check_object`] uses the schema of the newest KubeVirt release; [`check_object_for_release`]
//! uses the schema of the target release, derived from the newest one (`releases.rs`), so that a
//! field the target release does not have yet is an unknown field too. The VirtualMachine of an
//! older release is the current one without the fields [`newer_vm_fields`] finds
//! (`vm_releases.rs`): that release's webhook refuses them and its `expand` drops them.
//!
//! Before validating, object fields whose value is `null` are removed, as the API server drops
//! them before it validates a custom resource.
//!
//! The committed files of `schemas/` are [`schema_files`]; `tests/schemas.rs` keeps them in sync.

mod findings;
mod generate;
mod locations;
mod releases;
pub mod types;
mod vm_releases;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::diag::Finding;
use crate::k8s::{INSTANCETYPE_GROUP, KUBEVIRT_GROUP, Object};
use crate::yaml::FieldPath;

pub use generate::{
    KINDS, MATCHERS_FILE, SERVED_VERSIONS, SchemaFile, kind_schema, matchers_schema, schema_files,
};
pub use locations::{LocationError, SchemaLocations, check_with_locations, parse_locations};
pub(crate) use vm_releases::{
    forbidden_property_message, newer_vm_fields, print_empty_fields_of_release,
};

/// A schema and its compiled validator.
struct Compiled {
    schema: Value,
    validator: jsonschema::Validator,
}

impl Compiled {
    fn builtin(schema: Value) -> Self {
        let validator = jsonschema::options()
            .offline()
            .build(&schema)
            .unwrap_or_else(|error| panic!("a generated schema does not compile: {error}"));
        Self { schema, validator }
    }
}

/// The compiled schemas of the four kinds, in the order of [`KINDS`].
static BUILTIN: LazyLock<Vec<Arc<Compiled>>> = LazyLock::new(|| {
    KINDS
        .iter()
        .filter_map(|kind| kind_schema(kind))
        .map(|schema| Arc::new(Compiled::builtin(schema)))
        .collect()
});

/// Compiled schemas by index in [`KINDS`] and v1 minor release.
type ReleaseSchemas = HashMap<(usize, u32), Arc<Compiled>>;

/// The compiled schemas of older releases.
static OLDER: LazyLock<Mutex<ReleaseSchemas>> = LazyLock::new(|| Mutex::new(HashMap::new()));

static MATCHERS: LazyLock<Compiled> = LazyLock::new(|| Compiled::builtin(matchers_schema()));

/// Whether kvlint has a built-in schema for the object: one of the four
/// `instancetype.kubevirt.io` kinds in a served version.
pub fn has_builtin_schema(object: &Object) -> bool {
    object.group == INSTANCETYPE_GROUP
        && KINDS.contains(&object.kind.as_str())
        && SERVED_VERSIONS.contains(&object.version.as_str())
}

/// Schema findings about one instance type or preference, against the schema of the newest
/// KubeVirt release (no findings for other objects, and none for API versions KubeVirt never
/// served, which the admission checks report).
pub fn check_object(object: &Object) -> Vec<Finding> {
    check_object_for_release(object, KubeVirtVersion::new(1, releases::NEWEST_MINOR))
}

/// Like [`check_object`], against the schema of the target release: a field the release does not
/// declare yet (`preferredArchitecture` before v1.7, ...) is an unknown field, which that
/// release's API server prunes.
pub fn check_object_for_release(object: &Object, version: KubeVirtVersion) -> Vec<Finding> {
    if !has_builtin_schema(object) {
        return Vec::new();
    }
    let (Some(index), Some(family)) = (
        KINDS.iter().position(|kind| *kind == object.kind),
        releases::Family::of_kind(&object.kind),
    ) else {
        return Vec::new();
    };
    let minor = if version.major == 1 {
        version.minor.min(releases::NEWEST_MINOR)
    } else {
        releases::NEWEST_MINOR
    };
    let compiled = if minor == releases::NEWEST_MINOR {
        BUILTIN.get(index).map(Arc::clone)
    } else {
        let mut older = OLDER.lock().unwrap_or_else(PoisonError::into_inner);
        BUILTIN.get(index).map(|current| {
            Arc::clone(older.entry((index, minor)).or_insert_with(|| {
                let schema = releases::schema_for_release(&current.schema, family, minor);
                Arc::new(Compiled::builtin(schema))
            }))
        })
    };
    let Some(compiled) = compiled else {
        return Vec::new();
    };
    let hint = |path: &FieldPath| {
        let name = path.to_string();
        releases::added_after(family, &name, minor).map(|since| {
            format!(
                "`{name}` is declared from KubeVirt v1.{since} on; the target release, v1.{minor}, prunes it"
            )
        })
    };
    findings::validate(object, &compiled.schema, &compiled.validator, &hint)
}

/// Schema findings about the matchers of a `kubevirt.io` VirtualMachine (`spec.instancetype`
/// and `spec.preference`, five string fields each); no findings for other objects.
pub fn check_vm_matchers(object: &Object) -> Vec<Finding> {
    if object.group != KUBEVIRT_GROUP || object.kind != "VirtualMachine" {
        return Vec::new();
    }
    // The schema describes `spec.instancetype` and `spec.preference` only: the rest of the VM
    // cannot fail it, and converting it all to JSON would cost more than the validation.
    let instance = match &object.node.value {
        crate::yaml::Value::Map(_) => {
            let mut root = serde_json::Map::new();
            if let Some(spec) = object.node.get("spec") {
                let spec = match spec.as_map() {
                    Some(entries) => serde_json::Value::Object(
                        entries
                            .iter()
                            .filter(|e| matches!(e.key.as_str(), "instancetype" | "preference"))
                            .map(|e| (e.key.clone(), e.value.to_json()))
                            .collect(),
                    ),
                    None => spec.to_json(),
                };
                root.insert("spec".to_owned(), spec);
            }
            serde_json::Value::Object(root)
        }
        _ => object.node.to_json(),
    };
    findings::validate_instance(
        object,
        instance,
        &MATCHERS.schema,
        &MATCHERS.validator,
        &|_| None,
    )
}

#[cfg(test)]
mod tests;
