//! Every folder under testdata/cases is a tiny repository; its snapshot holds the findings
//! (concise and JSON) and the rendered VMs.

use crate::common;

use std::path::PathBuf;

use kvlint::check::{self, Options};
use kvlint::output::{self, RenderFormat};
use kvlint::source::Selection;

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("testdata/cases")
        .expect("testdata/cases exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn cases() {
    let dirs = case_dirs();
    assert!(
        dirs.len() >= 10,
        "expected the fixture cases, found {}",
        dirs.len()
    );
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        // Cases with a kustomization are checked as Kustomize renders them.
        if dir.join("app/kustomization.yaml").exists() && !common::kustomize_available(&name) {
            continue;
        }
        let options = Options {
            selection: Selection {
                paths: vec![dir.clone()],
                ..Selection::default()
            },
            keep_sources: true,
            ..Options::default()
        };
        let report = check::run(&options).expect("the case runs");
        let rendered: Vec<_> = report.rendered.iter().collect();
        let snapshot = format!(
            "## findings\n{}\n## human\n{}\n## json\n{}\n## rendered\n{}",
            output::human::concise(&report),
            output::human::report(&report, false, 100),
            output::json::report(&report),
            kvlint::commands::render::render_output(&rendered, RenderFormat::Yaml),
        );
        insta::assert_snapshot!(name, common::without_kustomize_version(&snapshot));
    }
}
