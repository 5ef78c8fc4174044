//! The GitHub Action (action.yml) run step by step, as a runner would: each `run` script with its
//! `env` (expressions evaluated), `if` conditions, `GITHUB_OUTPUT`, `GITHUB_PATH`,
//! `GITHUB_STEP_SUMMARY` and `GITHUB_WORKSPACE` in temporary files, a release of the kvlint under
//! test served from a local directory, and the GitHub API for the preview comment simulated by a
//! local server. Unix only: the steps are bash scripts.
#![cfg(unix)]
#![allow(clippy::print_stderr)] // a failing step's output helps to read a failure

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const PASS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/integrations/pass");
const FAIL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/integrations/fail");

fn action() -> Value {
    let text = std::fs::read_to_string(Path::new(ROOT).join("action.yml")).unwrap();
    let documents = kvlint::yaml::parse_stream(&text, kvlint::yaml::Limits::default());
    let document = documents
        .into_iter()
        .next()
        .unwrap()
        .expect("action.yml is YAML");
    document.root.to_json()
}

/// The event and inputs of one simulated run.
struct Run {
    inputs: BTreeMap<String, String>,
    github: BTreeMap<&'static str, String>,
    workspace: PathBuf,
    releases: PathBuf,
    api: String,
}

/// What the run left behind.
#[derive(Debug)]
struct Outcome {
    succeeded: bool,
    outputs: BTreeMap<String, String>,
    summary: String,
    log: String,
    /// `uses:` steps whose condition held.
    used: Vec<String>,
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Run {
    fn new(workspace: &Path, releases: &Path, api: &str) -> Self {
        let mut inputs = BTreeMap::new();
        for (name, input) in action()["inputs"].as_object().unwrap() {
            inputs.insert(name.clone(), text(&input["default"]));
        }
        let github = BTreeMap::from([
            ("event_name", "push".to_owned()),
            ("repository", "platform/vms".to_owned()),
            ("actor", "octocat".to_owned()),
            ("token", "ghs_test_token".to_owned()),
            ("action_path", ROOT.to_owned()),
        ]);
        Self {
            inputs,
            github,
            workspace: workspace.to_path_buf(),
            releases: releases.to_path_buf(),
            api: api.to_owned(),
        }
    }

    fn input(mut self, name: &str, value: &str) -> Self {
        assert!(
            self.inputs.contains_key(name),
            "action.yml has no input {name}"
        );
        self.inputs.insert(name.to_owned(), value.to_owned());
        self
    }

    fn pull_request(mut self, base: &str, head_repository: &str) -> Self {
        self.github.insert("event_name", "pull_request".to_owned());
        self.github
            .insert("event.pull_request.base.sha", base.to_owned());
        self.github
            .insert("event.pull_request.number", "7".to_owned());
        self.github.insert(
            "event.pull_request.head.repo.full_name",
            head_repository.to_owned(),
        );
        self
    }

    /// The pull request's head commit (the event's `pull_request.head.sha`).
    fn head(mut self, head: &str) -> Self {
        self.github
            .insert("event.pull_request.head.sha", head.to_owned());
        self
    }

    /// The event payload the runner writes to `GITHUB_EVENT_PATH`.
    fn event(&self) -> Value {
        if self.github["event_name"] != "pull_request" {
            return json!({"ref": "refs/heads/main"});
        }
        let get = |key: &str| self.github.get(key).cloned().unwrap_or_default();
        json!({
            "number": 7,
            "pull_request": {
                "number": 7,
                "base": {"sha": get("event.pull_request.base.sha")},
                "head": {
                    "sha": get("event.pull_request.head.sha"),
                    "repo": {"full_name": get("event.pull_request.head.repo.full_name")}
                }
            }
        })
    }

    fn lookup(
        &self,
        expression: &str,
        steps: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> String {
        if let Some(name) = expression.strip_prefix("inputs.") {
            let value = self
                .inputs
                .get(name)
                .unwrap_or_else(|| panic!("unknown input in `{expression}`"));
            // A default may be an expression itself (`${{ github.token }}`).
            return self.substitute(value, steps);
        }
        if let Some(rest) = expression.strip_prefix("steps.") {
            let (id, output) = rest.split_once(".outputs.").expect("steps.ID.outputs.NAME");
            return steps
                .get(id)
                .and_then(|outputs| outputs.get(output))
                .cloned()
                .unwrap_or_default();
        }
        if let Some(path) = expression.strip_prefix("github.") {
            if path.starts_with("event.") {
                return self.github.get(path).cloned().unwrap_or_default();
            }
            return self
                .github
                .get(path)
                .unwrap_or_else(|| panic!("the simulation does not know `{expression}`"))
                .clone();
        }
        panic!("the simulation does not know `{expression}`")
    }

    /// Replaces every `${{ expression }}` in `template`.
    fn substitute(
        &self,
        template: &str,
        steps: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> String {
        let mut out = String::new();
        let mut rest = template;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").expect("a closed expression") + start;
            out.push_str(&self.lookup(rest[start + 3..end].trim(), steps));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// The conditions action.yml uses: `A == 'v'` and `A != 'v'`.
    fn condition(
        &self,
        condition: &str,
        steps: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> bool {
        let condition = condition
            .trim()
            .trim_start_matches("${{")
            .trim_end_matches("}}")
            .trim();
        let (left, right, equal) = if let Some((l, r)) = condition.split_once("==") {
            (l, r, true)
        } else if let Some((l, r)) = condition.split_once("!=") {
            (l, r, false)
        } else {
            panic!("the simulation does not know the condition `{condition}`")
        };
        let right = right.trim();
        let literal = right
            .strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .unwrap_or_else(|| panic!("`{condition}`: the right side is not a literal"));
        (self.lookup(left.trim(), steps) == literal) == equal
    }

    fn execute(&self) -> Outcome {
        let action = action();
        assert_eq!(action["runs"]["using"], "composite");
        let temp = tempfile::tempdir().unwrap();
        let runner_temp = temp.path().join("runner");
        std::fs::create_dir(&runner_temp).unwrap();
        let summary = temp.path().join("summary.md");
        let github_path = temp.path().join("path");
        let event = temp.path().join("event.json");
        std::fs::write(&event, self.event().to_string()).unwrap();
        std::fs::write(&summary, "").unwrap();
        std::fs::write(&github_path, "").unwrap();
        let mut steps: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut log = String::new();
        let mut used = Vec::new();
        let mut succeeded = true;
        for (i, step) in action["runs"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            if !succeeded {
                break; // no step of action.yml runs after a failure
            }
            if let Some(condition) = step["if"].as_str()
                && !self.condition(condition, &steps)
            {
                continue;
            }
            if let Some(uses) = step["uses"].as_str() {
                used.push(uses.to_owned());
                continue;
            }
            let script = step["run"].as_str().expect("a run step");
            assert_eq!(step["shell"], "bash");
            let output_file = temp.path().join(format!("output-{i}"));
            std::fs::write(&output_file, "").unwrap();
            let added = std::fs::read_to_string(&github_path).unwrap();
            let mut path: Vec<String> = added.lines().rev().map(str::to_owned).collect();
            path.push(std::env::var("PATH").unwrap());
            let mut command = Command::new("bash");
            command
                .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
                .current_dir(&self.workspace)
                .env_clear()
                .env("PATH", path.join(":"))
                .env("HOME", temp.path())
                .env("RUNNER_OS", "Linux")
                .env("RUNNER_ARCH", "X64")
                .env("RUNNER_TEMP", &runner_temp)
                .env("GITHUB_ACTIONS", "true")
                .env("GITHUB_WORKSPACE", &self.workspace)
                .env("GITHUB_EVENT_PATH", &event)
                .env("GITHUB_OUTPUT", &output_file)
                .env("GITHUB_PATH", &github_path)
                .env("GITHUB_STEP_SUMMARY", &summary)
                .env("GITHUB_API_URL", &self.api)
                .env("GITHUB_REPOSITORY", &self.github["repository"]);
            if let Some(env) = step["env"].as_object() {
                for (name, value) in env {
                    command.env(name, self.substitute(&text(value), &steps));
                }
            }
            if step["name"] == "Install kvlint" {
                command.env(
                    "KVLINT_REPOSITORY_URL",
                    format!("file://{}", self.releases.display()),
                );
            }
            let output = command.output().unwrap();
            log.push_str(&String::from_utf8_lossy(&output.stdout));
            log.push_str(&String::from_utf8_lossy(&output.stderr));
            let mut outputs = BTreeMap::new();
            for line in std::fs::read_to_string(&output_file).unwrap().lines() {
                let (key, value) = line.split_once('=').expect("key=value outputs");
                outputs.insert(key.to_owned(), value.to_owned());
            }
            if let Some(id) = step["id"].as_str() {
                steps.insert(id.to_owned(), outputs);
            }
            if !output.status.success() {
                eprintln!("step `{}` failed:\n{log}", text(&step["name"]));
                succeeded = false;
            }
        }
        let summary_text = std::fs::read_to_string(&summary).unwrap();
        let mut outputs = BTreeMap::new();
        for (name, output) in action["outputs"].as_object().unwrap() {
            outputs.insert(
                name.clone(),
                self.substitute(&text(&output["value"]), &steps),
            );
        }
        Outcome {
            succeeded,
            outputs,
            summary: summary_text,
            log,
            used,
        }
    }
}

/// A GitHub release of the kvlint under test, laid out as the download URLs are:
/// `releases/download/<tag>/kvlint-<target>.tar.gz` with its `.sha256`.
fn release(dir: &Path, tag: &str, corrupt: bool) {
    let assets = dir.join("releases/download").join(tag);
    std::fs::create_dir_all(&assets).unwrap();
    let staging = dir.join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_kvlint"), staging.join("kvlint")).unwrap();
    let asset = "kvlint-x86_64-unknown-linux-musl.tar.gz";
    let status = Command::new("tar")
        .arg("-czf")
        .arg(assets.join(asset))
        .arg("-C")
        .arg(&staging)
        .arg("kvlint")
        .status()
        .unwrap();
    assert!(status.success());
    // sha256sum on Linux, shasum on macOS: the same output format.
    let sum = Command::new("sha256sum")
        .arg(asset)
        .current_dir(&assets)
        .output()
        .or_else(|_| {
            Command::new("shasum")
                .args(["-a", "256", asset])
                .current_dir(&assets)
                .output()
        })
        .unwrap();
    assert!(sum.status.success());
    let mut sum = String::from_utf8(sum.stdout).unwrap();
    if corrupt {
        sum = format!("{}{}", "0".repeat(64), &sum[64..]);
    }
    std::fs::write(assets.join(format!("{asset}.sha256")), sum).unwrap();
}

fn git(dir: &Path, args: &[&str]) -> String {
    common::git(dir, args).trim().to_owned()
}

/// A checkout of a pull request: the passing fixture committed as the base, the failing one in
/// the working tree. Returns the base commit.
fn pull_request_checkout(workspace: &Path) -> String {
    common::copy_dir(Path::new(PASS), workspace);
    git(workspace, &["init", "-q", "-b", "main"]);
    git(workspace, &["add", "."]);
    git(workspace, &["commit", "-q", "-m", "base"]);
    let base = git(workspace, &["rev-parse", "HEAD"]);
    common::copy_dir(Path::new(FAIL), workspace);
    base
}

/// A request the simulated API received.
#[derive(Clone, Debug)]
struct Request {
    method: String,
    path: String,
    authorization: String,
    body: Value,
}

/// The issue-comment endpoints of the GitHub REST API, for one pull request, with comments kept
/// in memory.
struct Api {
    url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    comments: Arc<Mutex<Vec<Value>>>,
}

impl Api {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let comments = Arc::new(Mutex::new(vec![json!({
            "id": 1,
            "body": "Looks good to me",
            "user": {"login": "reviewer"}
        })]));
        let (log, store) = (Arc::clone(&requests), Arc::clone(&comments));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let mut parts = line.split_whitespace();
                let method = parts.next().unwrap_or_default().to_owned();
                let path = parts.next().unwrap_or_default().to_owned();
                let mut length = 0;
                let mut authorization = String::new();
                loop {
                    let mut header = String::new();
                    reader.read_line(&mut header).unwrap();
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    let (name, value) = header.split_once(':').unwrap();
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().unwrap(),
                        "authorization" => value.trim().clone_into(&mut authorization),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                log.lock().unwrap().push(Request {
                    method: method.clone(),
                    path: path.clone(),
                    authorization,
                    body: body.clone(),
                });
                let mut comments = store.lock().unwrap();
                let (status, answer) = match method.as_str() {
                    "GET" if path.starts_with("/repos/platform/vms/issues/7/comments?") => {
                        ("200 OK", Value::Array(comments.clone()))
                    }
                    "POST" if path == "/repos/platform/vms/issues/7/comments" => {
                        let comment = json!({
                            "id": comments.len() + 1,
                            "body": body["body"],
                            "user": {"login": "github-actions[bot]"}
                        });
                        comments.push(comment.clone());
                        ("201 Created", comment)
                    }
                    "PATCH" if path.starts_with("/repos/platform/vms/issues/comments/") => {
                        let id: u64 = path.rsplit('/').next().unwrap().parse().unwrap();
                        let comment = comments
                            .iter_mut()
                            .find(|c| c["id"] == id)
                            .expect("PATCH of an existing comment");
                        comment["body"] = body["body"].clone();
                        ("200 OK", comment.clone())
                    }
                    _ => ("404 Not Found", json!({"message": "Not Found"})),
                };
                drop(comments);
                let answer = answer.to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        Self {
            url,
            requests,
            comments,
        }
    }
}

struct Setup {
    _temp: tempfile::TempDir,
    workspace: PathBuf,
    releases: PathBuf,
}

fn setup(corrupt_release: bool) -> Setup {
    let temp = tempfile::tempdir().unwrap();
    let workspace = temp.path().join("workspace");
    let releases = temp.path().join("kvlint");
    release(&releases, "v0.1.0", corrupt_release);
    Setup {
        workspace,
        releases,
        _temp: temp,
    }
}

#[test]
fn a_passing_repository_passes_with_outputs_and_a_summary() {
    let setup = setup(false);
    common::copy_dir(Path::new(PASS), &setup.workspace);
    let api = Api::start();
    let outcome = Run::new(&setup.workspace, &setup.releases, &api.url)
        .input("version", "0.1.0")
        .execute();
    assert!(outcome.succeeded, "{outcome:?}");
    assert_eq!(outcome.outputs["errors"], "0", "{outcome:?}");
    assert_eq!(outcome.outputs["warnings"], "0");
    assert_eq!(outcome.outputs["sarif-file"], "kvlint.sarif");
    assert!(
        outcome.log.contains(": OK"),
        "the checksum is verified: {}",
        outcome.log
    );
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(setup.workspace.join("kvlint.sarif")).unwrap(),
    )
    .unwrap();
    assert_eq!(sarif["runs"][0]["results"], json!([]));
    assert!(
        outcome.summary.contains("No findings."),
        "{}",
        outcome.summary
    );
    assert!(!outcome.log.contains("::error"), "{}", outcome.log);
    assert!(
        outcome.used.is_empty(),
        "no upload unless asked: {:?}",
        outcome.used
    );
    assert!(api.requests.lock().unwrap().is_empty());
}

#[test]
fn a_failing_pull_request_annotates_uploads_and_comments_once() {
    let setup = setup(false);
    let base = pull_request_checkout(&setup.workspace);
    let api = Api::start();
    let run = || {
        Run::new(&setup.workspace, &setup.releases, &api.url)
            .input("version", "v0.1.0")
            .input("upload-sarif", "true")
            .input("preview", "true")
            .pull_request(&base, "platform/vms")
            .execute()
    };
    let outcome = run();
    assert!(!outcome.succeeded, "the error fails the job");
    assert_eq!(outcome.outputs["errors"], "1", "{outcome:?}");
    assert_eq!(outcome.outputs["warnings"], "1");
    assert!(
        outcome
            .log
            .contains("::error file=apps/db.yaml,line=24,col=11"),
        "{}",
        outcome.log
    );
    assert!(
        outcome
            .log
            .contains("kvlint found problems at or above --fail-on error"),
        "{}",
        outcome.log
    );
    assert_eq!(outcome.used, ["github/codeql-action/upload-sarif@v4"]);
    // The step summary holds the findings, then the preview of the change.
    let findings = outcome.summary.find("KV1001").expect("the findings");
    let preview = outcome.summary.find("apps/db").expect("the preview");
    assert!(
        outcome.summary.contains("**1 error**"),
        "{}",
        outcome.summary
    );
    assert!(findings < outcome.summary.rfind("apps/db").unwrap() && preview > 0);

    let comments = api.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 2, "one comment added: {comments:?}");
    let body = comments[1]["body"].as_str().unwrap();
    assert!(body.starts_with("<!-- kvlint-preview -->\n"), "{body}");
    assert!(body.contains("apps/db"), "{body}");
    let requests = api.requests.lock().unwrap().clone();
    assert!(
        requests
            .iter()
            .all(|r| r.authorization == "Bearer ghs_test_token"),
        "{requests:?}"
    );
    assert_eq!(
        requests
            .iter()
            .map(|r| r.method.as_str())
            .collect::<Vec<_>>(),
        ["GET", "POST"]
    );
    assert_eq!(requests[1].body["body"], comments[1]["body"]);

    // The next run updates the same comment.
    std::fs::write(
        setup.workspace.join("apps/web.yaml"),
        std::fs::read_to_string(Path::new(PASS).join("apps/web.yaml")).unwrap(),
    )
    .unwrap();
    let again = run();
    assert!(!again.succeeded);
    assert_eq!(again.outputs["warnings"], "0");
    let comments = api.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 2, "still one kvlint comment: {comments:?}");
    let requests = api.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[3].method, "PATCH");
    assert_eq!(requests[3].path, "/repos/platform/vms/issues/comments/2");
}

#[test]
fn a_pull_request_from_a_fork_skips_upload_and_comment_with_a_notice() {
    let setup = setup(false);
    let base = pull_request_checkout(&setup.workspace);
    let api = Api::start();
    let outcome = Run::new(&setup.workspace, &setup.releases, &api.url)
        .input("version", "v0.1.0")
        .input("upload-sarif", "true")
        .input("preview", "true")
        .input("fail-on", "none")
        .pull_request(&base, "contributor/vms")
        .execute();
    assert!(outcome.succeeded, "fail-on none: {outcome:?}");
    assert_eq!(outcome.outputs["errors"], "1");
    assert!(outcome.used.is_empty(), "no upload: {:?}", outcome.used);
    assert!(
        outcome
            .log
            .contains("::notice title=kvlint::the token is read-only"),
        "{}",
        outcome.log
    );
    assert!(
        outcome.log.contains("::error file=apps/db.yaml"),
        "annotations still work"
    );
    assert!(outcome.summary.contains("KV1001"), "{}", outcome.summary);
    assert!(
        outcome.summary.contains("apps/db"),
        "the preview is in the summary"
    );
    assert!(api.requests.lock().unwrap().is_empty(), "no comment");
}

#[test]
fn a_release_whose_checksum_does_not_match_fails_the_install() {
    let setup = setup(true);
    common::copy_dir(Path::new(PASS), &setup.workspace);
    let outcome = Run::new(&setup.workspace, &setup.releases, "http://127.0.0.1:9")
        .input("version", "v0.1.0")
        .execute();
    assert!(!outcome.succeeded);
    assert!(outcome.log.contains("FAILED"), "{}", outcome.log);
    assert!(
        !outcome.log.contains("building with cargo"),
        "a bad checksum is never a reason to build: {}",
        outcome.log
    );
    assert!(outcome.outputs["errors"].is_empty(), "kvlint did not run");
}

#[test]
fn a_preview_without_the_base_commit_warns_and_the_check_decides() {
    let setup = setup(false);
    pull_request_checkout(&setup.workspace);
    let api = Api::start();
    let outcome = Run::new(&setup.workspace, &setup.releases, &api.url)
        .input("version", "v0.1.0")
        .input("preview", "true")
        .input("fail-on", "none")
        .pull_request(&"0".repeat(40), "platform/vms")
        .execute();
    assert!(outcome.succeeded, "{outcome:?}");
    assert!(
        outcome
            .log
            .contains("is not in the checkout and could not be fetched"),
        "{}",
        outcome.log
    );
    assert!(api.requests.lock().unwrap().is_empty(), "no comment");
}

/// A file kvlint reports as a YAML syntax error (KV0001).
const BROKEN: &str = "a: [\n";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

fn annotations<'a>(log: &'a str, kind: &str) -> Vec<&'a str> {
    let prefix = format!("::{kind} ");
    log.lines().filter(|l| l.starts_with(&prefix)).collect()
}

