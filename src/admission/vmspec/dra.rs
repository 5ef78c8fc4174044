//! GPUs and host devices from DRA resource claims, and the claims themselves.

use foldhash::{HashSet, HashSetExt};
use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use super::names::{dns1123_label, dns1123_subdomain};
use super::read::strings_of;
use crate::model::value::{array_at, is_set_at, present_at, str_at};

/// `draadmitter.ValidateCreation`, without the cross-kind duplicate pair check.
pub(super) fn dra(cx: &mut Ctx) {
    resource_claims(cx);
    let mut used = Vec::new();
    for (key, kind, gate_name, reject_mixed) in [
        ("gpus", "GPU", "GPUsWithDRA", true),
        ("hostDevices", "HostDevice", "HostDevicesWithDRA", false),
    ] {
        let enabled = cx.gate(gate_name);
        used.extend(dra_devices(cx, key, kind, enabled, reject_mixed));
    }
    let declared = strings_of(array_at(cx.spec, &["resourceClaims"]), "name");
    if used.iter().any(|claim| !declared.contains(claim)) {
        cx.push(
            ts!("resourceClaims"),
            "vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus and vmi.spec.domain.devices.hostDevices",
        );
    }
}

fn resource_claims(cx: &mut Ctx) {
    let mut names = HashSet::new();
    for (idx, claim) in array_at(cx.spec, &["resourceClaims"]).iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.resourceClaims[{idx}]");
        let name = str_at(claim, &["name"]);
        if name.is_empty() {
            cx.push(
                format!("{field}.name"),
                format!("{field}.name is a required field"),
            );
        } else if !names.insert(name) {
            cx.push(
                format!("{field}.name"),
                format!("duplicate resourceClaims name {name:?}"),
            );
        } else {
            let errors = dns1123_label(name);
            if !errors.is_empty() {
                let message = format!(
                    "{field}.name does not conform to the kubernetes DNS_LABEL rules: {}",
                    errors.join(", ")
                );
                cx.push(format!("{field}.name"), message);
            }
        }
        let (by_name, by_template) = (
            present_at(claim, &["resourceClaimName"]),
            present_at(claim, &["resourceClaimTemplateName"]),
        );
        match (by_name, by_template) {
            (Some(_), Some(_)) => {
                cx.push(
                    field.clone(),
                    "at most one of resourceClaimName or resourceClaimTemplateName may be specified",
                );
            }
            (None, None) => cx.push(
                field.clone(),
                "must specify one of: resourceClaimName, resourceClaimTemplateName",
            ),
            _ => {}
        }
        for (value, key) in [
            (by_name, "resourceClaimName"),
            (by_template, "resourceClaimTemplateName"),
        ] {
            let Some(value) = value else {
                continue;
            };
            for error in dns1123_subdomain(value.as_str().unwrap_or("")) {
                cx.push(format!("{field}.{key}"), error);
            }
        }
    }
}

