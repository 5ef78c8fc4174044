//! Acceptance on real trees: the Kustomize sources of common-instancetypes v1.7.0 render, as
//! units, the objects of the release bundles KubeVirt vendors, and check clean; the overlays of
//! two real GitOps repositories render the VMs Kustomize builds, with every finding on a line of
//! a file of the repository; and every repository of the real-world corpus is checked with units
//! on without a panic, a hang, or a finding anywhere but a file's line.
//!
//! The trees live in ../shared (the project's shared corpus, not part of this repository):
//! without it these tests say so and pass, unless `KVLINT_REQUIRE_SHARED=1`. They need
//! kustomize or kubectl like the other unit tests (`KVLINT_REQUIRE_KUSTOMIZE=1`).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::kustomize_available;
use kvlint::units::{Context, UnitOptions};
use kvlint::yaml::{self, Limits};
use serde_json::Value;

const INSTANCETYPES_TREE: &str = "../shared/corpus/gitops/common-instancetypes@v1.7.0";
const CATALOG: &str = "../shared/catalog";
const RELEASE_LABEL: &str = "instancetype.kubevirt.io/common-instancetypes-version";
const REAL_WORLD: &str = "../shared/corpus/real-world";
/// One repository's check, at most (a debug build on a loaded machine builds a few units).
const WALL: Duration = Duration::from_secs(180);

/// Whether the shared corpus is here; without it a test says so and passes, unless
/// `KVLINT_REQUIRE_SHARED` is set.
fn shared_available(test: &str) -> bool {
    let found = [INSTANCETYPES_TREE, CATALOG, REAL_WORLD]
        .iter()
        .all(|dir| Path::new(dir).is_dir());
    if !found {
        assert!(
            std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
            "KVLINT_REQUIRE_SHARED is set but ../shared holds no corpus"
        );
        #[allow(clippy::print_stderr)] // a skipped test says why
        {
            eprintln!("{test}: skipped, ../shared (the shared corpus) is absent");
        }
    }
    found
}

/// Objects by `Kind/name`, as JSON.
type Objects = BTreeMap<String, Value>;

