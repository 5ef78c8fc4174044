//! Flux Kustomizations whose path has no kustomization: kvlint builds the kustomization Flux
//! generates (every Kubernetes YAML file below the path, kustomization subdirectories as
//! directories, what `.sourceignore` and source-controller's defaults leave out absent), and a
//! variable whose value sits in a SOPS-encrypted Secret is named, not judged.

#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::kustomize_available;
use serde_json::Value;

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A VM whose instance type is `instancetype` (none of them exists: each VM is told apart by
/// its KV1006 finding).
fn vm(name: &str, instancetype: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {name}
spec:
  runStrategy: Always
  instancetype:
    name: {instancetype}
  template:
    spec:
      domain:
        devices: {{}}
"
    )
}

fn flux_kustomization(name: &str, path: &str, extra: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: {name}
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: {path}
  prune: true
{extra}"
    )
}

fn check(dir: &Path, extra: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["check", ".", "--format", "json", "--fail-on", "none"])
        .args(["--catalog", "none"])
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap();
    common::json_report(&output)
}

fn diagnostics(report: &Value) -> Vec<Value> {
    report["diagnostics"].as_array().unwrap().clone()
}

/// The KV1006 findings about instance type `name`.
fn unresolved(report: &Value, name: &str) -> Vec<Value> {
    diagnostics(report)
        .into_iter()
        .filter(|d| d["code"] == "KV1006" && d["message"].as_str().unwrap().contains(name))
        .collect()
}

