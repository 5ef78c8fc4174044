use std::sync::Arc;

use super::findings::suggest;
use super::*;
use crate::cluster::profile::KubeVirtVersion;
use crate::load::{LoadOptions, Loaded, load_documents};
use crate::yaml::{Limits, parse_stream};

fn objects(text: &str) -> Vec<Object> {
    let file: Arc<str> = Arc::from("test.yaml");
    let docs = parse_stream(text, Limits::default());
    let mut loaded = Loaded::default();
    load_documents(&file, text, docs, &LoadOptions::default(), &mut loaded);
    assert!(
        !loaded.objects.is_empty(),
        "no object in {text}: {:#?}",
        loaded.findings
    );
    loaded.objects
}

fn check(text: &str) -> Vec<Finding> {
    objects(text).iter().flat_map(check_object).collect()
}

/// (code, path, message, help) of each finding.
fn summary(findings: &[Finding]) -> Vec<(&str, String, String, Option<String>)> {
    findings
        .iter()
        .map(|f| {
            (
                f.rule.code,
                f.path.clone().unwrap_or_default(),
                f.message.clone(),
                f.help.clone(),
            )
        })
        .collect()
}

fn start(finding: &Finding) -> (u32, u32) {
    (
        finding.location.span.start.line,
        finding.location.span.start.column,
    )
}

const PREFERENCE_TYPO: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: typo
spec:
  devices:
    preferredDiskBus: virtio
    preferedDiskBus: virtio
";

#[test]
fn a_typo_is_an_unknown_field_with_a_suggestion_at_the_key() {
    let findings = check(PREFERENCE_TYPO);
    assert_eq!(
        summary(&findings),
        vec![(
            "KV0014",
            "spec.devices.preferedDiskBus".to_owned(),
            "unknown field \"spec.devices.preferedDiskBus\": the API server drops it without an error"
                .to_owned(),
            Some("did you mean `preferredDiskBus`?".to_owned()),
        )]
    );
    let finding = &findings[0];
    assert_eq!(finding.rule.name, "unknown-field");
    assert_eq!(finding.severity, crate::diag::Severity::Error);
    assert_eq!(start(finding), (8, 5));
    assert_eq!(
        (
            finding.location.span.end.line,
            finding.location.span.end.column
        ),
        (8, 28)
    );
    assert_eq!(
        finding.object.as_ref().map(|o| o.name.as_str()),
        Some("typo")
    );
}

#[test]
fn a_case_insensitive_match_comes_first() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata: {name: p, namespace: ns}
spec:
  cpu:
    PreferredCPUTopology: cores
",
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].help.as_deref(),
        Some("did you mean `preferredCPUTopology`?")
    );
    assert_eq!(start(&findings[0]), (6, 5));
}

#[test]
fn a_field_at_the_wrong_depth_points_to_where_it_belongs() {
    // `cpu:` without indented children is null, and the topology lands in `spec`.
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachinePreference
metadata: {name: p, namespace: ns}
spec:
  cpu:
  preferredCPUTopology: cores
",
    );
    assert_eq!(
        summary(&findings),
        vec![(
            "KV0014",
            "spec.preferredCPUTopology".to_owned(),
            "unknown field \"spec.preferredCPUTopology\": the API server drops it without an error"
                .to_owned(),
            Some(
                "did you mean `spec.cpu.preferredCPUTopology`? `preferredCPUTopology` is declared there (check the indentation)"
                    .to_owned()
            ),
        )]
    );
    assert_eq!(start(&findings[0]), (6, 3));
}

#[test]
fn suggestions() {
    let known = ["preferredDiskBus", "preferredDiskCache", "preferredLunBus"];
    assert_eq!(suggest("preferedDiskBus", &known), Some("preferredDiskBus"));
    assert_eq!(suggest("PREFERREDLUNBUS", &known), Some("preferredLunBus"));
    assert_eq!(
        suggest("preferredDiskCahce", &known),
        Some("preferredDiskCache")
    );
    assert_eq!(suggest("somethingElse", &known), None);
    assert_eq!(suggest("cpus", &["cpu", "memory"]), Some("cpu"));
    assert_eq!(suggest("mem", &["cpu", "memory"]), None);
}

