//! `mutant-schemata SOURCE MUTANTS OUT MAP [FIRST_ID]`
//!
//! Rewrites the Rust file `SOURCE` with every mutant of `MUTANTS` (its entries of
//! `cargo mutants --list --json`) behind `crate::__mutant_on(ID)` into `OUT`, and writes `MAP`: one
//! `{id, name, placed, region}` per mutant, `region` being the byte range of `OUT` that holds its
//! mutated code. Entries without an `id` are numbered from `FIRST_ID` (default 1).

use mutant_schemata::{Mutant, Rewritten, rewrite};
use serde_json::{Value, json};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mutant-schemata: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [source, mutants, out, map, rest @ ..] = args else {
        return Err("usage: mutant-schemata SOURCE MUTANTS OUT MAP [FIRST_ID]".to_owned());
    };
    let first_id = match rest {
        [] => 1,
        [first] => first
            .parse()
            .map_err(|e| format!("FIRST_ID {first}: {e}"))?,
        _ => return Err("too many arguments".to_owned()),
    };
    let text = read(source)?;
    let list: Value =
        serde_json::from_str(&read(mutants)?).map_err(|e| format!("{mutants}: {e}"))?;
    let mutants = Mutant::list_from_json(&list, first_id)?;
    let rewritten = rewrite(&text, &mutants).map_err(|e| format!("{source}: {e}"))?;
    write(out, &rewritten.text)?;
    write(map, &placement_map(&rewritten))
}

fn placement_map(rewritten: &Rewritten) -> String {
    let entries: Vec<Value> = (rewritten.placements.iter())
        .map(|placement| {
            let mut entry = json!({"id": placement.id, "name": placement.name, "placed": placement.outcome.label()});
            if let Some((start, end)) = placement.region {
                entry["region"] = json!([start, end]);
            }
            entry
        })
        .collect();
    serde_json::to_string_pretty(&entries).unwrap_or_default()
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn write(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}
