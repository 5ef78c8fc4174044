//! `validateAccessCredentials`: SSH keys and passwords, and how they reach the guest.

use serde_json::Value;

use super::TEMPLATE_SPEC;
use super::context::Ctx;
use super::read::count_present;
use crate::admission::list_limits;
use crate::admission::list_limits::List;
use crate::model::value::{array_at, is_set_at, present_at};

pub(super) fn access_credentials(cx: &mut Ctx) {
    if !cx.profile.version.at_least(1, 3) && list_limits::exceeds(cx.spec, List::AccessCredentials)
    {
        let cause = list_limits::webhook_cause(TEMPLATE_SPEC, List::AccessCredentials);
        cx.causes.push(cause);
        return;
    }
    let volumes = array_at(cx.spec, &["volumes"]);
    let no_cloud = volumes.iter().any(|v| is_set_at(v, &["cloudInitNoCloud"]));
    let config_drive = volumes
        .iter()
        .any(|v| is_set_at(v, &["cloudInitConfigDrive"]));
    for (idx, credential) in array_at(cx.spec, &["accessCredentials"]).iter().enumerate() {
        let field = format!("{TEMPLATE_SPEC}.accessCredentials[{idx}]");
        let mut types = 0;
        if let Some(ssh) = present_at(credential, &["sshPublicKey"]) {
            types += 1;
            let method = format!("{field}.sshPublicKey.propagationMethod");
            if is_set_at(ssh, &["propagationMethod", "noCloud"]) && !no_cloud {
                let message = format!(
                    "{field} requires a noCloud volume to exist when the noCloud propagationMethod is in use."
                );
                cx.push(method.clone(), message);
            }
            if is_set_at(ssh, &["propagationMethod", "configDrive"]) && !config_drive {
                let message = format!(
                    "{field} requires a configDrive volume to exist when the configDrive propagationMethod is in use."
                );
                cx.push(method.clone(), message);
            }
            let agent = is_set_at(ssh, &["propagationMethod", "qemuGuestAgent"]);
            if agent && array_at(ssh, &["propagationMethod", "qemuGuestAgent", "users"]).is_empty()
            {
                cx.push(
                    format!("{method}.qemuGuestAgent.users"),
                    format!("{field} requires at least one user to be present in the users list"),
                );
            }
            credential_shape(
                cx,
                &field,
                "sshPublicKey",
                ssh,
                &["noCloud", "configDrive", "qemuGuestAgent"],
            );
        }
        if let Some(password) = present_at(credential, &["userPassword"]) {
            types += 1;
            credential_shape(cx, &field, "userPassword", password, &["qemuGuestAgent"]);
        }
        if types != 1 {
            cx.push(
                field.clone(),
                format!("{field} must have exactly one access credential type set"),
            );
        }
    }
}

fn credential_shape(cx: &mut Ctx, field: &str, kind: &str, credential: &Value, methods: &[&str]) {
    if !is_set_at(credential, &["source", "secret"]) {
        cx.push(
            format!("{field}.{kind}.source"),
            format!("{field} must have exactly one source set"),
        );
    }
    let method = present_at(credential, &["propagationMethod"]).unwrap_or(&Value::Null);
    if count_present(method, methods) != 1 {
        cx.push(
            format!("{field}.{kind}.propagationMethod"),
            format!("{field} must have exactly one propagationMethod set"),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, profile, run, run_with};

    #[test]
    fn access_credentials() {
        assert_eq!(
            run(
                &json!({"accessCredentials": [{"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
                "propagationMethod": {"noCloud": {}}}}]})
            ),
            one(
                "spec.template.spec.accessCredentials[0].sshPublicKey.propagationMethod",
                "spec.template.spec.accessCredentials[0] requires a noCloud volume to exist when the noCloud propagationMethod is in use."
            )
        );
        assert_eq!(
            run(
                &json!({"accessCredentials": [{"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
                "propagationMethod": {"qemuGuestAgent": {"users": ["fedora"]}}}}]})
            ),
            Vec::new()
        );
    }

    const FIELD: &str = "spec.template.spec.accessCredentials[0]";

    #[test]
    fn a_password_alone_is_one_credential_type() {
        let password = json!({"source": {"secret": {"secretName": "pw"}},
            "propagationMethod": {"qemuGuestAgent": {}}});
        assert_eq!(
            run(&json!({"accessCredentials": [{"userPassword": password}]})),
            Vec::new()
        );
    }

    #[test]
    fn a_config_drive_key_needs_a_config_drive_volume() {
        let key = json!({"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
            "propagationMethod": {"configDrive": {}}}});
        let volume = json!({"name": "init", "cloudInitConfigDrive": {"userData": "#cloud-config"}});
        let disks =
            json!([{"name": "root", "disk": {"bus": "virtio"}}, {"name": "init", "disk": {}}]);
        assert_eq!(
            run(&json!({"accessCredentials": [key],
                "domain": {"devices": {"disks": disks}},
                "volumes": [{"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}, volume]})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"accessCredentials": [key]})),
            one(
                &format!("{FIELD}.sshPublicKey.propagationMethod"),
                &format!(
                    "{FIELD} requires a configDrive volume to exist when the configDrive propagationMethod is in use."
                )
            )
        );
    }

    #[test]
    fn a_credential_needs_one_source_and_one_propagation_method() {
        let password = json!({"propagationMethod": {}});
        assert_eq!(
            run(&json!({"accessCredentials": [{"userPassword": password}]})),
            vec![
                (
                    format!("{FIELD}.userPassword.source"),
                    format!("{FIELD} must have exactly one source set")
                ),
                (
                    format!("{FIELD}.userPassword.propagationMethod"),
                    format!("{FIELD} must have exactly one propagationMethod set")
                ),
            ]
        );
    }

    #[test]
    fn the_webhook_counts_credentials_only_before_v1_3() {
        let key = json!({"sshPublicKey": {"source": {"secret": {"secretName": "keys"}},
            "propagationMethod": {"qemuGuestAgent": {"users": ["fedora"]}}}});
        let patch = json!({"accessCredentials": vec![key; 257]});
        assert_eq!(run_with(&patch, &profile((1, 3), &[])), Vec::new());
        assert_eq!(run_with(&patch, &profile((1, 2), &[])).len(), 1);
    }
}
