//! Findings the repository has accepted, left out of the report: inline suppressions in the
//! manifests (`inline`) and a baseline file (`baseline`).

pub mod baseline;
pub mod inline;
