//! Argo CD Applications and ApplicationSets as units (testdata/units/argocd, copied into a
//! git repository of its own so that paths are repository-relative): each source rendered as
//! the repo server renders it, objects in the Application's destination namespace, findings
//! at the lines that wrote the values, with the unit and the Application or ApplicationSet
//! that names it.
//!
//! Without kustomize or kubectl these tests say so and pass, unless
//! `KVLINT_REQUIRE_KUSTOMIZE=1` (set by .ci/run) makes the tool's absence a failure.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use common::{kustomize_available, without_kustomize_version};
use serde_json::Value;

const FIXTURE: &str = "testdata/units/argocd";

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A git repository holding `files`.
fn fixture() -> tempfile::TempDir {
    let dir = common::git_repository(&[]);
    copy_tree(Path::new(FIXTURE), dir.path());
    dir
}

fn kvlint(dir: &Path, format: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            ".",
            "--format",
            format,
            "--fail-on",
            "none",
            "--catalog",
            "none",
            "--no-cache",
        ])
        .current_dir(dir)
        .output()
        .expect("kvlint runs")
}

fn report(dir: &Path) -> Value {
    common::json_report(&kvlint(dir, "json"))
}

/// One line per finding: code, position, rendered identity, unit and what names it.
fn summary(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let object = |o: &Value| {
                if o.is_null() {
                    "-".to_owned()
                } else {
                    format!(
                        "{}/{}",
                        o["namespace"].as_str().unwrap_or(""),
                        o["name"].as_str().unwrap_or("")
                    )
                }
            };
            let unit = |u: &Value| {
                if u.is_null() {
                    "-".to_owned()
                } else {
                    format!(
                        "{}:{} via {} {}",
                        u["kind"].as_str().unwrap(),
                        u["path"].as_str().unwrap(),
                        u["via"]["kind"].as_str().unwrap_or("-"),
                        u["via"]["name"].as_str().unwrap_or("-"),
                    )
                }
            };
            let instances: Vec<String> = d["instances"]
                .as_array()
                .map(|list| list.iter().map(|i| object(&i["object"])).collect())
                .unwrap_or_default();
            format!(
                "{} {}:{}:{} {} [{}] {}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                object(&d["object"]),
                unit(&d["unit"]),
                instances.join(" "),
            )
            .trim_end()
            .to_owned()
        })
        .collect()
}

#[test]
fn applications_and_application_sets_are_rendered_as_argo_cd_renders_them() {
    if !kustomize_available(
        "applications_and_application_sets_are_rendered_as_argo_cd_renders_them",
    ) {
        return;
    }
    let repo = fixture();
    let report = report(repo.path());
    let lines = summary(&report);
    let expected = [
        // The ApplicationSet's git generator over apps/*/overlays/*: db-prod in the
        // namespace its template names.
        "KV1006 apps/db/overlays/prod/vm.yaml:7:3 db-prod/db [argocd:apps/db/overlays/prod via ApplicationSet overlays]",
        "KV3007 apps/db/overlays/prod/vm.yaml:9:3 db-prod/db [argocd:apps/db/overlays/prod via ApplicationSet overlays]",
        // Not included by the Directory source (`include: '{*.yaml,*.jsonnet}'`): a plain file.
        "KV1006 apps/tools/excluded.yml:7:3 default/tools-excluded [-]",
        "KV3007 apps/tools/excluded.yml:9:3 default/tools-excluded [-]",
        // `recurse: true`, rendered by the Application and by the list ApplicationSet.
        "KV3007 apps/tools/nested/vm.yaml:9:3 tools/tools-nested [argocd:apps/tools via Application tools] tools/tools-nested tools-staging/tools-nested",
        // `+argocd:skip-file-rendering`: a plain file.
        "KV1006 apps/tools/skipped.yaml:8:3 default/tools-skipped [-]",
        "KV3007 apps/tools/skipped.yaml:10:3 default/tools-skipped [-]",
        "KV1006 apps/tools/vm.yaml:7:3 tools/tools [argocd:apps/tools via Application tools] tools/tools tools-staging/tools",
        "KV3007 apps/tools/vm.yaml:9:3 tools/tools [argocd:apps/tools via Application tools] tools/tools tools-staging/tools",
        // The base VM as the Application (prefix argo-, the overlay's dev- replaced) and the
        // ApplicationSet's prod overlay render it.
        "KV3007 apps/web/base/vm.yaml:9:3 web-dev/argo-web [argocd:apps/web/overlays/dev via Application web-dev] web-dev/argo-web web-prod/web",
        "KV1006 apps/web/overlays/prod/size.yaml:6:3 web-prod/web [argocd:apps/web/overlays/prod via ApplicationSet overlays]",
        "KV0022 clusters/prod/apps/sets.yaml:15:7 - [-]",
        "KV0022 clusters/prod/apps/tools.yaml:11:11 - [-]",
        // The Application's own patch (targeting the pre-prefix name `web`) wrote the value.
        "KV1006 clusters/prod/apps/web-dev.yaml:23:15 web-dev/argo-web [argocd:apps/web/overlays/dev via Application web-dev]",
    ];
    assert_eq!(lines, expected, "{report:#}");
    let message = |file: &str| {
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["file"] == file)
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert!(message("clusters/prod/apps/sets.yaml").contains("`matrix` generator"));
    assert!(message("clusters/prod/apps/tools.yaml").contains("apps/tools/generated.jsonnet"));
    assert!(message("clusters/prod/apps/web-dev.yaml").contains("standard.lage"));
    let web = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == "clusters/prod/apps/web-dev.yaml")
        .unwrap();
    assert_eq!(
        web["unit"],
        serde_json::json!({
            "kind": "argocd",
            "path": "apps/web/overlays/dev",
            "via": {"kind": "Application", "namespace": "argocd", "name": "web-dev",
                    "file": "clusters/prod/apps/web-dev.yaml", "line": 2}
        })
    );
    // Units: the root Application's directory, tools twice, web-dev, and the set's two
    // overlays; none of the Kustomize directories again as a bare root.
    assert_eq!(report["summary"]["units"], 6, "{report:#}");
}

