//! The comparison of two sides, on reports and inputs built here.

use std::sync::Arc;

use serde_json::Value;

use super::inputs::written_matcher;
use super::*;
use crate::check::vm::Rendered;
use crate::controller::vm::set_pointer;
use crate::diag::Location;
use crate::diag::{Finding, ObjectRef, Severity};
use crate::model::MatcherRole;
use crate::yaml::{Pos, Span};
use serde_json::json;

fn vm(name: &str, sockets: u64, guest: &str) -> Value {
    json!({
        "kind": "VirtualMachine",
        "apiVersion": "kubevirt.io/v1",
        "metadata": {"name": name, "namespace": "apps", "labels": {"app": name}},
        "spec": {
            "runStrategy": "Always",
            "template": {
                "metadata": {"annotations": {"vm.kubevirt.io/os": "linux"}},
                "spec": {
                    "domain": {
                        "cpu": {"cores": 1, "sockets": sockets, "threads": 1},
                        "memory": {"guest": guest},
                        "machine": {"type": "q35"},
                        "devices": {
                            "disks": [{"name": "root", "disk": {"bus": "virtio"}}],
                            "interfaces": [{"name": "default", "model": "virtio", "bridge": {}}]
                        }
                    },
                    "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:40"}}],
                    "networks": [{"name": "default", "pod": {}}],
                    "architecture": "amd64"
                }
            }
        },
        "status": {}
    })
}

fn rendered(value: Value, instancetype: Option<&str>) -> Rendered {
    let name = value["metadata"]["name"].as_str().unwrap().to_owned();
    Rendered {
        namespace: "apps".to_owned(),
        name: name.clone(),
        file: Arc::from(format!("vms/{name}.yaml")),
        line: 1,
        value,
        origins: instancetype
            .map(|it| {
                vec![format!(
                    "instancetype: VirtualMachineClusterInstancetype {it} from built-in catalog v1.7.0"
                )]
            })
            .unwrap_or_default(),
        unit: None,
        pool: None,
    }
}

fn report(vms: Vec<Rendered>, findings: Vec<Finding>) -> Report {
    Report {
        rendered: vms,
        findings,
        ..Report::default()
    }
}

fn finding(rule: &'static crate::rules::Rule, vm: &str, line: u32, message: &str) -> Finding {
    let pos = Pos {
        line,
        column: 3,
        index: 0,
    };
    Finding::new(
        rule,
        Location {
            file: Arc::from(format!("vms/{vm}.yaml")),
            span: Span {
                start: pos,
                end: pos,
            },
        },
        message,
    )
    .with_object(Some(ObjectRef {
        api_version: "kubevirt.io/v1".to_owned(),
        kind: "VirtualMachine".to_owned(),
        namespace: Some("apps".to_owned()),
        name: vm.to_owned(),
    }))
    .with_path("spec.template.spec.domain.cpu")
}

fn find<'d>(diff: &'d Diff, name: &str) -> &'d VmDiff {
    diff.vms.iter().find(|vm| vm.name == name).unwrap()
}

fn effect_of(base: &Report, head: &Report) -> Effect {
    find(&diff(base, head), "web").effect.clone()
}

fn with(mut value: Value, pointer: &str, new: Value) -> Value {
    set_pointer(&mut value, pointer, Some(new));
    value
}

