//! Chart directories of the repository rendered with the real Helm (testdata/units/helm-charts,
//! copied into a git repository of its own so that chart paths are repository-relative): a
//! Flux HelmRelease with values from ConfigMaps, an Argo CD Application with value files,
//! parameters and `valuesObject`, a chart whose dependency is not vendored. In
//! testdata/units/helm-deps, a chart with a local `file://` dependency and a HelmRelease whose
//! `chartRef` names a HelmChart. Findings point at the template lines that write the fields,
//! with the rendered identity and a `helm` unit.
//!
//! Without helm on PATH these tests say so and pass, unless `KVLINT_REQUIRE_HELM=1` (set by
//! .ci/run) makes its absence a failure.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const FIXTURE: &str = "testdata/units/helm-charts";

fn helm_available(test: &str) -> bool {
    common::helm_dir(test).is_some()
}

fn fixture() -> tempfile::TempDir {
    copy_of(FIXTURE)
}

fn copy_of(fixture: &str) -> tempfile::TempDir {
    let dir = common::git_repository(&[]);
    common::copy_dir(Path::new(fixture), dir.path());
    dir
}

fn kvlint(dir: &Path, format: &str, extra: &[&str], path: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
    command
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
        .args(extra)
        .current_dir(dir);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let output = command.output().expect("kvlint runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// One line per finding: code, position to its end, rendered identity, unit and what names it.
fn summary(report: &Value) -> String {
    let mut out = String::new();
    for d in report["diagnostics"].as_array().unwrap() {
        let object = match &d["object"] {
            Value::Null => "-".to_owned(),
            o => format!(
                "{}/{}",
                o["namespace"].as_str().unwrap_or(""),
                o["name"].as_str().unwrap_or("")
            ),
        };
        let unit = match &d["unit"] {
            Value::Null => "-".to_owned(),
            u => format!(
                "{}:{} via {} {} ({}:{})",
                u["kind"].as_str().unwrap(),
                u["path"].as_str().unwrap(),
                u["via"]["kind"].as_str().unwrap_or("-"),
                u["via"]["name"].as_str().unwrap_or("-"),
                u["via"]["file"].as_str().unwrap_or("-"),
                u["via"]["line"],
            ),
        };
        let _ = writeln!(
            out,
            "{} {}:{}:{}-{}:{} {} [{}] {}",
            d["code"].as_str().unwrap(),
            d["file"].as_str().unwrap(),
            d["line"],
            d["column"],
            d["end_line"],
            d["end_column"],
            object,
            unit,
            d["path"].as_str().unwrap_or("-"),
        );
    }
    out
}

#[test]
fn charts_are_rendered_with_helm_and_findings_point_at_template_lines() {
    if !helm_available("charts_are_rendered_with_helm_and_findings_point_at_template_lines") {
        return;
    }
    let dir = fixture();
    let json = kvlint(dir.path(), "json", &[], None);
    let report = common::json_report(&json);
    insta::assert_snapshot!("helm-charts-findings", summary(&report));
    let helm = &report["summary"]["helm"];
    assert_eq!(helm["command"], "helm template");
    assert!(
        helm["version"].as_str().unwrap().starts_with("v3."),
        "{helm}"
    );
    assert_eq!(report["summary"]["units"], 2);
    let human = kvlint(dir.path(), "human", &[], None);
    let text = String::from_utf8(human.stdout).unwrap();
    insta::assert_snapshot!(
        "helm-charts-human",
        common::without_kustomize_version(&text)
            .replace(helm["version"].as_str().unwrap(), "HELM_VERSION")
    );
}

#[test]
fn the_misspelled_instance_type_of_a_template_is_reported_at_its_line() {
    if !helm_available("the_misspelled_instance_type_of_a_template_is_reported_at_its_line") {
        return;
    }
    let dir = fixture();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let found: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV1006")
        .collect();
    let at: Vec<(String, u64, u64, String)> = found
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["object"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        at,
        [
            (
                "charts/legacy/templates/vm.yaml".to_owned(),
                9,
                3,
                "legacy-db".to_owned()
            ),
            (
                "charts/vm/templates/vms.yaml".to_owned(),
                11,
                3,
                "db".to_owned()
            ),
        ]
    );
    // The Argo CD release: its namespace, its unit and the Application that names it.
    let legacy = found[0];
    assert_eq!(legacy["object"]["namespace"], "legacy");
    assert_eq!(legacy["unit"]["kind"], "helm");
    assert_eq!(legacy["unit"]["path"], "charts/legacy");
    assert_eq!(legacy["unit"]["via"]["kind"], "Application");
    assert_eq!(legacy["unit"]["via"]["file"], "argocd/legacy.yaml");
}

#[test]
fn without_helm_each_chart_that_renders_vms_is_named() {
    let dir = fixture();
    let empty = tempfile::tempdir().unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], Some(empty.path())));
    let named: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0022")
        .map(|d| {
            format!(
                "{}:{}:{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            "argocd/legacy.yaml:14:11 not rendered: helm is not on PATH; Application legacy installs the chart directory `charts/legacy`, whose VirtualMachines are not checked as rendered",
            "argocd/remote.yaml:14:11 not rendered: helm is not on PATH; Application remote installs the chart directory `charts/remote`, whose VirtualMachines are not checked as rendered",
            "clusters/prod/vms.yaml:11:14 not rendered: helm is not on PATH; HelmRelease flux-system/vms installs the chart directory `charts/vm`, whose VirtualMachines are not checked as rendered",
        ]
    );
    assert!(report["summary"]["helm"].is_null());
    assert!(report["summary"].get("units").is_none());
}