fn key(object: &Value) -> String {
    format!(
        "{}/{}",
        object["kind"].as_str().unwrap_or_default(),
        object["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// The objects of a bundle file, without the label the release build adds.
fn bundle(file: &str) -> Objects {
    let text = std::fs::read_to_string(Path::new(CATALOG).join(file)).unwrap();
    yaml::parse_stream(&text, Limits::default())
        .into_iter()
        .map(|document| {
            let mut object = document.expect("the bundle parses").root.to_json();
            let labels = object["metadata"]["labels"].as_object_mut().unwrap();
            assert!(labels.remove(RELEASE_LABEL).is_some(), "{object:#}");
            (key(&object), object)
        })
        .collect()
}

/// The objects kvlint's units stage renders from `tree`, by unit directory.
fn rendered_units(tree: &str) -> BTreeMap<String, Objects> {
    let inputs = kvlint::source::discover(&kvlint::source::Selection {
        paths: vec![PathBuf::from(tree)],
        ..Default::default()
    })
    .unwrap();
    let options = UnitOptions {
        no_cache: true,
        ..UnitOptions::default()
    };
    let rendering = kvlint::units::render(
        &inputs,
        &Context {
            options: &options,
            default_namespace: "default",
            kubevirt: kvlint::cluster::version::KubeVirtVersion::LATEST,
            keep_sources: false,
            streamed: None,
        },
    );
    assert!(rendering.findings.is_empty(), "{:#?}", rendering.findings);
    let mut units: BTreeMap<String, Objects> = BTreeMap::new();
    for object in rendering.objects {
        assert_name_located(&object);
        let json = object.node.to_json();
        let previous = units
            .entry(object.unit.to_string())
            .or_default()
            .insert(key(&json), json);
        assert!(
            previous.is_none(),
            "{} twice in {}",
            object.name,
            object.unit
        );
    }
    units
}

/// A rendered object's name is at a `name:` line of the file it came from (when a patch
/// replaced its kind too; the overlay that renamed it, if any, is found by attribution).
fn assert_name_located(object: &kvlint::k8s::Object) {
    let name = object.node.get("metadata").and_then(|m| m.get("name"));
    let line = name.map_or(0, |name| name.span.start.line);
    let text = std::fs::read_to_string(&*object.file).unwrap();
    let written = (line >= 1)
        .then(|| text.lines().nth(line as usize - 1))
        .flatten()
        .unwrap_or_default();
    assert!(
        written.trim_start().starts_with("name:"),
        "{} {} in {}: line {line} is {written:?}",
        object.kind,
        object.name,
        object.file
    );
}

/// Every difference between two sets of objects, field by field.
fn differences(expected: &Objects, actual: &Objects) -> Vec<String> {
    let mut out = Vec::new();
    for (name, want) in expected {
        match actual.get(name) {
            None => out.push(format!("{name}: not rendered")),
            Some(got) => diff_value(name, want, got, &mut out),
        }
    }
    out.extend(
        actual
            .keys()
            .filter(|name| !expected.contains_key(*name))
            .map(|name| format!("{name}: rendered, not in the bundle")),
    );
    out
}

fn diff_value(at: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(want), Value::Object(got)) => {
            for (field, value) in want {
                let here = format!("{at}.{field}");
                match got.get(field) {
                    None => out.push(format!("{here}: missing, want {value}")),
                    Some(other) => diff_value(&here, value, other, out),
                }
            }
            for (field, value) in got {
                if !want.contains_key(field) {
                    out.push(format!("{at}.{field}: unexpected {value}"));
                }
            }
        }
        (Value::Array(want), Value::Array(got)) if want.len() == got.len() => {
            for (n, (a, b)) in want.iter().zip(got).enumerate() {
                diff_value(&format!("{at}[{n}]"), a, b, out);
            }
        }
        _ if want != got => out.push(format!("{at}: want {want}, got {got}")),
        _ => {}
    }
}

#[test]
fn common_instancetypes_render_the_release_bundles() {
    let test = "common_instancetypes_render_the_release_bundles";
    if !shared_available(test) || !kustomize_available(test) {
        return;
    }
    let units = rendered_units(INSTANCETYPES_TREE);
    for (unit, file, count) in [
        (
            "VirtualMachineClusterInstancetypes",
            "common-clusterinstancetypes-bundle.yaml",
            65,
        ),
        (
            "VirtualMachineClusterPreferences",
            "common-clusterpreferences-bundle.yaml",
            54,
        ),
    ] {
        let expected = bundle(file);
        assert_eq!(expected.len(), count, "{file}");
        let unit = format!("{INSTANCETYPES_TREE}/{unit}");
        let rendered = units
            .get(&unit)
            .unwrap_or_else(|| panic!("no unit {unit} among {:?}", units.keys()));
        let differences = differences(&expected, rendered);
        assert!(
            differences.is_empty(),
            "{unit}:\n{}",
            differences.join("\n")
        );
    }
}

#[test]
fn common_instancetypes_check_without_errors() {
    let test = "common_instancetypes_check_without_errors";
    if !shared_available(test) || !kustomize_available(test) {
        return;
    }
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args([
            "check",
            INSTANCETYPES_TREE,
            "--format",
            "json",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let report = common::json_report(&output);
    let summary = &report["summary"];
    assert_eq!(summary["errors"], 0, "{report:#}");
    assert_eq!(summary["units"], 5, "{report:#}");
}

/// The prefix of the private directory kvlint builds units in: no message may name it.
const BUILD_DIR_PREFIX: &str = "kvlint-units-";

/// kvlint with `args` in `dir` under a watchdog; asserts it ended without a panic or a usage
/// error and returns what it printed.
fn kvlint_in(dir: &Path, args: &[&str]) -> Value {
    let run = common::run(args, dir, WALL);
    assert!(matches!(run.code, Some(0 | 1)), "{args:?}: {:?}", run.code);
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("{args:?}: {err}: {}", run.stdout))
}

/// What Kustomize itself builds from `unit` (the tool kvlint prefers: `kustomize build`, else
/// `kubectl kustomize`).
fn kustomize_build(dir: &Path, unit: &str) -> Vec<u8> {
    let on_path = |tool: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file()))
    };
    let (program, subcommand) = if on_path("kustomize") {
        ("kustomize", "build")
    } else {
        ("kubectl", "kustomize")
    };
    let output = Command::new(program)
        .args([subcommand, unit])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{program} {unit}: {output:?}");
    output.stdout
}

/// `kvlint render -` of `manifests`: the VMs as KubeVirt would expand them.
fn render_stdin(dir: &Path, manifests: &[u8]) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(["render", "-", "--format", "json"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), manifests).unwrap();
    common::json_report(&child.wait_with_output().unwrap())
}