#[test]
fn an_unknown_field_without_a_close_name_has_no_help() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 2}
  memory: {guest: 2Gi}
  flavour: large
",
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].path.as_deref(), Some("spec.flavour"));
    assert_eq!(findings[0].help, None);
    assert_eq!(start(&findings[0]), (7, 3));
}

#[test]
fn a_missing_guest_is_required_at_its_parent() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineInstancetype
metadata: {name: it, namespace: ns}
spec:
  cpu:
    model: host-passthrough
  memory:
    guest: 1Gi
",
    );
    assert_eq!(
        summary(&findings),
        vec![(
            "KV0015",
            "spec.cpu.guest".to_owned(),
            "spec.cpu.guest: Required value".to_owned(),
            None
        )]
    );
    assert_eq!(findings[0].rule.name, "schema-violation");
    // The `cpu:` entry, where the field is missing.
    assert_eq!(start(&findings[0]), (5, 3));
}

#[test]
fn a_missing_spec_cpu_and_memory_are_required() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  schedulerName: custom
",
    );
    let messages: Vec<_> = findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(
        messages,
        vec!["spec.cpu: Required value", "spec.memory: Required value"]
    );
    assert!(findings.iter().all(|f| start(f) == (4, 1)));
}

#[test]
fn overcommit_percent_above_100() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 1}
  memory:
    guest: 1Gi
    overcommitPercent: 150
",
    );
    assert_eq!(
        summary(&findings),
        vec![(
            "KV0015",
            "spec.memory.overcommitPercent".to_owned(),
            "spec.memory.overcommitPercent: Invalid value: 150: spec.memory.overcommitPercent in body should be less than or equal to 100".to_owned(),
            None
        )]
    );
    assert_eq!(start(&findings[0]), (8, 5));
}

#[test]
fn overcommit_percent_below_0() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi, overcommitPercent: -5}
",
    );
    assert_eq!(
        findings[0].message,
        "spec.memory.overcommitPercent: Invalid value: -5: spec.memory.overcommitPercent in body should be greater than or equal to 0"
    );
}

#[test]
fn wrong_types_and_quantities() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu:
    guest: \"2\"
  memory:
    guest: 2GB
    maxGuest: true
  gpus:
    - deviceName: nvidia.com/GP102GL
",
    );
    let mut got: Vec<_> = summary(&findings)
        .into_iter()
        .map(|(code, path, message, _)| (code, path, message))
        .collect();
    got.sort();
    let pattern = types::QUANTITY_PATTERN;
    assert_eq!(
        got,
        vec![
            (
                "KV0015",
                "spec.cpu.guest".to_owned(),
                "spec.cpu.guest: Invalid value: \"string\": spec.cpu.guest in body must be of type integer: \"string\"".to_owned()
            ),
            (
                "KV0015",
                "spec.gpus[0].name".to_owned(),
                "spec.gpus[0].name: Required value".to_owned()
            ),
            (
                "KV0015",
                "spec.memory.guest".to_owned(),
                format!("spec.memory.guest: Invalid value: \"2GB\": spec.memory.guest in body should match '{pattern}'")
            ),
            (
                "KV0015",
                "spec.memory.maxGuest".to_owned(),
                "spec.memory.maxGuest: Invalid value: \"boolean\": spec.memory.maxGuest in body must be of type integer,string: \"boolean\"".to_owned()
            ),
        ]
    );
    let gpu = findings
        .iter()
        .find(|f| f.path.as_deref() == Some("spec.gpus[0].name"))
        .expect("gpu finding");
    // The list item that lacks the name.
    assert_eq!(start(gpu), (11, 7));
}

#[test]
fn a_yaml_1_1_boolean_in_a_string_map() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {name: p}
spec:
  annotations:
    example.com/enabled: yes
",
    );
    assert_eq!(
        summary(&findings)
            .into_iter()
            .map(|(_, path, message, _)| (path, message))
            .collect::<Vec<_>>(),
        vec![(
            "spec.annotations[example.com/enabled]".to_owned(),
            "spec.annotations[example.com/enabled]: Invalid value: \"boolean\": spec.annotations[example.com/enabled] in body must be of type string: \"boolean\"".to_owned()
        )]
    );
    assert_eq!(start(&findings[0]), (6, 5));
}