#[test]
fn classifies_added_removed_changed_and_unchanged() {
    let base = report(
        vec![
            rendered(vm("kept", 1, "4Gi"), None),
            rendered(vm("old", 1, "4Gi"), None),
            rendered(vm("web", 1, "4Gi"), None),
        ],
        Vec::new(),
    );
    // Metadata the update cannot change and the status are not compared.
    let kept = with(vm("kept", 1, "4Gi"), "/metadata/uid", json!("1234"));
    let kept = with(kept, "/status/ready", json!(true));
    let head = report(
        vec![
            rendered(kept, None),
            rendered(vm("new", 1, "4Gi"), None),
            rendered(vm("web", 2, "4Gi"), None),
        ],
        Vec::new(),
    );
    let diff = diff(&base, &head);
    let statuses: Vec<(&str, VmStatus)> = diff
        .vms
        .iter()
        .map(|vm| (vm.name.as_str(), vm.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("kept", VmStatus::Unchanged),
            ("new", VmStatus::Added),
            ("old", VmStatus::Removed),
            ("web", VmStatus::Changed)
        ]
    );
    assert_eq!(
        (
            diff.counts.added,
            diff.counts.removed,
            diff.counts.changed,
            diff.counts.unchanged
        ),
        (1, 1, 1, 1)
    );
    assert_eq!(find(&diff, "new").effect.kind, EffectKind::Created);
    assert_eq!(find(&diff, "old").effect.kind, EffectKind::Deleted);
    assert_eq!(find(&diff, "kept").effect.kind, EffectKind::None);
    assert!(find(&diff, "kept").diff.is_empty());
    let web = find(&diff, "web");
    assert!(
        web.diff.starts_with("--- a/apps/web\n+++ b/apps/web\n@@"),
        "{}",
        web.diff
    );
    assert!(
        web.diff
            .contains("-          sockets: 1\n+          sockets: 2\n"),
        "{}",
        web.diff
    );
    assert!(!diff.fails(Some(Severity::Error)));
    // Deterministic: the same input gives the same text.
    assert_eq!(text(&diff), text(&super::diff(&base, &head)));
}

#[test]
fn cpu_and_memory_within_the_hotplug_limits_apply_live() {
    let base = report(
        vec![rendered(vm("web", 1, "4Gi"), Some("u1.medium"))],
        Vec::new(),
    );
    let head = report(
        vec![rendered(vm("web", 2, "8Gi"), Some("u1.large"))],
        Vec::new(),
    );
    let diff = diff(&base, &head);
    let web = find(&diff, "web");
    assert_eq!(web.effect.kind, EffectKind::LiveUpdate, "{:?}", web.effect);
    assert_eq!(web.effect.message, "applied live (LiveUpdate)");
    let summary: Vec<(Aspect, &str)> = web
        .changes
        .iter()
        .map(|c| (c.aspect, c.summary.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (Aspect::Instancetype, "u1.medium → u1.large"),
            (Aspect::Cpu, "1 → 2 (sockets×cores×threads 1×1×1 → 2×1×1)"),
            (Aspect::Memory, "guest 4Gi → 8Gi"),
        ]
    );
    let details = web.effect.details.join("\n");
    assert!(
        details.contains("CPU sockets 1 → 2 (vCPUs 1 → 2); maxSockets 4 (4 × the base sockets)"),
        "{details}"
    );
    assert!(
        details.contains("guest memory 4Gi → 8Gi; maxGuest 16Gi"),
        "{details}"
    );
    assert!(text(&diff).contains("assumes the live VM was created from the base revision and is running; LiveUpdate rollout (KubeVirt v1.6+ default; target KubeVirt v1.9)"));
}

#[test]
fn beyond_max_sockets_or_under_the_boot_memory_needs_a_restart() {
    let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
    let head = report(vec![rendered(vm("web", 8, "4Gi"), None)], Vec::new());
    let effect = &effect_of(&base, &head);
    assert_eq!(effect.kind, EffectKind::RestartRequired);
    assert!(
        effect.message.contains(
            "CPU sockets updated in template spec to a value higher than what's available"
        ),
        "{effect:?}"
    );

    let head = report(vec![rendered(vm("web", 1, "2Gi"), None)], Vec::new());
    let effect = &effect_of(&base, &head);
    assert!(
        effect
            .message
            .contains("lower than what the VM started with"),
        "{effect:?}"
    );

    // An explicit maxGuest is the limit: the controller's `ValidateLiveUpdateMemory` of the
    // new template refuses more.
    let capped = with(
        vm("web", 1, "4Gi"),
        "/spec/template/spec/domain/memory/maxGuest",
        json!("6Gi"),
    );
    let base = report(vec![rendered(capped.clone(), None)], Vec::new());
    let head = report(
        vec![rendered(
            with(
                capped,
                "/spec/template/spec/domain/memory/guest",
                json!("8Gi"),
            ),
            None,
        )],
        Vec::new(),
    );
    let effect = &effect_of(&base, &head);
    assert_eq!(
        effect.message,
        "needs a restart (RestartRequired: memory hotplug not supported, Guest memory is greater than the configured maxGuest memory)",
    );

    // Memory hotplug is off below 1Gi.
    let base = report(vec![rendered(vm("web", 1, "512Mi"), None)], Vec::new());
    let head = report(vec![rendered(vm("web", 1, "768Mi"), None)], Vec::new());
    let effect = &effect_of(&base, &head);
    // KubeVirt's message (`handleMemoryHotplugRequest`, the VMI has no maxGuest) does not say
    // why; the details do.
    assert_eq!(
        effect.message,
        "needs a restart (RestartRequired: memory updated in template spec. Memory-hotplug is not available for this VM configuration)"
    );
    assert_eq!(
        effect.details,
        [
            "guest memory 512Mi → 768Mi",
            "memory hotplug is not available for less than 1Gi of guest memory"
        ]
    );
}

