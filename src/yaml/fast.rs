//! A scanner for the block-style YAML that Kubernetes manifests are nearly always written in.
//!
//! It produces the events and marks saphyr's parser produces for the same text, so that both
//! feed the same builder, at a fraction of the cost: saphyr reads a character at a time
//! through a lookahead buffer and builds a string for every scalar. Anything outside the subset
//! makes [`events`] return `None`, and the document is parsed by saphyr: flow collections other
//! than `{}` and `[]`, anchors, aliases, tags, block scalars, escapes, scalars over several
//! lines, complex keys, tabs, CR, non-ASCII text, directives, documents nested deeper than the
//! limit, and every error. The tests compare both parsers on every document of the shared
//! corpora and on generated documents.

use std::borrow::Cow;

use saphyr_parser::{Event, Marker, ScalarStyle, Span};

/// A line with content (not blank, not only a comment).
#[derive(Clone, Copy)]
struct Line {
    /// Byte index of its first character.
    start: usize,
    /// Leading spaces.
    indent: usize,
    /// Byte index of its line break, or the end of the text.
    end: usize,
    /// 1-based line number.
    number: usize,
}

impl Line {
    fn content(&self) -> usize {
        self.start + self.indent
    }
}

/// Nesting beyond this is left to saphyr, whose parser does not recurse: the scanner's own
/// recursion stays a few hundred small frames deep on any thread.
const MAX_DEPTH: usize = 128;

/// Larger documents go to saphyr, which hands its events over one at a time: the scanner
/// collects a document's events before the builder reads them, about 100 bytes per node.
pub(super) const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// The longest simple key YAML allows, counted from its first character to its `:`.
const MAX_KEY_LENGTH: usize = 1024;

/// The parser events of `text` (one document's text), or `None` when saphyr must parse it.
pub(super) fn events(text: &str, max_depth: usize) -> Option<Vec<(Event<'_>, Span)>> {
    let bytes = text.as_bytes();
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return None;
    }
    // Printable ASCII and line feeds only: saphyr stops at NUL and refuses other control
    // characters, which the scanner would take as text.
    if !bytes
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) || b == b'\n')
    {
        return None;
    }
    let lines = content_lines(bytes)?;
    let mut scanner = Scanner {
        text,
        bytes,
        events: Vec::with_capacity(lines.len() * 2 + 4),
        lines,
        current: 0,
        max_depth: max_depth.min(MAX_DEPTH),
    };
    scanner.document()?;
    Some(scanner.events)
}

fn content_lines(bytes: &[u8]) -> Option<Vec<Line>> {
    let mut lines = Vec::new();
    let mut start = 0;
    let breaks = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    for (number, end) in (1..).zip(breaks) {
        let line = &bytes[start..end];
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        if indent < line.len() && line[indent] != b'#' {
            // Document markers the splitter left (`...` lines are ends of documents or errors to
            // saphyr), or `---x` and `...x` keys.
            if indent == 0 && (line.starts_with(b"...") || (number > 1 && line.starts_with(b"---")))
            {
                return None;
            }
            lines.push(Line {
                start,
                indent,
                end,
                number,
            });
        }
        start = end + 1;
    }
    Some(lines)
}

/// Whether `at` starts a block sequence entry: `-` followed by a space or the line's end.
fn is_entry(bytes: &[u8], at: usize, end: usize) -> bool {
    bytes[at] == b'-' && (at + 1 == end || bytes[at + 1] == b' ')
}

/// Whether a plain scalar may start at `at`: not an indicator, except `-` before a non-space
/// (`-1`, `--flag`). `?` and `:` starts are left to saphyr.
fn plain_start(bytes: &[u8], at: usize, end: usize) -> bool {
    match bytes[at] {
        b'-' => at + 1 < end && bytes[at + 1] != b' ',
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => false,
        _ => true,
    }
}

fn mark(line: Line, index: usize) -> Marker {
    Marker::new(index, line.number, index - line.start)
}

