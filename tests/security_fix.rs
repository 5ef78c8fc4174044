//! `kvlint fix` checks its fixed texts in memory (nothing in `TMPDIR`, even when terminated),
//! with the configuration `check` uses; `--baseline` and `--schema-location` files are read
//! bounded and never block; `fix --diff` in GitHub Actions cannot run commands from the user's
//! lines (issue 20, items 12 and 14, and the patch of item 6). Every hostile input is generated
//! here.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::{mkfifo, no_tmp, output_within, text};

/// A VM with fixes kvlint makes (`running`, a status, defaults KubeVirt writes), and lines a
/// GitHub runner would read as commands in a block scalar right before them.
const FIXABLE: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  annotations:
    note: |
      ::error::x
      see ##[group]y
spec:
  running: false
  template:
    spec:
      domain:
        devices: {}
status:
  ready: false
";

/// How long one run may take (a debug build on a busy machine; each takes well under 1 s).
const BOUND: Duration = Duration::from_secs(20);

/// `kvlint ARGS` in `dir` with `TMPDIR` set to `tmp` and `env` added, under a watchdog.
fn kvlint_in(dir: &Path, tmp: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
    command
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .envs(env.iter().copied());
    output_within(&mut command, BOUND)
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    out.sort();
    out
}

/// A repository of `n` fixable VMs under `apps/`.
fn repository(n: usize) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    fs::create_dir(repo.path().join("apps")).unwrap();
    for i in 0..n {
        fs::write(
            repo.path().join(format!("apps/vm{i}.yaml")),
            FIXABLE.replace("name: vm", &format!("name: vm{i}")),
        )
        .unwrap();
    }
    repo
}

#[test]
fn fix_creates_no_temporary_directory() {
    let repo = repository(3);
    let checked = kvlint_in(repo.path(), &no_tmp(), &[], &["fix", "--check", "apps"]);
    assert_eq!(checked.status.code(), Some(1), "{checked:?}");
    let listed = text(&checked.stdout);
    // Findings carry the files' own names.
    assert!(
        listed.contains("apps/vm0.yaml:10: KV0016 replace `spec.running: false`"),
        "{listed}"
    );
    assert!(
        listed.ends_with("kvlint: would fix 15 findings in 3 files; 3 more with --unsafe-fixes\n"),
        "{listed}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let fixed = kvlint_in(repo.path(), tmp.path(), &[], &["fix", "apps"]);
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    assert!(text(&fixed.stdout).contains("kvlint: fixed 15 findings in 3 files"));
    assert!(entries(tmp.path()).is_empty(), "{:?}", entries(tmp.path()));
    assert!(
        !fs::read_to_string(repo.path().join("apps/vm2.yaml"))
            .unwrap()
            .contains("running:")
    );
    let again = kvlint_in(repo.path(), &no_tmp(), &[], &["fix", "--check", "apps"]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}

#[test]
fn fix_leaves_nothing_in_tmpdir_when_terminated() {
    let repo = repository(150);
    let tmp = tempfile::tempdir().unwrap();
    for delay in [5, 20, 80, 200] {
        common::terminate_after(
            Command::new(env!("CARGO_BIN_EXE_kvlint"))
                .args(["fix", "--check", "apps"])
                .current_dir(repo.path())
                .env("TMPDIR", tmp.path()),
            Duration::from_millis(delay),
        );
        assert!(
            entries(tmp.path()).is_empty(),
            "left behind after SIGTERM at {delay} ms: {:?}",
            entries(tmp.path())
        );
    }
}

#[test]
fn a_refused_configuration_is_reported_by_fix_as_by_check() {
    let repo = repository(1);
    // A FIFO named `.kvlint.yaml` is not used, and never blocks.
    mkfifo(&repo.path().join(".kvlint.yaml"));
    let warning = "KV0019 warning: this configuration file is not used: it is a FIFO (named pipe), not a regular file";
    let listed = kvlint_in(repo.path(), &no_tmp(), &[], &["fix", "--check", "apps"]);
    assert_eq!(listed.status.code(), Some(1), "{listed:?}");
    let listed = text(&listed.stdout);
    assert!(
        listed.starts_with(&format!(".kvlint.yaml:1: {warning}\n")),
        "{listed}"
    );
    assert!(listed.contains("apps/vm0.yaml:10: KV0016"), "{listed}");

    let json = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["fix", "--check", "--format", "json", "apps"],
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["configuration"][0]["rule"], "KV0019");
    assert_eq!(json["configuration"][0]["file"], ".kvlint.yaml");
    assert_eq!(json["configuration"][0]["severity"], "warning");
    assert_eq!(json["fixes"].as_array().unwrap().len(), 5);

    let checked = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["check", "--format", "concise", "apps"],
    );
    assert!(
        text(&checked.stdout).contains("not used: it is a FIFO (named pipe)"),
        "{checked:?}"
    );

    // Without a problem, the JSON keeps its usual keys.
    fs::remove_file(repo.path().join(".kvlint.yaml")).unwrap();
    let json = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["fix", "--check", "--format", "json", "apps"],
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(json.get("configuration").is_none(), "{json}");
}

/// A sparse file one byte over the 256 MiB a file may have.
fn oversize(path: &Path) {
    let file = fs::File::create(path).unwrap();
    file.set_len(kvlint::source::MAX_FILE_BYTES + 1).unwrap();
}

