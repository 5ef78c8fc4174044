//! `validateLaunchSecurity`: SEV, SEV-SNP and TDX.

use serde_json::Value;

use super::context::Ctx;
use super::read::architecture;
use crate::admission::Cause;
use crate::model::value::{bool_at, is_set_at, present_at, str_at};

pub(super) fn launch_security(cx: &mut Ctx) {
    let Some(security) = present_at(cx.spec, &["domain", "launchSecurity"]) else {
        return;
    };
    match architecture(cx.spec, cx.profile) {
        "amd64" => launch_security_amd64(cx, security),
        "s390x" => {}
        arch => cx.push(
            ts!("architecture"),
            format!("No launchSecurity support for architecture: {arch}"),
        ),
    }
}

/// `webhooks.ValidateLaunchSecurityAmd64`.
fn launch_security_amd64(cx: &mut Ctx, security: &Value) {
    let field = ts!("launchSecurity");
    let selected: Vec<&str> = ["sev", "snp", "tdx"]
        .into_iter()
        .filter(|key| is_set_at(security, &[*key]))
        .collect();
    let [kind] = selected.as_slice() else {
        cx.push(field, "One and only one launchSecurity type can be set");
        return;
    };
    let (name, gate_name) = match *kind {
        "sev" => ("SEV", "WorkloadEncryptionSEV"),
        "snp" => ("SNP", "WorkloadEncryptionSEV"),
        _ => ("TDX", "WorkloadEncryptionTDX"),
    };
    if !cx.gate(gate_name) {
        cx.push(
            field,
            format!("{gate_name} feature gate is not enabled in kubevirt-config"),
        );
        return;
    }
    let smm = is_set_at(cx.spec, &["domain", "features", "smm"])
        && bool_at(cx.spec, &["domain", "features", "smm", "enabled"]) != Some(false);
    if name == "TDX" && smm {
        cx.push(field, "TDX does not work along with SMM");
    }
    match present_at(cx.spec, &["domain", "firmware", "bootloader", "efi"]) {
        None => cx.push(field, format!("{name} requires OVMF (UEFI)")),
        Some(efi) => {
            if name != "TDX" && bool_at(efi, &["secureBoot"]) != Some(false) {
                cx.push(field, format!("{name} does not work along with SecureBoot"));
            }
            if name != "SEV" && bool_at(efi, &["persistent"]) == Some(true) {
                cx.push(
                    field,
                    format!("{name} does not work along with Persistent EFI variables"),
                );
            }
        }
    }
    let paused = str_at(cx.spec, &["startStrategy"]) == "Paused";
    if name == "SEV" && !paused && is_set_at(security, &["sev", "attestation"]) {
        cx.push(field, "SEV attestation requires VMI StartStrategy 'Paused'");
    }
    for iface in cx.devices("interfaces") {
        if is_set_at(iface, &["bootOrder"]) {
            let message = format!(
                "{name} does not work with bootable NICs: {}",
                str_at(iface, &["name"])
            );
            cx.causes.push(Cause::new(field, message));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{merge, one, profile, run, run_with};

    #[test]
    fn launch_security() {
        let field = "spec.template.spec.launchSecurity";
        let sev = json!({"domain": {"launchSecurity": {"sev": {}}}});
        assert_eq!(run(&sev), one(field, "SEV requires OVMF (UEFI)"));
        assert_eq!(
            run_with(&sev, &profile((1, 8), &[])),
            one(
                field,
                "WorkloadEncryptionSEV feature gate is not enabled in kubevirt-config"
            )
        );
        let mut uefi = sev.clone();
        merge(
            &mut uefi,
            &json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": false}}}}}),
        );
        assert_eq!(run(&uefi), Vec::new());
        merge(
            &mut uefi,
            &json!({"domain": {"firmware": {"bootloader": {"efi": {"secureBoot": true}}}, "features": {"smm": {}}}}),
        );
        assert_eq!(
            run(&uefi),
            one(field, "SEV does not work along with SecureBoot")
        );
        assert_eq!(
            run(&json!({"domain": {"launchSecurity": {"sev": {}, "tdx": {}}}})),
            one(field, "One and only one launchSecurity type can be set")
        );
    }

    #[test]
    fn each_launch_security_type_has_its_own_limits() {
        let field = "spec.template.spec.launchSecurity";
        let efi = |efi: serde_json::Value| json!({"firmware": {"bootloader": {"efi": efi}}});
        let with = |kind: &str, domain: serde_json::Value| {
            let mut patch = json!({"domain": {"launchSecurity": {kind: {}}}});
            merge(&mut patch, &json!({"domain": domain}));
            run_with(&patch, &profile((1, 9), &["WorkloadEncryptionTDX"]))
        };
        let plain = efi(json!({"secureBoot": false}));
        let persistent = efi(json!({"secureBoot": false, "persistent": true}));
        assert_eq!(with("snp", plain.clone()), Vec::new());
        assert_eq!(
            with("snp", persistent.clone()),
            one(
                field,
                "SNP does not work along with Persistent EFI variables"
            )
        );
        assert_eq!(with("sev", persistent), Vec::new());
        let mut smm = efi(json!({}));
        merge(&mut smm, &json!({"features": {"smm": {}}}));
        assert_eq!(
            with("tdx", smm),
            one(field, "TDX does not work along with SMM")
        );
        let mut smm_off = efi(json!({}));
        merge(
            &mut smm_off,
            &json!({"features": {"smm": {"enabled": false}}}),
        );
        assert_eq!(with("tdx", smm_off), Vec::new());
        let sev_attested = json!({"domain": {"launchSecurity": {"sev": {"attestation": {}}},
            "firmware": {"bootloader": {"efi": {"secureBoot": false}}}}});
        let mut paused = sev_attested.clone();
        merge(&mut paused, &json!({"startStrategy": "Paused"}));
        assert_eq!(run(&paused), Vec::new());
        assert_eq!(
            run(&sev_attested),
            one(field, "SEV attestation requires VMI StartStrategy 'Paused'")
        );
    }
}
