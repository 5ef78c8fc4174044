use super::patches::{parse_pointer, relative_to};
use super::transformers::split_image;
use super::*;
use crate::yaml::{Limits, parse_stream};

/// A small repository: a base, a component, overlays using every patch form.
const FILES: &[(&str, &str)] = &[
    (
        "apps/web/overlays/dev/kustomization.yaml",
        "\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: web-dev
namePrefix: dev-
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
commonLabels:
  app: web
  tier: frontend
commonAnnotations:
  owner: team-a
",
    ),
    (
        "apps/web/overlays/dev/size.yaml",
        "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Halted
  instancetype:
    name: u1.large
",
    ),
    (
        "apps/web/overlays/dev/memory.yaml",
        "\
- op: add
  path: /spec/template/spec/domain/memory
  value:
    guest: 4Gi
    hugepages:
      pageSize: 2Mi
",
    ),
    (
        "apps/web/components/gpu/kustomization.yaml",
        "\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
patches:
  - target:
      group: kubevirt.io
      kind: VirtualMachine
    patch: |
      - op: add
        path: /spec/template/spec/domain/devices/gpus/-
        value:
          name: gpu1
          deviceName: nvidia.com/GA102GL
",
    ),
    (
        "apps/web/overlays/prod/kustomization.yaml",
        "\
resources:
  - ../../base
patchesStrategicMerge:
  - disks.yaml
  - |-
    apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: web
    spec:
      runStrategy: Manual
patchesJson6902:
  - target:
      group: kubevirt.io
      version: v1
      kind: VirtualMachine
      name: web
    path: cpu.yaml
  - target: {version: v1, kind: VirtualMachine, name: web}
    patch: '[{\"op\": \"replace\", \"path\": \"/spec/runStrategy\", \"value\": \"Always\"}]'
patches:
  - patch: |-
      apiVersion: kubevirt.io/v1
      kind: VirtualMachine
      metadata:
        name: web
      spec:
        template:
          metadata:
            labels:
              size: big
  - patch: |-
      apiVersion: kubevirt.io/v1
      kind: VirtualMachine
      metadata:
        name: other
      spec:
        runStrategy: RerunOnFailure
",
    ),
    (
        "apps/web/overlays/prod/disks.yaml",
        "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        devices:
          disks:
            - name: root
              disk:
                bus: sata
            - name: extra
              disk:
                bus: virtio
",
    ),
    (
        "apps/web/overlays/prod/cpu.yaml",
        "\
- op: replace
  path: /spec/template/spec/domain/cpu/cores
  value: 4
",
    ),
    (
        "clusters/eu/kustomization.yaml",
        "\
namePrefix: eu-
nameSuffix: -a
namespace: eu-web
labels:
  - pairs:
      tier: backend
      team: vms
images:
  - name: app
    newName: registry.example/app
    newTag: v2
commonLabels:
  tier: backend
",
    ),
];

fn text_of(file: &str) -> &'static str {
    FILES
        .iter()
        .find(|(path, _)| *path == file)
        .map_or_else(|| panic!("no file {file}"), |(_, text)| *text)
}

fn documents(text: &str) -> Vec<Node> {
    parse_stream(text, Limits::default())
        .into_iter()
        .map(|document| document.expect("valid YAML").root)
        .collect()
}

fn read_patch(path: &str) -> Option<PatchFile> {
    let text = FILES.iter().find(|(file, _)| *file == path)?.1;
    Some(PatchFile {
        file: path.into(),
        documents: documents(text).into(),
    })
}

/// Where `attribute` puts `path` of the rendered object: (file, line, column, mechanism).
fn attribution(
    layers: &[&str],
    rendered: &str,
    original_name: Option<&str>,
    path: &str,
) -> Option<(String, u32, u32, Mechanism)> {
    let files: Vec<Arc<str>> = layers.iter().map(|&file| Arc::from(file)).collect();
    let roots: Vec<Node> = layers
        .iter()
        .map(|file| documents(text_of(file)).remove(0))
        .collect();
    let layers: Vec<Layer<'_>> = layers
        .iter()
        .zip(&files)
        .zip(&roots)
        .map(|((file, path), root)| Layer {
            file: path,
            text: text_of(file),
            root,
        })
        .collect();
    let rendered = documents(rendered).remove(0).to_json();
    let subject = Subject {
        rendered: &rendered,
        original_name,
        original_namespace: None,
    };
    let found = attribute(&subject, &FieldPath::parse(path), &layers, &read_patch)?;
    let start = found.location.span.start;
    Some((
        found.location.file.to_string(),
        start.line,
        start.column,
        found.mechanism,
    ))
}

