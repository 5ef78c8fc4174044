use std::fmt;
use std::fmt::Write as _;

use super::node::{Node, Value};
use crate::model::value::field;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A field path in Kubernetes notation: fields joined by dots, `[N]` for list indices and
/// `[key]` for map keys that are not plain identifiers
/// (`spec.template.metadata.annotations[kubevirt.io/pci-topology-version]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldPath(pub Vec<Segment>);

impl FieldPath {
    pub fn root() -> Self {
        Self(Vec::new())
    }

    /// Parses a dotted path with `[N]` indices and `[key]` keys.
    pub fn parse(text: &str) -> Self {
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if !current.is_empty() {
                        segments.push(Segment::Key(std::mem::take(&mut current)));
                    }
                }
                '[' => {
                    if !current.is_empty() {
                        segments.push(Segment::Key(std::mem::take(&mut current)));
                    }
                    let mut inner = String::new();
                    for c in chars.by_ref() {
                        if c == ']' {
                            break;
                        }
                        inner.push(c);
                    }
                    segments.push(match inner.parse::<usize>() {
                        Ok(i) => Segment::Index(i),
                        Err(_) => Segment::Key(inner),
                    });
                }
                _ => current.push(c),
            }
        }
        if !current.is_empty() {
            segments.push(Segment::Key(current));
        }
        Self(segments)
    }

    #[must_use]
    pub fn key(&self, key: &str) -> Self {
        let mut out = self.clone();
        out.0.push(Segment::Key(key.to_owned()));
        out
    }

    #[must_use]
    pub fn index(&self, index: usize) -> Self {
        let mut out = self.clone();
        out.0.push(Segment::Index(index));
        out
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn starts_with(&self, other: &FieldPath) -> bool {
        self.0.starts_with(&other.0)
    }
}

fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl FieldPath {
    /// The path as `Display` writes it, in one allocation of the right size (`to_string` grows
    /// its buffer a piece at a time; findings name a path each).
    pub fn text(&self) -> String {
        let size = self
            .0
            .iter()
            .map(|segment| match segment {
                Segment::Key(key) => key.len() + 2,
                Segment::Index(_) => 6,
            })
            .sum();
        let mut out = String::with_capacity(size);
        // Writing into a String cannot fail.
        let _ = self.write_into(&mut out);
        out
    }

    fn write_into(&self, out: &mut impl fmt::Write) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if is_plain_key(key) => {
                    if i > 0 {
                        out.write_char('.')?;
                    }
                    out.write_str(key)?;
                }
                Segment::Key(key) => {
                    out.write_char('[')?;
                    out.write_str(key)?;
                    out.write_char(']')?;
                }
                Segment::Index(index) => write!(out, "[{index}]")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_into(f)
    }
}

impl Node {
    /// The node at `path`, or the deepest existing ancestor and `false` when the path does not
    /// exist in full (a finding about a missing field points at its nearest parent).
    pub fn lookup(&self, path: &FieldPath) -> (&Node, bool) {
        let mut node = self;
        for segment in &path.0 {
            let next = match (segment, &node.value) {
                (Segment::Key(key), Value::Map(_)) => node.get(key),
                (Segment::Index(i), Value::Seq(items)) => items.get(*i),
                _ => None,
            };
            match next {
                Some(child) => node = child,
                None => return (node, false),
            }
        }
        (node, true)
    }

    /// Where a finding about `path` points: the whole `key: value` entry when the path exists,
    /// else the key of its deepest existing ancestor (one line, not the ancestor's whole
    /// subtree). The flag says whether the path exists.
    pub fn lookup_entry_span(&self, path: &FieldPath) -> (super::Span, bool) {
        let mut node = self;
        let mut anchor = self.span;
        let mut whole = self.span;
        for segment in &path.0 {
            match (segment, &node.value) {
                (Segment::Key(key), Value::Map(_)) => {
                    let Some(entry) = node.entry(key) else {
                        return (anchor, false);
                    };
                    anchor = entry.key_span;
                    whole = super::Span {
                        start: entry.key_span.start,
                        end: entry.value.span.end.max(entry.key_span.end),
                    };
                    node = &entry.value;
                }
                (Segment::Index(i), Value::Seq(items)) => {
                    let Some(item) = items.get(*i) else {
                        return (anchor, false);
                    };
                    anchor = item
                        .as_map()
                        .and_then(|e| e.first())
                        .map_or(item.span, |e| e.key_span);
                    whole = item.span;
                    node = item;
                }
                _ => return (anchor, false),
            }
        }
        (whole, true)
    }
}

/// The JSON value at `segments` below `value`: keys look into objects, indices into lists.
pub fn json_at<'v>(
    value: &'v serde_json::Value,
    segments: &[Segment],
) -> Option<&'v serde_json::Value> {
    segments
        .iter()
        .try_fold(value, |node, segment| match segment {
            Segment::Key(key) => field(node, key),
            Segment::Index(i) => node.get(*i),
        })
}

/// RFC 6901 pointer of a field path (`~` → `~0`, `/` → `~1`).
pub fn json_pointer(path: &FieldPath) -> String {
    let mut out = String::new();
    for segment in &path.0 {
        out.push('/');
        match segment {
            Segment::Key(key) => out.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Segment::Index(i) => {
                let _ = write!(out, "{i}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_kubernetes_notation() {
        let path = FieldPath::root()
            .key("spec")
            .key("template")
            .key("metadata")
            .key("annotations")
            .key("kubevirt.io/pci-topology-version");
        assert_eq!(
            path.to_string(),
            "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]"
        );
        let gpus = FieldPath::parse("spec.template.spec.domain.devices.gpus[0]");
        assert_eq!(gpus.0.last(), Some(&Segment::Index(0)));
        assert_eq!(
            gpus.to_string(),
            "spec.template.spec.domain.devices.gpus[0]"
        );
        assert_eq!(path.text(), path.to_string());
        assert_eq!(gpus.text(), gpus.to_string());
        // A key that is not a plain identifier in first place, indices past one digit, and
        // non-ASCII text (bracketed: only ASCII identifiers are written bare).
        let odd = FieldPath::root()
            .key("a b")
            .index(12)
            .key("ünï")
            .key("x_y-1");
        assert_eq!(odd.text(), "[a b][12][ünï].x_y-1");
        assert_eq!(odd.to_string(), odd.text());
    }

    #[test]
    fn pointers_escape_slashes_and_tildes() {
        let path = FieldPath::parse(
            "spec.template.metadata.annotations[kubevirt.io/pci-topology-version]",
        );
        assert_eq!(
            json_pointer(&path),
            "/spec/template/metadata/annotations/kubevirt.io~1pci-topology-version"
        );
        let odd = FieldPath::root().key("a~b").index(3);
        assert_eq!(json_pointer(&odd), "/a~0b/3");
    }

    #[test]
    fn parses_bracketed_keys() {
        let path = FieldPath::parse("metadata.annotations[a.b/c].x");
        assert_eq!(
            path.0,
            vec![
                Segment::Key("metadata".into()),
                Segment::Key("annotations".into()),
                Segment::Key("a.b/c".into()),
                Segment::Key("x".into()),
            ]
        );
    }
}
