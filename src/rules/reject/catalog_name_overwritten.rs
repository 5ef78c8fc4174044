//! KV2001: a cluster object in the repository has the name of a catalog object virt-operator
//! deploys, and overwrites (found by `resolve::catalog_source`).

use std::fmt::Display;

use super::spec::{At, Reported};
use crate::rules::{Category, FixKind, Rule, Severity};

pub static CATALOG_NAME_OVERWRITTEN: Rule = Rule {
    code: "KV2001",
    name: "catalog-name-overwritten",
    category: Category::Catalog,
    severity: Severity::Warning,
    summary: "A cluster object in the repository has the name of a catalog object that virt-operator overwrites.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV2001.md"),
    fix: FixKind::None,
    drift: None,
};

/// How the finding names the catalog's object it points at beside the repository's.
pub const DEPLOYED_OBJECT: &str = "the catalog's object";

/// The repository's object (its `kind` and `name`) has the name of an object the catalog of
/// KubeVirt `version` deploys, with another content.
pub fn overwritten(kind: &str, name: &str, version: &dyn Display) -> Reported {
    Reported::new(
        &CATALOG_NAME_OVERWRITTEN,
        At::Field("metadata.name".to_owned()),
        format!(
            "{kind} {name} has the name of a common-instancetypes object that virt-operator (KubeVirt {version}) deploys and keeps overwriting: this definition will not stay in the cluster"
        ),
    )
    .with_help("rename the object (and the VMs that reference it), or disable the catalog with spec.configuration.commonInstancetypesDeployment.enabled: false in the KubeVirt CR")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_the_definition_will_not_stay() {
        let reported = overwritten("VirtualMachineClusterInstancetype", "u1.small", &"v1.9");
        assert_eq!(reported.at, At::Field("metadata.name".to_owned()));
        assert_eq!(
            reported.message,
            "VirtualMachineClusterInstancetype u1.small has the name of a common-instancetypes object that virt-operator (KubeVirt v1.9) deploys and keeps overwriting: this definition will not stay in the cluster"
        );
        assert_eq!(
            reported.help.as_deref(),
            Some(
                "rename the object (and the VMs that reference it), or disable the catalog with spec.configuration.commonInstancetypesDeployment.enabled: false in the KubeVirt CR"
            )
        );
    }
}