#[test]
fn digit_map_keys_stay_keys() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi}
  nodeSelector:
    \"8080\": 8080
",
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].path.as_deref(), Some("spec.nodeSelector.8080"));
    assert_eq!(start(&findings[0]), (8, 5));
}

#[test]
fn null_fields_are_dropped_before_validation() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu:
    guest: ~
    model: null
  memory: {guest: 1Gi}
",
    );
    assert_eq!(
        summary(&findings)
            .into_iter()
            .map(|(_, _, message, _)| message)
            .collect::<Vec<_>>(),
        vec!["spec.cpu.guest: Required value".to_owned()]
    );
}

#[test]
fn preference_requirements_need_their_guest() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {name: p}
spec:
  requirements:
    cpu: {}
    memory:
      guest: 1Gi
",
    );
    assert_eq!(
        summary(&findings)
            .into_iter()
            .map(|(_, path, message, _)| (path, message))
            .collect::<Vec<_>>(),
        vec![(
            "spec.requirements.cpu.guest".to_owned(),
            "spec.requirements.cpu.guest: Required value".to_owned()
        )]
    );
    assert_eq!(start(&findings[0]), (6, 5));
}

#[test]
fn top_level_typos_and_a_missing_spec() {
    let findings = check(
        "\
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachinePreference
metadata: {name: p, namespace: ns}
specs:
  cpu: {preferredCPUTopology: cores}
",
    );
    let got: Vec<_> = summary(&findings)
        .into_iter()
        .map(|(code, path, _, help)| (code, path, help))
        .collect();
    assert!(
        got.contains(&("KV0015", "spec".to_owned(), None)),
        "{got:#?}"
    );
    assert!(
        got.contains(&(
            "KV0014",
            "specs".to_owned(),
            Some("did you mean `spec`?".to_owned())
        )),
        "{got:#?}"
    );
}

const CATALOG_LIKE: &str = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: gn1.xlarge
  annotations:
    instancetype.kubevirt.io/description: GPU instance type
  labels:
    instancetype.kubevirt.io/vendor: kubevirt.io
spec:
  cpu:
    guest: 4
    model: host-passthrough
    dedicatedCPUPlacement: true
    isolateEmulatorThread: true
    numa:
      guestMappingPassthrough: {}
    realtime:
      mask: \"0-3,^1\"
    maxSockets: 8
  memory:
    guest: 16Gi
    hugepages:
      pageSize: 1Gi
    maxGuest: 64Gi
  gpus:
    - name: gpu1
      deviceName: nvidia.com/A400
      tag: first
      virtualGPUOptions:
        display:
          enabled: true
          ramFB: {enabled: false}
    - name: gpu2
      claimName: claim
      requestName: request
  hostDevices:
    - name: hd1
      deviceName: intel.com/qat
  ioThreadsPolicy: supplementalPool
  ioThreads:
    supplementalPoolThreadCount: 4
  launchSecurity:
    sev:
      policy: {encryptedState: true}
      attestation: {}
      session: c2Vzc2lvbg==
      dhCert: Y2VydA==
  nodeSelector:
    kubernetes.io/arch: amd64
  schedulerName: custom-scheduler
  annotations:
    example.com/note: gpu
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: windows.11
spec:
  clock:
    preferredClockOffset:
      utc: {offsetSeconds: 3600}
    preferredTimer:
      hpet: {present: false}
      hyperv: {}
      pit: {tickPolicy: delay}
      rtc: {tickPolicy: catchup, track: guest}
      kvm: {present: true}
  cpu:
    preferredCPUTopology: sockets
    spreadOptions: {across: SocketsCores, ratio: 2}
    preferredCPUFeatures:
      - name: vmx
        policy: require
  devices:
    preferredAutoattachGraphicsDevice: true
    preferredAutoattachMemBalloon: false
    preferredAutoattachPodInterface: true
    preferredAutoattachSerialConsole: true
    preferredAutoattachInputDevice: true
    preferredDisableHotplug: false
    preferredVirtualGPUOptions: {display: {enabled: false}}
    preferredSoundModel: ich9
    preferredUseVirtioTransitional: false
    preferredInputBus: usb
    preferredInputType: tablet
    preferredDiskBus: sata
    preferredLunBus: scsi
    preferredCdromBus: sata
    preferredDiskDedicatedIoThread: true
    preferredDiskCache: none
    preferredDiskIO: native
    preferredDiskBlockSize:
      custom: {logical: 512, physical: 4096, discardGranularity: 4096}
    preferredInterfaceModel: e1000e
    preferredRng: {}
    preferredBlockMultiQueue: true
    preferredNetworkInterfaceMultiQueue: true
    preferredTPM: {persistent: true}
    preferredInterfaceMasquerade: {}
    preferredPanicDeviceModel: hyperv
    preferredVideoType: virtio
  features:
    preferredAcpi: {}
    preferredApic: {enabled: true, endOfInterrupt: false}
    preferredHyperv:
      relaxed: {}
      vapic: {}
      spinlocks: {spinlocks: 8191}
      vpindex: {}
      runtime: {}
      synic: {}
      synictimer: {direct: {}}
      reset: {}
      vendorid: {vendorid: KubeVirt}
      frequencies: {}
      reenlightenment: {}
      tlbflush: {direct: {}, extended: {}}
      ipi: {}
      evmcs: {}
    preferredKvm: {hidden: false}
    preferredPvspinlock: {enabled: false}
    preferredSmm: {}
  firmware:
    preferredUseBios: false
    preferredUseBiosSerial: false
    preferredUseEfi: true
    preferredUseSecureBoot: true
    preferredEfi: {secureBoot: true, persistent: true}
  machine:
    preferredMachineType: pc-q35-rhel9.4.0
  volumes:
    preferredStorageClassName: fast
  preferredSubdomain: vms
  preferredTerminationGracePeriodSeconds: 3600
  requirements:
    cpu: {guest: 2}
    memory: {guest: 4Gi}
    architecture: amd64
  annotations:
    example.com/os: windows
  preferSpreadSocketToCoreRatio: 2
  preferredArchitecture: amd64
  preferredLaunchSecurity:
    snp: {}
