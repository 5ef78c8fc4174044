//! Preference requirements (`pkg/instancetype/preference/requirements/`), checked by admission
//! after defaults: CPU, then memory, then architecture; the first failure is reported.

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::k8s::quantity::Quantity;
use crate::model::value::{Obj, get_obj, str_of, u64_of};
use crate::model::{InstancetypeSpec, PreferenceSpec, SpreadAcross, Topology};

/// A failed requirement: KubeVirt's cause field(s) (joined by ", ") and error text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unmet {
    pub(crate) fields: Vec<String>,
    pub(crate) error: String,
}

impl Unmet {
    pub(crate) fn field(&self) -> String {
        self.fields.join(", ")
    }

    pub(crate) fn message(&self) -> String {
        format!("failure checking preference requirements: {}", self.error)
    }
}

const PREFIX: &str = "spec.template.spec";

pub(crate) fn check(
    instancetype: Option<&InstancetypeSpec>,
    preference: &PreferenceSpec,
    spec: &Obj,
    version: KubeVirtVersion,
) -> Option<Unmet> {
    let requirements = preference.requirements.as_ref()?;
    if let Some(cpu) = &requirements.cpu
        && let Some(unmet) = check_cpu(instancetype, preference, spec, cpu.guest, version)
    {
        return Some(unmet);
    }
    if let Some(memory) = &requirements.memory
        && let Some(unmet) = check_memory(instancetype, spec, &memory.guest, version)
    {
        return Some(unmet);
    }
    if version.at_least(1, 7)
        && let Some(required) = &requirements.architecture
    {
        let actual = str_of(spec, "architecture");
        if actual != required {
            return Some(Unmet {
                fields: vec![format!("{PREFIX}.architecture")],
                error: format!(
                    "preference requires architecture {required} but {actual} is being requested"
                ),
            });
        }
    }
    None
}

/// The spread ratio and layout of a spread preference: `spreadOptions` from v1.3
/// (`GetSpreadOptions`); up to v1.2, whose API server prunes `spreadOptions`, the ratio is
/// `preferSpreadSocketToCoreRatio` alone, across sockets and cores.
pub(crate) fn spread_options(
    preference: &PreferenceSpec,
    version: KubeVirtVersion,
) -> (u32, SpreadAcross) {
    if version.at_least(1, 3) {
        (preference.spread_ratio(), preference.spread_across())
    } else {
        (
            preference.socket_to_core_ratio(),
            SpreadAcross::SocketsCores,
        )
    }
}

/// KubeVirt multiplies the `uint32` topology fields in `uint32`, which wraps on overflow.
fn product(values: &[u64]) -> u64 {
    let product = values.iter().fold(1u32, |acc, &value| {
        acc.wrapping_mul(u32::try_from(value).unwrap_or(u32::MAX))
    });
    u64::from(product)
}

fn check_cpu(
    instancetype: Option<&InstancetypeSpec>,
    preference: &PreferenceSpec,
    spec: &Obj,
    required: u32,
    version: KubeVirtVersion,
) -> Option<Unmet> {
    if let Some(instancetype) = instancetype {
        if instancetype.cpu.guest < required {
            return Some(Unmet {
                fields: vec!["spec.instancetype".to_owned()],
                error: format!(
                    "insufficient CPU resources of {} vCPU provided by instance type, preference requires {required} vCPU",
                    instancetype.cpu.guest
                ),
            });
        }
        return None;
    }
    let Some(cpu) = get_obj(spec, "domain").and_then(|d| get_obj(d, "cpu")) else {
        return Some(Unmet {
            fields: vec![format!("{PREFIX}.domain.cpu")],
            error: format!(
                "no CPU resources provided by VirtualMachine, preference requires {required} vCPU"
            ),
        });
    };
    let (sockets, cores, threads) = (
        u64_of(cpu, "sockets"),
        u64_of(cpu, "cores"),
        u64_of(cpu, "threads"),
    );
    let field = |name: &str| format!("{PREFIX}.domain.cpu.{name}");
    let (provided, fields, text) = match preference.topology(version.topology_names()) {
        Topology::Threads => (threads, vec![field("threads")], "threads"),
        Topology::Cores => (cores, vec![field("cores")], "cores"),
        Topology::Sockets => (sockets, vec![field("sockets")], "sockets"),
        // Up to v1.2 (`checkCPUPreferenceRequirements` at v1.2.0) a spread counts cores and
        // sockets, named in that order.
        Topology::Spread if !version.at_least(1, 3) => (
            product(&[cores, sockets]),
            vec![field("cores"), field("sockets")],
            "cores and sockets",
        ),
        Topology::Spread => match preference.spread_across() {
            SpreadAcross::SocketsCores => (
                product(&[sockets, cores]),
                vec![field("sockets"), field("cores")],
                "SocketsCores",
            ),
            SpreadAcross::CoresThreads => (
                product(&[cores, threads]),
                vec![field("cores"), field("threads")],
                "CoresThreads",
            ),
            SpreadAcross::SocketsCoresThreads => (
                product(&[sockets, cores, threads]),
                vec![field("sockets"), field("cores"), field("threads")],
                "SocketsCoresThreads",
            ),
            SpreadAcross::Unknown => return None,
        },
        Topology::Any => (
            cores * sockets * threads,
            vec![field("cores"), field("sockets"), field("threads")],
            "cores, sockets and threads",
        ),
        Topology::Unknown => return None,
    };
    (provided < u64::from(required)).then(|| Unmet {
        fields,
        error: format!(
            "insufficient CPU resources of {provided} vCPU provided by VirtualMachine, preference requires {required} vCPU provided as {text}"
        ),
    })
}

