//! Attribution checked against the real Kustomize: a small repository is built with
//! `kubectl kustomize` (or `kustomize build`), the layers and the original name are read from
//! the build's own origin and transformer annotations, and every field is attributed from the
//! rendered value Kustomize produced. Skipped, with a message, when neither tool is installed,
//! unless `KVLINT_REQUIRE_KUSTOMIZE=1`.

use std::path::Path;
use std::process::Command;

use super::patches::relative_to;
use super::*;
use crate::yaml::{Limits, parse_stream};

const OVERLAY: &str = "overlays/dev";
const OVERLAY_FILE: &str = "overlays/dev/kustomization.yaml";
const COMPONENT_FILE: &str = "components/gpu/kustomization.yaml";

const FILES: &[(&str, &str)] = &[
    ("base/kustomization.yaml", "resources:\n  - vm.yaml\n"),
    (
        "base/vm.yaml",
        "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  instancetype:
    name: u1.small
  template:
    spec:
      domain:
        devices:
          autoattachGraphicsDevice: false
          disks:
            - name: root
              disk:
                bus: virtio
            - name: cloudinit
              disk:
                bus: virtio
      volumes:
        - name: root
          containerDisk:
            image: quay.io/containerdisks/fedora:40
        - name: cloudinit
          cloudInitNoCloud:
            userData: \"#cloud-config\"
",
    ),
    (
        COMPONENT_FILE,
        "\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
  - target:
      kind: VirtualMachine
    patch: |
      - op: add
        path: /spec/template/spec/domain/devices/gpus
        value:
          - name: gpu1
            deviceName: nvidia.com/GA102GL
",
    ),
    (
        OVERLAY_FILE,
        "\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: web-dev
namePrefix: dev-
buildMetadata: [originAnnotations, transformerAnnotations]
resources:
  - ../../base
components:
  - ../../components/gpu
patches:
  - path: size.yaml
  - path: memory.yaml
    target:
      kind: VirtualMachine
      name: web
  - target:
      kind: VirtualMachine
    patch: |-
      - op: replace
        path: /spec/runStrategy
        value: Halted
      - op: remove
        path: /spec/template/spec/domain/devices/autoattachGraphicsDevice
patchesJson6902:
  - target: {group: kubevirt.io, version: v1, kind: VirtualMachine, name: dev-web}
    patch: '[{\"op\": \"add\", \"path\": \"/spec/template/spec/domain/cpu\", \"value\": {\"cores\": 2}}]'
commonLabels:
  tier: frontend
",
    ),
    (
        "overlays/dev/size.yaml",
        "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  instancetype:
    name: u1.large
  template:
    spec:
      domain:
        devices:
          disks:
            - name: root
              disk:
                bus: sata
",
    ),
    (
        "overlays/dev/memory.yaml",
        "\
- op: add
  path: /spec/template/spec/domain/memory
  value:
    guest: 4Gi
",
    ),
];

