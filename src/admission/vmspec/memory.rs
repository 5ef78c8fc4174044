//! Memory: requests and limits (`validateMemoryRequestsNegativeOrNull`,
//! `validateMemoryLimitAndRequestProvided`), hugepages, the guest memory limit and the reserved
//! overhead.

use super::context::Ctx;
use super::read::{resource, shown, value_of};
use super::vms::rollout_live_update;
use crate::cluster::backports;
use crate::k8s::quantity::Quantity;
use crate::model::value::{is_set_at, present_at, str_at};

pub(super) fn memory_requests(cx: &mut Ctx) {
    let Some(request) = resource(cx.spec, "requests", "memory") else {
        return;
    };
    let field = ts!("domain.resources.requests.memory");
    let one_m = Quantity::parse("1M").ok();
    if request.value() < 0 {
        cx.push(
            field,
            format!(
                "{field} '{}': must be greater than or equal to 0.",
                request.canonical()
            ),
        );
    } else if request.value() > 0 && one_m.is_some_and(|one_m| request.cmp_value(&one_m).is_lt()) {
        cx.push(
            field,
            format!(
                "{field} '{}': must be greater than or equal to 1M.",
                request.canonical()
            ),
        );
    }
}

pub(super) fn memory_limits(cx: &mut Ctx) {
    let limit = resource(cx.spec, "limits", "memory");
    let request = resource(cx.spec, "requests", "memory");
    let limit_field = ts!("domain.resources.limits.memory");
    let request_field = ts!("domain.resources.requests.memory");
    if value_of(limit.as_ref()) < 0 {
        let message = format!(
            "{limit_field} '{}': must be greater than or equal to 0.",
            shown(limit.as_ref())
        );
        cx.push(limit_field, message);
    }
    if value_of(limit.as_ref()) > 0 && value_of(request.as_ref()) > value_of(limit.as_ref()) {
        let message = format!(
            "{request_field} '{}' is greater than {limit_field} '{}'",
            shown(request.as_ref()),
            shown(limit.as_ref())
        );
        cx.push(request_field, message);
    }
}

