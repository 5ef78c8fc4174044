//! Volumes: one source each, host disks, cloud-init data, container disk and kernel boot
//! paths (`ValidatePath`), utility volumes.

use foldhash::{HashMap, HashMapExt};
use serde_json::Value;

use crate::admission::Cause;
use crate::admission::vmspec::TEMPLATE_SPEC;
use crate::admission::vmspec::context::Ctx;
use crate::admission::vmspec::read::count_present;
use crate::k8s::quantity::Quantity;
use crate::model::value::{array_at, is_set_at, present_at, str_at};

const VOLUME_SOURCES: &[&str] = &[
    "persistentVolumeClaim",
    "sysprep",
    "cloudInitNoCloud",
    "cloudInitConfigDrive",
    "containerDisk",
    "ephemeral",
    "emptyDisk",
    "hostDisk",
    "dataVolume",
    "configMap",
    "secret",
    "downwardAPI",
    "serviceAccount",
    "downwardMetrics",
    "memoryDump",
    "containerPath",
];

/// `validateVolumes`.
pub(in crate::admission::vmspec) fn volumes(cx: &mut Ctx) {
    let list = array_at(cx.spec, &["volumes"]);
    let mut first_by_name: HashMap<&str, usize> = HashMap::new();
    for (idx, volume) in list.iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.volumes[{idx}]");
        let name = str_at(volume, &["name"]);
        let first = *first_by_name.entry(name).or_insert(idx);
        if first != idx {
            let message = format!(
                "{field} and {TEMPLATE_SPEC}.volumes[{first}] must not have the same Name."
            );
            cx.push(format!("{field}.name"), message);
        }
        if is_set_at(volume, &["dataVolume"]) && str_at(volume, &["dataVolume", "name"]).is_empty()
        {
            cx.push(format!("{field}.name"), "DataVolume 'name' must be set");
        }
        if count_present(volume, VOLUME_SOURCES) != 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one source type set"),
            );
        }
        cloud_init(cx, &field, volume);
        volume_sources(cx, &field, volume);
    }
    for (key, what) in [
        ("serviceAccount", "serviceAccount"),
        ("downwardMetrics", "downwardMetric"),
        ("memoryDump", "memory dump"),
    ] {
        if list.iter().filter(|v| is_set_at(v, &[key])).count() > 1 {
            let field = ts!("volumes");
            cx.push(
                field,
                format!("{field} must have max one {what} volume set"),
            );
        }
    }
}

fn volume_sources(cx: &mut Ctx, field: &str, volume: &Value) {
    if is_set_at(volume, &["downwardMetrics"]) && !cx.gate("DownwardMetrics") {
        cx.push(
            field,
            "downwardMetrics disks are not allowed: DownwardMetrics feature gate is not enabled.",
        );
    }
    if let Some(disk) = present_at(volume, &["hostDisk"]) {
        host_disk(cx, field, disk);
    }
    for (source, key) in [
        ("configMap", "name"),
        ("secret", "secretName"),
        ("serviceAccount", "serviceAccountName"),
    ] {
        if is_set_at(volume, &[source]) && str_at(volume, &[source, key]).is_empty() {
            let required = format!("{field}.{source}.{key}");
            cx.push(required.clone(), format!("{required} is a required field"));
        }
    }
}

fn host_disk(cx: &mut Ctx, field: &str, disk: &Value) {
    if !cx.gate("HostDisk") {
        cx.push(field, "HostDisk feature gate is not enabled");
    }
    if str_at(disk, &["path"]).is_empty() {
        let path = format!("{field}.hostDisk.path");
        cx.push(
            path.clone(),
            format!("{path} is required for hostDisk volume"),
        );
    }
    let kind = str_at(disk, &["type"]);
    let type_field = format!("{field}.hostDisk.type");
    if !matches!(kind, "Disk" | "DiskOrCreate") {
        let message = format!(
            "{type_field} has invalid value '{kind}', allowed are 'Disk' or 'DiskOrCreate'"
        );
        cx.push(type_field.clone(), message);
    }
    let capacity = Quantity::at(disk, &["capacity"]).is_some_and(|c| !c.is_zero());
    if kind == "Disk" && capacity {
        let capacity_field = format!("{field}.hostDisk.capacity");
        let message = format!(
            "{capacity_field} is allowed to pass only with {type_field} equal to 'DiskOrCreate'"
        );
        cx.push(capacity_field, message);
    }
}