/// Checks the DRA and non-DRA entries of one device list; returns the claim names used.
fn dra_devices<'a>(
    cx: &mut Ctx<'a>,
    key: &str,
    kind: &str,
    enabled: bool,
    reject_mixed: bool,
) -> Vec<&'a str> {
    // v1.6 and v1.7 name the GPUs field below the template spec's `spec` (pkg/dra/admitter).
    let field = if key == "gpus" && !cx.profile.version.at_least(1, 8) {
        format!("{TEMPLATE_SPEC}.spec.domain.devices.{key}")
    } else {
        format!("{TEMPLATE_SPEC}.domain.devices.{key}")
    };
    let devices = array_at(cx.spec, &["domain", "devices", key]);
    let has_claim = |d: &Value| is_set_at(d, &["claimName"]) || is_set_at(d, &["requestName"]);
    let is_dra = |d: &Value| str_at(d, &["deviceName"]).is_empty() && has_claim(d);
    let (dra, plain): (Vec<_>, Vec<_>) = devices.iter().enumerate().partition(|(_, d)| is_dra(d));
    if reject_mixed && !dra.is_empty() && !plain.is_empty() {
        let message = format!(
            "vmi.spec.domain.devices.{key} contains both DRA and non-DRA {kind}s; each {kind} must be either DRA or non-DRA"
        );
        cx.push(field, message);
        return Vec::new();
    }
    for (_, device) in &plain {
        if str_at(device, &["deviceName"]).is_empty() {
            let message = format!(
                "vmi.spec.domain.devices.{key} contains {kind}s without deviceName or claimRequest; each {kind} must specify either a deviceName or a claimRequest"
            );
            cx.push(field.clone(), message);
        } else if has_claim(device) {
            let message = format!(
                "vmi.spec.domain.devices.{key} contains {kind}s with both deviceName and claimRequest"
            );
            cx.push(field.clone(), message);
        }
    }
    if !dra.is_empty() && !enabled {
        cx.push(
            field,
            format!("vmi.spec.domain.devices.{key} contains DRA enabled {kind}s but feature gate is not enabled"),
        );
        return Vec::new();
    }
    let mut claims = Vec::new();
    let mut pairs = HashSet::new();
    for (idx, device) in dra {
        let (claim, request) = (
            str_at(device, &["claimName"]),
            str_at(device, &["requestName"]),
        );
        if claim.is_empty() {
            cx.push(
                format!("{field}[{idx}].claimName"),
                format!("claimName is required for DRA {kind}"),
            );
        }
        if request.is_empty() {
            cx.push(
                format!("{field}[{idx}].requestName"),
                format!("requestName is required for DRA {kind}"),
            );
        }
        if claim.is_empty() || request.is_empty() {
            continue;
        }
        claims.push(claim);
        let pair = format!("{claim}/{request}");
        if !pairs.insert(pair.clone()) {
            cx.push(
                format!("{field}[{idx}]"),
                format!("duplicate claimName/requestName pair {pair:?}"),
            );
        }
    }
    claims
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};

    #[test]
    fn dra_devices() {
        assert_eq!(
            run(&json!({"domain": {"devices": {"gpus": [{"name": "gpu1"}]}}})),
            one(
                "spec.template.spec.domain.devices.gpus",
                "vmi.spec.domain.devices.gpus contains GPUs without deviceName or claimRequest; each GPU must specify either a deviceName or a claimRequest"
            )
        );
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "c", "requestName": "r"}]}}})
            ),
            one(
                "spec.template.spec.resourceClaims",
                "vmi.spec.resourceClaims must specify all claims used in vmi.spec.domain.devices.gpus and vmi.spec.domain.devices.hostDevices"
            )
        );
        let declared = json!({"resourceClaims": [{"name": "c", "resourceClaimTemplateName": "t"}],
            "domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "c", "requestName": "r"}]}}});
        assert_eq!(run(&declared), Vec::new());
        assert_eq!(
            run(
                &json!({"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/A10"}]}}})
            ),
            Vec::new()
        );
    }

    #[test]
    fn gpus_are_named_below_the_template_specs_spec_before_v1_8() {
        let gpus = json!({"resourceClaims": [{"name": "c", "resourceClaimTemplateName": "t"}],
            "domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "c", "requestName": "r"}]}}});
        let message = "vmi.spec.domain.devices.gpus contains DRA enabled GPUs but feature gate is not enabled";
        for (version, field) in [
            ((1, 6), "spec.template.spec.spec.domain.devices.gpus"),
            ((1, 7), "spec.template.spec.spec.domain.devices.gpus"),
            ((1, 8), "spec.template.spec.domain.devices.gpus"),
        ] {
            assert_eq!(
                run_with(&gpus, &profile(version, &[])),
                one(field, message),
                "{version:?}"
            );
        }
    }

    #[test]
    fn a_resource_claim_names_exactly_one_source() {
        let claim = |claim: serde_json::Value| run(&json!({"resourceClaims": [claim]}));
        assert_eq!(
            claim(json!({"name": "c", "resourceClaimName": "n"})),
            Vec::new()
        );
        assert_eq!(
            claim(json!({"name": "c", "resourceClaimName": "n", "resourceClaimTemplateName": "t"})),
            one(
                "spec.template.spec.resourceClaims[0]",
                "at most one of resourceClaimName or resourceClaimTemplateName may be specified"
            )
        );
        assert_eq!(
            claim(json!({"name": "c"})),
            one(
                "spec.template.spec.resourceClaims[0]",
                "must specify one of: resourceClaimName, resourceClaimTemplateName"
            )
        );
    }

    #[test]
    fn a_dra_gpu_with_a_claim_name_alone_needs_its_request_name() {
        let gpus =
            json!({"domain": {"devices": {"gpus": [{"name": "gpu1", "claimName": "undeclared"}]}}});
        assert_eq!(
            run_with(&gpus, &profile((1, 9), &["GPUsWithDRA"])),
            one(
                "spec.template.spec.domain.devices.gpus[0].requestName",
                "requestName is required for DRA GPU"
            )
        );
    }
}
