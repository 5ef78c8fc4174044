//! Invariants over generated repositories: rendering is deterministic and repeatable, every
//! position falls inside its file, and the order of findings is stable.

use std::fmt::Write as _;

use kvlint::check::{Options, Report, run_in_memory};
use kvlint::config::ConfigChoice;
use kvlint::diag::Location;
use kvlint::output::RenderFormat;
use proptest::prelude::*;

const TOPOLOGIES: &[&str] = &[
    "sockets",
    "cores",
    "threads",
    "spread",
    "any",
    "preferSpread",
    "unknown",
];
const ACROSS: &[&str] = &["SocketsCores", "CoresThreads", "SocketsCoresThreads"];
const MEMORY: &[&str] = &["128Mi", "1Gi", "2048Mi", "1G", "0", "1e3", "-1Gi", "0x10"];

/// One VM with an instance type, maybe a preference, and maybe fields that conflict.
#[derive(Clone, Debug)]
struct VmCase {
    guest: u32,
    memory: &'static str,
    topology: Option<&'static str>,
    spread: Option<(&'static str, u32)>,
    vm_memory: Option<&'static str>,
    vm_sockets: Option<u32>,
    overcommit: Option<u32>,
}

fn vm_case() -> impl Strategy<Value = VmCase> {
    (
        0u32..17,
        prop::sample::select(MEMORY),
        prop::option::of(prop::sample::select(TOPOLOGIES)),
        prop::option::of((prop::sample::select(ACROSS), 0u32..5)),
        prop::option::of(prop::sample::select(MEMORY)),
        prop::option::of(0u32..5),
        prop::option::of(0u32..120),
    )
        .prop_map(
            |(guest, memory, topology, spread, vm_memory, vm_sockets, overcommit)| VmCase {
                guest,
                memory,
                topology,
                spread,
                vm_memory,
                vm_sockets,
                overcommit,
            },
        )
}

fn manifest(index: usize, case: &VmCase) -> String {
    let mut text = format!(
        "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata:\n  name: it-{index}\nspec:\n  cpu:\n    guest: {}\n  memory:\n    guest: {}\n",
        case.guest, case.memory
    );
    if let Some(percent) = case.overcommit {
        let _ = writeln!(text, "    overcommitPercent: {percent}");
    }
    let with_preference = case.topology.is_some() || case.spread.is_some();
    if with_preference {
        let _ = write!(
            text,
            "---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachinePreference\nmetadata:\n  name: pref-{index}\nspec:\n  cpu:\n"
        );
        if let Some(topology) = case.topology {
            let _ = writeln!(text, "    preferredCPUTopology: {topology}");
        }
        if let Some((across, ratio)) = case.spread {
            let _ = write!(
                text,
                "    spreadOptions:\n      across: {across}\n      ratio: {ratio}\n"
            );
        }
    }
    let _ = write!(
        text,
        "---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm-{index}\nspec:\n  runStrategy: Always\n  instancetype:\n    kind: VirtualMachineInstancetype\n    name: it-{index}\n"
    );
    if with_preference {
        let _ = write!(
            text,
            "  preference:\n    kind: VirtualMachinePreference\n    name: pref-{index}\n"
        );
    }
    text.push_str("  template:\n    spec:\n      domain:\n        devices: {}\n");
    if let Some(sockets) = case.vm_sockets {
        let _ = write!(text, "        cpu:\n          sockets: {sockets}\n");
    }
    if let Some(memory) = case.vm_memory {
        let _ = write!(text, "        memory:\n          guest: {memory}\n");
    }
    text
}

fn repository(cases: &[VmCase]) -> String {
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| manifest(i, case))
        .collect::<Vec<_>>()
        .join("---\n")
}

fn check(text: &str) -> Report {
    let options = Options {
        config: ConfigChoice::None,
        ..Options::default()
    };
    run_in_memory(&options, "repo.yaml", text.as_bytes()).expect("an in-memory check runs")
}

