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
    let bindings: &[(&str, &str)] = if version.at_least(1, 8) {
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
