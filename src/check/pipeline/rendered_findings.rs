//! The findings of rendered objects, held by the file they point at and merged across units
//! (`diag::merge_instances`) a file at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::index_pass::Pending;
use crate::diag::Finding;

/// Findings of rendered objects by the file they point at, each file's in the order they came.
#[derive(Debug, Default)]
pub(super) struct RenderedFindings {
    by_file: BTreeMap<Arc<str>, Vec<Finding>>,
}

impl RenderedFindings {
    pub(super) fn add(&mut self, findings: impl IntoIterator<Item = Finding>) {
        for finding in findings {
            self.by_file
                .entry(Arc::clone(&finding.location.file))
                .or_default()
                .push(finding);
        }
    }

    /// Merges each file's findings and hands them to `pending`. Findings merge only at one
    /// location, so a file at a time gives what merging all at once would, without a second
    /// copy of every finding.
    pub(super) fn merge_into(self, pending: &mut Pending) {
        for (_, findings) in self.by_file {
            pending.add(crate::diag::merge_instances(findings));
        }
    }
}
