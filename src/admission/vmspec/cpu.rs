//! CPU: requests and limits, dedicated CPU placement (`validateCpuPinning`), NUMA, the emulator
//! thread, CPU features, CPU hotplug, realtime, IO threads.

use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use super::read::{architecture, resource, value_of};
use super::vms::TOO_MANY_SOCKETS;
use crate::k8s::quantity::Quantity;
use crate::model::value::{array_at, bool_at, is_set_at, present_at, str_at, u64_at};

pub(super) fn cpu_requests_not_negative(cx: &mut Ctx) {
    for kind in ["requests", "limits"] {
        let Some(cpu) = resource(cx.spec, kind, "cpu") else {
            continue;
        };
        if cpu.milli_value() < 0 {
            let field = format!("{TEMPLATE_SPEC}.domain.resources.{kind}.cpu");
            let message = format!(
                "{field} '{}': must be greater than or equal to 0.",
                cpu.canonical()
            );
            cx.push(field, message);
        }
    }
}

pub(super) fn cpu_request_within_limit(cx: &mut Ctx) {
    let (Some(request), Some(limit)) = (
        resource(cx.spec, "requests", "cpu"),
        resource(cx.spec, "limits", "cpu"),
    ) else {
        return;
    };
    let limit_milli = limit.milli_value();
    if limit_milli > 0 && request.milli_value() > limit_milli {
        let message = format!(
            "{} '{}' is greater than {} '{}'",
            ts!("domain.resources.requests.cpu"),
            request.canonical(),
            ts!("domain.resources.limits.cpu"),
            limit.canonical()
        );
        cx.push(ts!("domain.resources.requests.cpu"), message);
    }
}

/// `hwutil.GetNumberOfVCPUs`.
fn vcpus(cpu: &Value) -> u64 {
    [u64_at(cpu, &["sockets"]), u64_at(cpu, &["threads"])]
        .into_iter()
        .fold(u64_at(cpu, &["cores"]), |total, n| match (total, n) {
            (_, 0) => total,
            (0, n) => n,
            (total, n) => total.saturating_mul(n),
        })
}

pub(super) fn cpu_pinning(cx: &mut Ctx) {
    if !cx.dedicated() {
        return;
    }
    memory_is_provided(cx);
    cpu_is_integer(cx);
    dedicated_memory_request_equals_limit(cx);
    dedicated_cpu_amount(cx);
    thread_counts(cx);
}

fn memory_is_provided(cx: &mut Ctx) {
    let nonzero = |q: Option<Quantity>| q.is_some_and(|q| !q.is_zero());
    if nonzero(resource(cx.spec, "limits", "memory"))
        || nonzero(resource(cx.spec, "requests", "memory"))
    {
        return;
    }
    let memory = present_at(cx.spec, &["domain", "memory"]);
    if memory.is_some_and(|m| is_set_at(m, &["hugepages"]) || nonzero(Quantity::at(m, &["guest"])))
    {
        return;
    }
    let message = format!(
        "{}, {}, {} or {} should be provided",
        ts!("domain.resources.requests.memory"),
        ts!("domain.resources.limits.memory"),
        ts!("domain.memory.hugepages"),
        ts!("domain.memory.guest")
    );
    cx.push(ts!("domain.resources.limits.memory"), message);
}

fn cpu_is_integer(cx: &mut Ctx) {
    for kind in ["requests", "limits"] {
        let Some(cpu) = resource(cx.spec, kind, "cpu") else {
            continue;
        };
        if cpu.value() > 0 && cpu.value().saturating_mul(1000) != cpu.milli_value() {
            let message = format!("provided resources CPU {kind} must be an interger");
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.resources.{kind}.cpu"),
                message,
            );
        }
    }
}

fn dedicated_memory_request_equals_limit(cx: &mut Ctx) {
    let request = value_of(resource(cx.spec, "requests", "memory").as_ref());
    let limit = value_of(resource(cx.spec, "limits", "memory").as_ref());
    if request > 0 && limit > 0 && request != limit {
        let message = format!(
            "{} must be equal to {}",
            ts!("domain.resources.requests.memory"),
            ts!("domain.resources.limits.memory")
        );
        cx.push(ts!("domain.resources.requests.memory"), message);
    }
}

