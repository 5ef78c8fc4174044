//! `kvlint diff` end to end. Every folder under testdata/diff is a pair of trees, `base` and
//! `head`; its snapshot holds the exit code and the human, Markdown and JSON outputs of
//! `kvlint diff base head`. The library is checked on the same pairs, and `--base`/`--head`
//! (with [`kvlint::commands::diff::revision`]) in real git repositories.

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kvlint::check::{self, Options, Report};
use kvlint::commands::diff::revision::resolve_in;
use kvlint::commands::diff::{self, Aspect, Diff, EffectKind, Inputs, Relation, VmDiff, VmStatus};
use kvlint::config::ConfigChoice;
use kvlint::diag::Severity;
use kvlint::error::Error;
use kvlint::source::Selection;

/// The fixture pairs and the exit code of `kvlint diff` on each.
const CASES: [(&str, i32); 8] = [
    ("added-removed", 0),
    ("no-change", 0),
    ("rename-with-revision-name", 1),
    ("resize-beyond-limits", 0),
    ("resize-within-limits", 0),
    ("shared-instancetype", 0),
    ("switch-instancetype", 0),
    ("switch-preference", 0),
];

fn case_dir(case: &str) -> PathBuf {
    Path::new("testdata/diff").join(case)
}

fn kvlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("kvlint runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

#[test]
fn fixture_pairs() {
    let mut found: Vec<String> = std::fs::read_dir("testdata/diff")
        .expect("testdata/diff exists")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    let listed: Vec<&str> = CASES.iter().map(|(case, _)| *case).collect();
    assert_eq!(found, listed, "every fixture pair is listed in CASES");

    for (case, exit_code) in CASES {
        let dir = case_dir(case);
        let (base, head) = (dir.join("base"), dir.join("head"));
        let mut snapshot = format!("## exit code\n{exit_code}\n");
        for (title, format) in [
            ("human", "text"),
            ("markdown", "markdown"),
            ("json", "json"),
        ] {
            let output = kvlint(
                Path::new("."),
                &[
                    "diff",
                    &base.to_string_lossy(),
                    &head.to_string_lossy(),
                    "--format",
                    format,
                ],
            );
            assert_eq!(
                output.status.code(),
                Some(exit_code),
                "{case} --format {format}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(output.stderr.is_empty(), "{case}: {output:?}");
            let text = stdout(&output);
            if format == "json" {
                let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
                assert_eq!(json["version"], 1);
            } else {
                assert!(!text.contains('\u{1b}'), "{case}: no colour");
            }
            let _ = write!(snapshot, "## {title}\n{text}");
        }
        insta::assert_snapshot!(case, snapshot);
    }
}

#[test]
fn fail_on_decides_the_exit_code() {
    let exit_code = |case: &str, fail_on: &str| {
        let dir = case_dir(case);
        kvlint(
            Path::new("."),
            &[
                "diff",
                &dir.join("base").to_string_lossy(),
                &dir.join("head").to_string_lossy(),
                "--fail-on",
                fail_on,
            ],
        )
        .status
        .code()
    };
    // The added VM brings cluster-default drift: infos.
    assert_eq!(exit_code("added-removed", "error"), Some(0));
    assert_eq!(exit_code("added-removed", "warning"), Some(0));
    assert_eq!(exit_code("added-removed", "info"), Some(1));
    // A rejected change fails unless nothing does.
    assert_eq!(exit_code("rename-with-revision-name", "error"), Some(1));
    assert_eq!(exit_code("rename-with-revision-name", "none"), Some(0));
    let output = kvlint(Path::new("."), &["diff", "testdata/diff/no-change/base"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

// ---------------------------------------------------------------------------------------------
// The library on the fixture pairs

fn options(dir: &Path) -> Options {
    Options {
        selection: Selection {
            paths: vec![dir.to_path_buf()],
            ..Selection::default()
        },
        config: ConfigChoice::None,
        ..Options::default()
    }
}

/// Checks a side; its files are renamed to the head's, so that both sides compare.
fn side(dir: &Path, display: &str) -> (Report, Inputs) {
    let options = options(dir);
    let mut report = check::run(&options).expect("check runs");
    let mut inputs = diff::load_inputs(&options).expect("inputs load");
    let from = format!("{}/", dir.display());
    diff::relabel(&mut report, &from, display);
    inputs.relabel(&from, display);
    (report, inputs)
}

fn compare(case: &str) -> Diff {
    let dir = case_dir(case);
    let (base_report, base_inputs) = side(&dir.join("base"), "");
    let (head_report, head_inputs) = side(&dir.join("head"), "");
    diff::diff_with(&base_report, &base_inputs, &head_report, &head_inputs)
}

fn vm<'d>(diff: &'d Diff, name: &str) -> &'d VmDiff {
    diff.vms
        .iter()
        .find(|vm| vm.name == name)
        .unwrap_or_else(|| panic!("no VM {name}"))
}

fn summary(vm: &VmDiff) -> Vec<(Aspect, &str)> {
    vm.changes
        .iter()
        .map(|c| (c.aspect, c.summary.as_str()))
        .collect()
}

#[test]
fn resizing_within_the_hotplug_limits_applies_live_with_or_without_inputs() {
    let dir = case_dir("resize-within-limits");
    // The reports alone.
    let base = check::run(&options(&dir.join("base"))).unwrap();
    let head = check::run(&options(&dir.join("head"))).unwrap();
    let alone = diff::diff(&base, &head);
    for diff in [&alone, &compare("resize-within-limits")] {
        let web = vm(diff, "web");
        assert_eq!(
            (web.namespace.as_str(), web.status),
            ("apps", VmStatus::Changed)
        );
        assert_eq!(
            summary(web),
            [
                (Aspect::Instancetype, "u1.medium → u1.large"),
                (Aspect::Cpu, "1 → 2 (sockets×cores×threads 1×1×1 → 2×1×1)"),
                (Aspect::Memory, "guest 4Gi → 8Gi"),
            ]
        );
        assert_eq!(web.effect.kind, EffectKind::LiveUpdate, "{:?}", web.effect);
        assert!(
            web.diff
                .contains("-          sockets: 1\n+          sockets: 2\n")
        );
        // The same warnings on both sides are neither introduced nor fixed.
        assert!(diff.introduced.is_empty(), "{:?}", diff.introduced);
        assert!(diff.fixed.is_empty(), "{:?}", diff.fixed);
        assert!(!diff.fails(Some(Severity::Info)));
        assert!(diff.objects.is_empty());
    }
    // Limits the instance type sets allow more than KubeVirt's defaults (4 × 1 socket, 4 × 4Gi).
    let diff = compare("resize-within-limits");
    let explicit = vm(&diff, "explicit");
    assert_eq!(
        explicit.effect.kind,
        EffectKind::LiveUpdate,
        "{:?}",
        explicit.effect
    );
    assert_eq!(
        explicit.effect.details[1..],
        [
            "CPU sockets 1 → 6 (vCPUs 1 → 6); maxSockets 6 (set by the VM or its instance type)",
            "guest memory 4Gi → 20Gi; maxGuest 24Gi (set by the VM or its instance type)",
        ]
    );
}

#[test]
fn older_releases_stage_every_change_and_up_to_v1_4_keep_the_revision_name_they_wrote() {
    let dir = case_dir("resize-within-limits");
    let run = |version: &str| {
        let output = kvlint(
            Path::new("."),
            &[
                "diff",
                &dir.join("base").to_string_lossy(),
                &dir.join("head").to_string_lossy(),
                "--kubevirt-version",
                version,
                "--format",
                "json",
            ],
        );
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        (output.status.code(), json)
    };
    let (code, json) = run("v1.5");
    assert_eq!(code, Some(0));
    assert_eq!(json["rollout"], "Stage");
    assert_eq!(json["vms"][1]["effect"]["kind"], "restart-required");
    // Up to v1.4 the controller wrote revisionName into the live spec; an apply that does not
    // mention it keeps it, so renaming the instance type alone is refused.
    let (code, json) = run("v1.4");
    assert_eq!(code, Some(1));
    assert_eq!(json["vms"][1]["effect"]["kind"], "rejected");
    assert!(
        json["vms"][1]["effect"]["details"][1]
            .as_str()
            .unwrap()
            .starts_with("KubeVirt v1.4 wrote spec.instancetype.revisionName into the live VM"),
        "{json}"
    );
    let (_, json) = run("v1.1");
    assert_eq!(
        json["assumptions"][1],
        "Stage rollout (KubeVirt before v1.2 has no vmRolloutStrategy and behaves so; target KubeVirt v1.1)"
    );
}

#[test]
fn resizing_beyond_the_hotplug_limits_needs_a_restart_and_lists_every_refused_part() {
    let diff = compare("resize-beyond-limits");
    let sockets = vm(&diff, "sockets");
    assert_eq!(sockets.effect.kind, EffectKind::RestartRequired);
    assert_eq!(
        sockets.effect.message,
        "needs a restart (RestartRequired: CPU sockets updated in template spec to a value higher than what's available)"
    );
    assert_eq!(
        sockets.effect.details,
        [
            "CPU sockets 1 → 8 (vCPUs 1 → 8); maxSockets 4 (4 × the base sockets)",
            "guest memory 4Gi → 32Gi; maxGuest 16Gi (4 × the base guest memory)",
        ]
    );
    let memory = vm(&diff, "memory");
    assert_eq!(
        memory.effect.message,
        "needs a restart (RestartRequired: memory hotplug not supported, Guest memory is greater than the configured maxGuest memory)"
    );
    // Restarts are no failure.
    assert!(!diff.fails(Some(Severity::Info)));
}

#[test]
fn a_shared_instance_type_change_lists_its_vms_which_keep_their_revision() {
    let diff = compare("shared-instancetype");
    assert_eq!(diff.objects.len(), 1, "{:?}", diff.objects);
    let shared = &diff.objects[0];
    assert_eq!(shared.status, VmStatus::Changed);
    assert_eq!(shared.file, "instancetypes.yaml");
    let users: Vec<(&str, Relation)> = shared
        .used_by
        .iter()
        .map(|u| (u.name.as_str(), u.relation))
        .collect();
    assert_eq!(
        users,
        [
            ("a", Relation::KeepsRevision),
            ("b", Relation::KeepsRevision),
            ("c", Relation::NewVm),
            ("switcher", Relation::Switches),
        ]
    );
    for name in ["a", "b"] {
        assert_eq!(vm(&diff, name).effect.kind, EffectKind::KeepsRevision);
    }
    assert_eq!(vm(&diff, "c").effect.kind, EffectKind::Created);
    assert_eq!(vm(&diff, "switcher").effect.kind, EffectKind::LiveUpdate);
    assert_eq!(vm(&diff, "other").status, VmStatus::Unchanged);
}

#[test]
fn renaming_the_instance_type_while_the_revision_name_stays_is_rejected() {
    let diff = compare("rename-with-revision-name");
    let pinned = vm(&diff, "pinned");
    assert_eq!(
        pinned.effect.kind,
        EffectKind::Rejected,
        "{:?}",
        pinned.effect
    );
    assert_eq!(
        pinned.effect.message,
        "rejected: the Matcher Name has been updated without updating the RevisionName"
    );
    // Clearing it in the same change is the documented switch; the stored revision is the
    // cluster's, so kvlint cannot tell what the running VM gets.
    let cleared = vm(&diff, "cleared");
    assert_eq!(
        cleared.effect.kind,
        EffectKind::Undetermined,
        "{:?}",
        cleared.effect
    );
    assert!(diff.fails(Some(Severity::Error)));
    assert!(!diff.fails(None));
}

#[test]
fn switching_the_preference_lists_the_fields_it_changes() {
    let diff = compare("switch-preference");
    let web = vm(&diff, "web");
    assert_eq!(
        summary(web),
        [
            (Aspect::Preference, "fedora → rhel.9"),
            (
                Aspect::Devices,
                "devices.disks[0].dedicatedIOThread (none) → true"
            ),
        ]
    );
    assert_eq!(web.effect.kind, EffectKind::RestartRequired);
    let win = vm(&diff, "win");
    let aspects: Vec<Aspect> = win.changes.iter().map(|c| c.aspect).collect();
    assert_eq!(
        aspects,
        [
            Aspect::Preference,
            Aspect::Devices,
            Aspect::Firmware,
            Aspect::Annotations,
            Aspect::Other
        ]
    );
    assert_eq!(
        summary(win)[2].1,
        "bootloader EFI with secure boot → EFI with secure boot, persistent"
    );
    assert!(
        summary(win)[4]
            .1
            .starts_with("domain.clock.timer.hpet.present (none) → false; "),
        "{:?}",
        summary(win)
    );
}

// ---------------------------------------------------------------------------------------------
// Git repositories

/// A temporary git repository; git runs without the caller's repository environment.
struct GitRepo(tempfile::TempDir);

impl GitRepo {
    fn init() -> Self {
        let repo = Self(tempfile::tempdir().unwrap());
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    /// Runs git in the repository, asserts success and returns standard output.
    fn git(&self, args: &[&str]) -> String {
        common::git(self.path(), args)
    }

    fn write(&self, file: &str, text: &str) {
        let path = self.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Replaces the files of `to` with those of the directory `from`.
    fn copy(&self, from: &Path, to: &str) {
        let target = self.path().join(to);
        if target.exists() {
            std::fs::remove_dir_all(&target).unwrap();
        }
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let text = std::fs::read_to_string(entry.path()).unwrap();
            self.write(
                &format!("{to}/{}", entry.file_name().to_string_lossy()),
                &text,
            );
        }
    }

    fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }
}

/// Two commits: `apps/vms/a.yaml` changed and `b.yaml` added, export-ignore on every YAML
/// file, then a staged and an unstaged edit.
fn repository_with_local_edits() -> GitRepo {
    let repo = GitRepo::init();
    repo.write("apps/vms/a.yaml", "first\n");
    repo.write(".gitattributes", "*.yaml export-ignore\n");
    repo.commit_all("one");
    repo.write("apps/vms/a.yaml", "second\n");
    repo.write("apps/vms/b.yaml", "new\n");
    repo.commit_all("two");
    repo.write("apps/vms/a.yaml", "third\n");
    repo.git(&["add", "apps/vms/a.yaml"]);
    repo.write("apps/vms/a.yaml", "fourth\n");
    repo
}

/// The files a side of `kvlint diff` reads from `revision`, for `path` given in `dir`.
fn revision_files(dir: &Path, revision: &str, path: &str) -> Option<Vec<(String, String)>> {
    let revision = resolve_in(dir, revision).unwrap();
    let mut options = options(dir);
    options.selection.paths = vec![PathBuf::from(path)];
    let side = revision.side(&options).unwrap()?;
    Some(
        side.inputs
            .iter()
            .map(|input| {
                let text = kvlint::source::read(input).unwrap();
                (input.display().to_string(), text)
            })
            .collect(),
    )
}

#[test]
fn a_revision_is_read_without_touching_the_working_tree_or_index() {
    let repo = repository_with_local_edits();
    let status_before = repo.git(&["status", "--porcelain"]);
    let apps = repo.path().join("apps");
    let revision = resolve_in(&apps, "HEAD~1").unwrap();
    assert_eq!(revision.revision(), "HEAD~1");
    assert_eq!(revision.commit().len(), 40);
    assert_eq!(
        revision_files(&apps, "HEAD~1", "vms"),
        Some(vec![("vms/a.yaml".to_owned(), "first\n".to_owned())]),
        "export-ignore does not hide files; names are relative to the directory"
    );
    assert_eq!(
        revision_files(&apps, "HEAD~1", ".").unwrap()[0].0,
        "vms/a.yaml"
    );
    assert_eq!(revision_files(&apps, "HEAD~1", "vms/b.yaml"), None);
    assert_eq!(
        revision_files(&apps, "HEAD", "vms/b.yaml"),
        Some(vec![("vms/b.yaml".to_owned(), "new\n".to_owned())])
    );
    assert!(matches!(
        revision.locate(Path::new("../..")),
        Err(Error::Usage(_))
    ));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("apps/vms/a.yaml")).unwrap(),
        "fourth\n"
    );
    assert_eq!(status_before, repo.git(&["status", "--porcelain"]));
}

#[test]
fn unknown_revisions_and_non_repositories_are_usage_errors() {
    let repo = repository_with_local_edits();
    let err = resolve_in(repo.path(), "no-such-branch").unwrap_err();
    assert!(
        matches!(&err, Error::Usage(m) if m.contains("unknown git revision `no-such-branch`")),
        "{err}"
    );
    let err = resolve_in(repo.path(), "--output=x").unwrap_err();
    assert!(matches!(err, Error::Usage(_)));
    let plain = tempfile::tempdir().unwrap();
    let err = resolve_in(plain.path(), "HEAD").unwrap_err();
    assert!(
        matches!(&err, Error::Usage(m) if m.contains("not inside a git repository")),
        "{err}"
    );
    let output = kvlint(plain.path(), &["diff", "--base", "HEAD~1"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

/// The VM `apps/web` of `kvlint diff --format json` output.
fn web_json(output: &Output) -> serde_json::Value {
    assert!(output.status.success(), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    json["vms"]
        .as_array()
        .and_then(|vms| vms.iter().find(|vm| vm["name"] == "web"))
        .cloned()
        .expect("apps/web is in the diff")
}

#[test]
fn diff_base_head_1_in_a_real_repository() {
    let case = std::fs::canonicalize(case_dir("resize-within-limits")).unwrap();
    let repo = GitRepo::init();
    repo.copy(&case.join("base"), "vms");
    repo.write("README.md", "not a manifest\n");
    repo.commit_all("base");
    repo.copy(&case.join("head"), "vms");
    repo.commit_all("head");

    let output = kvlint(repo.path(), &["diff", "--base", "HEAD~1"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = stdout(&output);
    insta::assert_snapshot!("git-base-head-1", text);

    // The working tree is the head side: an uncommitted edit shows...
    let head_vm = std::fs::read_to_string(repo.path().join("vms/web.yaml")).unwrap();
    repo.write("vms/web.yaml", &head_vm.replace("u1.large", "u1.2xlarge"));
    let output = kvlint(
        repo.path(),
        &["diff", "--base", "HEAD~1", "--format", "json", "vms"],
    );
    let web = web_json(&output);
    assert_eq!(web["base"]["file"], "vms/web.yaml");
    assert_eq!(web["head"]["file"], "vms/web.yaml");
    assert_eq!(web["head_matchers"]["instancetype"]["name"], "u1.2xlarge");
    assert_eq!(web["effect"]["kind"], "restart-required");
    // ...unless --head names a revision; neither touches the working tree.
    let output = kvlint(
        repo.path(),
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json",
        ],
    );
    let web = web_json(&output);
    assert_eq!(web["head_matchers"]["instancetype"]["name"], "u1.large");
    assert_eq!(web["effect"]["kind"], "live-update");
    assert_eq!(
        std::fs::read_to_string(repo.path().join("vms/web.yaml")).unwrap(),
        head_vm.replace("u1.large", "u1.2xlarge")
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), " M vms/web.yaml\n");
}

/// A VirtualMachinePool whose selector changes between the base and the head commit.
const POOL: &str = "\
apiVersion: pool.kubevirt.io/v1beta1
kind: VirtualMachinePool
metadata:
  name: web
  namespace: apps
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  virtualMachineTemplate:
    metadata:
      labels:
        app: web
        tier: front
    spec:
      runStrategy: Always
      template:
        spec:
          domain:
            memory:
              guest: 1Gi
            devices: {}
";

/// `kvlint diff` of the last commit in `repo`, which must exit 1: its JSON report.
fn last_commit_diff_with_findings(repo: &GitRepo) -> serde_json::Value {
    let output = kvlint(
        repo.path(),
        &[
            "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "json",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn changing_a_pool_s_selector_is_rejected_as_kubevirt_s_pool_validator_does() {
    let repo = GitRepo::init();
    repo.write("pools/web.yaml", POOL);
    repo.commit_all("base");
    // Both selectors match the template: only the update rule refuses the head.
    repo.write(
        "pools/web.yaml",
        &POOL.replace(
            "      app: web\n  virtualMachineTemplate",
            "      tier: front\n  virtualMachineTemplate",
        ),
    );
    repo.commit_all("head");

    let json = last_commit_diff_with_findings(&repo);
    let web = &json["vms"][0];
    assert_eq!(web["name"], "web", "{json:#}");
    assert_eq!(web["effect"]["kind"], "rejected", "{json:#}");
    assert_eq!(
        web["effect"]["message"],
        "rejected: selector is immutable after creation."
    );
    assert_eq!(json["counts"]["rejected"], 1);

    // A head that only scales the pool keeps its selector and is accepted.
    repo.write(
        "pools/web.yaml",
        &POOL.replace("replicas: 2", "replicas: 3"),
    );
    repo.commit_all("scaled");
    let output = kvlint(
        repo.path(),
        &[
            "diff", "--base", "HEAD~2", "--head", "HEAD", "--format", "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_ne!(json["vms"][0]["effect"]["kind"], "rejected", "{json:#}");
}

#[test]
fn a_pool_whose_vms_only_are_refused_is_admitted_but_cannot_start() {
    let repo = GitRepo::init();
    repo.write("pools/web.yaml", POOL);
    repo.commit_all("base");
    // The head takes an instance type that also sets the memory the template sets: the pool
    // validator stores the pool, the VM validator refuses each of its VMs.
    let head = POOL.replace(
        "      runStrategy: Always\n",
        "      runStrategy: Always\n      instancetype:\n        name: small\n",
    );
    repo.write(
        "pools/web.yaml",
        &format!("{}{head}", common::SMALL_CLUSTER_INSTANCETYPE),
    );
    repo.commit_all("head");

    let json = last_commit_diff_with_findings(&repo);
    let web = &json["vms"][0];
    assert_eq!(web["name"], "web", "{json:#}");
    assert_eq!(web["effect"]["kind"], "cannot-start", "{json:#}");
    assert_eq!(
        web["effect"]["message"],
        "admitted, but cannot start: every VM the pool creates is refused: VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type"
    );
}
