//! Report formats. Every format is fed the same sorted findings.

pub mod annotation_budget;
pub mod github;
pub mod github_context;
pub mod group;
pub mod human;
mod human_snippet;
pub mod ignore;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod pull_request;
pub mod sarif;
pub mod statistics;
pub mod step_summary;
pub mod workspace;

use clap::ValueEnum;

/// `--format` of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// Source snippets with labels (the default).
    Human,
    /// One line per finding: `file:line:col: severity[CODE] message`.
    Concise,
    /// The stable machine-readable report.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions annotations (and the Markdown report in the step summary).
    Github,
    /// A compact Markdown report for pull-request comments.
    Markdown,
    /// JUnit XML for CI test reports.
    Junit,
}

/// `--format` of `render`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// One YAML document per VM, each preceded by a `# Source: FILE:LINE` comment.
    Yaml,
    /// A JSON array of the rendered VMs, sorted by namespace then name.
    Json,
}
