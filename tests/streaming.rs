//! The check runs in batches and defers VM documents to a second pass; none of that may change
//! its output. These tests compare the report across batch sizes, with and without deferred
//! parsing, streamed and collected, and with one and two threads.

use std::path::{Path, PathBuf};
use std::process::Command;

use kvlint::check::{self, Options};
use kvlint::output;
use kvlint::source::Selection;

fn shared(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(relative);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("KVLINT_REQUIRE_SHARED").is_none(),
        "{} is missing",
        path.display()
    );
    None
}

fn repositories() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut repos = vec![
        root.join("examples/demo"),
        root.join("testdata/cases"),
        root.join("testdata/rules"),
        root.join("testdata/kustomize-origin"),
    ];
    repos.extend(shared("corpus/real-world"));
    repos.extend(shared("bench/sample-200"));
    repos
}

fn json(path: &Path, configure: impl FnOnce(&mut Options)) -> String {
    let mut options = Options {
        selection: Selection {
            paths: vec![path.to_path_buf()],
            ..Selection::default()
        },
        ..Options::default()
    };
    configure(&mut options);
    output::json::report(&check::run(&options).expect("the check runs"))
}

#[test]
fn batch_size_and_deferred_parsing_do_not_change_the_report() {
    for repo in repositories() {
        for units_off in [true, false] {
            let run = |configure: &dyn Fn(&mut Options)| {
                json(&repo, |o| {
                    o.units.off = units_off;
                    configure(o);
                })
            };
            // Keeping the sources turns deferred parsing off: every document is parsed at once.
            let whole = run(&|o| o.keep_sources = true);
            // Each run builds the units again: with units, one batch size is enough.
            let sizes: &[usize] = if units_off { &[1, 7] } else { &[1] };
            for &batch in sizes {
                let batched = run(&|o| o.batch_files = Some(batch));
                assert!(
                    whole == batched,
                    "{}: the report with batches of {batch} files differs (units off: {units_off})",
                    repo.display()
                );
            }
            if units_off {
                assert!(whole == run(&|_| {}), "{}", repo.display());
            }
        }
    }
}

fn kvlint(args: &[&str], threads: &str) -> (Vec<u8>, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_kvlint"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("kvlint runs");
    (output.stdout, output.status.code().unwrap_or(-1))
}

#[test]
fn streamed_json_matches_the_collected_report_with_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    for repo in repositories() {
        let repo = repo.to_string_lossy();
        let file = dir.path().join("collected.json");
        let file_arg = file.to_string_lossy();
        // An --output-file makes kvlint build the whole report before writing it.
        let (collected, collected_code) = kvlint(
            &[
                "check",
                &repo,
                "--format",
                "json",
                "--output-file",
                &file_arg,
                "--output-format",
                "json",
            ],
            "2",
        );
        assert_eq!(std::fs::read(&file).unwrap(), collected);
        let (streamed, code) = kvlint(&["check", &repo, "--format", "json"], "2");
        assert_eq!(code, collected_code, "{repo}");
        assert!(streamed == collected, "{repo}: streamed JSON differs");
        let (one_thread, _) = kvlint(&["check", &repo, "--format", "json"], "1");
        assert!(
            one_thread == streamed,
            "{repo}: one thread differs from two"
        );
    }
}
