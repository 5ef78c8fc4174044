//! Generated documents around the edges of the fast path's subset (indentation steps,
//! indentless sequences, comments and blank lines anywhere, quoting, indicators, block
//! scalars, empty collections, and lines shifted by a column): whenever the fast path
//! accepts a text, it must build what saphyr builds, errors included.

use std::fmt::Write as _;

use proptest::prelude::*;

use super::super::{Limits, fast, parse_chunk_with, split_documents};

const KEYS: &[&str] = &[
    "a",
    "key",
    "name",
    "on",
    "yes",
    "<<",
    "-k",
    "\"q k\"",
    "'s k'",
    "k k",
    "a#b",
    "x:y",
    "\"e\\\"\"",
    "'it''s'",
    "?x",
    "k ",
    "-",
    "1",
    "~",
    "\"\"",
    "a.b/c-d_e",
];
const VALUES: &[&str] = &[
    "v",
    "two words",
    "-1",
    "1.5",
    "0x1F",
    "~",
    "null",
    "true",
    "x:y",
    "a#b",
    "http://x/y",
    "\"q\"",
    "'q'",
    "\"\"",
    "''",
    "\"a\\\"b\"",
    "'it''s'",
    "\"open",
    "[a]",
    "{a: b}",
    "&x v",
    "*x",
    "!t v",
    "|+",
    ">",
    "|2",
    "@x",
    "%x",
    ":x",
    "?x",
    "-",
    "- x",
    "a: b",
    "a:",
    "`x`",
    "'",
    "\"",
    "1e3",
    "0o17",
    "+1",
    ".inf",
    "y",
    "No",
    "2024-01-01",
    "a,b",
];
const TRAILS: &[&str] = &["", "", "", "  ", " # c", "#c", "   # c  "];

/// xorshift64*: a seed from proptest drives the generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        usize::try_from(self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33).unwrap_or(0) % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// Mostly from the first `common` items, so that whole documents stay inside the
    /// subset often enough.
    fn mostly<'a>(&mut self, items: &[&'a str], common: usize) -> &'a str {
        if self.below(8) == 0 {
            self.pick(items)
        } else {
            self.pick(&items[..common])
        }
    }

    fn step(&mut self) -> usize {
        1 + self.below(4)
    }
}

fn noise(rng: &mut Rng, out: &mut String) {
    match rng.below(8) {
        0 => out.push('\n'),
        1 => writeln!(out, "{}# note", " ".repeat(rng.below(6))).unwrap(),
        2 => out.push_str(&" ".repeat(1 + rng.below(4))),
        _ => return,
    }
    if out.ends_with(' ') {
        out.push('\n');
    }
}

fn value(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
    match rng.below(if depth > 4 { 2 } else { 9 }) {
        0 => {
            let trail = rng.pick(TRAILS);
            writeln!(out, " {}{trail}", rng.mostly(VALUES, 17)).unwrap();
        }
        1 => writeln!(out, "{}", rng.pick(&["", " ", " # c"])).unwrap(),
        2 => writeln!(out, " {}{}", rng.pick(&["{}", "[]"]), rng.pick(TRAILS)).unwrap(),
        3 | 4 => {
            writeln!(out, "{}", rng.pick(TRAILS)).unwrap();
            let inner = indent + rng.step();
            mapping(rng, out, inner, depth + 1);
        }
        5 | 6 => {
            out.push('\n');
            let inner = indent + [0, 0, rng.step()][rng.below(3)];
            sequence(rng, out, inner, depth + 1);
        }
        _ => block(rng, out, indent),
    }
}

fn block(rng: &mut Rng, out: &mut String, indent: usize) {
    writeln!(out, " {}{}", rng.pick(&["|", "|", "|-"]), rng.pick(TRAILS)).unwrap();
    let inner = indent + rng.step();
    for _ in 0..=rng.below(4) {
        match rng.below(6) {
            0 => out.push('\n'),
            1 => writeln!(out, "{}# kept", " ".repeat(inner)).unwrap(),
            2 => writeln!(out, "{}deeper  ", " ".repeat(inner + 2)).unwrap(),
            _ => writeln!(out, "{}{}", " ".repeat(inner), rng.mostly(VALUES, 17)).unwrap(),
        }
    }
}

fn mapping(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
    for _ in 0..=rng.below(4) {
        noise(rng, out);
        write!(out, "{}{}:", " ".repeat(indent), rng.mostly(KEYS, 13)).unwrap();
        value(rng, out, indent, depth);
    }
}

fn sequence(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
    for _ in 0..=rng.below(3) {
        noise(rng, out);
        let gap = 1 + rng.below(3);
        write!(out, "{}-{}", " ".repeat(indent), " ".repeat(gap)).unwrap();
        match rng.below(if depth > 4 { 2 } else { 5 }) {
            0 => writeln!(out, "{}{}", rng.mostly(VALUES, 17), rng.pick(TRAILS)).unwrap(),
            1 => writeln!(out, "{}", rng.pick(&["{}", "[]", "|"])).unwrap(),
            _ => {
                let inner = indent + 1 + gap;
                write!(out, "{}:", rng.mostly(KEYS, 13)).unwrap();
                value(rng, out, inner, depth + 1);
                let mut rest = String::new();
                mapping(rng, &mut rest, inner, depth + 1);
                if rng.below(2) == 0 {
                    out.push_str(&rest);
                }
            }
        }
    }
}

fn document(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let mut out = String::new();
    if rng.below(4) == 0 {
        out.push_str("---\n");
    }
    if rng.below(5) == 0 {
        sequence(&mut rng, &mut out, 0, 0);
    } else {
        mapping(&mut rng, &mut out, 0, 0);
    }
    // A line shifted by a column, or a last line without its break.
    let lines: Vec<&str> = out.lines().collect();
    let shift = rng.below(lines.len() * 6);
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        match (i == shift, rng.below(2)) {
            (true, 0) => text.push(' '),
            (true, _) => text.push_str(line.strip_prefix(' ').unwrap_or(line)),
            _ => {}
        }
        if i != shift || text.ends_with(' ') {
            text.push_str(line);
        }
        text.push('\n');
    }
    if rng.below(6) == 0 {
        text.pop();
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]
    #[test]
    fn the_fast_path_agrees_with_saphyr(seed in any::<u64>()) {
        let text = document(seed);
        for chunk in split_documents(&text) {
            let limits = Limits::default();
            prop_assert_eq!(
                format!("{:?}", parse_chunk_with(&chunk, limits, true)),
                format!("{:?}", parse_chunk_with(&chunk, limits, false)),
                "{}", chunk.text
            );
        }
    }
}

/// The generator must reach the fast path often, or the property proves little.
#[test]
fn generated_documents_mostly_take_the_fast_path() {
    let accepted = (1..=2000u64)
        .filter(|&seed| {
            let text = document(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            split_documents(&text)
                .iter()
                .all(|chunk| fast::events(chunk.text, 64).is_some())
        })
        .count();
    assert!(accepted > 300, "{accepted} of 2000");
}
