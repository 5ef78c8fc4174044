//! A Kubernetes label selector as `metav1.LabelSelectorAsSelector` reads it: the error it
//! returns for a selector it cannot build (with apimachinery's messages), and whether the
//! built selector matches a set of labels.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The operators of one requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    Equals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

#[derive(Debug)]
struct Requirement<'a> {
    key: &'a str,
    operator: Operator,
    values: Vec<&'a str>,
}

/// A built selector: `None` matches nothing (no selector at all), an empty list everything.
#[derive(Debug)]
pub(super) struct Selector<'a>(Option<Vec<Requirement<'a>>>);

impl Selector<'_> {
    pub(super) fn matches(&self, labels: &Map<String, Value>) -> bool {
        let Some(requirements) = &self.0 else {
            return false;
        };
        requirements.iter().all(|r| {
            let value = labels.get(r.key).and_then(Value::as_str);
            match r.operator {
                Operator::Equals | Operator::In => value.is_some_and(|v| r.values.contains(&v)),
                Operator::NotIn => value.is_none_or(|v| !r.values.contains(&v)),
                Operator::Exists => labels.contains_key(r.key),
                Operator::DoesNotExist => !labels.contains_key(r.key),
            }
        })
    }
}

/// Why a selector cannot be read at all: a value of the wrong type, which the CRD's schema
/// refuses before any webhook sees the object.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NotASelector;

/// Why `LabelSelectorAsSelector` cannot build a selector; displayed as apimachinery's error.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SelectorError {
    /// An operator other than In, NotIn, Exists and DoesNotExist.
    UnknownOperator(String),
    /// `labels.NewRequirement`'s field errors, each once, in order (at least one).
    InvalidRequirement(Vec<String>),
}

impl std::fmt::Display for SelectorError {
    /// `utilerrors.NewAggregate(...).Error()` for a requirement: one message as is, several in
    /// brackets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownOperator(operator) => write!(
                f,
                "{} is not a valid label selector operator",
                go_quote(operator)
            ),
            Self::InvalidRequirement(errors) => match errors.as_slice() {
                [one] => f.write_str(one),
                several => write!(f, "[{}]", several.join(", ")),
            },
        }
    }
}

impl std::error::Error for SelectorError {}

/// The selector `selector` (the JSON of a `metav1.LabelSelector`, or `None`) builds, or the
/// error `LabelSelectorAsSelector` returns. `matchLabels` are read in key order (Go reads
/// its map in random order, so with several bad labels KubeVirt names any one of them).
pub(super) fn build(
    selector: Option<&Value>,
) -> Result<Result<Selector<'_>, SelectorError>, NotASelector> {
    let Some(selector) = selector.filter(|s| !s.is_null()) else {
        return Ok(Ok(Selector(None)));
    };
    let selector = selector.as_object().ok_or(NotASelector)?;
    let labels = match selector.get("matchLabels") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(labels)) => {
            let mut labels: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| v.as_str().map(|v| (k.as_str(), v)).ok_or(NotASelector))
                .collect::<Result<_, _>>()?;
            labels.sort_unstable();
            labels
        }
        Some(_) => return Err(NotASelector),
    };
    let expressions = match selector.get("matchExpressions") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(expressions)) => expressions.as_slice(),
        Some(_) => return Err(NotASelector),
    };
    let mut requirements = Vec::new();
    for (key, value) in labels {
        match requirement(key, Operator::Equals, vec![value]) {
            Ok(r) => requirements.push(r),
            Err(message) => return Ok(Err(message)),
        }
    }
    for expression in expressions {
        let expression = expression.as_object().ok_or(NotASelector)?;
        let text = |field: &str| match expression.get(field) {
            None | Some(Value::Null) => Ok(""),
            Some(Value::String(text)) => Ok(text.as_str()),
            Some(_) => Err(NotASelector),
        };
        let key = text("key")?;
        let operator_text = text("operator")?;
        let values: Vec<&str> = match expression.get("values") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(values)) => values
                .iter()
                .map(|v| v.as_str().ok_or(NotASelector))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(NotASelector),
        };
        let operator = match operator_text {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            other => return Ok(Err(SelectorError::UnknownOperator(other.to_owned()))),
        };
        match requirement(key, operator, values) {
            Ok(r) => requirements.push(r),
            Err(message) => return Ok(Err(message)),
        }
    }
    Ok(Ok(Selector(Some(requirements))))
}

/// `labels.NewRequirement`: the requirement, or its errors.
fn requirement<'a>(
    key: &'a str,
    operator: Operator,
    values: Vec<&'a str>,
) -> Result<Requirement<'a>, SelectorError> {
    let mut errors = Vec::new();
    let key_errors = qualified_name_errors(key);
    if !key_errors.is_empty() {
        errors.push(format!(
            "key: Invalid value: {}: {}",
            go_quote(key),
            key_errors.join("; ")
        ));
    }
    let bad_count = match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            Some("for 'in', 'notin' operators, values set can't be empty")
        }
        Operator::Equals if values.len() != 1 => {
            Some("exact-match compatibility requires one single value")
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            Some("values set must be empty for exists and does not exist")
        }
        _ => None,
    };
    if let Some(detail) = bad_count {
        errors.push(format!(
            "values: Invalid value: {}: {detail}",
            json_list(&values)
        ));
    }
    for (index, value) in values.iter().enumerate() {
        let value_errors = label_value_errors(value);
        if !value_errors.is_empty() {
            errors.push(format!(
                "values[{index}][{key}]: Invalid value: {}: {}",
                go_quote(value),
                value_errors.join("; ")
            ));
        }
    }
    if errors.is_empty() {
        return Ok(Requirement {
            key,
            operator,
            values,
        });
    }
    // An aggregate names each error once.
    let mut seen = std::collections::HashSet::new();
    errors.retain(|e| seen.insert(e.clone()));
    Err(SelectorError::InvalidRequirement(errors))
}

