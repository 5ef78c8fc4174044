//! examples/demo/README.md tells a new user what the demo holds: every file it names exists,
//! and every field it calls misspelled is one kvlint reports as unknown there.

use std::path::Path;
use std::process::Command;

const DEMO: &str = "examples/demo";

/// The code spans of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_file_the_demo_readme_names_exists() {
    let readme = std::fs::read_to_string(Path::new(DEMO).join("README.md")).unwrap();
    let files: Vec<&str> = code_spans(&readme)
        .into_iter()
        .filter(|span| {
            Path::new(span).extension().is_some_and(|e| e == "yaml") && span.contains('/')
        })
        .collect();
    assert!(files.len() >= 8, "{files:?}");
    for file in files {
        assert!(
            Path::new(DEMO).join(file).is_file(),
            "{file} does not exist"
        );
    }
}

#[test]
fn the_misspelled_field_the_readme_names_is_reported_where_it_says() {
    let readme = std::fs::read_to_string(Path::new(DEMO).join("README.md")).unwrap();
    let line = readme
        .lines()
        .find(|line| line.contains("apps/db/instancetype.yaml"))
        .unwrap();
    let misspelled = code_spans(line)[1];
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", "--units", "off", "--format", "concise"])
        .arg(Path::new(DEMO).join("apps/db/instancetype.yaml"))
        .output()
        .unwrap();
    let report = String::from_utf8(output.stdout).unwrap();
    assert!(
        report.contains(&format!(
            "KV0014] unknown field \"spec.devices.{misspelled}\""
        )),
        "{misspelled}: {report}"
    );
}
