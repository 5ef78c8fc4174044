//! The units cache: a warm run starts no build, a changed file rebuilds the units that read it,
//! `--no-cache` builds everything and stores nothing, and cached results are the builds'.
//!
//! Builds go through a fake `--kustomize-command` that records each build (and each version
//! probe, as `version`) in a counter file and then runs the real Kustomize (`kustomize build`, else `kubectl kustomize`). Without
//! either these tests say so and pass, unless `KVLINT_REQUIRE_KUSTOMIZE=1`.

#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::kustomize_available;

const FIXTURE: &str = "testdata/units/kustomize";

/// A copy of the units fixture, a counting build command and a place for temporary files.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    repo: PathBuf,
    command: PathBuf,
    counter: PathBuf,
    temp: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = root.join("repo");
        common::copy_dir(Path::new(FIXTURE), &repo);
        let counter = root.join("builds.txt");
        let command = root.join("counting-kustomize");
        // The wrapper's `resources:` entry names the unit being built.
        std::fs::write(
            &command,
            format!(
                "#!/bin/sh\n\
                 if [ \"$1\" = version ]; then echo version >> '{counter}'; echo v5.4.2; exit 0; fi\n\
                 shift\n\
                 grep -A1 '\"resources\"' kustomization.yaml | tail -n 1 >> '{counter}'\n\
                 if command -v kustomize > /dev/null; then exec kustomize build \"$@\"; fi\n\
                 exec kubectl kustomize \"$@\"\n",
                counter = counter.display()
            ),
        )
        .unwrap();
        make_executable(&command);
        let temp = root.join("tmp-a");
        std::fs::create_dir(&temp).unwrap();
        std::fs::create_dir(root.join("tmp-b")).unwrap();
        Self {
            _dir: dir,
            root,
            repo,
            command,
            counter,
            temp,
        }
    }

    fn cache(&self) -> PathBuf {
        self.root.join("cache")
    }

    /// Runs `check --format json` in the repository with `extra` arguments, the temporary
    /// directory `temp` and `env`; returns the report and the units built.
    fn check(&self, extra: &[&str], temp: &Path, env: &[(&str, &Path)]) -> (String, Vec<String>) {
        let before = self.builds().len();
        let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
        command
            .current_dir(&self.repo)
            .args(["check", ".", "--format", "json", "--fail-on", "none"])
            .args(["--catalog", "none", "--kustomize-command"])
            .arg(&self.command)
            .args(extra)
            .env("TMPDIR", temp)
            .env_remove("KVLINT_CACHE_DIR")
            .env("HOME", self.root.join("home"));
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().expect("kvlint runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let built = self.builds().split_off(before);
        (String::from_utf8(output.stdout).unwrap(), built)
    }

    fn with_cache(&self, temp: &Path) -> (String, Vec<String>) {
        let cache = self.cache();
        self.check(&["--cache-dir", cache.to_str().unwrap()], temp, &[])
    }

    fn builds(&self) -> Vec<String> {
        std::fs::read_to_string(&self.counter)
            .unwrap_or_default()
            .lines()
            .map(|line| line.trim().trim_matches('"').to_owned())
            .collect()
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The builds among the recorded runs of the tool.
fn unit_builds(runs: &[String]) -> usize {
    runs.iter().filter(|run| *run != "version").count()
}

fn entries(dir: &Path) -> usize {
    let Ok(walk) = std::fs::read_dir(dir.join("units-v1")) else {
        return 0;
    };
    walk.flatten()
        .flat_map(|sub| std::fs::read_dir(sub.path()).into_iter().flatten())
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "unit"))
        .count()
}

#[test]
fn a_warm_run_builds_nothing_and_reports_the_same() {
    if !kustomize_available("a_warm_run_builds_nothing_and_reports_the_same") {
        return;
    }
    let repo = Fixture::new();
    let (cold, built) = repo.with_cache(&repo.temp);
    assert!(built.len() >= 3, "every unit is built: {built:?}");
    assert!(cold.contains("\"KV"), "the fixture has findings: {cold}");

    let (warm, built) = repo.with_cache(&repo.temp);
    assert_eq!(built, Vec::<String>::new(), "a warm run starts no process");
    assert_eq!(warm, cold, "cached results report as the builds did");

    // Only the unit that reads the file is built again.
    let size = repo.repo.join("apps/web/overlays/prod/size.yaml");
    let mut text = std::fs::read_to_string(&size).unwrap();
    text.push_str("# resized\n");
    std::fs::write(&size, text).unwrap();
    let (after, built) = repo.with_cache(&repo.temp);
    assert_eq!(built.len(), 1, "{built:?}");
    assert!(built[0].ends_with("apps/web/overlays/prod"), "{built:?}");
    assert_eq!(after, cold, "a comment changes no finding");

    // A base is read by every overlay above it.
    let base = repo.repo.join("apps/web/base/cloud-init.yaml");
    std::fs::write(&base, "#cloud-config\npackages: [httpd]\n").unwrap();
    let (_, built) = repo.with_cache(&repo.temp);
    let mut built: Vec<&str> = built
        .iter()
        .map(|unit| unit.rsplit('/').next().unwrap())
        .collect();
    built.sort_unstable();
    assert_eq!(built, ["dev", "prod"]);

    // A second kustomization file name changes what Kustomize does (it refuses).
    std::fs::write(
        repo.repo.join("apps/web/overlays/dev/kustomization.yml"),
        "resources: []\n",
    )
    .unwrap();
    let (refused, built) = repo.with_cache(&repo.temp);
    assert_eq!(built.len(), 1, "{built:?}");
    let (again, built) = repo.with_cache(&repo.temp);
    assert!(built.is_empty(), "a refusal is cached too: {built:?}");
    assert_eq!(again, refused);
}