#[test]
fn other_template_changes_need_a_restart_and_stage_restarts_everything() {
    let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
    let changed = with(
        vm("web", 1, "4Gi"),
        "/spec/template/spec/domain/machine/type",
        json!("pc-q35-rhel9.6.0"),
    );
    let changed = with(
        changed,
        "/spec/template/spec/domain/firmware",
        json!({"bootloader": {"efi": {"secureBoot": false}}}),
    );
    let head = report(vec![rendered(changed, None)], Vec::new());
    let diff = diff(&base, &head);
    let web = find(&diff, "web");
    assert_eq!(web.effect.kind, EffectKind::RestartRequired);
    assert_eq!(
        web.effect.message,
        "needs a restart (RestartRequired: a non-live-updatable field was changed in the template spec)"
    );
    assert!(
        web.effect
            .details
            .iter()
            .any(|d| d.starts_with("domain.machine.type q35 → pc-q35-rhel9.6.0")),
        "{:?}",
        web.effect
    );
    let aspects: Vec<(Aspect, &str)> = web
        .changes
        .iter()
        .map(|c| (c.aspect, c.summary.as_str()))
        .collect();
    assert_eq!(
        aspects,
        [
            (
                Aspect::Firmware,
                "bootloader default (BIOS) → EFI without secure boot"
            ),
            (Aspect::MachineType, "q35 → pc-q35-rhel9.6.0"),
        ]
    );

    // Node placement and the VM's own metadata do not restart a running VM.
    let placed = with(
        vm("web", 1, "4Gi"),
        "/spec/template/spec/nodeSelector",
        json!({"zone": "a"}),
    );
    let head = report(vec![rendered(placed, None)], Vec::new());
    let effect = &effect_of(&base, &head);
    assert_eq!(effect.kind, EffectKind::LiveUpdate, "{effect:?}");
    let labelled = with(vm("web", 1, "4Gi"), "/metadata/labels/tier", json!("gold"));
    let head = report(vec![rendered(labelled, None)], Vec::new());
    let web = super::diff(&base, &head);
    let web = find(&web, "web");
    assert_eq!(web.effect.kind, EffectKind::NoRestart);
    assert_eq!(web.changes[0].aspect, Aspect::Labels);
    assert_eq!(web.changes[0].summary, "+tier=gold");

    // Stage (KubeVirt v1.5): even a socket change waits for a restart.
    let head = Report {
        profile: Some(crate::cluster::profile::ClusterProfile::new(
            KubeVirtVersion::new(1, 5),
        )),
        ..report(vec![rendered(vm("web", 2, "4Gi"), None)], Vec::new())
    };
    let diff = super::diff(&base, &head);
    assert_eq!(diff.rollout, Rollout::Stage);
    assert_eq!(find(&diff, "web").effect.kind, EffectKind::RestartRequired);
    assert!(diff.assumptions[1].starts_with("Stage rollout (the default up to KubeVirt v1.5"));
}

