use serde_json::{Value, json};

use super::{Field, Kind, PathSegment, Shape, goval, normalize_vm, shape_at};

/// Stand-in for the quantity module: "1024Mi" becomes "1Gi", "bad…" is invalid, numbers
/// print as strings, everything else is already canonical.
fn canonical(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if text == "1024Mi" => Some("1Gi".to_owned()),
        Value::String(text) if text.starts_with("bad") => None,
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

fn normalized(mut vm: Value) -> Value {
    normalize_vm(&mut vm, &canonical);
    vm
}

/// A VM whose `spec.template.spec` is `vmi_spec`, normalised; returns the normalised
/// `spec.template.spec`.
fn vmi(vmi_spec: Value) -> Value {
    let mut vm = json!({ "spec": { "template": {} } });
    vm["spec"]["template"]["spec"] = vmi_spec;
    normalized(vm)["spec"]["template"]["spec"].take()
}

/// Normalised `domain` of a VM whose domain is `domain`.
fn domain(domain: Value) -> Value {
    let mut spec = json!({});
    spec["domain"] = domain;
    vmi(spec)["domain"].take()
}

#[test]
fn minimal_vm_gets_go_zero_structs_in_go_order() {
    let vm = normalized(json!({
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": { "name": "vm", "creationTimestamp": null },
        "spec": { "runStrategy": "Always", "template": { "spec": {} } }
    }));
    let expected = json!({
        "kind": "VirtualMachine",
        "apiVersion": "kubevirt.io/v1",
        "metadata": { "name": "vm" },
        "spec": {
            "runStrategy": "Always",
            "template": {
                "metadata": {},
                "spec": { "domain": { "resources": {}, "devices": {} } }
            }
        },
        "status": {}
    });
    assert_eq!(vm.to_string(), expected.to_string());
}

#[test]
fn template_metadata_and_domain_resources_are_created() {
    let vm = normalized(json!({ "spec": { "template": { "spec": { "domain": {} } } } }));
    assert_eq!(vm["spec"]["template"]["metadata"], json!({}));
    assert_eq!(
        vm["spec"]["template"]["spec"]["domain"]["resources"],
        json!({})
    );
    assert_eq!(
        vm["spec"]["template"]["spec"]["domain"]["devices"],
        json!({})
    );
}

#[test]
fn missing_template_prints_null() {
    let vm = normalized(json!({ "metadata": {}, "spec": {} }));
    assert_eq!(vm["spec"], json!({ "template": null }));
}

#[test]
fn features_get_acpi() {
    assert_eq!(
        domain(json!({ "features": {} }))["features"],
        json!({ "acpi": {} })
    );
    let features = domain(json!({ "features": { "smm": {}, "acpi": { "enabled": false } } }));
    assert_eq!(
        features["features"].to_string(),
        r#"{"acpi":{"enabled":false},"smm":{}}"#
    );
}

#[test]
fn empty_maps_lists_and_strings_are_dropped() {
    let spec = vmi(json!({
        "nodeSelector": {},
        "volumes": [],
        "networks": [],
        "hostname": "",
        "domain": {}
    }));
    assert_eq!(
        spec,
        json!({ "domain": { "resources": {}, "devices": {} } })
    );
    let vm = normalized(json!({
        "spec": {
            "instancetype": { "name": "u1.small", "revisionName": "" },
            "preference": {},
            "template": {}
        }
    }));
    assert_eq!(vm["spec"]["instancetype"], json!({ "name": "u1.small" }));
    assert_eq!(vm["spec"]["preference"], json!({}));
}

#[test]
fn present_pointers_to_structs_stay() {
    let spec = vmi(json!({
        "domain": {
            "devices": {
                "interfaces": [
                    { "name": "default", "masquerade": {} },
                    { "name": "br", "bridge": {} }
                ],
                "rng": {}
            }
        },
        "networks": [{ "name": "default", "pod": {} }]
    }));
    let devices = &spec["domain"]["devices"];
    assert_eq!(
        devices["interfaces"][0],
        json!({ "name": "default", "masquerade": {} })
    );
    assert_eq!(
        devices["interfaces"][1],
        json!({ "name": "br", "bridge": {} })
    );
    assert_eq!(devices["rng"], json!({}));
    assert_eq!(spec["networks"], json!([{ "name": "default", "pod": {} }]));
}

#[test]
fn pointer_scalars_keep_false_and_zero() {
    let vm = normalized(json!({ "spec": { "running": false, "template": {} } }));
    assert_eq!(vm["spec"]["running"], json!(false));
    let spec = vmi(json!({
        "terminationGracePeriodSeconds": 0,
        "domain": { "devices": { "autoattachPodInterface": false, "disks": [{ "name": "d", "bootOrder": 0 }] } }
    }));
    assert_eq!(spec["terminationGracePeriodSeconds"], json!(0));
    assert_eq!(
        spec["domain"]["devices"]["autoattachPodInterface"],
        json!(false)
    );
    assert_eq!(spec["domain"]["devices"]["disks"][0]["bootOrder"], json!(0));
}

#[test]
fn plain_scalars_with_omitempty_drop_false_and_zero() {
    let cpu = domain(json!({
        "cpu": { "cores": 0, "sockets": 2, "dedicatedCpuPlacement": false, "model": "" }
    }))["cpu"]
        .clone();
    assert_eq!(cpu, json!({ "sockets": 2 }));
    let disk =
        domain(json!({ "devices": { "disks": [{ "name": "d", "disk": { "readonly": false } }] } }));
    assert_eq!(
        disk["devices"]["disks"][0],
        json!({ "name": "d", "disk": {} })
    );
}

#[test]
fn fields_without_omitempty_are_always_printed() {
    assert_eq!(
        domain(json!({ "machine": {} }))["machine"],
        json!({ "type": "" })
    );
    let devices = domain(json!({
        "devices": {
            "filesystems": [{ "name": "fs" }],
            "interfaces": [{ "name": "i", "ports": [{ "name": "http" }] }]
        }
    }))["devices"]
        .clone();
    assert_eq!(
        devices["filesystems"][0],
        json!({ "name": "fs", "virtiofs": null })
    );
    assert_eq!(
        devices["interfaces"][0]["ports"][0],
        json!({ "name": "http", "port": 0 })
    );
    let probe = vmi(
        json!({ "domain": {}, "readinessProbe": { "httpGet": {}, "tcpSocket": { "port": "ssh" } } }),
    );
    assert_eq!(
        probe["readinessProbe"],
        json!({ "httpGet": { "port": 0 }, "tcpSocket": { "port": "ssh" } })
    );
}

#[test]
fn unknown_fields_are_kept_unchanged_after_known_ones() {
    let vm = normalized(json!({
        "extra": { "features": {}, "volumes": [] },
        "spec": {
            "template": { "spec": { "domain": { "bogus": { "machine": {} }, "cpu": { "coresX": 0 } } } }
        }
    }));
    assert_eq!(vm["extra"], json!({ "features": {}, "volumes": [] }));
    let domain = &vm["spec"]["template"]["spec"]["domain"];
    assert_eq!(domain["bogus"], json!({ "machine": {} }));
    assert_eq!(domain["cpu"], json!({ "coresX": 0 }));
    assert_eq!(
        domain
            .as_object()
            .map(|object| object.keys().cloned().collect::<Vec<_>>()),
        Some(vec![
            "resources".into(),
            "cpu".into(),
            "devices".into(),
            "bogus".into()
        ])
    );
    let keys: Vec<&String> = vm
        .as_object()
        .map(|object| object.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["metadata", "spec", "status", "extra"]);
}

#[test]
fn quantities_are_canonicalised_through_the_callback() {
    let domain = domain(json!({
        "resources": { "requests": { "memory": "1024Mi", "cpu": 2 }, "limits": { "memory": "bad" } },
        "memory": { "guest": "1024Mi", "maxGuest": "badly" }
    }));
    assert_eq!(
        domain["resources"].to_string(),
        r#"{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"memory":"bad"}}"#
    );
    assert_eq!(
        domain["memory"],
        json!({ "guest": "1Gi", "maxGuest": "badly" })
    );
}

#[test]
fn non_pointer_quantities_print_zero() {
    let spec = vmi(json!({
        "domain": {},
        "volumes": [
            { "name": "scratch", "emptyDisk": {} },
            { "name": "host", "hostDisk": { "path": "/d.img", "type": "Disk" } },
            { "name": "sized", "emptyDisk": { "capacity": "1024Mi" } },
            { "name": "nulls", "emptyDisk": { "capacity": null } }
        ]
    }));
    assert_eq!(spec["volumes"][0]["emptyDisk"], json!({ "capacity": "0" }));
    assert_eq!(
        spec["volumes"][1]["hostDisk"].to_string(),
        r#"{"path":"/d.img","type":"Disk","capacity":"0"}"#
    );
    assert_eq!(
        spec["volumes"][2]["emptyDisk"],
        json!({ "capacity": "1Gi" })
    );
    assert_eq!(spec["volumes"][3]["emptyDisk"], json!({ "capacity": "0" }));
}

#[test]
fn wrong_types_are_left_alone() {
    let spec = vmi(json!({
        "domain": { "cpu": { "cores": "2", "sockets": 1.5, "dedicatedCpuPlacement": "false" }, "devices": [] },
        "volumes": "none",
        "nodeSelector": "x",
        "networks": [7, { "name": "default", "pod": "yes" }]
    }));
    assert_eq!(
        spec["domain"]["cpu"],
        json!({ "cores": "2", "sockets": 1.5, "dedicatedCpuPlacement": "false" })
    );
    assert_eq!(spec["domain"]["devices"], json!([]));
    assert_eq!(spec["volumes"], json!("none"));
    assert_eq!(spec["nodeSelector"], json!("x"));
    assert_eq!(
        spec["networks"],
        json!([7, { "name": "default", "pod": "yes" }])
    );
    assert_eq!(vmi(json!({ "domain": "x" }))["domain"], json!("x"));
    let mut scalar = json!("vm");
    normalize_vm(&mut scalar, &canonical);
    assert_eq!(scalar, json!("vm"));
}

#[test]
fn nulls_decode_to_go_zero_values() {
    let vm = normalized(json!({
        "metadata": { "labels": { "b": "1", "a": null }, "annotations": null },
        "spec": {
            "running": null,
            "template": {
                "metadata": null,
                "spec": {
                    "domain": { "cpu": null, "devices": null, "resources": { "requests": { "memory": null } } },
                    "volumes": [null],
                    "nodeSelector": null
                }
            }
        }
    }));
    assert_eq!(vm["metadata"].to_string(), r#"{"labels":{"a":"","b":"1"}}"#);
    assert_eq!(vm["spec"]["template"]["metadata"], json!({}));
    let spec = &vm["spec"]["template"]["spec"];
    assert_eq!(
        spec["domain"],
        json!({ "resources": { "requests": { "memory": "0" } }, "devices": {} })
    );
    assert_eq!(spec["volumes"], json!([{ "name": "" }]));
    assert!(spec.get("nodeSelector").is_none());
    assert!(vm["spec"].get("running").is_none());
}

#[test]
fn metadata_times() {
    let vm = normalized(json!({
        "metadata": {
            "creationTimestamp": "2024-03-01T00:30:00.5+01:00",
            "deletionTimestamp": "0001-01-01T00:00:00Z"
        },
        "spec": {
            "template": { "metadata": { "creationTimestamp": null, "labels": { "kubevirt.io/vm": "x" } } },
            "dataVolumeTemplates": [{ "metadata": { "creationTimestamp": "0001-01-01T00:00:00Z" } }]
        }
    }));
    assert_eq!(
        vm["metadata"],
        json!({ "creationTimestamp": "2024-02-29T23:30:00Z", "deletionTimestamp": null })
    );
    assert_eq!(
        vm["spec"]["template"]["metadata"],
        json!({ "labels": { "kubevirt.io/vm": "x" } })
    );
    assert_eq!(vm["spec"]["dataVolumeTemplates"][0]["metadata"], json!({}));
    let invalid = normalized(json!({ "metadata": { "creationTimestamp": "yesterday" } }));
    assert_eq!(invalid["metadata"]["creationTimestamp"], json!("yesterday"));
}

#[test]
fn data_volume_templates() {
    let vm = normalized(json!({
        "spec": {
            "template": {},
            "dataVolumeTemplates": [{
                "apiVersion": "cdi.kubevirt.io/v1beta1",
                "kind": "DataVolume",
                "metadata": { "name": "root" },
                "spec": {
                    "storage": { "resources": { "requests": { "storage": "1024Mi" } }, "storageClassName": "" },
                    "pvc": { "accessModes": [], "dataSource": { "kind": "VolumeSnapshot", "name": "s" } },
                    "sourceRef": { "kind": "DataSource", "name": "fedora" },
                    "source": { "blank": {}, "registry": { "url": "docker://x" } },
                    "preallocation": false,
                    "finalCheckpoint": false
                }
            }, {}]
        }
    }));
    let templates = &vm["spec"]["dataVolumeTemplates"];
    assert_eq!(
        templates[0].to_string(),
        json!({
            "kind": "DataVolume",
            "apiVersion": "cdi.kubevirt.io/v1beta1",
            "metadata": { "name": "root" },
            "spec": {
                "source": { "registry": { "url": "docker://x" }, "blank": {} },
                "sourceRef": { "kind": "DataSource", "name": "fedora" },
                "pvc": {
                    "resources": {},
                    "dataSource": { "apiGroup": null, "kind": "VolumeSnapshot", "name": "s" }
                },
                "storage": { "resources": { "requests": { "storage": "1Gi" } }, "storageClassName": "" },
                "preallocation": false
            }
        })
        .to_string()
    );
    assert_eq!(templates[1], json!({ "metadata": {}, "spec": {} }));
}

#[test]
fn ip_addresses_and_cidrs_are_sanitised() {
    let spec = vmi(json!({
        "domain": {
            "devices": {
                "interfaces": [{ "name": "i", "dhcpOptions": { "ntpServers": ["127.000.000.001", "pool.ntp.org"] } }]
            }
        },
        "dnsConfig": { "nameservers": ["010.000.000.001", "2001:DB8:0:0:0::0001", "::ffff:10.1.2.3", "dns"] },
        "networks": [{ "name": "default", "pod": { "vmNetworkCIDR": "010.0.2.000/024", "vmIPv6NetworkCIDR": "FD10:0:2::/120" } }]
    }));
    assert_eq!(
        spec["dnsConfig"]["nameservers"],
        json!(["10.0.0.1", "2001:db8::1", "10.1.2.3", "dns"])
    );
    assert_eq!(
        spec["domain"]["devices"]["interfaces"][0]["dhcpOptions"]["ntpServers"],
        json!(["127.0.0.1", "pool.ntp.org"])
    );
    assert_eq!(
        spec["networks"][0]["pod"],
        json!({ "vmNetworkCIDR": "10.0.2.0/24", "vmIPv6NetworkCIDR": "FD10:0:2::/120" })
    );
}

#[test]
fn go_ip_formatting() {
    let cases = [
        ("1.2.3.4", Some("1.2.3.4")),
        ("001.02.3.004", Some("1.2.3.4")),
        ("256.1.1.1", None),
        ("1.2.3", None),
        ("1.2.3.4.", None),
        ("::", Some("::")),
        ("::1", Some("::1")),
        ("1::", Some("1::")),
        ("1:0:0:1:0:0:0:1", Some("1:0:0:1::1")),
        ("0:0:1:0:0:1:0:0", Some("::1:0:0:1:0:0")),
        ("1:0:1:0:1:0:1:0", Some("1:0:1:0:1:0:1:0")),
        ("::1.2.3.4", Some("::102:304")),
        ("::FFFF:1.2.3.4", Some("1.2.3.4")),
        ("0001:0db8::00001", Some("1:db8::1")),
        ("1::2::3", None),
        ("1:2:3:4:5:6:7:8:9", None),
        ("1:2:3:4:5:6:7::8", None),
        (":1", None),
        ("1:", None),
        ("", None),
    ];
    for (input, expected) in cases {
        assert_eq!(goval::sanitize_ip(input).as_deref(), expected, "{input}");
    }
    let cidrs = [
        ("10.0.2.0/24", Some("10.0.2.0/24")),
        ("10.0.2.7/24", Some("10.0.2.7/24")),
        ("10.0.2.0/33", None),
        ("10.0.2.0/", None),
        ("10.0.2.0/2x", None),
        ("fd10:0:2::/120", Some("fd10:0:2::/120")),
        ("::ffff:10.0.0.1/120", Some("10.0.0.1/120")),
        ("10.0.2.0", None),
    ];
    for (input, expected) in cidrs {
        assert_eq!(goval::sanitize_cidr(input).as_deref(), expected, "{input}");
    }
}

#[test]
fn go_time_formatting() {
    let cases = [
        ("2024-01-02T03:04:05Z", Some(json!("2024-01-02T03:04:05Z"))),
        (
            "2024-01-02T03:04:05.999999999Z",
            Some(json!("2024-01-02T03:04:05Z")),
        ),
        (
            "2024-01-02T03:04:05,5-01:30",
            Some(json!("2024-01-02T04:34:05Z")),
        ),
        (
            "2024-12-31T23:59:59-00:01",
            Some(json!("2025-01-01T00:00:59Z")),
        ),
        ("1970-01-01T00:00:00Z", Some(json!("1970-01-01T00:00:00Z"))),
        ("0001-01-01T00:00:00Z", Some(Value::Null)),
        ("0001-01-01T01:00:00+01:00", Some(Value::Null)),
        ("0001-01-01T00:00:00.000000000Z", Some(Value::Null)),
        ("0001-01-01T00:00:00.0000000001Z", Some(Value::Null)),
        (
            "0001-01-01T00:00:00.000000001Z",
            Some(json!("0001-01-01T00:00:00Z")),
        ),
        ("2023-02-29T00:00:00Z", None),
        ("2024-02-29T00:00:00Z", Some(json!("2024-02-29T00:00:00Z"))),
        ("2024-01-02 03:04:05Z", None),
        ("2024-01-02T24:00:00Z", None),
        ("2024-01-02T03:04:05", None),
        ("2024-01-02T03:04:05+0100", None),
        ("2024-01-02T03:04:05z", None),
        ("2024-1-02T03:04:05Z", None),
        ("0000-01-01T00:00:00+00:01", None),
        ("", None),
    ];
    for (input, expected) in cases {
        assert_eq!(goval::canonical_time(input), expected, "{input}");
    }
}

#[test]
fn access_credentials_create_their_value_structs() {
    let spec = vmi(json!({
        "domain": {},
        "accessCredentials": [
            { "sshPublicKey": { "source": { "secret": { "secretName": "keys" } } } },
            { "sshPublicKey": { "propagationMethod": { "qemuGuestAgent": {} } } },
            { "userPassword": {} }
        ]
    }));
    assert_eq!(
        spec["accessCredentials"],
        json!([
            { "sshPublicKey": { "source": { "secret": { "secretName": "keys" } }, "propagationMethod": {} } },
            { "sshPublicKey": { "source": {}, "propagationMethod": { "qemuGuestAgent": { "users": null } } } },
            { "userPassword": { "source": {}, "propagationMethod": {} } }
        ])
    );
}

#[test]
fn scheduling_fields() {
    let spec = vmi(json!({
        "domain": {},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {},
                "preferredDuringSchedulingIgnoredDuringExecution": [{ "weight": 1 }]
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{ "weight": 0, "podAffinityTerm": {} }]
            }
        },
        "tolerations": [{ "key": "k", "operator": "Exists", "value": "", "tolerationSeconds": 0 }],
        "topologySpreadConstraints": [{ "maxSkew": 1 }]
    }));
    assert_eq!(
        spec["affinity"],
        json!({
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": { "nodeSelectorTerms": null },
                "preferredDuringSchedulingIgnoredDuringExecution": [{ "weight": 1, "preference": {} }]
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    { "weight": 0, "podAffinityTerm": { "topologyKey": "" } }
                ]
            }
        })
    );
    assert_eq!(
        spec["tolerations"],
        json!([{ "key": "k", "operator": "Exists", "tolerationSeconds": 0 }])
    );
    assert_eq!(
        spec["topologySpreadConstraints"],
        json!([{ "maxSkew": 1, "topologyKey": "", "whenUnsatisfiable": "" }])
    );
}

