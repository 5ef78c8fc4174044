//! `kvlint diff --base/--head` on hostile git trees: a revision is read from git's objects into
//! memory, so no crafted tree makes kvlint write anywhere, and only the checked paths' blobs are
//! read.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use kvlint::check::Options;
use kvlint::commands::diff::revision::resolve_in;
use kvlint::config::ConfigChoice;
use kvlint::source::Selection;

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        devices: {}
        memory:
          guest: 1Gi
";

/// Runs git with `input` on standard input; returns standard output, trimmed.
fn git_in(dir: &Path, args: &[&str], input: &[u8]) -> String {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn blob(repo: &Path, bytes: &[u8]) -> String {
    git_in(repo, &["hash-object", "-w", "--stdin"], bytes)
}

/// A tree object with exactly these entries, in this order, duplicates included: what a
/// crafted repository can hold (`git fsck` would complain; `git fetch` without
/// `transfer.fsckObjects` takes it).
fn raw_tree(repo: &Path, entries: &[(&str, &str, &str)]) -> String {
    let mut bytes = Vec::new();
    for (mode, name, object) in entries {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        let binary: Vec<u8> = (0..object.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&object[i..i + 2], 16).unwrap())
            .collect();
        bytes.extend_from_slice(&binary);
    }
    git_in(
        repo,
        &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        &bytes,
    )
}

fn commit(repo: &Path, tree: &str) -> String {
    git_in(
        repo,
        &[
            "-c",
            "user.name=kvlint test",
            "-c",
            "user.email=test@example.invalid",
            "commit-tree",
            tree,
            "-m",
            "crafted",
        ],
        b"",
    )
}

fn repository() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    common::git(repo.path(), &["init", "-q", "-b", "main"]);
    repo
}

/// `kvlint diff ARGS` in `dir` with `TMPDIR` set to `tmp`, under a watchdog.
fn diff_in(dir: &Path, tmp: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kvlint"));
    command
        .arg("diff")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    common::output_within(&mut command, Duration::from_secs(60))
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn json(output: &Output) -> serde_json::Value {
    assert!(matches!(output.status.code(), Some(0 | 1)), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("JSON")
}

fn vm_files(json: &serde_json::Value, side: &str) -> Vec<String> {
    let mut files: Vec<String> = json["vms"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|vm| vm[side]["file"].as_str().map(str::to_owned))
        .collect();
    files.sort();
    files
}

#[test]
fn a_symlink_and_a_directory_of_the_same_name_write_nothing() {
    let repo = repository();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().to_str().unwrap();
    let vm = blob(repo.path(), VM.as_bytes());
    let inner = raw_tree(repo.path(), &[("100644", "pwned.yaml", &vm)]);
    let db = blob(repo.path(), VM.replace("name: web", "name: db").as_bytes());
    let other = raw_tree(repo.path(), &[("100644", "pwned.yaml", &db)]);
    let link = blob(repo.path(), target.as_bytes());
    let upper = raw_tree(
        repo.path(),
        &[
            ("120000", "A", &link),
            ("40000", "a", &inner),
            ("120000", "b", &link),
            ("40000", "b", &other),
        ],
    );
    let crafted = commit(repo.path(), &upper);

    let output = diff_in(
        repo.path(),
        &common::no_tmp(),
        &["--base", &crafted, "--head", &crafted, "--format", "json"],
    );
    let json = json(&output);
    assert!(files_under(outside.path()).is_empty(), "wrote outside");
    // Both directories are read from the objects, the links are not followed.
    assert_eq!(
        vm_files(&json, "base"),
        ["a/pwned.yaml".to_owned(), "b/pwned.yaml".to_owned()]
    );
}

#[test]
fn a_symlink_then_a_file_of_the_same_name_write_nothing() {
    let repo = repository();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.yaml");
    std::fs::write(&victim, "original\n").unwrap();
    let link = blob(repo.path(), victim.to_str().unwrap().as_bytes());
    let vm = blob(repo.path(), VM.as_bytes());
    let tree = raw_tree(
        repo.path(),
        &[("120000", "web.yaml", &link), ("100644", "web.yaml", &vm)],
    );
    let crafted = commit(repo.path(), &tree);

    let output = diff_in(
        repo.path(),
        &common::no_tmp(),
        &["--base", &crafted, "--head", &crafted, "--format", "json"],
    );
    let json = json(&output);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original\n");
    assert_eq!(files_under(outside.path()), [victim]);
    assert_eq!(vm_files(&json, "head"), ["web.yaml".to_owned()]);
}

#[test]
fn names_that_differ_in_case_are_distinct_files() {
    let repo = repository();
    let vm = blob(repo.path(), VM.as_bytes());
    let other = blob(repo.path(), VM.replace("name: web", "name: db").as_bytes());
    let upper = raw_tree(repo.path(), &[("100644", "vm.yaml", &vm)]);
    let lower = raw_tree(repo.path(), &[("100644", "vm.yaml", &other)]);
    let tree = raw_tree(
        repo.path(),
        &[("40000", "VMS", &upper), ("40000", "vms", &lower)],
    );
    let crafted = commit(repo.path(), &tree);

    let output = diff_in(
        repo.path(),
        &common::no_tmp(),
        &["--base", &crafted, "--head", &crafted, "--format", "json"],
    );
    assert_eq!(
        vm_files(&json(&output), "base"),
        ["VMS/vm.yaml".to_owned(), "vms/vm.yaml".to_owned()]
    );
}

#[test]
fn paths_into_git_or_out_of_the_tree_are_not_read() {
    let repo = repository();
    let vm = blob(repo.path(), VM.as_bytes());
    let inner = raw_tree(repo.path(), &[("100644", "x.yaml", &vm)]);
    let tree = raw_tree(
        repo.path(),
        &[
            ("40000", "..", &inner),
            ("40000", ".GIT", &inner),
            ("40000", "ok", &inner),
        ],
    );
    let crafted = commit(repo.path(), &tree);
    let output = diff_in(
        repo.path(),
        &common::no_tmp(),
        &["--base", &crafted, "--head", &crafted, "--format", "json"],
    );
    assert_eq!(vm_files(&json(&output), "base"), ["ok/x.yaml".to_owned()]);
}

fn peak_rss_kib(dir: &Path, args: &[&str]) -> Option<(u64, Output)> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let scratch = tempfile::tempdir().unwrap();
    let rss = scratch.path().join("rss");
    let output = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss)
        .arg(env!("CARGO_BIN_EXE_kvlint"))
        .arg("diff")
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", common::no_tmp())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let peak = std::fs::read_to_string(&rss)
        .ok()?
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()?;
    Some((peak, output))
}

