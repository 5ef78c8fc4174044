//! `kvlint render`: the rendered VMs as text, and the findings of the VMs that could not be
//! rendered.

use crate::check::Report;
use crate::check::vm::Rendered;
use crate::output::RenderFormat;
use crate::sanitize::terminal::{guard_lines, line};

/// The text of `kvlint render`: YAML documents with a source comment each, or a JSON array.
pub fn render_output(rendered: &[&Rendered], format: RenderFormat) -> String {
    match format {
        RenderFormat::Json => {
            let values: Vec<&serde_json::Value> = rendered.iter().map(|r| &r.value).collect();
            let mut text =
                serde_json::to_string_pretty(&values).unwrap_or_else(|_| "[]".to_owned());
            text.push('\n');
            crate::sanitize::json::guard_owned(text)
        }
        RenderFormat::Yaml => {
            let mut text = String::new();
            for vm in rendered {
                text.push_str("---\n");
                let source = format!("# Source: {}:{}\n", line(&vm.file), vm.line);
                text.push_str(&guard_lines(source));
                if let Some(unit) = &vm.unit {
                    text.push_str(&guard_lines(format!("# Unit: {}\n", line(unit))));
                }
                for origin in &vm.origins {
                    text.push_str(&guard_lines(format!("# {}\n", line(origin))));
                }
                text.push_str(&crate::yaml::emit::to_yaml(&vm.value));
            }
            text
        }
    }
}

/// The error findings of the selected VMs that could not be rendered, as a report.
pub fn unrendered_findings(report: &Report, selected: &dyn Fn(&str, &str) -> bool) -> Report {
    let rendered: std::collections::HashSet<(&str, &str)> = report
        .rendered
        .iter()
        .map(|r| (r.namespace.as_str(), r.name.as_str()))
        .collect();
    let findings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == crate::diag::Severity::Error)
        .filter(|f| {
            f.object.as_ref().is_some_and(|o| {
                let namespace = o.namespace.as_deref().unwrap_or("");
                matches!(o.kind.as_str(), "VirtualMachine" | "VirtualMachinePool")
                    && selected(namespace, &o.name)
                    && !rendered.contains(&(namespace, o.name.as_str()))
            })
        })
        .cloned()
        .collect();
    let mut summary = report.summary.clone();
    summary.errors = findings.len();
    summary.warnings = 0;
    summary.infos = 0;
    Report {
        findings,
        summary,
        sources: report.sources.clone(),
        ..Report::default()
    }
}
