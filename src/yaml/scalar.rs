//! Scalar resolution: YAML 1.1 as go-yaml v2 does it (what Kubernetes sees), and YAML 1.2 core
//! schema (what most editors and modern tools see), so that disagreements can be reported.

use super::node::Value;

/// How go-yaml v2 (YAML 1.1) resolves a plain scalar.
/// The YAML 1.1 words (null, booleans, NaN and infinities) and what they read as.
fn yaml11_word(text: &str) -> Option<Value> {
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Value::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Whether `text` starts the way a number can: with a digit, a sign or a dot. Plain text that
/// does not can only read as something other than a string if it is a YAML word.
fn starts_like_number(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'))
}

pub(super) fn resolve_yaml11(text: &str) -> Value {
    if let Some(word) = yaml11_word(text) {
        return word;
    }
    if !starts_like_number(text) {
        return Value::Str(text.to_owned());
    }
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(i) = parse_go_int(&plain) {
        return Value::Int(i);
    }
    // Go's ParseFloat reports out-of-range values (`1e309`) as errors: they stay strings.
    if is_yaml_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
        && f.is_finite()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_owned())
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint` (values above i64 become floats), as
/// go-yaml v2 tries them: `0x` hex, `0o`/leading `0` octal, `0b` binary, optional sign.
fn parse_go_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let (radix, body) = if let Some(rest) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, rest)
    } else if let Some(rest) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, rest)
    } else if let Some(rest) = digits
        .strip_prefix("0o")
        .or_else(|| digits.strip_prefix("0O"))
    {
        (8, rest)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || body.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = i128::from(u64::from_str_radix(body, radix).ok()?);
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).ok()
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == bytes.len()
}

/// How the YAML 1.2 core schema resolves a plain scalar.
pub(super) fn resolve_yaml12(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let bytes = text.as_bytes();
    let (sign, digits) = match bytes.first() {
        Some(b'-' | b'+') => (&text[..1], &text[1..]),
        _ => ("", text),
    };
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(i) = format!("{sign}{digits}").parse::<i64>()
    {
        return Value::Int(i);
    }
    if let Some(octal) = text.strip_prefix("0o")
        && let Ok(i) = i64::from_str_radix(octal, 8)
    {
        return Value::Int(i);
    }
    if let Some(hex) = text.strip_prefix("0x")
        && let Ok(i) = i64::from_str_radix(hex, 16)
    {
        return Value::Int(i);
    }
    if is_yaml_float(text)
        && let Ok(f) = text.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_owned())
}

#[allow(clippy::float_cmp)] // exact equality is the point: do both readings give the same number?
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => {
            #[allow(clippy::cast_precision_loss)]
            let as_float = *i as f64;
            as_float == *f
        }
        _ => a == b,
    }
}

/// A short description of a resolved value, for messages (`boolean true`, `integer 511`).
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Int(i) => format!("integer {i}"),
        Value::Float(f) => format!("number {f}"),
        Value::Str(s) => format!("string \"{s}\""),
        Value::Seq(_) | Value::Map(_) => "collection".to_owned(),
    }
}

/// Whether plain `text` is a string in both YAML 1.1 and 1.2 without resolving it: it does not
/// start like a number and is not a YAML word (`resolve_plain`'s shortcut).
pub(super) fn is_plain_string(text: &str) -> bool {
    !starts_like_number(text) && yaml11_word(text).is_none()
}

/// The YAML 1.1 value and, when YAML 1.2 reads the same text differently, the YAML 1.2 value.
pub(super) fn resolve_plain(text: &str) -> (Value, Option<Value>) {
    let v11 = resolve_yaml11(text);
    // YAML 1.2 reads a number only from text that starts with a digit, a sign or a dot, and its
    // words are YAML 1.1 words too: any other string reads the same in both.
    if matches!(v11, Value::Str(_))
        && !text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'))
    {
        return (v11, None);
    }
    let v12 = resolve_yaml12(text);
    if same(&v11, &v12) {
        (v11, None)
    } else {
        (v11, Some(v12))
    }
}

/// Whether `text` has neither `: ` nor ` #` in it, nor a control or line-breaking character.
fn has_no_indicator_or_control(text: &str) -> bool {
    let bytes = text.as_bytes();
    let indicator = bytes
        .windows(2)
        .any(|pair| matches!(pair, [b':', b' '] | [b' ', b'#']));
    if indicator {
        return false;
    }
    if text.is_ascii() {
        return !bytes.iter().any(u8::is_ascii_control);
    }
    !text
        .chars()
        .any(|c| c.is_control() || matches!(c, '\u{feff}' | '\u{85}' | '\u{2028}' | '\u{2029}'))
}

/// Whether `text` can be written as a plain (unquoted) scalar and still be read back as this
/// string by both YAML 1.1 and YAML 1.2.
pub fn is_plain_safe(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    if text.starts_with([' ', '\t']) || text.ends_with([' ', '\t']) {
        return false;
    }
    if matches!(
        first,
        '-' | '?'
            | ':'
            | ','
            | '['
            | ']'
            | '{'
            | '}'
            | '#'
            | '&'
            | '*'
            | '!'
            | '|'
            | '>'
            | '\''
            | '"'
            | '%'
            | '@'
            | '`'
    ) {
        return false;
    }
    if text.ends_with(':') || !has_no_indicator_or_control(text) {
        return false;
    }
    if text.starts_with("---") || text.starts_with("...") {
        return false;
    }
    // As in `resolve_plain` (a leading `-` was refused above): YAML 1.2's words are YAML 1.1
    // words too.
    if !starts_like_number(text) {
        return yaml11_word(text).is_none();
    }
    matches!(resolve_yaml11(text), Value::Str(_)) && matches!(resolve_yaml12(text), Value::Str(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORTCUT_SAMPLES: [&str; 40] = [
        "",
        "~",
        "null",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "true",
        "False",
        ".nan",
        ".inf",
        "-.inf",
        "+.INF",
        "0",
        "012",
        "0o12",
        "0x1F",
        "0b101",
        "-1",
        "+1",
        "1_000",
        "1e3",
        "1e309",
        ".5",
        "-.5",
        "5.",
        "q35",
        "u1.medium",
        "2Gi",
        "Always",
        "abc",
        "_x",
        "a1",
        "Ω",
        "1Gi",
        "- x",
        ".hidden",
        "+x",
        "-x",
    ];

    #[test]
    fn the_string_shortcut_agrees_with_both_readings() {
        for text in SHORTCUT_SAMPLES {
            let v11 = resolve_yaml11(text);
            let v12 = resolve_yaml12(text);
            let expected = if same(&v11, &v12) {
                (v11, None)
            } else {
                (v11, Some(v12))
            };
            let got = resolve_plain(text);
            let nan = |v: &Value| matches!(v, Value::Float(f) if f.is_nan());
            if nan(&got.0) {
                assert!(
                    nan(&expected.0) && got.1.is_none() == expected.1.is_none(),
                    "{text}"
                );
            } else {
                assert_eq!(got, expected, "{text}");
            }
        }
    }

    #[test]
    fn plain_safety_shortcut_agrees_with_both_readings() {
        let both_read_a_string = |text: &str| {
            matches!(resolve_yaml11(text), Value::Str(_))
                && matches!(resolve_yaml12(text), Value::Str(_))
        };
        for text in SHORTCUT_SAMPLES
            .into_iter()
            .chain(["spec", "On", "Null", "n", "[0]"])
        {
            let structural =
                text.is_empty() || text.starts_with(['-', '[', ' ']) || text.contains(": ");
            if !structural {
                assert_eq!(is_plain_safe(text), both_read_a_string(text), "{text}");
            }
        }
    }

    #[test]
    fn the_plain_string_test_agrees_with_resolving() {
        for text in SHORTCUT_SAMPLES
            .into_iter()
            .chain(["spec", "On", "Null", "n", "~"])
        {
            let resolved = resolve_plain(text);
            let string_in_both = matches!(resolved, (Value::Str(_), None));
            if is_plain_string(text) {
                assert!(string_in_both, "{text}");
            }
            if string_in_both && !starts_like_number(text) {
                assert!(is_plain_string(text), "{text}");
            }
        }
    }

    #[test]
    fn plain_safety_rejects_indicators_and_controls() {
        for (text, safe) in [
            ("a:b", true),
            ("a: b", false),
            ("a#b", true),
            ("a #b", false),
            ("tab\there", false),
            ("bell\u{7}", false),
            ("é:x", true),
            ("é: x", false),
            ("é #x", false),
            ("line\u{2028}", false),
            ("next\u{85}", false),
            ("bom\u{feff}", false),
            ("ünïcode", true),
        ] {
            assert_eq!(is_plain_safe(text), safe, "{text:?}");
        }
    }

    #[test]
    fn yaml11_booleans() {
        for t in ["yes", "Yes", "YES", "y", "Y", "on", "On", "ON", "true"] {
            assert_eq!(resolve_yaml11(t), Value::Bool(true), "{t}");
        }
        for t in ["no", "No", "NO", "n", "N", "off", "Off", "OFF", "false"] {
            assert_eq!(resolve_yaml11(t), Value::Bool(false), "{t}");
        }
        assert_eq!(resolve_yaml11("yEs"), Value::Str("yEs".into()));
    }

    #[test]
    fn yaml11_numbers() {
        assert_eq!(resolve_yaml11("0777"), Value::Int(511));
        assert_eq!(resolve_yaml11("1_000"), Value::Int(1000));
        assert_eq!(resolve_yaml11("0x1F"), Value::Int(31));
        assert_eq!(resolve_yaml11("0b101"), Value::Int(5));
        assert_eq!(resolve_yaml11("-12"), Value::Int(-12));
        assert_eq!(resolve_yaml11("08"), Value::Float(8.0));
        assert_eq!(resolve_yaml11("1e3"), Value::Float(1000.0));
        assert_eq!(resolve_yaml11("1e309"), Value::Str("1e309".into()));
        assert_eq!(resolve_yaml11("2Gi"), Value::Str("2Gi".into()));
        assert_eq!(resolve_yaml11("0x"), Value::Str("0x".into()));
        assert_eq!(resolve_yaml11("99999999999999999999"), Value::Float(1e20));
        assert_eq!(resolve_yaml11("1.2.3"), Value::Str("1.2.3".into()));
        assert_eq!(resolve_yaml11("-"), Value::Str("-".into()));
    }

    #[test]
    fn norway_differences() {
        assert_eq!(resolve_plain("NO").1, Some(Value::Str("NO".into())));
        assert_eq!(resolve_plain("0777").1, Some(Value::Int(777)));
        assert_eq!(resolve_plain("1_000").1, Some(Value::Str("1_000".into())));
        assert_eq!(resolve_plain("true").1, None);
        assert_eq!(resolve_plain("12").1, None);
        assert_eq!(resolve_plain("1.5").1, None);
        assert_eq!(resolve_plain("fedora").1, None);
    }
}