#[test]
fn a_pull_request_s_changed_files_get_the_annotations_first() {
    let setup = setup(false);
    let workspace = &setup.workspace;
    // Twelve old errors (two more than GitHub shows), and a skipped file that is only a note.
    for i in 0..12 {
        write(workspace, &format!("old/broken-{i:02}.yaml"), BROKEN);
    }
    write(
        workspace,
        "notes/settings.yaml",
        "name: settings\nvalues: [1, 2]\n",
    );
    git(workspace, &["init", "-q", "-b", "main"]);
    let base = commit_all(workspace, "base");
    git(workspace, &["checkout", "-q", "-b", "change"]);
    write(workspace, "z-new/broken.yaml", BROKEN);
    let head = commit_all(workspace, "head");

    let run = |pull_request: bool| {
        let mut run = Run::new(workspace, &setup.releases, "http://127.0.0.1:9")
            .input("version", "v0.1.0")
            .input("fail-on", "none");
        if pull_request {
            run = run.pull_request(&base, "platform/vms").head(&head);
        }
        run.execute()
    };
    let outcome = run(true);
    assert!(outcome.succeeded, "{outcome:?}");
    let errors = annotations(&outcome.log, "error");
    assert_eq!(errors.len(), 10, "{}", outcome.log);
    assert!(
        errors[0].starts_with("::error file=z-new/broken.yaml,line=1,"),
        "the changed file first: {}",
        outcome.log
    );
    assert!(errors[1].starts_with("::error file=old/broken-00.yaml,"));
    // The closing notice is the only notice: the skipped file takes no slot.
    assert_eq!(
        annotations(&outcome.log, "notice"),
        ["::notice title=kvlint::3 more findings not shown as annotations; see the step summary"]
    );
    // The step summary holds every finding, the changed file's section open and first.
    let changed = outcome
        .summary
        .find("<details open><summary>z-new/broken.yaml (changed) · 1 error</summary>")
        .expect(&outcome.summary);
    assert!(changed < outcome.summary.find("old/broken-00.yaml").unwrap());
    assert_eq!(outcome.summary.matches("| error |").count(), 13);
    assert!(outcome.summary.contains("KV0006"), "{}", outcome.summary);

    // Without the pull request the new file sorts last and loses its slot.
    let push = run(false);
    let errors = annotations(&push.log, "error");
    assert_eq!(errors.len(), 10);
    assert!(errors.iter().all(|e| !e.contains("z-new")), "{}", push.log);
}

