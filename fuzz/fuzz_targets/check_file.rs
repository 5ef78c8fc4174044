//! The whole `check` pipeline (both passes of `kvlint::check::pipeline`) on a small in-memory
//! repository with the built-in catalog, and every report format. A line `#%% file` splits the
//! input into files, checked in batches of two files, so that references, duplicates and
//! findings cross files and batches.
#![no_main]

use kvlint::check::{Options, run_files_in_memory};
use kvlint::config::ConfigChoice;
use kvlint::output;
use libfuzzer_sys::fuzz_target;

const FILE_BREAK: &[u8] = b"\n#%% file\n";

fn split_files(data: &[u8]) -> Vec<&[u8]> {
    let mut files = Vec::new();
    let mut rest = data;
    while let Some(at) = rest
        .windows(FILE_BREAK.len())
        .position(|window| window == FILE_BREAK)
    {
        files.push(&rest[..at]);
        rest = &rest[at + FILE_BREAK.len()..];
    }
    files.push(rest);
    files
}

fuzz_target!(|data: &[u8]| {
    let files = split_files(data);
    let names: Vec<String> = (0..files.len()).map(|n| format!("f{n:02}.yaml")).collect();
    let inputs: Vec<(&str, &[u8])> = names.iter().map(String::as_str).zip(files).collect();
    let options = Options {
        config: ConfigChoice::None,
        // The built-in catalog (`--catalog auto`), built once per process and release.
        catalog: None,
        keep_sources: true,
        batch_files: Some(2),
        ..Options::default()
    };
    let Ok(report) = run_files_in_memory(&options, &inputs) else {
        return;
    };
    let _ = output::human::report(&report, false, 100);
    let _ = output::human::concise(&report);
    let _ = output::json::report(&report);
    let _ = output::sarif::report(&report);
    let _ = output::github::report(&report);
    let _ = output::markdown::report(&report);
    let _ = output::junit::report(&report);
    let rendered: Vec<_> = report.rendered.iter().collect();
    let _ = kvlint::commands::render::render_output(&rendered, output::RenderFormat::Yaml);
});