#[test]
fn a_helm_command_that_is_not_found_is_named_in_the_finding() {
    let dir = fixture();
    let report = common::json_report(&kvlint(
        dir.path(),
        "json",
        &["--helm-command", "no-such-helm"],
        None,
    ));
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0022" && d["file"] == "clusters/prod/vms.yaml")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "not rendered: --helm-command: `no-such-helm` is not found; HelmRelease flux-system/vms installs the chart directory `charts/vm`, whose VirtualMachines are not checked as rendered"
        ]
    );
}

#[test]
fn a_template_error_is_an_error_at_the_entry_point_and_the_chart_stays_written() {
    if !helm_available(
        "a_template_error_is_an_error_at_the_entry_point_and_the_chart_stays_written",
    ) {
        return;
    }
    let dir = fixture();
    std::fs::write(
        dir.path().join("charts/legacy/templates/broken.yaml"),
        "kind: ConfigMap\nname: {{ .Values.missing.key }}\n",
    )
    .unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let failed: Vec<String> = diagnostics
        .iter()
        .filter(|d| d["code"] == "KV0020")
        .map(|d| {
            format!(
                "{}:{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(failed.len(), 1, "{failed:#?}");
    assert!(
        failed[0].starts_with("argocd/legacy.yaml:14 helm template cannot render the chart `charts/legacy` of Application legacy: template: legacy/templates/broken.yaml:2:"),
        "{failed:#?}"
    );
    // Its files are checked as written again: the templates are skipped, not rendered.
    assert!(
        diagnostics
            .iter()
            .any(|d| d["code"] == "KV0006" && d["file"] == "charts/legacy/templates/vm.yaml")
    );
    assert!(
        !diagnostics
            .iter()
            .any(|d| d["code"] == "KV1006" && d["file"] == "charts/legacy/templates/vm.yaml")
    );
}

#[test]
fn a_cached_rendering_follows_the_chart_files() {
    if !helm_available("a_cached_rendering_follows_the_chart_files") {
        return;
    }
    let dir = fixture();
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_owned();
    let names = |report: &Value| -> Vec<String> {
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "KV1006")
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .collect()
    };
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args([
                "check",
                ".",
                "--format",
                "json",
                "--fail-on",
                "none",
                "--catalog",
                "none",
                "--cache-dir",
                &cache_dir,
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        common::json_report(&output)
    };
    let first = names(&run());
    assert_eq!(first, names(&run()));
    let template = dir.path().join("charts/legacy/templates/vm.yaml");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(&template, text.replace("standrd.small", "standard.tiny")).unwrap();
    let after = names(&run());
    assert_ne!(first, after);
    assert!(
        after.iter().any(|m| m.contains("\"standard.tiny\"")),
        "{after:#?}"
    );
}

#[test]
fn fixes_never_edit_a_chart_template() {
    if !helm_available("fixes_never_edit_a_chart_template") {
        return;
    }
    let dir = fixture();
    let template = dir.path().join("charts/legacy/templates/vm.yaml");
    let before = std::fs::read_to_string(&template).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "fix",
            ".",
            "--unsafe-fixes",
            "--catalog",
            "none",
            "--no-cache",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.contains("charts/legacy/templates/vm.yaml:12: KV3007 not fixed: charts/legacy/templates/vm.yaml is a Helm template; change the chart or the values its release gives it"),
        "{printed}"
    );
    assert_eq!(std::fs::read_to_string(&template).unwrap(), before);
}

#[test]
fn flux_values_files_replace_the_chart_values() {
    if !helm_available("flux_values_files_replace_the_chart_values") {
        return;
    }
    let dir = common::git_repository(&[
        (
            "clusters/lab.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: lab
  namespace: lab
spec:
  chart:
    spec:
      chart: ./charts/lab
      valuesFiles:
        - charts/lab/values-lab.yaml
      sourceRef:
        kind: GitRepository
        name: flux-system
",
        ),
        (
            "charts/lab/Chart.yaml",
            "apiVersion: v2\nname: lab\nversion: 0.1.0\n",
        ),
        (
            "charts/lab/values.yaml",
            "name: from-the-chart\nsize: standard.small\n",
        ),
        ("charts/lab/values-lab.yaml", "size: standard.smol\n"),
        (
            "charts/lab/templates/vm.yaml",
            "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {{ .Values.name | default \"without-chart-values\" }}-{{ .Release.Name }}
spec:
  runStrategy: Always
  instancetype:
    name: {{ .Values.size }}
  template:
    spec:
      domain:
        devices: {}
",
        ),
    ]);
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let found: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV1006")
        .map(|d| {
            format!(
                "{}:{}:{} {}/{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["object"]["namespace"].as_str().unwrap(),
                d["object"]["name"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            "charts/lab/templates/vm.yaml:7:3 lab/without-chart-values-lab virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"standard.smol\" not found"
        ]
    );
    // The chart in the repository is left as it is.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("charts/lab/values.yaml")).unwrap(),
        "name: from-the-chart\nsize: standard.small\n"
    );
}

/// The VM template of `charts/lab`: named after `.Values.name` (else `default_name`) and
/// the release, its instance type `.Values.size` (else `no-size`).
fn lab_template(default_name: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {{{{ .Values.name | default \"{default_name}\" }}}}-{{{{ .Release.Name }}}}
spec:
  runStrategy: Always
  instancetype:
    name: {{{{ .Values.size | default \"no-size\" }}}}
  template:
    spec:
      domain:
        devices: {{}}
"
    )
}

/// The unknown instance types (KV1006) and failed builds (KV0020) of a report: code,
/// position, VM and message.
fn unknown_sizes_and_failed_builds(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV1006" || d["code"] == "KV0020")
        .map(|d| {
            format!(
                "{} {}:{}:{} {} {}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["object"]["name"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// The sorted unknown instance types and failed builds of a repository holding
/// `entry_points`, the chart `charts/lab` with the VM `template`, and the `values` files.
fn lab_chart_findings(
    entry_points: &[(String, String)],
    template: &str,
    values: &[(&str, &str)],
) -> Vec<String> {
    let mut files: Vec<(&str, &str)> = entry_points
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    files.extend(values);
    files.extend([
        (
            "charts/lab/Chart.yaml",
            "apiVersion: v2\nname: lab\nversion: 0.1.0\n",
        ),
        ("charts/lab/templates/vm.yaml", template),
    ]);
    let dir = common::git_repository(&files);
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let mut found = unknown_sizes_and_failed_builds(&report);
    found.sort();
    found
}

/// The finding about the VM `vm` of `charts/lab` whose instance type `size` is unknown.
fn lab_not_found(vm: &str, size: &str) -> String {
    format!(
        "KV1006 charts/lab/templates/vm.yaml:7:3 {vm} virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"{size}\" not found"
    )
}

/// A HelmRelease of `charts/lab` in `clusters/NAME.yaml` with the given chart spec lines.
fn lab_release(name: &str, chart_spec: &str) -> (String, String) {
    (
        format!("clusters/{name}.yaml"),
        format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: {name}
  namespace: lab
spec:
  chart:
    spec:
      chart: ./charts/lab
      sourceRef:
        kind: GitRepository
        name: flux-system
{chart_spec}"
        ),
    )
}

#[test]
fn flux_values_files_that_are_missing_fail_the_chart_unless_ignored() {
    if !helm_available("flux_values_files_that_are_missing_fail_the_chart_unless_ignored") {
        return;
    }
    let releases = [
        lab_release(
            "ignored",
            "      ignoreMissingValuesFiles: true
      valuesFiles:
        - charts/lab/values-lab.yaml
        - charts/lab/values-missing.yaml
",
        ),
        lab_release(
            "missing",
            "      valuesFiles:
        - charts/lab/values-lab.yaml
        - charts/lab/values-missing.yaml
",
        ),
        // Every file left out: the chart's values are still replaced, by nothing.
        lab_release(
            "none",
            "      ignoreMissingValuesFiles: true
      valuesFiles: [charts/lab/values-missing.yaml]
",
        ),
        // A directory is no values file, ignored or not.
        lab_release(
            "directory",
            "      ignoreMissingValuesFiles: true
      valuesFiles: [charts/lab/templates]
",
        ),
        // `values.yaml` alone is the chart's own values: nothing is read from the root.
        lab_release("own", "      valuesFiles: [./values.yaml]\n"),
        // `..` stops at the repository root (`SecureJoin`).
        lab_release(
            "confined",
            "      valuesFiles: [../../charts/lab/values-confined.yaml]\n",
        ),
    ];
    let found = lab_chart_findings(
        &releases,
        &lab_template("without-chart-values"),
        &[
            (
                "charts/lab/values.yaml",
                "name: from-the-chart\nsize: standard.small\n",
            ),
            ("charts/lab/values-lab.yaml", "size: standard.smol\n"),
            (
                "charts/lab/values-confined.yaml",
                "size: standard.confined\n",
            ),
        ],
    );
    let mut expected = vec![
        "KV0020 clusters/directory.yaml:14:21 - Flux cannot build the chart of HelmRelease lab/directory: no values file found at path 'charts/lab/templates'".to_owned(),
        "KV0020 clusters/missing.yaml:15:11 - Flux cannot build the chart of HelmRelease lab/missing: no values file found at path 'charts/lab/values-missing.yaml'".to_owned(),
        lab_not_found("without-chart-values-ignored", "standard.smol"),
        lab_not_found("without-chart-values-none", "no-size"),
        lab_not_found("from-the-chart-own", "standard.small"),
        lab_not_found("without-chart-values-confined", "standard.confined"),
    ];
    expected.sort();
    assert_eq!(found, expected);
}

/// An Argo CD Application `name` rendering `charts/lab` with the given `helm:` lines.
fn lab_application(name: &str, helm: &str) -> (String, String) {
    (
        format!("argocd/{name}.yaml"),
        format!(
            "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  project: default
  destination:
    server: https://kubernetes.default.svc
    namespace: lab
  source:
    repoURL: https://example.com/gitops.git
    path: charts/lab
    helm:
{helm}"
        ),
    )
}

#[test]
fn argo_cd_value_files_are_expanded_substituted_and_kept_in_the_repository() {
    if !helm_available("argo_cd_value_files_are_expanded_substituted_and_kept_in_the_repository") {
        return;
    }
    let applications = [
        // The pattern's files in name order, `values-a.yaml` at its explicit place: `b`, `a`.
        lab_application(
            "glob",
            "      valueFiles: [\"values-*.yaml\", values-a.yaml, values-a.yaml]\n",
        ),
        // The build environment substituted; an absolute path is from the repository root.
        lab_application(
            "env",
            "      valueFiles: [\"values-$ARGOCD_APP_NAME.yaml\", /envs/extra.yaml]\n",
        ),
        lab_application(
            "nothing",
            "      valueFiles: [values.yaml, \"values-none-*.yaml\"]\n",
        ),
        lab_application(
            "ignored",
            "      ignoreMissingValueFiles: true\n      valueFiles: [\"values-none-*.yaml\"]\n",
        ),
        lab_application("outside", "      valueFiles: [../../../outside.yaml]\n"),
        // Parameters: the build environment substituted, commas escaped (`cleanSetParameters`).
        lab_application(
            "params",
            "      parameters:
        - {name: name, value: $ARGOCD_APP_NAME-vm}
        - {name: size, value: \"small,large\", forceString: true}
",
        ),
    ];
    let found = lab_chart_findings(
        &applications,
        &lab_template("chart"),
        &[
            ("charts/lab/values.yaml", "size: from-chart\n"),
            ("charts/lab/values-a.yaml", "size: from-a\n"),
            ("charts/lab/values-b.yaml", "size: from-b\n"),
            ("charts/lab/values-env.yaml", "size: from-env\n"),
            ("envs/extra.yaml", "name: extra\n"),
        ],
    );
    let mut expected = vec![
        lab_not_found("chart-glob", "from-a"),
        lab_not_found("extra-env", "from-env"),
        lab_not_found("chart-ignored", "from-chart"),
        lab_not_found("params-vm-params", "small,large"),
        "KV0020 argocd/nothing.yaml:15:33 - Argo CD cannot render Application nothing: values file glob \"values-none-*.yaml\" matched no files".to_owned(),
        "KV0020 argocd/outside.yaml:15:20 - Argo CD cannot render Application outside: error resolving value file path: file '../../../outside.yaml' resolved to outside repository root".to_owned(),
    ];
    expected.sort();
    assert_eq!(found, expected);
}

#[cfg(unix)]
#[test]
fn a_chart_that_links_outside_the_repository_is_not_rendered() {
    if !helm_available("a_chart_that_links_outside_the_repository_is_not_rendered") {
        return;
    }
    let dir = fixture();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), "kind: ConfigMap\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.yaml"),
        dir.path().join("charts/legacy/templates/secret.yaml"),
    )
    .unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let messages: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "argocd/legacy.yaml")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "not rendered: Application legacy would read `charts/legacy/templates/secret.yaml`, which resolves outside the repository; kvlint does not let Helm read it"
        ]
    );
}

#[test]
fn a_suppression_in_a_template_covers_every_release_of_the_chart() {
    if !helm_available("a_suppression_in_a_template_covers_every_release_of_the_chart") {
        return;
    }
    let dir = fixture();
    let template = dir.path().join("charts/legacy/templates/vm.yaml");
    let text = std::fs::read_to_string(&template).unwrap();
    std::fs::write(
        &template,
        text.replace(
            "  instancetype:\n",
            "  # kvlint: ignore[KV1006] the platform team creates it\n  instancetype:\n",
        ),
    )
    .unwrap();
    // A second release of the chart, generated by an ApplicationSet.
    std::fs::write(
        dir.path().join("argocd/set.yaml"),
        "apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: charts
  namespace: argocd
spec:
  generators:
    - list:
        elements:
          - env: qa
  template:
    metadata:
      name: 'legacy-{{env}}'
    spec:
      project: default
      destination:
        namespace: 'legacy-{{env}}'
      source:
        repoURL: https://example.com/gitops.git
        path: charts/legacy
        helm:
          valueFiles: [values-prod.yaml]
",
    )
    .unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let in_template: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "charts/legacy/templates/vm.yaml")
        .map(|d| {
            let objects: Vec<String> = d["instances"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| {
                    format!(
                        "{}/{} via {}",
                        i["object"]["namespace"].as_str().unwrap(),
                        i["object"]["name"].as_str().unwrap(),
                        i["unit"]["via"]["name"].as_str().unwrap()
                    )
                })
                .collect();
            format!(
                "{} {}:{} {}",
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"],
                objects.join(", ")
            )
        })
        .collect();
    assert_eq!(
        in_template,
        ["KV3007 13:3 legacy/legacy-db via legacy, legacy-qa/legacy-db via charts"]
    );
}

const DEPS_FIXTURE: &str = "testdata/units/helm-deps";

fn deps_fixture() -> tempfile::TempDir {
    copy_of(DEPS_FIXTURE)
}

/// `file:line:column namespace/name message` of each finding with `code`.
fn located(report: &Value, code: &str) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| {
            format!(
                "{}:{}:{} {}/{} {}",
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["object"]["namespace"].as_str().unwrap_or("-"),
                d["object"]["name"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_local_dependency_is_rendered_with_findings_at_its_own_template() {
    if !helm_available("a_local_dependency_is_rendered_with_findings_at_its_own_template") {
        return;
    }
    let dir = deps_fixture();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let found = located(&report, "KV1006");
    assert!(
        found.contains(&"apps/vm-lib/templates/vm.yaml:7:3 apps/web-umbrella virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"standard.smol\" not found".to_owned()),
        "{found:#?}"
    );
    // The aliased `db` copy is disabled by its condition: one VM of the library.
    assert_eq!(
        found
            .iter()
            .filter(|f| f.starts_with("apps/vm-lib/"))
            .count(),
        1,
        "{found:#?}"
    );
    let unit = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == "apps/vm-lib/templates/vm.yaml")
        .map(|d| d["unit"].clone())
        .unwrap();
    assert_eq!(unit["path"], "apps/umbrella");
    assert_eq!(unit["via"]["kind"], "HelmRelease");
    // The dependency's files are checked as rendered, not as written.
    assert!(
        !report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "KV0006"
                && d["file"].as_str().unwrap().starts_with("apps/vm-lib/")),
        "{report:#}"
    );
    // Nothing is written into the repository.
    assert!(!dir.path().join("apps/umbrella/charts").exists());
}

#[test]
fn a_local_dependency_that_is_not_there_fails_the_release() {
    if !helm_available("a_local_dependency_that_is_not_there_fails_the_release") {
        return;
    }
    let dir = deps_fixture();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    assert_eq!(
        located(&report, "KV0020")
            .into_iter()
            .filter(|f| f.starts_with("argocd/"))
            .collect::<Vec<_>>(),
        [
            "argocd/broken.yaml:14:11 -/- Flux and Argo CD cannot build the chart `apps/broken` of Application broken: it depends on the local chart `vm-lib` (file://../vm-library), but no chart is at `apps/vm-library`"
        ]
    );
    assert!(
        !located(&report, "KV0022")
            .iter()
            .any(|f| f.starts_with("argocd/broken.yaml")),
    );
}

#[test]
fn a_local_dependency_of_an_excluded_version_fails_the_release() {
    if !helm_available("a_local_dependency_of_an_excluded_version_fails_the_release") {
        return;
    }
    let dir = deps_fixture();
    let chart = dir.path().join("apps/umbrella/Chart.yaml");
    let text = std::fs::read_to_string(&chart).unwrap();
    std::fs::write(&chart, text.replacen("^0.1.0", "~0.2.0", 1)).unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    assert!(
        located(&report, "KV0020").contains(&"clusters/umbrella.yaml:11:14 -/- Flux and Argo CD cannot build the chart `apps/umbrella` of HelmRelease apps/umbrella: it depends on the local chart `vm-lib` (file://../vm-lib), but `apps/vm-lib` is version 0.1.2, which `~0.2.0` excludes".to_owned()),
        "{:#?}",
        located(&report, "KV0020")
    );
    assert!(
        !located(&report, "KV1006")
            .iter()
            .any(|f| f.starts_with("apps/vm-lib/")),
    );
}

#[test]
fn a_cached_rendering_follows_the_files_of_a_local_dependency() {
    if !helm_available("a_cached_rendering_follows_the_files_of_a_local_dependency") {
        return;
    }
    let dir = deps_fixture();
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_owned();
    let run = || {
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args([
                "check",
                ".",
                "--format",
                "json",
                "--fail-on",
                "none",
                "--catalog",
                "none",
                "--cache-dir",
                &cache_dir,
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        located(&common::json_report(&output), "KV1006")
    };
    let first = run();
    assert_eq!(first, run());
    let values = dir.path().join("apps/vm-lib/templates/vm.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(
        &values,
        text.replace("{{ .Values.size }}", "{{ .Values.size }}-v2"),
    )
    .unwrap();
    let after = run();
    assert!(
        after.iter().any(|f| f.contains("\"standard.smol-v2\"")),
        "{after:#?}"
    );
}

#[test]
fn a_chart_ref_to_a_helm_chart_of_the_repository_is_rendered_with_its_values_files() {
    if !helm_available(
        "a_chart_ref_to_a_helm_chart_of_the_repository_is_rendered_with_its_values_files",
    ) {
        return;
    }
    let dir = deps_fixture();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    assert!(
        located(&report, "KV1006").contains(&"apps/lab/templates/vm.yaml:7:3 apps/lab-prod-lab virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"standard.smal\" not found".to_owned()),
        "{:#?}",
        located(&report, "KV1006")
    );
    let unit = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == "apps/lab/templates/vm.yaml")
        .map(|d| d["unit"].clone())
        .unwrap();
    assert_eq!(unit["path"], "apps/lab");
    assert_eq!(unit["via"]["name"], "lab");
    assert_eq!(unit["via"]["file"], "clusters/lab.yaml");
    // A chart that is not rendered is named once when the values describe VMs: from an
    // OCIRepository, from a HelmChart of a HelmRepository or not among the checked files.
    let named: Vec<String> = located(&report, "KV0022")
        .into_iter()
        .filter(|f| f.starts_with("clusters/"))
        .collect();
    assert_eq!(
        named,
        [
            "clusters/oci.yaml:11:11 apps/remote-vms not rendered: kvlint does not fetch charts; HelmRelease apps/remote-vms installs the chart `vm-charts`, and the VirtualMachines its values describe are not checked",
            "clusters/oci.yaml:37:11 apps/from-repo not rendered: HelmRelease apps/from-repo installs the chart of the HelmChart `repo-chart`, which builds its chart from a HelmRepository, which kvlint does not fetch; the VirtualMachines its values describe are not checked",
            "clusters/oci.yaml:51:11 apps/elsewhere not rendered: HelmRelease apps/elsewhere installs the chart of the HelmChart `not-here`, which is not among the checked files; the VirtualMachines its values describe are not checked",
        ]
    );
}

#[test]
fn without_helm_a_chart_whose_vms_are_in_a_local_dependency_is_named() {
    let dir = deps_fixture();
    let empty = tempfile::tempdir().unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], Some(empty.path())));
    assert!(
        located(&report, "KV0022").contains(&"clusters/umbrella.yaml:11:14 -/- not rendered: helm is not on PATH; HelmRelease apps/umbrella installs the chart directory `apps/umbrella`, whose VirtualMachines are not checked as rendered".to_owned()),
        "{:#?}",
        located(&report, "KV0022")
    );
}

/// A template whose first part is left out by a false `if` and whose second prints a VM per
/// item of a `range` (testdata/units/helm-parts): each VM is placed in the part that prints
/// it, not in the first part of the file.
#[test]
fn documents_are_placed_in_the_template_part_that_prints_them() {
    if !helm_available("documents_are_placed_in_the_template_part_that_prints_them") {
        return;
    }
    let dir = copy_of("testdata/units/helm-parts");
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    // The findings of both VMs are at the lines of the VirtualMachine part (one finding
    // lists both when code, position and message agree); none at the Service's lines.
    let expected = concat!(
        "KV1006 charts/vm/templates/vm.yaml:18:3-20:22 vms/db {UNIT} spec.instancetype\n",
        "KV3007 charts/vm/templates/vm.yaml:21:3-21:11 vms/db {UNIT} spec.template.metadata.annotations[kubevirt.io/pci-topology-version]\n",
        "KV3004 charts/vm/templates/vm.yaml:22:5-22:9 vms/db {UNIT} spec.template.spec.architecture\n",
        "KV3003 charts/vm/templates/vm.yaml:23:7-23:13 vms/db {UNIT} spec.template.spec.domain.machine.type\n",
        "KV3006 charts/vm/templates/vm.yaml:23:7-23:13 vms/db {UNIT} spec.template.spec.domain.firmware\n",
        "KV3006 charts/vm/templates/vm.yaml:23:7-23:13 vms/web {UNIT} spec.template.spec.domain.firmware\n",
    );
    assert_eq!(
        summary(&report),
        expected.replace(
            "{UNIT}",
            "[helm:charts/vm via Application vms (argocd/vms.yaml:3)]"
        )
    );
}

/// Applications with override files beside their chart, and one whose value files are in its
/// other sources.
const ARGOCD_SOURCES: &str = "testdata/units/argocd-sources";

/// Findings about the chart `charts/vm` or naming another source: code, place, object, the
/// quoted name in the message.
fn chart_findings(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] != "platform/instancetypes.yaml")
        .filter(|d| {
            d["unit"]["path"] == "charts/vm" || d["file"].as_str().unwrap().starts_with("argocd/")
        })
        .filter(|d| d["code"] != "KV3007")
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            let quoted = message.split(['"', '`']).nth(1).unwrap_or(message);
            format!(
                "{} {}:{}:{} {}/{} {quoted}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["object"]["namespace"].as_str().unwrap_or(""),
                d["object"]["name"].as_str().unwrap_or(""),
            )
        })
        .collect()
}

#[test]
fn argo_cd_override_files_and_value_files_of_other_sources_are_applied() {
    if !helm_available("argo_cd_override_files_and_value_files_of_other_sources_are_applied") {
        return;
    }
    let dir = copy_of(ARGOCD_SOURCES);
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    assert_eq!(
        chart_findings(&report),
        [
            // The other repository's value file is left out; the chart renders without it.
            "KV0022 argocd/charts.yaml:27:13 / $shared/vm/values.yaml",
            // `.argocd-source-vm-prod.yaml` replaces the parameters of `.argocd-source.yaml`.
            "KV1006 charts/vm/templates/vm.yaml:7:3 vm-prod/vm-prod standard.lage",
            // `$values/envs/prod/values.yaml`: the reference source is this repository.
            "KV1006 charts/vm/templates/vm.yaml:7:3 vm-multi/vm-multi standard.larg",
        ],
        "{report:#}"
    );
    // A reference Argo CD cannot resolve fails the Application; a missing file of this
    // repository fails Helm, unless missing value files are ignored.
    let multi = |name: &str, value_file: &str, extra: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {name}
  namespace: argocd
spec:
  sources:
    - repoURL: https://git.example.com/gitops.git
      path: charts/vm
      helm:
        valueFiles: ['{value_file}']
{extra}    - repoURL: https://git.example.com/gitops.git
      ref: values
  destination:
    namespace: {name}
"
        )
    };
    let apps = [
        multi("unknown", "$config/prod.yaml", ""),
        multi("outside", "$values/../prod.yaml", ""),
        multi("missing", "$values/envs/none.yaml", ""),
        multi(
            "ignored",
            "$values/envs/none.yaml",
            "        ignoreMissingValueFiles: true\n",
        ),
    ];
    std::fs::write(dir.path().join("argocd/refs.yaml"), apps.join("---\n")).unwrap();
    let report = common::json_report(&kvlint(dir.path(), "json", &[], None));
    let failed: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "argocd/refs.yaml")
        .map(|d| {
            format!(
                "{} {} {}",
                d["code"].as_str().unwrap(),
                d["line"],
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(failed.len(), 3, "{failed:#?}");
    assert!(failed[0].starts_with("KV0020 11 Argo CD cannot render Application unknown: source referenced \"$config\", which is not one of the available sources ($values)"), "{failed:#?}");
    assert!(failed[1].starts_with("KV0020 27 Argo CD cannot render Application outside: error resolving value file path: file '/../prod.yaml' resolved to outside repository root"), "{failed:#?}");
    assert!(
        failed[2].starts_with(
            "KV0020 41 helm template cannot render the chart `charts/vm` of Application missing"
        ),
        "{failed:#?}"
    );
    let ignored: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["object"]["name"] == "ignored")
        .collect();
    assert!(!ignored.is_empty(), "{report:#}");
}

#[test]
fn charts_are_rendered_with_the_apis_of_the_kubevirt_cluster() {
    if !helm_available("charts_are_rendered_with_the_apis_of_the_kubevirt_cluster") {
        return;
    }
    // The VM exists only where the cluster serves VirtualMachines; its name and instance type
    // say which release Helm rendered, and whether for Kubernetes 1.30.2.
    let template = "{{- if .Capabilities.APIVersions.Has \"kubevirt.io/v1/VirtualMachine\" }}
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{{ .Release.Name }}{{ if semverCompare \"=1.30.2\" .Capabilities.KubeVersion.Version }}-k130{{ end }}
spec:
  runStrategy: Always
  instancetype:
    name: size-{{ .Release.Name }}{{ if semverCompare \"=1.30.2\" .Capabilities.KubeVersion.Version }}-k130{{ end }}
  template:
    spec:
      domain:
        devices: {}
{{- end }}
";
    let entry_points = [
        lab_release("flux", ""),
        lab_application("argo", "      releaseName: argo\n"),
        // The Application's own APIs replace the cluster's: no KubeVirt, no VM.
        lab_application(
            "own",
            "      apiVersions: [apps/v1, example.com/v1/Thing]\n",
        ),
        lab_application(
            "kube",
            "      kubeVersion: v1.30.2-gke.1\n      apiVersions: [kubevirt.io/v1/VirtualMachine]\n",
        ),
        lab_application("bad", "      kubeVersion: latest\n"),
    ];
    let found = lab_chart_findings(&entry_points, template, &[]);
    let not_found = |vm: &str| {
        format!(
            "KV1006 charts/lab/templates/vm.yaml:8:3 vm-{vm} virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"size-{vm}\" not found"
        )
    };
    let mut expected = vec![
        not_found("flux"),
        not_found("argo"),
        not_found("kube-k130"),
        "KV0020 argocd/bad.yaml:15:20 - Argo CD cannot render Application bad: could not parse kubernetes version latest: could not parse \"latest\" as version".to_owned(),
    ];
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn a_cached_rendering_follows_the_apis_of_the_kubevirt_release() {
    if !helm_available("a_cached_rendering_follows_the_apis_of_the_kubevirt_release") {
        return;
    }
    // `pool.kubevirt.io/v1beta1` is served from KubeVirt v1.7 on.
    let template = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
spec:
  runStrategy: Always
  instancetype:
    name: {{ if .Capabilities.APIVersions.Has \"pool.kubevirt.io/v1beta1\" }}pools{{ else }}no-pools{{ end }}
  template:
    spec:
      domain:
        devices: {}
";
    let (release, text) = lab_release("flux", "");
    let dir = common::git_repository(&[
        (release.as_str(), text.as_str()),
        (
            "charts/lab/Chart.yaml",
            "apiVersion: v2\nname: lab\nversion: 0.1.0\n",
        ),
        ("charts/lab/templates/vm.yaml", template),
    ]);
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().to_str().unwrap().to_owned();
    let size = |version: &str| -> Vec<String> {
        let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args(["check", ".", "--format", "json", "--fail-on", "none"])
            .args(["--catalog", "none", "--cache-dir", &cache_dir])
            .args(["--kubevirt-version", version])
            .current_dir(dir.path())
            .output()
            .unwrap();
        common::json_report(&output)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "KV1006")
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .collect()
    };
    let not_found = |size: &str| {
        vec![format!(
            "virtualmachineclusterinstancetypes.instancetype.kubevirt.io \"{size}\" not found"
        )]
    };
    assert_eq!(size("v1.6"), not_found("no-pools"));
    assert_eq!(size("v1.7"), not_found("pools"));
    assert_eq!(size("v1.6"), not_found("no-pools"));
}
