//! Documents whose top-level node is a flow collection (every JSON file).
//!
//! The scanner treats a flow collection that starts in block context as a possible mapping key
//! (`[a, b]: value`) and, inside flow context, never gives up on it: it tokenizes the whole
//! collection before it emits its first event, so a 28 MB JSON array was held as tokens
//! (about 300 bytes an element) before the node limit could refuse it. After a `---` marker on
//! the same line no key may start, so the collection is parsed with `--- ` put in front of it
//! and the events stream; their positions are moved back onto the document's own text. A `---`
//! line of its own before the collection is read as blanks, the marker then standing on the
//! collection's line.

use saphyr_parser::{Event, Marker, Parser, ScanError, Span as ParserSpan};

const MARKER: &str = "--- ";
/// `MARKER`'s length in characters.
const SHIFT: usize = MARKER.len();

/// A document whose first content (after blank and comment lines, and an explicit `---` line
/// with nothing but a comment after it) is a flow collection in column 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TopFlow {
    /// Byte offset of the collection.
    pub at: usize,
    /// Byte offset of the `---` line before it.
    pub marker: Option<usize>,
}

/// Where the flow collection at the top of `text` starts, if its first content is one.
pub(super) fn start(text: &str) -> Option<TopFlow> {
    let mut offset = 0;
    let mut marker = None;
    for line in text.split_inclusive('\n') {
        let content = line.trim_start_matches([' ', '\t', '\r', '\n']);
        if content.is_empty() || content.starts_with('#') {
            offset += line.len();
            continue;
        }
        // A bare CR also ends a line: the first content must not hide after one.
        let before = &line[..line.len() - content.len()];
        if marker.is_none() && before.is_empty() && is_bare_marker(line) {
            marker = Some(offset);
            offset += line.len();
            continue;
        }
        return (before.is_empty() && content.starts_with(['[', '{']))
            .then_some(TopFlow { at: offset, marker });
    }
    None
}

/// A `---` line with at most a comment after it (a node on that line starts the document).
fn is_bare_marker(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("---") else {
        return false;
    };
    let rest = rest.strip_suffix('\n').unwrap_or(rest);
    let rest = rest.strip_suffix('\r').unwrap_or(rest);
    // A bare CR would end the line early.
    if rest.contains('\r') {
        return false;
    }
    let after = rest.trim_start_matches([' ', '\t']);
    after.is_empty() || (after.starts_with('#') && after.len() < rest.len())
}

/// Positions in the marked text moved back to the document's text.
#[derive(Clone, Copy)]
struct Shift {
    /// Character index of the inserted marker.
    at: usize,
    /// Character index (in the marked text) of the end of the marker's line.
    line_end: usize,
}

impl Shift {
    fn new(text: &str, at: usize) -> Self {
        let at_chars = text[..at].chars().count();
        let line_chars = text[at..]
            .chars()
            .take_while(|c| !matches!(c, '\n' | '\r'))
            .count();
        Self {
            at: at_chars,
            line_end: at_chars + SHIFT + line_chars,
        }
    }

    fn marker(self, marker: Marker) -> Marker {
        let index = marker.index();
        if index < self.at {
            return marker;
        }
        if index < self.at + SHIFT {
            return Marker::new(self.at, marker.line(), 0);
        }
        let col = if index <= self.line_end {
            marker.col().saturating_sub(SHIFT)
        } else {
            marker.col()
        };
        Marker::new(index - SHIFT, marker.line(), col)
    }

    fn span(self, span: ParserSpan) -> ParserSpan {
        ParserSpan::new(self.marker(span.start), self.marker(span.end))
    }
}

