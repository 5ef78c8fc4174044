//! The source snippet of the human report: the line a finding points at, its number in a gutter
//! and a row of carets under the span, cut to the terminal's width around the span.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use unicode_width::UnicodeWidthChar;

use crate::diag::Location;
use crate::sanitize::terminal;

/// How a tab in a source line is shown: as many spaces, so that the carets stay under their
/// characters whatever the terminal's tab stops.
const TAB: &str = "    ";

/// The gutter holds line numbers of this many digits without moving the `|`.
pub(super) const GUTTER_DIGITS: usize = 4;

/// What stands for the part of a long line that is cut off.
const ELLIPSIS: &str = "…";

/// Byte offset of a 1-based line and character column in `text`, lines ending as YAML ends
/// them (`\n`, `\r\n` or a lone `\r`).
fn byte_offset(text: &str, line: u32, column: u32) -> usize {
    let mut offset = 0;
    for _ in 1..line {
        match text[offset..].find(['\n', '\r']) {
            Some(i) if text[offset + i..].starts_with("\r\n") => offset += i + 2,
            Some(i) => offset += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[offset..];
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let within = rest[..line_end]
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(line_end, |(i, _)| i);
    offset + within
}

/// A source file as the snippets show it: control characters escaped.
pub(super) struct Source<'a> {
    original: &'a str,
    escaped: terminal::EscapedSource<'a>,
}

impl<'a> Source<'a> {
    pub(super) fn new(original: &'a Arc<str>) -> Self {
        Self {
            original,
            escaped: terminal::EscapedSource::new(original),
        }
    }

    /// The shown line `location` starts on and the span on it, as byte ranges of the line:
    /// `(line, start, end, ends_on_this_line)`.
    fn line_of(&self, location: &Location) -> (&str, usize, usize, bool) {
        let span = location.span;
        let shown: &str = &self.escaped.text;
        let start = byte_offset(self.original, span.start.line, span.start.column);
        let end = byte_offset(self.original, span.end.line, span.end.column).max(start);
        let (start, end) = (self.escaped.offset(start), self.escaped.offset(end));
        let start = start.min(shown.len());
        let line_start = shown[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = shown[start..].find('\n').map_or(shown.len(), |i| start + i);
        let line = shown[line_start..line_end].trim_end_matches('\r');
        let within_start = (start - line_start).min(line.len());
        let ends_here = end <= line_start + line.len();
        let within_end = (end.min(line_end) - line_start).clamp(within_start, line.len());
        (line, within_start, within_end, ends_here)
    }
}

/// Display width of `text` as the snippet shows it (tabs as [`TAB`]).
fn width_of(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(ch: char) -> usize {
    if ch == '\t' {
        TAB.len()
    } else {
        ch.width().unwrap_or(0)
    }
}

/// The characters of `text` whose display columns fall in `from..to`, tabs expanded.
fn columns(text: &str, from: usize, to: usize) -> String {
    let mut out = String::new();
    let mut at = 0;
    for ch in text.chars() {
        let width = char_width(ch);
        if at >= from && at + width <= to {
            if ch == '\t' {
                out.push_str(TAB);
            } else {
                out.push(ch);
            }
        }
        at += width;
        if at >= to {
            break;
        }
    }
    out
}

/// The colours of a snippet: the carets' and the gutter's ANSI sequences, empty without colour.
#[derive(Clone, Copy)]
pub(super) struct Paint {
    pub carets: &'static str,
    pub gutter: &'static str,
    pub reset: &'static str,
}

/// The snippet of `location` in `source`: the line under its number, then the carets and
/// `label`. A span that runs on past its first line is marked to that line's end, and the label
/// says where it ends. `width` is the terminal's: a longer line is cut around the span.
pub(super) fn render(
    source: &Source<'_>,
    location: &Location,
    label: &str,
    width: usize,
    paint: Paint,
) -> String {
    let (line, start, end, ends_here) = source.line_of(location);
    let number = location.span.start.line.to_string();
    let digits = number.len().max(GUTTER_DIGITS);
    let before = width_of(&line[..start]);
    let marked = width_of(&line[start..end]).max(1);
    let total = width_of(line);
    // Room for the line after the gutter (`  12 | `), never less than a useful amount.
    let room = width.saturating_sub(digits + 3).max(40);
    let (from, to) = window(before, marked, total, room);
    let mut shown = columns(line, from, to);
    let mut offset = before - from;
    if from > 0 {
        shown.insert_str(0, ELLIPSIS);
        offset += 1;
    }
    if to < total {
        shown.push_str(ELLIPSIS);
    }
    let carets = marked.min(to.saturating_sub(before)).max(1);
    let mut label = terminal::line(label).into_owned();
    if !ends_here {
        let end_line = location.span.end.line;
        let through = format!("(through line {end_line})");
        label = if label.is_empty() {
            through
        } else {
            format!("{label} {through}")
        };
    }
    let Paint {
        carets: caret_color,
        gutter: gutter_color,
        reset,
    } = paint;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{gutter_color}{number:>digits$} |{reset} {}",
        shown.trim_end()
    );
    let _ = write!(
        out,
        "{gutter_color}{} |{reset} {}{caret_color}{}",
        " ".repeat(digits),
        " ".repeat(offset),
        "^".repeat(carets)
    );
    if !label.is_empty() {
        let _ = write!(out, " {label}");
    }
    let _ = writeln!(out, "{reset}");
    out
}

/// The display columns `from..to` of a line `total` wide to show in `room` columns, so that
/// the span starting at column `before` (`marked` wide) is in view, its start first.
fn window(before: usize, marked: usize, total: usize, room: usize) -> (usize, usize) {
    if total <= room {
        return (0, total);
    }
    // Both ends may need an ellipsis.
    let room = room.saturating_sub(2).max(1);
    let lead = (room / 4).min(before);
    let from = if before + marked.min(room - lead) <= room {
        0
    } else {
        before - lead
    };
    (from, (from + room).min(total))
}

/// The text of a help, note or related line after `= ` in the gutter: its first line, then
/// the others under it.
pub(super) fn note(label: &str, text: &str, indent: usize) -> String {
    let mut out = String::new();
    let pad = " ".repeat(indent);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let _ = writeln!(out, "{pad}= {label}: {first}");
    let under = " ".repeat(indent + label.len() + 4);
    for line in lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{under}{line}");
        }
    }
    out
}

