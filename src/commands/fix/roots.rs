//! The objects of a file a finding can belong to, found by position in logarithmic time (a
//! file of 20,000 VMs has as many roots as findings to place).

use std::ops::Range;

use crate::yaml::{Limits, Node, Pos, parse_stream};

/// The roots a finding's path is relative to: each document, and each item of a `List`.
pub(super) struct Roots {
    pub(super) nodes: Vec<Node>,
    /// Per document, in order: its root's index in `nodes` and the range of its items.
    documents: Vec<(usize, Range<usize>)>,
}

fn key(pos: Pos) -> (u32, u32) {
    (pos.line, pos.column)
}

fn contains(node: &Node, at: (u32, u32)) -> bool {
    key(node.span.start) <= at && at <= key(node.span.end)
}

/// The first of `nodes` (sorted by start, not overlapping but maybe touching) that holds `at`.
fn first_containing(nodes: &[Node], at: (u32, u32)) -> Option<usize> {
    let after = nodes.partition_point(|node| key(node.span.start) <= at);
    let mut found = None;
    for index in (0..after).rev() {
        if !contains(&nodes[index], at) {
            break;
        }
        found = Some(index);
    }
    found
}

impl Roots {
    pub(super) fn parse(text: &str) -> Self {
        let mut nodes = Vec::new();
        let mut documents = Vec::new();
        for document in parse_stream(text, Limits::default()).into_iter().flatten() {
            let first = nodes.len();
            if let Some(items) = document.root.get("items").and_then(Node::as_seq) {
                nodes.extend(items.iter().cloned());
            }
            let items = first..nodes.len();
            nodes.push(document.root);
            documents.push((nodes.len() - 1, items));
        }
        Self { nodes, documents }
    }

    /// The innermost root that holds the position: a `List` item rather than the `List`.
    pub(super) fn innermost(&self, at: Pos) -> Option<usize> {
        let at = key(at);
        let after = self
            .documents
            .partition_point(|(root, _)| key(self.nodes[*root].span.start) <= at);
        let mut found = None;
        for (root, items) in self.documents[..after].iter().rev() {
            if !contains(&self.nodes[*root], at) {
                break;
            }
            found = Some(
                first_containing(&self.nodes[items.clone()], at)
                    .map_or(*root, |index| items.start + index),
            );
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, column: u32) -> Pos {
        Pos {
            line,
            column,
            index: 0,
        }
    }

    #[test]
    fn list_items_come_before_their_list() {
        let text = "a: 1\n---\nkind: List\nitems:\n- p: 1\n- q: 2\n---\nb: 2\n";
        let roots = Roots::parse(text);
        let node = |i: usize| roots.nodes[i].get("q").is_some();
        let item = roots.innermost(at(6, 6)).unwrap();
        assert!(node(item));
        let list = roots.innermost(at(3, 1)).unwrap();
        assert!(roots.nodes[list].get("kind").is_some());
        let final_document = roots.innermost(at(8, 1)).unwrap();
        assert!(roots.nodes[final_document].get("b").is_some());
        assert!(roots.innermost(at(1, 1)).is_some());
        assert_eq!(roots.innermost(at(99, 1)), None);
    }
}
