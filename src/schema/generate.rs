//! The JSON Schemas of the four `instancetype.kubevirt.io` kinds and of the VM matchers, generated
//! from `types`, and the files of `schemas/` in kubeconform's naming.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Value, json};

use super::types;
use crate::k8s::INSTANCETYPE_GROUP;

/// The versions of `instancetype.kubevirt.io` any KubeVirt release served. KubeVirt attaches the
/// same schema to every version of a CRD, so one schema serves all three.
pub const SERVED_VERSIONS: [&str; 3] = ["v1alpha1", "v1alpha2", "v1beta1"];

/// The four kinds with a built-in schema.
pub const KINDS: [&str; 4] = [
    "VirtualMachineInstancetype",
    "VirtualMachineClusterInstancetype",
    "VirtualMachinePreference",
    "VirtualMachineClusterPreference",
];

/// The file with the schema of the VirtualMachine matcher fields.
pub const MATCHERS_FILE: &str = "virtualmachine-matchers.json";

/// One file of `schemas/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaFile {
    /// File name, such as `virtualmachineinstancetype-v1beta1.json`.
    pub name: String,
    /// File content: pretty-printed JSON and a final newline.
    pub content: String,
}

fn root_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema: Schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    remove_null(&mut value);
    unwrap_descriptions(&mut value);
    value
}

/// Joins the lines of each paragraph of a description (doc comments wrap at the source width).
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text
                    .split("\n\n")
                    .map(|paragraph| {
                        paragraph
                            .split('\n')
                            .map(str::trim)
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            map.values_mut().for_each(unwrap_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// Puts `$schema`, `title`, `description` and the group-version-kinds first in a root schema.
fn head_first(value: Value) -> Value {
    let Value::Object(mut map) = value else {
        return value;
    };
    let mut out = serde_json::Map::new();
    for key in [
        "$schema",
        "title",
        "description",
        "x-kubernetes-group-version-kind",
    ] {
        if let Some(v) = map.remove(key) {
            out.insert(key.to_owned(), v);
        }
    }
    out.extend(map);
    Value::Object(out)
}

/// Makes optional fields non-nullable: the API server drops `null` object fields before it
/// validates, as the checker does, and KubeVirt's CRDs declare no field nullable.
fn remove_null(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let single = types.remove(0);
                    map.insert("type".to_owned(), single);
                }
            }
            if let Some(Value::Array(branches)) = map.get("anyOf") {
                let null = json!({ "type": "null" });
                if branches.len() == 2 && branches.contains(&null) {
                    let kept = branches.iter().find(|b| **b != null).cloned();
                    map.remove("anyOf");
                    if let Some(Value::Object(kept)) = kept {
                        for (key, value) in kept {
                            map.entry(key).or_insert(value);
                        }
                    }
                }
            }
            map.values_mut().for_each(remove_null);
        }
        Value::Array(items) => items.iter_mut().for_each(remove_null),
        _ => {}
    }
}

fn with_gvk(mut schema: Value, kind: &str) -> Value {
    let gvks: Vec<Value> = SERVED_VERSIONS
        .iter()
        .map(|version| json!({ "group": INSTANCETYPE_GROUP, "kind": kind, "version": version }))
        .collect();
    if let Value::Object(map) = &mut schema {
        map.insert(
            "x-kubernetes-group-version-kind".to_owned(),
            Value::Array(gvks),
        );
    }
    schema
}

/// The schema of one of the four kinds (the same for every served version), or `None` for other
/// kinds.
pub fn kind_schema(kind: &str) -> Option<Value> {
    let schema = match kind {
        "VirtualMachineInstancetype" => root_schema::<types::VirtualMachineInstancetype>(),
        "VirtualMachineClusterInstancetype" => {
            root_schema::<types::VirtualMachineClusterInstancetype>()
        }
        "VirtualMachinePreference" => root_schema::<types::VirtualMachinePreference>(),
        "VirtualMachineClusterPreference" => {
            root_schema::<types::VirtualMachineClusterPreference>()
        }
        _ => return None,
    };
    Some(head_first(with_gvk(schema, kind)))
}

/// The schema of the VirtualMachine matcher fields (`spec.instancetype`, `spec.preference`);
/// other VirtualMachine fields are allowed and not described.
pub fn matchers_schema() -> Value {
    head_first(root_schema::<types::VirtualMachineMatchers>())
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Every file of `schemas/`: `<kind>-<version>.json` (lower-case kind, kubeconform's
/// `{{ .ResourceKind }}-{{ .ResourceAPIVersion }}.json`) for the four kinds and three served
/// versions, and the matcher schema.
pub fn schema_files() -> Vec<SchemaFile> {
    let mut files = Vec::new();
    for kind in KINDS {
        let content = kind_schema(kind)
            .map(|schema| pretty(&schema))
            .unwrap_or_default();
        for version in SERVED_VERSIONS {
            files.push(SchemaFile {
                name: format!("{}-{version}.json", kind.to_lowercase()),
                content: content.clone(),
            });
        }
    }
    files.push(SchemaFile {
        name: MATCHERS_FILE.to_owned(),
        content: pretty(&matchers_schema()),
    });
    files
}
