//! The project's own conformance cases, scored without `../shared`.
//!
//! `testdata/conformance/own/cases/NAME/input.yaml` are inputs written for this project; the
//! expected outputs under `testdata/conformance/own/vX.Y/NAME/` were produced by KubeVirt's own
//! code at each release's tag (`conformance/oracle`, laid out by `conformance/oracle/own_cases.py`).
//! Every case is scored at every release folder present, the way `../shared/conformance/run.py`
//! scores the shared set — `render`, `reject` and `drift` per VirtualMachine, with its rules
//! restated below — and the instance type and preference verdicts of `expected-objects.jsonl`
//! the way `tests/conformance_objects.rs` scores the shared ones. The VirtualMachinePool cases
//! (whose input holds a pool) are scored the same way on the pool validator's verdict, at the
//! releases whose folder has them (`POOL_RELEASES` must: every release, as each case gives its
//! pool at `pool.kubevirt.io/v1beta1` and `v1alpha1` and each release's validator judges one),
//! and on the VM webhooks' verdict on the VM the pool creates (`pool_vms`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

#[path = "conformance_own/pool_vms.rs"]
mod pool_vms;
#[path = "conformance_own/rules.rs"]
mod rules;
#[path = "conformance_own/score.rs"]
mod score;

use pool_vms::score_pool_vms;
use score::{Outputs, score_case, score_objects};

const OWN: &str = "testdata/conformance/own";

/// The releases kvlint verifies (README, "What kvlint reproduces"): each must have its folder.
const VERIFIED: [&str; 6] = ["v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9"];

const FROM_V1_5: &[&str] = &["v1.5", "v1.6", "v1.7", "v1.8", "v1.9"];

/// Cases left out of the score at some releases, each with why kvlint disagrees with KubeVirt
/// there (`*`: every release). Listed, never skipped silently: the consistency test checks that
/// each entry names a real case and release.
const NOT_SCORED: &[(&str, &[&str], &str)] = &[
    (
        "506-net-macvtap-discontinued-gate",
        FROM_V1_5,
        "a refusal cause without a field (featuregate.ValidateFeatureGates): run.py's rules read a \
         field-less cause's message as a schema path, which no finding can match",
    ),
    (
        "507-net-passt-discontinued-gate",
        FROM_V1_5,
        "a refusal cause without a field (featuregate.ValidateFeatureGates), as for 506",
    ),
];

/// Whether a case holds a VirtualMachinePool: its expected outputs are the pool validator's
/// verdict (`expected-objects.jsonl`), which a release's folder has when the oracle judged a pool
/// of the case there.
fn is_pool_case(case: &str) -> bool {
    let input = std::fs::read_to_string(own().join("cases").join(case).join("input.yaml"))
        .unwrap_or_default();
    input
        .lines()
        .any(|line| line.trim_end() == "kind: VirtualMachinePool")
}

/// Whether the release's folder has the pool cases' outputs.
fn has_pool_outputs(release: &str, cases: &[String]) -> bool {
    cases
        .iter()
        .filter(|case| is_pool_case(case))
        .any(|case| own().join(release).join(case).is_dir())
}

/// The releases that must have the pool cases' outputs: all of them (v1.0 to v1.6 judge the
/// cases' `v1alpha1` pool, v1.7 and later their `v1beta1` pool).
const POOL_RELEASES: &[&str] = &[
    "v1.0", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9",
];

