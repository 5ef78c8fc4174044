//! The tree of one document, built from the parser's events: collections, anchors and aliases,
//! merge keys, duplicate keys and the YAML 1.1 readings Kubernetes applies, within `Limits`.

use std::borrow::Cow;

use foldhash::{HashMap, HashMapExt};
use saphyr_parser::{Event, Marker, ScalarStyle, ScanError, Span as ParserSpan, Tag};

use super::super::node::{
    Entry, INDEXED_FROM, KeyIndex, Mapping, Node, Pos, Span, Value, count_compared_keys,
};
use super::super::scalar::{describe, is_plain_string, resolve_plain};
use super::super::split::Chunk;
use super::cost::{Cost, bytes_text, node_cost};
use super::{DocumentError, Limits, Notice, NoticeKind};

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

pub(super) struct Builder<'a> {
    chunk: &'a Chunk<'a>,
    limits: Limits,
    stack: Vec<Frame>,
    /// Anchored nodes with what they cost: nodes and bytes.
    anchors: HashMap<usize, (Node, Cost)>,
    /// What the document built so far costs.
    cost: Cost,
    /// Whether the cost includes an alias's copy.
    aliased: bool,
    pub(super) notices: Vec<Notice>,
    pub(super) root: Option<Node>,
    /// Byte offset of each character when the chunk is not ASCII (for trimming block scalars).
    pub(super) char_bytes: Option<Vec<u32>>,
    /// Characters in the chunk.
    chars: usize,
    /// Whether the chunk ends with a line break (the parser's end markers then fall on a line
    /// of the chunk).
    terminated: bool,
}

impl<'a> Builder<'a> {
    pub(super) fn new(
        chunk: &'a Chunk<'a>,
        limits: Limits,
        chars: usize,
        char_bytes: Option<Vec<u32>>,
    ) -> Self {
        Builder {
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
        }
    }

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

    /// Whether the block scalar whose content starts at `start` opens with a tab go-yaml
    /// refuses (see `block_indent`).
    fn refused_block_tab(&self, start: &Marker) -> bool {
        let byte = match &self.char_bytes {
            None => Some(start.index()),
            Some(offsets) => offsets.get(start.index()).map(|&b| b as usize),
        };
        byte.is_some_and(|byte| {
            super::block_indent::tab_in_detected_indentation(self.chunk.text, byte)
        })
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
                    let first = match index {
                        // A later duplicate stands at the end, where the first one is dropped.
                        Some(index) => {
                            count_compared_keys(1);
                            index
                                .insert(key_text.as_str().into(), entries.len())
                                .map(|i| {
                                    replaced.push(i);
                                    entries[i].key_span
                                })
                        }
                        None => entries
                            .iter()
                            .position(|e| {
                                count_compared_keys(1);
                                e.key == key_text
                            })
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
    pub(super) fn consume<'t>(
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
                    let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
                    if block && self.refused_block_tab(&span.start) {
                        return Err(self.error(
                            &span.start,
                            "found a tab character where an indentation space is expected: \
                             Kubernetes' YAML reader (go-yaml) refuses a tab right after the \
                             indentation of a block scalar's first line; indent with spaces",
                        ));
                    }
                    let end = if block { self.trimmed_end(&span) } else { end };
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
                    count_compared_keys(1);
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
