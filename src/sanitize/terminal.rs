//! Plain text for terminals and CI logs.
//!
//! Manifest text is escaped as it goes into the report: [`line`] for text that stands on one
//! line (names, messages, paths), [`block`] for text whose line breaks are kvlint's (help with
//! YAML to commit, source snippets). Hidden characters become `\u{1b}`-style escapes (`\n`,
//! `\r` for line breaks), so that ESC, BEL or a carriage return in a YAML comment is shown
//! instead of obeyed. [`guard_lines`] then runs over the finished text, after wrapping and
//! layout, and breaks whatever a GitHub runner would still execute.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{is_hidden_control, workflow};

fn push_escape(out: &mut String, ch: char) {
    match ch {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(ch));
        }
    }
}

/// `text` with the hidden characters `keep` (given the character and the next) does not keep
/// escaped; borrowed when there are none.
fn escaped(text: &str, keep: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let escapes =
        |ch: char, next: Option<char>| ch != '\t' && is_hidden_control(ch) && !keep(ch, next);
    let mut chars = text.char_indices().peekable();
    let first = loop {
        let Some((at, ch)) = chars.next() else {
            return Cow::Borrowed(text);
        };
        if escapes(ch, chars.peek().map(|&(_, c)| c)) {
            break at;
        }
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(ch) = chars.next() {
        if escapes(ch, chars.peek().copied()) {
            push_escape(&mut out, ch);
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// Text shown on one line: every control character but the tab is escaped, line breaks too.
pub fn line(text: &str) -> Cow<'_, str> {
    escaped(text, |_, _| false)
}

/// Text whose line breaks are kept (`\n`, and `\r` right before one): every other control
/// character is escaped.
pub fn block(text: &str) -> Cow<'_, str> {
    escaped(text, |ch, next| {
        ch == '\n' || (ch == '\r' && next == Some('\n'))
    })
}

/// The finished text with every line a GitHub runner would execute broken by a visible escape:
/// `::` at the start of a line becomes `\u{3a}:`, `##[` becomes `#\u{23}[`. Other lines are
/// untouched.
pub fn guard_lines(text: String) -> String {
    workflow::rewrite_commands(&text, |ch| match ch {
        ':' => "\\u{3a}",
        _ => "\\u{23}",
    })
    .unwrap_or(text)
}

/// A source file as snippets show it, with a map from its byte offsets to the shown text's, so
/// that spans computed on the file point at the same characters in the shown text: [`block`],
/// except that a lone `\r`, a line break to YAML, is shown as `\n` (one byte for one, so the
/// lines of the snippet are the lines YAML counts, and the terminal never obeys the `\r`).
pub struct EscapedSource<'a> {
    pub text: Cow<'a, str>,
    /// `(offset in the source after an escaped character, bytes added up to there)`, in order.
    shifts: Vec<(usize, usize)>,
}

/// `text` with every `\r` that no `\n` follows replaced by `\n`; borrowed when there is none.
fn lone_carriage_returns_as_line_feeds(text: Cow<'_, str>) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return text;
    }
    let replaced: Vec<u8> = (0..bytes.len())
        .map(|i| if lone(i) { b'\n' } else { bytes[i] })
        .collect();
    // One ASCII byte for another: still UTF-8.
    Cow::Owned(String::from_utf8(replaced).unwrap_or_default())
}

impl<'a> EscapedSource<'a> {
    pub fn new(source: &'a str) -> Self {
        let text =
            lone_carriage_returns_as_line_feeds(escaped(source, |ch, _| ch == '\n' || ch == '\r'));
        let mut shifts = Vec::new();
        if let Cow::Owned(_) = text {
            let mut added = 0;
            for (at, ch) in source.char_indices() {
                let kept = ch == '\t' || ch == '\n' || ch == '\r';
                if is_hidden_control(ch) && !kept {
                    let mut escape = String::new();
                    push_escape(&mut escape, ch);
                    added += escape.len() - ch.len_utf8();
                    shifts.push((at + ch.len_utf8(), added));
                }
            }
        }
        Self { text, shifts }
    }

    /// The offset in the escaped text of byte `offset` of the source. An offset inside an
    /// escaped character maps to the start of its escape.
    pub fn offset(&self, offset: usize) -> usize {
        let before = self.shifts.partition_point(|&(end, _)| end <= offset);
        offset + before.checked_sub(1).map_or(0, |i| self.shifts[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_escapes_every_control_but_the_tab() {
        assert!(matches!(line("web-01\tok"), Cow::Borrowed(_)));
        assert_eq!(
            line("a\nb\r\u{1b}]0;title\u{7}\u{9b}\u{7f}\u{202e}\tc"),
            "a\\nb\\r\\u{1b}]0;title\\u{7}\\u{9b}\\u{7f}\\u{202e}\tc"
        );
    }

    #[test]
    fn a_source_shows_yaml_line_breaks_and_escapes_the_rest() {
        let source = "a: 1\rb: \u{1b}x\r\nc: 3\r";
        let shown = EscapedSource::new(source);
        assert_eq!(shown.text, "a: 1\nb: \\u{1b}x\r\nc: 3\n");
        let c = source.find('c').unwrap();
        assert_eq!(shown.text[shown.offset(c)..].chars().next(), Some('c'));
    }

    #[test]
    fn block_keeps_line_breaks() {
        assert!(matches!(block("a\r\nb\n\tc"), Cow::Borrowed(_)));
        assert_eq!(block("a\rb\u{1b}[2J\r\n"), "a\\rb\\u{1b}[2J\r\n");
    }

    #[test]
    fn guard_breaks_commands_visibly() {
        let text = "x: web\n   ::error file=README.md::FAKE\nok ##[group]g\n".to_owned();
        assert_eq!(
            guard_lines(text),
            "x: web\n   \\u{3a}:error file=README.md::FAKE\nok #\\u{23}[group]g\n"
        );
        let plain = "a::b\n  key: c\n".to_owned();
        assert_eq!(guard_lines(plain.clone()), plain);
    }

    #[test]
    fn source_offsets_follow_the_escapes() {
        let source = "a: \u{1b}x\nb: \u{7}\u{9b}y\n";
        let escaped = EscapedSource::new(source);
        assert_eq!(escaped.text, "a: \\u{1b}x\nb: \\u{7}\\u{9b}y\n");
        let x = source.find('x').unwrap();
        assert_eq!(&escaped.text[escaped.offset(x)..=escaped.offset(x)], "x");
        let y = source.find('y').unwrap();
        assert_eq!(&escaped.text[escaped.offset(y)..=escaped.offset(y)], "y");
        assert_eq!(escaped.offset(0), 0);
        assert_eq!(escaped.offset(source.len()), escaped.text.len());
        let clean = EscapedSource::new("a: b\r\n");
        assert_eq!(clean.offset(3), 3);
    }
}
