use std::sync::Arc;

use super::findings::suggest;
use super::*;
use crate::cluster::profile::KubeVirtVersion;
use crate::load::{LoadOptions, load_text};

mod catalog;
mod schema_locations;

fn objects(text: &str) -> Vec<Object> {
    let loaded = load_text(&Arc::from("test.yaml"), text, &LoadOptions::default());
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