fn own() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(OWN)
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(own().join("cases"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every `vX.Y` folder: the verified releases and any other one given expected outputs.
fn release_folders() -> Vec<String> {
    let mut releases: Vec<String> = std::fs::read_dir(own())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('v'))
        .collect();
    releases.sort();
    releases
}

fn not_scored(case: &str, release: &str) -> bool {
    NOT_SCORED
        .iter()
        .any(|&(c, rs, _)| c == case && rs.iter().any(|&r| r == "*" || r == release))
}

fn read_lines(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

// Running kvlint.

fn kvlint(case_dir: &Path, release: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .current_dir(case_dir)
        .args(args)
        // The cases are self-contained (their instance types and preferences are in the input):
        // no built-in catalog, which halves the time of a debug build's run.
        .args([
            "--no-config",
            "--catalog",
            "none",
            "--kubevirt-version",
            release,
        ])
        .arg(case_dir.join("input.yaml"))
        .output()
        .unwrap()
}

fn run_kvlint(case_dir: &Path, release: &str) -> Outputs {
    let render = kvlint(case_dir, release, &["render", "--format", "json"]);
    let rendered = serde_json::from_slice::<Value>(&render.stdout)
        .ok()
        .filter(|_| !render.stdout.is_empty())
        .map_or_else(
            || {
                if String::from_utf8_lossy(&render.stdout).trim().is_empty() {
                    Ok(Vec::new())
                } else {
                    Err(format!(
                        "render output is not JSON; stderr: {}",
                        String::from_utf8_lossy(&render.stderr)
                    ))
                }
            },
            |json| {
                json.as_array()
                    .cloned()
                    .ok_or_else(|| "render output is not a JSON array".to_owned())
            },
        );
    let check = kvlint(
        case_dir,
        release,
        &["check", "--format", "json", "--fail-on", "none"],
    );
    let diagnostics = serde_json::from_slice::<Value>(&check.stdout)
        .ok()
        .and_then(|report| report.get("diagnostics").and_then(Value::as_array).cloned())
        .ok_or_else(|| {
            format!(
                "check output is not the JSON report; stderr: {}",
                String::from_utf8_lossy(&check.stderr)
            )
        });
    Outputs {
        rendered,
        diagnostics,
    }
}

struct Totals {
    scored: usize,
    by_score: std::collections::BTreeMap<(String, &'static str), usize>,
    failures: Vec<String>,
    /// Listed in NOT_SCORED at a release where kvlint now agrees with KubeVirt.
    agreeing_but_listed: Vec<String>,
}

fn score_all(releases: &[String], cases: &[String]) -> Totals {
    // Listed cases run too, so that one that starts agreeing with KubeVirt is reported.
    let work: Vec<(&String, &String)> = releases
        .iter()
        .flat_map(|r| cases.iter().map(move |c| (r, c)))
        .collect();
    let next = AtomicUsize::new(0);
    let totals = Mutex::new(Totals {
        scored: 0,
        by_score: std::collections::BTreeMap::new(),
        failures: Vec::new(),
        agreeing_but_listed: Vec::new(),
    });
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&(release, case)) = work.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let case_dir = own().join("cases").join(case);
                    let expected_dir = own().join(release).join(case);
                    if !expected_dir.is_dir() {
                        // A pool case at a release without pool outputs (checked by
                        // every_case_has_expected_outputs_at_every_release).
                        continue;
                    }
                    let expected = read_lines(&expected_dir.join("expected.jsonl"));
                    let verdicts = read_lines(&expected_dir.join("expected-objects.jsonl"));
                    let outputs = run_kvlint(&case_dir, release);
                    let mut scores = score_case(&expected, &outputs);
                    scores.extend(score_objects(&verdicts, &outputs));
                    scores
                        .extend(score_pool_vms(&expected, &verdicts, &outputs).unwrap_or_default());
                    let mut totals = totals.lock().unwrap();
                    if not_scored(case, release) {
                        if scores.iter().all(|score| score.outcome.is_ok()) {
                            totals.agreeing_but_listed.push(format!("{release} {case}"));
                        }
                        continue;
                    }
                    for score in scores {
                        totals.scored += 1;
                        *totals
                            .by_score
                            .entry((release.clone(), score.kind))
                            .or_default() += 1;
                        if let Err(why) = score.outcome {
                            totals.failures.push(format!(
                                "{release} {case} {} [{}] {why}",
                                score.vm, score.kind
                            ));
                        }
                    }
                }
            });
        }
    });
    let mut totals = totals.into_inner().unwrap();
    totals.failures.sort();
    totals.agreeing_but_listed.sort();
    totals
}

