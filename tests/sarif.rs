//! The SARIF report of every fixture validates against the official SARIF 2.1.0 schema
//! (`../shared/schemas/sarif-schema-2.1.0.json`, kept outside the crate).

#![allow(clippy::print_stderr)] // a skipped run says why
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonschema::{Draft, Validator};
use kvlint::check::{self, Options, Report};
use kvlint::diag::{Finding, Location, ObjectRef, Related};
use kvlint::output::sarif;
use kvlint::rules;
use kvlint::source::Selection;
use serde_json::Value;

const SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/schemas/sarif-schema-2.1.0.json"
);

/// The validator, or `None` (the test is skipped) when the shared schemas are not there.
fn validator() -> Option<Validator> {
    if !Path::new(SCHEMA).is_file() {
        assert!(
            std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
            "{SCHEMA} is missing but KVLINT_REQUIRE_SHARED is set"
        );
        eprintln!("skipped: {SCHEMA} not present");
        return None;
    }
    let text = std::fs::read_to_string(SCHEMA).expect("the schema is readable");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    let validator = jsonschema::options()
        .with_draft(Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles");
    Some(validator)
}

fn assert_valid(validator: &Validator, name: &str, text: &str) -> Value {
    let log: Value = serde_json::from_str(text)
        .unwrap_or_else(|err| panic!("{name}: the SARIF report is not JSON: {err}"));
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|err| format!("{} at {}", err, err.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name}: the SARIF report does not match the schema:\n{}",
        errors.join("\n")
    );
    assert_uris(name, &log);
    log
}

/// Whether `text` is made of URI characters only (RFC 3986: unreserved, reserved, `%XX`).
fn is_uri_reference(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte == b'%' {
            if !(i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit())
            {
                return false;
            }
            i += 3;
            continue;
        }
        if !(byte.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&byte)) {
            return false;
        }
        i += 1;
    }
    true
}

/// Draft 4 knows no `uri-reference` format, so the schema leaves artifact URIs unchecked.
fn assert_uris(name: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if key == "uri" {
                    let uri = item.as_str().unwrap_or_default();
                    assert!(
                        is_uri_reference(uri),
                        "{name}: {uri:?} is not a URI reference"
                    );
                }
                assert_uris(name, item);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| assert_uris(name, item)),
        _ => {}
    }
}

fn dirs_in(root: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap_or_else(|err| panic!("{root}: {err}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn run(dir: &Path) -> Report {
    check::run(&Options {
        selection: Selection {
            paths: vec![dir.to_path_buf()],
            ..Selection::default()
        },
        ..Options::default()
    })
    .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
}

/// Checks what the schema cannot: one result per finding, in order, pointing at the finding.
fn assert_matches(name: &str, report: &Report, log: &Value) {
    let run = &log["runs"][0];
    let rules_ = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), report.findings.len(), "{name}");
    for (result, finding) in results.iter().zip(&report.findings) {
        assert_eq!(result["ruleId"], finding.rule.code, "{name}");
        let index = usize::try_from(result["ruleIndex"].as_u64().unwrap()).unwrap();
        assert_eq!(rules_[index]["id"], finding.rule.code, "{name}");
        assert_eq!(result["message"]["text"], finding.message.as_str());
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            physical["artifactLocation"]["uri"],
            finding.location.file.as_ref(),
            "{name}: fixture paths need no encoding"
        );
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let start = finding.location.span.start;
        assert_eq!(physical["region"]["startLine"], start.line, "{name}");
        assert_eq!(physical["region"]["startColumn"], start.column, "{name}");
        assert_eq!(
            result["relatedLocations"].as_array().map_or(0, Vec::len),
            finding.related.len()
        );
    }
}

#[test]
fn fixture_cases_validate_against_the_schema() {
    let Some(validator) = validator() else {
        return;
    };
    let dirs = dirs_in("testdata/cases");
    assert!(dirs.len() >= 10, "expected the fixture cases");
    let mut results = 0;
    for dir in dirs {
        let name = dir.display().to_string();
        let report = run(&dir);
        let text = sarif::report(&report);
        let log = assert_valid(&validator, &name, &text);
        assert_matches(&name, &report, &log);
        assert_eq!(text, sarif::report(&report), "{name}: not deterministic");
        results += report.findings.len();
    }
    assert!(results > 0, "the fixtures produce findings");
}

#[test]
fn rule_fixtures_validate_against_the_schema() {
    let Some(validator) = validator() else {
        return;
    };
    for dir in dirs_in("testdata/rules") {
        let fail = dir.join("fail");
        if !fail.is_dir() {
            continue;
        }
        let name = fail.display().to_string();
        let report = run(&fail);
        let log = assert_valid(&validator, &name, &sarif::report(&report));
        assert_matches(&name, &report, &log);
    }
}

fn location(file: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Location {
    Location::lines(Arc::from(file), (line, column), (end_line, end_column))
}

#[test]
fn unusual_locations_validate_against_the_schema() {
    let Some(validator) = validator() else {
        return;
    };
    let cluster_object = ObjectRef {
        api_version: "instancetype.kubevirt.io/v1beta1".into(),
        kind: "VirtualMachineClusterInstancetype".into(),
        namespace: None,
        name: "u1.medium".into(),
    };
    let findings = vec![
        Finding::new(
            &rules::UNREADABLE_FILE,
            location("dir with spaces/#odd?.yaml", 0, 0, 0, 0),
            "not UTF-8",
        ),
        Finding::new(
            &rules::YAML_SYNTAX,
            location("<stdin>", 3, 1, 3, 1),
            "unexpected end",
        ),
        Finding::new(
            &rules::CATALOG_NAME_OVERWRITTEN,
            location("/srv/repo/über.yaml", 2, 7, 4, 1),
            "overwritten",
        )
        .with_object(Some(cluster_object))
        .with_related(Related {
            location: location("<built-in catalog v1.7.0>", 10, 3, 10, 9),
            message: "the catalog object".into(),
        }),
        Finding::new(
            &rules::SKIPPED_FILE,
            location("C:\\repo\\values.yaml", 1, 1, 1, 2),
            "a Helm values file",
        ),
    ];
    let report = Report {
        findings,
        ..Report::default()
    };
    assert_valid(&validator, "synthetic", &sarif::report(&report));
}

#[test]
fn the_schema_catches_broken_reports() {
    let Some(validator) = validator() else {
        return;
    };
    let finding = Finding::new(&rules::YAML_SYNTAX, location("vm.yaml", 3, 1, 3, 4), "bad");
    let report = Report {
        findings: vec![finding],
        ..Report::default()
    };
    let good: Value = serde_json::from_str(&sarif::report(&report)).unwrap();
    assert!(validator.is_valid(&good));
    let breakages: [(&str, Value); 4] = [
        ("/runs/0/results/0/level", Value::from("fatal")),
        (
            "/runs/0/results/0/locations/0/physicalLocation/region/startLine",
            Value::from(0),
        ),
        ("/runs/0/results/0/ruleIndex", Value::from(-2)),
        (
            "/runs/0/tool/driver/informationUri",
            Value::from("not a uri"),
        ),
    ];
    for (pointer, value) in breakages {
        let mut broken = good.clone();
        *broken.pointer_mut(pointer).unwrap() = value;
        assert!(!validator.is_valid(&broken), "{pointer} was not caught");
    }
    assert!(is_uri_reference("dir%20with%20spaces/%23odd.yaml"));
    assert!(!is_uri_reference("a b.yaml"));
    assert!(!is_uri_reference("100%.yaml"));
}
