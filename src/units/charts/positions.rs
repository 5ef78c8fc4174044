//! Where a field of a document `helm template` printed stands in the chart's template file:
//! the template is read line by line as a YAML outline (indentation, `key:` and `- ` items),
//! lines holding only template actions (`{{ … }}`) left out, and a field's key path is
//! followed down that outline. A field the template does not spell out (printed by
//! `toYaml`, or by a `range` beyond its first item) is placed at the nearest parent the
//! template does write; a document at the first line of its part of the template.

use crate::yaml::{Mapping, Node, Pos, Span, Value};

/// One structural line of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Line {
    /// 1-based line number.
    number: u32,
    /// Byte offset of the line's start in the template.
    offset: usize,
    /// Byte length of the line, without its end of line and trailing blanks.
    length: usize,
    /// Byte column (0-based) of the line's first character.
    indent: usize,
    /// The line is a sequence item (`- …`).
    item: bool,
    /// The key the line writes (after `- ` on an item line), unless it holds an action.
    key: Option<String>,
    /// Byte column of the key (the content after `- ` on an item line).
    key_column: usize,
    /// Byte column of the value on the same line, when there is one.
    value_column: Option<usize>,
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A template file read as an outline, its documents (`---`) apart.
#[derive(Debug)]
pub(super) struct Outline<'t> {
    text: &'t str,
    documents: Vec<Vec<Line>>,
}

