//! `--format sarif`: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
//!
//! One run; the driver lists every rule of the registry in registry order, so a result's
//! `ruleIndex` is the rule's position in [`rules::ALL`]. Locations are relative to `%SRCROOT%`
//! (the directory kvlint ran in); lines and columns are 1-based and the end column is
//! exclusive, counted in Unicode code points (`columnKind: unicodeCodePoints`), which is how
//! kvlint counts them too.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use crate::check::Report;
use crate::diag::{Finding, Location, ObjectRef, Severity};
use crate::rules::explain::rule_url;
use crate::rules::{self, Rule};

use super::markdown::object_label;
use super::workspace::Base;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/kvlint/kvlint";
/// The base every relative artifact URI is resolved against.
const SRCROOT: &str = "%SRCROOT%";
/// The key of kvlint's entry in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "kvlintFingerprint/v1";

/// SARIF's name for a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// Whether a byte may stand unencoded in the path of a URI reference (RFC 3986 `pchar` and
/// `/`, without `:` so that a relative path's first segment is never read as a scheme).
fn is_path_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || matches!(
            byte,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b'@'
                | b'/'
        )
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &byte in text.as_bytes() {
        if is_path_byte(byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A `file:` URI for an absolute path (`/…` or `C:/…`, with `/` between its parts).
fn absolute_uri(file: &str) -> Option<String> {
    if file.starts_with('/') {
        return Some(format!("file://{}", percent_encode(file)));
    }
    let bytes = file.as_bytes();
    if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/' {
        return Some(format!(
            "file:///{}:{}",
            &file[..1],
            percent_encode(&file[2..])
        ));
    }
    None
}

/// The artifact location of a file as kvlint names it: a path below the base directory
/// (relative, or absolute below it) becomes a URI relative to `%SRCROOT%`, any other absolute
/// path a `file:` URI, and a name such as `<stdin>` stays relative to `%SRCROOT%`.
fn artifact_location(file: &str, base: Option<&Base>) -> Value {
    let file = base.map_or(Cow::Borrowed(file), |base| base.localise(file));
    let file = file.replace('\\', "/");
    if let Some(uri) = absolute_uri(&file) {
        return json!({ "uri": uri });
    }
    let relative = file.strip_prefix("./").unwrap_or(&file);
    json!({ "uri": percent_encode(relative), "uriBaseId": SRCROOT })
}

/// What `%SRCROOT%` stands for: the GitHub workspace, with its URI, or the directory kvlint ran
/// in (left to the consumer, as before).
fn original_uri_base_ids(base: Option<&Base>) -> Value {
    let workspace = base.filter(|base| base.is_workspace()).and_then(|base| {
        let dir = base.dir().to_str()?.replace('\\', "/");
        let dir = if dir.ends_with('/') {
            dir
        } else {
            format!("{dir}/")
        };
        absolute_uri(&dir)
    });
    match workspace {
        Some(uri) => json!({
            SRCROOT: {
                "uri": uri,
                "description": {
                    "text": "The GitHub Actions workspace (the repository's checkout); relative paths are relative to it."
                }
            }
        }),
        None => json!({
            SRCROOT: {
                "description": {
                    "text": "The directory kvlint was run in; relative paths are relative to it."
                }
            }
        }),
    }
}

/// The region of a location; `None` for a location that names a whole file (line 0).
fn region(location: &Location) -> Option<Value> {
    let span = location.span;
    if span.start.line == 0 {
        return None;
    }
    let mut region = Map::new();
    region.insert("startLine".into(), json!(span.start.line));
    region.insert("startColumn".into(), json!(span.start.column.max(1)));
    if span.end.line >= span.start.line {
        let end_column = if span.end.line == span.start.line {
            span.end.column.max(span.start.column).max(1)
        } else {
            span.end.column.max(1)
        };
        region.insert("endLine".into(), json!(span.end.line));
        region.insert("endColumn".into(), json!(end_column));
    }
    Some(Value::Object(region))
}

fn physical_location(location: &Location, base: Option<&Base>) -> Value {
    let mut physical = Map::new();
    physical.insert(
        "artifactLocation".into(),
        artifact_location(&location.file, base),
    );
    if let Some(region) = region(location) {
        physical.insert("region".into(), region);
    }
    Value::Object(physical)
}

fn logical_location(object: &ObjectRef) -> Value {
    let mut properties = Map::new();
    properties.insert("apiVersion".into(), json!(object.api_version));
    properties.insert("kind".into(), json!(object.kind));
    if let Some(namespace) = &object.namespace {
        properties.insert("namespace".into(), json!(namespace));
    }
    json!({
        "name": object.name,
        "fullyQualifiedName": object_label(object),
        "kind": "resource",
        "properties": properties,
    })
}

/// The first paragraph of the rule's "What it flags" section, as one line.
fn full_description(rule: &Rule) -> String {
    let lines = rule
        .explanation
        .lines()
        .skip_while(|line| !line.starts_with("### What it flags"))
        .skip(1)
        .skip_while(|line| line.trim().is_empty());
    let mut text = String::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(line);
    }
    if text.is_empty() {
        rule.summary.to_owned()
    } else {
        text
    }
}