/// The length in characters of each line, lines as YAML counts them (CRLF, CR and LF each end
/// a line).
fn line_lengths(text: &str) -> Vec<u32> {
    text.replace("\r\n", "\n")
        .split(['\r', '\n'])
        .map(|line| u32::try_from(line.chars().count()).unwrap())
        .collect()
}

fn assert_inside(lines: &[u32], location: &Location) -> Result<(), TestCaseError> {
    for pos in [location.span.start, location.span.end] {
        let line = usize::try_from(pos.line).unwrap();
        prop_assert!(
            (1..=lines.len()).contains(&line),
            "line {} outside 1..={}",
            pos.line,
            lines.len()
        );
        // The end is exclusive: one past the last character of the line.
        prop_assert!(
            pos.column >= 1 && pos.column <= lines[line - 1] + 2,
            "{}:{} outside a line of {} characters",
            pos.line,
            pos.column,
            lines[line - 1]
        );
    }
    prop_assert!(location.span.start <= location.span.end);
    Ok(())
}

/// The documents of `cases` in the reverse order, each keeping its name.
fn reversed_repository(cases: &[VmCase]) -> String {
    cases
        .iter()
        .enumerate()
        .rev()
        .map(|(i, case)| manifest(i, case))
        .collect::<Vec<_>>()
        .join("---\n")
}

/// What a report says independent of where each object stands in the file: each finding as
/// (object, rule, path, message), sorted.
fn verdicts(report: &Report) -> Vec<String> {
    let mut verdicts: Vec<String> = report
        .findings
        .iter()
        .map(|f| {
            let object = f
                .object
                .as_ref()
                .map(|o| format!("{}/{:?}/{}", o.kind, o.namespace, o.name));
            format!("{object:?} {} {:?} {}", f.rule.code, f.path, f.message)
        })
        .collect();
    verdicts.sort();
    verdicts
}

// 256 cases of each property: about 5 CPU seconds in all with the debug build.
proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Rendering and judging a VM does not depend on the order of the documents around it: the
    /// same repository with its documents reversed renders the same VMs (output follows the
    /// file, so compared by name) and gives the same findings.
    #[test]
    fn render_and_findings_do_not_depend_on_document_order(cases in prop::collection::vec(vm_case(), 1..4)) {
        let forward = check(&repository(&cases));
        let backward = check(&reversed_repository(&cases));
        let by_name = |report: &Report| {
            let rendered: Vec<_> = report.rendered.iter().collect();
            let json = kvlint::commands::render::render_output(&rendered, RenderFormat::Json);
            let mut vms: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
            vms.sort_by_key(|vm| vm["metadata"]["name"].to_string());
            vms
        };
        prop_assert_eq!(by_name(&forward), by_name(&backward));
        prop_assert_eq!(verdicts(&forward), verdicts(&backward));
    }

    #[test]
    fn positions_fall_inside_the_file(cases in prop::collection::vec(vm_case(), 1..4)) {
        let text = repository(&cases);
        let lines = line_lengths(&text);
        let report = check(&text);
        for finding in report.findings.iter().filter(|f| &*f.location.file == "repo.yaml") {
            assert_inside(&lines, &finding.location)?;
            for related in finding.related.iter().filter(|r| &*r.location.file == "repo.yaml") {
                assert_inside(&lines, &related.location)?;
            }
        }
    }

    #[test]
    fn positions_fall_inside_arbitrary_text(text in "[a-z0-9:{}\\[\\],&*!|>'\" #\t\r\n-]{0,200}") {
        let lines = line_lengths(&text);
        let report = check(&text);
        for finding in report.findings.iter().filter(|f| &*f.location.file == "repo.yaml") {
            assert_inside(&lines, &finding.location)?;
        }
    }

    #[test]
    fn findings_come_out_in_a_stable_sorted_order(cases in prop::collection::vec(vm_case(), 1..5)) {
        let report = check(&repository(&cases));
        let keys: Vec<_> = report
            .findings
            .iter()
            .map(|f| (f.location.file.clone(), f.location.span.start.line, f.location.span.start.column))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        prop_assert_eq!(&keys, &sorted);
    }
}
