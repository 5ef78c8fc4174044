//! The text being edited and the tree parsed from it: byte offsets, anchors and aliases, and
//! which paths may be edited.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use super::Refusal;
use crate::yaml::{Entry, FieldPath, Node, Pos, Segment};
/// The file being edited: byte offsets of the parser's character positions, and its line
/// ending.
pub(super) struct Source<'a> {
    pub(super) text: &'a str,
    /// Byte offset of each character after a byte-order mark (None: ASCII, offset = index).
    pub(super) offsets: Option<Vec<usize>>,
    pub(super) bom: usize,
    pub(super) newline: &'static str,
    /// Built on the first anchor met: most files have none.
    pub(super) aliases: OnceCell<Aliases<'a>>,
}

impl<'a> Source<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        let offsets = (!body.is_ascii()).then(|| {
            body.char_indices()
                .map(|(i, _)| i)
                .chain([body.len()])
                .collect()
        });
        Self {
            text,
            offsets,
            bom,
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
            aliases: OnceCell::new(),
        }
    }

    pub(super) fn is_aliased(&self, name: &str) -> bool {
        self.aliases
            .get_or_init(|| Aliases::new(self.text))
            .contains(name)
    }

    pub(super) fn byte(&self, pos: Pos) -> usize {
        let index = pos.index as usize;
        self.bom
            + self.offsets.as_ref().map_or(index, |offsets| {
                offsets.get(index).copied().unwrap_or(self.text.len())
            })
    }

    /// Where a node's text ends: some collection spans run on to the next token, so trailing
    /// whitespace is left out.
    pub(super) fn end(&self, node: &Node) -> usize {
        let start = self.byte(node.span.start);
        let end = self.byte(node.span.end).max(start);
        start + self.text[start..end].trim_end().len()
    }

    pub(super) fn entry_end(&self, entry: &Entry) -> usize {
        self.end(&entry.value).max(self.byte(entry.key_span.end))
    }

    pub(super) fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The offset after the line's newline (or the end of the text).
    pub(super) fn next_line(&self, at: usize) -> usize {
        self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i + 1)
    }

    pub(super) fn first_char(&self, node: &Node) -> Option<char> {
        self.text[self.byte(node.span.start)..].chars().next()
    }

    pub(super) fn is_flow(&self, node: &Node) -> bool {
        matches!(self.first_char(node), Some('{' | '['))
    }

    pub(super) fn lines(&self, text: &str) -> String {
        if self.newline == "\n" {
            text.to_owned()
        } else {
            text.replace('\n', self.newline)
        }
    }
}

pub(super) fn child<'n>(node: &'n Node, segment: &Segment) -> Option<&'n Node> {
    match segment {
        Segment::Key(key) => node.get(key),
        Segment::Index(i) => node.as_seq().and_then(|items| items.get(*i)),
    }
}

pub(super) fn node_at<'n>(root: &'n Node, path: &[Segment]) -> Option<&'n Node> {
    path.iter().try_fold(root, child)
}

pub(super) fn children_count(node: &Node) -> usize {
    node.as_map()
        .map(<[_]>::len)
        .or_else(|| node.as_seq().map(<[_]>::len))
        .unwrap_or(0)
}

pub(super) fn anchor_name(text: &str) -> &str {
    let end = text.find(ends_name).unwrap_or(text.len());
    &text[..end]
}

/// Characters that end an anchor or alias name.
pub(super) fn ends_name(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}')
}

/// Every `*name` of a text that is followed by whitespace, `,`, `]`, `}` or the end: the
/// aliases an anchor may be used by. Indexed once per file, so that the fixes of many objects
/// do not each search the whole text.
pub(super) struct Aliases<'a> {
    /// The part after the last `*` of each run of name characters that holds one → the runs.
    pub(super) by_tail: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Aliases<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut seen = HashSet::new();
        let mut by_tail: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if !ends_name(c) && chars.peek().is_some_and(|&(_, next)| !ends_name(next)) {
                continue;
            }
            let (run, after) = if ends_name(c) {
                (&text[start..at], Some(c))
            } else {
                (
                    &text[start..at + c.len_utf8()],
                    chars.peek().map(|&(_, n)| n),
                )
            };
            start = at + c.len_utf8();
            let closes = after.is_none_or(|n| n.is_whitespace() || matches!(n, ',' | ']' | '}'));
            if closes
                && let Some(star) = run.rfind('*')
                && seen.insert(run)
            {
                by_tail.entry(&run[star + 1..]).or_default().push(run);
            }
        }
        Self { by_tail }
    }

    /// Whether `*name` occurs as an alias (`name` holds no character that ends a name).
    pub(super) fn contains(&self, name: &str) -> bool {
        let tail = name.rfind('*').map_or(name, |star| &name[star + 1..]);
        let needle = format!("*{name}");
        self.by_tail
            .get(tail)
            .is_some_and(|runs| runs.iter().any(|run| run.ends_with(&needle)))
    }
}

/// Byte ranges of anchored nodes that an alias uses: editing inside one changes every use.
pub(super) fn aliased_regions(source: &Source<'_>, root: &Node) -> Vec<(usize, usize)> {
    fn walk(source: &Source<'_>, node: &Node, out: &mut Vec<(usize, usize)>) {
        let start = source.byte(node.span.start);
        if source.text[start..].starts_with('&') {
            let name = anchor_name(&source.text[start + 1..]);
            if !name.is_empty() && source.is_aliased(name) {
                out.push((start, source.end(node)));
            }
        }
        if let Some(entries) = node.as_map() {
            for entry in entries {
                walk(source, &entry.value, out);
            }
        } else if let Some(items) = node.as_seq() {
            for item in items {
                walk(source, item, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(source, root, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Refuses a change whose path passes through an alias (`*name`, `<<: *name`) or into an
/// anchored node used elsewhere.
pub(super) fn check_path(
    source: &Source<'_>,
    root: &Node,
    path: &[Segment],
    regions: &[(usize, usize)],
) -> Result<(), Refusal> {
    let mut node = root;
    for segment in path {
        let Some(next) = child(node, segment) else {
            return Ok(());
        };
        let start = source.byte(next.span.start);
        let container = (source.byte(node.span.start), source.end(node));
        let outside_parent = node.as_map().is_some()
            && !(container.0 <= start && start <= container.1)
            && node.span != root.span;
        if source.text[start..].starts_with('*') || outside_parent {
            return Err(Refusal::FromAlias(FieldPath(path.to_vec())));
        }
        if regions.iter().any(|(s, e)| *s <= start && start <= *e) {
            return Err(Refusal::InsideAnchor(FieldPath(path.to_vec())));
        }
        node = next;
    }
    Ok(())
}
