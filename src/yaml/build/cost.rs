//! What a document costs in the budget of `Limits`: its nodes and the bytes they hold, aliases
//! counted at every use.

use super::super::node::{Entry, Node, Value};

/// What one node costs in the budget besides its text: an entry holds a key and a node.
const NODE_BYTES: usize = std::mem::size_of::<Entry>();

pub(super) fn bytes_text(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// What part of a document costs in the budget of `Limits`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cost {
    pub(super) nodes: usize,
    pub(super) bytes: usize,
}

impl Cost {
    pub(super) const COLLECTION: Cost = Cost {
        nodes: 1,
        bytes: NODE_BYTES,
    };

    pub(super) fn scalar(text: &str) -> Cost {
        Cost {
            nodes: 1,
            bytes: NODE_BYTES + text.len(),
        }
    }

    pub(super) fn plus(self, other: Cost) -> Cost {
        Cost {
            nodes: self.nodes.saturating_add(other.nodes),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

/// What a copy of `node` costs: its nodes (mapping keys included, as the parser counts them)
/// and their text.
pub(super) fn node_cost(node: &Node) -> Cost {
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
