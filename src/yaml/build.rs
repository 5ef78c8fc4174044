//! Builds position-keeping documents from parser events.

use std::borrow::Cow;

use foldhash::{HashMap, HashMapExt};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Span as ParserSpan, Tag};

use super::node::{Entry, INDEXED_FROM, KeyIndex, Mapping, Node, Pos, Span, Value};
use super::scalar::{describe, is_plain_string, resolve_plain};
use super::split::{Chunk, split_documents};
use super::{fast, flow_top};

/// Bounds that keep hostile input from exhausting time or memory.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nesting of collections accepted in one document.
    pub max_depth: usize,
    /// Most nodes one document may expand to, aliases included ("billion laughs").
    pub max_nodes: usize,
    /// Most bytes the tree of one document may take, aliases included: the nodes themselves
    /// and the text of their scalars and keys (an alias of a long string repeated is not many
    /// nodes).
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: 512,
            max_nodes: 2_000_000,
            max_bytes: 256 << 20,
        }
    }
}

/// What one node costs in the budget besides its text: an entry holds a key and a node.
const NODE_BYTES: usize = std::mem::size_of::<Entry>();

/// Something worth reporting about a well-formed document.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub span: Span,
    pub kind: NoticeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NoticeKind {
    /// A mapping repeats a key; `first` is the earlier occurrence (the later one wins).
    DuplicateKey { key: String, first: Span },
    /// A plain scalar that YAML 1.1 (Kubernetes) and YAML 1.2 read differently.
    Yaml11Difference {
        text: String,
        yaml11: String,
        yaml12: String,
    },
    /// A mapping key that is a collection; Kubernetes cannot decode it.
    ComplexKey,
}

/// One parsed document of a stream.
#[derive(Clone, Debug)]
pub struct Document {
    pub root: Node,
    pub notices: Vec<Notice>,
}

/// A document that could not be parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentError {
    pub message: String,
    pub pos: Pos,
}

/// Parses every document of `text`. Empty documents (only comments or whitespace) are left out;
/// each entry is either a document or the error that stopped it.
pub fn parse_stream(text: &str, limits: Limits) -> Vec<Result<Document, DocumentError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    split_documents(text)
        .into_iter()
        .filter_map(|chunk| parse_chunk(&chunk, limits))
        .collect()
}

/// A document of a stream as text, before parsing: what a cheap scan can classify.
#[derive(Clone, Copy, Debug)]
pub struct DocumentText<'a> {
    /// Position of the document in the stream (stable for the same text).
    pub index: usize,
    pub text: &'a str,
    /// 1-based line of the document's first line in the file.
    pub first_line: u32,
}

/// One entry of [`parse_stream_deferring`]: a parsed document, or one left for later.
#[derive(Debug)]
pub enum StreamEntry {
    Parsed(usize, Result<Document, DocumentError>),
    /// A document not parsed now; [`parse_selected`] parses it later from the same text.
    Deferred(usize),
}

/// Parses the documents of `text` except those `defer` picks, which are only located.
pub fn parse_stream_deferring(
    text: &str,
    limits: Limits,
    defer: &dyn Fn(DocumentText<'_>) -> bool,
) -> Vec<StreamEntry> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    split_documents(text)
        .into_iter()
        .enumerate()
        .filter_map(|(index, chunk)| {
            let document = DocumentText {
                index,
                text: chunk.text,
                first_line: chunk.line_offset + 1,
            };
            if defer(document) {
                return Some(StreamEntry::Deferred(index));
            }
            parse_chunk(&chunk, limits).map(|doc| StreamEntry::Parsed(index, doc))
        })
        .collect()
}

/// Parses the documents at `indices` (as numbered by [`parse_stream_deferring`]) of `text`.
pub fn parse_selected(
    text: &str,
    limits: Limits,
    indices: &[usize],
) -> Vec<(usize, Result<Document, DocumentError>)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    split_documents(text)
        .into_iter()
        .enumerate()
        .filter(|(index, _)| indices.binary_search(index).is_ok())
        .filter_map(|(index, chunk)| parse_chunk(&chunk, limits).map(|doc| (index, doc)))
        .collect()
}

enum Frame {
    Seq {
        items: Vec<Node>,
        start: Pos,
        flow_end: bool,
        anchor: usize,
    },
    Map {
        entries: Vec<Entry>,
        /// Where each live key stands, once the map has `INDEXED_FROM` entries: finding a
        /// duplicate stays constant-time in a mapping of a million keys.
        index: Option<KeyIndex>,
        /// Entries a later duplicate replaced in an indexed map, dropped at `close` (removing
        /// them at once would shift the entries after them).
        replaced: Vec<usize>,
        key: Option<Node>,
        merges: Vec<Node>,
        start: Pos,
        flow_end: bool,
        anchor: usize,
    },
}

struct Builder<'a> {
    chunk: &'a Chunk<'a>,
    limits: Limits,
    stack: Vec<Frame>,
    /// Anchored nodes with what they cost: nodes and bytes.
    anchors: HashMap<usize, (Node, Cost)>,
    /// What the document built so far costs.
    cost: Cost,
    /// Whether the cost includes an alias's copy.
    aliased: bool,
    notices: Vec<Notice>,
    root: Option<Node>,
    /// Byte offset of each character when the chunk is not ASCII (for trimming block scalars).
    char_bytes: Option<Vec<u32>>,
    /// Characters in the chunk.
    chars: usize,
    /// Whether the chunk ends with a line break (the parser's end markers then fall on a line
    /// of the chunk).
    terminated: bool,
}

