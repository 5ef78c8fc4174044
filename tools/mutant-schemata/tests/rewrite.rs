//! The rewrite of a small file with the mutants cargo-mutants 27.1 lists for it: every mutant
//! placed, the text compiles, and each switch turns on exactly its mutant.

use mutant_schemata::{Mutant, Outcome, rewrite};
use std::path::{Path, PathBuf};
use std::process::Command;

const SAMPLE: &str = include_str!("fixtures/sample.rs");
const SAMPLE_MUTANTS: &str = include_str!("fixtures/sample.mutants.json");

const SWITCH_AND_MAIN: &str = r#"
fn __mutant_on(n: u32) -> bool {
    std::env::var("KVLINT_MUTANT").ok().and_then(|v| v.parse().ok()) == Some(n)
}

fn main() {
    println!(
        "{} {} {} {} {} {} {} {}",
        is_adult(17), is_adult(18), only_first(true, false), only_first(true, true),
        sign(0), sign(-1), sign(1), area(2, 3),
    );
}
"#;

fn sample_mutants() -> Vec<Mutant> {
    Mutant::list_from_json(&serde_json::from_str(SAMPLE_MUTANTS).unwrap(), 1).unwrap()
}

fn compile(text: &str, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let main = dir.join("main.rs");
    std::fs::write(&main, format!("{text}{SWITCH_AND_MAIN}")).unwrap();
    let binary = dir.join("sample");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let status = Command::new(rustc)
        .args(["--edition", "2024", "-A", "warnings", "-o"])
        .arg(&binary)
        .arg(&main)
        .status()
        .unwrap();
    assert!(status.success(), "the rewritten sample does not compile");
    binary
}

fn output_with(binary: &Path, mutant: u32) -> String {
    let output = Command::new(binary)
        .env("KVLINT_MUTANT", mutant.to_string())
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout)
        .unwrap()
        .trim_end()
        .to_owned()
}

#[test]
fn every_mutant_is_placed_behind_its_own_switch() {
    let mutants = sample_mutants();
    let rewritten = rewrite(SAMPLE, &mutants).unwrap();
    assert_eq!(rewritten.placements.len(), 21);
    for placement in &rewritten.placements {
        assert_eq!(placement.outcome, Outcome::Placed, "{}", placement.name);
        let (start, end) = placement.region.unwrap();
        let switch = format!("__mutant_on({})", placement.id);
        assert!(
            rewritten.text[start..end].contains(&switch),
            "{}",
            placement.name
        );
    }
}

#[test]
fn each_switch_runs_its_mutant_and_no_switch_runs_the_original() {
    let rewritten = rewrite(SAMPLE, &sample_mutants()).unwrap();
    let binary = compile(
        &rewritten.text,
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("sample"),
    );
    let original = "false true true false zero negative positive 7";
    let expected = [
        (0, original),
        (1, "true true true false zero negative positive 7"), // is_adult -> true
        (3, "true false true false zero negative positive 7"), // >= with <
        (6, "false true true true zero negative positive 7"), // && with ||
        (7, "false true false true zero negative positive 7"), // delete !
        (9, "false true true false xyzzy xyzzy xyzzy 7"),     // sign -> "xyzzy"
        (10, "false true true false positive negative positive 7"), // arm `0` deleted
        (11, "false true true false zero negative negative 7"), // guard true
        (12, "false true true false zero positive positive 7"), // guard false
        (15, original),                                       // < with <=: equivalent here
        (16, "false true true false zero negative positive 0"), // area -> 0
        (18, "false true true false zero negative positive 5"), // + with -
        (20, "false true true false zero negative positive 6"), // * with +, inside the +
        (21, "false true true false zero negative positive 1"), // * with /
    ];
    for (mutant, output) in expected {
        assert_eq!(output_with(&binary, mutant), output, "mutant {mutant}");
    }
}

#[test]
fn an_operator_of_a_let_chain_and_an_unknown_position_are_not_placed() {
    let source = "fn f(a: Option<u8>, b: bool) -> bool {\n    if let Some(_) = a && b { true } else { false }\n}\n";
    let entry = |column: usize| {
        serde_json::json!({"name": "m", "genre": "BinaryOperator", "replacement": "||",
            "span": {"start": {"line": 2, "column": column}, "end": {"line": 2, "column": column + 2}}})
    };
    let mutants = Mutant::list_from_json(&serde_json::json!([entry(24), entry(9)]), 1).unwrap();
    let rewritten = rewrite(source, &mutants).unwrap();
    let outcomes: Vec<Outcome> = rewritten.placements.iter().map(|p| p.outcome).collect();
    assert_eq!(outcomes, [Outcome::LetChain, Outcome::NotFound]);
    assert_eq!(rewritten.text, source);
}
