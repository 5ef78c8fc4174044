//! What the API server and KubeVirt's pool validator (`vmpool-admitter.go`) refuse in a
//! VirtualMachinePool's own fields on create. The VM template inside is validated as a VM
//! (see `vm`), under `spec.virtualMachineTemplate`.
//!
//! The CRD requires `spec`, `spec.selector` and `spec.virtualMachineTemplate`, and `template`
//! in the template's `spec` when there is one (at every release v1.0–v1.9); a pool without
//! them is refused before the webhook runs. The webhook then refuses, per release:
//!
//! - every release: a selector `LabelSelectorAsSelector` cannot build, or one that does not
//!   match the template's labels (no selector matches nothing);
//! - v1.6 and later: `maxUnavailable` that is not a positive count or a percentage from 1% to
//!   100%;
//! - v1.7 and later: more than one of `unmanaged`, `opportunistic` and `proactive` in
//!   `updateStrategy` or in `scaleInStrategy`.
//!
//! `pool.kubevirt.io/v1beta1` is served from v1.7; before, the API server refuses such a pool.

mod selector;

use serde_json::Value;

use crate::cluster::profile::KubeVirtVersion;
use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules::{self, Rule};
use crate::yaml::FieldPath;

/// A refusal: the rule, where in the pool, the field KubeVirt names and its message.
#[derive(Debug, PartialEq, Eq)]
struct Refusal {
    rule: &'static Rule,
    path: &'static str,
    field: &'static str,
    message: String,
}

impl Refusal {
    fn webhook(path: &'static str, message: impl Into<String>) -> Self {
        Self {
            rule: &rules::POOL_SPEC_INVALID,
            path,
            field: path,
            message: message.into(),
        }
    }

    fn required(path: &'static str) -> Self {
        Self {
            rule: &rules::SCHEMA_VIOLATION,
            path,
            field: path,
            message: format!("{path}: Required value"),
        }
    }
}

/// The findings for `object` when it is a VirtualMachinePool, for KubeVirt `version`.
pub(super) fn findings(object: &Object, version: KubeVirtVersion) -> Vec<Finding> {
    if object.group != "pool.kubevirt.io" || object.kind != "VirtualMachinePool" {
        return Vec::new();
    }
    if object.version == "v1beta1" && !version.at_least(1, 7) {
        return vec![crate::admission::objects::unserved_api_version(
            object,
            version,
            "use pool.kubevirt.io/v1alpha1 (served by every release; v1beta1 from v1.7)",
        )];
    }
    let pool = object.node.to_json();
    refusals(&pool, version)
        .into_iter()
        .map(|refusal| {
            let path = FieldPath::parse(refusal.path);
            Finding::new(refusal.rule, object.field_location(&path), refusal.message)
                .with_object(Some(object.object_ref()))
                .with_path(path.text())
                .with_kubevirt_field(refusal.field)
        })
        .collect()
}

/// Whether the pool's VM template (`spec`: the pool's spec) has a `spec` without `template`,
/// which the CRD requires there (it embeds the VirtualMachine's spec schema): the API server
/// refuses the pool before any webhook.
pub(super) fn template_spec_lacks_template(spec: &Value) -> bool {
    present(spec, "virtualMachineTemplate")
        .and_then(|template| present(template, "spec"))
        .is_some_and(|vm_spec| vm_spec.is_object() && present(vm_spec, "template").is_none())
}

fn present<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

/// What the API server (the CRD's required fields) and then the pool validator refuse, in
/// the validator's order.
fn refusals(pool: &Value, version: KubeVirtVersion) -> Vec<Refusal> {
    let Some(spec) = present(pool, "spec") else {
        return vec![Refusal::required("spec")];
    };
    let required: Vec<Refusal> = ["spec.selector", "spec.virtualMachineTemplate"]
        .into_iter()
        .filter(|path| present(spec, &path["spec.".len()..]).is_none())
        .map(Refusal::required)
        .collect();
    if !required.is_empty() {
        return required;
    }
    if template_spec_lacks_template(spec) {
        return vec![Refusal::required(
            "spec.virtualMachineTemplate.spec.template",
        )];
    }
    let mut out = Vec::new();
    out.extend(selector_refusal(spec));
    if version.at_least(1, 6) {
        out.extend(max_unavailable_refusal(spec));
    }
    if version.at_least(1, 7) {
        for (key, path) in [
            ("updateStrategy", "spec.updateStrategy"),
            ("scaleInStrategy", "spec.scaleInStrategy"),
        ] {
            out.extend(present(spec, key).and_then(|s| strategies_refusal(s, path)));
        }
    }
    out
}