#[test]
fn gpus_host_devices_and_memory_requests_are_summarised() {
    let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
    let head_vm = with(
        vm("web", 1, "4Gi"),
        "/spec/template/spec/domain/devices/gpus",
        json!([{"name": "gpu1", "deviceName": "nvidia.com/A100"}]),
    );
    let head_vm = with(
        head_vm,
        "/spec/template/spec/domain/devices/hostDevices",
        json!([{"name": "nic", "deviceName": "intel.com/sriov"}]),
    );
    let head_vm = with(
        head_vm,
        "/spec/template/spec/domain/resources/requests/memory",
        json!("4Gi"),
    );
    let head = report(vec![rendered(head_vm, None)], Vec::new());
    let diff = diff(&base, &head);
    let web = find(&diff, "web");
    let summary: Vec<(Aspect, &str)> = web
        .changes
        .iter()
        .map(|c| (c.aspect, c.summary.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (Aspect::Memory, "requests.memory (none) → 4Gi"),
            (Aspect::Gpus, "none → gpu1 (nvidia.com/A100)"),
            (Aspect::HostDevices, "none → nic (intel.com/sriov)"),
        ]
    );
    assert_eq!(web.effect.kind, EffectKind::RestartRequired);
}

#[test]
fn introduced_and_fixed_findings_ignore_lines() {
    use crate::rules::{INSTANCETYPE_CONFLICT, MACHINE_TYPE_DEFAULTED, REVISION_NAME_IN_SPEC};
    let base = report(
        vec![rendered(vm("web", 1, "4Gi"), None)],
        vec![
            finding(&MACHINE_TYPE_DEFAULTED, "web", 10, "writes a machine type"),
            finding(&REVISION_NAME_IN_SPEC, "web", 4, "revisionName committed"),
        ],
    );
    let head = report(
        vec![rendered(vm("web", 2, "4Gi"), None)],
        vec![
            finding(&MACHINE_TYPE_DEFAULTED, "web", 12, "writes a machine type"),
            finding(&INSTANCETYPE_CONFLICT, "web", 14, "VM field conflicts"),
        ],
    );
    let diff = diff(&base, &head);
    assert_eq!(diff.introduced.len(), 1);
    assert_eq!(diff.introduced[0].code, "KV1001");
    assert_eq!(diff.introduced[0].line, 14);
    assert_eq!(diff.fixed.len(), 1);
    assert_eq!(diff.fixed[0].code, "KV4001");
    // The head VM has a finding in category reject: the update is refused.
    let web = find(&diff, "web");
    assert_eq!(web.effect.kind, EffectKind::Rejected);
    assert_eq!(web.effect.message, "rejected: VM field conflicts");
    assert!(diff.fails(Some(Severity::Error)));
    assert!(!diff.fails(None));
    let text = text(&diff);
    assert!(text.contains("findings introduced by this change: 1\n  error KV1001 vms/web.yaml:14 VirtualMachine apps/web: VM field conflicts"), "{text}");
    assert!(
        text.contains("findings fixed by this change: 1\n"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&json(&diff)).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["introduced"][0]["code"], "KV1001");
    assert_eq!(json["vms"][0]["effect"]["kind"], "rejected");
    assert_eq!(json["counts"]["rejected"], 1);
}

fn written(name: &str, matcher: &Value) -> WrittenVm {
    let object = json!({"kind": "VirtualMachine", "metadata": {"name": name}, "spec": {"instancetype": matcher}});
    WrittenVm {
        kind: "VirtualMachine".to_owned(),
        file: format!("vms/{name}.yaml"),
        line: 1,
        instancetype: written_matcher(object.get("spec"), MatcherRole::Instancetype),
        preference: None,
        object,
    }
}

fn inputs(vms: Vec<(&str, WrittenVm)>) -> Inputs {
    Inputs {
        vms: vms
            .into_iter()
            .map(|(n, vm)| (VmKey::new("apps", n), vm))
            .collect(),
        ..Inputs::default()
    }
}