impl<'t> Outline<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        let mut documents = vec![Vec::new()];
        let mut offset = 0;
        for (n, raw) in text.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += raw.len();
            let line = raw.trim_end_matches(['\n', '\r']);
            let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
            if line.starts_with("---") && line[3..].trim().is_empty() {
                documents.push(Vec::new());
                continue;
            }
            if let Some(parsed) = structural(line, number, start)
                && let Some(last) = documents.last_mut()
            {
                last.push(parsed);
            }
        }
        documents.retain(|lines| !lines.is_empty());
        Self { text, documents }
    }

    /// Gives every node of `root`, the `nth` document the template printed, the position in
    /// the template of the field it is.
    pub(super) fn place(&self, nth: usize, root: &mut Node) {
        let Some(lines) = self.documents.get(nth).or_else(|| self.documents.last()) else {
            let start = Pos {
                line: 1,
                column: 1,
                index: 0,
            };
            place_all(root, Span { start, end: start });
            return;
        };
        let first = self.span(&lines[0], lines[0].indent, lines[0].length);
        let mut path = Vec::new();
        self.place_node(lines, root, &mut path, first);
    }

    /// The number of parts (`---`) of the template that write anything.
    pub(super) fn parts(&self) -> usize {
        self.documents.len()
    }

    /// How well `root`, a printed document, fits the template's `part`: the number of its
    /// fields (at most `FIT_BUDGET` looked at) that the part writes where the document has
    /// them, or None when the part writes a literal `kind:` other than the document's.
    pub(super) fn fit(&self, part: usize, root: &Node) -> Option<usize> {
        let lines = self.documents.get(part)?;
        let literal_kind = follow(lines, &[Step::Key("kind".to_owned())])
            .and_then(|line| Some(self.line_text(line).get(line.value_column?..)?.trim()))
            .filter(|kind| !kind.contains("{{"))
            .map(|kind| kind.trim_matches(['"', '\'']));
        if let (Some(written), Some(printed)) =
            (literal_kind, root.get("kind").and_then(Node::as_str))
            && written != printed
        {
            return None;
        }
        let mut budget = FIT_BUDGET;
        let mut path = Vec::new();
        Some(fields_written(lines, root, &mut path, &mut budget))
    }

    fn place_node(&self, lines: &[Line], node: &mut Node, path: &mut Vec<Step>, parent: Span) {
        let found = if path.is_empty() {
            None
        } else {
            follow(lines, path)
        };
        let item = matches!(path.last(), Some(Step::Index(_)));
        node.span = found.map_or(parent, |line| self.value_span(lines, line, item));
        let anchor = found.map_or(parent, |line| self.key_span(line));
        match &mut node.value {
            Value::Map(map) => {
                let mut entries = std::mem::take(map).into_vec();
                for entry in &mut entries {
                    path.push(Step::Key(entry.key.clone()));
                    entry.key_span = follow(lines, path).map_or(anchor, |line| self.key_span(line));
                    self.place_node(lines, &mut entry.value, path, anchor);
                    path.pop();
                }
                *map = Mapping::new(entries);
            }
            Value::Seq(items) => {
                for (n, item) in items.iter_mut().enumerate() {
                    path.push(Step::Index(n));
                    self.place_node(lines, item, path, anchor);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// The span of a line's key (its content after `- ` on an item line).
    fn key_span(&self, line: &Line) -> Span {
        let end = match (&line.key, line.value_column) {
            (Some(key), _) => {
                line.key_column + key_width(self.line_text(line), line.key_column, key)
            }
            (None, Some(value)) => value,
            (None, None) => line.length,
        };
        self.span(line, line.key_column, end)
    }

    /// The span of a node the line writes: its value on the same line, else (and for a
    /// sequence `item`) the line and the lines of its block.
    fn value_span(&self, lines: &[Line], line: &Line, item: bool) -> Span {
        match line.value_column {
            Some(column) if !item => self.span(line, column, line.length),
            _ => {
                let last = block_end(lines, line);
                let start = self.span(line, line.key_column, line.length).start;
                let end = self.span(last, last.length, last.length).end;
                Span { start, end }
            }
        }
    }

    fn line_text(&self, line: &Line) -> &str {
        self.text
            .get(line.offset..line.offset + line.length)
            .unwrap_or_default()
    }

    /// The span from byte column `from` to `to` of `line`, columns counted in characters.
    fn span(&self, line: &Line, from: usize, to: usize) -> Span {
        let text = self.line_text(line);
        let at = |column: usize| {
            let column = floor_boundary(text, column.min(text.len()));
            Pos {
                line: line.number,
                column: u32::try_from(text[..column].chars().count() + 1).unwrap_or(u32::MAX),
                index: u32::try_from(line.offset + column).unwrap_or(u32::MAX),
            }
        };
        Span {
            start: at(from),
            end: at(to.max(from)),
        }
    }
}

/// How many of a document's fields `Outline::fit` follows into a part at most.
const FIT_BUDGET: usize = 256;

/// The fields below `node` (at `path`) that `lines` write, counting each field looked at
/// against `budget`.
fn fields_written(lines: &[Line], node: &Node, path: &mut Vec<Step>, budget: &mut usize) -> usize {
    let mut written = 0;
    let visit = |step: Step, child: &Node, path: &mut Vec<Step>, budget: &mut usize| {
        if *budget == 0 {
            return 0;
        }
        *budget -= 1;
        path.push(step);
        let found = if follow(lines, path).is_some() {
            1 + fields_written(lines, child, path, budget)
        } else {
            0
        };
        path.pop();
        found
    };
    match &node.value {
        Value::Map(map) => {
            for entry in map {
                written += visit(Step::Key(entry.key.clone()), &entry.value, path, budget);
            }
        }
        Value::Seq(items) => {
            for (n, item) in items.iter().enumerate() {
                written += visit(Step::Index(n), item, path, budget);
            }
        }
        _ => {}
    }
    written
}

/// Gives every node of `node` the span `span`.
pub(super) fn place_all(node: &mut Node, span: Span) {
    node.span = span;
    match &mut node.value {
        Value::Map(map) => {
            let mut entries = std::mem::take(map).into_vec();
            for entry in &mut entries {
                entry.key_span = span;
                place_all(&mut entry.value, span);
            }
            *map = Mapping::new(entries);
        }
        Value::Seq(items) => items.iter_mut().for_each(|item| place_all(item, span)),
        _ => {}
    }
}

/// The line that writes the field at `path`, followed from the document's top level; None
/// when the template does not write it where the path leads.
fn follow<'l>(lines: &'l [Line], path: &[Step]) -> Option<&'l Line> {
    let mut scope = lines;
    let mut found = None;
    for step in path {
        // The scope's children: the lines at the indentation of its first line.
        let first = scope.first()?;
        let hit = match step {
            Step::Key(key) => {
                let column = first.key_column;
                scope.iter().position(|line| {
                    line.key_column == column && line.key.as_deref() == Some(key)
                })?
            }
            Step::Index(n) => {
                if !first.item {
                    return None;
                }
                let indent = first.indent;
                scope
                    .iter()
                    .enumerate()
                    .filter(|(_, line)| line.item && line.indent == indent)
                    .nth(*n)?
                    .0
            }
        };
        let line = &scope[hit];
        found = Some(line);
        scope = match step {
            // An item's children start on its own line (`- name: a`) or below.
            Step::Index(_) => item_scope(&scope[hit..]),
            Step::Key(_) => block_scope(&scope[hit..]),
        };
    }
    found
}

/// The lines below `lines[0]` that are indented further: the block of the key it writes.
fn block_scope(lines: &[Line]) -> &[Line] {
    let Some((head, rest)) = lines.split_first() else {
        return lines;
    };
    let end = rest
        .iter()
        .position(|line| {
            line.indent <= head.key_column && !(line.item && line.indent == head.key_column)
        })
        .unwrap_or(rest.len());
    &rest[..end]
}

/// An item line and the lines of its item: its content on the line and below.
fn item_scope(lines: &[Line]) -> &[Line] {
    let Some((head, rest)) = lines.split_first() else {
        return lines;
    };
    let end = rest
        .iter()
        .position(|line| line.indent <= head.indent)
        .unwrap_or(rest.len());
    if head.key_column < head.length {
        // `- key: …`: the item is a mapping that starts on this line.
        &lines[..=end]
    } else {
        &rest[..end]
    }
}

/// The last line of the block a line opens.
fn block_end<'l>(lines: &'l [Line], line: &'l Line) -> &'l Line {
    let Some(at) = lines.iter().position(|l| l.number == line.number) else {
        return line;
    };
    let rest = if line.item {
        item_scope(&lines[at..])
    } else {
        block_scope(&lines[at..])
    };
    rest.last()
        .filter(|last| last.number > line.number)
        .unwrap_or(line)
}

/// The line as an outline line; None for a blank line, a comment, or a line that holds only
/// template actions (`{{- if … }}`).
fn structural(line: &str, number: u32, offset: usize) -> Option<Line> {
    let trimmed = line.trim_end();
    let content = trimmed.trim_start();
    if content.is_empty() || content.starts_with('#') || without_actions(content).trim().is_empty()
    {
        return None;
    }
    let indent = trimmed.len() - content.len();
    let (item, key_column) = match content.strip_prefix('-') {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
            let inner = rest.trim_start();
            (true, trimmed.len() - inner.len())
        }
        _ => (false, indent),
    };
    let body = &trimmed[key_column..];
    let (key, value_column) = match key_of(body) {
        Some((key, value)) => (key, value.map(|v| key_column + v)),
        None if body.is_empty() => (None, None),
        None => (None, Some(key_column)),
    };
    Some(Line {
        number,
        offset,
        length: trimmed.len(),
        indent,
        item,
        key,
        key_column,
        value_column,
    })
}