fn selector_refusal(spec: &Value) -> Option<Refusal> {
    // A selector of the wrong shape is the schema's to refuse.
    let built = selector::build(present(spec, "selector")).ok()?;
    let selector = match built {
        Ok(selector) => selector,
        Err(error) => return Some(Refusal::webhook("spec.selector", error.to_string())),
    };
    let empty = serde_json::Map::new();
    let labels = spec
        .pointer("/virtualMachineTemplate/metadata/labels")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    (!selector.matches(labels))
        .then(|| Refusal::webhook("spec.selector", "selector does not match labels."))
}

fn max_unavailable_refusal(spec: &Value) -> Option<Refusal> {
    let refuse = |message: String| Some(Refusal::webhook("spec.maxUnavailable", message));
    match present(spec, "maxUnavailable")? {
        Value::String(text) => {
            let Some(percentage) = text.strip_suffix('%') else {
                return refuse("maxUnavailable percentage must end with %".to_owned());
            };
            match go_atoi(percentage) {
                Err(reason) => refuse(format!(
                    "maxUnavailable percentage value {} is invalid: strconv.Atoi: parsing {}: {reason}",
                    go_quote(percentage),
                    go_quote(percentage)
                )),
                Ok(value) if !(1..=100).contains(&value) => refuse(format!(
                    "maxUnavailable percentage value {value} must be between 1 and 100"
                )),
                Ok(_) => None,
            }
        }
        Value::Number(number) => match number.as_i64() {
            Some(value) if value <= 0 => refuse("maxUnavailable must be greater than 0".to_owned()),
            // Not an int32 (or not an integer): the schema refuses it.
            _ => None,
        },
        _ => None,
    }
}

/// Go's `strconv.Atoi` on a 64-bit platform: an optional sign and decimal digits.
fn go_atoi(text: &str) -> Result<i64, &'static str> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("invalid syntax");
    }
    text.trim_start_matches('+')
        .parse::<i64>()
        .map_err(|_| "value out of range")
}