fn dedicated_cpu_amount(cx: &mut Ctx) {
    let request = value_of(resource(cx.spec, "requests", "cpu").as_ref());
    let limit = value_of(resource(cx.spec, "limits", "cpu").as_ref());
    let vcpus = cx.cpu().map_or(0, vcpus);
    let vcpus = i64::try_from(vcpus).unwrap_or(i64::MAX);
    let (request_field, limit_field, cores_field) = (
        ts!("domain.resources.requests.cpu"),
        ts!("domain.resources.limits.cpu"),
        ts!("domain.cpu.cores"),
    );
    let field = ts!("domain.cpu.dedicatedCpuPlacement");
    if request == 0 && limit == 0 && vcpus == 0 {
        let message = format!(
            "either {request_field} or {limit_field} or {cores_field} must be provided when DedicatedCPUPlacement is true "
        );
        cx.push(field, message);
    }
    if request > 0 && limit > 0 && request != limit {
        cx.push(
            field,
            format!(
                "{request_field} or {limit_field} must be equal when DedicatedCPUPlacement is true "
            ),
        );
    }
    if (request > 0 || limit > 0) && vcpus > 0 && request != vcpus && limit != vcpus {
        let message = format!(
            "{request_field} or {limit_field} must not be provided at the same time with {cores_field} when DedicatedCPUPlacement is true "
        );
        cx.push(field, message);
    }
}

fn thread_counts(cx: &mut Ctx) {
    let threads = cx.cpu().map_or(0, |cpu| u64_at(cpu, &["threads"]));
    if threads > 1 && architecture(cx.spec, cx.profile) == "arm64" {
        let message = format!(
            "threads must not be greater than 1 at {} (got {threads}) when {} is arm64",
            ts!("domain.cpu.threads"),
            ts!("architecture")
        );
        cx.push(ts!("architecture"), message);
    }
    if threads > 2 {
        let message = format!(
            "Not more than two threads must be provided at {} (got {threads}) when DedicatedCPUPlacement is true",
            ts!("domain.cpu.threads")
        );
        cx.push(ts!("domain.cpu.dedicatedCpuPlacement"), message);
    }
}

pub(super) fn numa(cx: &mut Ctx) {
    if !cx
        .cpu()
        .is_some_and(|cpu| is_set_at(cpu, &["numa", "guestMappingPassthrough"]))
    {
        return;
    }
    let field = ts!("domain.cpu.numa.guestMappingPassthrough");
    if !cx.gate("NUMA") {
        cx.push(
            field,
            format!("NUMA feature gate is not enabled in kubevirt-config, invalid entry {field}"),
        );
    }
    if !cx.dedicated() {
        let message = format!(
            "{} must be set to true when NUMA topology strategy is set in {field}",
            ts!("domain.cpu.dedicatedCpuPlacement")
        );
        cx.push(field, message);
    }
    if !is_set_at(cx.spec, &["domain", "memory", "hugepages"]) {
        let message = format!(
            "{} must be requested when NUMA topology strategy is set in {field}",
            ts!("domain.memory.hugepages")
        );
        cx.push(field, message);
    }
}

pub(super) fn isolate_emulator_thread(cx: &mut Ctx) {
    let isolated = cx
        .cpu()
        .and_then(|cpu| bool_at(cpu, &["isolateEmulatorThread"]))
        == Some(true);
    if isolated && !cx.dedicated() {
        cx.push(
            ts!("domain.cpu.isolateEmulatorThread"),
            "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement",
        );
    }
}

