//! The findings of the units the tool cannot build: one per place and reason, naming every
//! unit that fails there (a broken base fails each overlay that uses it the same way).

use crate::diag::{Finding, Location};
use crate::rules;

/// A unit the tool could not build, where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FailedBuild {
    pub(super) location: Location,
    /// The unit's directory, as the report names it.
    pub(super) unit: String,
    pub(super) reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Reason {
    /// The tool refused the build with this message (what it says, without the unit).
    Refused(String),
    /// The build could not run or finish (a timeout, a wrapper that cannot be written).
    Failed(String),
}

/// One KV0020 per place and reason, in the order the first of each came, naming each unit once.
pub(super) fn findings(tool: &str, failed: Vec<FailedBuild>) -> Vec<Finding> {
    let mut groups: Vec<(Location, Reason, Vec<String>)> = Vec::new();
    for build in failed {
        let same = groups
            .iter_mut()
            .find(|(location, reason, _)| *location == build.location && *reason == build.reason);
        match same {
            Some((_, _, units)) => units.push(build.unit),
            None => groups.push((build.location, build.reason, vec![build.unit])),
        }
    }
    groups
        .into_iter()
        .map(|(location, reason, mut units)| {
            units.sort();
            units.dedup();
            let units = listed(&units);
            let message = match reason {
                Reason::Refused(message) => format!("{tool} cannot build {units}: {message}"),
                Reason::Failed(problem) => format!("{tool} of {units} failed: {problem}"),
            };
            Finding::new(&rules::KUSTOMIZE_BUILD_FAILED, location, message).with_help(
                "Argo CD and Flux cannot apply a unit that does not build; its files are checked as written",
            )
        })
        .collect()
}

/// `a`, `a and b`, `a, b and c`.
fn listed(units: &[String]) -> String {
    match units {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn failed(line: u32, unit: &str, reason: Reason) -> FailedBuild {
        FailedBuild {
            location: Location::lines(Arc::from("base/kustomization.yaml"), (line, 5), (line, 9)),
            unit: unit.to_owned(),
            reason,
        }
    }

    fn refused(text: &str) -> Reason {
        Reason::Refused(text.to_owned())
    }

    #[test]
    fn one_failure_shared_by_several_units_is_one_finding_naming_them() {
        let findings = findings(
            "kubectl kustomize",
            vec![
                failed(6, "overlays/prod", refused("missing ./cx")),
                failed(6, "overlays/dev", refused("missing ./cx")),
                failed(6, "base", refused("missing ./cx")),
            ],
        );
        assert_eq!(findings.len(), 1);
        assert_eq!(
            findings[0].message,
            "kubectl kustomize cannot build base, overlays/dev and overlays/prod: missing ./cx"
        );
        assert_eq!(findings[0].location.span.start.line, 6);
    }

    #[test]
    fn other_places_and_other_reasons_stay_apart() {
        let findings = findings(
            "kustomize",
            vec![
                failed(6, "a", refused("missing ./cx")),
                failed(7, "b", refused("missing ./cx")),
                failed(6, "c", refused("missing ./other")),
                failed(6, "d", Reason::Failed("stopped after 60 s".to_owned())),
                failed(6, "e", refused("missing ./cx")),
            ],
        );
        let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "kustomize cannot build a and e: missing ./cx",
                "kustomize cannot build b: missing ./cx",
                "kustomize cannot build c: missing ./other",
                "kustomize of d failed: stopped after 60 s",
            ]
        );
    }
}