/// Go's `base64.StdEncoding.DecodeString`: the decoded length, and whether the input was valid.
fn base64_decoded_len(input: &str) -> (usize, bool) {
    let symbols: Vec<u8> = input
        .bytes()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    let is_symbol = |b: &&u8| b.is_ascii_alphanumeric() || **b == b'+' || **b == b'/';
    let mut decoded = 0;
    let mut chunks = symbols.chunks(4).peekable();
    while let Some(chunk) = chunks.next() {
        let data = chunk.iter().take_while(is_symbol).count();
        if data == 4 {
            decoded += 3;
            continue;
        }
        // A short quantum ends the input, padded with `=` to four symbols.
        let padded = chunk.len() == 4 && data >= 2 && chunk[data..].iter().all(|b| *b == b'=');
        return if padded && chunks.peek().is_none() {
            (decoded + data - 1, true)
        } else {
            (decoded, false)
        };
    }
    (decoded, true)
}

/// The size limits and single-source rules of a cloud-init volume.
fn cloud_init(cx: &mut Ctx, field: &str, volume: &Value) {
    let Some((kind, source)) = ["cloudInitNoCloud", "cloudInitConfigDrive"]
        .into_iter()
        .find_map(|kind| present_at(volume, &[kind]).map(|source| (kind, source)))
    else {
        return;
    };
    let base = format!("{field}.{kind}");
    let user = cloud_init_data(
        cx,
        &base,
        source,
        ["secretRef", "userDataBase64", "userData"],
    );
    if user.sources > 1 {
        cx.push(
            base.clone(),
            format!("{base} must have only one userdatasource set."),
        );
    }
    if user.len > 2048 {
        let message = format!(
            "{base} userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data."
        );
        cx.push(base.clone(), message);
    }
    let network = cloud_init_data(
        cx,
        &base,
        source,
        ["networkDataSecretRef", "networkDataBase64", "networkData"],
    );
    if network.sources > 1 {
        cx.push(
            base.clone(),
            format!("{base} must have only one networkdata source set."),
        );
    }
    if network.len > 2048 {
        let message = format!(
            "{base} networkdata exceeds 2048 byte limit. Should use NetworkDataSecretRef for larger data."
        );
        cx.push(base.clone(), message);
    }
    if user.sources == 0 && network.sources == 0 {
        cx.push(
            base.clone(),
            format!("{base} must have at least one userdatasource or one networkdatasource set."),
        );
    }
}

struct CloudInitData {
    sources: usize,
    len: usize,
}

fn cloud_init_data(
    cx: &mut Ctx,
    base: &str,
    source: &Value,
    [secret, encoded, plain]: [&str; 3],
) -> CloudInitData {
    let mut data = CloudInitData { sources: 0, len: 0 };
    if !str_at(source, &[secret, "name"]).is_empty() {
        data.sources += 1;
    }
    let encoded_text = str_at(source, &[encoded]);
    if !encoded_text.is_empty() {
        data.sources += 1;
        let (len, valid) = base64_decoded_len(encoded_text);
        if !valid {
            let kind = base.rsplit('.').next().unwrap_or("");
            let field = format!("{base}.{encoded}");
            cx.push(
                field.clone(),
                format!("{field}.{kind}.{encoded} is not a valid base64 value."),
            );
        }
        data.len = len;
    }
    let plain_text = str_at(source, &[plain]);
    if !plain_text.is_empty() {
        data.sources += 1;
        data.len = plain_text.len();
    }
    data
}

pub(in crate::admission::vmspec) fn container_disk_paths(cx: &mut Ctx) {
    for (idx, volume) in array_at(cx.spec, &["volumes"]).iter().enumerate() {
        let path = str_at(volume, &["containerDisk", "path"]);
        if !path.is_empty() {
            let field = format!("{TEMPLATE_SPEC}.volumes[{idx}].containerDisk");
            cx.causes.extend(validate_path(&field, path));
        }
    }
}

pub(in crate::admission::vmspec) fn utility_volumes(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["utilityVolumes"]) {
        cx.push(
            ts!("utilityVolumes"),
            "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug",
        );
    }
}

