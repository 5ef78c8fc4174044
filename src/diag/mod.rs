//! Findings: what kvlint reports about the user's manifests.

mod finding;
pub mod fix;

pub use finding::{Category, Finding, Location, ObjectRef, Related, Severity, sort_findings};
pub use fix::Fix;
