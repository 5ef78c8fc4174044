use std::cmp::Ordering;
use std::sync::Arc;

use serde::Serialize;

use crate::rules::{Rule, Severity};
use crate::yaml::Span;

/// A place in a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: Arc<str>,
    pub span: Span,
}

impl Location {
    /// A location from 1-based line and column numbers (the character index is not known).
    pub fn lines(file: Arc<str>, start: (u32, u32), end: (u32, u32)) -> Self {
        let pos = |(line, column)| crate::yaml::Pos {
            line,
            column,
            index: 0,
        };
        Self {
            file,
            span: Span {
                start: pos(start),
                end: pos(end),
            },
        }
    }
}

/// A secondary place that explains a finding (the instance-type field a VM field conflicts with).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

/// The Kubernetes object a finding is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub struct ObjectRef {
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    pub location: Location,
    pub object: Option<ObjectRef>,
    /// Field path in Kubernetes notation.
    pub path: Option<String>,
    /// For findings that reproduce a KubeVirt refusal: KubeVirt's own cause field, verbatim.
    pub kubevirt_field: Option<String>,
    pub help: Option<String>,
    pub related: Vec<Related>,
    /// For a finding at a parent path that stands for several fields (predicted drift), those
    /// fields' paths.
    pub fields: Vec<String>,
    /// The edit `kvlint fix` makes for this finding, when the rule has a fix.
    pub fix: Option<crate::diag::Fix>,
    /// The unit the object was rendered in, when it comes from a rendered unit.
    pub unit: Option<std::sync::Arc<crate::diag::UnitRef>>,
    /// Every rendered object this finding stands for, when the same finding (same rule,
    /// position, message and path) comes from more than one unit sharing a source file.
    pub instances: Vec<crate::diag::Instance>,
    /// For predicted drift: what a GitOps engine makes of it.
    pub drift: Option<crate::rules::DriftKind>,
}

impl Finding {
    pub fn new(rule: &'static Rule, location: Location, message: impl Into<String>) -> Self {
        Self {
            rule,
            severity: rule.severity,
            message: message.into(),
            location,
            object: None,
            path: None,
            kubevirt_field: None,
            help: None,
            related: Vec::new(),
            fields: Vec::new(),
            fix: None,
            unit: None,
            instances: Vec::new(),
            drift: None,
        }
    }

    #[must_use]
    pub fn with_object(mut self, object: Option<ObjectRef>) -> Self {
        self.object = object;
        self
    }

    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    #[must_use]
    pub fn with_kubevirt_field(mut self, field: impl Into<String>) -> Self {
        self.kubevirt_field = Some(field.into());
        self
    }

    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn with_related(mut self, related: Related) -> Self {
        self.related.push(related);
        self
    }

    #[must_use]
    pub fn with_fix(mut self, fix: Option<crate::diag::Fix>) -> Self {
        self.fix = fix;
        self
    }

    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    fn sort_key(&self) -> (&str, u32, u32, &str, &str, Option<&String>) {
        (
            &self.location.file,
            self.location.span.start.line,
            self.location.span.start.column,
            self.rule.code,
            &self.message,
            self.path.as_ref(),
        )
    }
}

/// The one order of every output: file, position, code, message, then everything else that is
/// printed, so the order never depends on the order findings were produced in. Exact
/// duplicates (the same finding produced twice, e.g. for a VM rendered for two reasons) are
/// removed.
pub fn sort_findings(findings: &mut Vec<Finding>) {
    // The order is total on what is printed, so an unstable sort (which needs no scratch copy
    // of a large batch) gives the same output as a stable one.
    findings.sort_unstable_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.object.cmp(&b.object))
            .then_with(|| a.severity.cmp(&b.severity))
            .then_with(|| a.kubevirt_field.cmp(&b.kubevirt_field))
            .then_with(|| a.help.cmp(&b.help))
            .then_with(|| compare_related(a, b))
    });
    findings.dedup();
}

fn compare_related(a: &Finding, b: &Finding) -> Ordering {
    fn key(r: &Related) -> (&str, u32, u32, &str) {
        let start = r.location.span.start;
        (&r.location.file, start.line, start.column, &r.message)
    }
    a.related.len().cmp(&b.related.len()).then_with(|| {
        a.related
            .iter()
            .zip(&b.related)
            .map(|(x, y)| key(x).cmp(&key(y)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    #[test]
    fn the_order_does_not_depend_on_the_order_findings_come_in() {
        let location = Location::lines(Arc::from("a.yaml"), (2, 3), (2, 9));
        let base = Finding::new(&rules::DUPLICATE_KEY, location.clone(), "same message");
        let related = |message: &str| Related {
            location: location.clone(),
            message: message.to_owned(),
        };
        let variants = vec![
            base.clone(),
            base.clone().with_help("b"),
            base.clone().with_help("a"),
            base.clone().with_severity(Severity::Info),
            base.clone().with_kubevirt_field("spec"),
            base.clone().with_related(related("y")),
            base.clone().with_related(related("x")),
            base.clone(),
        ];
        let mut forward = variants.clone();
        let mut backward: Vec<Finding> = variants.into_iter().rev().collect();
        sort_findings(&mut forward);
        sort_findings(&mut backward);
        assert_eq!(forward, backward);
        assert_eq!(forward.len(), 7, "the exact duplicate is removed");
    }
}
