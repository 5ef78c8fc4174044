//! YAML that sits inside a string scalar of another YAML file (an inline `patch: |` of a
//! kustomization), parsed so that its positions are positions in the outer file.
//!
//! The scalar's value (what Kustomize parses) is parsed as it is; each position in it is then
//! carried back to the character of the outer file it came from. A literal (`|`) or folded
//! (`>`) block scalar maps line for line, its indentation added to the column; a single-line
//! plain or quoted scalar without escapes maps character for character. Any other scalar (a
//! multi-line quoted or plain scalar, escapes) puts every position at the scalar itself.

use super::build::{Document, DocumentError, Limits, Notice, NoticeKind, parse_stream};
use super::node::{Node, Pos, Span, Value};

/// How exactly the positions of an [`Embedded`] text point into the outer file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Every position is the outer file's character that the embedded character came from.
    Exact,
    /// The scalar could not be mapped character for character: every span is the whole
    /// scalar's span and every position its start.
    Scalar,
}

/// The documents of a YAML text embedded in a scalar, with spans in the outer file.
#[derive(Clone, Debug)]
pub struct Embedded {
    pub documents: Vec<Result<Document, DocumentError>>,
    pub placement: Placement,
}

/// Parses the string value of `scalar`, a node of the document parsed from `outer` (the whole
/// file), as a YAML stream. `None` when the node is not a string. To parse several scalars of
/// one file, build its [`OuterText`] once.
pub fn parse_embedded(outer: &str, scalar: &Node, limits: Limits) -> Option<Embedded> {
    OuterText::new(outer).parse(scalar, limits)
}

/// A file whose string scalars hold YAML, with where each of its lines starts.
pub struct OuterText<'a> {
    text: &'a str,
    /// Byte offset and character index of the start of each line.
    lines: Vec<(usize, u32)>,
    /// Whether the text has a carriage return that is not part of a CRLF, which the parser
    /// counts as a line break and the lines here do not.
    bare_cr: bool,
}

impl<'a> OuterText<'a> {
    pub fn new(text: &'a str) -> Self {
        // The parser drops a leading byte order mark; its positions count from after it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = vec![(0, 0)];
        let mut chars = 0u32;
        let mut bare_cr = false;
        let mut previous = '\0';
        for (byte, c) in text.char_indices() {
            if previous == '\r' && c != '\n' {
                bare_cr = true;
            }
            chars = chars.saturating_add(1);
            if c == '\n' {
                lines.push((byte + 1, chars));
            }
            previous = c;
        }
        bare_cr |= previous == '\r';
        Self {
            text,
            lines,
            bare_cr,
        }
    }

    /// Parses the string value of `scalar`, a node of the document parsed from this text, as
    /// a YAML stream. `None` when the node is not a string.
    pub fn parse(&self, scalar: &Node, limits: Limits) -> Option<Embedded> {
        let Value::Str(content) = &scalar.value else {
            return None;
        };
        let map = PositionMap::new(self, scalar.span, content);
        // `parse_stream` drops a leading byte order mark; its indices count from after it.
        let skipped = u32::from(content.starts_with('\u{feff}'));
        let documents = parse_stream(content, limits)
            .into_iter()
            .map(|document| match document {
                Ok(document) => Ok(Document {
                    root: map.node(document.root, skipped),
                    notices: document
                        .notices
                        .into_iter()
                        .map(|notice| map.notice(notice, skipped))
                        .collect(),
                }),
                Err(error) => Err(DocumentError {
                    message: error.message,
                    pos: map.pos(error.pos, skipped),
                }),
            })
            .collect();
        Some(Embedded {
            documents,
            placement: map.placement(),
        })
    }

    /// The 1-based line `number`, without its line break.
    fn line(&self, number: u32) -> Option<Line<'a>> {
        let at = usize::try_from(number.checked_sub(1)?).ok()?;
        let &(start, index) = self.lines.get(at)?;
        let end = self
            .lines
            .get(at + 1)
            .map_or(self.text.len(), |&(next, _)| next);
        let raw = self.text.get(start..end)?;
        let text = raw.strip_suffix('\n').unwrap_or(raw);
        let text = text.strip_suffix('\r').unwrap_or(text);
        Some(Line {
            number,
            index,
            text,
        })
    }
}

