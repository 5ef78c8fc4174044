//! The APIs a release is rendered against (`.Capabilities.APIVersions`, `--api-versions`) and
//! the Kubernetes version (`--kube-version`). Flux and Argo CD render with the APIs of the
//! cluster they install into; kvlint takes the cluster to serve what the targeted KubeVirt
//! release installs: each API group version its virt-operator serves (the CRDs of
//! `GenerateCurrentInstallStrategy`, their served versions in
//! `pkg/virt-operator/resource/generate/components/crds.go`, and the `KubeVirt` CRD of the
//! operator manifest), with each of its kinds. CDI (`cdi.kubevirt.io`) is not among them:
//! virt-operator does not install it, and KubeVirt runs without it ("CDI not detected,
//! DataVolume integration disabled").

use crate::cluster::version::KubeVirtVersion;
use crate::yaml::Node;

/// Where a release's `--api-versions` come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ApiVersions {
    /// helm-controller: Helm's discovery of the cluster (`GetVersionSet`), every group version
    /// the API server lists (the aggregated `subresources.kubevirt.io` too) and the
    /// `group/version/Kind` of each of its resources.
    Discovery,
    /// Argo CD: the resources of the destination cluster its controller lists and watches
    /// (`APIResourcesToStrings`), as `group/version` and `group/version/Kind`; the aggregated
    /// subresources have no list verb and are left out.
    ArgoCd,
    /// An Application's own `helm.apiVersions`, which replace the cluster's.
    Listed(Vec<String>),
}

/// One served version of a KubeVirt API group: its kinds, and the minor releases that serve it.
struct Served {
    group_version: &'static str,
    kinds: &'static [&'static str],
    /// The first release that serves it.
    since: (u32, u32),
    /// The first release that no longer serves it.
    until: Option<(u32, u32)>,
}

const CORE: &[&str] = &[
    "KubeVirt",
    "VirtualMachine",
    "VirtualMachineInstance",
    "VirtualMachineInstanceMigration",
    "VirtualMachineInstancePreset",
    "VirtualMachineInstanceReplicaSet",
];
const INSTANCETYPES: &[&str] = &[
    "VirtualMachineClusterInstancetype",
    "VirtualMachineClusterPreference",
    "VirtualMachineInstancetype",
    "VirtualMachinePreference",
];
const SNAPSHOTS: &[&str] = &[
    "VirtualMachineRestore",
    "VirtualMachineSnapshot",
    "VirtualMachineSnapshotContent",
];

const fn served(
    group_version: &'static str,
    kinds: &'static [&'static str],
    since: (u32, u32),
    until: Option<(u32, u32)>,
) -> Served {
    Served {
        group_version,
        kinds,
        since,
        until,
    }
}

/// The served versions of KubeVirt's CRDs, v1.0 to v1.9 (no patch release changes them). The
/// `instancetype.kubevirt.io` alpha versions are left unserved in v1.6 and gone in v1.7;
/// `export.kubevirt.io/v1alpha1` is gone in v1.9.
const SERVED: &[Served] = &[
    served("kubevirt.io/v1", CORE, (1, 0), None),
    served("kubevirt.io/v1alpha3", CORE, (1, 0), None),
    served(
        "instancetype.kubevirt.io/v1alpha1",
        INSTANCETYPES,
        (1, 0),
        Some((1, 6)),
    ),
    served(
        "instancetype.kubevirt.io/v1alpha2",
        INSTANCETYPES,
        (1, 0),
        Some((1, 6)),
    ),
    served(
        "instancetype.kubevirt.io/v1beta1",
        INSTANCETYPES,
        (1, 0),
        None,
    ),
    served("snapshot.kubevirt.io/v1alpha1", SNAPSHOTS, (1, 0), None),
    served("snapshot.kubevirt.io/v1beta1", SNAPSHOTS, (1, 3), None),
    served(
        "export.kubevirt.io/v1alpha1",
        &["VirtualMachineExport"],
        (1, 0),
        Some((1, 9)),
    ),
    served(
        "export.kubevirt.io/v1beta1",
        &["VirtualMachineExport"],
        (1, 3),
        None,
    ),
    served(
        "export.kubevirt.io/v1",
        &["VirtualMachineExport"],
        (1, 9),
        None,
    ),
    served(
        "pool.kubevirt.io/v1alpha1",
        &["VirtualMachinePool"],
        (1, 0),
        None,
    ),
    served(
        "pool.kubevirt.io/v1beta1",
        &["VirtualMachinePool"],
        (1, 7),
        None,
    ),
    served(
        "clone.kubevirt.io/v1alpha1",
        &["VirtualMachineClone"],
        (1, 0),
        None,
    ),
    served(
        "clone.kubevirt.io/v1beta1",
        &["VirtualMachineClone"],
        (1, 5),
        None,
    ),
    served(
        "migrations.kubevirt.io/v1alpha1",
        &["MigrationPolicy"],
        (1, 0),
        None,
    ),
    served(
        "backup.kubevirt.io/v1alpha1",
        &["VirtualMachineBackup", "VirtualMachineBackupTracker"],
        (1, 8),
        None,
    ),
    served("plugin.kubevirt.io/v1alpha1", &["Plugin"], (1, 9), None),
];

