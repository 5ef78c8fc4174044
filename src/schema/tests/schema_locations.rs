//! Schema locations for kinds kvlint does not build in (`--schema-location`), as kubeconform
//! names them.

use super::*;

const WIDGET_SCHEMA: &str = r#"{
  "type": "object",
  "additionalProperties": false,
  "required": ["spec"],
  "properties": {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "size": {"type": "integer", "maximum": 10, "exclusiveMaximum": true},
        "colour": {"$ref": "_definitions.json#/definitions/colour"}
      }
    }
  }
}"#;

const DEFINITIONS: &str =
    r#"{"definitions": {"colour": {"type": "string", "enum": ["red", "blue"]}}}"#;

const WIDGET: &str = "\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: ns}
spec:
  size: 10
  colour: green
  sizes: 3
";

fn widget_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-example-v1.json"), WIDGET_SCHEMA).expect("write");
    std::fs::write(dir.path().join("_definitions.json"), DEFINITIONS).expect("write");
    dir
}

fn widget_findings(locations: &SchemaLocations) -> Vec<(&'static str, String, Option<String>)> {
    objects(WIDGET)
        .iter()
        .flat_map(|object| check_with_locations(object, locations))
        .map(|f| (f.rule.code, f.message, f.help))
        .collect()
}

#[test]
fn schema_location_directory() {
    let dir = widget_dir();
    let locations =
        parse_locations(&[dir.path().display().to_string()]).expect("a directory location");
    let mut findings = widget_findings(&locations);
    findings.sort();
    assert_eq!(
        findings,
        vec![
            (
                "KV0014",
                "unknown field \"spec.sizes\": the API server drops it without an error".to_owned(),
                Some("did you mean `size`?".to_owned())
            ),
            (
                "KV0015",
                "spec.colour: Unsupported value: \"green\": supported values: \"red\", \"blue\""
                    .to_owned(),
                None
            ),
            (
                "KV0015",
                "spec.size: Invalid value: 10: spec.size in body should be less than 10".to_owned(),
                None
            ),
        ]
    );
    assert!(locations.problems().is_empty());

    let object = &objects(WIDGET)[0];
    let unknown = check_with_locations(object, &locations)
        .into_iter()
        .find(|f| f.rule.code == "KV0014")
        .expect("unknown field");
    assert_eq!(start(&unknown), (7, 3));
}

#[test]
fn schema_location_plain_file_names_and_templates() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-v1.json"), WIDGET_SCHEMA).expect("write");
    std::fs::write(dir.path().join("_definitions.json"), DEFINITIONS).expect("write");
    let plain = parse_locations(&[dir.path().display().to_string()]).expect("directory");
    assert_eq!(widget_findings(&plain).len(), 3);

    let template = format!(
        "{}/{{{{ .ResourceKind }}}}-{{{{.ResourceAPIVersion}}}}.json",
        dir.path().display()
    );
    let templated = parse_locations(&[template]).expect("template");
    assert_eq!(widget_findings(&templated).len(), 3);

    // The first location without the file is skipped; a kind without a schema has no findings.
    let empty = tempfile::tempdir().expect("tempdir");
    let both = parse_locations(&[
        empty.path().display().to_string(),
        dir.path().display().to_string(),
    ])
    .expect("two directories");
    assert_eq!(widget_findings(&both).len(), 3);
    let nothing = parse_locations(&[empty.path().display().to_string()]).expect("directory");
    assert!(widget_findings(&nothing).is_empty());
}

#[test]
fn schema_location_skips_broken_files_and_builtin_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-example-v1.json"), "{ not json").expect("write");
    let locations = parse_locations(&[dir.path().display().to_string()]).expect("directory");
    assert!(widget_findings(&locations).is_empty());
    assert_eq!(locations.problems().len(), 1);

    // The built-in schema wins for the four kinds, whatever the locations hold.
    std::fs::write(
        dir.path()
            .join("virtualmachineclusterpreference-instancetype-v1beta1.json"),
        r#"{"type": "string"}"#,
    )
    .expect("write");
    let object = &objects(PREFERENCE_TYPO)[0];
    assert!(check_with_locations(object, &locations).is_empty());
}

#[test]
fn schema_location_errors() {
    for (location, error) in [
        ("https://example.com/{{ .ResourceKind }}.json", "not URLs"),
        ("HTTP://example.com/schemas", "not URLs"),
        ("default", "not URLs"),
        ("/nonexistent/kvlint/schemas", "not a directory"),
        ("schemas/{{ .Kind }}.json", "unknown placeholder"),
        ("schemas/{{ .ResourceKind .json", "without"),
        ("", "empty"),
    ] {
        let result = parse_locations(&[location.to_owned()]);
        let message = result.expect_err(location).to_string();
        assert!(message.contains(error), "{location}: {message}");
    }
    assert!(parse_locations(&[]).expect("no locations").is_empty());
    assert_eq!(
        parse_locations(&["schemas/{{ .Kind }}.json".to_owned()])
            .expect_err("a bad placeholder")
            .to_string(),
        "schema location schemas/{{ .Kind }}.json: unknown placeholder `{{ .Kind }}` (known: .ResourceKind, .ResourceAPIVersion, .Group, .KindSuffix, .NormalizedKubernetesVersion, .StrictSuffix)"
    );
    assert_eq!(
        parse_locations(&["a/{{ .ResourceKind .json".to_owned()]).expect_err("unclosed"),
        LocationError::Unclosed("a/{{ .ResourceKind .json".to_owned())
    );
    assert_eq!(
        crate::error::Error::from(LocationError::Empty).to_string(),
        "schema location: empty"
    );
}

#[test]
fn kubeconform_names() {
    let names = locations::Names::new("apps/v1", "Deployment");
    assert_eq!(
        (
            names.kind.as_str(),
            names.version.as_str(),
            names.group.as_str(),
            names.kind_suffix.as_str()
        ),
        ("deployment", "v1", "apps", "-apps-v1")
    );
    let names = locations::Names::new("v1", "ConfigMap");
    assert_eq!(
        (
            names.kind.as_str(),
            names.version.as_str(),
            names.group.as_str(),
            names.kind_suffix.as_str()
        ),
        ("configmap", "v1", "v1", "-v1")
    );
    let names = locations::Names::new(
        "instancetype.kubevirt.io/v1beta1",
        "VirtualMachinePreference",
    );
    assert_eq!(names.kind_suffix, "-instancetype-v1beta1");
}