#[test]
fn struct_fields_come_out_in_go_order() {
    let disk = domain(json!({
        "devices": {
            "disks": [{ "bootOrder": 1, "cdrom": { "tray": "open", "bus": "sata" }, "name": "cd" }],
            "interfaces": [{ "macAddress": "02:00:00:00:00:01", "masquerade": {}, "model": "virtio", "name": "n" }]
        }
    }))["devices"]
        .clone();
    assert_eq!(
        disk.to_string(),
        r#"{"disks":[{"name":"cd","cdrom":{"bus":"sata","tray":"open"},"bootOrder":1}],"interfaces":[{"name":"n","model":"virtio","masquerade":{},"macAddress":"02:00:00:00:00:01"}]}"#
    );
}

#[test]
fn status_is_kept_with_nulls_dropped() {
    let vm = normalized(json!({
        "spec": { "template": {} },
        "status": { "printableStatus": "Stopped", "conditions": [{ "reason": null, "type": "Ready" }], "ready": false }
    }));
    assert_eq!(
        vm["status"],
        json!({ "printableStatus": "Stopped", "conditions": [{ "type": "Ready" }], "ready": false })
    );
}

#[test]
fn shape_lookup() {
    use PathSegment::{Index, Key};
    assert!(matches!(shape_at(&[]), Some(Shape::Struct(_))));
    let boot_order = [
        Key("spec"),
        Key("template"),
        Key("spec"),
        Key("domain"),
        Key("devices"),
        Key("disks"),
        Index(3),
        Key("bootOrder"),
    ];
    assert!(matches!(
        shape_at(&boot_order),
        Some(Shape::Scalar {
            kind: Kind::Int,
            ptr: true
        })
    ));
    assert!(matches!(shape_at(&boot_order[..4]), Some(Shape::Struct(_))));
    assert!(matches!(shape_at(&boot_order[..7]), Some(Shape::Struct(_))));
    assert!(matches!(shape_at(&boot_order[..6]), Some(Shape::Slice(_))));
    assert!(matches!(
        shape_at(&[Key("spec"), Key("template")]),
        Some(Shape::PtrStruct(_))
    ));
    let memory = [
        Key("spec"),
        Key("template"),
        Key("spec"),
        Key("domain"),
        Key("resources"),
        Key("requests"),
        Key("memory"),
    ];
    assert!(matches!(
        shape_at(&memory),
        Some(Shape::Quantity { ptr: false })
    ));
    assert!(matches!(shape_at(&memory[..6]), Some(Shape::QuantityMap)));
    let label = [Key("metadata"), Key("labels"), Key("app")];
    assert!(matches!(
        shape_at(&label),
        Some(Shape::Scalar {
            kind: Kind::Str,
            ptr: false
        })
    ));
    assert!(matches!(
        shape_at(&[Key("status"), Key("conditions"), Index(0)]),
        Some(Shape::OpaqueStruct)
    ));
    let storage = [
        Key("spec"),
        Key("dataVolumeTemplates"),
        Index(0),
        Key("spec"),
        Key("storage"),
        Key("storageClassName"),
    ];
    assert!(matches!(
        shape_at(&storage),
        Some(Shape::Scalar {
            kind: Kind::Str,
            ptr: true
        })
    ));
    assert!(shape_at(&[Key("spec"), Key("bogus")]).is_none());
    assert!(shape_at(&[Key("spec"), Index(0)]).is_none());
    assert!(shape_at(&[Key("spec"), Key("dataVolumeTemplates"), Key("0")]).is_none());
    assert!(shape_at(&[Key("kind"), Key("x")]).is_none());
}