#[test]
fn a_large_blob_outside_the_checked_path_is_never_read() {
    let repo = repository();
    std::fs::create_dir(repo.path().join("vms")).unwrap();
    std::fs::write(repo.path().join("vms/web.yaml"), VM).unwrap();
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "small"]);
    let Some((small, _)) = peak_rss_kib(repo.path(), &["--base", "HEAD", "vms"]) else {
        return;
    };
    // 50 MB that do not compress away (git stores them deflated).
    let mut big = Vec::with_capacity(50 << 20);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    while big.len() < 50 << 20 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        big.extend_from_slice(format!("k{state:016x}: v\n").as_bytes());
    }
    std::fs::write(repo.path().join("big.yaml"), &big).unwrap();
    drop(big);
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "big"]);
    std::fs::remove_file(repo.path().join("big.yaml")).unwrap();

    let (peak, output) = peak_rss_kib(repo.path(), &["--base", "HEAD", "vms"]).unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        peak < small + 20 * 1024,
        "peak RSS {peak} KiB with a 50 MB blob outside the checked path ({small} KiB without)"
    );
}

#[test]
fn no_temporary_tree_is_left_behind_even_when_terminated() {
    let repo = repository();
    std::fs::create_dir(repo.path().join("vms")).unwrap();
    for n in 0..200 {
        std::fs::write(
            repo.path().join(format!("vms/vm{n}.yaml")),
            VM.replace("name: web", &format!("name: vm{n}")),
        )
        .unwrap();
    }
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "vms"]);
    let tmp = tempfile::tempdir().unwrap();
    let output = diff_in(
        repo.path(),
        tmp.path(),
        &["--base", "HEAD", "--head", "HEAD"],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(files_under(tmp.path()).is_empty());

    for delay in [5, 20, 80] {
        common::terminate_after(
            Command::new(env!("CARGO_BIN_EXE_kvlint"))
                .args(["diff", "--base", "HEAD", "--head", "HEAD"])
                .current_dir(repo.path())
                .env("TMPDIR", tmp.path()),
            Duration::from_millis(delay),
        );
        assert!(
            files_under(tmp.path()).is_empty(),
            "left behind after SIGTERM at {delay} ms: {:?}",
            files_under(tmp.path())
        );
    }
}

