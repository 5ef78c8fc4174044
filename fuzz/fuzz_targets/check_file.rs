//! The whole `check` pipeline (both passes of `kvlint::check::pipeline`) on a one-file
//! repository with the built-in catalog, and every report format.
#![no_main]

use kvlint::check::{Options, run_in_memory};
use kvlint::config::ConfigChoice;
use kvlint::output;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = Options {
        config: ConfigChoice::None,
        // The built-in catalog (`--catalog auto`), built once per process and release.
        catalog: None,
        keep_sources: true,
        ..Options::default()
    };
    let Ok(report) = run_in_memory(&options, "fuzz.yaml", data) else {
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
    let _ = kvlint::render_output(&rendered, output::RenderFormat::Yaml);
});