/// Go's `filepath.Join("/", path)`.
fn clean_absolute(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `storageadmitters.ValidatePath`.
pub(in crate::admission::vmspec) fn validate_path(field: &str, path: &str) -> Vec<Cause> {
    if path == "/" {
        return vec![Cause::new(field, format!("{field} must not point to root"))];
    }
    let provided = path.strip_suffix('/').unwrap_or(path);
    if clean_absolute(path) == provided {
        return Vec::new();
    }
    vec![Cause::new(
        field,
        format!("{field} must be an absolute path to a file without relative components"),
    )]
}

#[cfg(test)]
mod tests {
    use super::{base64_decoded_len, clean_absolute};
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};

    #[test]
    fn volumes() {
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}, "emptyDisk": {"capacity": "1Gi"}}]})
            ),
            one(
                "spec.template.spec.volumes[0]",
                "spec.template.spec.volumes[0] must have exactly one source type set"
            )
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "root", "emptyDisk": {"capacity": "1Gi"}}]})
            ),
            one(
                "spec.template.spec.volumes[1].name",
                "spec.template.spec.volumes[1] and spec.template.spec.volumes[0] must not have the same Name."
            )
        );
        let cloud_init = |source: Value| {
            json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "ci", "cloudInitNoCloud": source}],
                   "domain": {"devices": {"disks": [{"name": "root"}, {"name": "ci"}]}}})
        };
        assert_eq!(
            run(&cloud_init(
                json!({"userDataBase64": "I2Nsb3VkLWNvbmZpZwo="})
            )),
            Vec::new()
        );
        assert_eq!(
            run(&cloud_init(json!({"userDataBase64": "not base64!"}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud.userDataBase64",
                "spec.template.spec.volumes[1].cloudInitNoCloud.userDataBase64.cloudInitNoCloud.userDataBase64 is not a valid base64 value."
            )
        );
        assert_eq!(
            run(&cloud_init(json!({"userData": "x".repeat(2049)}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud",
                "spec.template.spec.volumes[1].cloudInitNoCloud userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data."
            )
        );
        assert_eq!(
            run(&cloud_init(json!({}))),
            one(
                "spec.template.spec.volumes[1].cloudInitNoCloud",
                "spec.template.spec.volumes[1].cloudInitNoCloud must have at least one userdatasource or one networkdatasource set."
            )
        );
        let host_disk = json!({"volumes": [{"name": "root", "hostDisk": {"path": "/data/disk.img", "type": "Disk"}}]});
        assert_eq!(
            run(&host_disk),
            one(
                "spec.template.spec.volumes[0]",
                "HostDisk feature gate is not enabled"
            )
        );
        assert_eq!(
            run_with(&host_disk, &profile((1, 9), &["HostDisk"])),
            Vec::new()
        );
        assert_eq!(
            run(
                &json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1", "path": "../disk"}}]})
            ),
            one(
                "spec.template.spec.volumes[0].containerDisk",
                "spec.template.spec.volumes[0].containerDisk must be an absolute path to a file without relative components"
            )
        );
        assert_eq!(
            run(&json!({"utilityVolumes": []})),
            one(
                "spec.template.spec.utilityVolumes",
                "cannot create VMI with utility volumes in spec, utility volumes can only be added via hotplug"
            )
        );
    }

    #[test]
    fn go_parsers() {
        assert_eq!(base64_decoded_len("aGVsbG8="), (5, true));
        assert_eq!(base64_decoded_len("aGVsbG8"), (3, false));
        assert_eq!(base64_decoded_len("aGVs\nbG8h"), (6, true));
        assert_eq!(clean_absolute("a/./b/../c/"), "/a/c");
    }

    /// The causes of a VM whose second volume is `volume`, with `gates` on at v1.9.
    fn second_volume(volume: &Value, gates: &[&str]) -> Vec<(String, String)> {
        let patch = json!({"volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, volume],
            "domain": {"devices": {"disks": [{"name": "root"}, {"name": "data"}]}}});
        run_with(&patch, &profile((1, 9), gates))
    }

    #[test]
    fn a_host_disk_of_type_disk_takes_no_capacity_but_zero() {
        let host_disk = |capacity: &str| {
            let disk = json!({"path": "/data/disk.img", "type": "Disk", "capacity": capacity});
            second_volume(&json!({"name": "data", "hostDisk": disk}), &["HostDisk"])
        };
        assert_eq!(host_disk("0"), Vec::new());
        let field = "spec.template.spec.volumes[1].hostDisk";
        assert_eq!(
            host_disk("1Gi"),
            one(
                &format!("{field}.capacity"),
                &format!(
                    "{field}.capacity is allowed to pass only with {field}.type equal to 'DiskOrCreate'"
                )
            )
        );
    }

    #[test]
    fn cloud_init_sources_and_lengths_at_their_bounds() {
        let no_cloud = |source: Value| {
            second_volume(&json!({"name": "data", "cloudInitNoCloud": source}), &[])
        };
        let base = "spec.template.spec.volumes[1].cloudInitNoCloud";
        let at_limit = "x".repeat(2048);
        let over_limit = "x".repeat(2049);
        assert_eq!(
            no_cloud(json!({"secretRef": {"name": "user-data"}})),
            Vec::new()
        );
        assert_eq!(
            no_cloud(json!({"userData": at_limit, "networkData": at_limit})),
            Vec::new()
        );
        assert_eq!(
            no_cloud(json!({"userData": over_limit})),
            one(
                base,
                &format!(
                    "{base} userdata exceeds 2048 byte limit. Should use UserDataSecretRef for larger data."
                )
            )
        );
        assert_eq!(
            no_cloud(json!({"networkData": over_limit})),
            one(
                base,
                &format!(
                    "{base} networkdata exceeds 2048 byte limit. Should use NetworkDataSecretRef for larger data."
                )
            )
        );
        assert_eq!(
            no_cloud(json!({"userData": "a", "secretRef": {"name": "user-data"}})),
            one(
                base,
                &format!("{base} must have only one userdatasource set.")
            )
        );
    }
}
