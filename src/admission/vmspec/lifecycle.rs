//! How the VMI starts, is probed, evicted and rebooted: `validateStartStrategy`, probes, the
//! eviction strategy, the reboot policy.

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use super::read::count_present;
use crate::model::value::{array_at, is_set_at, present_at};

pub(super) fn start_strategy(cx: &mut Ctx) {
    let Some(strategy) = present_at(cx.spec, &["startStrategy"]) else {
        return;
    };
    let field = ts!("startStrategy");
    let strategy = strategy.as_str().unwrap_or("");
    if strategy != "Paused" {
        cx.push(
            field,
            format!("{field} is set with an unrecognized option: {strategy}"),
        );
    } else if is_set_at(cx.spec, &["livenessProbe"]) {
        let message = format!(
            "either {field} or {} should be provided.Pausing VMI with LivenessProbe is not supported",
            ts!("livenessProbe")
        );
        cx.push(field, message);
    }
}

pub(super) fn probes(cx: &mut Ctx) {
    for key in ["readinessProbe", "livenessProbe"] {
        let Some(probe) = present_at(cx.spec, &[key]) else {
            continue;
        };
        let field = format!("{TEMPLATE_SPEC}.{key}");
        let handlers = count_present(probe, &["httpGet", "tcpSocket", "exec", "guestAgentPing"]);
        if handlers > 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one probe type set"),
            );
        }
        if handlers < 1 {
            let message = format!(
                "either {field}.tcpSocket, {field}.exec or {field}.httpGet must be set if a {field} is specified"
            );
            cx.push(field, message);
        }
    }
    if array_at(cx.spec, &["networks"])
        .iter()
        .any(|n| is_set_at(n, &["pod"]))
    {
        return;
    }
    for key in ["readinessProbe", "livenessProbe"] {
        for handler in ["httpGet", "tcpSocket"] {
            if is_set_at(cx.spec, &[key, handler]) {
                let field = format!("{TEMPLATE_SPEC}.{key}.{handler}");
                cx.push(
                    field.clone(),
                    format!("{field} is only allowed if the Pod Network is attached"),
                );
            }
        }
    }
}

pub(super) fn eviction_strategy(cx: &mut Ctx) {
    let Some(strategy) =
        present_at(cx.spec, &["evictionStrategy"]).map(|s| s.as_str().unwrap_or(""))
    else {
        return;
    };
    if !matches!(
        strategy,
        "LiveMigrate" | "LiveMigrateIfPossible" | "None" | "External"
    ) {
        let field = ts!("evictionStrategy");
        cx.push(
            field,
            format!("{field} is set with an unrecognized option: {strategy}"),
        );
    }
}

pub(super) fn reboot_policy(cx: &mut Ctx) {
    if is_set_at(cx.spec, &["domain", "rebootPolicy"]) && !cx.gate("RebootPolicy") {
        cx.push(
            ts!("domain.rebootPolicy"),
            "RebootPolicy is specified but the RebootPolicy feature gate is not enabled",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, run};

    #[test]
    fn start_strategy() {
        assert_eq!(run(&json!({"startStrategy": "Paused"})), Vec::new());
        assert_eq!(
            run(&json!({"startStrategy": "Later"})),
            one(
                "spec.template.spec.startStrategy",
                "spec.template.spec.startStrategy is set with an unrecognized option: Later"
            )
        );
    }

    #[test]
    fn probes() {
        assert_eq!(
            run(&json!({"readinessProbe": {}})),
            one(
                "spec.template.spec.readinessProbe",
                "either spec.template.spec.readinessProbe.tcpSocket, spec.template.spec.readinessProbe.exec or spec.template.spec.readinessProbe.httpGet must be set if a spec.template.spec.readinessProbe is specified"
            )
        );
        assert_eq!(
            run(&json!({"readinessProbe": {"httpGet": {"port": 80}}})),
            Vec::new()
        );
    }

    #[test]
    fn eviction_strategy() {
        assert_eq!(
            run(&json!({"evictionStrategy": "Evict"})),
            one(
                "spec.template.spec.evictionStrategy",
                "spec.template.spec.evictionStrategy is set with an unrecognized option: Evict"
            )
        );
    }
}