#[test]
fn a_baseline_that_is_a_fifo_or_too_large_is_an_error_without_blocking() {
    let repo = repository(1);
    mkfifo(&repo.path().join("baseline.json"));
    let output = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["check", "--baseline", "baseline.json", "apps"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        text(&output.stderr).contains("baseline.json: a FIFO (named pipe), not a regular file"),
        "{output:?}"
    );

    oversize(&repo.path().join("large.json"));
    let output = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["check", "--baseline", "large.json", "apps"],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        text(&output.stderr).contains("large.json: the file is larger than 256 MiB"),
        "{output:?}"
    );

    // A link to a baseline is followed: the path is the user's choice.
    fs::write(
        repo.path().join("real.json"),
        r#"{"version": 1, "findings": []}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink("real.json", repo.path().join("link.json")).unwrap();
    let output = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[],
        &["check", "--baseline", "link.json", "apps"],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        text(&output.stdout)
            .contains("0 errors, 2 warnings, 1 infos (4 webhook defaults in 1 block)"),
        "{output:?}"
    );
}

const WIDGET: &str = "\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: ns}
spec:
  colour: green
";

/// A schema for `Widget` whose `colour` is defined in `definitions.json`.
fn widget_schemas(dir: &Path) {
    fs::write(
        dir.join("widget-example-v1.json"),
        r#"{"type": "object", "properties": {"spec": {"type": "object", "properties": {"colour": {"$ref": "definitions.json#/colour"}}}}}"#,
    )
    .unwrap();
}

#[test]
fn schema_files_that_are_fifos_or_too_large_are_an_error_without_blocking() {
    let repo = tempfile::tempdir().unwrap();
    fs::write(repo.path().join("widget.yaml"), WIDGET).unwrap();
    let schemas = repo.path().join("schemas");
    fs::create_dir(&schemas).unwrap();
    widget_schemas(&schemas);
    fs::write(
        schemas.join("definitions.json"),
        r#"{"colour": {"enum": ["red"]}}"#,
    )
    .unwrap();
    let run = |location: &str| {
        kvlint_in(
            repo.path(),
            &no_tmp(),
            &[],
            &[
                "check",
                "--format",
                "concise",
                "--schema-location",
                location,
                "widget.yaml",
            ],
        )
    };
    // The schema is used as it is.
    let output = run("schemas");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(text(&output.stdout).contains("KV0015"), "{output:?}");

    // A `$ref` to a FIFO.
    fs::remove_file(schemas.join("definitions.json")).unwrap();
    mkfifo(&schemas.join("definitions.json"));
    let output = run("schemas");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        text(&output.stderr).contains("definitions.json: a FIFO (named pipe), not a regular file"),
        "{output:?}"
    );

    // A template naming a FIFO, and a schema over the size limit.
    let fifo = repo.path().join("fifo");
    fs::create_dir(&fifo).unwrap();
    mkfifo(&fifo.join("widget.json"));
    let output = run("fifo/{{ .ResourceKind }}.json");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        text(&output.stderr).contains("a FIFO (named pipe)"),
        "{output:?}"
    );

    let large = repo.path().join("large");
    fs::create_dir(&large).unwrap();
    oversize(&large.join("widget-example-v1.json"));
    let output = run("large");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        text(&output.stderr).contains("the file is larger than 256 MiB"),
        "{output:?}"
    );
}

/// The lines a GitHub runner reads as commands: `::` after leading white space, `##[` anywhere.
fn is_command(line: &str) -> bool {
    line.trim_start().starts_with("::") || line.contains("##[")
}

#[test]
fn fix_diff_in_github_actions_stops_commands_around_the_patch() {
    let repo = repository(1);
    let plain = kvlint_in(repo.path(), &no_tmp(), &[], &["fix", "--diff", "apps"]);
    assert_eq!(plain.status.code(), Some(1), "{plain:?}");
    let patch = text(&plain.stdout);
    assert!(patch.starts_with("--- a/apps/vm0.yaml\n"), "{patch}");
    assert!(patch.contains("\n       ::error::x\n"), "{patch}");
    assert!(!patch.contains("stop-commands"), "{patch}");

    let mut tokens = Vec::new();
    for _ in 0..2 {
        let output = kvlint_in(
            repo.path(),
            &no_tmp(),
            &[("GITHUB_ACTIONS", "true")],
            &["fix", "--diff", "apps"],
        );
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        let wrapped = text(&output.stdout);
        let lines: Vec<&str> = wrapped.lines().collect();
        let token = lines[0]
            .strip_prefix("::stop-commands::")
            .unwrap_or_else(|| panic!("{wrapped}"));
        assert!(token.len() >= 32, "{token}");
        assert_eq!(lines[lines.len() - 1], format!("::{token}::"));
        // The patch itself is unchanged, and every command line of it is inside the pair.
        assert_eq!(lines[1..lines.len() - 1].join("\n") + "\n", patch);
        assert!(!patch.to_lowercase().contains(&token.to_lowercase()));
        let commands = lines.iter().filter(|line| is_command(line)).count();
        assert_eq!(commands, 4, "{wrapped}");
        // The list on standard error is guarded as before.
        assert!(!text(&output.stderr).lines().any(is_command), "{output:?}");
        tokens.push(token.to_owned());
    }
    assert_ne!(tokens[0], tokens[1]);

    // Any other value of the variable is not GitHub Actions.
    let other = kvlint_in(
        repo.path(),
        &no_tmp(),
        &[("GITHUB_ACTIONS", "false")],
        &["fix", "--diff", "apps"],
    );
    assert_eq!(text(&other.stdout), patch);
}
