//! Conflicts between a VM and its instance type (`pkg/instancetype/conflict`).

/// A VM field that the instance type also sets, as KubeVirt names it: the call site's prefix
/// joined with the field's suffix by `.`, or `annotations.<key>` with no prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub path: String,
}

impl Conflict {
    pub fn at(prefix: &str, suffix: &str) -> Self {
        Self {
            path: format!("{prefix}.{suffix}"),
        }
    }

    pub fn annotation(key: &str) -> Self {
        Self {
            path: format!("annotations.{key}"),
        }
    }

    /// The status cause message KubeVirt v1.5+'s validating webhook gives for this conflict.
    pub fn message(&self) -> String {
        format!(
            "VM field(s) {} conflicts with selected instance type",
            self.path
        )
    }

    /// The cause message of `version` (KubeVirt `pkg/instancetype/conflict/conflicts.go`,
    /// `Conflict.Error`, per release).
    pub fn message_for(&self, version: crate::cluster::profile::KubeVirtVersion) -> String {
        if version.at_least(1, 5) {
            self.message()
        } else if version.at_least(1, 1) {
            format!(
                "VM field {} conflicts with selected instance type",
                self.path
            )
        } else {
            "VM field conflicts with selected Instancetype".to_owned()
        }
    }
}

/// The error text of a list of conflicts (KubeVirt `pkg/instancetype/conflict/conflicts.go`,
/// `Conflicts.Error`).
pub fn conflicts_message(conflicts: &[Conflict]) -> String {
    let paths: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
    format!(
        "VM field(s) {} conflicts with selected instance type",
        paths.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::profile::KubeVirtVersion;

    /// The validating webhook's cause message: `vms-admitter.go` at v1.0.0, the
    /// `VMFieldConflictErrorFmt` of v1.1 to v1.4, `conflict.Conflict.Error` from v1.5.
    #[test]
    fn the_cause_message_of_each_release() {
        let conflict = Conflict::at("spec.template.spec", "schedulerName");
        let at = |minor| conflict.message_for(KubeVirtVersion::new(1, minor));
        assert_eq!(at(0), "VM field conflicts with selected Instancetype");
        for minor in [1, 4] {
            assert_eq!(
                at(minor),
                "VM field spec.template.spec.schedulerName conflicts with selected instance type"
            );
        }
        for minor in [5, 9] {
            assert_eq!(
                at(minor),
                "VM field(s) spec.template.spec.schedulerName conflicts with selected instance type"
            );
        }
        assert_eq!(
            Conflict::annotation("a").message(),
            "VM field(s) annotations.a conflicts with selected instance type"
        );
    }
}