/// Every place the findings of `report` point at that is not a line of a file under `repo`
/// (relative to `dir`, as given to kvlint), and every message naming kvlint's build directory
/// or `forbidden` paths (the repository's resolved path when the report names it otherwise).
fn misplaced(report: &Value, dir: &Path, repo: &str, forbidden: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for finding in report["diagnostics"].as_array().unwrap() {
        let related = finding["related"].as_array().cloned().unwrap_or_default();
        let places = std::iter::once(finding).chain(related.iter());
        for (n, place) in places.enumerate() {
            let file = place["file"].as_str().unwrap_or_default();
            // A related location may be the catalog kvlint carries, which is no file.
            if n > 0 && file.starts_with("<built-in catalog") {
                continue;
            }
            let line = place["line"].as_u64().unwrap_or(0);
            let column = place["column"].as_u64().unwrap_or(0);
            let lines = std::fs::read_to_string(dir.join(file))
                .map(|text| text.lines().count().max(1) as u64)
                .ok();
            let in_repo = Path::new(file).starts_with(repo) && !file.contains("/../");
            if !in_repo || lines.is_none_or(|lines| line < 1 || line > lines) || column < 1 {
                out.push(format!("{file}:{line}:{column}: {finding}"));
            }
        }
        let message = finding["message"].as_str().unwrap_or_default();
        let named = std::iter::once(BUILD_DIR_PREFIX).chain(forbidden.iter().map(String::as_str));
        if let Some(path) = named.into_iter().find(|path| message.contains(path)) {
            out.push(format!("names {path}: {message}"));
        }
    }
    out
}

/// Files the corpus copies lack although a kustomization lists them, as (repository, file,
/// minimal stand-in): without them Kustomize itself cannot build those overlays.
const STAND_INS: &[(&str, &str, &str)] = &[
    (
        "cwilkers__kubevirt-gitops",
        "modernization/legacy-service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: legacy\nspec:\n  ports:\n  - port: 22\n",
    ),
    (
        "cwilkers__kubevirt-gitops",
        "vms/overlays/kubernetes/cdi-rbac.yaml",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: cdi-stand-in\nrules: []\n",
    ),
];

/// The repositories and their units, with the VMs each unit renders.
const OVERLAYS: &[(&str, &[(&str, usize)])] = &[
    (
        "cwilkers__kubevirt-gitops",
        &[("modernization", 1), ("vms/overlays/kubernetes", 2)],
    ),
    (
        "Skalador__openshift-virt-gitops",
        &[
            ("applicationsets/demo-vm/kustomize/overlays/dev", 2),
            ("applicationsets/demo-vm/kustomize/overlays/prod", 2),
        ],
    ),
];

#[test]
fn real_world_overlays_render_as_kustomize_builds_them() {
    let test = "real_world_overlays_render_as_kustomize_builds_them";
    if !shared_available(test) || !kustomize_available(test) {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(scratch.path()).unwrap();
    for (repo, units) in OVERLAYS {
        common::copy_dir(&Path::new(REAL_WORLD).join(repo), &dir.join(repo));
        for (_, file, text) in STAND_INS.iter().filter(|(r, ..)| r == repo) {
            let path = dir.join(repo).join(file);
            if !path.exists() {
                std::fs::write(path, text).unwrap();
            }
        }
        for (unit, vms) in *units {
            let unit = format!("{repo}/{unit}");
            let rendered = kvlint_in(
                &dir,
                &[
                    "render",
                    repo,
                    "--unit",
                    &unit,
                    "--format",
                    "json",
                    "--no-cache",
                ],
            );
            let built = render_stdin(&dir, &kustomize_build(&dir, &unit));
            assert_eq!(
                rendered.as_array().map(Vec::len),
                Some(*vms),
                "{unit}: {rendered:#}"
            );
            assert_eq!(rendered, built, "{unit}");
        }
        let report = kvlint_in(
            &dir,
            &[
                "check",
                repo,
                "--format",
                "json",
                "--no-cache",
                "--fail-on",
                "none",
            ],
        );
        assert_eq!(report["summary"]["units"], units.len(), "{report:#}");
        assert_eq!(report["summary"]["errors"], 0, "{report:#}");
        let forbidden = [dir.display().to_string()];
        let misplaced = misplaced(&report, &dir, repo, &forbidden);
        assert!(misplaced.is_empty(), "{repo}:\n{}", misplaced.join("\n"));
    }
}

#[test]
fn every_real_world_repository_checks_with_findings_on_file_lines() {
    let test = "every_real_world_repository_checks_with_findings_on_file_lines";
    if !shared_available(test) || !kustomize_available(test) {
        return;
    }
    let mut repositories: Vec<PathBuf> = std::fs::read_dir(REAL_WORLD)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    repositories.sort();
    assert!(repositories.len() > 40, "{repositories:?}");
    let cwd = std::env::current_dir().unwrap();
    let mut problems = Vec::new();
    for repository in &repositories {
        let repo = repository.to_str().unwrap();
        let report = kvlint_in(
            &cwd,
            &[
                "check",
                repo,
                "--format",
                "json",
                "--no-cache",
                "--fail-on",
                "none",
            ],
        );
        let resolved = std::fs::canonicalize(repository).unwrap();
        let forbidden = [resolved.display().to_string()];
        problems.extend(misplaced(&report, &cwd, repo, &forbidden));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