const DEV: &[&str] = &[
    "apps/web/components/gpu/kustomization.yaml",
    "apps/web/overlays/dev/kustomization.yaml",
];

/// The dev overlay's VM as `kustomize build` renders it.
const DEV_VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: dev-web
  namespace: web-dev
  labels: {app: web, tier: frontend}
  annotations: {owner: team-a}
spec:
  runStrategy: Halted
  instancetype: {name: u1.large}
  template:
    spec:
      domain:
        memory: {guest: 4Gi, hugepages: {pageSize: 2Mi}}
        devices:
          disks: [{name: root, disk: {bus: virtio}}]
          gpus: [{name: gpu1, deviceName: nvidia.com/GA102GL}]
";

const PROD: &[&str] = &["apps/web/overlays/prod/kustomization.yaml"];

/// The prod overlay's VM: the disk list replaced by the patch's (units.md §1.5).
const PROD_VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  template:
    metadata:
      labels: {size: big}
    spec:
      domain:
        cpu: {cores: 4}
        devices:
          disks:
            - {name: root, disk: {bus: sata}}
            - {name: extra, disk: {bus: virtio}}
";

type Expected = Option<(&'static str, u32, u32, Mechanism)>;

struct Case {
    name: &'static str,
    layers: &'static [&'static str],
    rendered: &'static str,
    original_name: Option<&'static str>,
    path: &'static str,
    expected: Expected,
}

const DEV_FILE: &str = "apps/web/overlays/dev/kustomization.yaml";
const PROD_FILE: &str = "apps/web/overlays/prod/kustomization.yaml";

fn patch_cases() -> Vec<Case> {
    vec![
        Case {
            name: "strategic-merge patch file, matched by the name before the prefix",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.instancetype.name",
            expected: Some((
                "apps/web/overlays/dev/size.yaml",
                8,
                5,
                Mechanism::StrategicMergeFile,
            )),
        },
        Case {
            name: "the original name unknown: found by taking the prefix off",
            layers: DEV,
            rendered: DEV_VM,
            original_name: None,
            path: "spec.instancetype.name",
            expected: Some((
                "apps/web/overlays/dev/size.yaml",
                8,
                5,
                Mechanism::StrategicMergeFile,
            )),
        },
        Case {
            name: "a later inline JSON 6902 operation hides the earlier patch file",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.runStrategy",
            expected: Some((DEV_FILE, 20, 9, Mechanism::Json6902Inline)),
        },
        Case {
            name: "a value no patch wrote is not attributed to a patch of the field",
            layers: DEV,
            rendered: &DEV_VM_MANUAL,
            original_name: Some("web"),
            path: "spec.runStrategy",
            expected: None,
        },
        Case {
            name: "a removal explains an absent field",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.autoattachGraphicsDevice",
            expected: Some((DEV_FILE, 22, 9, Mechanism::Json6902Inline)),
        },
        Case {
            name: "JSON 6902 file: a field inside the value the operation added",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.memory.hugepages.pageSize",
            expected: Some((
                "apps/web/overlays/dev/memory.yaml",
                6,
                7,
                Mechanism::Json6902File,
            )),
        },
        Case {
            name: "a component layer's inline operation appending to a list",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.gpus[0].deviceName",
            expected: Some((
                "apps/web/components/gpu/kustomization.yaml",
                12,
                11,
                Mechanism::Json6902Inline,
            )),
        },
        Case {
            name: "namePrefix",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "metadata.name",
            expected: Some((DEV_FILE, 4, 1, Mechanism::NamePrefix)),
        },
        Case {
            name: "namespace",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "metadata.namespace",
            expected: Some((DEV_FILE, 3, 1, Mechanism::Namespace)),
        },
        Case {
            name: "commonLabels",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "metadata.labels.tier",
            expected: Some((DEV_FILE, 25, 3, Mechanism::CommonLabels)),
        },
    ]
}