/// An empty span at `index`, as saphyr marks block collections and empty scalars.
fn point(line: Line, index: usize) -> Span {
    let mark = mark(line, index);
    Span::new(mark, mark)
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    lines: Vec<Line>,
    /// The line being read.
    current: usize,
    events: Vec<(Event<'a>, Span)>,
    max_depth: usize,
}

impl<'a> Scanner<'a> {
    fn push(&mut self, event: Event<'a>, span: Span) {
        self.events.push((event, span));
    }

    fn line(&self) -> Option<Line> {
        self.lines.get(self.current).copied()
    }

    fn document(&mut self) -> Option<()> {
        let first = self.line()?;
        let origin = Span::new(Marker::new(0, 1, 0), Marker::new(0, 1, 0));
        if self.bytes.starts_with(b"---") {
            // Only a bare marker line; `--- value` and `--- # comment` go to saphyr.
            if first.number != 1 || self.bytes[3..first.end].iter().any(|&b| b != b' ') {
                return None;
            }
            self.push(Event::DocumentStart(true), origin);
            self.current += 1;
        } else {
            self.push(Event::DocumentStart(false), origin);
        }
        let root = self.line()?;
        if root.indent != 0 {
            return None;
        }
        self.block_node(0)?;
        (self.current == self.lines.len()).then_some(())
    }

    /// A block mapping or sequence starting on the current line.
    fn block_node(&mut self, depth: usize) -> Option<()> {
        let line = self.line()?;
        if is_entry(self.bytes, line.content(), line.end) {
            self.sequence(line.indent, false, depth)
        } else {
            self.mapping(line.indent, line.content(), depth)
        }
    }

    /// A block mapping whose keys stand at column `indent`; the first key starts at byte `at` of
    /// the current line (after `- ` for a mapping in a sequence entry).
    fn mapping(&mut self, indent: usize, at: usize, depth: usize) -> Option<()> {
        if depth >= self.max_depth {
            return None;
        }
        let line = self.line()?;
        let start = point(line, at);
        self.push(Event::MappingStart(0, None), start);
        let mut at = at;
        loop {
            let line = self.line()?;
            let colon = self.key(line, at)?;
            self.value_after(line, colon, indent, depth)?;
            match self.line() {
                Some(next) if next.indent == indent => {
                    if is_entry(self.bytes, next.content(), next.end) {
                        return None;
                    }
                    at = next.content();
                }
                Some(next) if next.indent > indent => return None,
                _ => break,
            }
        }
        self.push(Event::MappingEnd, start);
        Some(())
    }

    /// A block sequence whose `-` stand at column `indent`. An indentless sequence (the value
    /// of a mapping key at the key's own column) starts at its first entry's content, as saphyr
    /// marks it, and ends at the next key.
    fn sequence(&mut self, indent: usize, indentless: bool, depth: usize) -> Option<()> {
        if depth >= self.max_depth {
            return None;
        }
        let line = self.line()?;
        let first = self.entry_content(line)?;
        let start = point(line, if indentless { first } else { line.content() });
        self.push(Event::SequenceStart(0, None), start);
        loop {
            let line = self.line()?;
            let at = self.entry_content(line)?;
            if is_entry(self.bytes, at, line.end) {
                return None;
            }
            if self.key_end(line, at).is_some() {
                self.mapping(at - line.start, at, depth + 1)?;
            } else {
                self.inline_value(line, at, indent)?;
            }
            match self.line() {
                Some(next) if next.indent == indent => {
                    if !is_entry(self.bytes, next.content(), next.end) {
                        if indentless {
                            break;
                        }
                        return None;
                    }
                }
                Some(next) if next.indent > indent => return None,
                _ => break,
            }
        }
        self.push(Event::SequenceEnd, start);
        Some(())
    }

    /// Where the content of the sequence entry on `line` starts; `None` when it is empty (a
    /// node on the next lines) or only a comment.
    fn entry_content(&self, line: Line) -> Option<usize> {
        let mut at = line.content() + 1;
        while at < line.end && self.bytes[at] == b' ' {
            at += 1;
        }
        (at < line.end && self.bytes[at] != b'#').then_some(at)
    }

    /// The colon after a key starting at `at`, for a plain key or a quoted one without escapes.
    fn key_end(&self, line: Line, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let colon = match bytes[at] {
            quote @ (b'"' | b'\'') => self.closing_quote(line, at, quote)? + 1,
            _ if !plain_start(bytes, at, line.end) => return None,
            _ => {
                let mut i = at;
                loop {
                    if i == line.end {
                        return None;
                    }
                    match bytes[i] {
                        b':' if i + 1 == line.end || bytes[i + 1] == b' ' => break i,
                        b'#' if bytes[i - 1] == b' ' => return None,
                        _ => i += 1,
                    }
                }
            }
        };
        // saphyr gives up on a simple key whose `:` lies more than 1024 characters after its
        // start, and then refuses the `:`.
        let valid = colon < line.end
            && colon - at <= MAX_KEY_LENGTH
            && bytes[colon] == b':'
            && bytes[colon - 1] != b' '
            && (colon + 1 == line.end || bytes[colon + 1] == b' ');
        valid.then_some(colon)
    }

    /// Pushes the key starting at `at` and returns the byte index of its colon.
    fn key(&mut self, line: Line, at: usize) -> Option<usize> {
        let colon = self.key_end(line, at)?;
        let event = match self.bytes[at] {
            b'"' => (&self.text[at + 1..colon - 1], ScalarStyle::DoubleQuoted),
            b'\'' => (&self.text[at + 1..colon - 1], ScalarStyle::SingleQuoted),
            _ => (&self.text[at..colon], ScalarStyle::Plain),
        };
        let span = Span::new(mark(line, at), mark(line, colon));
        self.push(
            Event::Scalar(Cow::Borrowed(event.0), event.1, 0, None),
            span,
        );
        Some(colon)
    }

    /// The value of a mapping entry whose colon is at `colon`: on the same line, or a block node
    /// on the next lines, or an empty scalar. Moves past the lines it reads.
    fn value_after(&mut self, line: Line, colon: usize, indent: usize, depth: usize) -> Option<()> {
        let mut at = colon + 1;
        while at < line.end && self.bytes[at] == b' ' {
            at += 1;
        }
        if at < line.end && self.bytes[at] != b'#' {
            // A deeper line next continues a plain scalar, or is an error: the mapping leaves
            // it to saphyr.
            return self.inline_value(line, at, indent);
        }
        self.current += 1;
        match self.line() {
            Some(next) if next.indent > indent => self.block_node(depth + 1),
            Some(next)
                if next.indent == indent && is_entry(self.bytes, next.content(), next.end) =>
            {
                self.sequence(indent, true, depth + 1)
            }
            _ => {
                let empty = point(line, colon);
                self.push(
                    Event::Scalar(Cow::Borrowed(""), ScalarStyle::Plain, 0, None),
                    empty,
                );
                Some(())
            }
        }
    }

    /// A scalar, `{}` or `[]` starting at `at` and ending its line (before a comment), or a
    /// literal block scalar of the collection at column `indent`. Moves past the lines it reads.
    fn inline_value(&mut self, line: Line, at: usize, indent: usize) -> Option<()> {
        let bytes = self.bytes;
        match bytes[at] {
            b'|' => return self.literal(line, at, indent),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                // Like a quoted scalar, the collection ends at the line break.
                if at + 1 == line.end
                    || bytes[at + 1] != close
                    || line.end == bytes.len()
                    || !self.only_comment(line, at + 2)
                {
                    return None;
                }
                let (start, end) = if open == b'{' {
                    (Event::MappingStart(0, None), Event::MappingEnd)
                } else {
                    (Event::SequenceStart(0, None), Event::SequenceEnd)
                };
                let (a, b, c) = (mark(line, at), mark(line, at + 1), mark(line, line.end));
                self.push(start, Span::new(a, b));
                self.push(end, Span::new(b, c));
            }
            quote @ (b'"' | b'\'') => {
                let closing = self.closing_quote(line, at, quote)?;
                // saphyr ends a quoted scalar where it stopped skipping blanks and comments: at
                // the line break. A last line without one is left to it.
                if line.end == bytes.len() || !self.only_comment(line, closing + 1) {
                    return None;
                }
                let style = if quote == b'"' {
                    ScalarStyle::DoubleQuoted
                } else {
                    ScalarStyle::SingleQuoted
                };
                let span = Span::new(mark(line, at), mark(line, line.end));
                let text = Cow::Borrowed(&self.text[at + 1..closing]);
                self.push(Event::Scalar(text, style, 0, None), span);
            }
            _ if !plain_start(bytes, at, line.end) => return None,
            _ => {
                let mut end = at;
                let mut i = at;
                while i < line.end {
                    match bytes[i] {
                        b'#' if bytes[i - 1] == b' ' => break,
                        b':' if i + 1 == line.end || bytes[i + 1] == b' ' => return None,
                        b' ' => {}
                        _ => end = i + 1,
                    }
                    i += 1;
                }
                let span = Span::new(mark(line, at), mark(line, end));
                let text = Cow::Borrowed(&self.text[at..end]);
                self.push(Event::Scalar(text, ScalarStyle::Plain, 0, None), span);
            }
        }
        self.current += 1;
        Some(())
    }

    /// A literal block scalar (`|` or `|-`) whose header is at `at`, in a collection at column
    /// `indent`. saphyr marks it from its first content character to the start of the first line
    /// after it (trailing blank lines included). Leading blank lines, `|+`, indentation
    /// indicators, and a last line without a line break are left to saphyr.
    fn literal(&mut self, line: Line, at: usize, indent: usize) -> Option<()> {
        let bytes = self.bytes;
        let strip = bytes.get(at + 1) == Some(&b'-');
        let header_end = at + 1 + usize::from(strip);
        if line.end == bytes.len() || !self.only_comment(line, header_end) {
            return None;
        }
        let mut text = String::new();
        let mut content_indent = None;
        let mut start = None;
        let mut blank_lines = 0;
        let mut position = line.end + 1;
        let mut number = line.number + 1;
        while position < bytes.len() {
            let end =
                memchr::memchr(b'\n', &bytes[position..]).map_or(bytes.len(), |i| position + i);
            let raw = &bytes[position..end];
            let spaces = raw.iter().take_while(|&&b| b == b' ').count();
            if spaces == raw.len() {
                match content_indent {
                    Some(content) if spaces <= content && end < bytes.len() => blank_lines += 1,
                    _ => return None,
                }
            } else {
                // go-yaml refuses a tab where the indentation is still being counted; saphyr
                // reads it as content, and the builder reports it.
                if content_indent.is_none() && raw.get(spaces) == Some(&b'\t') {
                    return None;
                }
                let content = *content_indent.get_or_insert(spaces);
                if spaces < content {
                    break;
                }
                if content <= indent || end == bytes.len() {
                    return None;
                }
                let first = position + content;
                start.get_or_insert(Marker::new(first, number, content));
                text.extend(std::iter::repeat_n('\n', blank_lines));
                blank_lines = 0;
                text.push_str(&self.text[first..end]);
                text.push('\n');
            }
            position = end + 1;
            number += 1;
        }
        let start = start?;
        if strip {
            text.pop();
        }
        let span = Span::new(start, Marker::new(position, number, 0));
        self.push(
            Event::Scalar(Cow::Owned(text), ScalarStyle::Literal, 0, None),
            span,
        );
        while self.line().is_some_and(|next| next.start < position) {
            self.current += 1;
        }
        Some(())
    }

    /// Whether only blanks, then a comment or nothing, follow `from` on `line`.
    fn only_comment(&self, line: Line, from: usize) -> bool {
        let mut i = from;
        while i < line.end && self.bytes[i] == b' ' {
            i += 1;
        }
        i == line.end || (self.bytes[i] == b'#' && i > from)
    }

    /// The closing quote of a quoted scalar opening at `at` on the same line, for a scalar
    /// without escapes (`\` in double quotes, `''` in single quotes).
    fn closing_quote(&self, line: Line, at: usize, quote: u8) -> Option<usize> {
        let inner = &self.bytes[at + 1..line.end];
        let closing = at + 1 + memchr::memchr(quote, inner)?;
        let escaped = if quote == b'"' {
            memchr::memchr(b'\\', &self.bytes[at + 1..closing]).is_some()
        } else {
            self.bytes.get(closing + 1) == Some(&b'\'')
        };
        (!escaped).then_some(closing)
    }
}