/// The API services of virt-api (`SubresourceGroupVersions`): their resources are subresources
/// without a kind.
const AGGREGATED: &[&str] = &[
    "subresources.kubevirt.io/v1",
    "subresources.kubevirt.io/v1alpha3",
];

/// The `--api-versions` of a release rendered for a cluster that runs `kubevirt`, sorted.
pub(super) fn api_versions(source: &ApiVersions, kubevirt: KubeVirtVersion) -> Vec<String> {
    let mut listed: Vec<String> = match source {
        ApiVersions::Listed(listed) => return listed.clone(),
        ApiVersions::Discovery | ApiVersions::ArgoCd => SERVED
            .iter()
            .filter(|api| {
                kubevirt.at_least(api.since.0, api.since.1)
                    && api
                        .until
                        .is_none_or(|(major, minor)| !kubevirt.at_least(major, minor))
            })
            .flat_map(|api| {
                std::iter::once(api.group_version.to_owned()).chain(
                    api.kinds
                        .iter()
                        .map(|kind| format!("{}/{kind}", api.group_version)),
                )
            })
            .collect(),
    };
    if *source == ApiVersions::Discovery {
        listed.extend(
            AGGREGATED
                .iter()
                .map(|&group_version| group_version.to_owned()),
        );
    }
    listed.sort();
    listed
}

