//! How a rule's findings are classed: the kind of problem, and how serious it is.

use std::fmt;

use serde::Serialize;

/// The kind of problem, fixed per rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// The file is not valid YAML, or not decodable as Kubernetes decodes it.
    Syntax,
    /// The object does not match the API schema.
    Schema,
    /// KubeVirt's admission webhooks refuse the manifest.
    Reject,
    /// KubeVirt accepts the manifest but cannot resolve a reference: the VM cannot start or expand.
    Unresolved,
    /// Runtime-derived data is committed to Git.
    Runtime,
    /// The cluster will rewrite or add fields after submission.
    Drift,
    /// A deprecated API, field or value.
    Deprecation,
    /// A problem with the common-instancetypes catalog.
    Catalog,
    /// Information, such as a file that was skipped and why.
    Info,
}

impl Category {
    /// The name used in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Schema => "schema",
            Self::Reject => "reject",
            Self::Unresolved => "unresolved",
            Self::Runtime => "runtime",
            Self::Drift => "drift",
            Self::Deprecation => "deprecation",
            Self::Catalog => "catalog",
            Self::Info => "info",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    /// The name used in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
