//! `kvlint check --index DIR PATH...`, as the pre-commit hooks run it: the whole repository is
//! read, and only the findings in the given files (or pointing into them) are reported.

use std::path::Path;
use std::process::{Command, Output};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/integrations/fail");

fn check_in(dir: &Path, args: &[&str]) -> Output {
    let format = if args.contains(&"--format") {
        &[][..]
    } else {
        &["--format", "concise"][..]
    };
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .arg("check")
        .args(format)
        .args(args)
        .output()
        .expect("kvlint runs")
}

fn lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn only_the_given_files_are_reported_but_the_repository_is_read() {
    let fixture = Path::new(FIXTURE);
    let web = check_in(fixture, &["--index", ".", "apps/web.yaml"]);
    assert_eq!(web.status.code(), Some(0), "{web:?}");
    assert_eq!(
        lines(&web),
        [
            "apps/web.yaml:7:3: warning[KV0016] spec.running is deprecated, please use spec.runStrategy instead.",
            "3 files, 3 objects, 2 VMs (1 rendered): 0 errors, 1 warnings, 0 infos",
        ]
    );

    let db = check_in(fixture, &["--index", ".", "apps/db.yaml"]);
    assert_eq!(db.status.code(), Some(1), "{db:?}");
    let db_lines = lines(&db);
    assert_eq!(db_lines.len(), 2, "{db_lines:?}");
    assert!(
        db_lines[0].starts_with("apps/db.yaml:24:11: error[KV1001]"),
        "{db_lines:?}"
    );

    // Checked on its own, the VM cannot find its instance type.
    let alone = check_in(fixture, &["apps/db.yaml"]);
    assert!(
        lines(&alone)[0].contains("error[KV1006]"),
        "{:?}",
        lines(&alone)
    );
}

#[test]
fn a_changed_instance_type_reports_the_vms_it_breaks() {
    let output = check_in(
        Path::new(FIXTURE),
        &["--index", ".", "platform/instancetype.yaml"],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        lines(&output)[0].starts_with("apps/db.yaml:24:11: error[KV1001]"),
        "{output:?}"
    );
}

#[test]
fn paths_are_matched_relative_or_absolute_and_not_read_twice() {
    let fixture = Path::new(FIXTURE);
    let absolute = fixture.join("apps/db.yaml");
    let output = check_in(
        fixture,
        &[
            "--index",
            FIXTURE,
            absolute.to_str().unwrap(),
            "apps/web.yaml",
        ],
    );
    let text = lines(&output).join("\n");
    assert!(!text.contains("KV0008"), "no duplicate objects: {text}");
    assert!(text.contains("error[KV1001]"), "{text}");
    assert!(text.contains("warning[KV0016]"), "{text}");
    assert!(text.ends_with("1 errors, 1 warnings, 0 infos"), "{text}");

    // A directory covers every file under it; the JSON summary counts what is reported.
    let output = check_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "--index",
            "testdata/integrations/fail",
            "testdata/integrations/fail/platform",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["errors"], 1, "{report}");
    assert_eq!(report["summary"]["warnings"], 0, "{report}");
}