/// An Argo CD source's `helm.apiVersions`: they replace the cluster's when there are any
/// (`GetAPIVersionsOrDefault`, Argo CD 2.13 and later).
pub(super) fn argocd_api_versions(helm: Option<&Node>) -> ApiVersions {
    let listed: Vec<String> = helm
        .and_then(|h| h.get("apiVersions"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_str)
        .map(str::to_owned)
        .collect();
    if listed.is_empty() {
        ApiVersions::ArgoCd
    } else {
        ApiVersions::Listed(listed)
    }
}

/// `helm.kubeVersion` as the repo server passes it to `--kube-version` (`parseKubeVersion`:
/// Kubernetes' generic version, `v1.30.2-gke.1` read as `1.30.2`); Err with why it does not
/// parse.
pub(super) fn kube_version(text: &str) -> Result<String, String> {
    let trimmed = text.trim_start();
    let digits = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut numbers = String::new();
    let mut rest = digits;
    loop {
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        numbers.push_str(&rest[..end]);
        rest = &rest[end..];
        match rest.strip_prefix('.') {
            Some(after) if after.starts_with(|c: char| c.is_ascii_digit()) => {
                numbers.push('.');
                rest = after;
            }
            _ => break,
        }
    }
    if numbers.is_empty() {
        return Err(format!("could not parse {text:?} as version"));
    }
    let components: Vec<&str> = numbers.split('.').collect();
    if components.len() < 2 {
        return Err(format!("illegal version string {text:?}"));
    }
    let mut parsed = Vec::with_capacity(components.len());
    for (i, component) in components.iter().enumerate() {
        if i == 0 && component.starts_with('0') && *component != "0" {
            return Err(format!(
                "illegal zero-prefixed version component {component:?} in {text:?}"
            ));
        }
        let number: u64 = component.parse().map_err(|err| {
            format!("illegal non-numeric version component {component:?} in {text:?}: {err}")
        })?;
        parsed.push(number.to_string());
    }
    Ok(parsed.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(source: &ApiVersions, major: u32, minor: u32) -> Vec<String> {
        api_versions(source, KubeVirtVersion::new(major, minor))
    }

    #[test]
    fn every_release_serves_the_core_api_with_its_kinds() {
        for minor in 0..=9 {
            let listed = of(&ApiVersions::ArgoCd, 1, minor);
            for api in [
                "kubevirt.io/v1",
                "kubevirt.io/v1/VirtualMachine",
                "kubevirt.io/v1alpha3/VirtualMachineInstance",
                "instancetype.kubevirt.io/v1beta1/VirtualMachineClusterInstancetype",
                "migrations.kubevirt.io/v1alpha1/MigrationPolicy",
            ] {
                assert!(listed.iter().any(|a| a == api), "v1.{minor}: {api}");
            }
            assert!(
                !listed.iter().any(|a| a.starts_with("cdi.kubevirt.io")),
                "{listed:?}"
            );
        }
    }

    #[test]
    fn served_versions_follow_the_release() {
        let has = |major, minor, api: &str| {
            of(&ApiVersions::Discovery, major, minor)
                .iter()
                .any(|a| a == api)
        };
        let changes = [
            (
                "snapshot.kubevirt.io/v1beta1/VirtualMachineSnapshot",
                (1, 3),
                None,
            ),
            ("export.kubevirt.io/v1beta1", (1, 3), None),
            (
                "clone.kubevirt.io/v1beta1/VirtualMachineClone",
                (1, 5),
                None,
            ),
            ("pool.kubevirt.io/v1beta1/VirtualMachinePool", (1, 7), None),
            (
                "backup.kubevirt.io/v1alpha1/VirtualMachineBackupTracker",
                (1, 8),
                None,
            ),
            ("plugin.kubevirt.io/v1alpha1/Plugin", (1, 9), None),
            ("export.kubevirt.io/v1/VirtualMachineExport", (1, 9), None),
            (
                "export.kubevirt.io/v1alpha1/VirtualMachineExport",
                (1, 0),
                Some((1, 9)),
            ),
            (
                "instancetype.kubevirt.io/v1alpha2/VirtualMachinePreference",
                (1, 0),
                Some((1, 6)),
            ),
            ("instancetype.kubevirt.io/v1alpha1", (1, 0), Some((1, 6))),
        ];
        for (api, since, until) in changes {
            for minor in 0..=9 {
                let expected = minor >= since.1 && until.is_none_or(|(_, end)| minor < end);
                assert_eq!(has(1, minor, api), expected, "v1.{minor}: {api}");
            }
        }
        // A patch release serves what its minor line serves.
        assert_eq!(
            api_versions(&ApiVersions::ArgoCd, KubeVirtVersion::release(1, 6, 6)),
            of(&ApiVersions::ArgoCd, 1, 6)
        );
    }

    #[test]
    fn discovery_adds_the_aggregated_subresources_and_a_list_replaces_all() {
        let argo = of(&ApiVersions::ArgoCd, 1, 9);
        let discovery = of(&ApiVersions::Discovery, 1, 9);
        let added: Vec<&String> = discovery.iter().filter(|a| !argo.contains(a)).collect();
        assert_eq!(
            added,
            [
                "subresources.kubevirt.io/v1",
                "subresources.kubevirt.io/v1alpha3"
            ]
        );
        let mut sorted = argo.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(argo, sorted);
        let own = ApiVersions::Listed(vec!["example.com/v1".to_owned()]);
        assert_eq!(of(&own, 1, 9), ["example.com/v1"]);
    }

    #[test]
    fn argo_cd_api_versions_replace_the_cluster_only_when_listed() {
        let parse = |text: &str| {
            crate::yaml::parse_stream(text, crate::yaml::Limits::default())
                .into_iter()
                .next()
                .unwrap()
                .unwrap()
                .root
        };
        let listed = parse("apiVersions: [example.com/v1, example.com/v1/Thing]\n");
        assert_eq!(
            argocd_api_versions(Some(&listed)),
            ApiVersions::Listed(vec!["example.com/v1".into(), "example.com/v1/Thing".into()])
        );
        let empty = parse("apiVersions: []\n");
        assert_eq!(argocd_api_versions(Some(&empty)), ApiVersions::ArgoCd);
        assert_eq!(argocd_api_versions(None), ApiVersions::ArgoCd);
    }

    #[test]
    fn kube_versions_are_read_as_kubernetes_reads_a_generic_version() {
        assert_eq!(kube_version("1.30").unwrap(), "1.30");
        assert_eq!(kube_version("v1.30.2").unwrap(), "1.30.2");
        assert_eq!(kube_version(" v1.30.2-gke.1+x").unwrap(), "1.30.2");
        assert_eq!(kube_version("1.030").unwrap(), "1.30");
        assert!(
            kube_version("1")
                .unwrap_err()
                .contains("illegal version string")
        );
        assert!(
            kube_version("latest")
                .unwrap_err()
                .contains("could not parse")
        );
        assert!(kube_version("01.30").unwrap_err().contains("zero-prefixed"));
    }
}