#[test]
fn snapshots() {
    if !kustomize_available("snapshots") {
        return;
    }
    let repo = fixture();
    let text = |format: &str| {
        let output = kvlint(repo.path(), format);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        without_kustomize_version(&String::from_utf8_lossy(&output.stdout))
    };
    insta::assert_snapshot!("argocd-json", text("json"));
    insta::assert_snapshot!("argocd-human", text("human"));
}

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
spec:
  runStrategy: Halted
  instancetype:
    name: missing.type
  template:
    spec:
      domain:
        devices: {}
";

fn application(name: &str, path: &str, extra: &str) -> String {
    format!(
        "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  source:
    repoURL: https://git.example.com/repo.git
    path: {path}
{extra}  destination:
    namespace: {name}
"
    )
}

fn findings<'a>(report: &'a Value, code: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

#[test]
fn what_argo_cd_refuses_is_reported_where_it_is_written() {
    if !kustomize_available("what_argo_cd_refuses_is_reported_where_it_is_written") {
        return;
    }
    let labels = application(
        "labels",
        "apps/labels",
        "    kustomize:\n      commonLabels:\n        team: b\n",
    );
    let component = application(
        "component",
        "apps/labels",
        "    kustomize:\n      components: [../missing]\n",
    );
    let outside = application("outside", "../elsewhere", "");
    let absolute = application("absolute", "/etc", "");
    let restricted = application("restricted", "apps/restricted", "");
    let broken = application("broken", "apps/broken", "");
    let repo = common::git_repository(&[
        (
            "apps.yaml",
            &[labels, component, outside, absolute, restricted, broken].join("---\n"),
        ),
        (
            "apps/labels/kustomization.yaml",
            "commonLabels:\n  team: a\nresources: [vm.yaml]\n",
        ),
        ("apps/labels/vm.yaml", VM),
        (
            "apps/restricted/kustomization.yaml",
            "resources: [../shared/vm.yaml]\n",
        ),
        ("apps/shared/vm.yaml", VM),
        ("apps/broken/vm.yaml", VM),
        ("apps/broken/bad.yaml", "kind: [\n"),
    ]);
    let report = report(repo.path());
    let failed = findings(&report, "KV0020");
    let at = |d: &Value| {
        format!(
            "{}:{}:{}",
            d["file"].as_str().unwrap(),
            d["line"],
            d["column"]
        )
    };
    let described: Vec<(String, String)> = failed
        .iter()
        .map(|d| (at(d), d["message"].as_str().unwrap().to_owned()))
        .collect();
    let has = |place: &str, text: &str| {
        described
            .iter()
            .any(|(at, message)| at == place && message.contains(text))
    };
    // `kustomize edit add label` refuses a label the kustomization already sets.
    assert!(
        has("apps.yaml:11:7", "label team already in kustomization file"),
        "{described:#?}"
    );
    assert!(
        has("apps.yaml:26:7", "../missing has no match"),
        "{described:#?}"
    );
    assert!(
        has("apps.yaml:38:11", "app path outside root"),
        "{described:#?}"
    );
    assert!(
        has("apps.yaml:50:11", "app path is absolute"),
        "{described:#?}"
    );
    // Argo CD builds with LoadRestrictionsRootOnly: a file from another directory fails.
    assert!(
        described
            .iter()
            .any(|(_, message)| message.contains("apps/restricted")
                && message.contains("is not in or below")),
        "{described:#?}"
    );
    // An unparsable file in a Directory source fails the Application: its files are checked
    // as written (in the default namespace, with no unit).
    assert!(
        has("apps.yaml:74:11", "Failed to unmarshal"),
        "{described:#?}"
    );
    let broken_vm: Vec<_> = findings(&report, "KV1006")
        .into_iter()
        .filter(|d| d["file"] == "apps/broken/vm.yaml")
        .collect();
    assert_eq!(broken_vm.len(), 1, "{report:#}");
    assert!(broken_vm[0]["unit"].is_null());
    assert_eq!(broken_vm[0]["object"]["namespace"], "default");
    // The refused units' VMs are checked as written too: nothing is lost.
    let labels_vm: Vec<_> = findings(&report, "KV1006")
        .into_iter()
        .filter(|d| d["file"] == "apps/labels/vm.yaml")
        .collect();
    assert!(!labels_vm.is_empty(), "{report:#}");
}