fn reporting_descriptor(rule: &Rule) -> Value {
    json!({
        "id": rule.code,
        "name": rule.name,
        "shortDescription": { "text": rule.summary },
        "fullDescription": { "text": full_description(rule) },
        "help": { "text": rule.explanation, "markdown": rule.explanation },
        "helpUri": rule_url(rule),
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": {
            "category": rule.category.to_string(),
            "tags": ["kubevirt", rule.category.to_string()],
        },
    })
}

/// 64-bit FNV-1a: a hash that does not change between Rust releases or platforms.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part.as_bytes().iter().chain(std::iter::once(&0)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The identity of a finding that survives edits elsewhere in the file: rule, file, object and
/// field path (not the line, not the wording of the message).
fn fingerprint_hash(finding: &Finding) -> u64 {
    let object = finding.object.as_ref();
    fnv1a(&[
        finding.rule.code,
        &finding.location.file,
        object.map_or("", |o| o.api_version.as_str()),
        object.map_or("", |o| o.kind.as_str()),
        object.and_then(|o| o.namespace.as_deref()).unwrap_or(""),
        object.map_or("", |o| o.name.as_str()),
        finding.path.as_deref().unwrap_or(""),
    ])
}

fn result(finding: &Finding, occurrence: usize, base: Option<&Base>) -> Value {
    let rule_index = rules::ALL.iter().position(|rule| *rule == finding.rule);
    let mut result = Map::new();
    result.insert("ruleId".into(), json!(finding.rule.code));
    if let Some(index) = rule_index {
        result.insert("ruleIndex".into(), json!(index));
    }
    result.insert("level".into(), json!(level(finding.severity)));
    result.insert(
        "message".into(),
        json!({ "text": message_text(&finding.message) }),
    );
    let mut location = Map::new();
    location.insert(
        "physicalLocation".into(),
        physical_location(&finding.location, base),
    );
    if let Some(object) = &finding.object {
        location.insert("logicalLocations".into(), json!([logical_location(object)]));
    }
    result.insert("locations".into(), json!([location]));
    if !finding.related.is_empty() {
        let related: Vec<Value> = finding
            .related
            .iter()
            .enumerate()
            .map(|(i, related)| {
                json!({
                    "id": i + 1,
                    "physicalLocation": physical_location(&related.location, base),
                    "message": { "text": message_text(&related.message) },
                })
            })
            .collect();
        result.insert("relatedLocations".into(), json!(related));
    }
    result.insert(
        "partialFingerprints".into(),
        json!({
            FINGERPRINT_KEY: format!("{:016x}:{occurrence}", fingerprint_hash(finding))
        }),
    );
    let mut properties = Map::new();
    if let Some(path) = &finding.path {
        properties.insert("path".into(), json!(path));
    }
    if let Some(field) = &finding.kubevirt_field {
        properties.insert("kubevirt_field".into(), json!(field));
    }
    if !finding.fields.is_empty() {
        properties.insert("fields".into(), json!(finding.fields));
    }
    if let Some(help) = &finding.help {
        properties.insert("help".into(), json!(help));
    }
    properties.insert("category".into(), json!(finding.rule.category.to_string()));
    if let Some(kind) = finding.drift {
        properties.insert("drift".into(), json!(kind.as_str()));
    }
    result.insert("properties".into(), Value::Object(properties));
    Value::Object(result)
}

/// The report as a SARIF 2.1.0 log, pretty-printed and newline-terminated, with paths relative
/// to this run's base directory (`$GITHUB_WORKSPACE`, else the working directory).
pub fn report(report: &Report) -> String {
    report_in(report, Base::from_env().as_ref())
}

