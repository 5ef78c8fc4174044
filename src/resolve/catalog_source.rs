//! Where cluster-scoped references resolve when the repository does not define them: the
//! common-instancetypes catalog virt-operator deploys (built in), a user-supplied bundle, or
//! nothing.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::cluster::profile::{ClusterProfile, KubeVirtVersion};
use crate::config::CatalogChoice;
use crate::diag::{Category, Finding, Related};
use crate::error::Error;
use crate::k8s::{INSTANCETYPE_GROUP, Index, Object};
use crate::load::{self, LoadOptions};
use crate::rules::reject::catalog_name_overwritten;
use crate::source::{self, Selection, WalkLimits};

/// The cluster catalog kvlint resolves against.
#[derive(Debug, Default)]
pub struct Catalog {
    pub objects: Vec<Object>,
    pub index: Index,
    /// Source texts of the catalog objects, for snippets.
    pub sources: Vec<(Arc<str>, Arc<str>)>,
    /// How findings name it: "built-in catalog v1.7.0", or the bundle's path.
    pub label: Option<String>,
    /// Whether this is the catalog virt-operator deploys (the built-in one).
    pub deployed_by_operator: bool,
    /// The bundle the target release deploys, when v1.7.0's content stands in for it.
    pub approximated_from: Option<&'static str>,
    /// Files of a catalog bundle that cannot be read or parsed (KV0001–KV0005).
    pub findings: Vec<Finding>,
}

/// How far a `--catalog` directory is walked: a common-instancetypes bundle is one file of
/// about a megabyte, or a directory of a few hundred small files.
pub const CATALOG_WALK: WalkLimits = WalkLimits {
    max_depth: 16,
    max_entries: 10_000,
    max_files: 2_000,
    max_bytes: 256 << 20,
};

/// The version of common-instancetypes the built-in content is.
pub const BUILTIN_VERSION: &str = "v1.7.0";

/// The name the built-in catalog's objects are reported under.
pub fn builtin_file() -> String {
    format!("<built-in catalog {BUILTIN_VERSION}>")
}

/// The built-in catalog of a release, built once per process and release: building it prints
/// and parses a few hundred objects, which would dominate checks of small inputs (`kvlint
/// diff`'s two checks, tests, fuzzing).
fn builtin(version: KubeVirtVersion) -> Arc<Catalog> {
    static BUILT: Mutex<BTreeMap<(u32, u32), Arc<Catalog>>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(
        built
            .entry((version.major, version.minor))
            .or_insert_with(|| Arc::new(build_builtin(version))),
    )
}

