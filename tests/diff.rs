//! `kvlint diff` end to end: both sides checked with the built-in catalog, then compared.

use std::path::Path;
use std::process::Command;

use kvlint::check::{self, Options, Report};
use kvlint::config::ConfigChoice;
use kvlint::diff::{self, Aspect, Diff, EffectKind, Inputs, Relation, VmStatus};
use kvlint::source::Selection;

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
  namespace: apps
spec:
  runStrategy: Always
  instancetype:
    name: INSTANCETYPE
  preference:
    name: fedora
  template:
    spec:
      domain:
        devices: {}
      volumes:
      - name: root
        containerDisk:
          image: quay.io/containerdisks/fedora:40
";

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

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Checks a directory; its files are renamed to `label/...` so both sides compare.
fn side(dir: &Path) -> (Report, Inputs) {
    let options = options(dir);
    let mut report = check::run(&options).expect("check runs");
    let mut inputs = diff::load_inputs(&options).expect("inputs load");
    let from = format!("{}/", dir.display());
    diff::relabel(&mut report, &from, "");
    inputs.relabel(&from, "");
    (report, inputs)
}

fn compare(base: &Path, head: &Path) -> Diff {
    let (base_report, base_inputs) = side(base);
    let (head_report, head_inputs) = side(head);
    diff::diff_with(&base_report, &base_inputs, &head_report, &head_inputs)
}

#[test]
fn switching_u1_medium_to_u1_large_is_summarised_and_applied_live() {
    let base = tempfile::tempdir().unwrap();
    let head = tempfile::tempdir().unwrap();
    write(
        base.path(),
        "vm.yaml",
        &VM.replace("INSTANCETYPE", "u1.medium"),
    );
    write(
        head.path(),
        "vm.yaml",
        &VM.replace("INSTANCETYPE", "u1.large"),
    );

    // The reports alone.
    let base_report = check::run(&options(base.path())).unwrap();
    let head_report = check::run(&options(head.path())).unwrap();
    let diff = diff::diff(&base_report, &head_report);
    let web = &diff.vms[0];
    assert_eq!((web.namespace.as_str(), web.name.as_str()), ("apps", "web"));
    assert_eq!(web.status, VmStatus::Changed);
    let summary: Vec<(Aspect, &str)> = web
        .changes
        .iter()
        .map(|c| (c.aspect, c.summary.as_str()))
        .collect();
    assert!(
        summary.contains(&(Aspect::Instancetype, "u1.medium → u1.large")),
        "{summary:?}"
    );
    assert!(
        summary.contains(&(Aspect::Cpu, "1 → 2 (sockets×cores×threads 1×1×1 → 2×1×1)")),
        "{summary:?}"
    );
    assert!(
        summary.contains(&(Aspect::Memory, "guest 4Gi → 8Gi")),
        "{summary:?}"
    );
    assert_eq!(web.effect.kind, EffectKind::LiveUpdate, "{:?}", web.effect);
    assert!(
        web.diff
            .contains("-          sockets: 1\n+          sockets: 2\n"),
        "{}",
        web.diff
    );
    assert!(
        web.diff
            .contains("-          guest: 4Gi\n+          guest: 8Gi\n"),
        "{}",
        web.diff
    );
    // The same warnings on both sides are neither introduced nor fixed.
    assert!(diff.introduced.is_empty(), "{:?}", diff.introduced);
    assert!(diff.fixed.is_empty(), "{:?}", diff.fixed);
    assert!(!diff.fails(Some(kvlint::diag::Severity::Warning)));

    let text = diff::text(&diff);
    assert!(
        text.contains("instance type  u1.medium → u1.large"),
        "{text}"
    );
    assert!(text.contains("vCPUs          1 → 2"), "{text}");
    assert!(text.contains("memory         guest 4Gi → 8Gi"), "{text}");
    assert!(
        text.contains("KubeVirt       applied live (LiveUpdate)"),
        "{text}"
    );
    assert!(
        text.contains("assumes the live VM was created from the base revision and is running; LiveUpdate rollout (KubeVirt v1.6+ default; target KubeVirt v1.9)"),
        "{text}"
    );
    let markdown = diff::markdown(&diff);
    assert!(
        markdown.contains("- **instance type**: u1.medium → u1.large"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "<summary><code>apps/web</code> changed: applied live (LiveUpdate)</summary>"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("```diff\n--- a/apps/web\n+++ b/apps/web\n"),
        "{markdown}"
    );
    let json: serde_json::Value = serde_json::from_str(&diff::json(&diff)).unwrap();
    assert_eq!(
        json["vms"][0]["head_matchers"]["instancetype"]["name"],
        "u1.large"
    );
    assert_eq!(json["counts"]["live_update"], 1);

    // With the inputs as well: the same verdict.
    let diff = compare(base.path(), head.path());
    assert_eq!(diff.vms[0].effect.kind, EffectKind::LiveUpdate);
    assert!(diff.objects.is_empty());
}

const TYPE: &str = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: shared
  namespace: apps
spec:
  cpu:
    guest: GUEST
  memory:
    guest: 2Gi
";

fn vm_using(name: &str, instancetype: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {name}
  namespace: apps
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineInstancetype
    name: {instancetype}
  template:
    spec:
      domain:
        devices: {{}}
"
    )
}