impl Builder<'_> {
    fn pos(&self, marker: &Marker) -> Pos {
        if marker.index() >= self.chars && !self.terminated {
            return self.end_of_unterminated_chunk(self.chars);
        }
        Pos {
            line: u32::try_from(marker.line()).unwrap_or(u32::MAX) + self.chunk.line_offset,
            column: u32::try_from(marker.col() + 1).unwrap_or(u32::MAX),
            index: u32::try_from(marker.index())
                .unwrap_or(u32::MAX)
                .saturating_add(self.chunk.index_offset),
        }
    }

    /// The position after the last character of a chunk that does not end in a line break.
    /// The parser puts its end-of-input events on a line after the last one, which the file
    /// does not have.
    fn end_of_unterminated_chunk(&self, total: usize) -> Pos {
        let text = self.chunk.text;
        // CRLF, CR and LF each end a line.
        let breaks = text.matches(['\r', '\n']).count() - text.matches("\r\n").count();
        let last_line = text.rsplit(['\r', '\n']).next().unwrap_or("");
        Pos {
            line: u32::try_from(breaks + 1)
                .unwrap_or(u32::MAX)
                .saturating_add(self.chunk.line_offset),
            column: u32::try_from(last_line.chars().count() + 1).unwrap_or(u32::MAX),
            index: u32::try_from(total)
                .unwrap_or(u32::MAX)
                .saturating_add(self.chunk.index_offset),
        }
    }

    fn error(&self, marker: &Marker, message: impl Into<String>) -> DocumentError {
        DocumentError {
            message: message.into(),
            pos: self.pos(marker),
        }
    }

    /// An error at the very end of a document is reported after its last character, not on
    /// the next document's `---` line.
    fn error_at_content(&self, marker: &Marker, message: String) -> DocumentError {
        let total = self.chars;
        if marker.index() < total {
            return self.error(marker, message);
        }
        let end = Marker::new(total, marker.line(), marker.col());
        let span = ParserSpan::new(Marker::new(0, 1, 0), end);
        let mut pos = self.trimmed_end(&span);
        // The parser's line at the end of input can run past the text's last line; the line
        // of the trimmed end is counted from the text itself (an error is rare: one pass).
        let index = (pos.index.saturating_sub(self.chunk.index_offset)) as usize;
        pos.line = self.line_at(index);
        if pos.line < 1 + self.chunk.line_offset {
            pos = self.pos(marker);
        }
        // The parser may count a line past the last one (a bare CR before the end of input).
        let last = self.end_of_unterminated_chunk(total);
        if pos.line > last.line {
            pos = last;
        }
        DocumentError { message, pos }
    }

    /// The line (as the report counts it) of the character at `index`: one more than the line
    /// breaks before it (LF, CRLF and a lone CR each count once).
    fn line_at(&self, index: usize) -> u32 {
        let mut breaks: u32 = 0;
        for i in 0..index {
            match self.char_at(i) {
                Some('\n') => breaks += 1,
                Some('\r') if self.char_at(i + 1) != Some('\n') => breaks += 1,
                Some(_) => {}
                None => break,
            }
        }
        breaks
            .saturating_add(1)
            .saturating_add(self.chunk.line_offset)
    }

    fn char_at(&self, index: usize) -> Option<char> {
        match &self.char_bytes {
            None => self
                .chunk
                .text
                .as_bytes()
                .get(index)
                .map(|&b| char::from(b)),
            Some(offsets) => {
                let start = *offsets.get(index)? as usize;
                self.chunk.text[start..].chars().next()
            }
        }
    }

    /// Block scalars end where the next token starts; pull the end back to the last content
    /// character so that a label covers the text only.
    fn trimmed_end(&self, span: &ParserSpan) -> Pos {
        let mut index = span.end.index();
        let mut line = span.end.line();
        while index > span.start.index() {
            let before = self.char_at(index - 1);
            // A line break: LF, or a CR that no LF follows (YAML's lone CR); the CR of a CRLF
            // is stepped over as white space once its LF was counted.
            let line_break =
                before == Some('\n') || (before == Some('\r') && self.char_at(index) != Some('\n'));
            if line_break {
                // The parser's line count can lag its index (a synthetic end marker); never
                // step before the first line.
                line = line.saturating_sub(1).max(1);
                index -= 1;
            } else if before.is_some_and(char::is_whitespace) {
                index -= 1;
            } else {
                break;
            }
        }
        // Column of `index` on `line`: count back to the previous line break.
        let mut column = 0;
        let mut i = index;
        while i > 0 && !matches!(self.char_at(i - 1), Some('\n' | '\r')) {
            i -= 1;
            column += 1;
        }
        self.pos(&Marker::new(index, line, column))
    }

    /// Adds `cost` to the document's and refuses a document over a limit, as it is built.
    fn count(&mut self, cost: Cost, marker: &Marker) -> Result<(), DocumentError> {
        self.cost = self.cost.plus(cost);
        let over = if self.cost.nodes > self.limits.max_nodes {
            format!("more than {} nodes", self.limits.max_nodes)
        } else if self.cost.bytes > self.limits.max_bytes {
            format!("more than {}", bytes_text(self.limits.max_bytes))
        } else {
            return Ok(());
        };
        let message = if self.aliased {
            format!("document expands to {over} through its aliases (alias expansion bomb?)")
        } else {
            format!("document too large: it holds {over}")
        };
        Err(self.error(marker, message))
    }

    fn open(&mut self, frame: Frame, marker: &Marker) -> Result<(), DocumentError> {
        if self.stack.len() >= self.limits.max_depth {
            return Err(self.error(
                marker,
                format!(
                    "collections are nested deeper than {} levels",
                    self.limits.max_depth
                ),
            ));
        }
        self.stack.push(frame);
        Ok(())
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor > 0 {
            self.anchors.insert(anchor, (node.clone(), node_cost(node)));
        }
    }

    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<&Tag>,
        span: Span,
    ) -> Node {
        let value = match (style, tag) {
            (_, Some(tag)) if tag.is_yaml_core_schema() => core_tagged(&text, &tag.suffix),
            // Most scalars are plain strings in both YAML versions: nothing to resolve. The
            // scanner's string is taken as it is, spare capacity included: objects kept for the
            // whole run are copied at their size when they are indexed.
            (ScalarStyle::Plain, _) if is_plain_string(&text) => Value::Str(text.into_owned()),
            (ScalarStyle::Plain, _) => {
                let text = &*text;
                let (value, yaml12) = resolve_plain(text);
                if let Some(yaml12) = yaml12 {
                    self.notices.push(Notice {
                        span,
                        kind: NoticeKind::Yaml11Difference {
                            text: text.to_owned(),
                            yaml11: describe(&value),
                            yaml12: describe(&yaml12),
                        },
                    });
                }
                value
            }
            _ => Value::Str(text.into_owned()),
        };
        Node { value, span }
    }

    /// Adds a finished node to the collection being built, or makes it the root.
    fn attach(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                index,
                replaced,
                key,
                merges,
                ..
            }) => match key.take() {
                None => *key = Some(node),
                Some(key_node) => {
                    if matches!(&key_node.value, Value::Str(k) if k == "<<")
                        && key_node.span.end.index - key_node.span.start.index == 2
                    {
                        merges.push(node);
                        return;
                    }
                    let key_span = key_node.span;
                    let Some(key_text) = key_text(key_node.value) else {
                        self.notices.push(Notice {
                            span: key_span,
                            kind: NoticeKind::ComplexKey,
                        });
                        return;
                    };
                    if index.is_none() && entries.len() >= INDEXED_FROM {
                        let keys = entries.iter().enumerate();
                        *index = Some(keys.map(|(i, e)| (e.key.as_str().into(), i)).collect());
                    }
                    let first =
                        match index {
                            // A later duplicate stands at the end, where the first one is dropped.
                            Some(index) => index
                                .insert(key_text.as_str().into(), entries.len())
                                .map(|i| {
                                    replaced.push(i);
                                    entries[i].key_span
                                }),
                            None => entries
                                .iter()
                                .position(|e| e.key == key_text)
                                .map(|i| entries.remove(i).key_span),
                        };
                    if let Some(first) = first {
                        self.notices.push(Notice {
                            span: key_span,
                            kind: NoticeKind::DuplicateKey {
                                key: key_text.clone(),
                                first,
                            },
                        });
                    }
                    entries.push(Entry {
                        key: key_text,
                        key_span,
                        value: node,
                    });
                }
            },
        }
    }

    /// Builds the document from parser events; returns whether there was a document at all (a
    /// text of comments has none).
    fn consume<'t>(
        &mut self,
        events: impl Iterator<Item = Result<(Event<'t>, ParserSpan), ScanError>>,
    ) -> Result<bool, DocumentError> {
        let mut saw_document = false;
        for event in events {
            let (event, span) = match event {
                Ok(ok) => ok,
                Err(err) => {
                    let message = err.info().to_owned();
                    return Err(self.error_at_content(err.marker(), message));
                }
            };
            let start = self.pos(&span.start);
            let end = self.pos(&span.end);
            let flow = span.end.index() > span.start.index();
            match event {
                Event::DocumentStart(_) => saw_document = true,
                Event::Scalar(text, style, anchor, tag) => {
                    let end = if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                        self.trimmed_end(&span)
                    } else {
                        end
                    };
                    let cost = Cost::scalar(&text);
                    let node = self.scalar(text, style, tag.as_deref(), Span { start, end });
                    self.remember(anchor, &node);
                    self.count(cost, &span.start)?;
                    self.attach(node);
                }
                Event::SequenceStart(anchor, _) => {
                    self.count(Cost::COLLECTION, &span.start)?;
                    let frame = Frame::Seq {
                        items: Vec::new(),
                        start,
                        flow_end: flow,
                        anchor,
                    };
                    self.open(frame, &span.start)?;
                }
                Event::MappingStart(anchor, _) => {
                    self.count(Cost::COLLECTION, &span.start)?;
                    let frame = Frame::Map {
                        entries: Vec::new(),
                        index: None,
                        replaced: Vec::new(),
                        key: None,
                        merges: Vec::new(),
                        start,
                        flow_end: flow,
                        anchor,
                    };
                    self.open(frame, &span.start)?;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let node = self.close(end);
                    self.attach(node);
                }
                Event::Alias(id) => match self.anchors.get(&id).cloned() {
                    Some((mut node, cost)) => {
                        self.aliased = true;
                        self.count(cost, &span.start)?;
                        node.span = Span { start, end };
                        self.attach(node);
                    }
                    None => {
                        return Err(self.error(&span.start, "alias refers to an unknown anchor"));
                    }
                },
                Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
            }
        }
        Ok(saw_document)
    }

    fn close(&mut self, end: Pos) -> Node {
        match self.stack.pop() {
            Some(Frame::Seq {
                items,
                start,
                flow_end,
                anchor,
            }) => {
                let end = if flow_end {
                    end
                } else {
                    items.last().map_or(start, |n| n.span.end)
                };
                let node = Node {
                    value: Value::Seq(items),
                    span: Span { start, end },
                };
                self.remember(anchor, &node);
                node
            }
            Some(Frame::Map {
                mut entries,
                index,
                mut replaced,
                merges,
                start,
                flow_end,
                anchor,
                ..
            }) => {
                // The positions of the index hold while no entry is dropped or merged in.
                let index = index.filter(|_| replaced.is_empty() && merges.is_empty());
                if !replaced.is_empty() {
                    replaced.sort_unstable();
                    let mut at = 0;
                    entries.retain(|_| {
                        at += 1;
                        replaced.binary_search(&(at - 1)).is_err()
                    });
                }
                let end = if flow_end {
                    end
                } else {
                    entries
                        .iter()
                        .map(|e| e.value.span.end.max(e.key_span.end))
                        .max()
                        .unwrap_or(start)
                };
                merge_into(&mut entries, merges);
                let node = Node {
                    value: Value::Map(Mapping::with_index(entries, index)),
                    span: Span { start, end },
                };
                self.remember(anchor, &node);
                node
            }
            None => Node {
                value: Value::Null,
                span: Span { start: end, end },
            },
        }
    }
}