/// Where a field is attributed: file, line, column and mechanism; `None` for the base's fields.
type Expected = Option<(&'static str, u32, u32, Mechanism)>;

/// The overlay built by whichever Kustomize is installed; `None` when none is.
fn build(root: &Path) -> Option<String> {
    let commands: [(&str, &[&str]); 2] = [("kubectl", &["kustomize"]), ("kustomize", &["build"])];
    for (program, args) in commands {
        let Ok(output) = Command::new(program)
            .args(args)
            .arg(OVERLAY)
            .current_dir(root)
            .output()
        else {
            continue;
        };
        assert!(
            output.status.success(),
            "{program} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return Some(String::from_utf8(output.stdout).expect("UTF-8 output"));
    }
    None
}

fn documents(text: &str) -> Vec<Node> {
    parse_stream(text, Limits::default())
        .into_iter()
        .map(|document| document.expect("valid YAML").root)
        .collect()
}

fn text_of(file: &str) -> &'static str {
    FILES
        .iter()
        .find(|(path, _)| *path == file)
        .map_or_else(|| panic!("no file {file}"), |(_, text)| *text)
}

/// An annotation of the rendered object, itself YAML.
fn annotation(rendered: &Json, key: &str) -> Node {
    let text = rendered["metadata"]["annotations"][key]
        .as_str()
        .unwrap_or_else(|| panic!("the build has no {key} annotation"));
    documents(text).remove(0)
}

/// The layers, innermost first, as the build recorded them (paths from the overlay).
fn recorded_layers(rendered: &serde_json::Value) -> Vec<String> {
    let mut layer_files: Vec<String> = Vec::new();
    let transformations = annotation(rendered, "alpha.config.kubernetes.io/transformations");
    for step in transformations.as_seq().expect("a list of transformations") {
        let configured_in = step
            .get("configuredIn")
            .and_then(Node::as_str)
            .expect("configuredIn");
        let file = relative_to(OVERLAY_FILE, configured_in);
        if !layer_files.contains(&file) {
            layer_files.push(file);
        }
    }
    layer_files
}

/// Where each field of the rendered VM was written, as kvlint must attribute it.
fn expected_attributions() -> [(&'static str, Expected); 11] {
    [
        (
            "spec.instancetype.name",
            Some((
                "overlays/dev/size.yaml",
                7,
                5,
                Mechanism::StrategicMergeFile,
            )),
        ),
        // The patch's disk list replaced the base's: the one disk left is the patch's.
        (
            "spec.template.spec.domain.devices.disks[0].disk.bus",
            Some((
                "overlays/dev/size.yaml",
                15,
                17,
                Mechanism::StrategicMergeFile,
            )),
        ),
        (
            "spec.template.spec.domain.memory.guest",
            Some(("overlays/dev/memory.yaml", 4, 5, Mechanism::Json6902File)),
        ),
        (
            "spec.runStrategy",
            Some((OVERLAY_FILE, 21, 9, Mechanism::Json6902Inline)),
        ),
        (
            "spec.template.spec.domain.devices.autoattachGraphicsDevice",
            Some((OVERLAY_FILE, 23, 9, Mechanism::Json6902Inline)),
        ),
        (
            "spec.template.spec.domain.cpu.cores",
            Some((OVERLAY_FILE, 26, 80, Mechanism::PatchesJson6902)),
        ),
        (
            "spec.template.spec.domain.devices.gpus[0].deviceName",
            Some((COMPONENT_FILE, 11, 13, Mechanism::Json6902Inline)),
        ),
        (
            "metadata.name",
            Some((OVERLAY_FILE, 4, 1, Mechanism::NamePrefix)),
        ),
        (
            "metadata.namespace",
            Some((OVERLAY_FILE, 3, 1, Mechanism::Namespace)),
        ),
        (
            "metadata.labels.tier",
            Some((OVERLAY_FILE, 28, 3, Mechanism::CommonLabels)),
        ),
        ("spec.template.spec.volumes[0].containerDisk.image", None),
    ]
}

#[test]
fn attribution_agrees_with_what_kustomize_rendered() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (file, text) in FILES {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(path, text).expect("a fixture file");
    }
    let Some(output) = build(dir.path()) else {
        assert!(
            std::env::var("KVLINT_REQUIRE_KUSTOMIZE").as_deref() != Ok("1"),
            "KVLINT_REQUIRE_KUSTOMIZE=1 but neither kubectl nor kustomize runs"
        );
        // The message says why the test proved nothing here.
        #[allow(clippy::print_stderr)]
        {
            eprintln!("skipped: neither kubectl nor kustomize is installed");
        }
        return;
    };
    let rendered = documents(&output)
        .iter()
        .map(Node::to_json)
        .find(|object| object["kind"] == "VirtualMachine")
        .expect("the rendered VM");

    let layer_files = recorded_layers(&rendered);
    assert_eq!(layer_files, [COMPONENT_FILE, OVERLAY_FILE]);
    let origin = annotation(&rendered, "config.kubernetes.io/origin");
    let origin_file = relative_to(
        OVERLAY_FILE,
        origin
            .get("path")
            .and_then(Node::as_str)
            .expect("an origin path"),
    );
    let origin_root = documents(text_of(&origin_file)).remove(0);
    let original_name = origin_root
        .get("metadata")
        .and_then(|metadata| metadata.get("name"))
        .and_then(Node::as_str);
    assert_eq!(original_name, Some("web"));

    let names: Vec<Arc<str>> = layer_files
        .iter()
        .map(|file| Arc::from(file.as_str()))
        .collect();
    let roots: Vec<Node> = layer_files
        .iter()
        .map(|file| documents(text_of(file)).remove(0))
        .collect();
    let layers: Vec<Layer<'_>> = layer_files
        .iter()
        .zip(&names)
        .zip(&roots)
        .map(|((file, name), root)| Layer {
            file: name,
            text: text_of(file),
            root,
        })
        .collect();
    let read_patch = |path: &str| {
        let (file, text) = FILES.iter().find(|(file, _)| *file == path)?;
        Some(PatchFile {
            file: Arc::from(*file),
            documents: documents(text).into(),
        })
    };
    let subject = Subject {
        rendered: &rendered,
        original_name,
        original_namespace: None,
    };

    let cases = expected_attributions();
    for (path, expected) in cases {
        let found = attribute(&subject, &FieldPath::parse(path), &layers, &read_patch).map(|a| {
            let start = a.location.span.start;
            (
                a.location.file.to_string(),
                start.line,
                start.column,
                a.mechanism,
            )
        });
        let expected = expected
            .map(|(file, line, column, mechanism)| (file.to_owned(), line, column, mechanism));
        assert_eq!(found, expected, "{path} in\n{output}");
    }
}
