use std::fmt::Write as _;

use super::*;

mod fast_path_properties;
mod limits;

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