/// The file a finding names, for one line.
pub(super) fn file(location: &Location) -> Cow<'_, str> {
    terminal::line(&location.file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(start: (u32, u32), end: (u32, u32)) -> Location {
        Location::lines(Arc::from("vm.yaml"), start, end)
    }

    const PLAIN: Paint = Paint {
        carets: "",
        gutter: "",
        reset: "",
    };

    #[test]
    fn byte_offsets_follow_characters() {
        let text = "ab\nné: x\n";
        assert_eq!(byte_offset(text, 2, 1), 3);
        assert_eq!(byte_offset(text, 2, 3), 6);
        assert_eq!(byte_offset(text, 2, 5), 8);
        assert_eq!(byte_offset(text, 9, 1), text.len());
    }

    #[test]
    fn carets_sit_under_the_span() {
        let text: Arc<str> = Arc::from("metadata:\n  labels:\n    backup: no\nspec: {}\n");
        let source = Source::new(&text);
        let shown = render(
            &source,
            &location((3, 13), (3, 15)),
            "metadata.labels.backup",
            100,
            PLAIN,
        );
        assert_eq!(
            shown,
            "   3 |     backup: no\n     |             ^^ metadata.labels.backup\n"
        );
    }

    #[test]
    fn a_span_over_several_lines_is_marked_to_the_end_of_its_first() {
        let text: Arc<str> = Arc::from("spec:\n  a:\n    b: 1\n");
        let source = Source::new(&text);
        let shown = render(&source, &location((2, 3), (3, 9)), "spec.a", 100, PLAIN);
        assert_eq!(shown, "   2 |   a:\n     |   ^^ spec.a (through line 3)\n");
    }

    #[test]
    fn wide_characters_and_tabs_keep_the_carets_aligned() {
        let text: Arc<str> = Arc::from("a:\t名前: x\n");
        let source = Source::new(&text);
        let shown = render(&source, &location((1, 8), (1, 9)), "", 100, PLAIN);
        assert_eq!(
            shown,
            format!("   1 | a:    名前: x\n     | {}^\n", " ".repeat(12))
        );
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let line = format!("k: {}target{}", "x".repeat(500), "y".repeat(500));
        let text: Arc<str> = Arc::from(line.as_str());
        let source = Source::new(&text);
        let shown = render(&source, &location((1, 504), (1, 510)), "k", 80, PLAIN);
        let first = shown.lines().next().unwrap();
        assert!(first.chars().count() <= 80, "{first}");
        assert!(first.contains("…x") && first.ends_with("y…"), "{first}");
        let carets = shown.lines().nth(1).unwrap();
        let column = carets.chars().position(|c| c == '^').unwrap();
        let under: String = first.chars().skip(column).take("target".len()).collect();
        assert_eq!(under, "target", "{shown}");
    }

    #[test]
    fn control_characters_in_the_line_are_escaped() {
        let text: Arc<str> = Arc::from("a: \u{1b}]0;x\u{7} b\n");
        let source = Source::new(&text);
        let shown = render(&source, &location((1, 11), (1, 12)), "", 100, PLAIN);
        assert!(!shown.contains('\u{1b}'), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        let column = lines[1].find('^').unwrap();
        assert_eq!(&lines[0][column..=column], "b", "{shown}");
    }
}
