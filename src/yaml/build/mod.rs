//! Builds position-keeping documents from parser events.

use saphyr_parser::Parser;

use super::node::{Node, Pos, Span, Value};
use super::split::{Chunk, split_documents};
use super::{fast, flow_top};
use builder::Builder;

mod block_indent;
mod builder;
mod cost;

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
    let new_builder = |char_bytes| Builder::new(chunk, limits, chars, char_bytes);
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
mod tests;