#[test]
fn every_case_has_expected_outputs_at_every_release() {
    let cases = case_names();
    assert!(cases.len() >= 60, "{} own cases", cases.len());
    for case in &cases {
        let input = own().join("cases").join(case).join("input.yaml");
        assert!(input.is_file(), "{} is missing", input.display());
    }
    let releases = release_folders();
    for release in VERIFIED {
        assert!(
            releases.iter().any(|r| r == release),
            "no expected outputs for {release}, a verified release (conformance/oracle/own_cases.py)"
        );
    }
    let pool_cases: Vec<&String> = cases.iter().filter(|c| is_pool_case(c)).collect();
    assert!(pool_cases.len() >= 4, "{} pool cases", pool_cases.len());
    for release in POOL_RELEASES {
        assert!(
            has_pool_outputs(release, &cases),
            "no pool outputs for {release} (conformance/oracle/own_cases.py)"
        );
    }
    for release in &releases {
        let folder = own().join(release);
        let mut have: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        have.sort();
        let with_pools = has_pool_outputs(release, &cases);
        let want: Vec<String> = cases
            .iter()
            .filter(|case| with_pools || !is_pool_case(case))
            .cloned()
            .collect();
        assert_eq!(
            have, want,
            "{release}: expected outputs and inputs differ (rerun conformance/oracle/own_cases.py)"
        );
        for case in &want {
            if is_pool_case(case) {
                // A pool case's verdict is the pool validator's, one line per pool.
                let verdicts = read_lines(&folder.join(case).join("expected-objects.jsonl"));
                let pools = verdicts
                    .iter()
                    .filter(|v| {
                        v["object"]
                            .as_str()
                            .is_some_and(|o| o.starts_with("VirtualMachinePool/"))
                    })
                    .count();
                assert!(pools > 0, "{release}/{case}: no VirtualMachinePool verdict");
                let expected = read_lines(&folder.join(case).join("expected.jsonl"));
                assert!(
                    expected.iter().any(|line| line["vm"]
                        .as_str()
                        .is_some_and(|vm| vm.ends_with(pool_vms::CREATED))),
                    "{release}/{case}: no verdict on the VM the pool creates (`<pool>{}`)",
                    pool_vms::CREATED
                );
                continue;
            }
            let expected = read_lines(&folder.join(case).join("expected.jsonl"));
            assert!(!expected.is_empty(), "{release}/{case}: no expected VM");
        }
    }
    for &(case, listed, why) in NOT_SCORED {
        assert!(
            cases.iter().any(|c| c == case),
            "NOT_SCORED names {case}, which is no case"
        );
        for release in listed {
            assert!(
                *release == "*" || releases.iter().any(|r| r == release),
                "NOT_SCORED names {release} for {case}"
            );
        }
        assert!(!why.is_empty(), "NOT_SCORED {case}: no reason");
    }
}

#[test]
fn own_cases_score_as_kubevirt_behaves_at_every_release() {
    let releases = release_folders();
    let cases = case_names();
    let totals = score_all(&releases, &cases);
    // Each verified release scores render and reject for every VM, and object verdicts: a scorer
    // that ran nothing would pass on nothing.
    for release in POOL_RELEASES {
        for score in ["pool", "pool-vms"] {
            let n = totals
                .by_score
                .get(&((*release).to_owned(), score))
                .copied()
                .unwrap_or(0);
            assert!(n >= 4, "{release}: only {n} {score} scores");
        }
    }
    for release in VERIFIED {
        for score in ["render", "reject", "drift", "object"] {
            let n = totals
                .by_score
                .get(&(release.to_owned(), score))
                .copied()
                .unwrap_or(0);
            assert!(n >= 5, "{release}: only {n} {score} scores");
        }
    }
    assert!(
        totals.agreeing_but_listed.is_empty(),
        "kvlint now agrees with KubeVirt on cases NOT_SCORED lists; remove them there:\n{}",
        totals.agreeing_but_listed.join("\n")
    );
    assert!(
        totals.failures.is_empty(),
        "{} of {} scores failed:\n{}",
        totals.failures.len(),
        totals.scored,
        totals.failures.join("\n")
    );
}
