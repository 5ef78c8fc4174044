//! A fix is data on its finding: the field-level actions `kvlint fix` makes, and the builders
//! the rules share.

use serde_json::Value;

use crate::rules::RuntimeFix;
use crate::yaml::FieldPath;
use crate::yaml::edit::Action;

/// What `kvlint fix` does for one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub description: String,
    pub actions: Vec<Action>,
    /// The lowest KubeVirt minor release (1.x) for which the fix is right; older targets still
    /// need the field (revisionName before v1.5).
    pub since_minor: u32,
    /// Set on a finding merged from several units' instances whose fixes differ (a value
    /// derived from each rendered name): no single edit of the shared line is right for all.
    pub varies: bool,
}

impl Fix {
    pub(crate) fn new(description: String, actions: Vec<Action>) -> Self {
        Self {
            description,
            actions,
            since_minor: 0,
            varies: false,
        }
    }
}

/// Removes a field the cluster writes (status, server metadata, revisionName, restore
/// annotations).
pub fn remove(path: &FieldPath) -> Fix {
    Fix::new(
        format!("remove `{path}`"),
        vec![Action::Remove(path.clone())],
    )
}

/// revisionName: KubeVirt v1.5+ tracks the revision in status, so Git must not carry it.
pub fn remove_revision_name(path: &FieldPath) -> Fix {
    Fix {
        since_minor: 5,
        ..remove(path)
    }
}

/// The fix a runtime rule declares, for its finding at `path` (the field, or the matcher for
/// [`RuntimeFix::DropInference`]).
pub fn runtime(fix: RuntimeFix, path: &FieldPath) -> Option<Fix> {
    match fix {
        RuntimeFix::None => None,
        RuntimeFix::Remove => Some(remove(path)),
        RuntimeFix::RemoveRevisionName => Some(remove_revision_name(path)),
        RuntimeFix::DropInference => Some(drop_inference(path)),
    }
}

/// `spec.running: true|false` becomes `spec.runStrategy: Always|Halted`.
pub fn running_to_run_strategy(path: &FieldPath, running: &Value) -> Option<Fix> {
    let strategy = match running {
        Value::Bool(true) => "Always",
        Value::Bool(false) => "Halted",
        _ => return None,
    };
    Some(Fix::new(
        format!("replace `{path}: {running}` by `runStrategy: {strategy}`"),
        vec![Action::Rename {
            path: path.clone(),
            key: "runStrategy".to_owned(),
            value: Value::String(strategy.to_owned()),
        }],
    ))
}

/// A deprecated spelling of a value, replaced by the current one.
pub fn rename_value(path: &FieldPath, current: &str) -> Fix {
    Fix::new(
        format!("write `{path}` as `{current}`"),
        vec![Action::Set(path.clone(), Value::String(current.to_owned()))],
    )
}

/// `inferFromVolume` committed with the name the cluster inferred: keep the name, as stored.
pub fn drop_inference(matcher: &FieldPath) -> Fix {
    Fix::new(
        format!("remove `{matcher}.inferFromVolume`, keep the inferred name and kind"),
        vec![
            Action::Remove(matcher.key("inferFromVolume")),
            Action::Remove(matcher.key("inferFromVolumeFailurePolicy")),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_becomes_run_strategy() {
        let fix = running_to_run_strategy(&FieldPath::parse("spec.running"), &Value::Bool(false))
            .unwrap();
        assert_eq!(
            fix.actions,
            [Action::Rename {
                path: FieldPath::parse("spec.running"),
                key: "runStrategy".into(),
                value: Value::String("Halted".into())
            }]
        );
    }

    #[test]
    fn a_runtime_rule_s_fix_is_made_as_it_declares() {
        let revision = FieldPath::parse("spec.instancetype.revisionName");
        let removed = runtime(RuntimeFix::RemoveRevisionName, &revision).unwrap();
        assert_eq!(removed.actions, [Action::Remove(revision.clone())]);
        assert_eq!(removed.since_minor, 5);
        assert_eq!(
            runtime(RuntimeFix::Remove, &revision).unwrap().since_minor,
            0
        );
        let matcher = FieldPath::parse("spec.preference");
        assert_eq!(
            runtime(RuntimeFix::DropInference, &matcher)
                .unwrap()
                .actions,
            [
                Action::Remove(matcher.key("inferFromVolume")),
                Action::Remove(matcher.key("inferFromVolumeFailurePolicy"))
            ]
        );
        assert_eq!(runtime(RuntimeFix::None, &matcher), None);
    }
}