#[test]
fn a_directory_source_does_not_follow_symlinks_out_of_the_repository() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.yaml"),
        VM.replace("missing.type", "outside-secret-marker"),
    )
    .unwrap();
    let repo = common::git_repository(&[
        (
            "apps.yaml",
            &application("linked", "apps/linked", "    directory: {}\n"),
        ),
        ("apps/linked/vm.yaml", VM),
    ]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.yaml"),
        repo.path().join("apps/linked/secret.yaml"),
    )
    .unwrap();
    let output = kvlint(repo.path(), "json");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("outside-secret-marker"), "{text}");
    let report = common::json_report(&output);
    let failed = findings(&report, "KV0020");
    assert_eq!(failed.len(), 1, "{report:#}");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("illegal filepath in symlink")
    );
}

#[test]
fn a_huge_application_set_is_bounded() {
    let mut elements = String::new();
    for n in 0..1_500 {
        writeln!(elements, "          - env: e{n}").unwrap();
    }
    let set = format!(
        "apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: many
spec:
  generators:
    - list:
        elements:
{elements}  template:
    metadata:
      name: 'vm-{{{{env}}}}'
    spec:
      source:
        path: apps/vm
        directory: {{}}
      destination:
        namespace: '{{{{env}}}}'
"
    );
    let repo = common::git_repository(&[("set.yaml", &set), ("apps/vm/vm.yaml", VM)]);
    let started = std::time::Instant::now();
    let report = report(repo.path());
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let capped = findings(&report, "KV0022");
    assert_eq!(capped.len(), 1, "{report:#}");
    assert!(
        capped[0]["message"]
            .as_str()
            .unwrap()
            .contains("more than 1000 Applications")
    );
    assert_eq!(report["summary"]["units"], 1000);
    let vm = findings(&report, "KV1006");
    assert_eq!(vm.len(), 1);
    assert_eq!(vm[0]["instances"].as_array().unwrap().len(), 1000);
}

/// The build command tests compare kvlint with: `kustomize build`, else `kubectl kustomize`.
fn kustomize_build(dir: &Path) -> String {
    let on_path = |tool: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file()))
    };
    let output = if on_path("kustomize") {
        Command::new("kustomize").arg("build").arg(dir).output()
    } else {
        Command::new("kubectl").arg("kustomize").arg(dir).output()
    }
    .expect("kustomize runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `text` with every line indented by `by` spaces.
fn indented(text: &str, by: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        writeln!(out, "{:by$}{line}", "").unwrap();
    }
    out
}

