//! Inputs found by the fuzz targets in `fuzz/`, each run as a plain test.

use kvlint::check::{Options, run_in_memory};
use kvlint::config::ConfigChoice;
use kvlint::yaml::{Limits, Node, Span, Value, parse_stream};

/// Lines as YAML counts them: CRLF, CR and LF each end a line.
fn yaml_lines(text: &str) -> u32 {
    u32::try_from(text.replace("\r\n", "\n").split(['\r', '\n']).count()).unwrap()
}

fn check(bytes: &[u8]) -> kvlint::check::Report {
    let options = Options {
        config: ConfigChoice::None,
        keep_sources: true,
        ..Options::default()
    };
    run_in_memory(&options, "fuzz.yaml", bytes).expect("an in-memory check runs")
}

/// `load_yaml`: a manifest whose lines end in bare CRs. YAML (and SARIF) count a lone CR as a
/// line break, so findings point past the last LF-terminated line but inside the file as YAML
/// reads it; the reports must still be produced.
#[test]
fn bare_carriage_returns_are_line_breaks() {
    let bytes = include_bytes!("../testdata/fuzz/load_yaml-cr-line-breaks.yaml");
    let text = std::str::from_utf8(bytes).unwrap();
    let report = check(bytes);
    assert!(!report.findings.is_empty());
    let lines = yaml_lines(text);
    let lf_lines = u32::try_from(text.split('\n').count()).unwrap();
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.location.span.start.line > lf_lines),
        "the input exercises CR-only line breaks"
    );
    for finding in &report.findings {
        let span = finding.location.span;
        assert!(
            (1..=lines).contains(&span.start.line) && span.end.line <= lines,
            "{}: {span:?} outside {lines} lines",
            finding.rule.code
        );
    }
    // Every report carries every finding at the position YAML gives it.
    let json: serde_json::Value =
        serde_json::from_str(&kvlint::output::json::report(&report)).unwrap();
    let sarif: serde_json::Value =
        serde_json::from_str(&kvlint::output::sarif::report(&report)).unwrap();
    let human = kvlint::output::human::report(&report, false, 100);
    let diagnostics = json["diagnostics"].as_array().unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(diagnostics.len(), report.findings.len());
    assert_eq!(results.len(), report.findings.len());
    for finding in &report.findings {
        let start = finding.location.span.start;
        assert!(
            diagnostics
                .iter()
                .any(|d| d["line"] == start.line && d["column"] == start.column),
            "JSON lacks {}:{}",
            start.line,
            start.column
        );
        assert!(
            results.iter().any(|r| {
                r["locations"][0]["physicalLocation"]["region"]["startLine"] == start.line
            }),
            "SARIF lacks line {}",
            start.line
        );
        let at = format!("fuzz.yaml:{}:{}", start.line, start.column);
        assert!(human.contains(&at), "the human report lacks {at}");
    }
}

fn assert_inside(lines: u32, chars: u32, span: Span) {
    for pos in [span.start, span.end] {
        assert!(
            (1..=lines).contains(&pos.line) && pos.column >= 1 && pos.index <= chars,
            "{span:?} outside the file ({lines} lines, {chars} characters)"
        );
    }
}

fn assert_tree_inside(lines: u32, chars: u32, node: &Node) {
    assert_inside(lines, chars, node.span);
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .for_each(|item| assert_tree_inside(lines, chars, item)),
        Value::Map(entries) => {
            for entry in entries {
                assert_inside(lines, chars, entry.key_span);
                assert_tree_inside(lines, chars, &entry.value);
            }
        }
        _ => {}
    }
}

/// `load_yaml`: a file that ends in `---` without a final line break. The parser placed the
/// empty last document on a line after the end of the file.
#[test]
fn a_document_marker_at_the_end_of_the_file_stays_inside_it() {
    let text = include_str!("../testdata/fuzz/load_yaml-marker-at-eof.yaml");
    for text in [
        text,
        "a: 1\n---",
        "---",
        "a: 1\r\n---",
        "a: 1\r---",
        "a: [1,\n  2]\n---",
    ] {
        let lines = yaml_lines(text);
        let chars = u32::try_from(text.chars().count()).unwrap();
        let docs = parse_stream(text, Limits::default());
        assert!(!docs.is_empty(), "{text:?}");
        for doc in docs.iter().flatten() {
            assert_tree_inside(lines, chars, &doc.root);
        }
    }
}

/// `load_yaml`: an error at the end of a document whose parser line count lags its index made
/// the end position step before the first line (an arithmetic overflow).
#[test]
fn an_error_position_never_steps_before_the_first_line() {
    let bytes = include_bytes!("../testdata/fuzz/load_yaml-line-before-first.yaml");
    let text = String::from_utf8_lossy(bytes);
    for doc in parse_stream(&text, Limits::default()) {
        let line = match doc {
            Ok(doc) => doc.root.span.start.line,
            Err(err) => err.pos.line,
        };
        assert!(line >= 1, "line {line}");
    }
    let report = check(bytes);
    assert!(!report.findings.is_empty(), "the input is not valid YAML");
    let lines = yaml_lines(&text);
    for finding in &report.findings {
        let span = finding.location.span;
        assert!(
            (1..=lines).contains(&span.start.line)
                && span.end.line <= lines
                && span.start.column >= 1,
            "{}: {span:?} outside {lines} lines",
            finding.rule.code
        );
    }
}