#[test]
fn renaming_the_instance_type_with_a_revision_name_is_rejected() {
    let base = report(
        vec![rendered(vm("web", 1, "4Gi"), Some("u1.medium"))],
        Vec::new(),
    );
    let head = report(
        vec![rendered(vm("web", 2, "8Gi"), Some("u1.large"))],
        Vec::new(),
    );
    let keep = |name| json!({"name": name, "revisionName": "web-u1.medium-1"});
    let diff = diff_with(
        &base,
        &inputs(vec![("web", written("web", &keep("u1.medium")))]),
        &head,
        &inputs(vec![("web", written("web", &keep("u1.large")))]),
    );
    let web = find(&diff, "web");
    assert_eq!(web.effect.kind, EffectKind::Rejected);
    assert_eq!(web.effect.message, format!("rejected: {MATCHER_RENAMED}"));
    assert!(diff.fails(Some(Severity::Error)));

    // Clearing the revisionName in the same change is the documented switch.
    let diff = diff_with(
        &base,
        &inputs(vec![("web", written("web", &keep("u1.medium")))]),
        &head,
        &inputs(vec![("web", written("web", &json!({"name": "u1.large"})))]),
    );
    assert_eq!(find(&diff, "web").effect.kind, EffectKind::LiveUpdate);
}

#[test]
fn changing_a_pool_s_selector_is_rejected() {
    let template = vm("web", 1, "4Gi");
    let mut pool = rendered(template.clone(), None);
    pool.pool = Some("web".to_owned());
    let side = |selector: Value| {
        let object = json!({"kind": "VirtualMachinePool", "metadata": {"name": "web"},
            "spec": {"selector": selector, "virtualMachineTemplate": {"spec": template["spec"]}}});
        let written = WrittenVm {
            kind: "VirtualMachinePool".to_owned(),
            file: "vms/web.yaml".to_owned(),
            line: 1,
            instancetype: None,
            preference: None,
            object,
        };
        inputs(vec![("web", written)])
    };
    let web = json!({"matchLabels": {"app": "web"}});
    let report = report(vec![pool], Vec::new());
    let diff = diff_with(
        &report,
        &side(web.clone()),
        &report,
        &side(json!({"matchLabels": {"app": "api"}})),
    );
    let effect = &find(&diff, "web").effect;
    assert_eq!(effect.kind, EffectKind::Rejected);
    assert_eq!(
        effect.message,
        "rejected: selector is immutable after creation."
    );
    assert!(
        effect.details[0].starts_with("spec.selector {\"matchLabels\":{\"app\":\"web\"}} → "),
        "{effect:?}"
    );
    let kept = diff_with(&report, &side(web.clone()), &report, &side(web));
    assert_eq!(find(&kept, "web").effect.kind, EffectKind::None);
}

#[test]
fn a_pool_is_named_as_a_pool_and_its_template_s_matchers_are_not_judged_by_the_vm_webhook() {
    let side = |sockets: u64, name: &str| {
        let mut pool = rendered(vm("web", sockets, "4Gi"), Some(name));
        pool.pool = Some("web".to_owned());
        let matcher = json!({"name": name, "revisionName": "web-u1.medium-1"});
        let object = json!({"kind": "VirtualMachinePool", "metadata": {"name": "web"},
            "spec": {"virtualMachineTemplate": {"spec": {"instancetype": matcher}}}});
        let template = object["spec"]["virtualMachineTemplate"].get("spec");
        let written = WrittenVm {
            kind: "VirtualMachinePool".to_owned(),
            file: "vms/web.yaml".to_owned(),
            line: 1,
            instancetype: written_matcher(template, MatcherRole::Instancetype),
            preference: None,
            object,
        };
        (
            report(vec![pool], Vec::new()),
            inputs(vec![("web", written)]),
        )
    };
    let (base, base_inputs) = side(1, "u1.medium");
    let (head, head_inputs) = side(2, "u1.large");
    let diff = diff_with(&base, &base_inputs, &head, &head_inputs);
    let web = find(&diff, "web");
    assert_eq!(web.kind, "VirtualMachinePool");
    // The same change to a VM is refused by the VM mutating webhook; pools have none.
    assert_ne!(web.effect.kind, EffectKind::Rejected, "{:?}", web.effect);
    assert!(
        !web.changes.is_empty(),
        "the template's changes are summarised"
    );
}