/// actions/checkout's default clone holds one commit: the action fetches the pull request's base
/// and head and deepens the history to their merge base, so the changed files still come first
/// and the preview has its base.
#[test]
fn a_shallow_checkout_fetches_the_pull_request_s_commits() {
    let setup = setup(false);
    let origin = setup.workspace.with_file_name("origin");
    for i in 0..12 {
        write(&origin, &format!("old/broken-{i:02}.yaml"), BROKEN);
    }
    git(&origin, &["init", "-q", "-b", "main"]);
    let base = commit_all(&origin, "base");
    git(&origin, &["checkout", "-q", "-b", "change"]);
    // Three commits on the branch: the merge base is beyond a depth of one.
    for step in ["one", "two", "three"] {
        write(&origin, &format!("z-new/{step}.yaml"), BROKEN);
        commit_all(&origin, step);
    }
    let head = git(&origin, &["rev-parse", "HEAD"]);
    // GitHub serves commits by name; a local repository must be told to.
    git(
        &origin,
        &["config", "uploadpack.allowAnySHA1InWant", "true"],
    );
    let url = format!("file://{}", origin.display());
    git(
        origin.parent().unwrap(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "change",
            &url,
            "workspace",
        ],
    );
    assert!(
        std::process::Command::new("git")
            .args(["cat-file", "-e", &format!("{base}^{{commit}}")])
            .current_dir(&setup.workspace)
            .output()
            .unwrap()
            .status
            .code()
            != Some(0),
        "the clone is shallow"
    );
    let api = Api::start();
    let outcome = Run::new(&setup.workspace, &setup.releases, &api.url)
        .input("version", "v0.1.0")
        .input("fail-on", "none")
        .input("preview", "true")
        .input("comment", "false")
        .pull_request(&base, "platform/vms")
        .head(&head)
        .execute();
    assert!(outcome.succeeded, "{outcome:?}");
    assert!(
        !outcome.log.contains("changed files are unknown"),
        "{}",
        outcome.log
    );
    let errors = annotations(&outcome.log, "error");
    assert_eq!(errors.len(), 10, "{}", outcome.log);
    for (error, file) in errors.iter().zip(["one", "three", "two"]) {
        assert!(
            error.starts_with(&format!("::error file=z-new/{file}.yaml,")),
            "the changed files first: {}",
            outcome.log
        );
    }
    assert!(
        !outcome.log.contains("is not in the checkout"),
        "{}",
        outcome.log
    );
    assert!(
        outcome.summary.contains("kvlint diff"),
        "{}",
        outcome.summary
    );
}

