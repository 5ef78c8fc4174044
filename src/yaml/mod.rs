//! Position-keeping YAML, read the way Kubernetes reads it.
//!
//! Kubernetes decodes manifests with `sigs.k8s.io/yaml` over go-yaml v2, i.e. YAML 1.1 scalar
//! rules. The tree built here keeps the exact span of every node so that findings can point at
//! the offending characters, and records the places where YAML 1.1 and YAML 1.2 disagree.

mod build;
pub mod edit;
pub mod embedded;
pub mod emit;
mod fast;
mod flow_top;
mod node;
mod path;
mod scalar;
mod split;

pub use build::{
    Document, DocumentError, DocumentText, Limits, Notice, NoticeKind, StreamEntry, parse_selected,
    parse_stream, parse_stream_deferring,
};
pub use node::{Entry, Mapping, Node, Pos, Span, Value};
pub use path::{FieldPath, Segment, json_at, json_pointer};
pub use scalar::is_plain_safe;

/// The root of the first document of `text`, for tests: panics when there is none or it is not
/// valid YAML.
#[cfg(test)]
pub(crate) fn first_root(text: &str) -> Node {
    parse_stream(text, Limits::default())
        .into_iter()
        .next()
        .expect("a document")
        .expect("valid YAML")
        .root
}