/// `name:` values of the build output's objects (top-level metadata only).
fn built_names(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix("  name: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn options_edit_the_kustomization_as_argo_cd_does_not_wrap_it() {
    if !kustomize_available("options_edit_the_kustomization_as_argo_cd_does_not_wrap_it") {
        return;
    }
    let base = "resources: [vm.yaml]\n";
    let overlay = "namePrefix: dev-\nresources: [../../base]\n";
    let patch = "- op: replace\n  path: /spec/runStrategy\n  value: Always\n";
    let app = application(
        "web-dev",
        "apps/web/overlays/dev",
        &format!(
            "    kustomize:\n      namePrefix: argo-\n      patches:\n        - target: {{kind: VirtualMachine, name: vm}}\n          patch: |-\n{}",
            indented(patch, 12)
        ),
    );
    let repo = common::git_repository(&[
        ("apps.yaml", &app),
        ("apps/web/base/kustomization.yaml", base),
        ("apps/web/base/vm.yaml", VM),
        ("apps/web/overlays/dev/kustomization.yaml", overlay),
    ]);
    // Argo CD edits the overlay in its checkout: the patch sees `vm`, the prefix replaces.
    let in_place = common::git_repository(&[
        ("apps/web/base/kustomization.yaml", base),
        ("apps/web/base/vm.yaml", VM),
        (
            "apps/web/overlays/dev/kustomization.yaml",
            &format!(
                "namePrefix: argo-\nresources: [../../base]\npatches:\n  - target: {{kind: VirtualMachine, name: vm}}\n    patch: |-\n{}",
                indented(patch, 6)
            ),
        ),
        ("apps/web/overlays/original/kustomization.yaml", overlay),
        (
            "wrapper/kustomization.yaml",
            "namePrefix: argo-\nresources: [../apps/web/overlays/original]\n",
        ),
    ]);
    let argo = kustomize_build(&in_place.path().join("apps/web/overlays/dev"));
    assert_eq!(built_names(&argo), ["argo-vm"]);
    assert!(argo.contains("runStrategy: Always"), "{argo}");
    // A wrapper around the overlay with the same prefix would compound it.
    let wrapped = kustomize_build(&in_place.path().join("wrapper"));
    assert_eq!(built_names(&wrapped), ["argo-dev-vm"]);
    let report = report(repo.path());
    let vm: Vec<_> = findings(&report, "KV1006");
    assert_eq!(vm.len(), 1, "{report:#}");
    assert_eq!(vm[0]["object"]["name"], "argo-vm");
    assert_eq!(vm[0]["object"]["namespace"], "web-dev");
    assert_eq!(vm[0]["unit"]["kind"], "argocd");
    assert!(findings(&report, "KV0020").is_empty(), "{report:#}");
    assert!(
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["object"]["name"] != "argo-dev-vm"),
        "{report:#}"
    );
}

/// Argo CD reads a Directory source's files as Kubernetes does (YAML 1.1): an unquoted `no`
/// label stays a boolean the API server refuses. Kustomize writes it back quoted (`"no"`), so a
/// Kustomize source sends the string and nothing is reported.
#[test]
fn yaml_1_1_scalars_are_reported_in_directory_sources_and_not_after_kustomize() {
    if !kustomize_available(
        "yaml_1_1_scalars_are_reported_in_directory_sources_and_not_after_kustomize",
    ) {
        return;
    }
    let vm = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  labels:\n    backup: no\nspec:\n  runStrategy: Halted\n  template:\n    spec:\n      domain:\n        devices: {}\n        memory:\n          guest: 1Gi\n";
    let dir = common::git_repository(&[
        ("apps/plain/vm.yaml", vm),
        ("apps/kust/vm.yaml", vm),
        ("apps/kust/kustomization.yaml", "resources:\n- vm.yaml\n"),
        ("argocd/plain.yaml", &application("plain", "apps/plain", "")),
        ("argocd/kust.yaml", &application("kust", "apps/kust", "")),
    ]);
    let report = report(dir.path());
    let ambiguous: Vec<String> = findings(&report, "KV0015")
        .iter()
        .map(|d| format!("{}:{}", d["file"].as_str().unwrap(), d["line"]))
        .collect();
    assert_eq!(ambiguous, ["apps/plain/vm.yaml:6"], "{report:#}");
    // The refusal is the one finding of that value: no YAML 1.1 notice beside it.
    assert!(findings(&report, "KV0003").is_empty(), "{report:#}");
}

