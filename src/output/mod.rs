//! Report formats. Every format is fed the same sorted findings.

pub mod human;
pub mod ignore;
pub mod json;
pub mod yaml;

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
}

/// `--format` of `render`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// One YAML document per VM, each preceded by a `# Source: FILE:LINE` comment.
    Yaml,
    /// A JSON array of the rendered VMs, sorted by namespace then name.
    Json,
}
