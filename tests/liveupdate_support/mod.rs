//! What KubeVirt's VM controller does with a running VM, as `kvlint diff` reports it: the
//! two sides written into a temporary directory and checked at one release.

use std::fs;
use std::path::Path;

use kvlint::check::{self, Options, Report};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::commands::diff::{self, Effect, Inputs};
use kvlint::config::ConfigChoice;
use kvlint::source::Selection;

/// What KubeVirt v1.`minor` does with the running VM of `base` when it becomes `head`.
pub(crate) fn effect_at(base: &[&str], head: &[&str], minor: u32) -> Effect {
    let dir = tempfile::tempdir().unwrap();
    write_side(&dir.path().join("base"), base);
    write_side(&dir.path().join("head"), head);
    let (base_report, base_inputs) = side(&dir.path().join("base"), minor);
    let (head_report, head_inputs) = side(&dir.path().join("head"), minor);
    let diff = diff::diff_with(&base_report, &base_inputs, &head_report, &head_inputs);
    assert_eq!(diff.vms.len(), 1, "{diff:?}");
    diff.vms[0].effect.clone()
}

/// Writes `files` into `dir` as `0.yaml`, `1.yaml`, ….
pub(crate) fn write_side(dir: &Path, files: &[&str]) {
    fs::create_dir_all(dir).unwrap();
    for (i, text) in files.iter().enumerate() {
        fs::write(dir.join(format!("{i}.yaml")), text).unwrap();
    }
}

/// Checking `dir` at KubeVirt v1.`minor`, with no configuration file.
pub(crate) fn options(dir: &Path, minor: u32) -> Options {
    Options {
        selection: Selection {
            paths: vec![dir.to_path_buf()],
            ..Selection::default()
        },
        version: Some(KubeVirtVersion::new(1, minor)),
        config: ConfigChoice::None,
        ..Options::default()
    }
}

fn side(dir: &Path, minor: u32) -> (Report, Inputs) {
    let options = options(dir, minor);
    let mut report = check::run(&options).expect("check runs");
    let mut inputs = diff::load_inputs(&options).expect("inputs load");
    let from = format!("{}/", dir.display());
    diff::relabel(&mut report, &from, "");
    inputs.relabel(&from, "");
    (report, inputs)
}