/// The report as a SARIF 2.1.0 log, with paths below `base` relative to `%SRCROOT%`.
pub fn report_in(report: &Report, base: Option<&Base>) -> String {
    // Findings with the same identity are told apart by their order, as GitHub does for its own
    // line hashes: `<hash>:1`, `<hash>:2`, ...
    let mut seen: HashMap<u64, usize> = HashMap::new();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let count = seen.entry(fingerprint_hash(finding)).or_insert(0);
            *count += 1;
            result(finding, *count, base)
        })
        .collect();
    let descriptors: Vec<Value> = rules::ALL
        .iter()
        .map(|rule| reporting_descriptor(rule))
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "kvlint",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": INFORMATION_URI,
                    "rules": descriptors,
                }
            },
            "originalUriBaseIds": original_uri_base_ids(base),
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": { "summary": report.summary },
        }],
    });
    let mut text = serde_json::to_string_pretty(&log)
        .unwrap_or_else(|err| format!("{{\"error\": \"{err}\"}}"));
    text.push('\n');
    crate::sanitize::json::guard_owned(text)
}

/// A message as SARIF plain text: a viewer reads `[text](target)` as an embedded link (SARIF
/// 2.1.0 §3.11.6), so a `]` right before `(` is escaped and no manifest text becomes a link.
fn message_text(text: &str) -> String {
    text.replace("](", "\\](")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diag::Related;

    fn location(file: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Location {
        Location::lines(Arc::from(file), (line, column), (end_line, end_column))
    }

    fn vm(name: &str) -> ObjectRef {
        ObjectRef {
            api_version: "kubevirt.io/v1".into(),
            kind: "VirtualMachine".into(),
            namespace: Some("db".into()),
            name: name.into(),
        }
    }

    fn parse(report_: &Report) -> Value {
        serde_json::from_str(&report(report_)).expect("valid JSON")
    }

    #[test]
    fn driver_lists_every_rule_in_registry_order() {
        let log = parse(&Report::default());
        assert_eq!(log["version"], "2.1.0");
        let driver = &log["runs"][0]["tool"]["driver"];
        assert_eq!(driver["name"], "kvlint");
        assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
        let rules_ = driver["rules"].as_array().unwrap();
        assert_eq!(rules_.len(), rules::ALL.len());
        for (descriptor, rule) in rules_.iter().zip(rules::ALL) {
            assert_eq!(descriptor["id"], rule.code);
            assert_eq!(descriptor["name"], rule.name);
            assert_eq!(descriptor["shortDescription"]["text"], rule.summary);
            assert_eq!(descriptor["help"]["markdown"], rule.explanation);
            assert_eq!(descriptor["helpUri"], rule_url(rule));
            assert_eq!(
                descriptor["defaultConfiguration"]["level"],
                level(rule.severity)
            );
            assert_eq!(
                descriptor["properties"]["category"],
                rule.category.to_string()
            );
            let full = descriptor["fullDescription"]["text"].as_str().unwrap();
            assert!(!full.is_empty() && !full.contains('\n'), "{full}");
        }
        assert_eq!(log["runs"][0]["results"], json!([]));
    }

    #[test]
    fn result_has_location_object_and_properties() {
        let finding = Finding::new(
            &rules::INSTANCETYPE_CONFLICT,
            location("apps/db/vm.yaml", 17, 11, 17, 22),
            "VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type",
        )
        .with_object(Some(vm("postgres")))
        .with_path("spec.template.spec.domain.memory.guest")
        .with_kubevirt_field("spec.template.spec.domain.memory.guest")
        .with_help("remove the field")
        .with_related(Related {
            location: location("apps/db/instancetype.yaml", 8, 5, 8, 16),
            message: "the instance type sets the memory".into(),
        });
        let report_ = Report {
            findings: vec![finding],
            ..Report::default()
        };
        let log = parse(&report_);
        let result = &log["runs"][0]["results"][0];
        let index = rules::ALL.iter().position(|r| r.code == "KV1001").unwrap();
        assert_eq!(result["ruleId"], "KV1001");
        assert_eq!(result["ruleIndex"], index);
        assert_eq!(result["level"], "error");
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            physical["artifactLocation"],
            json!({"uri": "apps/db/vm.yaml", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            physical["region"],
            json!({"startLine": 17, "startColumn": 11, "endLine": 17, "endColumn": 22})
        );
        let logical = &result["locations"][0]["logicalLocations"][0];
        assert_eq!(logical["name"], "postgres");
        assert_eq!(logical["fullyQualifiedName"], "VirtualMachine db/postgres");
        assert_eq!(logical["properties"]["namespace"], "db");
        let related = &result["relatedLocations"][0];
        assert_eq!(related["id"], 1);
        assert_eq!(
            related["message"]["text"],
            "the instance type sets the memory"
        );
        assert_eq!(related["physicalLocation"]["region"]["startLine"], json!(8));
        assert_eq!(
            result["properties"]["path"],
            "spec.template.spec.domain.memory.guest"
        );
        assert_eq!(
            result["properties"]["kubevirt_field"],
            "spec.template.spec.domain.memory.guest"
        );
        assert_eq!(result["properties"]["help"], "remove the field");
    }

    #[test]
    fn levels_follow_the_finding_not_the_rule_default() {
        let finding = Finding::new(
            &rules::DEPRECATED_RUNNING,
            location("vm.yaml", 3, 3, 3, 10),
            "m",
        )
        .with_severity(Severity::Error);
        let info = Finding::new(&rules::SKIPPED_FILE, location("a.yaml", 1, 1, 1, 2), "m");
        let log = parse(&Report {
            findings: vec![finding, info],
            ..Report::default()
        });
        assert_eq!(log["runs"][0]["results"][0]["level"], "error");
        assert_eq!(log["runs"][0]["results"][1]["level"], "note");
    }

    #[test]
    fn uris_are_encoded_and_absolute_paths_are_file_uris() {
        assert_eq!(
            artifact_location("./apps/my vm#1.yaml", None),
            json!({"uri": "apps/my%20vm%231.yaml", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("<stdin>", None),
            json!({"uri": "%3Cstdin%3E", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("a:b/ü.yaml", None)["uri"],
            "a%3Ab/%C3%BC.yaml"
        );
        assert_eq!(
            artifact_location("/srv/repo/vm.yaml", None),
            json!({"uri": "file:///srv/repo/vm.yaml"})
        );
        assert_eq!(
            artifact_location("C:\\repo\\vm.yaml", None),
            json!({"uri": "file:///C:/repo/vm.yaml"})
        );
    }

    #[test]
    fn a_location_without_a_line_has_no_region() {
        let finding = Finding::new(
            &rules::UNREADABLE_FILE,
            location("bin.yaml", 0, 0, 0, 0),
            "not UTF-8",
        );
        let log = parse(&Report {
            findings: vec![finding],
            ..Report::default()
        });
        let physical = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
        assert!(physical.get("region").is_none());
        assert_eq!(physical["artifactLocation"]["uri"], "bin.yaml");
    }

    #[test]
    fn fingerprints_ignore_lines_and_count_repeats() {
        let make = |line, message: &str| {
            Finding::new(
                &rules::DUPLICATE_KEY,
                location("vm.yaml", line, 3, line, 9),
                message,
            )
            .with_object(Some(vm("a")))
            .with_path("spec.running")
        };
        let first = parse(&Report {
            findings: vec![make(4, "one"), make(9, "two")],
            ..Report::default()
        });
        let moved = parse(&Report {
            findings: vec![make(14, "one, reworded")],
            ..Report::default()
        });
        let print = |log: &Value, i: usize| {
            log["runs"][0]["results"][i]["partialFingerprints"][FINGERPRINT_KEY]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let a = print(&first, 0);
        let b = print(&first, 1);
        assert!(a.ends_with(":1") && b.ends_with(":2"), "{a} {b}");
        assert_eq!(a.split(':').next(), b.split(':').next());
        assert_eq!(print(&moved, 0), a);
        let other = parse(&Report {
            findings: vec![make(4, "one").with_path("spec.runStrategy")],
            ..Report::default()
        });
        assert_ne!(print(&other, 0), a);
    }

    #[test]
    fn output_is_deterministic() {
        let findings = vec![Finding::new(
            &rules::YAML_SYNTAX,
            location("a.yaml", 2, 1, 2, 4),
            "bad",
        )];
        let one = report(&Report {
            findings: findings.clone(),
            ..Report::default()
        });
        let two = report(&Report {
            findings,
            ..Report::default()
        });
        assert_eq!(one, two);
        assert!(one.ends_with("}\n"));
    }
}