#[test]
fn a_changed_instance_type_reaches_only_new_and_switching_vms() {
    let object = |guest: u64| SpecObject {
        key: ObjectKey {
            kind: "VirtualMachineInstancetype".to_owned(),
            namespace: Some("apps".to_owned()),
            name: "small".to_owned(),
        },
        spec: json!({"cpu": {"guest": guest}, "memory": {"guest": "4Gi"}}),
        file: "types/small.yaml".to_owned(),
        line: 1,
    };
    let origin = |r: Rendered| Rendered {
        origins: vec![
            "instancetype: VirtualMachineInstancetype small from types/small.yaml:1".to_owned(),
        ],
        ..r
    };
    let mut base_inputs = inputs(vec![
        (
            "a",
            written(
                "a",
                &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
            ),
        ),
        ("b", written("b", &json!({"name": "u1.medium"}))),
    ]);
    base_inputs.objects.insert(object(1).key.clone(), object(1));
    let mut head_inputs = inputs(vec![
        (
            "a",
            written(
                "a",
                &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
            ),
        ),
        (
            "b",
            written(
                "b",
                &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
            ),
        ),
        (
            "c",
            written(
                "c",
                &json!({"name": "small", "kind": "VirtualMachineInstancetype"}),
            ),
        ),
    ]);
    head_inputs.objects.insert(object(2).key.clone(), object(2));
    let base = report(
        vec![
            origin(rendered(vm("a", 1, "4Gi"), None)),
            rendered(vm("b", 1, "4Gi"), Some("u1.medium")),
        ],
        Vec::new(),
    );
    let head = report(
        vec![
            origin(rendered(vm("a", 2, "4Gi"), None)),
            origin(rendered(vm("b", 2, "4Gi"), None)),
            origin(rendered(vm("c", 2, "4Gi"), None)),
        ],
        Vec::new(),
    );
    let diff = diff_with(&base, &base_inputs, &head, &head_inputs);
    assert_eq!(diff.objects.len(), 1);
    let changed = &diff.objects[0];
    assert_eq!(changed.status, VmStatus::Changed);
    assert_eq!(changed.fields[0].path, "cpu.guest");
    let users: Vec<(&str, Relation)> = changed
        .used_by
        .iter()
        .map(|u| (u.name.as_str(), u.relation))
        .collect();
    assert_eq!(
        users,
        [
            ("a", Relation::KeepsRevision),
            ("b", Relation::Switches),
            ("c", Relation::NewVm)
        ]
    );
    assert!(
        changed
            .note
            .starts_with("existing VMs keep their stored ControllerRevision")
    );
    // `a` is unchanged as written: the running VM does not change.
    let a = find(&diff, "a");
    assert_eq!(a.status, VmStatus::Changed);
    assert_eq!(a.effect.kind, EffectKind::KeepsRevision);
    assert!(a.effect.details[0].contains("VirtualMachineInstancetype apps/small"));
    // `b` switches and sees the new values.
    assert_eq!(find(&diff, "b").effect.kind, EffectKind::LiveUpdate);
    let text = text(&diff);
    assert!(
        text.contains("used by apps/a (keeps its stored ControllerRevision)"),
        "{text}"
    );
    let markdown = markdown(&diff);
    assert!(
        markdown.contains("#### Instance types and preferences"),
        "{markdown}"
    );
}