fn check_memory(
    instancetype: Option<&InstancetypeSpec>,
    spec: &Obj,
    required: &Value,
    version: KubeVirtVersion,
) -> Option<Unmet> {
    let required = Quantity::from_json(required).ok()?;
    let vm_memory = get_obj(spec, "domain").and_then(|d| get_obj(d, "memory"));
    // Before v1.6 a VM without an instance type and without `domain.memory` meets any memory
    // requirement: `checkMemoryPreferenceRequirements` compares only a present `Memory`
    // (pkg/instancetype/instancetype.go at v1.0.0 to v1.3.0,
    // pkg/instancetype/preference/requirements/memory.go at v1.4.0 and v1.5.0); v1.6 counts
    // a missing one as 0Mi. Up to v1.0 the check runs before the defaults that would fill it.
    if instancetype.is_none() && vm_memory.is_none() && !version.at_least(1, 6) {
        return None;
    }
    let vm_guest = vm_memory
        .and_then(|m| m.get("guest"))
        .and_then(|g| Quantity::from_json(g).ok());
    let (field, by, provided) = match instancetype {
        Some(it) => (
            "spec.instancetype".to_owned(),
            "instance type",
            Quantity::from_json(&it.memory.guest).ok(),
        ),
        None => (format!("{PREFIX}.domain.memory"), "VirtualMachine", None),
    };
    let provided = vm_guest
        .or(provided)
        .unwrap_or_else(|| Quantity::from_i64(0, required.format()));
    provided.cmp_value(&required).is_lt().then(|| Unmet {
        fields: vec![field],
        error: format!(
            "insufficient Memory resources of {} provided by {by}, preference requires {}",
            provided.canonical(),
            required.canonical()
        ),
    })
}