fn side_options(path: &str) -> Options {
    Options {
        selection: Selection {
            paths: vec![PathBuf::from(path)],
            ..Selection::default()
        },
        config: ConfigChoice::Discover,
        ..Options::default()
    }
}

#[test]
fn a_path_given_as_a_symlink_is_a_finding_not_followed() {
    let repo = repository();
    let secret = tempfile::tempdir().unwrap();
    std::fs::write(secret.path().join("kubeconfig"), "token: secret\n").unwrap();
    std::os::unix::fs::symlink(secret.path().join("kubeconfig"), repo.path().join("x.yaml"))
        .unwrap();
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "link"]);
    let side = resolve_in(repo.path(), "HEAD")
        .unwrap()
        .side(&side_options("x.yaml"))
        .unwrap()
        .expect("the link is in the revision");
    assert!(side.inputs.is_empty());
    assert_eq!(side.findings.len(), 1);
    assert_eq!(side.findings[0].rule.code, "KV0005");
    assert_eq!(&*side.findings[0].location.file, "x.yaml");
}

#[test]
fn the_configuration_and_its_catalog_come_from_the_revision() {
    let repo = repository();
    std::fs::create_dir_all(repo.path().join("apps/vms")).unwrap();
    std::fs::write(repo.path().join("apps/vms/web.yaml"), VM).unwrap();
    std::fs::write(repo.path().join("apps/vms/skip.yaml"), VM).unwrap();
    std::fs::write(
        repo.path().join(".kvlint.yaml"),
        "namespace: from-revision\nexclude: ['**/skip.yaml']\ncatalog: /etc\n",
    )
    .unwrap();
    common::git(repo.path(), &["add", "-A"]);
    common::git(repo.path(), &["commit", "-q", "-m", "config"]);
    // The working tree's configuration differs: it must not be used.
    std::fs::write(repo.path().join(".kvlint.yaml"), "namespace: from-disk\n").unwrap();

    let side = resolve_in(repo.path(), "HEAD")
        .unwrap()
        .side(&side_options("apps"))
        .unwrap()
        .unwrap();
    let names: Vec<&str> = side.inputs.iter().map(|i| &**i.display()).collect();
    assert_eq!(names, ["apps/vms/web.yaml"]);
    let ConfigChoice::Loaded(config) = &side.options.config else {
        panic!("{:?}", side.options.config);
    };
    assert_eq!(config.namespace.as_deref(), Some("from-revision"));
    assert_eq!(config.file.as_deref(), Some(".kvlint.yaml"));
    assert_eq!(
        config.catalog, None,
        "a catalog outside the repository is not read"
    );
    let refused = &config.findings[0];
    assert_eq!(refused.rule.code, "KV0019");
    assert_eq!(refused.location.span.start.line, 3);
    assert!(refused.message.contains("not read"), "{}", refused.message);
}

#[test]
fn a_blob_over_the_file_size_limit_is_a_finding_and_never_read() {
    let repo = repository();
    let web = blob(repo.path(), VM.as_bytes());
    // One byte over the limit: a YAML comment, which git deflates to almost nothing.
    let size = usize::try_from(kvlint::source::MAX_FILE_BYTES).unwrap() + 1;
    let mut huge = vec![b'#'; size];
    huge[size - 1] = b'\n';
    let huge = blob(repo.path(), &huge);
    let vms = raw_tree(
        repo.path(),
        &[("100644", "huge.yaml", &huge), ("100644", "web.yaml", &web)],
    );
    let base = commit(
        repo.path(),
        &raw_tree(repo.path(), &[("40000", "vms", &vms)]),
    );
    std::fs::create_dir(repo.path().join("vms")).unwrap();
    std::fs::write(repo.path().join("vms/web.yaml"), VM).unwrap();

    let Some((peak, output)) = peak_rss_kib(
        repo.path(),
        &[
            "--base",
            &base,
            "vms",
            "--format",
            "json",
            "--fail-on",
            "none",
        ],
    ) else {
        return;
    };
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = json(&output);
    let fixed = report["fixed"].as_array().unwrap();
    assert!(
        fixed.iter().any(|f| f["code"] == "KV0005"
            && f["file"] == "vms/huge.yaml"
            && f["message"]
                .as_str()
                .unwrap()
                .contains("larger than 256 MiB")),
        "{fixed:?}"
    );
    assert!(peak < 150 * 1024, "peak RSS {peak} KiB: the blob was read");
}