/// The text with every `{{ … }}` action taken out.
fn without_actions(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        match rest[open..].find("}}") {
            Some(close) => rest = &rest[open + close + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The key `body` writes (`key: value`, `"key": value`, `key:`) and the byte offset of its
/// value on the line, if any; the key is None when it holds an action.
fn key_of(body: &str) -> Option<(Option<String>, Option<usize>)> {
    let (key, after) = if let Some(quoted) = body.strip_prefix('"') {
        let close = quoted.find('"')?;
        (&quoted[..close], close + 2)
    } else if let Some(quoted) = body.strip_prefix('\'') {
        let close = quoted.find('\'')?;
        (&quoted[..close], close + 2)
    } else {
        let colon = colon_of(body)?;
        (body[..colon].trim_end(), colon)
    };
    let rest = body.get(after..)?;
    let rest = rest.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let value = rest.trim_start();
    let value_column =
        (!value.is_empty() && !value.starts_with('#')).then(|| body.len() - value.len());
    let key = (!key.contains("{{")).then(|| key.to_owned());
    Some((key, value_column))
}

/// The byte offset of the colon that ends a plain key: the first `: ` or final `:` outside
/// template actions.
fn colon_of(body: &str) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"{{") {
            depth += 1;
            i += 2;
            continue;
        }
        if depth > 0 && bytes[i..].starts_with(b"}}") {
            depth -= 1;
            i += 2;
            continue;
        }
        if depth == 0 && bytes[i] == b':' && matches!(bytes.get(i + 1), None | Some(b' ' | b'\t')) {
            return Some(i);
        }
        if depth == 0 && bytes[i] == b'#' && i > 0 && bytes[i - 1] == b' ' {
            return None;
        }
        i += 1;
    }
    None
}