/// The spread divisibility check (`preference/validation/cpu.go`), run before applying; up to
/// v1.2 the ratio alone, in that release's words (`applyInstancetypeToVm` at v1.2.0).
pub(crate) fn check_spread(
    instancetype: &InstancetypeSpec,
    preference: &PreferenceSpec,
    version: KubeVirtVersion,
) -> Option<String> {
    if preference.topology(version.topology_names()) != Topology::Spread {
        return None;
    }
    let guest = instancetype.cpu.guest;
    let (ratio, across) = spread_options(preference, version);
    if ratio == 0 {
        return None;
    }
    if !version.at_least(1, 3) {
        return (!guest.is_multiple_of(ratio)).then(|| {
            "Instancetype CPU Guest is not divisible by PreferSpreadSocketToCoreRatio".to_owned()
        });
    }
    let (failed, message) = match across {
        SpreadAcross::SocketsCores => (
            !guest.is_multiple_of(ratio),
            format!(
                "{guest} vCPUs provided by the instance type are not divisible by the Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of {ratio} provided by the preference"
            ),
        ),
        SpreadAcross::CoresThreads => (
            !guest.is_multiple_of(ratio),
            format!(
                "{guest} vCPUs provided by the instance type are not divisible by the number of threads per core {ratio}"
            ),
        ),
        SpreadAcross::SocketsCoresThreads => (
            !guest.is_multiple_of(2) || !(guest / 2).is_multiple_of(ratio),
            format!(
                "{guest} vCPUs provided by the instance type are not divisible by the number of threads per core 2 and Spec.PreferSpreadSocketToCoreRatio or Spec.CPU.PreferSpreadOptions.Ratio of {ratio}"
            ),
        ),
        SpreadAcross::Unknown => (false, String::new()),
    };
    failed.then_some(message)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::profile::KubeVirtVersion;
    use crate::model::value::Obj;
    use crate::model::{InstancetypeSpec, PreferenceSpec, decode};

    fn preference(topology: &str, required: u32) -> PreferenceSpec {
        decode(&json!({
            "cpu": {
                "preferredCPUTopology": topology,
                "spreadOptions": {"across": "SocketsCoresThreads", "ratio": 4},
            },
            "requirements": {"cpu": {"guest": required}},
        }))
        .unwrap()
    }

    /// Up to v1.3 the short topology names are unknown values, which
    /// `checkCPUPreferenceRequirements` (pkg/instancetype/instancetype.go at v1.3.0) passes
    /// without a check; the `prefer*` spellings are checked.
    #[test]
    fn up_to_v1_3_a_short_topology_name_has_no_cpu_requirement_check() {
        let vm = json!({"domain": {"cpu": {"sockets": 1, "cores": 1, "threads": 1}}});
        let vm = vm.as_object().unwrap();
        let v1_3 = KubeVirtVersion::new(1, 3);
        for short in ["cores", "sockets", "threads", "spread", "any"] {
            let preference = preference(short, 4);
            assert_eq!(check(None, &preference, vm, v1_3), None, "{short}");
            let v1_4 = check(None, &preference, vm, KubeVirtVersion::new(1, 4));
            assert!(v1_4.is_some(), "{short} at v1.4");
        }
        let unmet = check(None, &preference("preferCores", 4), vm, v1_3).unwrap();
        assert_eq!(unmet.field(), "spec.template.spec.domain.cpu.cores");
    }

    /// `checkSpreadCPUTopology` (vms-admitter.go at v1.3.0) runs for `preferSpread` only; an
    /// instance type below the preference's requirement is then refused at `spec.instancetype`.
    #[test]
    fn up_to_v1_3_spread_is_not_checked_for_divisibility() {
        let instancetype: InstancetypeSpec =
            decode(&json!({"cpu": {"guest": 4}, "memory": {"guest": "1Gi"}})).unwrap();
        let v1_3 = KubeVirtVersion::new(1, 3);
        let short = preference("spread", 8);
        assert_eq!(check_spread(&instancetype, &short, v1_3), None);
        assert!(check_spread(&instancetype, &short, KubeVirtVersion::new(1, 4)).is_some());
        assert!(check_spread(&instancetype, &preference("preferSpread", 8), v1_3).is_some());
        let unmet = check(Some(&instancetype), &short, &Obj::new(), v1_3).unwrap();
        assert_eq!(unmet.field(), "spec.instancetype");
    }

    /// Up to v1.2 (`checkCPUPreferenceRequirements` at v1.1.0 and v1.2.0) `preferSpread` counts
    /// cores times sockets, named in that order, whatever `spreadOptions` says (those releases
    /// prune it); v1.0 knows neither `preferSpread` nor `preferAny` and checks nothing for them.
    #[test]
    fn before_v1_3_a_spread_requirement_counts_cores_and_sockets() {
        let vm = json!({"domain": {"cpu": {"sockets": 1, "cores": 2, "threads": 2}}});
        let vm = vm.as_object().unwrap();
        let spread = preference("preferSpread", 4);
        let unmet = check(None, &spread, vm, KubeVirtVersion::new(1, 2)).unwrap();
        assert_eq!(
            unmet.field(),
            "spec.template.spec.domain.cpu.cores, spec.template.spec.domain.cpu.sockets"
        );
        assert_eq!(
            unmet.error,
            "insufficient CPU resources of 2 vCPU provided by VirtualMachine, preference requires 4 vCPU provided as cores and sockets"
        );
        // From v1.3 the spread is across spreadOptions' SocketsCoresThreads: 4 vCPUs.
        assert_eq!(check(None, &spread, vm, KubeVirtVersion::new(1, 3)), None);
        for name in ["preferSpread", "preferAny"] {
            let wants_eight = preference(name, 8);
            assert_eq!(
                check(None, &wants_eight, vm, KubeVirtVersion::new(1, 0)),
                None,
                "{name}"
            );
            let v1_1 = check(None, &wants_eight, vm, KubeVirtVersion::new(1, 1));
            assert!(v1_1.is_some(), "{name}");
        }
    }

    #[test]
    fn topology_products_wrap_like_kubevirts_uint32() {
        assert_eq!(product(&[2, 3, 4]), 24);
        assert_eq!(
            product(&[65_536, 65_536]),
            0,
            "found by the render_vm fuzzer"
        );
        assert_eq!(product(&[u64::MAX, 1]), u64::from(u32::MAX));
    }

    fn needs_one_gib() -> PreferenceSpec {
        let spec = serde_json::json!({"requirements": {"memory": {"guest": "1Gi"}}});
        crate::model::decode(&spec).expect("a preference spec")
    }

    fn memory_unmet(template_spec: &Value, version: KubeVirtVersion) -> Option<String> {
        let spec = template_spec.as_object().expect("an object").clone();
        check(None, &needs_one_gib(), &spec, version).map(|unmet| unmet.field())
    }

    #[test]
    fn a_vm_without_memory_meets_memory_requirements_before_v1_6() {
        // requirements/memory.go at v1.5.0 compares only a present domain.memory; at v1.6.0
        // a missing one provides 0Mi.
        let no_memory = serde_json::json!({"domain": {"devices": {}}});
        for minor in [0, 1, 2, 5] {
            assert_eq!(
                memory_unmet(&no_memory, KubeVirtVersion::new(1, minor)),
                None,
                "v1.{minor}"
            );
        }
        assert_eq!(
            memory_unmet(&no_memory, KubeVirtVersion::new(1, 6)).as_deref(),
            Some("spec.template.spec.domain.memory")
        );
        let small = serde_json::json!({"domain": {"memory": {"guest": "512Mi"}}});
        assert_eq!(
            memory_unmet(&small, KubeVirtVersion::new(1, 0)).as_deref(),
            Some("spec.template.spec.domain.memory")
        );
    }

    /// `preference/requirements/cpu.go`: an instance type providing exactly the required vCPUs
    /// meets the requirement; `any` counts cores × sockets × threads.
    #[test]
    fn cpu_requirements_are_met_at_exactly_the_required_count() {
        let instancetype: InstancetypeSpec =
            decode(&json!({"cpu": {"guest": 4}, "memory": {"guest": "1Gi"}})).unwrap();
        let v = KubeVirtVersion::LATEST;
        assert_eq!(
            check(Some(&instancetype), &preference("any", 4), &Obj::new(), v),
            None
        );
        let unmet = check(Some(&instancetype), &preference("any", 5), &Obj::new(), v).unwrap();
        assert_eq!(
            unmet.error,
            "insufficient CPU resources of 4 vCPU provided by instance type, preference requires 5 vCPU"
        );
        let vm = json!({"domain": {"cpu": {"sockets": 3, "cores": 2, "threads": 4}}});
        let vm = vm.as_object().unwrap();
        assert_eq!(check(None, &preference("any", 24), vm, v), None);
        let unmet = check(None, &preference("any", 25), vm, v).unwrap();
        assert_eq!(
            unmet.message(),
            "failure checking preference requirements: insufficient CPU resources of 24 vCPU provided by VirtualMachine, preference requires 25 vCPU provided as cores, sockets and threads"
        );
    }

    /// `preference/requirements/architecture.go` (v1.7+).
    #[test]
    fn an_architecture_requirement_wants_the_same_architecture_from_v1_7() {
        let preference: PreferenceSpec =
            decode(&json!({"requirements": {"architecture": "arm64"}})).unwrap();
        let at = |arch: &str, minor| {
            let vm = json!({"architecture": arch});
            check(
                None,
                &preference,
                vm.as_object().unwrap(),
                KubeVirtVersion::new(1, minor),
            )
        };
        assert_eq!(at("arm64", 9), None);
        let unmet = at("amd64", 9).unwrap();
        assert_eq!(unmet.field(), "spec.template.spec.architecture");
        assert_eq!(
            unmet.error,
            "preference requires architecture arm64 but amd64 is being requested"
        );
        assert_eq!(at("amd64", 6), None);
    }
}