#[test]
fn entries_serve_runs_in_other_wrapper_directories() {
    if !kustomize_available("entries_serve_runs_in_other_wrapper_directories") {
        return;
    }
    let repo = Fixture::new();
    let (first, built) = repo.with_cache(&repo.temp);
    let units = unit_builds(&built);
    assert!(units >= 3, "{built:?}");
    assert_eq!(built.len(), units + 1, "one version probe: {built:?}");
    // Each run makes its own wrapper directory in the temporary directory: the second run's
    // is another, and reads the first run's entries, refusals included.
    assert!(first.contains("kustomize-build-failed"), "{first}");
    let (second, built) = repo.with_cache(&repo.temp);
    assert!(built.is_empty(), "{built:?}");
    assert_eq!(second, first);
    // Another temporary directory is another key: built again, with the same report.
    let other = repo.root.join("tmp-b");
    let (third, built) = repo.with_cache(&other);
    assert_eq!(built.len(), units, "builds, no version probe: {built:?}");
    assert_eq!(third, first);
}

#[test]
fn no_cache_builds_every_unit_and_stores_nothing() {
    if !kustomize_available("no_cache_builds_every_unit_and_stores_nothing") {
        return;
    }
    let repo = Fixture::new();
    let cache = repo.cache();
    let from_env = [("KVLINT_CACHE_DIR", cache.as_path())];
    let (cold, built) = repo.check(&[], &repo.temp, &from_env);
    let units = unit_builds(&built);
    assert!(units >= 3, "{built:?}");
    let stored = entries(&cache);
    assert_eq!(
        stored,
        units + 1,
        "$KVLINT_CACHE_DIR holds the builds and the version"
    );

    let (warm, built) = repo.check(&[], &repo.temp, &from_env);
    assert!(built.is_empty(), "{built:?}");
    assert_eq!(warm, cold);

    let (bypassed, built) = repo.check(&["--no-cache"], &repo.temp, &from_env);
    assert_eq!(
        built.len(),
        units + 1,
        "--no-cache reads no entry: {built:?}"
    );
    assert_eq!(bypassed, cold);

    let unused = repo.root.join("unused-cache");
    let (_, built) = repo.check(
        &["--no-cache"],
        &repo.temp,
        &[("KVLINT_CACHE_DIR", unused.as_path())],
    );
    assert_eq!(built.len(), units + 1);
    assert!(!unused.exists(), "--no-cache writes no entry");

    // Without --cache-dir or $KVLINT_CACHE_DIR: the user's cache directory.
    let xdg = repo.root.join("xdg");
    if cfg!(not(target_os = "macos")) {
        repo.check(&[], &repo.temp, &[("XDG_CACHE_HOME", xdg.as_path())]);
        assert_eq!(entries(&xdg.join("kvlint")), units + 1);
    }
}

#[test]
fn a_cached_refusal_names_the_current_wrapper_directory() {
    let repo = Fixture::new();
    // A tool that refuses every unit, naming the directory it ran in.
    std::fs::write(
        &repo.command,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\n\
             echo built >> '{}'\n\
             echo \"Error: cannot read $(pwd -P)/kustomization.yaml\" >&2\n\
             exit 1\n",
            repo.counter.display()
        ),
    )
    .unwrap();
    let (cold, built) = repo.with_cache(&repo.temp);
    assert!(built.len() >= 3, "{built:?}");
    assert!(
        cold.contains("cannot read <wrapper>/kustomization.yaml"),
        "{cold}"
    );
    let (warm, built) = repo.with_cache(&repo.temp);
    assert!(built.is_empty(), "{built:?}");
    assert_eq!(warm, cold);
}
