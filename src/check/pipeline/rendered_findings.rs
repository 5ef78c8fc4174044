//! The findings of rendered objects, held by the file they point at and merged across units
//! (`diag::merge_instances`) a file at a time.

use std::collections::BTreeMap;
use std::ops::Bound;
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

    /// Merges the findings about files up to `last` (in report order) and hands them to
    /// `pending`, once no unit still to be analysed can add to them.
    pub(super) fn merge_until(&mut self, last: &str, pending: &mut Pending) {
        self.merge_below(Bound::Excluded(last), pending);
    }

    /// Merges the findings about files before `first` and hands them to `pending`.
    pub(super) fn merge_before(&mut self, first: &str, pending: &mut Pending) {
        self.merge_below(Bound::Included(first), pending);
    }

    /// Merges the findings about the files before those from `later` on.
    fn merge_below(&mut self, later: Bound<&str>, pending: &mut Pending) {
        let first_later = self
            .by_file
            .range::<str, _>((later, Bound::Unbounded))
            .next()
            .map(|(file, _)| Arc::clone(file));
        let later = match first_later {
            Some(file) => self.by_file.split_off(&file),
            None => BTreeMap::new(),
        };
        let ready = std::mem::replace(&mut self.by_file, later);
        Self { by_file: ready }.merge_into(pending);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Location, ObjectRef, UnitKind, UnitRef};

    fn finding(file: &str, unit: &str) -> Finding {
        let mut finding = Finding::new(
            &crate::rules::UNRESOLVED_INSTANCETYPE,
            Location::lines(Arc::from(file), (3, 5), (3, 9)),
            "unresolved",
        )
        .with_object(Some(ObjectRef {
            api_version: "kubevirt.io/v1".to_owned(),
            kind: "VirtualMachine".to_owned(),
            namespace: Some(unit.to_owned()),
            name: "vm".to_owned(),
        }));
        finding.unit = Some(Arc::new(UnitRef {
            kind: UnitKind::Kustomize,
            path: unit.to_owned(),
            via: None,
        }));
        finding
    }

    fn findings() -> Vec<Finding> {
        vec![
            finding("a/vm.yaml", "dev"),
            finding("b/vm.yaml", "dev"),
            finding("a/vm.yaml", "prod"),
            finding("c/vm.yaml", "prod"),
            finding("b/vm.yaml", "prod"),
        ]
    }

    #[test]
    fn the_files_up_to_the_last_reported_leave_merged_and_the_rest_wait() {
        let mut held = RenderedFindings::default();
        held.add(findings());
        let mut pending = Pending::default();
        held.merge_until("b/vm.yaml", &mut pending);
        let left: Vec<&str> = pending.findings.keys().map(|file| &**file).collect();
        assert_eq!(left, ["a/vm.yaml", "b/vm.yaml"]);
        for merged in pending.findings.values() {
            assert_eq!(merged.len(), 1, "{merged:#?}");
            assert_eq!(merged[0].instances.len(), 2, "{merged:#?}");
        }
        let waiting: Vec<&str> = held.by_file.keys().map(|file| &**file).collect();
        assert_eq!(waiting, ["c/vm.yaml"]);

        held.merge_into(&mut pending);
        let mut at_once = Pending::default();
        at_once.add(crate::diag::merge_instances(findings()));
        assert_eq!(pending.findings, at_once.findings);
    }
}