";

#[test]
fn catalog_like_objects_have_no_findings() {
    let objects = objects(CATALOG_LIKE);
    assert_eq!(objects.len(), 2);
    for object in &objects {
        assert!(has_builtin_schema(object));
        let findings = check_object(object);
        assert!(
            findings.is_empty(),
            "{}: {:#?}",
            object.name,
            summary(&findings)
        );
    }
}

#[test]
fn the_typed_model_reads_the_catalog_like_objects() {
    for object in objects(CATALOG_LIKE) {
        let json = object.node.to_json();
        if object.kind == "VirtualMachineClusterInstancetype" {
            let typed: types::VirtualMachineClusterInstancetype =
                serde_json::from_value(json.clone()).expect("decodes");
            assert_eq!(typed.spec.cpu.guest, 4);
            assert_eq!(
                typed.spec.memory.guest,
                types::Quantity::String("16Gi".into())
            );
            assert_eq!(typed.spec.gpus.len(), 2);
            // Encoding gives the same JSON back (Go's omitempty is kept).
            let mut back = serde_json::to_value(&typed).expect("encodes");
            let mut original = json;
            for value in [&mut back, &mut original] {
                if let Some(map) = value.as_object_mut() {
                    map.remove("metadata");
                }
            }
            assert_eq!(back, original);
        } else {
            let typed: types::VirtualMachineClusterPreference =
                serde_json::from_value(json).expect("decodes");
            let devices = typed.spec.devices.expect("devices");
            assert_eq!(devices.preferred_disk_bus, "sata");
            assert_eq!(devices.preferred_disk_io, "native");
        }
    }
}

#[test]
fn every_served_version_is_checked_and_others_are_not() {
    for (version, expected) in [("v1alpha1", 1), ("v1alpha2", 1), ("v1beta1", 1), ("v1", 0)] {
        let text = PREFERENCE_TYPO.replace("v1beta1", version);
        assert_eq!(check(&text).len(), expected, "{version}");
    }
    let other_group = PREFERENCE_TYPO.replace("instancetype.kubevirt.io", "example.com");
    assert!(check(&other_group).is_empty());
}