pub(super) fn cpu_feature_policies(cx: &mut Ctx) {
    const POLICIES: &[&str] = &["", "force", "require", "optional", "disable", "forbid"];
    let features = cx.cpu().map_or(&[][..], |cpu| array_at(cpu, &["features"]));
    for (idx, feature) in features.iter().enumerate() {
        let policy = str_at(feature, &["policy"]);
        if !POLICIES.contains(&policy) {
            let name = str_at(feature, &["name"]);
            cx.push(
                format!("{TEMPLATE_SPEC}.domain.cpu.features[{idx}].policy"),
                format!("CPU feature {name} uses policy {policy} that is not supported."),
            );
        }
    }
}

pub(super) fn cpu_hotplug(cx: &mut Ctx) {
    let Some(cpu) = cx.cpu() else {
        return;
    };
    let max = u64_at(cpu, &["maxSockets"]);
    if max != 0 && u64_at(cpu, &["sockets"]) > max {
        cx.push(ts!("domain.cpu.sockets"), TOO_MANY_SOCKETS);
    }
}

pub(super) fn realtime(cx: &mut Ctx) {
    if !cx.cpu().is_some_and(|cpu| is_set_at(cpu, &["realtime"])) {
        return;
    }
    if !cx.dedicated() {
        let message = format!(
            "{} must be set to true when {} is used",
            ts!("domain.cpu.dedicatedCpuPlacement"),
            ts!("domain.cpu.realtime")
        );
        cx.push(ts!("domain.cpu.dedicatedCpuPlacement"), message);
    }
    if !cx
        .cpu()
        .is_some_and(|cpu| is_set_at(cpu, &["numa", "guestMappingPassthrough"]))
    {
        let field = ts!("domain.cpu.numa.guestMappingPassthrough");
        cx.push(
            field,
            format!(
                "{field} must be defined when {} is used",
                ts!("domain.cpu.realtime")
            ),
        );
    }
}