/// A repository checked through a symlink keeps the spelling the user gave in every file name,
/// also for the files an Application's Directory source reads.
#[cfg(unix)]
#[test]
fn a_repository_checked_through_a_symlink_keeps_its_spelling() {
    if !kustomize_available("a_repository_checked_through_a_symlink_keeps_its_spelling") {
        return;
    }
    let vm = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\nspec:\n  runStrategy: Halted\n  instancetype:\n    name: missing\n  template:\n    spec:\n      domain:\n        devices: {}\n";
    let repo = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("apps/plain/vm.yaml", vm),
        (
            "argocd/plain.yaml",
            application("plain", "apps/plain", "").as_str(),
        ),
    ] {
        let path = repo.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    common::git(repo.path(), &["init", "-q"]);
    // Checked from a sibling directory, through a symlink beside it (as `../shared` may be).
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(repo.path(), outside.path().join("link")).unwrap();
    std::fs::create_dir(outside.path().join("work")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            "../link",
            "--format",
            "json",
            "--fail-on",
            "none",
            "--catalog",
            "none",
            "--no-cache",
        ])
        .current_dir(outside.path().join("work"))
        .output()
        .expect("kvlint runs");
    let report = common::json_report(&output);
    let files: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV1006")
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["../link/apps/plain/vm.yaml"], "{report:#}");
}

