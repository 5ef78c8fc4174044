//! Names in the VMI spec: `validateHostName`, `validateSubdomainDNSName` and the service
//! account name, with Kubernetes' `IsDNS1123Label` and `IsDNS1123Subdomain`.

use super::context::Ctx;
use crate::model::value::{array_at, is_set_at, str_at};

const DNS_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

const DNS_SUBDOMAIN_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

fn matches_dns_label(value: &str) -> bool {
    let bytes = value.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum)
        && bytes.iter().all(|b| alnum(b) || *b == b'-')
}

fn matches_dns_subdomain(value: &str) -> bool {
    value.split('.').all(matches_dns_label)
}

/// Kubernetes' `IsDNS1123Label`.
pub(super) fn dns1123_label(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_owned());
    }
    if !matches_dns_label(value) {
        if matches_dns_subdomain(value) {
            errors.push("must not contain dots".to_owned());
        } else {
            errors.push(format!(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{DNS_LABEL_FMT}')"
            ));
        }
    }
    errors
}

/// Kubernetes' `IsDNS1123Subdomain`.
pub(super) fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 characters".to_owned());
    }
    if !matches_dns_subdomain(value) {
        errors.push(format!(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '{DNS_SUBDOMAIN_FMT}')"
        ));
    }
    errors
}

pub(super) fn hostname(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["hostname"]);
    let errors = if name.is_empty() {
        Vec::new()
    } else {
        dns1123_label(name)
    };
    if !errors.is_empty() {
        let message = format!(
            "{} does not conform to the kubernetes DNS_LABEL rules : {}",
            ts!("hostname"),
            errors.join(", ")
        );
        cx.push(ts!("hostname"), message);
    }
}

pub(super) fn subdomain(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["subdomain"]);
    let errors = if name.is_empty() {
        Vec::new()
    } else {
        dns1123_subdomain(name)
    };
    if !errors.is_empty() {
        let message = format!(
            "{} does not conform to the kubernetes DNS_SUBDOMAIN rules : {}",
            ts!("subdomain"),
            errors.join(", ")
        );
        cx.push(ts!("subdomain"), message);
    }
}

pub(super) fn service_account_name(cx: &mut Ctx) {
    let name = str_at(cx.spec, &["serviceAccountName"]);
    if name.is_empty() {
        return;
    }
    let errors = dns1123_subdomain(name);
    if !errors.is_empty() {
        let message = format!(
            "{} is not a valid service account name: {}",
            ts!("serviceAccountName"),
            errors.join("; ")
        );
        cx.push(ts!("serviceAccountName"), message);
    }
    let volumes = array_at(cx.spec, &["volumes"]);
    let other = volumes
        .iter()
        .filter(|v| is_set_at(v, &["serviceAccount"]))
        .map(|v| str_at(v, &["serviceAccount", "serviceAccountName"]))
        .find(|other| *other != name);
    if let Some(other) = other {
        let message = format!(
            "spec.serviceAccountName {name:?} and serviceAccount volume {other:?} must reference the same service account"
        );
        cx.push(ts!("serviceAccountName"), message);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::admission::vmspec::test_support::{one, run};

    #[test]
    fn hostname_and_subdomain() {
        assert_eq!(
            run(&json!({"hostname": "my-vm", "subdomain": "a.b"})),
            Vec::new()
        );
        assert_eq!(
            run(&json!({"hostname": "My_VM"})),
            one(
                "spec.template.spec.hostname",
                "spec.template.spec.hostname does not conform to the kubernetes DNS_LABEL rules : a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            )
        );
        assert_eq!(
            run(&json!({"hostname": "vm.example"})),
            one(
                "spec.template.spec.hostname",
                "spec.template.spec.hostname does not conform to the kubernetes DNS_LABEL rules : must not contain dots"
            )
        );
    }

    #[test]
    fn service_account() {
        let patch = json!({"serviceAccountName": "builder",
            "volumes": [{"name": "root", "containerDisk": {"image": "x:1"}}, {"name": "sa", "serviceAccount": {"serviceAccountName": "other"}}],
            "domain": {"devices": {"disks": [{"name": "root"}, {"name": "sa"}]}}});
        assert_eq!(
            run(&patch),
            one(
                "spec.template.spec.serviceAccountName",
                "spec.serviceAccountName \"builder\" and serviceAccount volume \"other\" must reference the same service account"
            )
        );
        assert_eq!(run(&json!({"serviceAccountName": "builder"})), Vec::new());
    }

    #[test]
    fn labels_and_subdomains_at_their_length_limits_and_ends() {
        use super::{dns1123_label, dns1123_subdomain};
        assert_eq!(dns1123_label(&"a".repeat(63)), Vec::<String>::new());
        assert_eq!(
            dns1123_label(&"a".repeat(64)),
            ["must be no more than 63 characters"]
        );
        assert_eq!(dns1123_subdomain(&"a".repeat(253)), Vec::<String>::new());
        assert_eq!(
            dns1123_subdomain(&"a".repeat(254)),
            ["must be no more than 253 characters"]
        );
        for name in ["a-", "-a"] {
            let errors = dns1123_label(name);
            assert_eq!(errors.len(), 1, "{name}: {errors:?}");
            assert!(
                errors[0].starts_with("a lowercase RFC 1123 label"),
                "{name}"
            );
        }
    }
}
