//! The pre-commit hooks and the GitHub Action with units: a staged file re-checks the units it
//! belongs to (a base, a patch, the Flux Kustomization that names the unit), and the Action
//! checks and previews units by default. The hooks' entry and the Action's step scripts are
//! taken from .pre-commit-hooks.yaml and action.yml, so that a change there is tested too.
#![cfg(unix)]

use crate::common;
use crate::units_support;

use std::path::Path;

use common::kustomize_available;
use units_support::{BASE_VM, Repo, memory_patch};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn yaml_file(name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(Path::new(ROOT).join(name)).unwrap();
    kvlint::yaml::parse_stream(&text, kvlint::yaml::Limits::default())
        .into_iter()
        .next()
        .unwrap()
        .expect("valid YAML")
        .root
        .to_json()
}

/// The arguments of the `kvlint` pre-commit hook's entry (after `kvlint`).
fn hook_arguments() -> Vec<String> {
    let hooks = yaml_file(".pre-commit-hooks.yaml");
    let hook = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|hook| hook["id"] == "kvlint")
        .unwrap();
    let entry: Vec<String> = hook["entry"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(entry[0], "kvlint");
    entry[1..].to_vec()
}

/// The findings the hook reports when pre-commit passes `staged`.
fn hook_findings(repo: &Repo, staged: &[&str]) -> Vec<(String, String)> {
    let mut args = hook_arguments();
    args.extend(["--format", "json", "--fail-on", "none"].map(str::to_owned));
    args.extend(staged.iter().map(|file| (*file).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = common::json_report(&repo.kvlint(&args));
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["file"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A repository whose prod patch commits a status (KV4002 at the patch line).
fn repository_with_a_status_in_prod() -> Repo {
    let repo = Repo::new();
    repo.write(
        "apps/web/overlays/prod/patch.yaml",
        &format!("{}status:\n  ready: true\n", memory_patch("4Gi")),
    );
    repo
}

const STATUS: (&str, &str) = ("KV4002", "apps/web/overlays/prod/patch.yaml");

#[test]
fn a_staged_base_re_checks_every_unit_built_from_it() {
    if !kustomize_available("a_staged_base_re_checks_every_unit_built_from_it") {
        return;
    }
    let repo = repository_with_a_status_in_prod();
    let status = (STATUS.0.to_owned(), STATUS.1.to_owned());
    assert!(hook_findings(&repo, &["apps/web/base/vm.yaml"]).contains(&status));
    assert!(hook_findings(&repo, &["apps/web/overlays/prod/patch.yaml"]).contains(&status));
    // A file no unit reads reports none of the unit's findings.
    repo.write("other/readme.yaml", "a: 1\n");
    assert!(!hook_findings(&repo, &["other/readme.yaml"]).contains(&status));
}

#[test]
fn a_staged_flux_kustomization_re_checks_the_unit_it_names() {
    if !kustomize_available("a_staged_flux_kustomization_re_checks_the_unit_it_names") {
        return;
    }
    let repo = repository_with_a_status_in_prod();
    repo.write(
        "clusters/prod/web.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: web
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/web/overlays/prod
  prune: true
",
    );
    // The unit's findings, wherever they point (the entry point sets the unit's options).
    let found = hook_findings(&repo, &["clusters/prod/web.yaml"]);
    assert!(found.iter().any(|(code, _)| code == STATUS.0), "{found:?}");
    let elsewhere = hook_findings(&repo, &["apps/web/overlays/dev/kustomization.yaml"]);
    assert!(
        !elsewhere.iter().any(|(code, _)| code == STATUS.0),
        "{elsewhere:?}"
    );
}

/// The `run` script of the Action's step called `name`.
fn step_script(name: &str) -> String {
    let action = yaml_file("action.yml");
    action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|step| step["name"] == name)
        .unwrap_or_else(|| panic!("no step {name}"))["run"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Runs a step's script in the repository as a runner would, with the kvlint under test first
/// on PATH; returns its standard output and the step summary.
fn run_step(repo: &Repo, name: &str, env: &[(&str, &str)]) -> (String, String) {
    let runner = tempfile::tempdir().unwrap();
    let summary = runner.path().join("summary.md");
    let output_file = runner.path().join("output");
    let bin = Path::new(env!("CARGO_BIN_EXE_kvlint")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(step_script(name))
        .current_dir(repo.path())
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &output_file)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", runner.path())
        .env("KVLINT_CACHE_DIR", repo.tmp())
        .envs(env.iter().copied())
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        std::fs::read_to_string(&summary).unwrap_or_default(),
    )
}

#[test]
fn the_action_checks_units_by_default() {
    if !kustomize_available("the_action_checks_units_by_default") {
        return;
    }
    let repo = repository_with_a_status_in_prod();
    let sarif = repo.tmp().join("kvlint.sarif");
    let (annotations, _) = run_step(
        &repo,
        "Run kvlint check",
        &[
            ("KVLINT_PATHS", "."),
            ("KVLINT_ARGS", ""),
            ("KVLINT_FAIL_ON", "error"),
            ("KVLINT_SARIF_FILE", sarif.to_str().unwrap()),
            ("KVLINT_KUBEVIRT_VERSION", ""),
            ("KVLINT_UPLOAD_SARIF", "false"),
            ("KVLINT_EVENT_NAME", "push"),
            ("KVLINT_HEAD_REPOSITORY", ""),
            ("KVLINT_REPOSITORY", "o/r"),
            ("KVLINT_ACTOR", "someone"),
        ],
    );
    // The status is annotated at the patch line, for the VM the overlay renders.
    let status: Vec<&str> = annotations
        .lines()
        .filter(|line| line.contains("KV4002"))
        .collect();
    assert_eq!(status.len(), 1, "{annotations}");
    assert!(
        status[0].contains("file=apps/web/overlays/prod/patch.yaml,line=11"),
        "{status:?}"
    );
    assert!(status[0].contains("prod-web"), "{status:?}");
}

#[test]
fn the_action_previews_a_change_to_a_base_on_every_overlay() {
    if !kustomize_available("the_action_previews_a_change_to_a_base_on_every_overlay") {
        return;
    }
    let repo = Repo::committed();
    let base = repo.git(&["rev-parse", "HEAD"]);
    repo.write(
        "apps/web/base/vm.yaml",
        &BASE_VM.replace("cores: 1", "cores: 2"),
    );
    repo.commit_all("more cores for every overlay");
    let (_, summary) = run_step(
        &repo,
        "Preview the rendered VMs",
        &[
            ("KVLINT_BASE", base.trim()),
            ("KVLINT_PULL_REQUEST", "7"),
            ("KVLINT_PATHS", ""),
            ("KVLINT_KUBEVIRT_VERSION", ""),
            ("KVLINT_COMMENT", "false"),
            ("KVLINT_READ_ONLY", "false"),
            ("KVLINT_TOKEN", ""),
        ],
    );
    assert!(summary.contains("web-dev/dev-web"), "{summary}");
    assert!(summary.contains("web-prod/prod-web"), "{summary}");
    assert!(!summary.contains("kvlint-revision-"), "{summary}");
}
