//! The findings of rendered VMs leave through the sink as the file pass comes to their files:
//! a unit is read and analysed only when the report reaches the first file it can point at,
//! and the findings about files before it do not wait for the units after.
//!
//! Without kustomize or kubectl this test says so and passes, unless
//! `KVLINT_REQUIRE_KUSTOMIZE=1` makes the tool's absence a failure.

use crate::common;

use std::path::Path;

use common::kustomize_available;
use kvlint::check::vm::Rendered;
use kvlint::check::{Options, Sink};
use kvlint::config::{CatalogChoice, ConfigChoice};
use kvlint::diag::Finding;

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: NAME
spec:
  running: true
  template:
    spec:
      domain:
        devices: {}
        resources:
          requests:
            memory: 1Gi
";

#[derive(Debug, PartialEq)]
enum Event {
    Rendered(String),
    /// The files of one batch of findings.
    Findings(Vec<String>),
}

#[derive(Default)]
struct Recorder(Vec<Event>);

impl Sink for Recorder {
    fn findings(&mut self, findings: Vec<Finding>) -> Result<(), kvlint::error::Error> {
        let files = findings
            .iter()
            .map(|finding| finding.location.file.to_string())
            .collect();
        self.0.push(Event::Findings(files));
        Ok(())
    }

    fn rendered(&mut self, rendered: Rendered) {
        self.0.push(Event::Rendered(rendered.name));
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Two units (`a/`, `z/`) and a written VM between them in the report's order (`m/`): the
/// findings about `a/` and `m/` are handed over before the unit `z/` is even analysed (its VM
/// rendered).
#[test]
fn findings_leave_before_later_units_are_analysed() {
    if !kustomize_available("findings_leave_before_later_units_are_analysed") {
        return;
    }
    let temp = tempfile::tempdir_in(".").unwrap();
    // Resolved, so that written and rendered files are named alike.
    let root = &std::fs::canonicalize(temp.path()).unwrap();
    for unit in ["a", "z"] {
        write(
            &root.join(unit).join("kustomization.yaml"),
            "resources:\n- vm.yaml\n",
        );
        write(
            &root.join(unit).join("vm.yaml"),
            &VM.replace("NAME", &format!("{unit}-vm")),
        );
    }
    write(&root.join("m/plain.yaml"), &VM.replace("NAME", "m-vm"));
    let options = Options {
        config: ConfigChoice::None,
        catalog: Some(CatalogChoice::None),
        batch_files: Some(1),
        selection: kvlint::source::Selection {
            paths: vec![root.clone()],
            ..Default::default()
        },
        units: kvlint::units::UnitOptions {
            no_cache: true,
            ..Default::default()
        },
        ..Options::default()
    };
    let mut recorder = Recorder::default();
    kvlint::check::stream(&options, &mut recorder).unwrap();
    let events = recorder.0;

    let position = |wanted: &dyn Fn(&Event) -> bool| {
        events
            .iter()
            .position(wanted)
            .unwrap_or_else(|| panic!("{events:#?}"))
    };
    let about = |dir: &'static str| {
        move |event: &Event| {
            matches!(event, Event::Findings(files)
                if files.iter().any(|file| file.contains(&format!("/{dir}/"))))
        }
    };
    let rendered =
        |name: &'static str| move |event: &Event| *event == Event::Rendered(name.to_owned());
    let z_analysed = position(&rendered("z-vm"));
    assert!(position(&rendered("a-vm")) < z_analysed, "{events:#?}");
    assert!(position(&about("a")) < z_analysed, "{events:#?}");
    assert!(position(&about("m")) < z_analysed, "{events:#?}");
    assert!(position(&about("z")) > z_analysed, "{events:#?}");
}