pub(super) fn io_threads_policy(cx: &mut Ctx) {
    let Some(policy) = present_at(cx.spec, &["domain", "ioThreadsPolicy"]) else {
        return;
    };
    let policy = policy.as_str().unwrap_or("");
    // The supplemental pool arrived in v1.5, together with its thread count check.
    let pool_known = cx.profile.version.at_least(1, 5);
    let valid = matches!(policy, "shared" | "auto") || (pool_known && policy == "supplementalPool");
    if !valid {
        cx.push(
            ts!("domain.ioThreadsPolicy"),
            format!("Invalid IOThreadsPolicy ({policy})"),
        );
    }
    if !pool_known {
        return;
    }
    let count = present_at(
        cx.spec,
        &["domain", "ioThreads", "supplementalPoolThreadCount"],
    )
    .and_then(Value::as_u64);
    if policy == "supplementalPool" && count.is_none_or(|c| c < 1) {
        cx.push(
            ts!("domain.ioThreads.count"),
            "the number of iothreads needs to be set and positive for the dedicated policy",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::admission::vmspec::test_support::{merge, one, profile, run, run_with};

    #[test]
    fn cpu_requests() {
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"cpu": "-100m"}}}})),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "spec.template.spec.domain.resources.requests.cpu '-100m': must be greater than or equal to 0."
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1500m"}}}})
            ),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "spec.template.spec.domain.resources.requests.cpu '2' is greater than spec.template.spec.domain.resources.limits.cpu '1500m'"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1500m"}}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn dedicated_cpus() {
        let dedicated = |extra: Value| {
            let mut patch =
                json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2}}});
            merge(&mut patch, &extra);
            patch
        };
        assert_eq!(run(&dedicated(json!({}))), Vec::new());
        assert_eq!(
            run(&dedicated(
                json!({"domain": {"resources": {"requests": {"cpu": "1500m"}}}})
            )),
            one(
                "spec.template.spec.domain.resources.requests.cpu",
                "provided resources CPU requests must be an interger"
            )
        );
        assert_eq!(
            run(&dedicated(
                json!({"domain": {"resources": {"requests": {"cpu": "4"}}}})
            )),
            one(
                "spec.template.spec.domain.cpu.dedicatedCpuPlacement",
                "spec.template.spec.domain.resources.requests.cpu or spec.template.spec.domain.resources.limits.cpu must not be provided at the same time with spec.template.spec.domain.cpu.cores when DedicatedCPUPlacement is true "
            )
        );
        assert_eq!(
            run(&dedicated(json!({"domain": {"cpu": {"threads": 4}}}))),
            one(
                "spec.template.spec.domain.cpu.dedicatedCpuPlacement",
                "Not more than two threads must be provided at spec.template.spec.domain.cpu.threads (got 4) when DedicatedCPUPlacement is true"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2}, "memory": null}})
            ),
            one(
                "spec.template.spec.domain.resources.limits.memory",
                "spec.template.spec.domain.resources.requests.memory, spec.template.spec.domain.resources.limits.memory, spec.template.spec.domain.memory.hugepages or spec.template.spec.domain.memory.guest should be provided"
            )
        );
        assert_eq!(
            run(&json!({"domain": {"cpu": {"isolateEmulatorThread": true}}})),
            one(
                "spec.template.spec.domain.cpu.isolateEmulatorThread",
                "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement"
            )
        );
    }

    #[test]
    fn numa_and_realtime() {
        let field = "spec.template.spec.domain.cpu.numa.guestMappingPassthrough";
        assert_eq!(
            run(&json!({"domain": {"cpu": {"numa": {"guestMappingPassthrough": {}}}}})),
            vec![
                (
                    field.to_owned(),
                    format!(
                        "spec.template.spec.domain.cpu.dedicatedCpuPlacement must be set to true when NUMA topology strategy is set in {field}"
                    )
                ),
                (
                    field.to_owned(),
                    format!(
                        "spec.template.spec.domain.memory.hugepages must be requested when NUMA topology strategy is set in {field}"
                    )
                ),
            ]
        );
        let passthrough = json!({"domain": {
            "cpu": {"dedicatedCpuPlacement": true, "numa": {"guestMappingPassthrough": {}}, "realtime": {}},
            "memory": {"guest": "2Gi", "hugepages": {"pageSize": "1Gi"}}}});
        assert_eq!(run(&passthrough), Vec::new());
        assert_eq!(
            run(&json!({"domain": {"cpu": {"realtime": {}}}})),
            vec![
                (
                    "spec.template.spec.domain.cpu.dedicatedCpuPlacement".to_owned(),
                    "spec.template.spec.domain.cpu.dedicatedCpuPlacement must be set to true when spec.template.spec.domain.cpu.realtime is used".to_owned()
                ),
                (
                    field.to_owned(),
                    format!("{field} must be defined when spec.template.spec.domain.cpu.realtime is used")
                ),
            ]
        );
    }

    #[test]
    fn cpu_features_and_sockets() {
        assert_eq!(
            run(&json!({"domain": {"cpu": {"features": [{"name": "vmx", "policy": "maybe"}]}}})),
            one(
                "spec.template.spec.domain.cpu.features[0].policy",
                "CPU feature vmx uses policy maybe that is not supported."
            )
        );
        assert_eq!(
            run(&json!({"domain": {"cpu": {"features": [{"name": "vmx", "policy": "require"}]}}})),
            Vec::new()
        );
        let sockets = json!({"domain": {"cpu": {"sockets": 4, "maxSockets": 2}}});
        let cause = (
            "spec.template.spec.domain.cpu.sockets".to_owned(),
            "Number of sockets in CPU topology is greater than the maximum sockets allowed"
                .to_owned(),
        );
        assert_eq!(run(&sockets), vec![cause.clone(), cause.clone()]);
        assert_eq!(run_with(&sockets, &profile((1, 4), &[])), vec![cause]);
        assert_eq!(
            run(&json!({"domain": {"cpu": {"sockets": 2, "maxSockets": 2}}})),
            Vec::new()
        );
    }

    #[test]
    fn io_threads() {
        assert_eq!(
            run(&json!({"domain": {"ioThreadsPolicy": "supplementalPool"}})),
            one(
                "spec.template.spec.domain.ioThreads.count",
                "the number of iothreads needs to be set and positive for the dedicated policy"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"ioThreadsPolicy": "supplementalPool", "ioThreads": {"supplementalPoolThreadCount": 4}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn dedicated_cpus_compare_requests_limits_and_vcpus() {
        let dedicated = |extra: Value| {
            let mut patch =
                json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2}}});
            merge(&mut patch, &extra);
            run(&patch)
        };
        let resources = |requests: Value, limits: Value| {
            dedicated(json!({"domain": {"resources": {"requests": requests, "limits": limits}}}))
        };
        let placement = "spec.template.spec.domain.cpu.dedicatedCpuPlacement";
        assert_eq!(
            resources(json!({"memory": "1Gi"}), json!({"memory": "2Gi"})),
            one(
                "spec.template.spec.domain.resources.requests.memory",
                "spec.template.spec.domain.resources.requests.memory must be equal to spec.template.spec.domain.resources.limits.memory"
            )
        );
        assert_eq!(
            resources(json!({"memory": "2Gi"}), json!({"memory": "2Gi"})),
            Vec::new()
        );
        assert_eq!(resources(json!({}), json!({"memory": "2Gi"})), Vec::new());
        assert_eq!(
            resources(json!({"memory": "2Gi"}), json!({"memory": "0"})),
            Vec::new()
        );
        assert_eq!(
            resources(json!({"cpu": "2"}), json!({"cpu": "2"})),
            Vec::new()
        );
        assert_eq!(resources(json!({}), json!({"cpu": "2"})), Vec::new());
        assert_eq!(
            resources(json!({"cpu": "2"}), json!({"cpu": "4"})),
            one(
                placement,
                "spec.template.spec.domain.resources.requests.cpu or spec.template.spec.domain.resources.limits.cpu must be equal when DedicatedCPUPlacement is true "
            )
        );
        assert_eq!(
            resources(json!({}), json!({"cpu": "3"})),
            one(
                placement,
                "spec.template.spec.domain.resources.requests.cpu or spec.template.spec.domain.resources.limits.cpu must not be provided at the same time with spec.template.spec.domain.cpu.cores when DedicatedCPUPlacement is true "
            )
        );
        // Without sockets, cores and threads the VM has no vCPU count of its own.
        let no_topology = |resources: Value| {
            run(&json!({"domain": {"resources": resources, "cpu": {
                "dedicatedCpuPlacement": true, "sockets": null, "cores": null, "threads": null}}}))
        };
        assert_eq!(
            no_topology(json!({"requests": {"cpu": "3"}, "limits": {"cpu": "3"}})),
            Vec::new()
        );
        for resources in [
            json!({"requests": {"cpu": "3"}}),
            json!({"limits": {"cpu": "3"}}),
        ] {
            assert_eq!(no_topology(resources), Vec::new());
        }
        assert_eq!(
            no_topology(json!({})),
            one(
                placement,
                "either spec.template.spec.domain.resources.requests.cpu or spec.template.spec.domain.resources.limits.cpu or spec.template.spec.domain.cpu.cores must be provided when DedicatedCPUPlacement is true "
            )
        );
        assert_eq!(
            dedicated(json!({"domain": {"cpu": {"threads": 2}}})),
            Vec::new()
        );
        // A memory limit alone is memory provided.
        assert_eq!(
            run(
                &json!({"domain": {"cpu": {"dedicatedCpuPlacement": true}, "memory": null,
                "resources": {"limits": {"memory": "1Gi"}}}})
            ),
            Vec::new()
        );
        let arm = |threads: u64| {
            run(
                &json!({"architecture": "arm64", "domain": {"machine": {"type": "virt"},
                "cpu": {"dedicatedCpuPlacement": true, "threads": threads}}}),
            )
        };
        assert_eq!(arm(1), Vec::new());
        assert_eq!(
            arm(2),
            one(
                "spec.template.spec.architecture",
                "threads must not be greater than 1 at spec.template.spec.domain.cpu.threads (got 2) when spec.template.spec.architecture is arm64"
            )
        );
    }

    #[test]
    fn cpu_requests_at_their_bounds() {
        let resources = |requests: Value, limits: Value| {
            run(&json!({"domain": {"resources": {"requests": requests, "limits": limits}}}))
        };
        assert_eq!(resources(json!({"cpu": "0"}), json!({})), Vec::new());
        assert_eq!(
            resources(json!({"cpu": "1"}), json!({"cpu": "1"})),
            Vec::new()
        );
        assert_eq!(
            resources(json!({"cpu": "1"}), json!({"cpu": "0"})),
            Vec::new()
        );
    }

    /// Causes `KubeVirt` v1.9.0's `ValidateVirtualMachineSpec` gives for negative CPU amounts.
    /// Go's `Value()` and `MilliValue()` round a negative fraction away from zero for a
    /// quantity held as a scaled int64 (`-1n`, `-1500u`), but truncate and add one for one
    /// held as an `inf.Dec` (finer than a nano as written): `-1.5000000001` has `Value()` 0 and
    /// `MilliValue()` -1499, `-0.0000000001` has 1 and 1, `-0.0010000001` has 1 and 0.
    #[test]
    fn negative_cpu_amounts() {
        let requests = "spec.template.spec.domain.resources.requests.cpu";
        let limits = "spec.template.spec.domain.resources.limits.cpu";
        let placement = "spec.template.spec.domain.cpu.dedicatedCpuPlacement";
        let negative = |field: &str, cpu: &str| {
            format!("{field} '{cpu}': must be greater than or equal to 0.")
        };
        let with_cores = format!(
            "{requests} or {limits} must not be provided at the same time with spec.template.spec.domain.cpu.cores when DedicatedCPUPlacement is true "
        );
        let dedicated = |kind: &str, cpu: &str| {
            run(
                &json!({"domain": {"cpu": {"dedicatedCpuPlacement": true, "sockets": 2},
                "resources": {kind: {"cpu": cpu}}}}),
            )
        };
        let cause = |field: &str, message: &str| (field.to_owned(), message.to_owned());
        // Value() 0 with a MilliValue() that is not: not an integer check, as Value() is not
        // above 0.
        assert_eq!(
            dedicated("requests", "-1.5000000001"),
            one(requests, &negative(requests, "-1500000001n"))
        );
        assert_eq!(
            dedicated("limits", "-1.0000000001"),
            one(limits, &negative(limits, "-1000000001n"))
        );
        assert_eq!(
            dedicated("requests", "-0.5000000001"),
            vec![
                cause(requests, &negative(requests, "-500000001n")),
                cause(
                    requests,
                    "provided resources CPU requests must be an interger"
                ),
                cause(placement, &with_cores),
            ]
        );
        assert_eq!(
            dedicated("limits", "-0.0000000001"),
            vec![
                cause(limits, "provided resources CPU limits must be an interger"),
                cause(placement, &with_cores),
            ]
        );
        let resources = |resources: Value| run(&json!({"domain": {"resources": resources}}));
        for cpu in ["-1n", "-1500u"] {
            assert_eq!(
                resources(json!({"requests": {"cpu": cpu}})),
                one(requests, &negative(requests, cpu))
            );
        }
        for cpu in ["-0.0010000001", "-0.0000000001"] {
            assert_eq!(resources(json!({"limits": {"cpu": cpu}})), Vec::new());
        }
        assert_eq!(
            resources(json!({"requests": {"cpu": "1"}, "limits": {"cpu": "-0.0000000001"}})),
            one(
                requests,
                &format!("{requests} '1' is greater than {limits} '-1n'")
            )
        );
    }

    #[test]
    fn one_supplemental_pool_thread_is_enough() {
        assert_eq!(
            run(&json!({"domain": {"ioThreadsPolicy": "supplementalPool",
                "ioThreads": {"supplementalPoolThreadCount": 1}}})),
            Vec::new()
        );
    }
}
