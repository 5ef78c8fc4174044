//! A small YAML emitter for rendered objects: block style, kubectl's layout (sequences not
//! indented under their key), and strings quoted whenever YAML 1.1 or 1.2 could read them as
//! anything but a string.
//!
//! Strings a GitHub runner could read as a workflow command (a line starting with `::`, or
//! holding `##[`) and strings with hidden characters (DEL, C1 controls, bidirectional
//! overrides) are always double-quoted, with those characters and the second `#` of `##[`
//! escaped: the output reads back as the same value, and no line of it is a command.

use std::fmt::Write as _;

use serde_json::Value;

use crate::sanitize::{is_hidden_control, json, workflow};
use crate::yaml::is_plain_safe;

/// Whether `text` can be written without quotes, where nothing else starts its line.
fn is_plain(text: &str) -> bool {
    is_plain_safe(text) && !workflow::has_command(text) && !text.contains(is_hidden_control)
}

/// Emits `value` as a YAML document body (no `---`).
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => write_map(&mut out, map, 0),
        Value::Array(items) if !items.is_empty() => write_seq(&mut out, items, 0),
        scalar => {
            out.push_str(&scalar_text(scalar, 0));
            out.push('\n');
        }
    }
    out
}

/// `to_yaml` of `value` nested in single-key maps, `keys` outermost first, without building
/// them.
pub fn nested_to_yaml<K: AsRef<str>>(keys: &[K], value: &Value) -> String {
    let Some((last, parents)) = keys.split_last() else {
        return to_yaml(value);
    };
    let mut out = String::new();
    for (depth, key) in parents.iter().enumerate() {
        indent(&mut out, depth * 2);
        push_key(&mut out, key.as_ref());
        out.push_str(":\n");
    }
    let level = parents.len() * 2;
    indent(&mut out, level);
    push_key(&mut out, last.as_ref());
    out.push(':');
    write_value_after_key(&mut out, value, level);
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push(' ');
    }
}

fn push_key(out: &mut String, key: &str) {
    if is_plain(key) {
        out.push_str(key);
    } else {
        out.push_str(&quoted(key));
    }
}

/// A double-quoted scalar: JSON's escapes are YAML's, and [`json::guard`]'s (`\u009b`,
/// `\u0023`) are too.
fn quoted(text: &str) -> String {
    let text =
        serde_json::to_string(text).unwrap_or_else(|_| format!("\"{}\"", text.escape_default()));
    json::guard_owned(text)
}

fn is_block_literal_safe(text: &str) -> bool {
    text.contains('\n')
        && !text.starts_with([' ', '\t'])
        && !text.contains('\r')
        && text
            .chars()
            .all(|c| c == '\n' || c == '\t' || !is_hidden_control(c))
        && text.lines().all(|line| !line.ends_with([' ', '\t']))
        && !workflow::has_command(text)
}

fn scalar_text(value: &Value, level: usize) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if is_block_literal_safe(s) => {
            let chomp = if s.ends_with("\n\n") {
                "+"
            } else if s.ends_with('\n') {
                ""
            } else {
                "-"
            };
            let mut text = format!("|{chomp}");
            for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
                text.push('\n');
                if !line.is_empty() {
                    text.push_str(&" ".repeat(level + 2));
                    text.push_str(line);
                }
            }
            text
        }
        Value::String(s) if is_plain(s) => s.clone(),
        Value::String(s) => quoted(s),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

fn write_map(out: &mut String, map: &serde_json::Map<String, Value>, level: usize) {
    for (key, value) in map {
        indent(out, level);
        push_key(out, key);
        out.push(':');
        write_value_after_key(out, value, level);
    }
}

fn write_value_after_key(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(out, map, level + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_seq(out, items, level);
        }
        scalar => {
            let _ = writeln!(out, " {}", scalar_text(scalar, level));
        }
    }
}

fn write_seq(out: &mut String, items: &[Value], level: usize) {
    for item in items {
        indent(out, level);
        out.push('-');
        match item {
            Value::Object(map) if !map.is_empty() => {
                // The first entry shares the dash's line.
                let mut first = true;
                for (key, value) in map {
                    if first {
                        out.push(' ');
                        first = false;
                    } else {
                        indent(out, level + 2);
                    }
                    push_key(out, key);
                    out.push(':');
                    write_value_after_key(out, value, level + 2);
                }
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, level + 2);
            }
            scalar => {
                let _ = writeln!(out, " {}", scalar_text(scalar, level));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};
    use serde_json::json;

    fn round_trip(value: &Value) -> Value {
        let text = to_yaml(value);
        let doc = parse_stream(&text, Limits::default())
            .remove(0)
            .expect(&text);
        doc.root.to_json()
    }

    #[test]
    fn emits_kubectl_layout() {
        let value = json!({"a": {"b": [{"c": 1, "d": "x"}, "y"], "e": {}}, "f": []});
        assert_eq!(
            to_yaml(&value),
            "a:\n  b:\n  - c: 1\n    d: x\n  - \"y\"\n  e: {}\nf: []\n"
        );
    }

    #[test]
    fn quotes_what_yaml_would_misread() {
        let value = json!({"a": "yes", "b": "0777", "c": "1.5", "d": "2Gi", "e": "", "f": "x: y", "g": "- z", "on": "null", "h": "#c", "i": " lead"});
        assert_eq!(round_trip(&value), value);
        let text = to_yaml(&value);
        assert!(text.contains("a: \"yes\""), "{text}");
        assert!(text.contains("d: 2Gi"), "{text}");
        assert!(text.contains("\"on\":"), "{text}");
    }

    #[test]
    fn multi_line_strings_round_trip() {
        for s in [
            "#cloud-config\nusers: []\n",
            "a\nb",
            "a\n\n",
            "x\n  indented\n",
        ] {
            let value = json!({"userData": s, "list": [s]});
            assert_eq!(round_trip(&value), value, "{s:?}");
        }
    }
}
