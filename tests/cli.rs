//! The binary's contract: exit codes, formats, standard input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn kvlint(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kvlint starts");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("kvlint finishes")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

const CONFLICT: &str = "testdata/cases/memory-guest-conflict";
const CLEAN: &str = "testdata/cases/list-kind";

#[test]
fn exit_code_is_1_for_errors_and_0_for_a_clean_repository() {
    assert_eq!(kvlint(&["check", CONFLICT], None).status.code(), Some(1));
    assert_eq!(kvlint(&["check", CLEAN], None).status.code(), Some(0));
}

#[test]
fn fail_on_moves_the_threshold() {
    // A VM whose only finding is a warning (the deprecated `running`).
    let warned = [
        "check",
        "--index",
        "testdata/integrations/fail",
        "testdata/integrations/fail/apps/web.yaml",
    ];
    assert_eq!(kvlint(&warned, None).status.code(), Some(0));
    let strict = [&warned[..], &["--fail-on", "warning"]].concat();
    assert_eq!(kvlint(&strict, None).status.code(), Some(1));
    assert_eq!(
        kvlint(&["check", CONFLICT, "--fail-on", "none"], None)
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn usage_and_io_errors_exit_with_2() {
    let missing = kvlint(&["check", "testdata/does-not-exist"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does-not-exist"));
    assert_eq!(
        kvlint(&["check", "--format", "xml", CLEAN], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        kvlint(&["check", "--kubevirt-version", "v9.9", CLEAN], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn json_report_has_the_documented_shape() {
    let output = kvlint(&["check", "--format", "json", CONFLICT], None);
    let report = json(&output);
    assert_eq!(report["version"], 1);
    let diagnostic = &report["diagnostics"][0];
    for key in [
        "code",
        "name",
        "category",
        "severity",
        "message",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "object",
        "path",
        "kubevirt_field",
        "help",
        "related",
    ] {
        assert!(diagnostic.get(key).is_some(), "missing {key}");
    }
    assert_eq!(diagnostic["category"], "reject");
    assert_eq!(
        diagnostic["kubevirt_field"],
        "spec.template.spec.domain.memory.guest"
    );
    assert_eq!(diagnostic["object"]["kind"], "VirtualMachine");
    for key in [
        "files",
        "documents",
        "objects",
        "skipped",
        "vms",
        "rendered",
        "errors",
        "warnings",
        "infos",
    ] {
        assert!(
            report["summary"].get(key).is_some(),
            "missing summary.{key}"
        );
    }
}

#[test]
fn stdin_is_read_and_named() {
    let manifest = std::fs::read_to_string(format!("{CONFLICT}/vm-cirros-csmall.yaml")).unwrap();
    let output = kvlint(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--stdin-filename",
            "rendered.yaml",
        ],
        Some(&manifest),
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    assert_eq!(report["diagnostics"][0]["file"], "rendered.yaml");
    let unnamed = json(&kvlint(
        &["check", "-", "--format", "json"],
        Some(&manifest),
    ));
    assert_eq!(unnamed["diagnostics"][0]["file"], "<stdin>");
}

#[test]
fn render_prints_json_sorted_and_fails_for_vms_it_cannot_render() {
    let output = kvlint(
        &[
            "render",
            "--format",
            "json",
            "testdata/cases/infer-from-volume",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1), "no-label cannot be rendered");
    let rendered = json(&output);
    let names: Vec<&str> = rendered
        .as_array()
        .unwrap()
        .iter()
        .map(|vm| vm["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["infers", "name-and-infer", "no-label-ignored"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no-label") || stderr.contains("default-instancetype"),
        "{stderr}"
    );

    let clean = kvlint(&["render", CLEAN], None);
    assert_eq!(clean.status.code(), Some(0));
    let text = String::from_utf8_lossy(&clean.stdout);
    assert!(
        text.starts_with("---\n# Source: testdata/cases/list-kind/list.json:"),
        "{text}"
    );
}

#[test]
fn render_selects_vms_and_writes_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_string_lossy().into_owned();
    let output = kvlint(
        &[
            "render",
            "testdata/cases/infer-from-volume",
            "--vm",
            "default/infers",
            "--out-dir",
            &out,
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0));
    let written = std::fs::read_to_string(dir.path().join("default_infers.yaml")).unwrap();
    assert!(written.contains("name: infers"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn render_refuses_a_vm_selection_that_names_no_vm() {
    for (selection, message) in [
        (
            "default/no-such-vm",
            "no VirtualMachine of that namespace and name",
        ),
        ("infers", "expected NAMESPACE/NAME"),
    ] {
        let output = kvlint(
            &[
                "render",
                "testdata/cases/infer-from-volume",
                "--vm",
                selection,
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{selection}");
        assert!(output.stdout.is_empty(), "{selection}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{selection}: {stderr}");
    }
}

/// Each command's help lists the exit codes 0, 1 and 2, and the command returns each of them
/// on an input that calls for it.
#[test]
fn commands_return_the_exit_codes_their_help_documents() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    std::fs::create_dir(&clean).unwrap();
    std::fs::write(
        clean.join("configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  key: value\n",
    )
    .unwrap();
    let clean = clean.to_str().unwrap();
    let missing = dir.path().join("missing");
    let missing = missing.to_str().unwrap();
    let infers = "testdata/cases/infer-from-volume";
    let cases: [(&str, [&[&str]; 3]); 3] = [
        ("check", [&[clean], &["testdata/formats"], &[missing]]),
        (
            "render",
            [
                &[infers, "--vm", "default/infers"],
                &["testdata/formats"],
                &[missing],
            ],
        ),
        (
            "fix",
            [
                &["--check", clean],
                &["--check", "testdata/formats"],
                &["--check", missing],
            ],
        ),
    ];
    for (command, inputs) in cases {
        let help = kvlint(&[command, "--help"], None);
        let help = String::from_utf8_lossy(&help.stdout);
        let documented: Vec<&str> = help
            .lines()
            .skip_while(|line| *line != "Exit codes:")
            .skip(1)
            .take_while(|line| !line.is_empty())
            .filter_map(|line| line.split_whitespace().next())
            .collect();
        assert_eq!(documented, ["0", "1", "2"], "{command}: {help}");
        for (code, input) in (0..).zip(inputs) {
            let mut args = vec![command];
            args.extend_from_slice(input);
            let output = kvlint(&args, None);
            assert_eq!(
                output.status.code(),
                Some(code),
                "{args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
}

#[test]
fn kustomize_build_output_points_at_the_original_files() {
    let built = std::fs::read_to_string("testdata/kustomize-origin/built.yaml").unwrap();
    let output = kvlint(
        &[
            "check",
            "-",
            "--format",
            "json",
            "--stdin-filename",
            "testdata/kustomize-origin/overlay",
        ],
        Some(&built),
    );
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let conflict = &report["diagnostics"][0];
    assert_eq!(
        conflict["kubevirt_field"],
        "spec.template.spec.domain.cpu.cores"
    );
    assert_eq!(conflict["file"], "testdata/kustomize-origin/base/vm.yaml");
    assert_eq!(
        (conflict["line"].as_u64(), conflict["column"].as_u64()),
        (Some(23), Some(11))
    );
    assert_eq!(conflict["object"]["namespace"], "prod");
    assert_eq!(
        conflict["related"][0]["file"],
        "testdata/kustomize-origin/base/vm.yaml"
    );
}

fn write(dir: &std::path::Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const EXPORTED_VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: exported
  resourceVersion: \"42\"
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        memory: {guest: 1Gi}
        devices: {}
";

#[test]
fn configuration_file_sets_severities_and_reports_its_own_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "vm.yaml", EXPORTED_VM);
    write(
        dir.path(),
        ".kvlint.yaml",
        "rules:\n  server-metadata-committed: error\n  KV3006: off\n  KV9999: error\n",
    );
    let path = dir.path().to_string_lossy().into_owned();
    let report = json(&kvlint(
        &["check", &path, "--format", "json", "--fail-on", "none"],
        None,
    ));
    let codes: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["severity"].as_str().unwrap()))
        .collect();
    assert!(codes.contains(&("KV4003", "error")), "{codes:?}");
    assert!(!codes.iter().any(|(c, _)| *c == "KV3006"), "{codes:?}");
    assert!(codes.contains(&("KV0019", "error")), "{codes:?}");
    let ignored = json(&kvlint(
        &[
            "check",
            &path,
            "--format",
            "json",
            "--no-config",
            "--fail-on",
            "none",
        ],
        None,
    ));
    let severities: Vec<&str> = ignored["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV4003")
        .map(|d| d["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["warning"]);
}

#[test]
fn a_baseline_hides_known_findings_only() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "vm.yaml", EXPORTED_VM);
    let path = dir.path().join("repo");
    std::fs::create_dir(&path).unwrap();
    write(&path, "vm.yaml", EXPORTED_VM);
    let repo = path.to_string_lossy().into_owned();
    let baseline = dir
        .path()
        .join("baseline.json")
        .to_string_lossy()
        .into_owned();
    let written = kvlint(&["check", &repo, "--write-baseline", &baseline], None);
    assert_eq!(written.status.code(), Some(0));
    let clean = kvlint(
        &[
            "check",
            &repo,
            "--baseline",
            &baseline,
            "--format",
            "json",
            "--fail-on",
            "warning",
        ],
        None,
    );
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stdout)
    );
    write(
        &path,
        "vm.yaml",
        &EXPORTED_VM.replace(
            "  resourceVersion: \"42\"\n",
            "  resourceVersion: \"42\"\n  uid: 1234\n",
        ),
    );
    let report = json(&kvlint(
        &[
            "check",
            &repo,
            "--baseline",
            &baseline,
            "--format",
            "json",
            "--fail-on",
            "none",
        ],
        None,
    ));
    let paths: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert_eq!(paths, ["metadata.uid"]);
}

#[test]
fn inline_suppressions_need_a_reason_and_must_match() {
    let dir = tempfile::tempdir().unwrap();
    let text = EXPORTED_VM
        .replace("  resourceVersion: \"42\"\n", "  resourceVersion: \"42\" # kvlint: ignore[server-metadata-committed] exported on purpose\n")
        .replace("  runStrategy: Halted\n", "  runStrategy: Halted # kvlint: ignore[revision-name-in-spec] nothing to hide\n  # kvlint: ignore[KV3003]\n");
    write(dir.path(), "vm.yaml", &text);
    let path = dir.path().to_string_lossy().into_owned();
    let report = json(&kvlint(
        &["check", &path, "--format", "json", "--fail-on", "none"],
        None,
    ));
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"KV4003"), "{codes:?}");
    assert!(codes.contains(&"KV0017"), "unused suppression: {codes:?}");
    assert!(
        codes.contains(&"KV0018"),
        "suppression without reason: {codes:?}"
    );
}