#[test]
fn markdown_escapes_what_it_quotes() {
    let base = report(vec![rendered(vm("web", 1, "4Gi"), None)], Vec::new());
    let head_vm = with(
        vm("web", 1, "4Gi"),
        "/metadata/annotations",
        json!({"note": "a|b <script>*x*</script> ```"}),
    );
    let head = report(
        vec![rendered(head_vm, None)],
        vec![finding(
            &crate::rules::VM_SPEC_INVALID,
            "web",
            3,
            "bad | value <b>",
        )],
    );
    let diff = diff(&base, &head);
    let markdown = markdown(&diff);
    assert!(markdown.starts_with("### kvlint diff\n\n| added | removed | changed | unchanged |\n|---:|---:|---:|---:|\n| 0 | 0 | 1 | 0 |\n"), "{markdown}");
    assert!(
        markdown
            .contains("- **annotations**: +note=a\\|b \\<script\\>\\*x\\*\\</script\\> \\`\\`\\`"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "<summary><code>apps/web</code> changed: rejected: bad | value &lt;b&gt;</summary>"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("| `apps/web` | changed | **rejected: bad \\| value \\<b\\>** |"),
        "{markdown}"
    );
    // The annotation holds three backticks: the fence is longer.
    assert!(
        markdown.contains("````diff\n--- a/apps/web\n"),
        "{markdown}"
    );
    assert!(markdown.contains("| error | `KV1008 vm-spec-invalid` | VirtualMachine apps/web | bad \\| value \\<b\\> | `vms/web.yaml:3` |"), "{markdown}");
}

#[test]
fn matchers_come_from_the_origins() {
    let mut r = rendered(vm("web", 1, "4Gi"), Some("u1.medium"));
    r.origins.push(
        "preference: VirtualMachinePreference fedora (ControllerRevision) from vms/p.yaml:3"
            .to_owned(),
    );
    let all = matchers(&report(vec![r], Vec::new()));
    let web = &all[&VmKey::new("apps", "web")];
    assert_eq!(web.instancetype.as_ref().unwrap().name, "u1.medium");
    assert_eq!(
        web.preference.as_ref().unwrap().kind,
        "VirtualMachinePreference"
    );
    assert_eq!(web.preference.as_ref().unwrap().name, "fedora");
}

#[test]
fn relabel_renames_files_of_a_side() {
    let mut base = report(
        vec![rendered(vm("web", 1, "4Gi"), None)],
        vec![finding(
            &crate::rules::MACHINE_TYPE_DEFAULTED,
            "web",
            10,
            "m",
        )],
    );
    relabel(&mut base, "vms/", "/tmp/x/vms/");
    assert_eq!(&*base.findings[0].location.file, "/tmp/x/vms/web.yaml");
    assert_eq!(&*base.rendered[0].file, "/tmp/x/vms/web.yaml");
}

#[test]
fn a_hyperconverged_object_overwrites_the_repositorys_kubevirt_cr_on_both_sides() {
    let text = "apiVersion: kubevirt.io/v1
kind: KubeVirt
metadata: {name: kubevirt, namespace: kubevirt}
spec:
  configuration:
    vmRolloutStrategy: Stage
    liveUpdateConfiguration: {maxCpuSockets: 16}
---
apiVersion: hco.kubevirt.io/v1beta1
kind: HyperConverged
metadata: {name: kubevirt-hyperconverged, namespace: openshift-cnv}
spec: {}
";
    let input = crate::source::Input::Memory {
        display: Arc::from("cluster.yaml"),
        bytes: Arc::from(text.as_bytes()),
    };
    let loaded = crate::load::load(&[input], &crate::load::LoadOptions::default());
    let version = crate::cluster::profile::KubeVirtVersion::LATEST;
    let cluster = json!({"liveUpdateConfiguration": {"maxGuest": "64Gi"}});
    let inputs = super::Inputs::from_objects(
        &loaded.objects,
        Some(&cluster),
        crate::cluster::hyperconverged::Environment::default(),
        version,
    );
    // HCO generates the KubeVirt CR: the repository's own CR and `cluster:` do not apply.
    assert_eq!(inputs.cluster.max_cpu_sockets, None);
    assert_eq!(inputs.cluster.max_guest, None);
    assert_ne!(
        inputs.cluster.rollout,
        Some(crate::controller::liveupdate::Rollout::Stage)
    );
    let without = super::Inputs::from_objects(
        &loaded.objects[..1],
        Some(&cluster),
        crate::cluster::hyperconverged::Environment::default(),
        version,
    );
    assert_eq!(without.cluster.max_cpu_sockets, Some(16));
    assert_eq!(without.cluster.max_guest.as_deref(), Some("64Gi"));
}