/// The parser's events over `text` with the marker put in front of the flow collection
/// (read through, not copied), at the positions of `text`. An explicit `---` line before it is
/// read as blanks: the marker moves onto the collection's line (the document start's own span,
/// which nothing uses, is then that of the collection's line).
pub(super) fn events(
    text: &str,
    top: TopFlow,
) -> impl Iterator<Item = Result<(Event<'_>, ParserSpan), ScanError>> {
    let at = top.at;
    let shift = Shift::new(text, at);
    let (head, blanked) = match top.marker {
        Some(marker) => (&text[..marker], &text[marker + "---".len()..at]),
        None => (&text[..at], ""),
    };
    let blanks = if top.marker.is_some() { "   " } else { "" };
    let marked = head
        .chars()
        .chain(blanks.chars())
        .chain(blanked.chars())
        .chain(MARKER.chars())
        .chain(text[at..].chars());
    Parser::new_from_iter(marked).map(move |event| match event {
        Ok((event, span)) => Ok((event, shift.span(span))),
        Err(err) => Err(ScanError::new(
            shift.marker(*err.marker()),
            err.info().to_owned(),
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events after the document start, with their spans.
    fn after_start<'t>(
        events: impl Iterator<Item = Result<(Event<'t>, ParserSpan), ScanError>>,
    ) -> Result<Vec<(Event<'t>, ParserSpan)>, (String, Marker)> {
        let mut out = Vec::new();
        let mut started = false;
        for event in events {
            let (event, span) = event.map_err(|err| (err.info().to_owned(), *err.marker()))?;
            if started {
                out.push((event, span));
            } else {
                started = matches!(event, Event::DocumentStart(_));
            }
        }
        Ok(out)
    }

    #[test]
    fn finds_flow_collections_at_the_top() {
        let at = |at: usize| Some(TopFlow { at, marker: None });
        let after = |marker: usize, at: usize| {
            Some(TopFlow {
                at,
                marker: Some(marker),
            })
        };
        assert_eq!(start("[1, 2]\n"), at(0));
        assert_eq!(start("# c\n\n  \n{\"a\": 1}"), at(8));
        assert_eq!(start("  [1]\n"), None);
        assert_eq!(start("---\n[1]\n"), after(0, 4));
        assert_eq!(start("# c\n--- # d\r\n\n[1]\n"), after(4, 14));
        assert_eq!(start("---\n---\n[1]\n"), None);
        assert_eq!(start("--- !t\n[1]\n"), None);
        assert_eq!(start("---x\n[1]\n"), None);
        assert_eq!(start("--- [1]\n"), None);
        assert_eq!(start("a: [1]\n"), None);
        assert_eq!(start("\r[1]"), None);
        assert_eq!(start("---\r[1]"), None);
        assert_eq!(start("# only a comment\n"), None);
    }

    /// The marked text yields the events and positions of the text as written.
    #[test]
    fn events_keep_the_positions_of_the_text() {
        for text in [
            "[1, 2, 3]\n",
            "# lead\n\n{\"a\": [1, {\"b\": \"ü\"}],\n \"c\": null}\n# tail\n",
            "[\n  \"x\",\n  {\"k\": \"v\"}\n]",
            "{a: 1, b: [2, 3]}\n",
            "[1, 2",
            "[1, }",
            "---\n[1, 2, 3]\n",
            "# lead\n--- # c\n\n{\"a\": [1, {\"b\": \"ü\"}],\n \"c\": null}\n",
            "---\t\r\n[\n  \"x\"\n]",
            "---\n[1, }",
        ] {
            let top = start(text).unwrap();
            assert_eq!(
                after_start(events(text, top)),
                after_start(Parser::new_from_str(text)),
                "{text:?}"
            );
        }
    }

    /// A million-element array streams: the first event comes before the scanner has read
    /// the rest (it used to tokenize all of it first).
    #[test]
    fn the_first_elements_come_before_the_end_is_read() {
        let text = format!("[{}0]", "0,".repeat(1_000_000));
        let read = std::cell::Cell::new(0usize);
        let counted = text[..].chars().inspect(|_| read.set(read.get() + 1));
        let mut parser = Parser::new_from_iter(MARKER.chars().chain(counted));
        let first_scalar = parser
            .find(|event| matches!(event, Ok((Event::Scalar(..), _))))
            .is_some();
        assert!(first_scalar);
        assert!(read.get() < 10_000, "read {} characters", read.get());
    }
}
