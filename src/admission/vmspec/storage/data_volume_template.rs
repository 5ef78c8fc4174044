//! `data-volume-template.go`: `ValidateDataVolumeTemplate`.

use serde_json::Value;

use crate::admission::Cause;
use crate::admission::vmspec::read::count_present;
use crate::model::value::{array_at, is_set_at, present_at, str_at};

const DATA_VOLUME_SOURCES: &[&str] = &[
    "http", "s3", "gcs", "registry", "pvc", "upload", "blank", "imageio", "vddk", "snapshot",
];

/// `storageadmitters.ValidateDataVolumeTemplate`.
pub(in crate::admission::vmspec) fn data_volume_templates(vm_spec: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let volumes = array_at(vm_spec, &["template", "spec", "volumes"]);
    for (idx, template) in array_at(vm_spec, &["dataVolumeTemplates"])
        .iter()
        .enumerate()
    {
        let field = format!("spec.dataVolumeTemplate[{idx}]");
        if let Some(cause) = data_volume_template(&field, template) {
            causes.push(cause);
            continue;
        }
        let name = str_at(template, &["metadata", "name"]);
        let referenced = volumes.iter().any(|v| {
            (is_set_at(v, &["persistentVolumeClaim"])
                && str_at(v, &["persistentVolumeClaim", "claimName"]) == name)
                || (is_set_at(v, &["dataVolume"]) && str_at(v, &["dataVolume", "name"]) == name)
        });
        if !referenced {
            causes.push(Cause::new(
                field.clone(),
                format!("DataVolumeTemplate entry {field} must be referenced in the VMI template's 'volumes' list"),
            ));
        }
    }
    causes
}

fn data_volume_template(field: &str, template: &Value) -> Option<Cause> {
    let invalid =
        |suffix: &str, message: &str| Some(Cause::new(format!("{field}.{suffix}"), message));
    if str_at(template, &["metadata", "name"]).is_empty() {
        return Some(Cause::new(
            format!("{field}.name"),
            format!("'name' field must not be empty for DataVolumeTemplate entry {field}.name."),
        ));
    }
    let (pvc, storage) = (
        present_at(template, &["spec", "pvc"]),
        present_at(template, &["spec", "storage"]),
    );
    let target = match (pvc, storage) {
        (None, None) => return invalid("PVC.Storage", "Missing Data volume PVC or Storage"),
        (Some(_), Some(_)) => {
            return invalid(
                "PVC.Storage",
                "Duplicate storage definition, both target storage and target pvc defined",
            );
        }
        (Some(target), None) | (None, Some(target)) => target,
    };
    let external = is_set_at(target, &["dataSourceRef"]) || is_set_at(target, &["dataSource"]);
    let source = present_at(template, &["spec", "source"]);
    let sourced = source.is_some() || is_set_at(template, &["spec", "sourceRef"]);
    if external && sourced {
        return invalid(
            "source",
            "External population is incompatible with Source and SourceRef",
        );
    }
    if !external && !sourced {
        return invalid(
            "source.sourceRef",
            "Data volume should have either Source, SourceRef, or be externally populated",
        );
    }
    let count = source.map_or(1, |s| count_present(s, DATA_VOLUME_SOURCES));
    match count {
        0 => invalid("source", "Missing dataVolume valid source"),
        1 => None,
        _ => invalid("source", "Multiple dataVolume sources"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{merge, one, run_vm};
    use crate::cluster::profile::ClusterProfile;

    #[test]
    fn data_volume_templates() {
        let default = ClusterProfile::default();
        let template = |spec: Value| json!({"spec": {"dataVolumeTemplates": [{"metadata": {"name": "root-dv"}, "spec": spec}]}});
        let source = json!({"sourceRef": {"kind": "DataSource", "name": "fedora"}, "storage": {}});
        assert_eq!(
            run_vm(&template(source.clone()), &default, true),
            one(
                "spec.dataVolumeTemplate[0]",
                "DataVolumeTemplate entry spec.dataVolumeTemplate[0] must be referenced in the VMI template's 'volumes' list"
            )
        );
        let mut referenced = template(source);
        merge(
            &mut referenced,
            &json!({"spec": {"template": {"spec": {"volumes": [{"name": "root", "dataVolume": {"name": "root-dv"}}]}}}}),
        );
        assert_eq!(run_vm(&referenced, &default, true), Vec::new());
        assert_eq!(
            run_vm(
                &template(json!({"source": {"http": {}, "blank": {}}, "pvc": {}})),
                &default,
                true
            ),
            one(
                "spec.dataVolumeTemplate[0].source",
                "Multiple dataVolume sources"
            )
        );
        assert_eq!(
            run_vm(&template(json!({"source": {"blank": {}}})), &default, true),
            one(
                "spec.dataVolumeTemplate[0].PVC.Storage",
                "Missing Data volume PVC or Storage"
            )
        );
    }

    #[test]
    fn a_template_is_referenced_by_its_own_name_and_may_be_populated_externally() {
        let default = ClusterProfile::default();
        let vm = |spec: Value, volume: Value| {
            json!({"spec": {"dataVolumeTemplates": [{"metadata": {"name": "root-dv"}, "spec": spec}],
                "template": {"spec": {"volumes": [volume]}}}})
        };
        let sourced = json!({"sourceRef": {"kind": "DataSource", "name": "fedora"}, "storage": {}});
        let claim =
            |name: &str| json!({"name": "root", "persistentVolumeClaim": {"claimName": name}});
        let data_volume = |name: &str| json!({"name": "root", "dataVolume": {"name": name}});
        assert_eq!(
            run_vm(&vm(sourced.clone(), claim("root-dv")), &default, true),
            Vec::new()
        );
        for other in [claim("other"), data_volume("other")] {
            assert_eq!(
                run_vm(&vm(sourced.clone(), other), &default, true),
                one(
                    "spec.dataVolumeTemplate[0]",
                    "DataVolumeTemplate entry spec.dataVolumeTemplate[0] must be referenced in the VMI template's 'volumes' list"
                )
            );
        }
        let external =
            json!({"pvc": {"dataSourceRef": {"kind": "VolumeSnapshot", "name": "snap"}}});
        assert_eq!(
            run_vm(&vm(external, data_volume("root-dv")), &default, true),
            Vec::new()
        );
        assert_eq!(
            run_vm(
                &vm(json!({"source": {}, "pvc": {}}), data_volume("root-dv")),
                &default,
                true
            ),
            one(
                "spec.dataVolumeTemplate[0].source",
                "Missing dataVolume valid source"
            )
        );
    }
}
