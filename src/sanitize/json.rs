//! JSON output (the report, SARIF, rendered VMs, `diff --format json`).
//!
//! serde_json escapes quotes, backslashes and C0 controls, and leaves DEL, C1 controls and the
//! bidirectional overrides raw; [`guard`] escapes those too (`\u009b`), and writes the second
//! `#` of `##[` as `\u0023`. Outside strings, serde_json writes only ASCII punctuation, digits,
//! letters of `true`/`false`/`null` and white space, so every such character is inside a
//! string, where the escape reads back as the same character: the JSON value is unchanged.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{is_hidden_control, workflow};

fn needs_guard(text: &str) -> bool {
    text.contains(workflow::LEGACY_MARKER) || text.contains(is_hidden_control_raw)
}

/// Characters serde_json leaves raw that [`guard`] escapes (it escapes the C0 controls itself).
fn is_hidden_control_raw(ch: char) -> bool {
    ch >= '\u{7f}' && is_hidden_control(ch)
}

/// `json` (serde_json's output) with hidden characters and `##[` escaped.
pub fn guard(json: &str) -> Cow<'_, str> {
    if !needs_guard(json) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    let mut rest = json;
    while let Some(at) = rest.find(workflow::LEGACY_MARKER) {
        push_escaped(&mut out, &rest[..=at]);
        out.push_str("\\u0023");
        rest = &rest[at + 2..];
    }
    push_escaped(&mut out, rest);
    Cow::Owned(out)
}

/// [`guard`] of an owned string, without a copy when nothing needs escaping.
pub fn guard_owned(json: String) -> String {
    match guard(&json) {
        Cow::Borrowed(_) => json,
        Cow::Owned(out) => out,
    }
}

fn push_escaped(out: &mut String, text: &str) {
    for ch in text.chars() {
        if is_hidden_control_raw(ch) {
            let _ = write!(out, "\\u{:04x}", u32::from(ch));
        } else {
            out.push(ch);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn escapes_what_serde_json_leaves_raw() {
        let value = json!({"name": "a\u{7f}b\u{9b}c\u{202e}d ##[group] ###[x", "n": 1});
        let text = serde_json::to_string_pretty(&value).unwrap();
        let guarded = guard(&text);
        assert!(!guarded.contains("##["), "{guarded}");
        assert!(!guarded.contains(is_hidden_control_raw), "{guarded}");
        assert!(guarded.contains("a\\u007fb\\u009bc\\u202ed #\\u0023[group]"));
        let back: Value = serde_json::from_str(&guarded).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn leaves_ordinary_json_alone() {
        let text = serde_json::to_string_pretty(&json!({"a": "é # [x] ::y", "b": [1]})).unwrap();
        assert!(matches!(guard(&text), Cow::Borrowed(_)));
    }
}