fn option_cases() -> Vec<Case> {
    vec![
        Case {
            name: "commonAnnotations",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "metadata.annotations.owner",
            expected: Some((DEV_FILE, 27, 3, Mechanism::CommonAnnotations)),
        },
        Case {
            name: "a field from the base is not attributed",
            layers: DEV,
            rendered: DEV_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.disks[0].disk.bus",
            expected: None,
        },
        Case {
            name: "a list the strategic-merge patch replaced comes from the patch",
            layers: PROD,
            rendered: PROD_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.disks[1].disk.bus",
            expected: Some((
                "apps/web/overlays/prod/disks.yaml",
                16,
                17,
                Mechanism::StrategicMergeFile,
            )),
        },
        Case {
            name: "a merged list item is found by its name",
            layers: PROD,
            rendered: PROD_VM_MERGED,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.disks[1].disk.bus",
            expected: Some((
                "apps/web/overlays/prod/disks.yaml",
                13,
                17,
                Mechanism::StrategicMergeFile,
            )),
        },
        Case {
            name: "a merged list item the patch does not name is not attributed",
            layers: PROD,
            rendered: PROD_VM_MERGED,
            original_name: Some("web"),
            path: "spec.template.spec.domain.devices.disks[0].disk.bus",
            expected: None,
        },
        Case {
            name: "patchesJson6902 file",
            layers: PROD,
            rendered: PROD_VM,
            original_name: Some("web"),
            path: "spec.template.spec.domain.cpu.cores",
            expected: Some((
                "apps/web/overlays/prod/cpu.yaml",
                3,
                3,
                Mechanism::PatchesJson6902,
            )),
        },
        Case {
            name: "patchesJson6902 inline JSON, applied after every strategic-merge patch",
            layers: PROD,
            rendered: PROD_VM,
            original_name: Some("web"),
            path: "spec.runStrategy",
            expected: Some((PROD_FILE, 20, 61, Mechanism::PatchesJson6902)),
        },
        Case {
            name: "an inline patchesStrategicMerge item",
            layers: PROD,
            rendered: &PROD_VM_MANUAL,
            original_name: Some("web"),
            path: "spec.runStrategy",
            expected: Some((PROD_FILE, 11, 7, Mechanism::StrategicMergeInline)),
        },
        Case {
            name: "an inline strategic-merge patch of patches[]",
            layers: PROD,
            rendered: PROD_VM,
            original_name: Some("web"),
            path: "spec.template.metadata.labels.size",
            expected: Some((PROD_FILE, 31, 15, Mechanism::StrategicMergeInline)),
        },
        Case {
            name: "a patch naming another object is not chosen, value or not",
            layers: PROD,
            rendered: &PROD_VM_RERUN,
            original_name: Some("web"),
            path: "spec.runStrategy",
            expected: None,
        },
    ]
}

fn list_and_layer_cases() -> Vec<Case> {
    vec![
        Case {
            name: "the outermost prefix wins over the inner ones",
            layers: &[
                "apps/web/overlays/dev/kustomization.yaml",
                "clusters/eu/kustomization.yaml",
            ],
            rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a}\n",
            original_name: Some("web"),
            path: "metadata.name",
            expected: Some((
                "clusters/eu/kustomization.yaml",
                2,
                1,
                Mechanism::NameSuffix,
            )),
        },
        Case {
            name: "commonLabels, applied after labels[], wins a key both set",
            layers: &[
                "apps/web/overlays/dev/kustomization.yaml",
                "clusters/eu/kustomization.yaml",
            ],
            rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a, labels: {tier: backend}}\n",
            original_name: Some("web"),
            path: "metadata.labels.tier",
            expected: Some((
                "clusters/eu/kustomization.yaml",
                13,
                3,
                Mechanism::CommonLabels,
            )),
        },
        Case {
            name: "labels[].pairs",
            layers: &[
                "apps/web/overlays/dev/kustomization.yaml",
                "clusters/eu/kustomization.yaml",
            ],
            rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a, labels: {team: vms}}\n",
            original_name: Some("web"),
            path: "metadata.labels.team",
            expected: Some(("clusters/eu/kustomization.yaml", 7, 7, Mechanism::Labels)),
        },
        Case {
            name: "the inner layer's label when the outer one does not set it",
            layers: &[
                "apps/web/overlays/dev/kustomization.yaml",
                "clusters/eu/kustomization.yaml",
            ],
            rendered: "kind: VirtualMachine\nmetadata: {name: eu-dev-web-a, labels: {app: web}}\n",
            original_name: Some("web"),
            path: "metadata.labels.app",
            expected: Some((DEV_FILE, 24, 3, Mechanism::CommonLabels)),
        },
        Case {
            name: "images",
            layers: &["clusters/eu/kustomization.yaml"],
            rendered: "\
kind: Deployment
metadata: {name: eu-app-a}
spec: {template: {spec: {containers: [{name: c, image: 'registry.example/app:v2'}]}}}
",
            original_name: Some("app"),
            path: "spec.template.spec.containers[0].image",
            expected: Some(("clusters/eu/kustomization.yaml", 9, 5, Mechanism::Images)),
        },
    ]
}

