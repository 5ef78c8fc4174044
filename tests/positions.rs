//! Lines and columns are exact on tricky YAML: multi-byte UTF-8, CRLF, tabs, flow style,
//! block scalars, anchors and comments. Columns count characters; ends are exclusive.

use kvlint::check::{self, Options, Report};
use kvlint::source::Selection;

fn check(path: &str) -> Report {
    check::run(&Options {
        selection: Selection {
            paths: vec![path.into()],
            ..Selection::default()
        },
        ..Options::default()
    })
    .expect("runs")
}

fn at(report: &Report, kubevirt_field: &str) -> (u32, u32, u32, u32) {
    let finding = report
        .findings
        .iter()
        .find(|f| f.kubevirt_field.as_deref() == Some(kubevirt_field))
        .unwrap_or_else(|| panic!("no finding for {kubevirt_field}: {:#?}", report.findings));
    let span = finding.location.span;
    (
        span.start.line,
        span.start.column,
        span.end.line,
        span.end.column,
    )
}

#[test]
fn flow_style_after_multibyte_block_scalar_and_comments() {
    let report = check("testdata/cases/tricky-positions");
    // `        cpu: {model: Skylake, sockets: 2}` on line 18
    assert_eq!(
        at(&report, "spec.template.spec.domain.cpu.model"),
        (18, 15, 18, 29)
    );
    assert_eq!(
        at(&report, "spec.template.spec.domain.cpu.sockets"),
        (18, 31, 18, 41)
    );
    assert_eq!(
        at(&report, "spec.template.spec.domain.memory.guest"),
        (19, 18, 19, 28)
    );
}

#[test]
fn secondary_spans_point_into_a_crlf_file_with_tabs_and_anchors() {
    let report = check("testdata/cases/tricky-positions");
    let model = report
        .findings
        .iter()
        .find(|f| f.kubevirt_field.as_deref() == Some("spec.template.spec.domain.cpu.model"))
        .unwrap();
    let related = &model.related[0];
    assert!(related.location.file.ends_with("crlf-instancetype.yaml"));
    // `  cpu: {guest: 2,\tmodel: Haswell}` — the tab counts as one column.
    let span = related.location.span;
    assert_eq!(
        (span.start.line, span.start.column, span.end.column),
        (6, 19, 33)
    );
    let memory = report
        .findings
        .iter()
        .find(|f| f.kubevirt_field.as_deref() == Some("spec.template.spec.domain.memory.guest"))
        .unwrap();
    // `    guest: &mem 2Gi` — the anchor is part of the value.
    let span = memory.related[0].location.span;
    assert_eq!(
        (span.start.line, span.start.column, span.end.column),
        (8, 5, 20)
    );
}

#[test]
fn syntax_errors_point_into_their_document() {
    let report = check("testdata/cases/syntax-error-continues");
    let error = &report.findings[0];
    assert_eq!(error.rule.code, "KV0001");
    assert_eq!(error.location.span.start.line, 12);
    assert_eq!(report.summary.objects, 2);
}

#[test]
fn yaml11_values_point_at_the_scalar() {
    let report = check("testdata/cases/yaml11-norway");
    // Label and annotation values: refused by the API server (KV0015), at the scalar.
    let spans: Vec<(u32, u32, u32)> = report
        .findings
        .iter()
        .filter(|f| f.rule.code == "KV0015")
        .map(|f| {
            (
                f.location.span.start.line,
                f.location.span.start.column,
                f.location.span.end.column,
            )
        })
        .collect();
    assert_eq!(spans, [(7, 14, 16), (10, 26, 28), (11, 23, 27)]);
}

#[test]
fn duplicate_keys_point_at_both_occurrences() {
    let report = check("testdata/cases/duplicate-keys");
    let finding = &report.findings[0];
    assert_eq!(
        (
            finding.location.span.start.line,
            finding.location.span.start.column
        ),
        (7, 3)
    );
    assert_eq!(finding.related[0].location.span.start.line, 6);
}
