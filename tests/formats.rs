//! Every report format of `kvlint check` on one fixture (testdata/formats): errors, warnings and
//! an info, related places in other files, a file-level syntax error, and text that the formats
//! must escape. The reports are produced by the binary, as users get them.

use std::process::Command;

const FIXTURE: &str = "testdata/formats";

fn check(format: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", FIXTURE, "--format", format, "--color", "never"])
        .env_remove("GITHUB_STEP_SUMMARY")
        // Inside GitHub Actions these would rename files and rank the annotations.
        .env_remove("GITHUB_WORKSPACE")
        .env_remove("GITHUB_EVENT_PATH")
        .env("COLUMNS", "100")
        .output()
        .expect("kvlint runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{format}: the fixture has errors: {output:?}"
    );
    assert!(output.stderr.is_empty(), "{format}: {output:?}");
    String::from_utf8(output.stdout).expect("the report is UTF-8")
}

#[test]
fn human() {
    insta::assert_snapshot!(check("human"));
}

#[test]
fn concise() {
    insta::assert_snapshot!(check("concise"));
}

#[test]
fn json() {
    insta::assert_snapshot!(check("json"));
}

#[test]
fn github() {
    insta::assert_snapshot!(check("github"));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(check("markdown"));
}

#[test]
fn junit() {
    insta::assert_snapshot!(check("junit"));
}

/// The SARIF rule list documents every rule (tests/sarif.rs checks it against the registry);
/// the snapshot keeps only the rule ids so that a documentation edit does not change it.
#[test]
fn sarif() {
    let mut log: serde_json::Value =
        serde_json::from_str(&check("sarif")).expect("the SARIF report is JSON");
    let driver = &mut log["runs"][0]["tool"]["driver"];
    let ids: Vec<serde_json::Value> = driver["rules"]
        .as_array()
        .expect("the driver lists its rules")
        .iter()
        .map(|rule| rule["id"].clone())
        .collect();
    driver["rules"] = serde_json::Value::Array(ids);
    insta::assert_snapshot!(serde_json::to_string_pretty(&log).unwrap());
}

/// The same findings, in the same order, reach the concise, JSON and SARIF reports.
#[test]
fn every_format_carries_the_same_findings() {
    let concise = check("concise");
    let codes: Vec<&str> = concise
        .lines()
        .filter_map(|line| {
            line.split_once('[')
                .and_then(|(_, rest)| rest.split_once(']'))
        })
        .map(|(code, _)| code)
        .collect();
    assert_eq!(codes.len(), 12, "{concise}");
    let json: serde_json::Value = serde_json::from_str(&check("json")).unwrap();
    let json_codes: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(json_codes, codes);
    let sarif: serde_json::Value = serde_json::from_str(&check("sarif")).unwrap();
    let sarif_codes: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(sarif_codes, codes);
}

/// The JSON report's findings, as (severity, code, file, line, column, message).
fn json_findings() -> Vec<(String, String, String, u64, u64, String)> {
    let json: serde_json::Value = serde_json::from_str(&check("json")).unwrap();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let text = |key: &str| d[key].as_str().unwrap().to_owned();
            let number = |key: &str| d[key].as_u64().unwrap();
            (
                text("severity"),
                text("code"),
                text("file"),
                number("line"),
                number("column"),
                text("message"),
            )
        })
        .collect()
}

/// Each finding reaches JUnit at its position, with its severity, code and whole message.
#[test]
fn junit_carries_each_finding_at_its_position() {
    let junit = check("junit")
        .replace("&apos;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    for (severity, code, file, line, column, message) in json_findings() {
        let expected = format!("{file}:{line}:{column}: {severity}[{code}] {message}");
        assert!(junit.contains(&expected), "junit lacks {expected:?}");
    }
}

/// Each finding has a Markdown row with its severity, its code and its line; the webhook's
/// defaults for one VM share the row of the first of them.
#[test]
fn markdown_has_a_row_for_each_finding() {
    let markdown = check("markdown");
    let rows: Vec<Vec<&str>> = markdown
        .lines()
        .filter(|line| {
            line.starts_with("| ") && !line.starts_with("| Severity") && !line.starts_with("| ---")
        })
        .map(|line| line.split(" | ").collect())
        .collect();
    let findings = json_findings();
    for (severity, code, file, line, _, _) in &findings {
        let row = rows
            .iter()
            .find(|cells| cells[1].contains(&format!("[{code}](")))
            .unwrap_or_else(|| panic!("no row for {code}: {markdown}"));
        assert_eq!(row[0].trim_start_matches("| "), severity, "{code}");
        let grouped: Vec<u64> = findings
            .iter()
            .filter(|(_, other, other_file, ..)| {
                other_file == file && row[1].contains(&format!("[{other}]("))
            })
            .map(|(_, _, _, other_line, ..)| *other_line)
            .collect();
        let first = grouped.iter().min().unwrap();
        assert_eq!(row[2], format!("{file}:{first}"), "{code}");
        if !row[1].contains("<br>") {
            assert_eq!(first, line, "{code}");
        }
    }
    assert_eq!(rows.len(), 9, "{markdown}");
}
