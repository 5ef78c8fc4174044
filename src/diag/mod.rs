//! Findings: what kvlint reports about the user's manifests.

mod finding;
pub mod fix;
mod unit;

pub use crate::rules::{Category, Severity};
pub use finding::{Finding, Location, ObjectRef, Related, sort_findings};
pub use fix::Fix;
pub use unit::{Instance, UnitKind, UnitRef, Via, merge_instances};