#[test]
fn fields_the_target_release_does_not_declare_are_unknown() {
    let text = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata: {name: p}
spec:
  preferredArchitecture: arm64
  requirements:
    architecture: arm64
";
    let object = &objects(text)[0];
    let at = |minor| {
        check_object_for_release(object, KubeVirtVersion::new(1, minor))
            .into_iter()
            .map(|f| (f.rule.code, f.path.unwrap_or_default(), f.help))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        at(6),
        vec![
            (
                "KV0014",
                "spec.preferredArchitecture".to_owned(),
                Some("`spec.preferredArchitecture` is declared from KubeVirt v1.7 on; the target release, v1.6, prunes it".to_owned())
            ),
            (
                "KV0014",
                "spec.requirements.architecture".to_owned(),
                Some("`spec.requirements.architecture` is declared from KubeVirt v1.7 on; the target release, v1.6, prunes it".to_owned())
            ),
        ]
    );
    assert!(at(7).is_empty());
    assert!(at(9).is_empty());
    assert!(
        at(12).is_empty(),
        "later releases are read with the newest schema"
    );
    assert!(check_object(object).is_empty());
}

#[test]
fn older_releases_required_the_gpu_device_name() {
    let text = "\
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata: {name: it}
spec:
  cpu: {guest: 1}
  memory: {guest: 1Gi}
  gpus:
    - name: gpu1
      claimName: claim
      requestName: gpu
";
    let object = &objects(text)[0];
    let at = |minor| {
        let mut got: Vec<_> = check_object_for_release(object, KubeVirtVersion::new(1, minor))
            .into_iter()
            .map(|f| (f.rule.code, f.message))
            .collect();
        got.sort();
        got
    };
    assert_eq!(
        at(5),
        vec![
            (
                "KV0014",
                "unknown field \"spec.gpus[0].claimName\": the API server drops it without an error"
                    .to_owned()
            ),
            (
                "KV0014",
                "unknown field \"spec.gpus[0].requestName\": the API server drops it without an error"
                    .to_owned()
            ),
            (
                "KV0015",
                "spec.gpus[0].deviceName: Required value".to_owned()
            ),
        ]
    );
    assert!(at(6).is_empty());
}

#[test]
fn vm_matchers() {
    let vm = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: vm, namespace: ns}
spec:
  instancetype:
    name: u1.medium
    kind: VirtualMachineClusterInstancetype
  preference:
    nmae: fedora
    revisionName: 7
  runStrategy: Always
  template:
    spec:
      domain: {devices: {}}
";
    let objects = objects(vm);
    assert!(check_object(&objects[0]).is_empty());
    let findings = check_vm_matchers(&objects[0]);
    let mut got: Vec<_> = summary(&findings)
        .into_iter()
        .map(|(code, path, _, help)| (code, path, help))
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            (
                "KV0014",
                "spec.preference.nmae".to_owned(),
                Some("did you mean `name`?".to_owned())
            ),
            ("KV0015", "spec.preference.revisionName".to_owned(), None),
        ]
    );
}

// --------------------------------------------------------------------------------------------
// --schema-location

const WIDGET_SCHEMA: &str = r#"{
  "type": "object",
  "additionalProperties": false,
  "required": ["spec"],
  "properties": {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "size": {"type": "integer", "maximum": 10, "exclusiveMaximum": true},
        "colour": {"$ref": "_definitions.json#/definitions/colour"}
      }
    }
  }
}"#;

const DEFINITIONS: &str =
    r#"{"definitions": {"colour": {"type": "string", "enum": ["red", "blue"]}}}"#;

const WIDGET: &str = "\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: ns}
spec:
  size: 10
  colour: green
  sizes: 3
";

fn widget_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-example-v1.json"), WIDGET_SCHEMA).expect("write");
    std::fs::write(dir.path().join("_definitions.json"), DEFINITIONS).expect("write");
    dir
}

fn widget_findings(locations: &SchemaLocations) -> Vec<(&'static str, String, Option<String>)> {
    objects(WIDGET)
        .iter()
        .flat_map(|object| check_with_locations(object, locations))
        .map(|f| (f.rule.code, f.message, f.help))
        .collect()
}