#[test]
fn a_pull_request_whose_commits_are_missing_is_ranked_without_them() {
    let setup = setup(false);
    common::copy_dir(Path::new(FAIL), &setup.workspace);
    git(&setup.workspace, &["init", "-q", "-b", "main"]);
    let base = commit_all(&setup.workspace, "base");
    let outcome = Run::new(&setup.workspace, &setup.releases, "http://127.0.0.1:9")
        .input("version", "v0.1.0")
        .input("fail-on", "none")
        .pull_request(&base, "platform/vms")
        .head(&"f".repeat(40))
        .execute();
    assert!(outcome.succeeded, "{outcome:?}");
    assert!(
        outcome
            .log
            .contains("the pull request's changed files are unknown"),
        "{}",
        outcome.log
    );
    assert_eq!(annotations(&outcome.log, "error").len(), 1);
}

#[test]
fn paths_with_spaces_absolute_paths_and_a_new_sarif_directory() {
    let setup = setup(false);
    let workspace = &setup.workspace;
    common::copy_dir(Path::new(FAIL), &workspace.join("my apps"));
    let run = |paths: &str| {
        Run::new(workspace, &setup.releases, "http://127.0.0.1:9")
            .input("version", "v0.1.0")
            .input("fail-on", "none")
            .input("paths", paths)
            .input("sarif-file", "reports/scan/kvlint.sarif")
            .execute()
    };
    // A YAML list of an absolute path with a space.
    let outcome = run(&format!("- {}/my apps\n", workspace.display()));
    assert!(outcome.succeeded, "{outcome:?}");
    assert_eq!(outcome.outputs["errors"], "1", "{outcome:?}");
    assert_eq!(outcome.outputs["sarif-file"], "reports/scan/kvlint.sarif");
    assert!(
        outcome
            .log
            .contains("::error file=my apps/apps/db.yaml,line=24,col=11"),
        "{}",
        outcome.log
    );
    assert!(
        !outcome.log.contains(&*workspace.to_string_lossy()),
        "{}",
        outcome.log
    );
    assert!(outcome.summary.contains("my apps/apps/db.yaml"));
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace.join("reports/scan/kvlint.sarif")).unwrap(),
    )
    .unwrap();
    let run_ = &sarif["runs"][0];
    let located = run_["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"].clone())
        .collect::<Vec<_>>();
    assert!(
        located.contains(&json!({"uri": "my%20apps/apps/db.yaml", "uriBaseId": "%SRCROOT%"})),
        "{located:?}"
    );
    assert_eq!(
        run_["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        format!("file://{}/", workspace.display())
    );

    // One path a line, and a flow list: the same findings.
    for paths in [
        "my apps/apps\nmy apps/platform\n",
        "[\"my apps/apps\", 'my apps/platform']",
    ] {
        let outcome = run(paths);
        assert_eq!(outcome.outputs["errors"], "1", "{paths}: {outcome:?}");
        assert_eq!(outcome.outputs["warnings"], "1", "{paths}: {outcome:?}");
    }
}