pub(super) fn hugepages(cx: &mut Ctx) {
    let Some(pages) = present_at(cx.spec, &["domain", "memory", "hugepages"]) else {
        return;
    };
    let page_size = str_at(pages, &["pageSize"]);
    let size_field = if cx.profile.version.at_least(1, 8) {
        ts!("domain.memory.hugepages.pageSize")
    } else {
        ts!("domain.hugepages.size")
    };
    let Ok(size) = Quantity::parse(page_size) else {
        let message = format!(
            "{size_field} '{page_size}': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        cx.push(size_field, message);
        return;
    };
    let request = resource(cx.spec, "requests", "memory");
    let mut memory = value_of(request.as_ref());
    if memory == 0 {
        memory = value_of(Quantity::at(cx.spec, &["domain", "memory", "guest"]).as_ref());
    }
    if memory == 0
        && cx
            .profile
            .version
            .has_change(backports::HUGEPAGES_CHECKED_AGAINST_LIMITS)
    {
        memory = value_of(resource(cx.spec, "limits", "memory").as_ref());
    }
    let request_field = ts!("domain.resources.requests.memory");
    let shown_request = shown(request.as_ref());
    if memory != 0 && memory < size.value() {
        let message = format!(
            "{request_field} '{shown_request}' must be equal to or larger than page size {size_field} '{page_size}'"
        );
        cx.push(request_field, message);
    } else if memory
        .checked_rem(size.value())
        .is_some_and(|rest| rest != 0)
    {
        let message = format!(
            "{request_field} '{shown_request}' is not a multiple of the page size {size_field} '{page_size}'"
        );
        cx.push(request_field, message);
    }
}

pub(super) fn guest_memory_limit(cx: &mut Ctx) {
    if rollout_live_update(cx.profile) {
        return;
    }
    let Some(guest) = Quantity::at(cx.spec, &["domain", "memory", "guest"]) else {
        return;
    };
    let limit = resource(cx.spec, "limits", "memory");
    let limits = value_of(limit.as_ref());
    if limits < guest.value() && limits != 0 {
        let message = format!(
            "{} '{}' must be equal to or less than the memory limit {} '{}'",
            ts!("domain.memory.guest"),
            guest.canonical(),
            ts!("domain.resources.limits.memory"),
            shown(limit.as_ref())
        );
        cx.push(ts!("domain.memory.guest"), message);
    }
}

pub(super) fn reserved_overhead(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "memory", "reservedOverhead"])
        && !cx.gate("ReservedOverheadMemlock")
    {
        cx.push(
            ts!("domain.memory.reservedOverhead"),
            "Reserved overhead memlock feature gate is not enabled in kubevirt-config",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};

    #[test]
    fn memory_requests_and_limits() {
        let field = "spec.template.spec.domain.resources.requests.memory";
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"memory": "-1Gi"}}}})),
            one(
                field,
                &format!("{field} '-1Gi': must be greater than or equal to 0.")
            )
        );
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"memory": "512Ki"}}}})),
            one(
                field,
                &format!("{field} '512Ki': must be greater than or equal to 1M.")
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}}}})
            ),
            one(
                field,
                &format!(
                    "{field} '2Gi' is greater than spec.template.spec.domain.resources.limits.memory '1Gi'"
                )
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn hugepages() {
        let field = "spec.template.spec.domain.resources.requests.memory";
        let patch = |request: &str, size: &str| json!({"domain": {"resources": {"requests": {"memory": request}}, "memory": {"guest": "2Gi", "hugepages": {"pageSize": size}}}});
        assert_eq!(run(&patch("2Gi", "2Mi")), Vec::new());
        assert_eq!(
            run(&patch("1932735232", "2Mi")),
            one(
                field,
                &format!(
                    "{field} '1932735232' is not a multiple of the page size spec.template.spec.domain.memory.hugepages.pageSize '2Mi'"
                )
            )
        );
        assert_eq!(
            run_with(&patch("1932735232", "2Mi"), &profile((1, 7), &[])),
            one(
                field,
                &format!(
                    "{field} '1932735232' is not a multiple of the page size spec.template.spec.domain.hugepages.size '2Mi'"
                )
            )
        );
        assert_eq!(
            run(&patch("1Mi", "1Gi")),
            one(
                field,
                &format!(
                    "{field} '1Mi' must be equal to or larger than page size spec.template.spec.domain.memory.hugepages.pageSize '1Gi'"
                )
            )
        );
        assert_eq!(
            run(&patch("2Gi", "big")),
            one(
                "spec.template.spec.domain.memory.hugepages.pageSize",
                "spec.template.spec.domain.memory.hugepages.pageSize 'big': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            )
        );
    }

    #[test]
    fn guest_memory_limit_before_live_update() {
        let patch = json!({"domain": {"memory": {"guest": "2Gi"}, "resources": {"limits": {"memory": "1Gi"}}}});
        assert_eq!(run(&patch), Vec::new());
        assert_eq!(
            run_with(&patch, &profile((1, 5), &[])),
            one(
                "spec.template.spec.domain.memory.guest",
                "spec.template.spec.domain.memory.guest '2Gi' must be equal to or less than the memory limit spec.template.spec.domain.resources.limits.memory '1Gi'"
            )
        );
    }

    #[test]
    fn memory_bounds_are_inclusive() {
        assert_eq!(
            run(&json!({"domain": {"resources": {"requests": {"memory": "0"}}}})),
            Vec::new()
        );
        let hugepages = json!({"domain": {"resources": {"requests": {"memory": "1Gi"}},
            "memory": {"guest": "1Gi", "hugepages": {"pageSize": "1Gi"}}}});
        assert_eq!(run(&hugepages), Vec::new());
        let guest_at_limit = json!({"domain": {"memory": {"guest": "2Gi"}, "resources": {"limits": {"memory": "2Gi"}}}});
        assert_eq!(run_with(&guest_at_limit, &profile((1, 5), &[])), Vec::new());
    }
}
