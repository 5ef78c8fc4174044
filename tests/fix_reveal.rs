//! `kvlint fix` on the demo: a safe fix that only reveals a warning of a kind the run already
//! reports is applied, and the lines it prints are the lines `check` reports.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/demo");

fn run(dir: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("kvlint runs");
    String::from_utf8(output.stdout).unwrap()
}

/// `file:line: CODE` of each line `fix --check` prints.
fn fix_lines(text: &str) -> Vec<(String, u64, String)> {
    text.lines()
        .filter_map(|line| {
            let (place, rest) = line.split_once(": ")?;
            let (file, number) = place.rsplit_once(':')?;
            let code = rest.split_whitespace().next()?;
            Some((file.to_owned(), number.parse().ok()?, code.to_owned()))
        })
        .collect()
}

#[test]
fn fix_check_reports_the_lines_check_reports_and_applies_fixes_that_only_reveal() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(Path::new(DEMO), dir.path());
    let report: Value =
        serde_json::from_str(&run(dir.path(), &["check", "--format", "json", "."])).unwrap();
    let checked: Vec<(String, u64, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let printed = run(dir.path(), &["fix", "--check", "."]);
    let fixes = fix_lines(&printed);
    assert!(!fixes.is_empty(), "{printed}");
    // A fix found after earlier fixes (drift a refused VM shows once admitted) has no finding
    // in `check`; every other one is printed at the line `check` reports.
    for (file, line, code) in &fixes {
        let lines: Vec<u64> = checked
            .iter()
            .filter(|(f, _, c)| f == file && c == code)
            .map(|(_, l, _)| *l)
            .collect();
        assert!(
            lines.is_empty() || lines.contains(line),
            "`fix --check` prints {file}:{line} {code}; `check` reports it at {lines:?}:\n{printed}"
        );
    }
    assert!(
        !printed.contains("not fixed: the fixed file would report KV3006"),
        "{printed}"
    );
    assert!(
        fixes
            .iter()
            .any(|(file, _, code)| file.ends_with("vm-exported.yaml") && code == "KV4001"),
        "{printed}"
    );
}
