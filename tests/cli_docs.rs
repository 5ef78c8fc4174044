//! README.md documents every option of every command, as `kvlint <command> --help` lists it
//! (clap's definition is the source of both), and no option that does not exist.
//!
//! Each command's options are rows of the table captioned "Options of `<command>`"; the options
//! every command that reads manifests shares are rows of the table captioned "Options of every
//! command that reads manifests".

use std::collections::BTreeSet;

use clap::{Args, CommandFactory};
use kvlint::cli::{Cli, InputArgs};

const README: &str = include_str!("../README.md");
const SHARED_CAPTION: &str = "Options of every command that reads manifests";

/// The long options (with visible aliases) of a clap command, without `--help` and `--version`.
fn long_options(command: &clap::Command) -> BTreeSet<String> {
    command
        .get_arguments()
        .flat_map(|arg| {
            arg.get_long()
                .into_iter()
                .chain(arg.get_visible_aliases().unwrap_or_default())
        })
        .filter(|long| !matches!(*long, "help" | "version"))
        .map(|long| format!("--{long}"))
        .collect()
}

/// The options every command that reads manifests shares.
fn shared_options() -> BTreeSet<String> {
    long_options(&InputArgs::augment_args(clap::Command::new("input")))
}

/// The `--options` named in the first cell of each row of the table after `caption` (a line of
/// `readme` that starts with it), or `None` without such a table.
fn table_options(readme: &str, caption_matches: impl Fn(&str) -> bool) -> Option<BTreeSet<String>> {
    let mut lines = readme.lines().skip_while(|line| !caption_matches(line));
    lines.next()?;
    let rows = lines
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'));
    let mut options = BTreeSet::new();
    for row in rows {
        let first_cell = row.split(" | ").next().unwrap_or_default();
        options.extend(options_in(first_cell));
    }
    Some(options)
}

/// Every `--name` in `text`.
fn options_in(text: &str) -> Vec<String> {
    text.match_indices("--")
        .filter_map(|(at, _)| {
            let name: String = text[at + 2..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            // `| --- |` is a table's separator row, not an option.
            name.starts_with(|c: char| c.is_ascii_lowercase())
                .then(|| format!("--{name}"))
        })
        .collect()
}

/// Whether `line` is the caption of the table of `command`'s own options: "Options of `check`",
/// "Options of `rules` and `explain`".
fn captions(line: &str, command: &str) -> bool {
    line.starts_with("Options of ")
        && !line.starts_with(SHARED_CAPTION)
        && line
            .split(':')
            .next()
            .unwrap_or_default()
            .contains(&format!("`{command}`"))
}

/// What is wrong with `readme`'s options tables: options of `--help` it lacks, and options it
/// lists that no command has.
fn problems(readme: &str) -> Vec<String> {
    let cli = Cli::command();
    let shared = shared_options();
    let mut problems = Vec::new();
    let Some(documented_shared) = table_options(readme, |line| line.starts_with(SHARED_CAPTION))
    else {
        return vec![format!("no table captioned \"{SHARED_CAPTION}\"")];
    };
    for option in shared.difference(&documented_shared) {
        problems.push(format!("{option} is missing from \"{SHARED_CAPTION}\""));
    }
    for option in documented_shared.difference(&shared) {
        problems.push(format!(
            "{option} is in \"{SHARED_CAPTION}\" but not an option of every such command"
        ));
    }
    for command in cli.get_subcommands() {
        let name = command.get_name();
        let options = long_options(command);
        let reads_manifests = shared.is_subset(&options);
        let own: BTreeSet<String> = if reads_manifests {
            options.difference(&shared).cloned().collect()
        } else {
            options
        };
        let Some(documented) = table_options(readme, |line| captions(line, name)) else {
            if !own.is_empty() {
                problems.push(format!("no table captioned \"Options of `{name}`\""));
            }
            continue;
        };
        for option in own.difference(&documented) {
            problems.push(format!(
                "{option} (kvlint {name} --help) is missing from the options of `{name}`"
            ));
        }
        for option in documented.difference(&own) {
            problems.push(format!(
                "{option} is documented for `{name}`, which has no such option of its own"
            ));
        }
    }
    problems
}

#[test]
fn the_readme_documents_every_option_of_every_command() {
    let problems = problems(README);
    assert!(problems.is_empty(), "README.md:\n{}", problems.join("\n"));
}

#[test]
fn a_missing_row_is_found() {
    let without_index = README
        .lines()
        .filter(|line| !line.starts_with("| `--index DIR` | with `--base`"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(without_index.len(), README.len());
    assert_eq!(
        problems(&without_index),
        ["--index (kvlint diff --help) is missing from the options of `diff`"]
    );
}

#[test]
fn a_missing_shared_row_is_found() {
    let without_catalog = README
        .lines()
        .filter(|line| !line.starts_with("| `--catalog "))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        problems(&without_catalog),
        [format!("--catalog is missing from \"{SHARED_CAPTION}\"")]
    );
}

#[test]
fn a_row_of_an_option_that_does_not_exist_is_found() {
    let with_stale_row = README.replacen(
        "| `--unsafe-fixes` |",
        "| `--unsafe-fixes`, `--no-verify` |",
        1,
    );
    assert_eq!(
        problems(&with_stale_row),
        ["--no-verify is documented for `fix`, which has no such option of its own"]
    );
}

#[test]
fn each_command_with_options_has_its_table() {
    let cli = Cli::command();
    let commands: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    assert_eq!(
        commands,
        [
            "check",
            "render",
            "ignore-differences",
            "diff",
            "fix",
            "rules",
            "explain"
        ]
    );
    for name in commands {
        assert!(
            table_options(README, |line| captions(line, name)).is_some(),
            "no options table of `{name}`"
        );
    }
}