/// Every field of every table, set to each kind of JSON value: no panic, and a second
/// round trip changes nothing (Go's round trip is idempotent).
#[test]
fn every_field_with_every_value_is_stable() {
    let samples = [
        Value::Null,
        json!(false),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(""),
        json!("1024Mi"),
        json!("bad"),
        json!("010.1.2.3/8"),
        json!("2024-01-02T03:04:05+01:00"),
        json!([]),
        json!([null, 1, "x", {}]),
        json!({}),
        json!({ "name": null, "x": [null] }),
    ];
    let mut paths = Vec::new();
    collect_paths(
        super::kubevirt::VIRTUAL_MACHINE,
        &mut Vec::new(),
        &mut paths,
        0,
    );
    assert!(paths.len() > 500, "{}", paths.len());
    for path in &paths {
        for sample in &samples {
            let mut vm = Value::Null;
            let mut slot = &mut vm;
            for segment in path {
                slot = match segment {
                    Segment::Key(key) => {
                        if !slot.is_object() {
                            *slot = json!({});
                        }
                        &mut slot[*key]
                    }
                    Segment::Index => {
                        *slot = json!([null]);
                        &mut slot[0]
                    }
                };
            }
            *slot = sample.clone();
            let once = normalized(vm);
            let twice = normalized(once.clone());
            assert_eq!(once.to_string(), twice.to_string(), "{path:?} = {sample}");
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Segment {
    Key(&'static str),
    Index,
}

fn collect_paths(
    fields: &'static [Field],
    prefix: &mut Vec<Segment>,
    out: &mut Vec<Vec<Segment>>,
    depth: usize,
) {
    if depth > 12 {
        return;
    }
    for field in fields {
        prefix.push(Segment::Key(field.json));
        out.push(prefix.clone());
        collect_shape(&field.shape, prefix, out, depth);
        prefix.pop();
    }
}

fn collect_shape(
    shape: &'static Shape,
    prefix: &mut Vec<Segment>,
    out: &mut Vec<Vec<Segment>>,
    depth: usize,
) {
    match shape {
        Shape::Struct(fields) | Shape::PtrStruct(fields) => {
            collect_paths(fields, prefix, out, depth + 1);
        }
        Shape::Slice(element) => {
            prefix.push(Segment::Index);
            out.push(prefix.clone());
            collect_shape(element, prefix, out, depth + 1);
            prefix.pop();
        }
        _ => {}
    }
}

#[test]
fn the_newest_release_encodes_as_normalize_vm() {
    let vm = json!({"spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
    let mut at_latest = vm.clone();
    let latest = crate::cluster::version::KubeVirtVersion::LATEST;
    super::normalize_vm_at(&mut at_latest, latest, &canonical);
    assert_eq!(at_latest, normalized(vm));
}
