//! The bounds of `Limits`: depth, nodes and bytes, aliases and merges included.

use super::*;
use crate::yaml::node::keys_compared;

#[test]
fn alias_bombs_are_bounded() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let prev = i - 1;
        let aliases = vec![format!("*a{prev}"); 10].join(", ");
        writeln!(text, "a{i}: &a{i} [{aliases}]").unwrap();
    }
    let err = parse(&text).remove(0).unwrap_err();
    assert!(err.message.contains("more than"), "{}", err.message);
    assert!(err.message.contains("alias"), "{}", err.message);
}

/// Merging a mapping of 100,000 keys compared each key with every key merged before it
/// (5 billion comparisons); now each key read or merged is looked up once.
#[test]
fn a_merge_of_a_wide_mapping_is_linear() {
    let wide = 100_000;
    let keys: Vec<String> = (0..wide).map(|i| format!("k{i}: {i}")).collect();
    let text = format!("base: &b {{{}}}\nm: {{k7: x, <<: *b}}\n", keys.join(", "));
    let before = keys_compared();
    let doc = parse(&text).remove(0).unwrap();
    let compared = keys_compared() - before;
    let merged = doc.root.get("m").unwrap().as_map().unwrap();
    assert_eq!(merged.len(), wide);
    assert_eq!(merged[0].key, "k7");
    assert_eq!(merged[0].value.as_str(), Some("x"));
    assert!(compared <= 3 * wide as u64, "{compared} keys compared");
}

/// Few nodes, many bytes: a long string repeated by an alias. Counting nodes alone let it
/// take gigabytes.
#[test]
fn aliases_of_long_strings_are_bounded_in_bytes() {
    let text = format!(
        "a: &a \"{}\"\nb: [{}]\n",
        "x".repeat(1 << 20),
        vec!["*a"; 1000].join(", ")
    );
    let err = parse(&text).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "document expands to more than 256 MiB through its aliases (alias expansion bomb?)"
    );
    assert_eq!(err.pos.line, 2);
}

/// A large document without aliases is refused as too large, not as a bomb; a top-level
/// flow collection (JSON) is read as it streams.
#[test]
fn a_large_document_is_too_large_not_a_bomb() {
    let text = format!("[{}0]\n", "0,".repeat(100));
    let limits = Limits {
        max_nodes: 50,
        ..Limits::default()
    };
    let err = parse_stream(&text, limits).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "document too large: it holds more than 50 nodes"
    );
    assert_eq!((err.pos.line, err.pos.column), (1, 100));
    let limits = Limits {
        max_bytes: 1000,
        ..Limits::default()
    };
    let err = parse_stream(&text, limits).remove(0).unwrap_err();
    assert_eq!(
        err.message,
        "document too large: it holds more than 1000 bytes"
    );
}

/// `[a]: b` is a mapping with a flow key, which the marker put in front of a top-level flow
/// collection would make an error: such a document is read as written.
#[test]
fn deep_nesting_is_bounded() {
    let text = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let err = parse(&text).remove(0).unwrap_err();
    assert!(
        err.message.contains("nested deeper") || err.message.contains("recursion limit"),
        "{}",
        err.message
    );
    let shallow = format!("{}{}", "[".repeat(150), "]".repeat(150));
    let limits = Limits {
        max_depth: 100,
        ..Limits::default()
    };
    let err = parse_stream(&shallow, limits).remove(0).unwrap_err();
    assert!(err.message.contains("nested deeper"), "{}", err.message);
}