#[test]
fn a_shared_instance_type_change_lists_its_vms_which_keep_their_revision() {
    let base = tempfile::tempdir().unwrap();
    let head = tempfile::tempdir().unwrap();
    write(base.path(), "types.yaml", &TYPE.replace("GUEST", "1"));
    write(head.path(), "types.yaml", &TYPE.replace("GUEST", "2"));
    for dir in [base.path(), head.path()] {
        write(dir, "a.yaml", &vm_using("a", "shared"));
        write(dir, "b.yaml", &vm_using("b", "shared"));
    }
    write(head.path(), "c.yaml", &vm_using("c", "shared"));
    let diff = compare(base.path(), head.path());

    assert_eq!(diff.objects.len(), 1, "{:?}", diff.objects);
    let shared = &diff.objects[0];
    assert_eq!(shared.status, VmStatus::Changed);
    assert_eq!(shared.file, "types.yaml");
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
            ("c", Relation::NewVm)
        ]
    );
    for name in ["a", "b"] {
        let vm = diff.vms.iter().find(|vm| vm.name == name).unwrap();
        assert_eq!(
            vm.effect.kind,
            EffectKind::KeepsRevision,
            "{name}: {:?}",
            vm.effect
        );
    }
    let c = diff.vms.iter().find(|vm| vm.name == "c").unwrap();
    assert_eq!(
        (c.status, c.effect.kind),
        (VmStatus::Added, EffectKind::Created)
    );
    let text = diff::text(&diff);
    assert!(
        text.contains("note: existing VMs keep their stored ControllerRevision: only new VMs, and VMs that switch to it, see the new values"),
        "{text}"
    );
}

#[test]
fn renaming_the_instance_type_while_the_revision_name_stays_is_rejected() {
    let base = tempfile::tempdir().unwrap();
    let head = tempfile::tempdir().unwrap();
    let pinned = |name: &str| {
        VM.replace("INSTANCETYPE", name).replace(
            "  preference:\n",
            "    revisionName: web-u1.medium-1\n  preference:\n",
        )
    };
    write(base.path(), "vm.yaml", &pinned("u1.medium"));
    write(head.path(), "vm.yaml", &pinned("u1.large"));
    let diff = compare(base.path(), head.path());
    let web = &diff.vms[0];
    assert_eq!(web.effect.kind, EffectKind::Rejected, "{:?}", web.effect);
    assert_eq!(
        web.effect.message,
        "rejected: the Matcher Name has been updated without updating the RevisionName"
    );
    assert!(diff.fails(Some(kvlint::diag::Severity::Error)));
}

fn git(dir: &Path, args: &[&str]) {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=kvlint test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
}

#[test]
fn base_from_the_previous_commit_of_a_real_repository() {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    write(
        repo.path(),
        "vms/vm.yaml",
        &VM.replace("INSTANCETYPE", "u1.medium"),
    );
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "base"]);
    write(
        repo.path(),
        "vms/vm.yaml",
        &VM.replace("INSTANCETYPE", "u1.large"),
    );
    git(repo.path(), &["commit", "-q", "-am", "head"]);

    // `kvlint diff --base HEAD~1 vms` from the repository's top level.
    let tree = kvlint::git_tree::materialise_in(repo.path(), "HEAD~1").unwrap();
    let mapped = tree.map(Path::new("vms")).unwrap();
    assert!(mapped.exists);
    let base_options = options(&mapped.path);
    let mut base_report = check::run(&base_options).unwrap();
    let mut base_inputs = diff::load_inputs(&base_options).unwrap();
    diff::relabel(&mut base_report, &mapped.display_from, &mapped.display_to);
    base_inputs.relabel(&mapped.display_from, &mapped.display_to);
    let head_dir = repo.path().join("vms");
    let head_options = options(&head_dir);
    let mut head_report = check::run(&head_options).unwrap();
    let mut head_inputs = diff::load_inputs(&head_options).unwrap();
    let head_display = head_dir.to_string_lossy().into_owned();
    diff::relabel(&mut head_report, &head_display, "vms");
    head_inputs.relabel(&head_display, "vms");

    let diff = diff::diff_with(&base_report, &base_inputs, &head_report, &head_inputs);
    assert_eq!(diff.vms[0].head.as_ref().unwrap().file, "vms/vm.yaml");
    assert_eq!(diff.vms[0].base.as_ref().unwrap().file, "vms/vm.yaml");
    assert_eq!(diff.vms[0].effect.kind, EffectKind::LiveUpdate);
    assert!(diff.introduced.is_empty(), "{:?}", diff.introduced);
    assert_eq!(
        std::fs::read_to_string(head_dir.join("vm.yaml")).unwrap(),
        VM.replace("INSTANCETYPE", "u1.large"),
        "the working tree is untouched"
    );
}