/// The Go JSON of a `[]string` that may be nil: `null` when empty (apimachinery copies the
/// values with `append([]string(nil), ...)`).
fn json_list(values: &[&str]) -> String {
    if values.is_empty() {
        return "null".to_owned();
    }
    serde_json::to_string(values).unwrap_or_default()
}

/// Go's `%q` of a string, as far as label keys and values need it: JSON escapes, which agree
/// with Go's for the printable ASCII these hold.
fn go_quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

const QUALIFIED_NAME_FORMAT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FORMAT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// apimachinery's `RegexError`.
fn regex_error(message: &str, format: &str, examples: &[&str]) -> String {
    let mut text = format!("{message} (e.g. ");
    for (index, example) in examples.iter().enumerate() {
        if index > 0 {
            text.push_str(" or ");
        }
        let _ = write!(text, "'{example}', ");
    }
    let _ = write!(text, "regex used for validation is '{format}')");
    text
}

fn is_qualified_name_part(text: &str) -> bool {
    let bytes = text.as_bytes();
    let edge = |b: u8| b.is_ascii_alphanumeric();
    !bytes.is_empty()
        && edge(bytes[0])
        && edge(bytes[bytes.len() - 1])
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn is_dns1123_subdomain(text: &str) -> bool {
    text.split('.').all(|label| {
        let bytes = label.as_bytes();
        let edge = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        !bytes.is_empty()
            && edge(bytes[0])
            && edge(bytes[bytes.len() - 1])
            && bytes.iter().all(|&b| edge(b) || b == b'-')
    })
}

/// `validation.IsQualifiedName`.
fn qualified_name_errors(value: &str) -> Vec<String> {
    let name_format = || {
        regex_error(
            QUALIFIED_NAME_MESSAGE,
            QUALIFIED_NAME_FORMAT,
            &["MyName", "my.name", "123-abc"],
        )
    };
    let parts: Vec<&str> = value.split('/').collect();
    let mut errors = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                if prefix.len() > 253 {
                    errors.push("prefix part must be no more than 253 characters".to_owned());
                }
                if !is_dns1123_subdomain(prefix) {
                    errors.push(format!(
                        "prefix part {}",
                        regex_error(
                            DNS1123_SUBDOMAIN_MESSAGE,
                            DNS1123_SUBDOMAIN_FORMAT,
                            &["example.com"]
                        )
                    ));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                name_format()
            )];
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push("name part must be no more than 63 characters".to_owned());
    }
    if !is_qualified_name_part(name) {
        errors.push(format!("name part {}", name_format()));
    }
    errors
}

/// `validation.IsValidLabelValue`.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_owned());
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errors.push(regex_error(
            LABEL_VALUE_MESSAGE,
            &format!("({QUALIFIED_NAME_FORMAT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn labels(value: &Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn matches(selector: &Value, on: &Value) -> bool {
        build(Some(selector)).unwrap().unwrap().matches(&labels(on))
    }

    #[test]
    fn selectors_match_as_kubernetes_matches_them() {
        let web = json!({"app": "web", "tier": "front"});
        let expression = |operator: &str, values: Value| json!({"matchExpressions": [{"key": "tier", "operator": operator, "values": values}]});
        let cases = [
            (json!({}), true),
            (json!({"matchLabels": {"app": "web"}}), true),
            (json!({"matchLabels": {"app": "db"}}), false),
            (expression("In", json!(["front", "x"])), true),
            (expression("NotIn", json!(["front"])), false),
            (expression("NotIn", json!(["back"])), true),
            (expression("Exists", json!(null)), true),
            (expression("DoesNotExist", json!([])), false),
        ];
        for (selector, expected) in cases {
            assert_eq!(matches(&selector, &web), expected, "{selector}");
        }
        assert!(!build(None).unwrap().unwrap().matches(&labels(&web)));
    }

    #[test]
    fn errors_keep_what_is_wrong() {
        let build_error = |selector: Value| build(Some(&selector)).unwrap().unwrap_err();
        assert_eq!(
            build_error(json!({"matchExpressions": [{"key": "a", "operator": "Gt"}]})),
            SelectorError::UnknownOperator("Gt".to_owned())
        );
        // Each of a requirement's errors is kept.
        let SelectorError::InvalidRequirement(errors) = build_error(
            json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["-x"]}]}),
        ) else {
            panic!("not a requirement's errors");
        };
        assert_eq!(errors.len(), 2, "{errors:?}");
    }

    #[test]
    fn errors_carry_apimachinery_messages() {
        let error = |selector: Value| build(Some(&selector)).unwrap().unwrap_err().to_string();
        assert_eq!(
            error(json!({"matchExpressions": [{"key": "a", "operator": "Gt"}]})),
            "\"Gt\" is not a valid label selector operator"
        );
        assert_eq!(
            error(json!({"matchExpressions": [{"key": "a", "operator": "In"}]})),
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
        );
        assert_eq!(
            error(
                json!({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]})
            ),
            "values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist"
        );
        assert_eq!(
            error(json!({"matchLabels": {"bad key": "-x"}})),
            "[key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values[0][bad key]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"
        );
        assert_eq!(
            error(json!({"matchLabels": {"Example.com/app": "web"}})),
            "key: Invalid value: \"Example.com/app\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
    }

    #[test]
    fn values_of_the_wrong_type_are_the_schema_s_to_refuse() {
        assert_eq!(
            build(Some(&json!({"matchLabels": {"a": true}}))).unwrap_err(),
            NotASelector
        );
        assert_eq!(build(Some(&json!("app=web"))).unwrap_err(), NotASelector);
    }
}
