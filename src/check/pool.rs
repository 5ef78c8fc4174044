//! What KubeVirt does with a VirtualMachinePool (`pkg/virt-controller/watch/pool/pool.go` and
//! the `virtualmachinepool-validator` webhook, KubeVirt v1.9): the pool object is stored as
//! written (there is no mutating webhook for pools), and the pool controller creates
//! `replicas` VirtualMachines from its template, named `<pool>-<index>`.

use serde_json::{Map, Value};

use crate::model::value::Fields;

/// The most VMs `render` shows for one pool: a hostile `replicas` must not make it write
/// billions of documents.
pub(super) const MAX_RENDERED_REPLICAS: usize = 1000;

/// How many VMs the pool controller keeps: `spec.replicas`, 1 when unset. A value that is not
/// a non-negative integer makes the API server refuse the pool (reported by the schema check),
/// so no VM is created.
pub(super) fn replicas(pool: &Value) -> u64 {
    match pool.pointer("/spec/replicas") {
        None | Some(Value::Null) => 1,
        Some(value) => value.as_u64().unwrap_or(0),
    }
}

/// The VMs the pool controller creates from `template` (the pool's template rendered as a VM),
/// in index order, at most [`MAX_RENDERED_REPLICAS`].
pub(super) fn created_vms(pool: &Value, pool_name: &str, template: &Value) -> Vec<Value> {
    let count = usize::try_from(replicas(pool))
        .unwrap_or(usize::MAX)
        .min(MAX_RENDERED_REPLICAS);
    let naming = NameGeneration::of(pool);
    (0..count)
        .map(|index| created_vm(template, pool_name, index, naming))
        .collect()
}

/// `spec.nameGeneration`: which references get the VM's index appended.
#[derive(Clone, Copy, Debug, Default)]
struct NameGeneration {
    config_maps: bool,
    secrets: bool,
}

impl NameGeneration {
    fn of(pool: &Value) -> Self {
        let flag = |key: &str| {
            pool.pointer("/spec/nameGeneration")
                .and_then(|n| n.field(key))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        Self {
            config_maps: flag("appendIndexToConfigMapRefs"),
            secrets: flag("appendIndexToSecretRefs"),
        }
    }
}

fn created_vm(template: &Value, pool_name: &str, index: usize, naming: NameGeneration) -> Value {
    let mut vm = template.clone();
    if let Some(metadata) = vm.field_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert("name".to_owned(), format!("{pool_name}-{index}").into());
    }
    if let Some(spec) = vm.field_mut("spec").and_then(Value::as_object_mut) {
        index_spec(spec, index, naming);
    }
    vm
}

