//! Markdown for pull-request comments and step summaries.
//!
//! Each Markdown format escapes its own syntax (table pipes, HTML, emphasis); this layer adds
//! what a renderer would otherwise make live out of manifest text, which is where a bot comment
//! could notify people or load a remote image:
//!
//! - [`defuse`] breaks `@user` and `@org/team` mentions, `#123` issue references and bare
//!   `https://` / `www.` links with a zero-width space (`&#8203;`), which GitHub shows as
//!   nothing; mentions and references are found in the rendered HTML's text, so a backslash
//!   would not stop them;
//! - [`split_code_spans`] finds code spans as CommonMark does (a run of backticks closed by the
//!   next run of the same length), so the text a format treats as code is code for GitHub too,
//!   and everything else is escaped;
//! - [`push_hidden`] writes control characters as visible `\u{1b}` escapes.

use std::fmt::Write as _;

use super::is_hidden_control;

/// An invisible break between characters that keeps GitHub from linking them.
const BREAK: &str = "&#8203;";

fn is_word(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_'
}

/// `escaped` (Markdown or HTML text outside code, already escaped by its format) with mentions,
/// issue references and bare links broken. Apply it once: its own `&#8203;` holds a `#` and a
/// digit.
pub fn defuse(escaped: &str) -> String {
    let chars: Vec<char> = escaped.chars().collect();
    let mut out = String::with_capacity(escaped.len());
    for (i, &ch) in chars.iter().enumerate() {
        out.push(ch);
        let next = chars.get(i + 1).copied();
        let previous = i.checked_sub(1).map(|p| chars[p]);
        let breaks = match ch {
            // `@name` and `@org/team`, but not `user@host` or `image@sha256:…`.
            '@' => {
                previous.is_none_or(|p| !is_word(p))
                    && next.is_some_and(|n| n.is_ascii_alphanumeric())
            }
            '#' => next.is_some_and(|n| n.is_ascii_digit()),
            // `https://…`, `ftp://…` and the like.
            ':' => chars.get(i + 1..i + 3) == Some(&['/', '/']) && previous.is_some_and(is_word),
            // `www.example.com`.
            '.' => {
                i >= 3
                    && chars[i - 3..i].iter().all(|c| c.eq_ignore_ascii_case(&'w'))
                    && (i == 3 || !is_word(chars[i - 4]))
            }
            _ => false,
        };
        if breaks {
            out.push_str(BREAK);
        }
    }
    out
}

/// Writes a control character as a visible escape: `\u{1b}`, with the backslash doubled
/// outside code, where Markdown would read it as an escape.
pub fn push_hidden(out: &mut String, ch: char, in_code: bool) {
    let backslash = if in_code { "\\" } else { "\\\\" };
    let _ = write!(out, "{backslash}u{{{:x}}}", u32::from(ch));
}

/// Whether `ch` is written with [`push_hidden`].
pub fn is_hidden(ch: char) -> bool {
    is_hidden_control(ch) && !matches!(ch, '\n' | '\r' | '\t')
}

/// A piece of inline text: code (with the length of its backtick fence) or not.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    /// Backticks that open no code span: shown as written.
    Backticks(usize),
    Code {
        fence: usize,
        content: &'a str,
    },
}

fn backtick_run(bytes: &[u8], start: usize) -> usize {
    bytes[start..].iter().take_while(|&&b| b == b'`').count()
}

/// `text` cut into code spans and the text around them, as CommonMark pairs backtick runs.
pub fn split_code_spans(text: &str) -> Vec<Piece<'_>> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let fence = backtick_run(bytes, at);
        if text_start < at {
            pieces.push(Piece::Text(&text[text_start..at]));
        }
        let content_start = at + fence;
        let mut scan = content_start;
        let mut close = None;
        while scan < bytes.len() {
            if bytes[scan] == b'`' {
                let run = backtick_run(bytes, scan);
                if run == fence {
                    close = Some(scan);
                    break;
                }
                scan += run;
            } else {
                scan += 1;
            }
        }
        if let Some(end) = close {
            pieces.push(Piece::Code {
                fence,
                content: &text[content_start..end],
            });
            at = end + fence;
        } else {
            pieces.push(Piece::Backticks(fence));
            at = content_start;
        }
        text_start = at;
    }
    if text_start < bytes.len() {
        pieces.push(Piece::Text(&text[text_start..]));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_mentions_references_and_links() {
        assert_eq!(
            defuse("hi @octocat and @org/team, see #12"),
            "hi @&#8203;octocat and @&#8203;org/team, see #&#8203;12"
        );
        assert_eq!(
            defuse("https://evil.example/x www.evil.example WWW.x"),
            "https:&#8203;//evil.example/x www.&#8203;evil.example WWW.&#8203;x"
        );
    }

    #[test]
    fn leaves_addresses_digests_and_prose() {
        for text in [
            "user@example.com",
            "quay.io/x/y@sha256:abc",
            "a: b, c # d",
            "memory.guest",
            "awww.x",
            "@ alone",
        ] {
            assert_eq!(defuse(text), text);
        }
    }

    #[test]
    fn pairs_backtick_runs_as_commonmark() {
        assert_eq!(
            split_code_spans("set `a` and ``b`c`` here"),
            vec![
                Piece::Text("set "),
                Piece::Code {
                    fence: 1,
                    content: "a"
                },
                Piece::Text(" and "),
                Piece::Code {
                    fence: 2,
                    content: "b`c"
                },
                Piece::Text(" here"),
            ]
        );
        assert_eq!(
            split_code_spans("``a` [x](y)"),
            vec![
                Piece::Backticks(2),
                Piece::Text("a"),
                Piece::Backticks(1),
                Piece::Text(" [x](y)"),
            ]
        );
        assert_eq!(split_code_spans(""), vec![]);
    }

    #[test]
    fn hidden_characters_are_shown() {
        let mut out = String::new();
        push_hidden(&mut out, '\u{1b}', false);
        push_hidden(&mut out, '\u{7}', true);
        assert_eq!(out, "\\\\u{1b}\\u{7}");
        assert!(is_hidden('\u{9b}') && !is_hidden('\n') && !is_hidden('é'));
    }
}
