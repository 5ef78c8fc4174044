//! Loading one YAML file: decoding, parsing with positions, turning documents into objects and
//! indexing them. Every position must fall inside the file.
#![no_main]

use std::sync::Arc;

use kvlint::k8s::Index;
use kvlint::load::{LoadOptions, Loaded, load_documents};
use kvlint::source::decode;
use kvlint::yaml::{Limits, Node, Pos, Span, Value, parse_stream};
use libfuzzer_sys::fuzz_target;

struct Extent {
    lines: u32,
    chars: u32,
}

fn assert_inside(extent: &Extent, span: Span) {
    let inside = |pos: Pos| {
        pos.line >= 1 && pos.line <= extent.lines && pos.column >= 1 && pos.index <= extent.chars
    };
    assert!(
        inside(span.start) && inside(span.end),
        "{span:?} outside the file ({} lines, {} chars)",
        extent.lines,
        extent.chars
    );
    assert!(span.start <= span.end, "{span:?} ends before it starts");
}

fn check_positions(extent: &Extent, node: &Node) {
    assert_inside(extent, node.span);
    match &node.value {
        Value::Seq(items) => items.iter().for_each(|item| check_positions(extent, item)),
        Value::Map(entries) => {
            for entry in entries {
                assert_inside(extent, entry.key_span);
                check_positions(extent, &entry.value);
            }
        }
        _ => {}
    }
}

/// Lines as YAML counts them: CRLF, CR and LF each end a line.
fn yaml_lines(text: &str) -> usize {
    text.replace("\r\n", "\n").split(['\r', '\n']).count()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode(data.to_vec()) else {
        return;
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let extent = Extent {
        lines: u32::try_from(yaml_lines(body)).unwrap_or(u32::MAX),
        chars: u32::try_from(body.chars().count()).unwrap_or(u32::MAX),
    };
    let docs = parse_stream(&text, Limits::default());
    for doc in docs.iter().flatten() {
        check_positions(&extent, &doc.root);
    }
    let display: Arc<str> = Arc::from("fuzz.yaml");
    let mut loaded = Loaded::default();
    load_documents(&display, &text, docs, &LoadOptions::default(), &mut loaded);
    let index = Index::build(&loaded.objects);
    let _ = index.groups().count();
    for finding in &loaded.findings {
        assert!(finding.location.span.start.line <= extent.lines.saturating_add(1));
    }
});