/// Checked from a directory below the repository's root (`cd examples/demo && kvlint check .`),
/// an Application's path, written from the root, names a directory of the checked tree: it is
/// built once, as the Application builds it, and named as the working directory names it.
#[test]
fn an_application_checked_from_a_subdirectory_is_one_unit_named_from_there() {
    if !kustomize_available(
        "an_application_checked_from_a_subdirectory_is_one_unit_named_from_there",
    ) {
        return;
    }
    let vm = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\nspec:\n  runStrategy: Halted\n  instancetype:\n    name: missing\n  template:\n    spec:\n      domain:\n        devices: {}\n";
    let dir = common::git_repository(&[
        ("demo/apps/web/vm.yaml", vm),
        (
            "demo/apps/web/kustomization.yaml",
            "resources:\n- vm.yaml\n",
        ),
        (
            "demo/argocd/web.yaml",
            &application("web", "demo/apps/web", ""),
        ),
    ]);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            ".",
            "--format",
            "json",
            "--no-cache",
            "--fail-on",
            "none",
        ])
        .current_dir(dir.path().join("demo"))
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let report = common::json_report(&output);
    assert_eq!(report["summary"]["units"], 1, "{report:#}");
    let missing: Vec<String> = findings(&report, "KV1006")
        .iter()
        .map(|d| {
            format!(
                "{} {}/{} {}",
                d["file"].as_str().unwrap(),
                d["object"]["namespace"].as_str().unwrap(),
                d["object"]["name"].as_str().unwrap(),
                d["unit"]["path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(missing, ["apps/web/vm.yaml web/vm apps/web"], "{report:#}");
}

/// Parameter overrides committed beside sources, with the Applications that read them.
const OVERRIDES: &str = "testdata/units/argocd-sources";

#[test]
fn override_files_beside_a_kustomize_source_are_merged_as_argo_cd_merges_them() {
    if !kustomize_available(
        "override_files_beside_a_kustomize_source_are_merged_as_argo_cd_merges_them",
    ) {
        return;
    }
    let repo = common::git_repository(&[]);
    copy_tree(Path::new(OVERRIDES), repo.path());
    let report = report(repo.path());
    let lines: Vec<String> = summary(&report)
        .into_iter()
        .filter(|line| line.contains(" apps/web/"))
        .collect();
    let expected = [
        // The patch of the file named after the Application's namespace and name (an
        // Application outside Argo CD's namespace), reported at the line that writes the value.
        "KV1006 apps/web/.argocd-source-team-a_web-team.yaml:9:11 team-a/shared-web [argocd:apps/web via Application web-team]",
        "KV1006 apps/web/.argocd-source-web-prod.yaml:9:11 web-prod/shared-web [argocd:apps/web via Application web-prod]",
        // The repo server reads `.argocd-source-team-a_web-team.yaml` for web-team, never this
        // one: it stays a plain file (its `never-` prefix is nowhere).
        "KV0006 apps/web/.argocd-source-web-team.yaml:1:1 - [-]",
        "KV0021 apps/web/.argocd-source-web-team.yaml:1:1 - [-]",
        // `.argocd-source.yaml` sets the prefix of every Application of the directory, web-dev's
        // own `argo-` replaced.
        "KV3007 apps/web/vm.yaml:9:3 web-dev/shared-web [argocd:apps/web via Application web-dev] web-dev/shared-web web-prod/shared-web team-a/shared-web",
    ];
    assert_eq!(lines, expected, "{report:#}");
    // The files a unit reads include its override files: staging one re-checks the unit.
    let staged = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            "--index",
            ".",
            "apps/web/.argocd-source-web-prod.yaml",
        ])
        .args(["--format", "json", "--fail-on", "none", "--catalog", "none"])
        .arg("--no-cache")
        .current_dir(repo.path())
        .output()
        .unwrap();
    let staged = common::json_report(&staged);
    let lines = summary(&staged);
    assert_eq!(
        lines,
        [
            "KV1006 apps/web/.argocd-source-web-prod.yaml:9:11 web-prod/shared-web [argocd:apps/web via Application web-prod]"
        ],
        "{staged:#}"
    );
    // A suppression comment in the override file covers the finding reported there.
    let file = repo.path().join("apps/web/.argocd-source-web-prod.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace(
            "          value: standard.lage",
            "          # kvlint: ignore[KV1006] created by the platform team\n          value: standard.lage",
        ),
    )
    .unwrap();
    let suppressed = self::report(repo.path());
    let left: Vec<String> = summary(&suppressed)
        .into_iter()
        .filter(|line| line.starts_with("KV1006 apps/web/"))
        .collect();
    assert_eq!(
        left,
        [
            "KV1006 apps/web/.argocd-source-team-a_web-team.yaml:9:11 team-a/shared-web [argocd:apps/web via Application web-team]"
        ],
        "{suppressed:#}"
    );
}

#[test]
fn an_override_file_argo_cd_cannot_parse_fails_the_application() {
    if !kustomize_available("an_override_file_argo_cd_cannot_parse_fails_the_application") {
        return;
    }
    let repo = common::git_repository(&[
        ("apps.yaml", &application("web", "apps/web", "")),
        ("apps/web/kustomization.yaml", "resources: [vm.yaml]\n"),
        ("apps/web/vm.yaml", VM),
        (
            "apps/web/.argocd-source-web.yaml",
            "kustomize:\n  images: [\n",
        ),
        (
            "apps/tools/.argocd-source.yaml",
            "kustomize:\n  namePrefix: tools-\n",
        ),
        ("apps/tools/vm.yaml", VM),
        ("tools.yaml", &application("tools", "apps/tools", "")),
        (
            "apps/labels/kustomization.yaml",
            "commonLabels:\n  team: a\nresources: [vm.yaml]\n",
        ),
        ("apps/labels/vm.yaml", VM),
        (
            "apps/labels/.argocd-source.yaml",
            "kustomize:\n  commonLabels:\n    team: b\n",
        ),
        ("labels.yaml", &application("labels", "apps/labels", "")),
    ]);
    let report = report(repo.path());
    let failed: Vec<String> = findings(&report, "KV0020")
        .iter()
        .map(|d| {
            format!(
                "{}:{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            "apps.yaml:9 Argo CD cannot render Application web: error while parsing source parameters: apps/web/.argocd-source-web.yaml: error converting YAML to JSON: while parsing a node, did not find expected node content (line 2)",
            // The edit an override file asks for is refused at its line.
            "apps/labels/.argocd-source.yaml:2 Argo CD cannot render Application labels: kustomize edit add label: label team already in kustomization file. Use --force to override.",
            // An override file that sets `kustomize` options makes a Directory source
            // Kustomize, which fails without a kustomization.
            "tools.yaml:9 Argo CD cannot render Application tools: unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory 'apps/tools'",
        ]
    );
}
