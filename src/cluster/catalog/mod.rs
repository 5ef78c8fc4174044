//! The kubevirt/common-instancetypes catalog that virt-operator deploys as cluster-scoped
//! instance types and preferences, and which names each KubeVirt release's bundle contains.
//!
//! The v1.7.0 objects (bundled by KubeVirt v1.8 and v1.9) are generated from the tables in
//! `instancetypes` and `preferences`; `releases` records how the name sets evolved from the
//! first bundled catalog (KubeVirt v1.1) on.

mod instancetypes;
mod preferences;
mod releases;

use serde_json::{Map, Value};

use crate::model::TopologyNames;

const API_VERSION: &str = "instancetype.kubevirt.io/v1beta1";
const INSTANCETYPE_KIND: &str = "VirtualMachineClusterInstancetype";
const PREFERENCE_KIND: &str = "VirtualMachineClusterPreference";
const LABEL_PREFIX: &str = "instancetype.kubevirt.io/";
const VENDOR: &str = "kubevirt.io";
/// The catalog release the generated objects reproduce.
const VERSION: &str = "v1.7.0";

/// The catalog release bundled by a KubeVirt minor release, e.g. `Some("v1.7.0")` for (1, 9),
/// `None` for (1, 0) and for releases this table does not know.
pub fn bundled_version(major: u32, minor: u32) -> Option<&'static str> {
    releases::find(major, minor).map(|release| release.catalog)
}

/// Every object of the v1.7.0 catalog as Kubernetes JSON, instance types first then
/// preferences, each group sorted by name.
pub fn objects_v1_7_0() -> Vec<Value> {
    let mut objects = instancetypes::objects();
    objects.extend(preferences::objects());
    objects
}

/// Spells a generated preference's `preferredCPUTopology` as a release's bundle does: the
/// catalogs KubeVirt v1.1 to v1.3 bundle (common-instancetypes v0.4.0 to v1.0.1) write
/// `preferSockets` and `preferSpread`, the only spellings those releases define; v1.2.0 of the
/// catalog (bundled from KubeVirt v1.4) writes the short names the generated objects have.
pub fn spell_topology_as_bundled(object: &mut Value, names: TopologyNames) {
    if names == TopologyNames::ShortAndPrefer {
        return;
    }
    let Some(Value::String(topology)) = object.pointer_mut("/spec/cpu/preferredCPUTopology") else {
        return;
    };
    if let Some(prefer) = ["sockets", "cores", "threads", "spread", "any"]
        .iter()
        .find(|short| **short == topology.as_str())
        .map(|short| format!("prefer{}{}", short[..1].to_uppercase(), &short[1..]))
    {
        *topology = prefer;
    }
}

/// Names in the bundle of the KubeVirt release (major, minor): (instance types, preferences),
/// both sorted. Empty when the release bundles no catalog (v1.0) or is unknown.
pub fn names_in_release(major: u32, minor: u32) -> (Vec<&'static str>, Vec<&'static str>) {
    match releases::find(major, minor) {
        Some(release) => (
            release.instancetypes.iter().map(String::as_str).collect(),
            release.preferences.iter().map(String::as_str).collect(),
        ),
        None => (Vec::new(), Vec::new()),
    }
}

/// Whether `name` (instance type or preference) carries the
/// `instancetype.kubevirt.io/deprecated: "true"` label in that release's bundle.
pub fn deprecated_in_release(major: u32, minor: u32, name: &str) -> bool {
    releases::find(major, minor).is_some_and(|release| release.deprecated.contains(name))
}

/// A catalog object with its metadata and spec in the bundle's key order.
///
/// kustomize writes every mapping with sorted keys; the version label is added by a later
/// transformer and therefore comes last.
fn object(
    kind: &str,
    name: &str,
    annotations: Map<String, Value>,
    labels: Map<String, Value>,
    spec: Map<String, Value>,
) -> Value {
    let mut labels = sorted_map(labels);
    labels.insert(label("common-instancetypes-version"), VERSION.into());
    let mut metadata = Map::new();
    metadata.insert("annotations".into(), Value::Object(sorted_map(annotations)));
    metadata.insert("labels".into(), Value::Object(labels));
    metadata.insert("name".into(), name.into());
    let mut object = Map::new();
    object.insert("apiVersion".into(), API_VERSION.into());
    object.insert("kind".into(), kind.into());
    object.insert("metadata".into(), Value::Object(metadata));
    object.insert("spec".into(), Value::Object(sorted_map(spec)));
    Value::Object(object)
}

/// `instancetype.kubevirt.io/<name>`.
fn label(name: &str) -> String {
    format!("{LABEL_PREFIX}{name}")
}