#[test]
fn a_report_larger_than_a_step_summary_is_written_to_a_file() {
    let setup = setup(false);
    // About 400 bytes of summary per file: 3,000 files make more than 1 MiB.
    for i in 0..3000 {
        write(
            &setup.workspace,
            &format!("broken/{i:04}-{}.yaml", "n".repeat(60)),
            BROKEN,
        );
    }
    let outcome = Run::new(&setup.workspace, &setup.releases, "http://127.0.0.1:9")
        .input("version", "v0.1.0")
        .input("fail-on", "none")
        .execute();
    assert!(outcome.succeeded, "{outcome:?}");
    let report_file = &outcome.outputs["report-file"];
    assert!(report_file.ends_with("/kvlint-report.md"), "{outcome:?}");
    assert!(
        outcome.summary.len() <= 1 << 20,
        "{}",
        outcome.summary.len()
    );
    assert!(
        outcome.summary.contains(&format!("`{report_file}`")),
        "the summary names the file"
    );
    assert!(
        outcome
            .summary
            .contains("more files with findings are listed only in the full report")
    );

    // A small report leaves the output empty.
    let small = setup.workspace.with_file_name("small");
    common::copy_dir(Path::new(PASS), &small);
    let outcome = Run::new(&small, &setup.releases, "http://127.0.0.1:9")
        .input("version", "v0.1.0")
        .execute();
    assert_eq!(outcome.outputs["report-file"], "");
}
