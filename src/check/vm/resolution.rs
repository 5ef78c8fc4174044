//! The instance type and preference a VM references, found and decoded.

use std::sync::Arc;

use serde_json::Value;

use crate::diag::Related;
use crate::k8s::Object;
use crate::model::value::Fields;
use crate::model::{DecodeError, Matcher, MatcherRole};
use crate::resolve::{self, FindError, Found, Repo};
use crate::yaml::FieldPath;

/// A resolved and decoded matcher.
pub(super) struct Resolved<'a, T> {
    /// Always `Ok`: shared with every VM that references the same object.
    pub(super) spec: Arc<Result<T, DecodeError>>,
    pub(super) found: Found<'a>,
}

pub(super) enum Resolution<'a, T> {
    Absent,
    Found(Resolved<'a, T>),
    Failed(FindError),
    Invalid {
        found: Found<'a>,
        error: DecodeError,
    },
}

impl<'a, T> Resolution<'a, T> {
    pub(super) fn spec(&self) -> Option<&T> {
        match self {
            Self::Found(r) => r.spec.as_ref().as_ref().ok(),
            _ => None,
        }
    }

    pub(super) fn found(&self) -> Option<&Found<'a>> {
        match self {
            Self::Found(r) => Some(&r.found),
            Self::Invalid { found, .. } => Some(found),
            _ => None,
        }
    }

    /// Whether the matcher names an object that cannot be found or decoded.
    pub(super) fn is_unresolved(&self) -> bool {
        matches!(self, Self::Failed(_) | Self::Invalid { .. })
    }

    pub(super) fn error_text(&self) -> Option<String> {
        match self {
            Self::Failed(err) => Some(err.message.clone()),
            Self::Invalid { error, .. } => Some(error.to_string()),
            _ => None,
        }
    }
}

pub(super) fn resolve_role<'a, T: serde::de::DeserializeOwned + Send + Sync + 'static>(
    repo: &Repo<'a>,
    object: &Object,
    vm: &Value,
    role: MatcherRole,
) -> Resolution<'a, T> {
    let Some(matcher) = vm
        .field("spec")
        .and_then(|s| s.field(role.field()))
        .and_then(Matcher::from_json)
    else {
        return Resolution::Absent;
    };
    let status_ref = vm
        .field("status")
        .and_then(|s| s.get(format!("{}Ref", role.field())));
    match resolve::find(repo, object, role, &matcher, status_ref) {
        Ok(found) => {
            let spec = repo.specs.decode::<T>(&found);
            match spec.as_ref() {
                Ok(_) => Resolution::Found(Resolved { spec, found }),
                Err(error) => Resolution::Invalid {
                    error: error.clone(),
                    found,
                },
            }
        }
        Err(err) => Resolution::Failed(err),
    }
}

pub(super) fn related_at(
    found: &Found<'_>,
    field: &FieldPath,
    message: impl Into<String>,
) -> Related {
    let origin = found.origin.object();
    let path = FieldPath::parse(found.origin.spec_prefix());
    let mut segments = path.0;
    segments.extend(field.0.iter().cloned());
    Related {
        location: origin.field_location(&FieldPath(segments)),
        message: message.into(),
    }
}

pub(super) fn origin_text(repo: &Repo<'_>, role: MatcherRole, found: &Found<'_>) -> String {
    let object = found.origin.object();
    let place = if repo.is_catalog(object) {
        repo.catalog.label.clone().unwrap_or_default()
    } else {
        format!("{}:{}", object.file, object.node.span.start.line)
    };
    let via = match found.origin {
        resolve::Origin::Revision(_) => " (ControllerRevision)",
        resolve::Origin::Object(_) => "",
    };
    format!(
        "{}: {} {}{via} from {place}",
        role.field(),
        object.kind,
        object.name
    )
}
