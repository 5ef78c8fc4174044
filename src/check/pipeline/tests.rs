use super::index_pass::{kept_for_the_run, referenced};
use super::*;
use crate::config::{CatalogChoice, ConfigChoice};

const INSTANCETYPE: &str = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata:
  name: small
  namespace: default
spec:
  cpu:
    guest: 2
  memory:
    guest: 1Gi
";

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm
  namespace: default
spec:
  runStrategy: Always
  instancetype:
    kind: VirtualMachineInstancetype
    name: small
  template:
    spec:
      domain:
        devices: {}
";

#[test]
fn kept_objects_carry_no_spare_capacity() {
    fn spare(node: &crate::yaml::Node) -> usize {
        use crate::yaml::Value as Yaml;
        match &node.value {
            Yaml::Str(s) => s.capacity() - s.len(),
            Yaml::Seq(items) => {
                items.capacity() - items.len() + items.iter().map(spare).sum::<usize>()
            }
            Yaml::Map(entries) => {
                entries.capacity() - entries.len()
                    + entries
                        .iter()
                        .map(|e| e.key.capacity() - e.key.len() + spare(&e.value))
                        .sum::<usize>()
            }
            _ => 0,
        }
    }
    // Scalars the scanner builds a character at a time, and collections of odd lengths.
    let text = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata:
  name: plain value with several words
  namespace: default
  labels: {a: b, c: d, e: f}
  annotations:
    folded: >
      some folded
      text
    multi: first line
      continued line
spec:
  devices:
    preferredDiskBus: virtio
  preferredTerminationGracePeriodSeconds: 30
  requirements: [one, two, three]
";
    let mut loaded = load::load_text(&Arc::from("preference.yaml"), text, &LoadOptions::default());
    let object = loaded.objects.pop().unwrap();
    assert!(referenced(&object));
    assert!(spare(&object.node) > 0, "the parse leaves spare capacity");
    assert_eq!(spare(&kept_for_the_run(object).node), 0);
}

#[test]
fn in_memory_files_form_one_repository_across_batches() {
    let options = Options {
        config: ConfigChoice::None,
        catalog: Some(CatalogChoice::None),
        batch_files: Some(1),
        ..Options::default()
    };
    let report = run_files_in_memory(
        &options,
        &[
            ("b-vm.yaml", VM.as_bytes()),
            ("a-instancetype.yaml", INSTANCETYPE.as_bytes()),
            ("c-vm-again.yaml", VM.as_bytes()),
        ],
    )
    .unwrap();
    assert_eq!(report.summary.files, 3);
    assert_eq!(report.summary.vms, 2);
    assert_eq!(report.summary.rendered, 2);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.rule.code == "KV0008" && &*f.location.file == "c-vm-again.yaml"),
        "{:#?}",
        report.findings
    );
    let files: Vec<&str> = report.findings.iter().map(|f| &*f.location.file).collect();
    assert!(files.is_sorted(), "{files:?}");
}
