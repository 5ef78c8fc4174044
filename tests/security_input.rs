//! What kvlint reads: paths from the command line and from `.kvlint.yaml`, symlinks, special
//! files, standard input, ignore files and configuration discovery (issue 20, items 7, 8 and
//! 14). Every input is generated here; every run must end, with the safe outcome, in under two
//! seconds of wall time.
#![cfg(unix)]

use crate::common;

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Each run's bound (a debug build).
const BOUND: Duration = Duration::from_secs(2);
/// The bound of the run that pipes 256 MiB into standard input: the copy alone takes a debug
/// build about two seconds on the 2-core reference machine.
const STDIN_BOUND: Duration = Duration::from_secs(10);

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: NAME
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        devices: {}
";

const KUBECONFIG: &str = "apiVersion: v1
kind: Config
users:
- name: admin
  user:
    token: SECRET-TOKEN-1234
";

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {} / {}", self.stdout, self.stderr))
    }

    /// (file, line, column, code) of the input and configuration findings (KV00xx) of a JSON
    /// report; the witness VM's drift warnings are left out.
    fn findings(&self) -> Vec<(String, u64, u64, String)> {
        self.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["file"].as_str().unwrap().to_owned(),
                    d["line"].as_u64().unwrap(),
                    d["column"].as_u64().unwrap(),
                    d["code"].as_str().unwrap().to_owned(),
                )
            })
            .filter(|finding| finding.3.starts_with("KV00"))
            .collect()
    }

    fn files(&self) -> u64 {
        self.json()["summary"]["files"].as_u64().unwrap()
    }

    fn messages(&self) -> String {
        self.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs kvlint in `dir`, feeding standard input from `stdin` (on its own thread) when given;
/// kills it past ten times the bound and asserts it ended within the bound.
fn kvlint_with_stdin(
    dir: &Path,
    args: &[&str],
    stdin: Option<Box<dyn FnOnce(std::process::ChildStdin) + Send>>,
    bound: Duration,
) -> Run {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(dir)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = stdin.map(|feed| {
        let pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || feed(pipe))
    });
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let read_all = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let (out, err) = (read_all(Box::new(out)), read_all(Box::new(err)));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > bound * 10 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kvlint {args:?} did not end within {:?}", bound * 10);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = started.elapsed();
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    let run = Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(
        elapsed < bound,
        "kvlint {args:?} took {elapsed:?} (bound {bound:?})"
    );
    run
}

fn kvlint(dir: &Path, args: &[&str]) -> Run {
    kvlint_with_stdin(dir, args, None, BOUND)
}

fn write(path: impl AsRef<Path>, text: &str) -> PathBuf {
    let path = path.as_ref();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn vm(name: &str) -> String {
    VM.replace("NAME", name)
}

/// A directory holding `.git` (enough for kvlint to see a repository) and one VM.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(dir.path().join("apps/vm.yaml"), &vm("witness"));
    dir
}

// Item 7: paths in .kvlint.yaml stay in the repository; --catalog walks are bounded; a broken
// catalog file is a finding.

#[test]
fn a_configured_catalog_outside_the_repository_is_kv0019_and_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(
        outside.path().join("bundle/a.yaml"),
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: outside\nspec: [broken\n",
    );
    let repo = repository();
    symlink(outside.path().join("bundle"), repo.path().join("linked")).unwrap();
    let outside_name = outside.path().file_name().unwrap().to_str().unwrap();
    for (catalog, column) in [
        ("/".to_owned(), 10),
        (outside.path().join("bundle").display().to_string(), 10),
        (format!("../{outside_name}/bundle"), 10),
        ("linked".to_owned(), 10),
    ] {
        write(
            repo.path().join(".kvlint.yaml"),
            &format!("namespace: apps\ncatalog: {catalog}\n"),
        );
        let run = kvlint(repo.path(), &["check", "apps", "--format", "json"]);
        assert_eq!(run.code, Some(1), "{catalog}: {}", run.stderr);
        let findings = run.findings();
        assert!(
            findings.contains(&(".kvlint.yaml".to_owned(), 2, column, "KV0019".to_owned())),
            "{catalog}: {findings:?}"
        );
        assert!(
            findings.iter().all(|(file, ..)| !file.contains("bundle")),
            "{catalog}: a file outside the repository was read: {findings:?}"
        );
    }
    // Inside the repository the same bundle is read, and its syntax error is a finding.
    std::fs::rename(outside.path().join("bundle"), repo.path().join("bundle")).unwrap();
    write(repo.path().join(".kvlint.yaml"), "catalog: bundle\n");
    let run = kvlint(repo.path(), &["check", "apps", "--format", "json"]);
    assert!(
        run.findings()
            .contains(&("bundle/a.yaml".to_owned(), 5, 14, "KV0001".to_owned())),
        "{:?}",
        run.findings()
    );
}