fn sorted_map(map: Map<String, Value>) -> Map<String, Value> {
    let mut entries: Vec<(String, Value)> = map.into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries.into_iter().map(|(k, v)| (k, sorted(v))).collect()
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(sorted_map(map)),
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Sets `path` in `map`, creating the intermediate objects.
fn set(map: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut current = map;
    for key in parents {
        let slot = current
            .entry(*key)
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else {
            return;
        };
        current = next;
    }
    current.insert((*last).to_owned(), value);
}

/// An empty JSON object, the value of marker fields such as `preferredRng: {}`.
fn empty() -> Value {
    Value::Object(Map::new())
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::Value;

    use super::*;

    fn name_of(object: &Value) -> &str {
        object["metadata"]["name"].as_str().unwrap_or_default()
    }

    fn generated() -> BTreeMap<(String, String), Value> {
        objects_v1_7_0()
            .into_iter()
            .map(|o| {
                let kind = o["kind"].as_str().unwrap().to_owned();
                ((kind, name_of(&o).to_owned()), o)
            })
            .collect()
    }

    fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
        objects
            .iter()
            .find(|o| o["kind"] == kind && name_of(o) == name)
            .unwrap_or_else(|| panic!("{kind} {name} not generated"))
    }

    #[test]
    fn counts_names_and_order() {
        let objects = objects_v1_7_0();
        let count = |kind: &str| objects.iter().filter(|o| o["kind"] == kind).count();
        assert_eq!(count(INSTANCETYPE_KIND), 65);
        assert_eq!(count(PREFERENCE_KIND), 54);
        assert_eq!(objects.len(), 119);
        assert_eq!(generated().len(), 119, "names are not unique");

        // Instance types first, then preferences, each sorted by name.
        let keys: Vec<(bool, &str)> = objects
            .iter()
            .map(|o| (o["kind"] == PREFERENCE_KIND, name_of(o)))
            .collect();
        let mut sorted_keys = keys.clone();
        sorted_keys.sort_unstable();
        assert_eq!(keys, sorted_keys);

        for object in &objects {
            let top: Vec<&str> = object
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(top, ["apiVersion", "kind", "metadata", "spec"]);
            assert_eq!(object["apiVersion"], API_VERSION);
            assert_eq!(
                object["metadata"]["labels"][label("common-instancetypes-version")],
                VERSION
            );
        }
    }

    #[test]
    fn latest_release_names_equal_the_generated_objects() {
        let objects = objects_v1_7_0();
        let names = |kind: &str| -> Vec<&str> {
            objects
                .iter()
                .filter(|o| o["kind"] == kind)
                .map(name_of)
                .collect()
        };
        for minor in [8, 9] {
            let (instancetypes, preferences) = names_in_release(1, minor);
            assert_eq!(instancetypes, names(INSTANCETYPE_KIND), "v1.{minor}");
            assert_eq!(preferences, names(PREFERENCE_KIND), "v1.{minor}");
        }
        assert_eq!(bundled_version(1, 9), Some(VERSION));
        assert_eq!(bundled_version(1, 8), Some("v1.6.0"));
    }

    #[test]
    fn releases_match_the_documented_counts() {
        let expected = [
            (0, None, 0, 0),
            (1, Some("v0.3.4"), 38, 28),
            (2, Some("v0.4.0"), 38, 32),
            (3, Some("v1.0.1"), 39, 32),
            (4, Some("v1.2.0"), 48, 42),
            (5, Some("v1.3.0"), 44, 39),
            (6, Some("v1.4.0"), 55, 54),
            (7, Some("v1.5.1"), 55, 54),
            (8, Some("v1.6.0"), 65, 54),
            (9, Some("v1.7.0"), 65, 54),
        ];
        for (minor, version, instancetypes, preferences) in expected {
            assert_eq!(bundled_version(1, minor), version, "v1.{minor}");
            let (i, p) = names_in_release(1, minor);
            assert_eq!(
                (i.len(), p.len()),
                (instancetypes, preferences),
                "v1.{minor}"
            );
            assert!(i.is_sorted() && p.is_sorted(), "v1.{minor} not sorted");
        }
        assert_eq!(bundled_version(1, 10), None);
        assert_eq!(bundled_version(2, 9), None);
        assert_eq!(names_in_release(0, 9), (Vec::new(), Vec::new()));
    }

    #[test]
    fn release_spot_checks() {
        let has = |minor: u32, name: &str| {
            let (i, p) = names_in_release(1, minor);
            i.contains(&name) || p.contains(&name)
        };
        assert!(has(1, "server.tiny"));
        assert!(!has(2, "server.tiny"));
        assert!(has(8, "d1.nano"));
        assert!(!has(7, "d1.nano"));
        assert!(has(4, "u1.2xmedium") && !has(3, "u1.2xmedium"));
        assert!(has(6, "cx1.medium1gi") && !has(5, "cx1.medium1gi"));
        assert!(has(4, "gn1.xlarge") && !has(5, "gn1.xlarge"));
        assert!(has(3, "windows.2k12") && !has(4, "windows.2k12") && has(6, "windows.2k12"));
        assert!(has(4, "centos.stream8.dpdk") && !has(5, "centos.stream8.dpdk"));
        assert!(!has(1, "centos.stream8.dpdk"));

        assert!(deprecated_in_release(1, 4, "gn1.xlarge"));
        assert!(!deprecated_in_release(1, 3, "gn1.xlarge"));
        assert!(deprecated_in_release(1, 1, "server.tiny"));
        assert!(deprecated_in_release(1, 1, "highperformance.large"));
        assert!(deprecated_in_release(1, 2, "windows.2k12.virtio"));
        assert!(deprecated_in_release(1, 3, "windows.2k12"));
        assert!(!deprecated_in_release(1, 6, "windows.2k12"));
        assert!(deprecated_in_release(1, 4, "centos.stream8.dpdk"));
        assert!(deprecated_in_release(1, 4, "centos.7.desktop"));
        assert!(!deprecated_in_release(1, 9, "u1.medium"));
        assert!(!deprecated_in_release(1, 0, "server.tiny"));
    }

    #[test]
    fn deprecated_names_are_in_their_release() {
        for minor in 0..=9 {
            let (i, p) = names_in_release(1, minor);
            let all: BTreeSet<&str> = i.into_iter().chain(p).collect();
            let release = releases::find(1, minor);
            for name in release.iter().flat_map(|r| r.deprecated.iter()) {
                assert!(all.contains(name.as_str()), "v1.{minor}: {name}");
            }
        }
        let (i, p) = names_in_release(1, 9);
        assert!(i.iter().chain(&p).all(|n| !deprecated_in_release(1, 9, n)));
    }

    #[test]
    fn instancetype_spot_checks() {
        let objects = objects_v1_7_0();
        let u1 = find(&objects, INSTANCETYPE_KIND, "u1.medium");
        assert_eq!(u1["spec"]["cpu"]["guest"], 1);
        assert_eq!(u1["spec"]["memory"]["guest"], "4Gi");

        let cx1 = &find(&objects, INSTANCETYPE_KIND, "cx1.2xlarge1gi")["spec"];
        assert_eq!(cx1["memory"]["hugepages"]["pageSize"], "1Gi");
        assert_eq!(cx1["cpu"]["maxSockets"], 8);
        assert_eq!(cx1["cpu"]["dedicatedCPUPlacement"], true);
        assert_eq!(cx1["cpu"]["isolateEmulatorThread"], true);
        assert_eq!(
            cx1["cpu"]["numa"]["guestMappingPassthrough"],
            serde_json::json!({})
        );
        assert_eq!(cx1["ioThreadsPolicy"], "auto");
    }

    #[test]
    fn preference_spot_checks() {
        let objects = objects_v1_7_0();
        let windows = &find(&objects, PREFERENCE_KIND, "windows.11")["spec"];
        assert_eq!(windows["requirements"]["cpu"]["guest"], 2);
        assert_eq!(windows["requirements"]["memory"]["guest"], "4Gi");
        assert_eq!(windows["devices"]["preferredTPM"]["persistent"], true);

        let fedora = &find(&objects, PREFERENCE_KIND, "fedora")["spec"];
        assert_eq!(fedora["preferredArchitecture"], "amd64");
        assert_eq!(fedora["requirements"]["architecture"], "amd64");
        assert_eq!(fedora["firmware"]["preferredEfi"]["secureBoot"], true);
        assert_eq!(fedora["features"]["preferredSmm"], serde_json::json!({}));
    }

    /// Compares the generated objects with the upstream bundles in `../shared/catalog`.
    #[test]
    fn generated_objects_equal_the_upstream_bundles() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/catalog"));
        if !dir.is_dir() {
            assert!(
                std::env::var("KVLINT_REQUIRE_SHARED").as_deref() != Ok("1"),
                "KVLINT_REQUIRE_SHARED=1 but {} does not exist",
                dir.display()
            );
            #[allow(clippy::print_stderr)]
            {
                eprintln!("skipped: {} does not exist", dir.display());
            }
            return;
        }

        let mut expected = generated();
        let mut seen = BTreeSet::new();
        for file in [
            "common-clusterinstancetypes-bundle.yaml",
            "common-clusterpreferences-bundle.yaml",
        ] {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            for document in crate::yaml::parse_stream(&text, crate::yaml::Limits::default()) {
                let bundled = document
                    .unwrap_or_else(|e| panic!("{file}: {e:?}"))
                    .root
                    .to_json();
                let kind = bundled["kind"].as_str().unwrap().to_owned();
                let name = name_of(&bundled).to_owned();
                let key = (kind, name);
                assert!(seen.insert(key.clone()), "{file}: {key:?} twice");
                let Some(ours) = expected.remove(&key) else {
                    panic!("{file}: {key:?} is not generated");
                };
                assert_eq!(ours, bundled, "{key:?} differs");
                // Same key order as well, so rendered output reads like the bundle.
                assert_eq!(
                    serde_json::to_string(&ours).unwrap(),
                    serde_json::to_string(&bundled).unwrap(),
                    "{key:?}: key order differs"
                );
            }
        }
        assert!(
            expected.is_empty(),
            "generated but not in the bundles: {:?}",
            expected.keys().collect::<Vec<_>>()
        );
        assert_eq!(seen.len(), 119);
    }
}
