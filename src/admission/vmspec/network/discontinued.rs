//! `discontinued.go` (`Validator.ValidateCreation`): bindings removed in v1.3, refused on CREATE.

use serde_json::Value;

use crate::admission::Cause;
use crate::cluster::profile::KubeVirtVersion;
use crate::model::value::{array_at, is_set_at};

/// The VM admitter builds this validator with the path `spec` for the template spec
/// (vms-admitter.go), so KubeVirt names `spec.domain.devices.interfaces[N].BINDING`.
/// Up to v1.7 only slirp was refused here; passt and macvtap were still validated as bindings
/// behind their gates (`Validator.ValidateCreation`, pkg/network/admitter/validator.go at v1.7.0).
pub(in crate::admission::vmspec) fn discontinued_bindings(
    spec: &Value,
    version: KubeVirtVersion,
) -> Vec<Cause> {
    let bindings: &[(&str, &str)] = if !version.at_least(1, 3) {
        &[]
    } else if version.at_least(1, 8) {
        &[
            ("slirp", "Slirp interface support"),
            ("passt", "Passt network binding"),
            ("macvtap", "Macvtap network binding"),
        ]
    } else {
        &[("slirp", "Slirp interface support")]
    };
    let mut causes = Vec::new();
    for (idx, iface) in array_at(spec, &["domain", "devices", "interfaces"])
        .iter()
        .enumerate()
    {
        for &(binding, name) in bindings {
            if is_set_at(iface, &[binding]) {
                causes.push(Cause::new(
                    format!("spec.domain.devices.interfaces[{idx}].{binding}"),
                    format!("{name} has been discontinued since v1.3"),
                ));
            }
        }
    }
    causes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_vm, run_with};
    use crate::cluster::profile::ClusterProfile;

    /// Up to v1.2 slirp is not discontinued: it is a pod-network binding the cluster
    /// configuration permits (`validateInterfaceNetworkBasics`, vmi-create-admitter.go at
    /// v1.2.0), refused at the interface's name otherwise.
    #[test]
    fn up_to_v1_2_slirp_is_permitted_by_the_cluster_configuration() {
        let slirp =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "slirp": {}}]}}});
        for minor in [0, 1, 2] {
            let mut profile = profile((1, minor), &[]);
            assert_eq!(
                run_with(&slirp, &profile),
                one(
                    "spec.template.spec.domain.devices.interfaces[0].name",
                    "Slirp interface is not enabled in kubevirt-config"
                ),
                "v1.{minor}"
            );
            profile.permit_slirp_interface = true;
            assert_eq!(run_with(&slirp, &profile), Vec::new(), "v1.{minor}");
        }
        let multus = json!({"domain": {"devices": {"interfaces": [{"name": "default", "slirp": {}}]}},
                            "networks": [{"name": "default", "multus": {"networkName": "net"}}]});
        assert_eq!(
            run_with(&multus, &profile((1, 2), &[])),
            one(
                "spec.template.spec.domain.devices.interfaces[0].name",
                "Slirp interface only implemented with pod network"
            )
        );
    }

    #[test]
    fn discontinued_bindings_answer_alone_on_create() {
        let patch =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "slirp": {}}]}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.domain.devices.interfaces[0].slirp",
                "Slirp interface support has been discontinued since v1.3"
            )
        );
        let update = run_vm(
            &json!({"spec": {"template": {"spec": patch}}}),
            &ClusterProfile::default(),
            false,
        );
        assert_eq!(
            update,
            one(
                "spec.template.spec.domain.devices.interfaces[0]",
                "logical default interface must have exactly one binding method or binding plugin"
            )
        );
        let passt =
            json!({"domain": {"devices": {"interfaces": [{"name": "default", "passt": {}}]}}});
        assert_eq!(
            run_with(&passt, &profile((1, 9), &["Passt"])),
            one(
                "",
                "Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives."
            )
        );
    }
}