#[test]
fn a_syntax_error_in_a_command_line_catalog_is_a_finding() {
    let repo = repository();
    write(
        repo.path().join("catalog/good.yaml"),
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineClusterInstancetype\nmetadata:\n  name: good\nspec:\n  cpu:\n    guest: 1\n  memory:\n    guest: 1Gi\n",
    );
    write(
        repo.path().join("catalog/bad.yaml"),
        "apiVersion: v1\nkind: x\n  bad: indentation\n",
    );
    write(repo.path().join("catalog/binary.yaml"), "a: \0\n");
    let run = kvlint(
        repo.path(),
        &["check", "apps", "--catalog", "catalog", "--format", "json"],
    );
    let findings = run.findings();
    assert!(
        findings
            .iter()
            .any(|(f, l, _, c)| f == "catalog/bad.yaml" && *l == 3 && c == "KV0001"),
        "{findings:?}"
    );
    assert!(
        findings.contains(&("catalog/binary.yaml".to_owned(), 1, 4, "KV0005".to_owned())),
        "{findings:?}"
    );
    assert_eq!(run.code, Some(1));
}

#[test]
fn a_command_line_catalog_walk_is_bounded() {
    let repo = repository();
    // A tree of more entries than the walk visits (none of them a manifest), built here: a walk
    // of `/` changes with the machine.
    let wide = repo.path().join("wide");
    for dir in 0..100 {
        std::fs::create_dir_all(wide.join(format!("d{dir}"))).unwrap();
        for file in 0..100 {
            std::fs::write(wide.join(format!("d{dir}/f{file}.txt")), "").unwrap();
        }
    }
    let run = kvlint(repo.path(), &["check", "apps", "--catalog", "wide"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("more than 10000 entries; the walk stopped"),
        "{}",
        run.stderr
    );

    let deep: PathBuf = (0..20).map(|i| format!("d{i}")).collect();
    write(repo.path().join("deep").join(deep).join("a.yaml"), "a: 1\n");
    let run = kvlint(repo.path(), &["check", "apps", "--catalog", "deep"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("nested deeper than 16"),
        "{}",
        run.stderr
    );

    for i in 0..2_001 {
        write(repo.path().join(format!("many/{i}.yaml")), "a: 1\n");
    }
    let run = kvlint(repo.path(), &["check", "apps", "--catalog", "many"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("more than 2000 manifest files"),
        "{}",
        run.stderr
    );
}

// Item 8: symlinks given on the command line.

#[test]
fn a_given_symlink_out_of_the_working_directory_is_not_read() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = write(home.path().join(".kube/config"), KUBECONFIG);
    write(home.path().join(".kube/vm.yaml"), &vm("outside"));
    let repo = repository();
    symlink(&kubeconfig, repo.path().join("apps/x.yaml")).unwrap();
    symlink(home.path().join(".kube"), repo.path().join("apps/kube")).unwrap();
    symlink("vm.yaml", repo.path().join("apps/inside.yaml")).unwrap();
    for args in [
        ["apps/x.yaml", "apps/vm.yaml"],
        ["apps/kube", "apps/vm.yaml"],
        ["apps/kube/config", "apps/vm.yaml"],
    ] {
        let human = kvlint(
            repo.path(),
            &["check", args[0], args[1], "--color", "never"],
        );
        assert!(
            !human.stdout.contains("SECRET") && !human.stderr.contains("SECRET"),
            "{args:?}: {}",
            human.stdout
        );
        let run = kvlint(
            repo.path(),
            &["check", args[0], args[1], "--format", "json"],
        );
        assert_eq!(
            run.findings()
                .iter()
                .filter(|f| f.3 == "KV0005")
                .map(|f| (f.0.as_str(), f.1, f.2))
                .collect::<Vec<_>>(),
            [(args[0], 1, 1)],
            "{args:?}"
        );
        assert!(
            run.messages().contains("not followed"),
            "{}",
            run.messages()
        );
        assert_eq!(run.code, Some(1));
    }
    // A symlink that stays in the working directory is read, under its own name.
    let run = kvlint(
        repo.path(),
        &["check", "apps/inside.yaml", "--format", "json"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.json()["summary"]["vms"], 1);
    // A path outside the working directory is the user's own choice.
    let run = kvlint(
        repo.path(),
        &[
            "check",
            home.path().join(".kube/vm.yaml").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(run.json()["summary"]["vms"], 1, "{}", run.stdout);
}

// Item 14: silent passes.

#[test]
fn devices_and_fifos_given_explicitly_are_findings_and_never_block() {
    let repo = repository();
    let fifo = repo.path().join("apps/pipe.yaml");
    common::mkfifo(&fifo);
    for path in ["/dev/zero", "/dev/urandom", "apps/pipe.yaml"] {
        let run = kvlint(
            repo.path(),
            &["check", path, "apps/vm.yaml", "--format", "json"],
        );
        assert_eq!(run.code, Some(1), "{path}: {}", run.stderr);
        assert_eq!(
            run.findings(),
            [(path.to_owned(), 1, 1, "KV0005".to_owned())],
            "{path}"
        );
        assert!(run.messages().contains("not a regular file"), "{path}");
        assert_eq!(run.json()["summary"]["vms"], 1, "the rest is still checked");
    }
}

#[test]
fn standard_input_is_read_up_to_the_file_limit() {
    let repo = repository();
    let endless: Box<dyn FnOnce(std::process::ChildStdin) + Send> = Box::new(|mut pipe| {
        let chunk = vec![b'#'; 1 << 20];
        // Ends when kvlint closes the pipe.
        while pipe.write_all(&chunk).is_ok() {}
    });
    let run = kvlint_with_stdin(
        repo.path(),
        &["check", "-", "--format", "json"],
        Some(endless),
        STDIN_BOUND,
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        run.findings(),
        [("<stdin>".to_owned(), 1, 1, "KV0005".to_owned())]
    );
    assert!(
        run.messages()
            .contains("standard input is larger than 256 MiB"),
        "{}",
        run.messages()
    );
}

#[test]
fn only_gitignore_inside_the_repository_hides_files_and_tracked_files_are_checked() {
    let top = tempfile::tempdir().unwrap();
    // Above the repository: neither applies.
    write(top.path().join(".gitignore"), "*.yaml\n");
    let repo = top.path().join("repo");
    write(repo.join("apps/vm.yaml"), &vm("a"));
    common::git(&repo, &["init", "-q"]);
    // `.ignore` is not git's: it does not apply.
    write(repo.join("apps/.ignore"), "vm.yaml\n");
    // Ignored but tracked (`git add -f`): checked, as git's ignore rules apply only to
    // untracked files; ignored and untracked: not checked.
    write(repo.join(".gitignore"), "generated/\n");
    write(repo.join("generated/tracked.yaml"), &vm("b"));
    write(repo.join("generated/untracked.yaml"), &vm("c"));
    common::git(&repo, &["add", "-f", "generated/tracked.yaml"]);
    let run = kvlint(&repo, &["check", ".", "--format", "json"]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(run.files(), 2, "{}", run.stdout);
    assert_eq!(run.json()["summary"]["vms"], 2);
}

#[test]
fn configuration_discovery_stops_at_the_repository_root() {
    let top = tempfile::tempdir().unwrap();
    write(top.path().join(".kvlint.yaml"), "namespace: [\n");
    let repo = top.path().join("repo");
    write(repo.join("apps/vm.yaml"), &vm("a"));
    std::fs::create_dir(repo.join(".git")).unwrap();
    let run = kvlint(&repo, &["check", "apps", "--format", "json"]);
    assert_eq!(
        run.code,
        Some(0),
        "the file above the repository was used: {}",
        run.stdout
    );
}

#[test]
fn a_configuration_file_owned_by_another_user_is_not_used() {
    if effective_uid() != 0 {
        // Only root can give a file to another user; as anyone else there is nothing to test.
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Not a repository: the search goes upward, where another user may have left a file.
    let config = write(dir.path().join(".kvlint.yaml"), "rules:\n  KV0014: off\n");
    write(
        dir.path().join("apps/vm.yaml"),
        &vm("a").replace("devices: {}", "devices: {}\n        bogus: 1"),
    );
    std::os::unix::fs::chown(&config, Some(4242), None).unwrap();
    let run = kvlint(dir.path(), &["check", "apps", "--format", "json"]);
    let findings = run.findings();
    assert!(
        findings.contains(&(".kvlint.yaml".to_owned(), 1, 1, "KV0019".to_owned())),
        "{findings:?}"
    );
    assert!(run.messages().contains("owned by another user"));
    assert!(
        findings.iter().any(|f| f.3 == "KV0014"),
        "the file's settings were applied: {findings:?}"
    );
}

/// The effective user id, as `id -u` prints it.
fn effective_uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn an_invalid_glob_in_the_configuration_is_kv0019_at_its_line() {
    let repo = repository();
    write(
        repo.path().join(".kvlint.yaml"),
        "exclude:\n  - charts/**\n  - '[z-a]'\n",
    );
    let run = kvlint(repo.path(), &["check", "apps", "--format", "json"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        run.findings(),
        [(".kvlint.yaml".to_owned(), 3, 5, "KV0019".to_owned())]
    );
    assert_eq!(run.json()["summary"]["vms"], 1);
}