fn build_builtin(version: KubeVirtVersion) -> Catalog {
    let Some(bundled) = crate::cluster::catalog::bundled_version(version.major, version.minor)
    else {
        return Catalog::default();
    };
    let (instancetypes, preferences) =
        crate::cluster::catalog::names_in_release(version.major, version.minor);
    let in_release = |object: &serde_json::Value| {
        let name = object
            .pointer("/metadata/name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        instancetypes.contains(&name) || preferences.contains(&name)
    };
    let mut text = String::new();
    for mut object in crate::cluster::catalog::objects_v1_7_0()
        .into_iter()
        .filter(|o| in_release(o))
    {
        crate::cluster::catalog::spell_topology_as_bundled(&mut object, version.topology_names());
        text.push_str("---\n");
        text.push_str(&crate::yaml::emit::to_yaml(&object));
    }
    let file: Arc<str> = Arc::from(builtin_file());
    let loaded = load::load_text(&file, &text, &LoadOptions::default());
    let index = Index::build(&loaded.objects);
    Catalog {
        objects: loaded.objects,
        index,
        sources: vec![(file, Arc::from(text))],
        label: Some(format!("built-in catalog {BUILTIN_VERSION}")),
        deployed_by_operator: true,
        approximated_from: (bundled != BUILTIN_VERSION).then_some(bundled),
        findings: Vec::new(),
    }
}

fn from_path(path: &std::path::Path) -> Result<Catalog, Error> {
    let inputs = source::discover_bounded(
        &Selection {
            paths: vec![path.to_path_buf()],
            ..Selection::default()
        },
        CATALOG_WALK,
    )
    .map_err(|err| Error::Catalog(Box::new(err)))?;
    Ok(from_inputs(&inputs, path))
}

fn from_files(path: &std::path::Path, files: &[source::NamedBytes]) -> Catalog {
    let inputs: Vec<source::Input> = files
        .iter()
        .map(|(display, bytes)| source::Input::Memory {
            display: Arc::clone(display),
            bytes: Arc::clone(bytes),
        })
        .collect();
    from_inputs(&inputs, path)
}

fn from_inputs(inputs: &[source::Input], path: &std::path::Path) -> Catalog {
    let loaded = load::load(
        inputs,
        &LoadOptions {
            keep_sources: true,
            ..LoadOptions::default()
        },
    );
    let objects: Vec<Object> = loaded
        .objects
        .into_iter()
        .filter(|o| o.group == INSTANCETYPE_GROUP && o.namespace.is_none())
        .collect();
    let index = Index::build(&objects);
    // A broken bundle file would otherwise only show as unresolved references.
    let findings = loaded
        .findings
        .into_iter()
        .filter(|f| f.rule.category == Category::Syntax)
        .collect();
    Catalog {
        objects,
        index,
        sources: loaded.sources,
        label: Some(format!("catalog {}", path.display())),
        deployed_by_operator: false,
        approximated_from: None,
        findings,
    }
}

/// The catalog for `choice` and the cluster `profile`.
pub fn load_catalog(
    choice: &CatalogChoice,
    profile: &ClusterProfile,
) -> Result<Arc<Catalog>, Error> {
    match choice {
        CatalogChoice::None => Ok(Arc::default()),
        CatalogChoice::Path(path) => from_path(path).map(Arc::new),
        CatalogChoice::Files { path, files } => Ok(Arc::new(from_files(path, files))),
        CatalogChoice::Auto if !profile.deploy_catalog || !deployed_by_default(profile) => {
            Ok(Arc::default())
        }
        CatalogChoice::Auto => Ok(builtin(profile.version)),
    }
}

/// The built-in catalog of a release being built on another thread while the repository is
/// read (building it takes as long as reading a few hundred files).
pub struct Prefetch(std::thread::JoinHandle<()>);

/// Starts building the built-in catalog of `version` when `choice` may need it.
pub fn prefetch(choice: &CatalogChoice, version: KubeVirtVersion) -> Option<Prefetch> {
    matches!(choice, CatalogChoice::Auto).then(|| {
        Prefetch(std::thread::spawn(move || {
            builtin(version);
        }))
    })
}

/// Like [`load_catalog`], after the prefetch (whose catalog it uses when the profile needs that
/// release's) has finished.
pub fn load_catalog_prefetched(
    choice: &CatalogChoice,
    profile: &ClusterProfile,
    prefetched: Option<Prefetch>,
) -> Result<Arc<Catalog>, Error> {
    if let Some(Prefetch(building)) = prefetched {
        building
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
    load_catalog(choice, profile)
}

/// v1.1–v1.3 deploy the catalog only behind a feature gate; v1.4+ by default.
fn deployed_by_default(profile: &ClusterProfile) -> bool {
    profile.version.at_least(1, 4) || profile.has_feature_gate("CommonInstancetypesDeploymentGate")
}

fn same_content(repo: &Object, catalog: &Object) -> bool {
    let part = |object: &Object, path: &str| {
        let mut node = Some(&object.node);
        for key in path.split('.') {
            node = node.and_then(|n| n.get(key));
        }
        node.map(crate::yaml::Node::to_json)
    };
    ["spec", "metadata.labels", "metadata.annotations"]
        .iter()
        .all(|path| part(repo, path) == part(catalog, path))
}

/// Cluster objects in the repository that share a name with a catalog object virt-operator
/// deploys: it overwrites them (KubeVirt `pkg/virt-operator/resource/apply/instancetypes.go`,
/// `createOrUpdateInstancetype`, `createOrUpdatePreference`).
pub fn overwritten_by_operator(
    objects: &[Object],
    catalog: &Catalog,
    profile: &ClusterProfile,
) -> Vec<Finding> {
    if !catalog.deployed_by_operator {
        return Vec::new();
    }
    objects
        .iter()
        .filter(|o| o.group == INSTANCETYPE_GROUP && o.namespace.is_none())
        .filter_map(|object| {
            let deployed = catalog.index.find(
                &catalog.objects,
                "",
                &object.group,
                &object.kind,
                None,
                &object.name,
            )?;
            // virt-operator only rewrites objects whose labels, annotations or spec differ.
            if same_content(object, deployed) {
                return None;
            }
            let reported =
                catalog_name_overwritten::overwritten(&object.kind, &object.name, &profile.version);
            let path = crate::yaml::FieldPath::parse(reported.at.text());
            let mut finding = Finding::new(
                reported.rule,
                object.field_location(&path),
                reported.message,
            )
            .with_object(Some(object.object_ref()))
            .with_path(path.text())
            .with_related(Related {
                location: deployed.head_location(),
                message: catalog_name_overwritten::DEPLOYED_OBJECT.to_owned(),
            });
            finding.help = reported.help;
            Some(finding)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_catalog_is_built_once_per_release() {
        let v1_9 = ClusterProfile::new(KubeVirtVersion::new(1, 9));
        let first = load_catalog(&CatalogChoice::Auto, &v1_9).unwrap();
        let again = load_catalog(&CatalogChoice::Auto, &v1_9).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!first.objects.is_empty());

        let v1_4 = load_catalog(
            &CatalogChoice::Auto,
            &ClusterProfile::new(KubeVirtVersion::new(1, 4)),
        )
        .unwrap();
        assert!(!Arc::ptr_eq(&first, &v1_4));
        let (instancetypes, preferences) = crate::cluster::catalog::names_in_release(1, 4);
        assert!(!v1_4.objects.is_empty());
        for object in &v1_4.objects {
            let name = object.name.as_str();
            assert!(
                instancetypes.contains(&name) || preferences.contains(&name),
                "{name}"
            );
        }
    }

    /// KubeVirt v1.3 knows only the `prefer*` topology names (instancetype v1beta1 types.go at
    /// v1.3.0), which its bundle (common-instancetypes v1.0.1) spells; v1.4's bundle, v1.2.0,
    /// spells the short names.
    #[test]
    fn the_builtin_catalog_spells_the_topology_as_the_release_bundle_does() {
        let topology = |minor: u32, name: &str| {
            let mut profile = ClusterProfile::new(KubeVirtVersion::new(1, minor));
            profile.feature_gates = vec!["CommonInstancetypesDeploymentGate".to_owned()];
            let catalog = load_catalog(&CatalogChoice::Auto, &profile).unwrap();
            let object = catalog.objects.iter().find(|o| o.name == name).unwrap();
            object
                .node
                .to_json()
                .pointer("/spec/cpu/preferredCPUTopology")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        assert_eq!(topology(3, "windows.10"), "preferSockets");
        assert_eq!(topology(3, "rhel.9.dpdk"), "preferSpread");
        assert_eq!(topology(4, "windows.10"), "sockets");
        assert_eq!(topology(4, "rhel.9.dpdk"), "spread");
    }

    #[test]
    fn a_cluster_without_the_catalog_gets_an_empty_one() {
        let v1_3 = ClusterProfile::new(KubeVirtVersion::new(1, 3));
        assert!(
            load_catalog(&CatalogChoice::Auto, &v1_3)
                .unwrap()
                .objects
                .is_empty()
        );
        let v1_9 = ClusterProfile::new(KubeVirtVersion::new(1, 9));
        assert!(
            load_catalog(&CatalogChoice::None, &v1_9)
                .unwrap()
                .objects
                .is_empty()
        );
    }
}