fn go_quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// More than one strategy set. KubeVirt names them in Go's random map order; kvlint names
/// them in the order the API declares them.
fn strategies_refusal(strategy: &Value, path: &'static str) -> Option<Refusal> {
    let configured: Vec<&str> = ["unmanaged", "opportunistic", "proactive"]
        .into_iter()
        .filter(|name| present(strategy, name).is_some())
        .collect();
    (configured.len() > 1).then(|| {
        Refusal::webhook(
            path,
            format!(
                "only one strategy can be configured at a time: but found {} strategies",
                configured.join(", ")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn version(minor: u32) -> KubeVirtVersion {
        KubeVirtVersion::new(1, minor)
    }

    fn codes_of(api_version: &str, minor: u32) -> Vec<&'static str> {
        let manifest = format!(
            "apiVersion: {api_version}\nkind: VirtualMachinePool\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: other\n  virtualMachineTemplate:\n    metadata:\n      labels:\n        app: web\n"
        );
        let loaded = crate::load::load_text(
            &std::sync::Arc::from("pool.yaml"),
            &manifest,
            &crate::load::LoadOptions::default(),
        );
        findings(&loaded.objects[0], version(minor))
            .iter()
            .map(|f| f.rule.code)
            .collect()
    }

    #[test]
    fn a_v1beta1_pool_is_refused_by_the_api_server_before_v1_7() {
        assert_eq!(codes_of("pool.kubevirt.io/v1beta1", 6), ["KV0011"]);
        assert_eq!(codes_of("pool.kubevirt.io/v1beta1", 7), ["KV1015"]);
        assert_eq!(codes_of("pool.kubevirt.io/v1alpha1", 6), ["KV1015"]);
        assert_eq!(codes_of("pool.kubevirt.io/v1alpha1", 9), ["KV1015"]);
    }

    fn pool(extra: &Value) -> Value {
        let mut spec = json!({
            "selector": {"matchLabels": {"app": "web"}},
            "virtualMachineTemplate": {"metadata": {"labels": {"app": "web"}}, "spec": {"template": {}}}
        });
        for (key, value) in extra.as_object().unwrap() {
            spec[key] = value.clone();
        }
        json!({"spec": spec})
    }

    fn messages(pool: &Value, minor: u32) -> Vec<(&'static str, String)> {
        refusals(pool, version(minor))
            .into_iter()
            .map(|r| (r.path, r.message))
            .collect()
    }

    #[test]
    fn a_matching_pool_is_admitted() {
        assert_eq!(messages(&pool(&json!({})), 9), []);
        assert_eq!(messages(&pool(&json!({"maxUnavailable": "25%"})), 9), []);
        assert_eq!(messages(&pool(&json!({"maxUnavailable": 2})), 9), []);
    }

    #[test]
    fn required_fields_are_refused_before_the_webhook() {
        assert_eq!(
            messages(&json!({}), 9),
            [("spec", "spec: Required value".to_owned())]
        );
        let refused = refusals(&json!({"spec": {"maxUnavailable": 0}}), version(9));
        let paths: Vec<&str> = refused.iter().map(|r| r.path).collect();
        assert_eq!(paths, ["spec.selector", "spec.virtualMachineTemplate"]);
        assert!(
            refused
                .iter()
                .all(|r| r.rule.code == rules::SCHEMA_VIOLATION.code)
        );
        // A template spec without `template`: the CRD's; no spec at all: the webhook's to judge.
        let mut without_template = pool(&json!({}));
        without_template["spec"]["virtualMachineTemplate"]["spec"] =
            json!({"runStrategy": "Halted"});
        assert_eq!(
            messages(&without_template, 0),
            [(
                "spec.virtualMachineTemplate.spec.template",
                "spec.virtualMachineTemplate.spec.template: Required value".to_owned()
            )]
        );
        let mut without_spec = pool(&json!({}));
        without_spec["spec"]["virtualMachineTemplate"]
            .as_object_mut()
            .unwrap()
            .remove("spec");
        assert_eq!(messages(&without_spec, 9), []);
    }

    #[test]
    fn the_selector_must_match_the_template_labels() {
        let refused = pool(&json!({"selector": {"matchLabels": {"app": "db"}}}));
        assert_eq!(
            messages(&refused, 9),
            [(
                "spec.selector",
                "selector does not match labels.".to_owned()
            )]
        );
        let invalid = pool(
            &json!({"selector": {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]}}),
        );
        assert_eq!(
            messages(&invalid, 0),
            [(
                "spec.selector",
                "\"Equals\" is not a valid label selector operator".to_owned()
            )]
        );
    }

    #[test]
    fn max_unavailable_is_checked_from_v1_6() {
        let cases = [
            (json!(0), "maxUnavailable must be greater than 0"),
            (json!("25"), "maxUnavailable percentage must end with %"),
            (
                json!("a%"),
                "maxUnavailable percentage value \"a\" is invalid: strconv.Atoi: parsing \"a\": invalid syntax",
            ),
            (
                json!("101%"),
                "maxUnavailable percentage value 101 must be between 1 and 100",
            ),
            (
                json!("0%"),
                "maxUnavailable percentage value 0 must be between 1 and 100",
            ),
        ];
        for (value, message) in cases {
            let refused = pool(&json!({ "maxUnavailable": value }));
            assert_eq!(
                messages(&refused, 6),
                [("spec.maxUnavailable", message.to_owned())],
                "{value}"
            );
            assert_eq!(messages(&refused, 5), [], "{value}");
        }
    }

    #[test]
    fn one_strategy_at_a_time_from_v1_7() {
        let refused = pool(&json!({
            "updateStrategy": {"proactive": {}, "unmanaged": {}},
            "scaleInStrategy": {"opportunistic": {}, "proactive": {"selectionPolicy": {}}}
        }));
        assert_eq!(
            messages(&refused, 7),
            [
                (
                    "spec.updateStrategy",
                    "only one strategy can be configured at a time: but found unmanaged, proactive strategies".to_owned()
                ),
                (
                    "spec.scaleInStrategy",
                    "only one strategy can be configured at a time: but found opportunistic, proactive strategies".to_owned()
                ),
            ]
        );
        assert_eq!(messages(&refused, 6), []);
    }

    #[test]
    fn go_atoi_reads_as_go_does() {
        assert_eq!(go_atoi("+5"), Ok(5));
        assert_eq!(go_atoi("-5"), Ok(-5));
        assert_eq!(go_atoi(""), Err("invalid syntax"));
        assert_eq!(go_atoi(" 5"), Err("invalid syntax"));
        assert_eq!(go_atoi("99999999999999999999"), Err("value out of range"));
    }
}