/// A run of the scalar's value that stands on one line of the outer file: the value's
/// characters `value_start..value_start + len` are the outer characters from `at` on. The
/// character just after the run (the line break or the space a fold made of it) maps to the
/// end of that line.
#[derive(Clone, Copy, Debug)]
struct Run {
    value_start: u32,
    len: u32,
    at: Pos,
}

enum PositionMap {
    Runs { runs: Vec<Run>, end: Pos },
    Scalar(Span),
}

impl PositionMap {
    fn new(outer: &OuterText<'_>, span: Span, content: &str) -> Self {
        match runs(outer, span, content) {
            Some(runs) if !runs.is_empty() => Self::Runs {
                runs,
                end: span.end,
            },
            _ => Self::Scalar(span),
        }
    }

    fn placement(&self) -> Placement {
        match self {
            Self::Runs { .. } => Placement::Exact,
            Self::Scalar(_) => Placement::Scalar,
        }
    }

    fn pos(&self, pos: Pos, skipped: u32) -> Pos {
        match self {
            Self::Scalar(span) => span.start,
            Self::Runs { runs, end } => {
                let index = pos.index.saturating_add(skipped);
                let at = runs.partition_point(|run| run.value_start <= index);
                let Some(run) = at.checked_sub(1).and_then(|at| runs.get(at)) else {
                    return runs.first().map_or(*end, |run| run.at);
                };
                let offset = index - run.value_start;
                if offset > run.len && at == runs.len() {
                    return *end;
                }
                let offset = offset.min(run.len);
                Pos {
                    line: run.at.line,
                    column: run.at.column.saturating_add(offset),
                    index: run.at.index.saturating_add(offset),
                }
            }
        }
    }

    fn span(&self, span: Span, skipped: u32) -> Span {
        match self {
            Self::Scalar(whole) => *whole,
            Self::Runs { .. } => Span {
                start: self.pos(span.start, skipped),
                end: self.pos(span.end, skipped),
            },
        }
    }

    fn node(&self, node: Node, skipped: u32) -> Node {
        let span = self.span(node.span, skipped);
        let value = match node.value {
            Value::Seq(items) => Value::Seq(
                items
                    .into_iter()
                    .map(|item| self.node(item, skipped))
                    .collect(),
            ),
            Value::Map(entries) => Value::Map(
                entries
                    .into_vec()
                    .into_iter()
                    .map(|mut entry| {
                        entry.key_span = self.span(entry.key_span, skipped);
                        entry.value = self.node(entry.value, skipped);
                        entry
                    })
                    .collect::<Vec<_>>()
                    .into(),
            ),
            scalar => scalar,
        };
        Node { value, span }
    }

    fn notice(&self, notice: Notice, skipped: u32) -> Notice {
        let kind = match notice.kind {
            NoticeKind::DuplicateKey { key, first } => NoticeKind::DuplicateKey {
                key,
                first: self.span(first, skipped),
            },
            other => other,
        };
        Notice {
            span: self.span(notice.span, skipped),
            kind,
        }
    }
}

/// One line of the outer file: its 1-based number, the index of its first character, and its
/// text without the line break.
#[derive(Clone, Copy)]
struct Line<'a> {
    number: u32,
    index: u32,
    text: &'a str,
}

impl Line<'_> {
    fn chars(&self) -> u32 {
        count(self.text)
    }

    /// The position `column` characters into the line (0-based).
    fn at(&self, column: u32) -> Pos {
        Pos {
            line: self.number,
            column: column + 1,
            index: self.index + column,
        }
    }

    /// The text from the 0-based character `column` on.
    fn rest_from(&self, column: u32) -> &str {
        let byte = self
            .text
            .char_indices()
            .nth(column as usize)
            .map_or(self.text.len(), |(byte, _)| byte);
        &self.text[byte..]
    }

    fn is_blank(&self) -> bool {
        self.text.chars().all(|c| c == ' ' || c == '\t')
    }
}

fn count(text: &str) -> u32 {
    let chars = text.chars().count();
    #[cfg(test)]
    CHARS_COUNTED.with(|counted| counted.set(counted.get() + chars as u64));
    u32::try_from(chars).unwrap_or(u32::MAX)
}

