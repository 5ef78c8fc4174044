//! The committed JSON Schemas in `schemas/` are exactly what the typed model in
//! `src/schema/types.rs` generates.
//!
//! After changing the types, regenerate the files and review the diff:
//!
//! ```sh
//! KVLINT_UPDATE_SCHEMAS=1 cargo test --test integration schemas::
//! git diff schemas/
//! ```
//!
//! The files follow kubeconform's naming (`<kind>-<version>.json`, lower-case kind), so the
//! directory also works as a `--schema-location` for kubeconform:
//! `kubeconform -schema-location 'schemas/{{ .ResourceKind }}-{{ .ResourceAPIVersion }}.json'`.

use std::collections::BTreeSet;
use std::path::Path;

use kvlint::schema::{self, KINDS, MATCHERS_FILE, SERVED_VERSIONS};

const DIR: &str = "schemas";

fn update_requested() -> bool {
    std::env::var_os("KVLINT_UPDATE_SCHEMAS").is_some_and(|v| !v.is_empty() && v != "0")
}

#[test]
fn committed_schemas_match_the_typed_model() {
    let generated = schema::schema_files();
    let dir = Path::new(DIR);
    if update_requested() {
        std::fs::create_dir_all(dir).expect("create schemas/");
        for entry in std::fs::read_dir(dir).expect("read schemas/") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                std::fs::remove_file(&path).expect("remove a stale schema");
            }
        }
        for file in &generated {
            std::fs::write(dir.join(&file.name), &file.content).expect("write a schema");
        }
    }

    let mut problems = Vec::new();
    for file in &generated {
        match std::fs::read_to_string(dir.join(&file.name)) {
            Ok(committed) if committed == file.content => {}
            Ok(_) => problems.push(format!(
                "{DIR}/{} differs from the generated schema",
                file.name
            )),
            Err(error) => problems.push(format!("{DIR}/{}: {error}", file.name)),
        }
    }
    let expected: BTreeSet<&str> = generated.iter().map(|f| f.name.as_str()).collect();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let json = entry.path().extension().is_some_and(|e| e == "json");
            if json && !expected.contains(name.as_str()) {
                problems.push(format!("{DIR}/{name} is not generated any more"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nregenerate with: KVLINT_UPDATE_SCHEMAS=1 cargo test --test integration schemas::",
        problems.join("\n")
    );
}

#[test]
fn one_file_per_kind_and_served_version_in_kubeconform_naming() {
    let files = schema::schema_files();
    assert_eq!(files.len(), KINDS.len() * SERVED_VERSIONS.len() + 1);
    for kind in KINDS {
        let contents: Vec<&str> = SERVED_VERSIONS
            .iter()
            .map(|version| {
                let name = format!("{}-{version}.json", kind.to_lowercase());
                files
                    .iter()
                    .find(|f| f.name == name)
                    .unwrap_or_else(|| panic!("no {name}"))
                    .content
                    .as_str()
            })
            .collect();
        assert!(
            contents.windows(2).all(|pair| pair[0] == pair[1]),
            "{kind}: every served version shares one schema"
        );
    }
    assert!(files.iter().any(|f| f.name == MATCHERS_FILE));
    assert!(
        files
            .iter()
            .any(|f| f.name == "virtualmachineinstancetype-v1beta1.json")
    );
}

#[test]
fn the_schemas_carry_the_crd_constraints() {
    let instancetype = schema::kind_schema("VirtualMachineInstancetype").expect("schema");
    let spec = &instancetype["properties"]["spec"];
    assert_eq!(instancetype["required"], serde_json::json!(["spec"]));
    assert_eq!(spec["required"], serde_json::json!(["cpu", "memory"]));
    assert_eq!(spec["additionalProperties"], false);
    assert_eq!(
        spec["properties"]["cpu"]["required"],
        serde_json::json!(["guest"])
    );
    assert_eq!(
        spec["properties"]["memory"]["required"],
        serde_json::json!(["guest"])
    );
    let overcommit = &spec["properties"]["memory"]["properties"]["overcommitPercent"];
    assert_eq!(
        (
            &overcommit["type"],
            &overcommit["minimum"],
            &overcommit["maximum"]
        ),
        (
            &serde_json::json!("integer"),
            &serde_json::json!(0),
            &serde_json::json!(100)
        )
    );
    let guest = &spec["properties"]["memory"]["properties"]["guest"];
    assert_eq!(guest["pattern"], schema::types::QUANTITY_PATTERN);
    assert_eq!(guest["x-kubernetes-int-or-string"], true);
    assert_eq!(
        spec["properties"]["gpus"]["items"]["required"],
        serde_json::json!(["name"])
    );
    assert_eq!(
        spec["properties"]["hostDevices"]["items"]["required"],
        serde_json::json!(["name"])
    );

    let preference = schema::kind_schema("VirtualMachineClusterPreference").expect("schema");
    let requirements =
        &preference["properties"]["spec"]["properties"]["requirements"]["properties"];
    assert_eq!(
        requirements["cpu"]["required"],
        serde_json::json!(["guest"])
    );
    assert_eq!(
        requirements["memory"]["required"],
        serde_json::json!(["guest"])
    );
    assert!(preference["properties"]["spec"].get("required").is_none());

    let matchers = schema::matchers_schema();
    for matcher in ["instancetype", "preference"] {
        let properties = matchers["properties"]["spec"]["properties"][matcher]["properties"]
            .as_object()
            .expect("matcher properties");
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "name",
                "kind",
                "revisionName",
                "inferFromVolume",
                "inferFromVolumeFailurePolicy"
            ]
        );
        assert!(properties.values().all(|p| p["type"] == "string"));
    }
}

/// No object schema lets unknown fields through, and nothing is nullable.
#[test]
fn every_object_is_closed_and_nothing_is_nullable() {
    fn walk(path: &str, value: &serde_json::Value, problems: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if map.get("type").is_some_and(|t| t == "object")
                    && !map.contains_key("additionalProperties")
                {
                    problems.push(format!("{path}: open object"));
                }
                if map.get("type").is_some_and(serde_json::Value::is_array) {
                    problems.push(format!("{path}: several types"));
                }
                for (key, child) in map {
                    walk(&format!("{path}/{key}"), child, problems);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(&format!("{path}/{i}"), item, problems);
                }
            }
            _ => {}
        }
    }
    for kind in KINDS {
        let schema = schema::kind_schema(kind).expect("schema");
        let mut problems = Vec::new();
        // `metadata` is a bare object in the CRDs; the API server checks ObjectMeta itself.
        let mut without_metadata = schema.clone();
        without_metadata["properties"]
            .as_object_mut()
            .expect("properties")
            .remove("metadata");
        walk("", &without_metadata, &mut problems);
        assert!(problems.is_empty(), "{kind}: {problems:#?}");
        assert!(
            !serde_json::to_string(&schema)
                .expect("json")
                .contains("\"null\"")
        );
    }
}