/// `indexVMSpec`: data volume templates get `-<index>`, and so do the volumes that use them;
/// ConfigMap and Secret references (and cloud-init secret references) get it when
/// `nameGeneration` asks.
fn index_spec(spec: &mut Map<String, Value>, index: usize, naming: NameGeneration) {
    let suffix = format!("-{index}");
    let mut data_volumes = Vec::new();
    if let Some(templates) = spec
        .get_mut("dataVolumeTemplates")
        .and_then(Value::as_array_mut)
    {
        for template in templates {
            if let Some(Value::String(name)) = template.pointer_mut("/metadata/name") {
                data_volumes.push(name.clone());
                name.push_str(&suffix);
            }
        }
    }
    let Some(volumes) = spec
        .get_mut("template")
        .and_then(|t| t.field_mut("spec"))
        .and_then(|s| s.field_mut("volumes"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for volume in volumes.iter_mut().filter_map(Value::as_object_mut) {
        // KubeVirt looks at one source per volume, in this order.
        if let Some(claim) = volume.get_mut("persistentVolumeClaim") {
            rename_if_templated(claim.field_mut("claimName"), &data_volumes, &suffix);
        } else if let Some(data_volume) = volume.get_mut("dataVolume") {
            rename_if_templated(data_volume.field_mut("name"), &data_volumes, &suffix);
        } else if let Some(config_map) = volume.get_mut("configMap") {
            if naming.config_maps {
                append(config_map.field_mut("name"), &suffix);
            }
        } else if let Some(secret) = volume.get_mut("secret") {
            if naming.secrets {
                append(secret.field_mut("secretName"), &suffix);
            }
        } else if naming.secrets {
            for source in ["cloudInitNoCloud", "cloudInitConfigDrive"] {
                if let Some(cloud_init) = volume.get_mut(source) {
                    for reference in ["userDataSecretRef", "networkDataSecretRef"] {
                        append(
                            cloud_init
                                .field_mut(reference)
                                .and_then(|r| r.field_mut("name")),
                            &suffix,
                        );
                    }
                    break;
                }
            }
        }
    }
}

fn rename_if_templated(name: Option<&mut Value>, templated: &[String], suffix: &str) {
    if let Some(name) = name.and_then(string_mut)
        && templated.contains(name)
    {
        name.push_str(suffix);
    }
}

fn append(name: Option<&mut Value>, suffix: &str) {
    if let Some(name) = name.and_then(string_mut) {
        name.push_str(suffix);
    }
}

fn string_mut(value: &mut Value) -> Option<&mut String> {
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// `text` with each VM field it names (`spec.template...`, `spec.dataVolumeTemplates...`) as
/// the pool validator names it, under `spec.virtualMachineTemplate`.
pub(super) fn under_template(text: &str) -> String {
    const PREFIX: &str = "spec.virtualMachineTemplate.";
    let mut out = String::with_capacity(text.len() + PREFIX.len());
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        let starts_field = text[at..].starts_with("spec.")
            && !previous.is_some_and(|p| p.is_alphanumeric() || matches!(p, '.' | '_' | '-'));
        if starts_field {
            out.push_str(PREFIX);
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template() -> Value {
        json!({
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "dataVolumeTemplates": [{"metadata": {"name": "root"}}],
                "template": {"spec": {"volumes": [
                    {"name": "root", "dataVolume": {"name": "root"}},
                    {"name": "other", "persistentVolumeClaim": {"claimName": "shared"}},
                    {"name": "config", "configMap": {"name": "cfg"}},
                    {"name": "creds", "secret": {"secretName": "creds"}},
                    {"name": "ci", "cloudInitNoCloud": {"userDataSecretRef": {"name": "ud"}}}
                ]}}
            }
        })
    }

    #[test]
    fn replicas_default_to_one_and_refused_values_create_nothing() {
        assert_eq!(replicas(&json!({"spec": {}})), 1);
        assert_eq!(replicas(&json!({"spec": {"replicas": null}})), 1);
        assert_eq!(replicas(&json!({"spec": {"replicas": 0}})), 0);
        assert_eq!(replicas(&json!({"spec": {"replicas": 3}})), 3);
        assert_eq!(replicas(&json!({"spec": {"replicas": -1}})), 0);
        assert_eq!(replicas(&json!({"spec": {"replicas": "3"}})), 0);
    }

    #[test]
    fn vms_are_named_and_indexed_as_the_pool_controller_does() {
        let pool = json!({"spec": {"replicas": 2}});
        let vms = created_vms(&pool, "web", &template());
        assert_eq!(vms.len(), 2);
        assert_eq!(vms[1].pointer("/metadata/name"), Some(&json!("web-1")));
        let spec = &vms[1]["spec"];
        assert_eq!(spec["dataVolumeTemplates"][0]["metadata"]["name"], "root-1");
        let volumes = &spec["template"]["spec"]["volumes"];
        assert_eq!(volumes[0]["dataVolume"]["name"], "root-1");
        assert_eq!(volumes[1]["persistentVolumeClaim"]["claimName"], "shared");
        assert_eq!(volumes[2]["configMap"]["name"], "cfg");
        assert_eq!(volumes[3]["secret"]["secretName"], "creds");
        assert_eq!(
            volumes[4]["cloudInitNoCloud"]["userDataSecretRef"]["name"],
            "ud"
        );
    }

    #[test]
    fn name_generation_appends_the_index_to_config_map_and_secret_references() {
        let pool = json!({"spec": {"nameGeneration": {
            "appendIndexToConfigMapRefs": true, "appendIndexToSecretRefs": true
        }}});
        let vms = created_vms(&pool, "web", &template());
        let volumes = &vms[0]["spec"]["template"]["spec"]["volumes"];
        assert_eq!(volumes[2]["configMap"]["name"], "cfg-0");
        assert_eq!(volumes[3]["secret"]["secretName"], "creds-0");
        assert_eq!(
            volumes[4]["cloudInitNoCloud"]["userDataSecretRef"]["name"],
            "ud-0"
        );
    }

    #[test]
    fn fields_in_messages_are_named_under_the_template() {
        assert_eq!(
            under_template(
                "spec.template.spec.domain.devices.disks[0].name 'a' is not in spec.template.spec.volumes; inspec.x"
            ),
            "spec.virtualMachineTemplate.spec.template.spec.domain.devices.disks[0].name 'a' is not in spec.virtualMachineTemplate.spec.template.spec.volumes; inspec.x"
        );
    }

    #[test]
    fn hostile_replicas_are_bounded() {
        let pool = json!({"spec": {"replicas": 2_000_000_000u64}});
        assert_eq!(
            created_vms(&pool, "web", &template()).len(),
            MAX_RENDERED_REPLICAS
        );
    }
}
