//! The catalog-like objects, the served versions and what each target release declares.

use super::*;

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
