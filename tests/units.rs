//! Kustomize units: the roots of testdata/units/kustomize built with the real Kustomize
//! (`kustomize build`, else `kubectl kustomize`), their objects checked as rendered, findings
//! on the files the rendered values came from.
//!
//! Without kustomize or kubectl these tests say so and pass, unless
//! `KVLINT_REQUIRE_KUSTOMIZE=1` (set by .ci/run) makes the tool's absence a failure.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{kustomize_available, without_kustomize_version};

const FIXTURE: &str = "testdata/units/kustomize";

fn kvlint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .output()
        .expect("kvlint runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    common::json_report(&kvlint(args))
}

#[test]
fn overlays_are_checked_as_rendered() {
    if !kustomize_available("overlays_are_checked_as_rendered") {
        return;
    }
    let check = |format: &str| {
        let output = kvlint(&[
            "check",
            FIXTURE,
            "--format",
            format,
            "--fail-on",
            "none",
            "--catalog",
            "none",
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        without_kustomize_version(&String::from_utf8_lossy(&output.stdout))
    };
    insta::assert_snapshot!("kustomize-concise", check("concise"));
    insta::assert_snapshot!("kustomize-json", check("json"));
    insta::assert_snapshot!("kustomize-human", check("human"));
}

#[test]
fn rendered_identities_units_and_positions() {
    if !kustomize_available("rendered_identities_units_and_positions") {
        return;
    }
    let report = json(&[
        "check",
        FIXTURE,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ]);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let find = |code: &str, file: &str| {
        diagnostics
            .iter()
            .filter(|d| d["code"] == code && d["file"].as_str().unwrap().ends_with(file))
            .collect::<Vec<_>>()
    };
    // The dev overlay's prefix and namespace name the VM; its instance type comes from the
    // overlay's inline JSON 6902 patch, where the finding points.
    let typo = find("KV1006", "apps/web/overlays/dev/kustomization.yaml");
    assert_eq!(typo.len(), 1, "{typo:#?}");
    assert_eq!(
        (typo[0]["line"].as_u64(), typo[0]["column"].as_u64()),
        (Some(14), Some(9)),
        "the `value:` of the patch operation"
    );
    assert_eq!(typo[0]["object"]["name"], "dev-web");
    assert_eq!(typo[0]["object"]["namespace"], "web-dev");
    assert_eq!(typo[0]["unit"]["kind"], "kustomize");
    assert_eq!(
        typo[0]["unit"]["path"],
        "testdata/units/kustomize/apps/web/overlays/dev"
    );
    assert!(
        typo[0]["message"]
            .as_str()
            .unwrap()
            .contains("standard.lage")
    );
    // The base VM's drift is one finding for both overlays.
    let shared = find("KV3007", "apps/web/base/vm.yaml");
    assert_eq!(shared.len(), 1, "{shared:#?}");
    let instances: Vec<(&str, &str)> = shared[0]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["object"]["namespace"].as_str().unwrap(),
                i["object"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(instances, [("web-dev", "dev-web"), ("web-prod", "web")]);
    // The prod overlay's strategic-merge patch names an instance type that does not exist:
    // the finding is at the patch's line.
    let huge = find("KV1006", "apps/web/overlays/prod/size.yaml");
    assert_eq!(huge.len(), 1, "{huge:#?}");
    assert_eq!(huge[0]["object"]["name"], "web");
    assert_eq!(huge[0]["object"]["namespace"], "web-prod");
    assert_eq!(
        (huge[0]["line"].as_u64(), huge[0]["column"].as_u64()),
        (Some(6), Some(3)),
        "the `instancetype:` the patch writes"
    );
    // A missing resource: an error at its `resources:` entry, with Kustomize's message; the
    // unit's files are checked as written.
    let broken = find("KV0020", "apps/broken/kustomization.yaml");
    assert_eq!(broken.len(), 1, "{broken:#?}");
    assert_eq!(
        (broken[0]["line"].as_u64(), broken[0]["column"].as_u64()),
        (Some(6), Some(5))
    );
    let message = broken[0]["message"].as_str().unwrap();
    assert!(message.contains("missing.yaml"), "{message}");
    assert!(!message.contains("kvlint-units-"), "{message}");
    assert_eq!(find("KV1006", "apps/broken/vm.yaml").len(), 1);
    // The file the prod kustomization does not list is never applied.
    let forgotten = find("KV0021", "apps/web/overlays/prod/forgotten.yaml");
    assert_eq!(forgotten.len(), 1, "{forgotten:#?}");
    assert_eq!(report["summary"]["units"], 3);
    assert!(report["summary"]["kustomize"]["command"].is_string());
}

#[test]
fn one_overlay_given_alone_is_built() {
    if !kustomize_available("one_overlay_given_alone_is_built") {
        return;
    }
    let dev = format!("{FIXTURE}/apps/web/overlays/dev");
    let report = json(&[
        "check",
        &dev,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ]);
    assert_eq!(report["summary"]["units"], 1);
    assert_eq!(report["summary"]["vms"], 1);
    let names: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["object"]["name"].as_str())
        .collect();
    assert!(names.iter().all(|n| *n == "dev-web"), "{names:?}");
}

#[test]
fn units_off_and_a_missing_tool_check_files_as_written() {
    let off = kvlint(&[
        "check",
        FIXTURE,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--catalog",
        "none",
        "--units",
        "off",
    ]);
    let off_report: serde_json::Value = serde_json::from_slice(&off.stdout).unwrap();
    assert!(off_report["summary"].get("units").is_none());
    assert!(
        off.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
    // No tool on PATH: one warning on standard error, the same report as `--units off`.
    let missing = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            FIXTURE,
            "--format",
            "json",
            "--fail-on",
            "none",
            "--catalog",
            "none",
        ])
        .env("PATH", "")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), off.status.code());
    assert_eq!(
        String::from_utf8_lossy(&missing.stdout),
        String::from_utf8_lossy(&off.stdout)
    );
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("neither kustomize nor kubectl"), "{stderr}");
    let bad = kvlint(&[
        "check",
        FIXTURE,
        "--kustomize-command",
        "/nonexistent/kustomize",
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not found"));
}

#[test]
fn a_build_past_its_timeout_is_an_error_at_the_unit() {
    if !cfg!(unix) {
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let script = temp.path().join("slow-kustomize");
    std::fs::write(&script, "#!/bin/sh\nexec sleep 30\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let dev = format!("{FIXTURE}/apps/web/overlays/dev");
    let started = std::time::Instant::now();
    let report = json(&[
        "check",
        &dev,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--kustomize-command",
        &format!("{} build", script.display()),
        "--kustomize-timeout",
        "1",
    ]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let failed: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "KV0020")
        .collect();
    assert_eq!(failed.len(), 1, "{report:#}");
    assert!(
        failed[0]["message"]
            .as_str()
            .unwrap()
            .contains("stopped after 1 s")
    );
}

#[test]
fn suppressions_in_a_base_apply_to_every_overlay() {
    if !kustomize_available("suppressions_in_a_base_apply_to_every_overlay") {
        return;
    }
    let temp = tempfile::tempdir_in(".").unwrap();
    let root = temp.path();
    common::copy_dir(Path::new(FIXTURE), root);
    let vm = root.join("apps/web/base/vm.yaml");
    let text = std::fs::read_to_string(&vm).unwrap();
    std::fs::write(
        &vm,
        text.replace(
            "apiVersion: kubevirt.io/v1\n",
            "# kvlint: ignore[KV3007] the platform team pins it\napiVersion: kubevirt.io/v1\n",
        ),
    )
    .unwrap();
    let dir = root.to_string_lossy().into_owned();
    let report = json(&[
        "check",
        &dir,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ]);
    let base_drift = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["code"] == "KV3007"
                && d["file"]
                    .as_str()
                    .unwrap()
                    .ends_with("apps/web/base/vm.yaml")
        })
        .count();
    assert_eq!(base_drift, 0, "{report:#}");
}

#[test]
fn render_selects_the_vms_of_one_unit() {
    if !kustomize_available("render_selects_the_vms_of_one_unit") {
        return;
    }
    let prod = format!("{FIXTURE}/apps/web/overlays/prod/");
    let output = kvlint(&["render", FIXTURE, "--catalog", "none", "--unit", &prod]);
    let text = String::from_utf8_lossy(&output.stdout);
    let units: Vec<&str> = text.lines().filter(|l| l.starts_with("# Unit: ")).collect();
    assert_eq!(
        units,
        ["# Unit: testdata/units/kustomize/apps/web/overlays/prod"],
        "{text}"
    );
    assert!(
        text.contains("name: web-large\n  namespace: web-prod\n"),
        "{text}"
    );
    let unknown = kvlint(&[
        "render",
        FIXTURE,
        "--catalog",
        "none",
        "--unit",
        "no/such/unit",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("--unit no/such/unit"));
}

#[test]
fn a_hook_on_a_changed_base_rechecks_every_unit_built_from_it() {
    if !kustomize_available("a_hook_on_a_changed_base_rechecks_every_unit_built_from_it") {
        return;
    }
    let base = format!("{FIXTURE}/apps/web/base/vm.yaml");
    let report = json(&[
        "check",
        "--index",
        FIXTURE,
        &base,
        "--format",
        "json",
        "--fail-on",
        "none",
        "--catalog",
        "none",
    ]);
    let places: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap()
            )
        })
        .collect();
    // The dev overlay's patch is not the changed file, but the dev unit reads the base.
    assert!(
        places.contains(&format!(
            "KV1006 {FIXTURE}/apps/web/overlays/dev/kustomization.yaml"
        )),
        "{places:#?}"
    );
    assert!(
        places.contains(&format!(
            "KV1006 {FIXTURE}/apps/web/overlays/prod/size.yaml"
        )),
        "{places:#?}"
    );
    // Units that do not read the base are not reported.
    assert!(
        places.iter().all(|p| !p.contains("apps/broken")),
        "{places:#?}"
    );
}