/// The width in bytes of the key as written at `column` (quotes included).
fn key_width(text: &str, column: usize, key: &str) -> usize {
    match text.as_bytes().get(column) {
        Some(b'"' | b'\'') => key.len() + 2,
        _ => key.len().max(1),
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};

    const TEMPLATE: &str = r#"{{- range .Values.vms }}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {{ .name }}
  labels:
    {{- include "labels" $ | nindent 4 }}
spec:
  runStrategy: Always
  instancetype:
    name: {{ .size | quote }}
  template:
    spec:
      domain:
        devices:
          disks:
            - name: root
              disk: {bus: virtio}
          interfaces:
          {{- range .nics }}
            - name: {{ . }}
              masquerade: {}
          {{- end }}
{{- end }}
"#;

    const RENDERED: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: a
  labels:
    app: x
spec:
  runStrategy: Always
  instancetype:
    name: \"u1.smal\"
  template:
    spec:
      domain:
        devices:
          disks:
          - name: root
            disk: {bus: virtio}
          interfaces:
          - name: one
            masquerade: {}
          - name: two
            masquerade: {}
";

    fn placed() -> Node {
        let mut root = parse_stream(RENDERED, Limits::default())
            .remove(0)
            .unwrap()
            .root;
        Outline::new(TEMPLATE).place(0, &mut root);
        root
    }

    fn at(node: &Node, path: &[&str]) -> (u32, u32) {
        let mut node = node;
        for key in path {
            node = match key.parse::<usize>() {
                Ok(n) => &node.as_seq().unwrap()[n],
                Err(_) => node.get(key).unwrap(),
            };
        }
        (node.span.start.line, node.span.start.column)
    }

    #[test]
    fn fields_are_placed_at_the_template_line_that_writes_them() {
        let root = placed();
        assert_eq!(at(&root, &["kind"]), (4, 7));
        assert_eq!(at(&root, &["metadata", "name"]), (6, 9));
        assert_eq!(at(&root, &["spec", "instancetype", "name"]), (12, 11));
        let disks = ["spec", "template", "spec", "domain", "devices", "disks"];
        let mut disk = disks.to_vec();
        disk.extend(["0", "disk"]);
        assert_eq!(at(&root, &disk), (19, 21));
        let mut nic = disks[..5].to_vec();
        nic.extend(["interfaces", "0", "name"]);
        assert_eq!(at(&root, &nic), (22, 21));
    }

    #[test]
    fn fields_the_template_does_not_write_are_placed_at_their_nearest_written_parent() {
        let root = placed();
        let labels = root.get("metadata").unwrap().entry("labels").unwrap();
        let app = labels.value.entry("app").unwrap();
        assert_eq!((app.key_span.start.line, app.key_span.start.column), (7, 3));
        // The second item of a `range`: its parent's key.
        let mut nic = vec![
            "spec",
            "template",
            "spec",
            "domain",
            "devices",
            "interfaces",
        ];
        nic.extend(["1", "name"]);
        assert_eq!(at(&root, &nic), (20, 11));
    }

    #[test]
    fn key_spans_cover_the_key_and_value_spans_the_value() {
        let root = placed();
        let name = root
            .get("spec")
            .unwrap()
            .get("instancetype")
            .unwrap()
            .entry("name")
            .unwrap();
        let key = name.key_span;
        assert_eq!((key.start.column, key.end.column), (5, 9));
        let value = name.value.span;
        assert_eq!((value.start.column, value.end.column), (11, 30));
        let line_start = TEMPLATE
            .lines()
            .take(11)
            .map(|l| l.len() + 1)
            .sum::<usize>();
        assert_eq!(key.start.index as usize, line_start + 4);
    }

    #[test]
    fn lines_of_any_text_are_read_without_panicking() {
        for line in [
            "é: {{ .x }}",
            "- ü",
            "\"unterminated: x",
            "日本: 値 # コメント",
            "{{ a }}: b",
            "key:{{ x }}",
            "- - nested: 1",
            "a: b: c",
        ] {
            let outline = Outline::new(line);
            let mut root = parse_stream("a: 1\n", Limits::default())
                .remove(0)
                .unwrap()
                .root;
            outline.place(0, &mut root);
        }
        assert_eq!(
            structural("日本: 値", 1, 0).unwrap().key.as_deref(),
            Some("日本")
        );
    }

    #[test]
    fn action_lines_comments_and_blank_lines_are_not_structure() {
        let outline = Outline::new("{{- if .x }}\n# c\n\nkind: A\n  {{ end }}\n");
        assert_eq!(outline.documents.len(), 1);
        assert_eq!(outline.documents[0].len(), 1);
        assert_eq!(outline.documents[0][0].key.as_deref(), Some("kind"));
    }

    #[test]
    fn a_template_without_structure_places_everything_on_its_first_line() {
        let mut root = parse_stream("kind: A\nspec: {a: 1}\n", Limits::default())
            .remove(0)
            .unwrap()
            .root;
        Outline::new("{{ toYaml .Values.object }}\n").place(0, &mut root);
        assert_eq!(at(&root, &["spec", "a"]), (1, 1));
    }
}
