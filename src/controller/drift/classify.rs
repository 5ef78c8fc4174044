//! Which drift rule a changed field belongs to: the rule whose claim matches it (a claim with a
//! condition on the VM as written first), else `NORMALIZED_BY_KUBEVIRT`.

use serde_json::Value;

use crate::model::value::at_keys;
use crate::rules::drift::{Claim, Written};
use crate::rules::{self, Rule};
use crate::yaml::{FieldPath, Segment};

/// The rule of a changed field of the VM `written`.
pub(super) fn rule_of(field: &FieldPath, written: &Value) -> &'static Rule {
    let claimed = |conditional: bool| {
        rules::ALL.iter().copied().find(|rule| {
            claims_of(rule).iter().any(|claim| {
                claim.when.is_some() == conditional
                    && matches(claim.path, &field.0)
                    && claim.when.as_ref().is_none_or(|when| holds(when, written))
            })
        })
    };
    claimed(true)
        .or_else(|| claimed(false))
        .unwrap_or(&rules::NORMALIZED_BY_KUBEVIRT)
}

fn claims_of(rule: &Rule) -> &'static [Claim] {
    rule.drift
        .and_then(|drift| drift.changes.as_ref())
        .map_or(&[], |changes| changes.claims)
}

/// Whether `path` fits `pattern` (`[]` any list index, `**` any number of keys).
fn matches(pattern: &[&str], path: &[Segment]) -> bool {
    match (pattern.split_first(), path.split_first()) {
        (None, None) => true,
        (Some((&"**", rest)), _) => {
            matches(rest, path) || (!path.is_empty() && matches(pattern, &path[1..]))
        }
        (Some((&expected, rest)), Some((segment, tail))) => {
            let fits = match segment {
                Segment::Key(key) => key == expected,
                Segment::Index(_) => expected == "[]",
            };
            fits && matches(rest, tail)
        }
        _ => false,
    }
}

fn holds(when: &Written, written: &Value) -> bool {
    match when {
        Written::NonEmpty(keys) => at_keys(written, keys)
            .and_then(Value::as_str)
            .is_some_and(|text| !text.is_empty()),
        Written::Is(keys, expected) => {
            at_keys(written, keys).and_then(Value::as_str) == Some(*expected)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rule(field: &str, written: &Value) -> &'static str {
        rule_of(&FieldPath::parse(field), written).code
    }

    #[test]
    fn a_conditional_claim_wins_over_an_unconditional_one() {
        let plain = json!({"spec": {"instancetype": {"name": "small"}}});
        let inferring = json!({"spec": {"instancetype": {"inferFromVolume": "root"}}});
        assert_eq!(rule("spec.instancetype.kind", &plain), "KV3001");
        assert_eq!(rule("spec.instancetype.kind", &inferring), "KV3002");
        assert_eq!(rule("spec.instancetype.name", &inferring), "KV3002");
        assert_eq!(rule("spec.instancetype.name", &plain), "KV3008");
        assert_eq!(rule("spec.preference.kind", &inferring), "KV3001");
    }

    #[test]
    fn the_memory_of_an_ignored_inference_is_the_inference_rule() {
        let ignore = json!({"spec": {"instancetype": {"inferFromVolumeFailurePolicy": "Ignore"}}});
        let field = "spec.template.spec.domain.memory.guest";
        assert_eq!(rule(field, &ignore), "KV3002");
        assert_eq!(rule(field, &json!({})), "KV3008");
    }

    #[test]
    fn list_indexes_and_fixed_fields_match() {
        let none = json!({});
        assert_eq!(
            rule(
                "spec.dataVolumeTemplates[3].spec.pvc.storageClassName",
                &none
            ),
            "KV3005"
        );
        assert_eq!(
            rule("spec.template.spec.domain.machine.type", &none),
            "KV3003"
        );
        assert_eq!(rule("spec.template.spec.domain.machine", &none), "KV3008");
        assert_eq!(rule("spec.template.spec.architecture", &none), "KV3004");
        assert_eq!(
            rule("spec.template.spec.domain.firmware.serial", &none),
            "KV3006"
        );
        assert_eq!(
            rule(
                "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]",
                &none
            ),
            "KV3007"
        );
    }

    #[test]
    fn a_double_star_matches_any_number_of_keys() {
        let path = FieldPath::parse("spec.instancetype.kind");
        assert!(matches(&["spec", "**", "kind"], &path.0));
        assert!(matches(&["spec", "instancetype", "**", "kind"], &path.0));
        assert!(matches(&["**"], &path.0));
        assert!(!matches(&["spec", "**", "name"], &path.0));
        assert!(!matches(&["spec", "instancetype"], &path.0));
    }
}