#[test]
fn schema_location_directory() {
    let dir = widget_dir();
    let locations =
        load_locations(&[dir.path().display().to_string()]).expect("a directory location");
    let mut findings = widget_findings(&locations);
    findings.sort();
    assert_eq!(
        findings,
        vec![
            (
                "KV0014",
                "unknown field \"spec.sizes\": the API server drops it without an error".to_owned(),
                Some("did you mean `size`?".to_owned())
            ),
            (
                "KV0015",
                "spec.colour: Unsupported value: \"green\": supported values: \"red\", \"blue\""
                    .to_owned(),
                None
            ),
            (
                "KV0015",
                "spec.size: Invalid value: 10: spec.size in body should be less than 10".to_owned(),
                None
            ),
        ]
    );
    assert!(locations.problems().is_empty());

    let object = &objects(WIDGET)[0];
    let unknown = check_with_locations(object, &locations)
        .into_iter()
        .find(|f| f.rule.code == "KV0014")
        .expect("unknown field");
    assert_eq!(start(&unknown), (7, 3));
}

#[test]
fn schema_location_plain_file_names_and_templates() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-v1.json"), WIDGET_SCHEMA).expect("write");
    std::fs::write(dir.path().join("_definitions.json"), DEFINITIONS).expect("write");
    let plain = load_locations(&[dir.path().display().to_string()]).expect("directory");
    assert_eq!(widget_findings(&plain).len(), 3);

    let template = format!(
        "{}/{{{{ .ResourceKind }}}}-{{{{.ResourceAPIVersion}}}}.json",
        dir.path().display()
    );
    let templated = load_locations(&[template]).expect("template");
    assert_eq!(widget_findings(&templated).len(), 3);

    // The first location without the file is skipped; a kind without a schema has no findings.
    let empty = tempfile::tempdir().expect("tempdir");
    let both = load_locations(&[
        empty.path().display().to_string(),
        dir.path().display().to_string(),
    ])
    .expect("two directories");
    assert_eq!(widget_findings(&both).len(), 3);
    let nothing = load_locations(&[empty.path().display().to_string()]).expect("directory");
    assert!(widget_findings(&nothing).is_empty());
}

#[test]
fn schema_location_skips_broken_files_and_builtin_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("widget-example-v1.json"), "{ not json").expect("write");
    let locations = load_locations(&[dir.path().display().to_string()]).expect("directory");
    assert!(widget_findings(&locations).is_empty());
    assert_eq!(locations.problems().len(), 1);

    // The built-in schema wins for the four kinds, whatever the locations hold.
    std::fs::write(
        dir.path()
            .join("virtualmachineclusterpreference-instancetype-v1beta1.json"),
        r#"{"type": "string"}"#,
    )
    .expect("write");
    let object = &objects(PREFERENCE_TYPO)[0];
    assert!(check_with_locations(object, &locations).is_empty());
}

#[test]
fn schema_location_errors() {
    for (location, error) in [
        ("https://example.com/{{ .ResourceKind }}.json", "not URLs"),
        ("HTTP://example.com/schemas", "not URLs"),
        ("default", "not URLs"),
        ("/nonexistent/kvlint/schemas", "not a directory"),
        ("schemas/{{ .Kind }}.json", "unknown placeholder"),
        ("schemas/{{ .ResourceKind .json", "without"),
        ("", "empty"),
    ] {
        let result = load_locations(&[location.to_owned()]);
        let message = result.expect_err(location);
        assert!(message.contains(error), "{location}: {message}");
    }
    assert!(load_locations(&[]).expect("no locations").is_empty());
}

#[test]
fn kubeconform_names() {
    let names = locations::Names::new("apps/v1", "Deployment");
    assert_eq!(
        (
            names.kind.as_str(),
            names.version.as_str(),
            names.group.as_str(),
            names.kind_suffix.as_str()
        ),
        ("deployment", "v1", "apps", "-apps-v1")
    );
    let names = locations::Names::new("v1", "ConfigMap");
    assert_eq!(
        (
            names.kind.as_str(),
            names.version.as_str(),
            names.group.as_str(),
            names.kind_suffix.as_str()
        ),
        ("configmap", "v1", "v1", "-v1")
    );
    let names = locations::Names::new(
        "instancetype.kubevirt.io/v1beta1",
        "VirtualMachinePreference",
    );
    assert_eq!(names.kind_suffix, "-instancetype-v1beta1");
}