#[cfg(test)]
thread_local! {
    /// Characters counted on this thread: tests bound the mapping's cost with it, which does not
    /// depend on the machine's load as a time does.
    static CHARS_COUNTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The runs that carry the value's characters back to `outer`, or `None` when the scalar
/// cannot be mapped character for character.
fn runs(outer: &OuterText<'_>, span: Span, content: &str) -> Option<Vec<Run>> {
    if outer.bare_cr {
        return None;
    }
    let column = span.start.column.checked_sub(1)?;
    let first = outer.line(span.start.line)?;
    if first.index.checked_add(column)? != span.start.index {
        return None;
    }
    let at_start = first.rest_from(column);
    // A block scalar's span starts at its tag or anchor on the header line, else at its first
    // content character, after the header line and any empty lines.
    let header = if at_start.starts_with(['!', '&']) {
        Some(first)
    } else if first.text[..first.text.len() - at_start.len()]
        .chars()
        .all(|c| c == ' ')
    {
        (1..span.start.line)
            .rev()
            .map(|number| outer.line(number))
            .find(|line| line.is_none_or(|line| !line.is_blank()))
            .flatten()
    } else {
        None
    };
    if let Some(header) = header
        && let Some(folded) = block_indicator(header.text)
    {
        let body = ((header.number + 1)..=span.end.line)
            .map(|number| outer.line(number))
            .collect::<Option<Vec<_>>>()?;
        return block_runs(&body, folded, span, content);
    }
    if span.start.line == span.end.line {
        return single_line_runs(&first, span, content);
    }
    None
}

/// Whether a header line ends with a block scalar indicator (comment aside): `Some(true)` for
/// folded (`>`), `Some(false)` for literal (`|`), with optional chomping and indentation
/// indicators.
fn block_indicator(header: &str) -> Option<bool> {
    let code = match header.find(" #").or_else(|| header.find("\t#")) {
        Some(at) => &header[..at],
        None => header,
    };
    let token = code.trim_end().rsplit([' ', '\t']).next()?;
    let mut chars = token.chars();
    let folded = match chars.next()? {
        '>' => true,
        '|' => false,
        _ => return None,
    };
    let rest = chars.as_str();
    let valid = rest.len() <= 2
        && rest.chars().all(|c| matches!(c, '1'..='9' | '+' | '-'))
        && rest.chars().filter(char::is_ascii_digit).count() <= 1
        && rest.chars().filter(|c| matches!(c, '+' | '-')).count() <= 1;
    valid.then_some(folded)
}

fn single_line_runs(line: &Line<'_>, span: Span, content: &str) -> Option<Vec<Run>> {
    let width = span.end.column.checked_sub(span.start.column)? as usize;
    let text: String = line
        .rest_from(span.start.column.saturating_sub(1))
        .chars()
        .take(width)
        .collect();
    let inner = match text.chars().next() {
        Some(quote @ ('"' | '\'')) => text
            .strip_prefix(quote)
            .and_then(|text| text.strip_suffix(quote))?,
        _ => text.as_str(),
    };
    if inner != content {
        return None;
    }
    let skip = u32::from(inner.len() != text.len());
    Some(vec![Run {
        value_start: 0,
        len: count(content),
        at: Pos {
            line: span.start.line,
            column: span.start.column + skip,
            index: span.start.index + skip,
        },
    }])
}

/// Rebuilds the value of a literal or folded block scalar from its lines (`body`, after the
/// header), with the run of each line, and keeps the runs only when the rebuilt text is the
/// parser's value (so an unusual scalar falls back instead of pointing at wrong characters).
fn block_runs(body: &[Line<'_>], folded: bool, span: Span, content: &str) -> Option<Vec<Run>> {
    let indent = indentation(body, content)?;
    let mut value = Rebuilt::default();
    let mut runs = Vec::new();
    let mut previous_text: Option<bool> = None;
    let mut empties: Vec<&Line<'_>> = Vec::new();
    for line in body {
        if line.text.chars().all(|c| c == ' ') && line.chars() <= indent {
            empties.push(line);
            continue;
        }
        if line.text.chars().take(indent as usize).any(|c| c != ' ') {
            return None;
        }
        let rest = line.rest_from(indent);
        // Folding joins two lines of text that start at the block's indentation.
        let is_text = !rest.starts_with([' ', '\t']);
        let folds = folded && is_text && previous_text == Some(true);
        match previous_text {
            Some(_) if folds && empties.is_empty() => value.push(" "),
            Some(_) if folds => {}
            Some(_) => value.push("\n"),
            None => {}
        }
        for empty in empties.drain(..) {
            runs.push(Run {
                value_start: value.chars,
                len: 0,
                at: empty.at(empty.chars()),
            });
            value.push("\n");
        }
        runs.push(Run {
            value_start: value.chars,
            len: count(rest),
            at: line.at(indent),
        });
        value.push(rest);
        previous_text = Some(is_text);
    }
    let tail = content.strip_prefix(value.text.as_str())?;
    if !tail.chars().all(|c| c == '\n') || span.end.line != body.last()?.number {
        return None;
    }
    Some(runs)
}

/// A block scalar's value as rebuilt so far, with its length in characters.
#[derive(Default)]
struct Rebuilt {
    text: String,
    chars: u32,
}

impl Rebuilt {
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
        self.chars = self.chars.saturating_add(count(text));
    }
}

/// The block's indentation: the first non-blank line's leading spaces less those the value
/// keeps at its start (an explicit indentation indicator can leave some).
fn indentation(body: &[Line<'_>], content: &str) -> Option<u32> {
    let first = body
        .iter()
        .find(|line| line.text.chars().any(|c| c != ' '))?;
    let leading = count(&first.text[..first.text.len() - first.text.trim_start_matches(' ').len()]);
    let kept = content.trim_start_matches('\n');
    let kept = count(&kept[..kept.len() - kept.trim_start_matches(' ').len()]);
    leading.checked_sub(kept)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;

    use crate::yaml::first_root as root;

    /// The embedded documents of the value at `key` of the outer text's root.
    /// The embedded documents of the scalar at `path` (Kubernetes notation) of the outer text.
    fn parse_at(outer: &str, path: &str) -> Embedded {
        let root = root(outer);
        let (scalar, found) = root.lookup(&super::super::FieldPath::parse(path));
        assert!(found, "{path} in {outer:?}");
        parse_embedded(outer, scalar, Limits::default()).expect("a string")
    }

    fn start(node: &Node) -> (u32, u32, u32) {
        let pos = node.span.start;
        (pos.line, pos.column, pos.index)
    }

    fn end(node: &Node) -> (u32, u32, u32) {
        let pos = node.span.end;
        (pos.line, pos.column, pos.index)
    }

    /// The character at a position of the outer text.
    fn char_at(text: &str, pos: (u32, u32, u32)) -> char {
        text.chars().nth(pos.2 as usize).expect("inside the text")
    }

    /// A scalar embedded in a block or quoted scalar of an outer file, and where it lies there.
    struct BlockCase {
        name: &'static str,
        outer: &'static str,
        /// Field path in the embedded document (dotted keys, `#N` items).
        path: &'static [&'static str],
        start: (u32, u32, u32),
        end: (u32, u32, u32),
    }

    const KUSTOMIZATION: &str = "\
patches:
  - target:
      kind: VirtualMachine
    patch: |
      - op: replace
        path: /spec/runStrategy
        value: Halted
";

    fn block_scalar_cases() -> Vec<BlockCase> {
        vec![
            BlockCase {
                name: "literal, in a list item",
                outer: KUSTOMIZATION,
                path: &["#0", "value"],
                start: (7, 16, 128),
                end: (7, 22, 134),
            },
            BlockCase {
                name: "literal, the op",
                outer: KUSTOMIZATION,
                path: &["#0", "op"],
                start: (5, 13, 73),
                end: (5, 20, 80),
            },
            BlockCase {
                name: "strip chomping and a comment on the header",
                outer: "patch: |- # the size\n  spec:\n    size: large\nnext: 1\n",
                path: &["spec", "size"],
                start: (3, 11, 39),
                end: (3, 16, 44),
            },
            BlockCase {
                name: "keep chomping, empty lines inside",
                outer: "patch: |+\n  a: 1\n\n\n  b: x\n\nz: 0\n",
                path: &["b"],
                start: (5, 6, 24),
                end: (5, 7, 25),
            },
            BlockCase {
                name: "explicit indentation indicator keeps leading spaces",
                outer: "patch: |4\n      - x\n      - y\n",
                path: &["#1"],
                start: (3, 9, 28),
                end: (3, 10, 29),
            },
            BlockCase {
                name: "folded, lines kept apart by more-indented lines",
                outer: "patch: >\n  a:\n    b: 1\n    c: 2\n",
                path: &["a", "c"],
                start: (4, 8, 30),
                end: (4, 9, 31),
            },
            BlockCase {
                name: "folded, an empty line is a line break",
                outer: "patch: >\n  a: 1\n\n  b: 2\n",
                path: &["b"],
                start: (4, 6, 22),
                end: (4, 7, 23),
            },
            BlockCase {
                name: "CRLF line breaks and non-ASCII text",
                outer: "é: 1\r\npatch: |\r\n  spec:\r\n    näme: wéb\r\n",
                path: &["spec", "näme"],
                start: (4, 11, 35),
                end: (4, 14, 38),
            },
            BlockCase {
                name: "a single-line quoted scalar",
                outer: "patch: '[{op: remove, path: /spec/x}]'\n",
                path: &["#0", "path"],
                start: (1, 29, 28),
                end: (1, 36, 35),
            },
            BlockCase {
                name: "a tag before the indicator",
                outer: "patch: !!str |\n  a: 1\n",
                path: &["a"],
                start: (2, 6, 20),
                end: (2, 7, 21),
            },
            BlockCase {
                name: "an empty line before the first line of text",
                outer: "patch: |\n\n    k: v\n",
                path: &["k"],
                start: (3, 8, 17),
                end: (3, 9, 18),
            },
            BlockCase {
                name: "folded lines folded into one value",
                outer: "patch: >\n  a\n  b\n",
                path: &[],
                start: (2, 3, 11),
                end: (3, 4, 16),
            },
        ]
    }

    /// The embedded node at the case's path lies at the case's place in the outer file.
    fn assert_placed(case: &BlockCase) {
        let scalar = if case.outer == KUSTOMIZATION {
            "patches[0].patch"
        } else {
            "patch"
        };
        let embedded = parse_at(case.outer, scalar);
        assert_eq!(embedded.placement, Placement::Exact, "{}", case.name);
        let document = embedded.documents[0].as_ref().expect("valid YAML");
        let mut node = &document.root;
        for step in case.path {
            node = match step.strip_prefix('#') {
                Some(i) => &node.as_seq().expect("a list")[i.parse::<usize>().unwrap()],
                None => node.get(step).expect("the key"),
            };
        }
        assert_eq!(
            (start(node), end(node)),
            (case.start, case.end),
            "{}",
            case.name
        );
        // The index is the outer file's character index: the value's first character.
        let value_first = match &node.value {
            Value::Str(s) => s.chars().next(),
            Value::Int(i) => i.to_string().chars().next(),
            _ => None,
        };
        if let Some(first) = value_first {
            assert_eq!(char_at(case.outer, case.start), first, "{}", case.name);
        }
    }

    #[test]
    fn block_scalars_map_line_for_line() {
        let cases = block_scalar_cases();
        assert_eq!(cases.len(), 12);
        for case in &cases {
            assert_placed(case);
        }
    }

    #[test]
    fn keys_notices_and_errors_are_placed_in_the_outer_file() {
        let outer = "kind: Kustomization\npatch: |\n  a: 1\n  a: 2\n";
        let embedded = parse_at(outer, "patch");
        let document = embedded.documents[0].as_ref().unwrap();
        let entry = document.root.entry("a").unwrap();
        assert_eq!(
            entry.key_span.start,
            Pos {
                line: 4,
                column: 3,
                index: 38
            }
        );
        let NoticeKind::DuplicateKey { first, .. } = &document.notices[0].kind else {
            panic!("a duplicate key notice: {:?}", document.notices);
        };
        assert_eq!(
            first.start,
            Pos {
                line: 3,
                column: 3,
                index: 31
            }
        );
        assert_eq!(document.notices[0].span.start.line, 4);

        let outer = "patch: |\n  a: [1\n  b: 2\n";
        let embedded = parse_at(outer, "patch");
        let error = embedded.documents[0].as_ref().unwrap_err();
        assert!(error.pos.line >= 2 && error.pos.line <= 3, "{error:?}");
        assert!(error.pos.column >= 3, "{error:?}");
    }

    #[test]
    fn several_documents_in_one_block() {
        let outer = "patch: |\n  a: 1\n  ---\n  b: 2\n";
        let embedded = parse_at(outer, "patch");
        assert_eq!(embedded.documents.len(), 2);
        let b = embedded.documents[1]
            .as_ref()
            .unwrap()
            .root
            .get("b")
            .unwrap();
        assert_eq!(start(b), (4, 6, 27));
    }

    #[test]
    fn scalars_that_cannot_map_fall_back_to_the_scalar() {
        let cases = [
            // A multi-line double-quoted scalar: its line breaks fold.
            "patch: \"[a,\n  b]\"\n",
            // Escapes change the length.
            "patch: \"{a: \\\"x\\\"}\"\n",
            // A multi-line plain scalar.
            "patch: a\n  b\n",
        ];
        for outer in cases {
            let scalar = root(outer).get("patch").unwrap().clone();
            let embedded = parse_at(outer, "patch");
            assert_eq!(embedded.placement, Placement::Scalar, "{outer:?}");
            let document = embedded.documents[0].as_ref().expect("valid YAML");
            assert_eq!(document.root.span, scalar.span, "{outer:?}");
            if let Some(map) = document.root.as_map() {
                for entry in map {
                    assert_eq!(entry.value.span, scalar.span, "{outer:?}");
                    assert_eq!(entry.key_span, scalar.span, "{outer:?}");
                }
            }
            for item in document.root.as_seq().unwrap_or(&[]) {
                assert_eq!(item.span, scalar.span, "{outer:?}");
            }
        }
    }

    #[test]
    fn folded_lines_that_fold_map_to_their_lines() {
        // `a b` is one value made of two lines; each character maps to its own line.
        let outer = "patch: >\n  - a\n    b\n  - c\n";
        let embedded = parse_at(outer, "patch");
        assert_eq!(embedded.placement, Placement::Exact);
        let items = embedded.documents[0].as_ref().unwrap().root.clone();
        let items = items.as_seq().unwrap();
        assert_eq!(items[0].as_str(), Some("a b"));
        assert_eq!(start(&items[1]), (4, 5, 25));
    }

    #[test]
    fn a_span_that_is_not_in_the_text_falls_back_without_panicking() {
        let outer = "patch: |\n  a: 1\n";
        let text = Node {
            value: Value::Str("a: 1\n".to_owned()),
            span: Span::default(),
        };
        let embedded = parse_embedded(outer, &text, Limits::default()).unwrap();
        assert_eq!(embedded.placement, Placement::Scalar);
        for line in 0..5 {
            for column in 0..12 {
                for index in [0, 3, 9, 11, 40, u32::MAX] {
                    let pos = Pos {
                        line,
                        column,
                        index,
                    };
                    let text = Node {
                        value: Value::Str("a: 1\n".to_owned()),
                        span: Span {
                            start: pos,
                            end: Pos {
                                line: line.saturating_add(1),
                                ..pos
                            },
                        },
                    };
                    let embedded = parse_embedded(outer, &text, Limits::default()).unwrap();
                    assert_eq!(embedded.documents.len(), 1);
                }
            }
        }
    }

    #[test]
    fn a_long_block_maps_in_linear_time() {
        let lines = 100_000;
        let outer = (0..lines).fold(String::from("patch: |\n"), |mut outer, i| {
            let _ = writeln!(outer, "  - k{i}");
            outer
        });
        let before = CHARS_COUNTED.with(std::cell::Cell::get);
        let embedded = parse_at(&outer, "patch");
        let counted = CHARS_COUNTED.with(std::cell::Cell::get) - before;
        assert_eq!(embedded.placement, Placement::Exact);
        let root = &embedded.documents[0].as_ref().unwrap().root;
        let last = root.as_seq().unwrap().last().unwrap();
        let line = u32::try_from(lines).unwrap() + 1;
        assert_eq!((last.span.start.line, last.span.start.column), (line, 5));
        assert_eq!(char_at(&outer, start(last)), 'k');
        // Rebuilding the value by counting it again at every line counted 5 * 10^10 characters
        // (minutes); each line is counted a few times.
        let size = outer.chars().count() as u64;
        assert!(
            counted <= 2 * size,
            "{counted} characters counted for {size}"
        );
    }

    #[test]
    fn a_value_that_is_not_a_string_has_no_embedded_text() {
        let outer = "patch: 12\n";
        let root = root(outer);
        assert!(parse_embedded(outer, root.get("patch").unwrap(), Limits::default()).is_none());
    }
}
