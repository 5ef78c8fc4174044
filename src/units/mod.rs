//! Units: what a GitOps controller renders from the repository (docs/design/units.md).

// The units pipeline calls `provenance::attribute` for every finding about a rendered object;
// until that pipeline lands in this module, nothing in the crate calls it outside its tests.
#[allow(dead_code)]
pub(crate) mod provenance;