#[test]
fn a_path_without_a_kustomization_is_built_as_flux_generates_it() {
    if !kustomize_available("a_path_without_a_kustomization_is_built_as_flux_generates_it") {
        return;
    }
    let web = flux_kustomization(
        "web",
        "./apps/web",
        "  targetNamespace: web\n  postBuild:\n    substitute:\n      SIZE: from-substitute\n",
    );
    let empty = flux_kustomization("empty", "./apps/empty", "");
    let repo = common::git_repository(&[
        ("clusters/prod/apps.yaml", &format!("{web}---\n{empty}")),
        ("apps/web/vm.yaml", &vm("top", "${SIZE}")),
        ("apps/web/sub/db.yml", &vm("db", "in-sub")),
        // A kustomization directory is listed as a directory: only what it lists is built.
        (
            "apps/web/nested/kustomization.yaml",
            "resources: [listed.yaml]\n",
        ),
        ("apps/web/nested/listed.yaml", &vm("listed", "from-nested")),
        (
            "apps/web/nested/deeper/unlisted.yaml",
            &vm("unlisted", "from-unlisted"),
        ),
        // Left out of the artifact: .sourceignore (below the path) and the defaults. Each one
        // would fail the generation if Flux read it (not Kubernetes objects).
        ("apps/web/.sourceignore", "drafts/\n"),
        ("apps/web/drafts/draft.yaml", &vm("draft", "from-draft")),
        ("apps/web/drafts/values.yaml", "replicas: 1\n"),
        ("apps/web/.sops.yaml", "creation_rules:\n  - age: age1xyz\n"),
        ("apps/web/cloudbuild.yaml", "steps: []\n"),
        ("apps/web/.github/workflows/ci.yaml", "on: push\n"),
        // Not YAML to Flux's scan.
        ("apps/web/extra.json", "{}\n"),
        ("apps/empty/README.md", "nothing here\n"),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let all = diagnostics(&report);
    for (instancetype, file, name) in [
        ("from-substitute", "apps/web/vm.yaml", "top"),
        ("in-sub", "apps/web/sub/db.yml", "db"),
        ("from-nested", "apps/web/nested/listed.yaml", "listed"),
    ] {
        let found = unresolved(&report, instancetype);
        assert_eq!(found.len(), 1, "{instancetype}: {report:#}");
        let finding = &found[0];
        assert_eq!(finding["file"], file);
        assert_eq!(finding["line"], 7, "at `instancetype:`");
        assert_eq!(finding["object"]["namespace"], "web", "targetNamespace");
        assert_eq!(finding["object"]["name"], name);
        assert_eq!(finding["unit"]["kind"], "flux");
        assert_eq!(finding["unit"]["path"], "apps/web");
        assert_eq!(finding["unit"]["via"]["name"], "web");
    }
    // What the generated kustomization does not list is checked as written, in no unit.
    for instancetype in ["from-unlisted", "from-draft"] {
        let found = unresolved(&report, instancetype);
        assert_eq!(found.len(), 1, "{instancetype}: {report:#}");
        assert_eq!(found[0]["unit"], Value::Null, "{instancetype}: {report:#}");
        assert_eq!(found[0]["object"]["namespace"], "default");
    }
    // Nothing is reported as not rendered or failed; the nested kustomization is built once,
    // inside the Flux unit, and the empty path is a unit with nothing in it.
    assert!(
        all.iter()
            .all(|d| d["code"] != "KV0022" && d["code"] != "KV0020"),
        "{report:#}"
    );
    assert!(
        all.iter().all(|d| d["unit"]["path"] != "apps/web/nested"),
        "{report:#}"
    );
    assert_eq!(report["summary"]["units"], 2, "{report:#}");
    // Nothing was written into the repository.
    assert!(!repo.path().join("apps/web/kustomization.yaml").exists());
    assert!(!repo.path().join("apps/empty/kustomization.yaml").exists());
}

#[test]
fn a_file_that_is_not_kubernetes_fails_the_flux_build() {
    if !kustomize_available("a_file_that_is_not_kubernetes_fails_the_flux_build") {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/apps.yaml",
            &flux_kustomization("apps", "./apps/chart", ""),
        ),
        ("apps/chart/vm.yaml", &vm("vm", "from-chart")),
        ("apps/chart/values.yaml", "replicas: 1\n"),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let failed: Vec<Value> = diagnostics(&report)
        .into_iter()
        .filter(|d| d["code"] == "KV0020")
        .collect();
    assert_eq!(failed.len(), 1, "{report:#}");
    assert_eq!(failed[0]["file"], "apps/chart/values.yaml");
    assert_eq!(failed[0]["line"], 1);
    let message = failed[0]["message"].as_str().unwrap();
    assert!(
        message
            .contains("failed to decode Kubernetes YAML from apps/chart/values.yaml: missing kind"),
        "{message}"
    );
    assert_eq!(failed[0]["related"][0]["file"], "clusters/prod/apps.yaml");
    // The unit's files are then checked as written.
    let vm = unresolved(&report, "from-chart");
    assert_eq!(vm.len(), 1, "{report:#}");
    assert_eq!(vm[0]["unit"], Value::Null);
}

const SEALED: &str = "apiVersion: v1
kind: Secret
metadata:
  name: cluster-secrets
  namespace: flux-system
type: Opaque
stringData:
  SIZE: ENC[AES256_GCM,data:c2VjcmV0,iv:aXY=,tag:dGFn,type:str]
sops:
  age:
    - recipient: age1xyz
  lastmodified: \"2026-01-01T00:00:00Z\"
  version: 3.9.0
";

#[test]
fn a_variable_from_an_encrypted_secret_is_named_and_its_fields_are_not_judged() {
    if !kustomize_available(
        "a_variable_from_an_encrypted_secret_is_named_and_its_fields_are_not_judged",
    ) {
        return;
    }
    let apps = flux_kustomization(
        "apps",
        "./apps/web",
        "  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n",
    );
    let web = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  instancetype:
    name: ${SIZE}
  preference:
    name: missing-preference
  template:
    spec:
      domain:
        devices: {}
";
    let repo = common::git_repository(&[
        ("clusters/prod/apps.yaml", &apps),
        ("clusters/prod/secrets.yaml", SEALED),
        ("apps/web/vm.yaml", web),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let all = diagnostics(&report);
    // `${SIZE}` is not judged: its value is unknown offline.
    assert!(all.iter().all(|d| d["code"] != "KV1006"), "{report:#}");
    assert!(all.iter().all(|d| d["code"] != "KV0020"), "{report:#}");
    // One info names the variable, at its use.
    let named: Vec<&Value> = all.iter().filter(|d| d["code"] == "KV0022").collect();
    assert_eq!(named.len(), 1, "{report:#}");
    assert_eq!(named[0]["severity"], "info");
    assert_eq!(named[0]["file"], "apps/web/vm.yaml");
    assert_eq!(
        (&named[0]["line"], &named[0]["column"]),
        (&8.into(), &11.into())
    );
    let message = named[0]["message"].as_str().unwrap();
    assert!(
        message.contains("variable SIZE") && message.contains("Secret flux-system/cluster-secrets"),
        "{message}"
    );
    assert_eq!(named[0]["related"][0]["file"], "clusters/prod/apps.yaml");
    // The VM is still checked, in its unit.
    let preference: Vec<&Value> = all.iter().filter(|d| d["code"] == "KV1007").collect();
    assert_eq!(preference.len(), 1, "{report:#}");
    assert_eq!(preference[0]["unit"]["kind"], "flux");
    assert_eq!(preference[0]["object"]["name"], "web");
}

/// A build command that counts its builds, then runs the real Kustomize.
fn counting_command(dir: &Path) -> (PathBuf, PathBuf) {
    let counter = dir.join("builds.txt");
    let command = dir.join("counting-kustomize");
    std::fs::write(
        &command,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\n\
             shift\n\
             echo build >> '{counter}'\n\
             if command -v kustomize > /dev/null; then exec kustomize build \"$@\"; fi\n\
             exec kubectl kustomize \"$@\"\n",
            counter = counter.display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&command).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&command, permissions).unwrap();
    (command, counter)
}

#[test]
fn the_cache_follows_the_files_of_a_generated_path_and_its_sourceignore() {
    if !kustomize_available("the_cache_follows_the_files_of_a_generated_path_and_its_sourceignore")
    {
        return;
    }
    let repo = common::git_repository(&[
        (
            "clusters/prod/apps.yaml",
            &flux_kustomization("apps", "./apps/web", ""),
        ),
        ("apps/web/vm.yaml", &vm("first", "from-first")),
    ]);
    let outside = tempfile::tempdir().unwrap();
    let (command, counter) = counting_command(outside.path());
    let temp = outside.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let cache = outside.path().join("cache");
    let run = || {
        let before = std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .lines()
            .count();
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args(["check", ".", "--format", "json", "--fail-on", "none"])
            .args(["--catalog", "none", "--kustomize-command"])
            .arg(&command)
            .arg("--cache-dir")
            .arg(&cache)
            .env("TMPDIR", &temp)
            .current_dir(repo.path())
            .output()
            .unwrap();
        let after = std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .lines()
            .count();
        (common::json_report(&output), after - before)
    };
    let in_unit = |report: &Value, instancetype: &str| {
        let found = unresolved(report, instancetype);
        assert_eq!(found.len(), 1, "{instancetype}: {report:#}");
        found[0]["unit"]["path"] == "apps/web"
    };
    let (report, builds) = run();
    assert_eq!(builds, 1);
    assert!(in_unit(&report, "from-first"));
    let (_, builds) = run();
    assert_eq!(builds, 0, "nothing changed: the stored build is used");
    // A file added to the path is in the next build.
    write(
        repo.path(),
        &[("apps/web/second.yaml", &vm("second", "from-second"))],
    );
    let (report, builds) = run();
    assert_eq!(builds, 1, "{report:#}");
    assert!(in_unit(&report, "from-second"), "{report:#}");
    // A .sourceignore that leaves it out takes it out of the next build.
    write(repo.path(), &[(".sourceignore", "apps/web/second.yaml\n")]);
    let (report, builds) = run();
    assert_eq!(builds, 1, "{report:#}");
    assert!(!in_unit(&report, "from-second"), "{report:#}");
    assert!(in_unit(&report, "from-first"));
    // Any change to a .sourceignore the path depends on is a new key.
    write(
        repo.path(),
        &[(".sourceignore", "# comment\napps/web/second.yaml\n")],
    );
    let (_, builds) = run();
    assert_eq!(builds, 1);
}

#[test]
fn a_substituted_value_names_where_its_variable_is_defined() {
    if !kustomize_available("a_substituted_value_names_where_its_variable_is_defined") {
        return;
    }
    let apps = flux_kustomization(
        "apps",
        "./apps/web",
        "  postBuild:\n    substitute:\n      SIZE: missing-size\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-vars\n",
    );
    let vars = "apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-vars
  namespace: flux-system
data:
  OTHER: x
  PREFERENCE: missing-preference
";
    let web = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  instancetype:
    name: ${SIZE}
  preference:
    name: ${PREFERENCE}
  template:
    spec:
      domain:
        devices: {}
";
    let repo = common::git_repository(&[
        ("clusters/prod/apps.yaml", &apps),
        ("clusters/prod/vars.yaml", vars),
        ("apps/web/vm.yaml", web),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let all = diagnostics(&report);
    let one = |code: &str| -> Value {
        let found: Vec<&Value> = all.iter().filter(|d| d["code"] == code).collect();
        assert_eq!(found.len(), 1, "{code}: {report:#}");
        found[0].clone()
    };
    let size = one("KV1006");
    assert_eq!(
        (&size["file"], &size["line"]),
        (&"apps/web/vm.yaml".into(), &7.into())
    );
    let related = size["related"].as_array().unwrap();
    assert_eq!(related.len(), 1, "{size:#}");
    assert_eq!(related[0]["file"], "clusters/prod/apps.yaml");
    assert_eq!(
        (&related[0]["line"], &related[0]["column"]),
        (&15.into(), &7.into())
    );
    assert_eq!(
        related[0]["message"],
        "variable SIZE = `missing-size`, substituted by Flux"
    );
    let preference = one("KV1007");
    assert_eq!(preference["line"], 9);
    let related = preference["related"].as_array().unwrap();
    assert_eq!(related.len(), 1, "{preference:#}");
    assert_eq!(related[0]["file"], "clusters/prod/vars.yaml");
    assert_eq!(
        (&related[0]["line"], &related[0]["column"]),
        (&8.into(), &3.into())
    );
}

#[test]
fn the_repository_root_as_path_is_generated_too() {
    if !kustomize_available("the_repository_root_as_path_is_generated_too") {
        return;
    }
    let repo = common::git_repository(&[
        ("flux.yaml", &flux_kustomization("root", "./", "")),
        ("apps/vm.yaml", &vm("vm", "from-root")),
        (".gitlab-ci.yml", "stages: [lint]\n"),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let found = unresolved(&report, "from-root");
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(found[0]["unit"]["path"], ".", "{report:#}");
    assert!(
        diagnostics(&report)
            .iter()
            .all(|d| d["code"] != "KV0022" && d["code"] != "KV0020"),
        "{report:#}"
    );
}

/// A GitRepository whose `spec.ignore` keeps only `clusters/` and `apps/` (Flux's documented
/// pattern for a monorepo) and leaves out `apps/web/drafts/` and one generated file: a Kustomization whose path is
/// left out, and one whose kustomization lists a left-out file, fail to build in Flux (KV0020,
/// with the pattern as related location), and their VMs are checked as written. A generated
/// path lists only what both `spec.ignore` and `.sourceignore` keep.
#[test]
fn what_the_git_repository_leaves_out_of_the_artifact_fails_the_flux_build() {
    if !kustomize_available(
        "what_the_git_repository_leaves_out_of_the_artifact_fails_the_flux_build",
    ) {
        return;
    }
    let source = "apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: https://example.com/fleet.git
  ignore: |
    /*
    !/clusters
    !/apps
    apps/web/drafts/
    apps/generated/draft.yaml
---
";
    let sync = format!(
        "{source}{}---\n{}---\n{}",
        flux_kustomization("web", "./apps/web", ""),
        flux_kustomization("infra", "./infrastructure", ""),
        flux_kustomization("generated", "./apps/generated", ""),
    );
    let repo = common::git_repository(&[
        ("clusters/prod/flux-system/gotk-sync.yaml", &sync),
        (
            "apps/web/kustomization.yaml",
            "resources:\n  - vm.yaml\n  - drafts/next.yaml\n",
        ),
        ("apps/web/vm.yaml", &vm("web", "from-web")),
        ("apps/web/drafts/next.yaml", &vm("next", "from-draft")),
        (
            "infrastructure/kustomization.yaml",
            "resources:\n  - vm.yaml\n",
        ),
        ("infrastructure/vm.yaml", &vm("infra", "from-infra")),
        ("apps/generated/kept.yaml", &vm("kept", "from-kept")),
        ("apps/generated/old.yaml", &vm("old", "from-old")),
        (
            "apps/generated/draft.yaml",
            &vm("draft", "from-generated-draft"),
        ),
        ("apps/.sourceignore", "generated/old.yaml\n"),
    ]);
    let report = check(repo.path(), &["--no-cache"]);
    let failed: Vec<String> = diagnostics(&report)
        .iter()
        .filter(|d| d["code"] == "KV0020")
        .map(|d| {
            format!(
                "{}:{}:{} {} | {}:{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap(),
                d["related"][0]["file"].as_str().unwrap(),
                d["related"][0]["line"],
                d["related"][0]["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            "apps/web/kustomization.yaml:3:5 Flux cannot build apps/web: `drafts/next.yaml` is left out of the source artifact by `apps/web/drafts/`, so kustomize-controller does not find it | clusters/prod/flux-system/gotk-sync.yaml:13 `apps/web/drafts/` excludes it",
            "clusters/prod/flux-system/gotk-sync.yaml:39:9 Flux cannot build infrastructure: `./infrastructure` is left out of the source artifact by `/*`, so kustomize-controller does not find it | clusters/prod/flux-system/gotk-sync.yaml:10 `/*` excludes it",
        ],
        "{report:#}"
    );
    // The units that fail are checked as written. The generated path leaves out what
    // `spec.ignore` excludes; `old.yaml` is listed: `spec.ignore` is read after the
    // `.sourceignore` files, and its `!/apps` re-includes everything below `apps/`.
    for (instancetype, unit) in [
        ("from-web", Value::Null),
        ("from-draft", Value::Null),
        ("from-infra", Value::Null),
        ("from-generated-draft", Value::Null),
        ("from-old", Value::from("apps/generated")),
        ("from-kept", Value::from("apps/generated")),
    ] {
        let found = unresolved(&report, instancetype);
        assert_eq!(found.len(), 1, "{instancetype}: {report:#}");
        assert_eq!(found[0]["unit"]["path"], unit, "{instancetype}: {report:#}");
    }
}