#[test]
fn each_mechanism_points_at_the_line_that_wrote_the_value() {
    let cases = [patch_cases(), option_cases(), list_and_layer_cases()]
        .into_iter()
        .flatten();
    for case in cases {
        let found = attribution(case.layers, case.rendered, case.original_name, case.path);
        let expected = case
            .expected
            .map(|(file, line, column, mechanism)| (file.to_owned(), line, column, mechanism));
        assert_eq!(found, expected, "{}", case.name);
    }
}

static DEV_VM_MANUAL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| DEV_VM.replace("runStrategy: Halted", "runStrategy: Manual"));
static PROD_VM_MANUAL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| PROD_VM.replace("runStrategy: Always", "runStrategy: Manual"));
static PROD_VM_RERUN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    PROD_VM.replace("runStrategy: Always", "runStrategy: RerunOnFailure")
});

/// The prod VM had the disk list been merged by name (with an `openapi` schema): the
/// base's `cloudinit` disk first, then the patched `root` one.
const PROD_VM_MERGED: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        devices:
          disks:
            - {name: cloudinit, disk: {bus: sata}}
            - {name: root, disk: {bus: sata}}
";

#[test]
fn pointers_unescape_and_paths_resolve_lexically() {
    assert_eq!(
        parse_pointer("/metadata/annotations/kubevirt.io~1a~0b"),
        Some(vec![
            "metadata".to_owned(),
            "annotations".to_owned(),
            "kubevirt.io/a~b".to_owned()
        ])
    );
    assert_eq!(parse_pointer(""), Some(Vec::new()));
    assert_eq!(parse_pointer("spec"), None);
    assert_eq!(parse_pointer("/a~2"), None);
    assert_eq!(
        relative_to(
            "apps/web/overlays/dev/kustomization.yaml",
            "../../base/./p.yaml"
        ),
        "apps/web/base/p.yaml"
    );
    assert_eq!(relative_to("kustomization.yaml", "../x.yaml"), "../x.yaml");
    assert_eq!(split_image("host:5000/app"), ("host:5000/app", None));
    assert_eq!(split_image("app@sha256:ab"), ("app", Some("sha256:ab")));
}

#[test]
fn malformed_kustomizations_and_objects_attribute_nothing_and_never_panic() {
    let kustomization = "\
patchesStrategicMerge: [{a: 1}, 3, no-such-file.yaml, \"kind: [\\n\"]
patchesJson6902:
  - {target: 3, path: x}
  - target: {kind: VirtualMachine}
    patch: \"- op: add\\n  path: ~bad\\n  value: 1\"
  - target: {kind: VirtualMachine}
    patch: '[{op: add, path: /spec/~2, value: 1}, {op: 3}, 7, {op: add, path: [1]}]'
patches:
  - path: [1]
  - patch: 5
  - {patch: x, path: y}
  - target: {kind: VirtualMachine, name: '(web'}
    patch: \"- 1\\n- 2\"
  - patch: \"[]\"
namePrefix: [x]
nameSuffix: ''
namespace: {a: b}
commonLabels: [1]
commonAnnotations: x
labels: [{pairs: 3}, 4]
images: [{name: app}, 5]
";
    let root = documents(kustomization).remove(0);
    let file: Arc<str> = Arc::from("k/kustomization.yaml");
    let layer = Layer {
        file: &file,
        text: kustomization,
        root: &root,
    };
    let objects = [
        "kind: VirtualMachine\nmetadata: {name: web}\nspec: {a: [1, {name: x}]}\n",
        "[1, 2]\n",
        "plain\n",
        "kind: [VirtualMachine]\nmetadata: [web]\n",
    ];
    let paths = [
        "",
        "metadata.name",
        "metadata.namespace",
        "metadata.labels.x",
        "metadata.annotations.x",
        "spec.a[1].name",
        "spec.a[7]",
        "spec[0]",
        "spec.containers[0].image",
    ];
    for object in objects {
        let rendered = documents(object).remove(0).to_json();
        for original_name in [None, Some("web")] {
            let subject = Subject {
                rendered: &rendered,
                original_name,
                original_namespace: Some("ns"),
            };
            for path in paths {
                let found = attribute(
                    &subject,
                    &FieldPath::parse(path),
                    &[layer, layer],
                    &read_patch,
                );
                assert_eq!(found, None, "{path} of {object}");
            }
        }
    }
}