/// YAML merge keys (`<<: *base`, `<<: [*a, *b]`), as go-yaml v2 applies them: keys written in
/// the mapping win, then earlier merged mappings win over later ones.
fn merge_into(entries: &mut Vec<Entry>, merges: Vec<Node>) {
    if merges.is_empty() {
        return;
    }
    // A set: a merged mapping of many keys is not compared with every key one by one.
    let mut present: foldhash::HashSet<String> = entries.iter().map(|e| e.key.clone()).collect();
    for merge in merges {
        let sources: Vec<Node> = match merge.value {
            Value::Seq(items) => items,
            other => vec![Node {
                value: other,
                span: merge.span,
            }],
        };
        for source in sources {
            if let Value::Map(merged) = source.value {
                for entry in merged.into_vec() {
                    if present.insert(entry.key.clone()) {
                        entries.push(entry);
                    }
                }
            }
        }
    }
}

fn key_text(value: Value) -> Option<String> {
    Some(match value {
        Value::Str(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Null => "null".to_owned(),
        Value::Seq(_) | Value::Map(_) => return None,
    })
}

fn core_tagged(text: &str, suffix: &str) -> Value {
    let resolved = || resolve_plain(text).0;
    match suffix {
        "int" => match resolved() {
            v @ Value::Int(_) => v,
            _ => Value::Str(text.to_owned()),
        },
        "float" => match resolved() {
            v @ (Value::Int(_) | Value::Float(_)) => v,
            _ => Value::Str(text.to_owned()),
        },
        "bool" => match resolved() {
            v @ Value::Bool(_) => v,
            _ => Value::Str(text.to_owned()),
        },
        "null" => Value::Null,
        _ => Value::Str(text.to_owned()),
    }
}

fn bytes_text(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// What part of a document costs in the budget of `Limits`.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    nodes: usize,
    bytes: usize,
}

impl Cost {
    const COLLECTION: Cost = Cost {
        nodes: 1,
        bytes: NODE_BYTES,
    };

    fn scalar(text: &str) -> Cost {
        Cost {
            nodes: 1,
            bytes: NODE_BYTES + text.len(),
        }
    }

    fn plus(self, other: Cost) -> Cost {
        Cost {
            nodes: self.nodes.saturating_add(other.nodes),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

/// What a copy of `node` costs: its nodes (mapping keys included, as the parser counts them)
/// and their text.
fn node_cost(node: &Node) -> Cost {
    let mut cost = Cost::default();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        cost = cost.plus(match &n.value {
            Value::Str(text) => Cost::scalar(text),
            _ => Cost::scalar(""),
        });
        match &n.value {
            Value::Seq(items) => stack.extend(items),
            Value::Map(entries) => {
                for entry in entries {
                    cost = cost.plus(Cost::scalar(&entry.key));
                    stack.push(&entry.value);
                }
            }
            _ => {}
        }
    }
    cost
}

fn parse_chunk(chunk: &Chunk<'_>, limits: Limits) -> Option<Result<Document, DocumentError>> {
    parse_chunk_with(chunk, limits, true)
}

/// `parse_chunk`, with the block-style fast path (`fast`) allowed or not (tests compare both).
fn parse_chunk_with(
    chunk: &Chunk<'_>,
    limits: Limits,
    fast_path: bool,
) -> Option<Result<Document, DocumentError>> {
    let char_bytes = (!chunk.text.is_ascii()).then(|| {
        chunk
            .text
            .char_indices()
            .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX))
            .collect()
    });
    let chars = char_bytes.as_ref().map_or(chunk.text.len(), Vec::len);
    let new_builder = |char_bytes| Builder {
        chunk,
        limits,
        stack: Vec::new(),
        anchors: HashMap::new(),
        cost: Cost::default(),
        aliased: false,
        notices: Vec::new(),
        root: None,
        chars,
        terminated: chunk.text.ends_with(['\n', '\r']),
        char_bytes,
    };
    let mut builder = new_builder(char_bytes);
    let fast = if fast_path {
        fast::events(chunk.text, limits.max_depth)
    } else {
        None
    };
    let consumed = match (fast, flow_top::start(chunk.text)) {
        (Some(events), _) => builder.consume(events.into_iter().map(Ok)),
        (None, Some(top)) => {
            match builder.consume(flow_top::events(chunk.text, top)) {
                // After `---` a flow collection cannot be a mapping key (`[a, b]: c`): a small
                // document is then read as written; a large one keeps the error, since the
                // scanner would hold all of it as tokens.
                Err(_) if chunk.text.len() <= fast::MAX_DOCUMENT_BYTES => {
                    builder = new_builder(builder.char_bytes.take());
                    builder.consume(Parser::new_from_str(chunk.text))
                }
                other => other,
            }
        }
        (None, None) => builder.consume(Parser::new_from_str(chunk.text)),
    };
    let saw_document = match consumed {
        Ok(saw) => saw,
        Err(err) => return Some(Err(err)),
    };
    if !saw_document {
        return None;
    }
    let root = builder.root.take().unwrap_or(Node {
        value: Value::Null,
        span: Span::default(),
    });
    Some(Ok(Document {
        root,
        notices: builder.notices,
    }))
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;

    fn parse(text: &str) -> Vec<Result<Document, DocumentError>> {
        parse_stream(text, Limits::default())
    }

    fn doc(text: &str) -> Document {
        parse(text).remove(0).expect("parses")
    }

    /// An error at the end of a document whose last line ends in a lone CR is placed where the
    /// same document with an LF places it, on the line YAML counts (found by the
    /// `positions_fall_inside_arbitrary_text` property: column 2 of an empty third line).
    #[test]
    fn an_error_before_a_final_lone_carriage_return_stays_on_its_line() {
        for text in ["-\n0\r", "-\n0\n", "-\r\n0\r\n", "-\r0\r"] {
            let errors: Vec<(u32, u32)> = parse(text)
                .into_iter()
                .filter_map(Result::err)
                .map(|err| (err.pos.line, err.pos.column))
                .collect();
            assert_eq!(errors, [(2, 2)], "{text:?}");
        }
    }

    /// An unclosed flow collection followed by white space on a last line without a line break:
    /// the error is after the collection's last character, on its line, not at that column of
    /// the next line (found by the `positions_fall_inside_arbitrary_text` property).
    #[test]
    fn an_error_at_the_end_of_input_is_placed_after_the_last_content() {
        for (text, at) in [
            ("{a\n ", (1, 3)),
            ("{a\r ", (1, 3)),
            ("{a \n ", (1, 3)),
            ("a: {b\n ", (1, 6)),
            ("{a", (1, 3)),
        ] {
            let errors: Vec<(u32, u32)> = parse(text)
                .into_iter()
                .filter_map(Result::err)
                .map(|err| (err.pos.line, err.pos.column))
                .collect();
            assert_eq!(errors, [at], "{text:?}");
        }
    }

    /// Every document of the shared corpora and the project's own YAML parses to the same tree,
    /// spans and notices with the fast path as with saphyr alone.
    #[test]
    fn the_fast_path_builds_what_saphyr_builds() {
        fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, files);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
                {
                    files.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let shared = root.join("../shared");
        let require_shared = std::env::var("KVLINT_REQUIRE_SHARED").as_deref() == Ok("1");
        let mut dirs: Vec<std::path::PathBuf> = ["testdata", "examples", "tests"]
            .iter()
            .map(|dir| root.join(dir))
            .collect();
        if shared.is_dir() || require_shared {
            dirs.extend(
                ["corpus", "bench/sample-200", "conformance", "catalog"]
                    .iter()
                    .map(|dir| shared.join(dir)),
            );
        }
        let mut files = Vec::new();
        for dir in &dirs {
            assert!(dir.is_dir(), "{} does not exist", dir.display());
            walk(dir, &mut files);
        }
        let (mut documents, mut fast, mut refused) = (0, 0, 0);
        for file in &files {
            // A file kvlint refuses to read (not UTF-8, a NUL byte) reaches neither parser.
            let bytes = std::fs::read(file).unwrap();
            let Ok(text) = crate::source::decode(bytes) else {
                refused += 1;
                continue;
            };
            for chunk in split_documents(&text) {
                let limits = Limits::default();
                documents += 1;
                fast += usize::from(fast::events(chunk.text, limits.max_depth).is_some());
                assert_eq!(
                    format!("{:?}", parse_chunk_with(&chunk, limits, true)),
                    format!("{:?}", parse_chunk_with(&chunk, limits, false)),
                    "{} line {}",
                    file.display(),
                    chunk.line_offset + 1
                );
            }
        }
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "{fast} of {documents} documents took the fast path; {refused} files are not text kvlint reads"
            );
        }
        assert!(
            documents < 100 || fast * 2 > documents,
            "{fast} of {documents}"
        );
    }

    /// Generated documents around the edges of the fast path's subset (indentation steps,
    /// indentless sequences, comments and blank lines anywhere, quoting, indicators, block
    /// scalars, empty collections, and lines shifted by a column): whenever the fast path
    /// accepts a text, it must build what saphyr builds, errors included.
    mod fast_path_properties {
        use std::fmt::Write as _;

        use proptest::prelude::*;

        use super::super::{Limits, fast, parse_chunk_with, split_documents};

        const KEYS: &[&str] = &[
            "a",
            "key",
            "name",
            "on",
            "yes",
            "<<",
            "-k",
            "\"q k\"",
            "'s k'",
            "k k",
            "a#b",
            "x:y",
            "\"e\\\"\"",
            "'it''s'",
            "?x",
            "k ",
            "-",
            "1",
            "~",
            "\"\"",
            "a.b/c-d_e",
        ];
        const VALUES: &[&str] = &[
            "v",
            "two words",
            "-1",
            "1.5",
            "0x1F",
            "~",
            "null",
            "true",
            "x:y",
            "a#b",
            "http://x/y",
            "\"q\"",
            "'q'",
            "\"\"",
            "''",
            "\"a\\\"b\"",
            "'it''s'",
            "\"open",
            "[a]",
            "{a: b}",
            "&x v",
            "*x",
            "!t v",
            "|+",
            ">",
            "|2",
            "@x",
            "%x",
            ":x",
            "?x",
            "-",
            "- x",
            "a: b",
            "a:",
            "`x`",
            "'",
            "\"",
            "1e3",
            "0o17",
            "+1",
            ".inf",
            "y",
            "No",
            "2024-01-01",
            "a,b",
        ];
        const TRAILS: &[&str] = &["", "", "", "  ", " # c", "#c", "   # c  "];

        /// xorshift64*: a seed from proptest drives the generator.
        struct Rng(u64);

        impl Rng {
            fn below(&mut self, n: usize) -> usize {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                usize::try_from(self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33).unwrap_or(0) % n
            }

            fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
                items[self.below(items.len())]
            }

            /// Mostly from the first `common` items, so that whole documents stay inside the
            /// subset often enough.
            fn mostly<'a>(&mut self, items: &[&'a str], common: usize) -> &'a str {
                if self.below(8) == 0 {
                    self.pick(items)
                } else {
                    self.pick(&items[..common])
                }
            }

            fn step(&mut self) -> usize {
                1 + self.below(4)
            }
        }

        fn noise(rng: &mut Rng, out: &mut String) {
            match rng.below(8) {
                0 => out.push('\n'),
                1 => writeln!(out, "{}# note", " ".repeat(rng.below(6))).unwrap(),
                2 => out.push_str(&" ".repeat(1 + rng.below(4))),
                _ => return,
            }
            if out.ends_with(' ') {
                out.push('\n');
            }
        }

        fn value(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
            match rng.below(if depth > 4 { 2 } else { 9 }) {
                0 => {
                    let trail = rng.pick(TRAILS);
                    writeln!(out, " {}{trail}", rng.mostly(VALUES, 17)).unwrap();
                }
                1 => writeln!(out, "{}", rng.pick(&["", " ", " # c"])).unwrap(),
                2 => writeln!(out, " {}{}", rng.pick(&["{}", "[]"]), rng.pick(TRAILS)).unwrap(),
                3 | 4 => {
                    writeln!(out, "{}", rng.pick(TRAILS)).unwrap();
                    let inner = indent + rng.step();
                    mapping(rng, out, inner, depth + 1);
                }
                5 | 6 => {
                    out.push('\n');
                    let inner = indent + [0, 0, rng.step()][rng.below(3)];
                    sequence(rng, out, inner, depth + 1);
                }
                _ => block(rng, out, indent),
            }
        }

        fn block(rng: &mut Rng, out: &mut String, indent: usize) {
            writeln!(out, " {}{}", rng.pick(&["|", "|", "|-"]), rng.pick(TRAILS)).unwrap();
            let inner = indent + rng.step();
            for _ in 0..=rng.below(4) {
                match rng.below(6) {
                    0 => out.push('\n'),
                    1 => writeln!(out, "{}# kept", " ".repeat(inner)).unwrap(),
                    2 => writeln!(out, "{}deeper  ", " ".repeat(inner + 2)).unwrap(),
                    _ => writeln!(out, "{}{}", " ".repeat(inner), rng.mostly(VALUES, 17)).unwrap(),
                }
            }
        }

        fn mapping(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
            for _ in 0..=rng.below(4) {
                noise(rng, out);
                write!(out, "{}{}:", " ".repeat(indent), rng.mostly(KEYS, 13)).unwrap();
                value(rng, out, indent, depth);
            }
        }

        fn sequence(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
            for _ in 0..=rng.below(3) {
                noise(rng, out);
                let gap = 1 + rng.below(3);
                write!(out, "{}-{}", " ".repeat(indent), " ".repeat(gap)).unwrap();
                match rng.below(if depth > 4 { 2 } else { 5 }) {
                    0 => writeln!(out, "{}{}", rng.mostly(VALUES, 17), rng.pick(TRAILS)).unwrap(),
                    1 => writeln!(out, "{}", rng.pick(&["{}", "[]", "|"])).unwrap(),
                    _ => {
                        let inner = indent + 1 + gap;
                        write!(out, "{}:", rng.mostly(KEYS, 13)).unwrap();
                        value(rng, out, inner, depth + 1);
                        let mut rest = String::new();
                        mapping(rng, &mut rest, inner, depth + 1);
                        if rng.below(2) == 0 {
                            out.push_str(&rest);
                        }
                    }
                }
            }
        }

        fn document(seed: u64) -> String {
            let mut rng = Rng(seed | 1);
            let mut out = String::new();
            if rng.below(4) == 0 {
                out.push_str("---\n");
            }
            if rng.below(5) == 0 {
                sequence(&mut rng, &mut out, 0, 0);
            } else {
                mapping(&mut rng, &mut out, 0, 0);
            }
            // A line shifted by a column, or a last line without its break.
            let lines: Vec<&str> = out.lines().collect();
            let shift = rng.below(lines.len() * 6);
            let mut text = String::new();
            for (i, line) in lines.iter().enumerate() {
                match (i == shift, rng.below(2)) {
                    (true, 0) => text.push(' '),
                    (true, _) => text.push_str(line.strip_prefix(' ').unwrap_or(line)),
                    _ => {}
                }
                if i != shift || text.ends_with(' ') {
                    text.push_str(line);
                }
                text.push('\n');
            }
            if rng.below(6) == 0 {
                text.pop();
            }
            text
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]
            #[test]
            fn the_fast_path_agrees_with_saphyr(seed in any::<u64>()) {
                let text = document(seed);
                for chunk in split_documents(&text) {
                    let limits = Limits::default();
                    prop_assert_eq!(
                        format!("{:?}", parse_chunk_with(&chunk, limits, true)),
                        format!("{:?}", parse_chunk_with(&chunk, limits, false)),
                        "{}", chunk.text
                    );
                }
            }
        }

        /// The generator must reach the fast path often, or the property proves little.
        #[test]
        fn generated_documents_mostly_take_the_fast_path() {
            let accepted = (1..=2000u64)
                .filter(|&seed| {
                    let text = document(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    split_documents(&text)
                        .iter()
                        .all(|chunk| fast::events(chunk.text, 64).is_some())
                })
                .count();
            assert!(accepted > 300, "{accepted} of 2000");
        }
    }

    #[test]
    fn scalar_positions_count_characters() {
        let d = doc("name: héllo\nkey: \"x\"\n");
        let name = d.root.get("name").unwrap();
        assert_eq!((name.span.start.line, name.span.start.column), (1, 7));
        assert_eq!((name.span.end.line, name.span.end.column), (1, 12));
        let key = d.root.entry("key").unwrap();
        assert_eq!((key.key_span.start.line, key.key_span.start.column), (2, 1));
        assert_eq!(key.value.span.start.column, 6);
        assert_eq!(key.value.span.end.column, 9);
    }

    #[test]
    fn an_error_after_a_bare_cr_stays_on_the_last_line() {
        // Found by the property tests: the parser counted a third line in a two-line text.
        // The error is after the last content character, before the trailing tab.
        let docs = parse_stream("-\r*>\t", Limits::default());
        let err = docs
            .into_iter()
            .find_map(Result::err)
            .expect("a syntax error");
        assert_eq!((err.pos.line, err.pos.column), (2, 3));
    }

    #[test]
    fn documents_after_an_error_are_still_parsed() {
        let docs = parse("a: 1\n---\nb: [1\n---\nc: 3\n");
        assert_eq!(docs.len(), 3);
        assert!(docs[0].is_ok());
        let err = docs[1].as_ref().unwrap_err();
        assert_eq!(err.pos.line, 3);
        let c = docs[2].as_ref().unwrap();
        assert_eq!(c.root.get("c").unwrap().span.start.line, 5);
    }

    #[test]
    fn crlf_and_tabs_and_flow_style() {
        let d = doc("a:\r\n  b: {c: 1,\td: [x, y]}\r\n  e: 2\r\n");
        let b = d.root.get("a").unwrap().get("b").unwrap();
        assert_eq!((b.span.start.line, b.span.start.column), (2, 6));
        assert_eq!((b.span.end.line, b.span.end.column), (2, 23));
        let dd = b.get("d").unwrap();
        assert_eq!((dd.span.start.column, dd.span.end.column), (16, 22));
        let e = d.root.get("a").unwrap().get("e").unwrap();
        assert_eq!((e.span.start.line, e.span.start.column), (3, 6));
    }

    #[test]
    fn block_scalar_span_ends_at_its_text() {
        let d = doc("a: |\n  one\n  two\n\nb: 1\n");
        let a = d.root.get("a").unwrap();
        assert_eq!(a.as_str(), Some("one\ntwo\n"));
        assert_eq!((a.span.end.line, a.span.end.column), (3, 6));
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let d = doc("base: &b {x: 1, z: 2}\nderived:\n  <<: *b\n  z: 3\nref: *b\n");
        let derived = d.root.get("derived").unwrap().to_json();
        assert_eq!(derived, serde_json::json!({"z": 3, "x": 1}));
        let r = d.root.get("ref").unwrap();
        assert_eq!(r.span.start.line, 5);
        assert_eq!(r.get("x").unwrap().to_json(), serde_json::json!(1));
    }

    #[test]
    fn duplicate_keys_are_noticed_and_the_last_wins() {
        let d = doc("a: 1\nb: 2\na: 3\n");
        assert_eq!(d.root.get("a").unwrap().to_json(), serde_json::json!(3));
        assert!(matches!(
            &d.notices[0].kind,
            NoticeKind::DuplicateKey { key, first } if key == "a" && first.start.line == 1
        ));
    }

    #[test]
    fn duplicate_keys_in_large_maps_keep_the_last_at_its_place() {
        // Past INDEXED_FROM entries duplicates are found through the index: the result must be
        // what removing the first and appending the last gives, as in small maps.
        let keys: Vec<String> = (0..400).map(|i| format!("k{}", (i * 7) % 150)).collect();
        let mut text = String::new();
        for (i, k) in keys.iter().enumerate() {
            writeln!(text, "{k}: {i}").unwrap();
        }
        let mut expected: Vec<(String, i64)> = Vec::new();
        let mut duplicates = 0;
        for (i, k) in keys.iter().enumerate() {
            if let Some(at) = expected.iter().position(|(key, _)| key == k) {
                expected.remove(at);
                duplicates += 1;
            }
            expected.push((k.clone(), i64::try_from(i).unwrap()));
        }
        let d = doc(&text);
        let got: Vec<(String, i64)> = d
            .root
            .as_map()
            .unwrap()
            .iter()
            .map(|e| match e.value.value {
                Value::Int(v) => (e.key.clone(), v),
                _ => panic!("{:?}", e.value),
            })
            .collect();
        assert_eq!(got, expected);
        let noticed = d
            .notices
            .iter()
            .filter(|n| matches!(n.kind, NoticeKind::DuplicateKey { .. }))
            .count();
        assert_eq!(noticed, duplicates);
        assert!(duplicates > 200);
    }

    #[test]
    fn yaml11_booleans_are_noticed() {
        let d = doc("country: NO\nport: 0777\nok: true\n");
        assert_eq!(
            d.root.get("country").unwrap().to_json(),
            serde_json::json!(false)
        );
        assert_eq!(
            d.root.get("port").unwrap().to_json(),
            serde_json::json!(511)
        );
        assert_eq!(d.notices.len(), 2);
        let quoted = doc("country: \"NO\"\n");
        assert!(quoted.notices.is_empty());
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            let aliases = vec![format!("*a{prev}"); 10].join(", ");
            writeln!(text, "a{i}: &a{i} [{aliases}]").unwrap();
        }
        let err = parse(&text).remove(0).unwrap_err();
        assert!(err.message.contains("more than"), "{}", err.message);
        assert!(err.message.contains("alias"), "{}", err.message);
    }

    /// Merging a mapping of 100,000 keys compared each key with every key merged before it
    /// (5 billion comparisons).
    #[test]
    fn a_merge_of_a_wide_mapping_is_linear() {
        let keys: Vec<String> = (0..100_000).map(|i| format!("k{i}: {i}")).collect();
        let text = format!("base: &b {{{}}}\nm: {{k7: x, <<: *b}}\n", keys.join(", "));
        let started = std::time::Instant::now();
        let doc = parse(&text).remove(0).unwrap();
        let merged = doc.root.get("m").unwrap().as_map().unwrap();
        assert_eq!(merged.len(), 100_000);
        assert_eq!(merged[0].key, "k7");
        assert_eq!(merged[0].value.as_str(), Some("x"));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    /// Few nodes, many bytes: a long string repeated by an alias. Counting nodes alone let it
    /// take gigabytes.
    #[test]
    fn aliases_of_long_strings_are_bounded_in_bytes() {
        let text = format!(
            "a: &a \"{}\"\nb: [{}]\n",
            "x".repeat(1 << 20),
            vec!["*a"; 1000].join(", ")
        );
        let err = parse(&text).remove(0).unwrap_err();
        assert_eq!(
            err.message,
            "document expands to more than 256 MiB through its aliases (alias expansion bomb?)"
        );
        assert_eq!(err.pos.line, 2);
    }

    /// A large document without aliases is refused as too large, not as a bomb; a top-level
    /// flow collection (JSON) is read as it streams.
    #[test]
    fn a_large_document_is_too_large_not_a_bomb() {
        let text = format!("[{}0]\n", "0,".repeat(100));
        let limits = Limits {
            max_nodes: 50,
            ..Limits::default()
        };
        let err = parse_stream(&text, limits).remove(0).unwrap_err();
        assert_eq!(
            err.message,
            "document too large: it holds more than 50 nodes"
        );
        assert_eq!((err.pos.line, err.pos.column), (1, 100));
        let limits = Limits {
            max_bytes: 1000,
            ..Limits::default()
        };
        let err = parse_stream(&text, limits).remove(0).unwrap_err();
        assert_eq!(
            err.message,
            "document too large: it holds more than 1000 bytes"
        );
    }

    /// `[a]: b` is a mapping with a flow key, which the marker put in front of a top-level flow
    /// collection would make an error: such a document is read as written.
    #[test]
    fn a_flow_collection_as_a_key_is_still_read() {
        let docs = parse("[a]: b\n");
        let doc = docs[0].as_ref().unwrap();
        assert!(matches!(doc.notices[0].kind, NoticeKind::ComplexKey));
        let json = parse("{\"a\": [1, 2]}\n");
        let root = &json[0].as_ref().unwrap().root;
        assert_eq!(root.to_json(), serde_json::json!({"a": [1, 2]}));
        assert_eq!((root.span.start.column, root.span.end.column), (1, 14));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let err = parse(&text).remove(0).unwrap_err();
        assert!(
            err.message.contains("nested deeper") || err.message.contains("recursion limit"),
            "{}",
            err.message
        );
        let shallow = format!("{}{}", "[".repeat(150), "]".repeat(150));
        let limits = Limits {
            max_depth: 100,
            ..Limits::default()
        };
        let err = parse_stream(&shallow, limits).remove(0).unwrap_err();
        assert!(err.message.contains("nested deeper"), "{}", err.message);
    }

    #[test]
    fn comment_only_documents_are_not_documents() {
        assert!(parse("# nothing\n").is_empty());
        let explicit = parse("# nothing\n---\n# still nothing\n");
        assert_eq!(explicit.len(), 1);
        assert_eq!(explicit[0].as_ref().unwrap().root.value, Value::Null);
    }

    #[test]
    fn yaml11_short_booleans_become_keys_as_kubernetes_reads_them() {
        let d = doc("y: 1\n");
        assert_eq!(d.root.to_json(), serde_json::json!({"true": 1}));
    }

    #[test]
    fn bom_is_ignored() {
        let d = doc("\u{feff}a: 1\n");
        assert_eq!(d.root.get("a").unwrap().span.start.column, 4);
    }
}
