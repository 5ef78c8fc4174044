//! Mutant schemata: every mutant cargo-mutants lists for a Rust file written into the file at
//! once, each behind `crate::__mutant_on(ID)`, so one build of the test binary serves them all
//! and a run picks one mutant by the switch's environment variable.
//!
//! The rewrite copies the source text and only inserts around the nodes `syn` finds at each
//! mutant's position, so a switched-on mutant is the code cargo-mutants would have written.

pub mod mutant;
pub mod rewrite;
mod sites;

pub use mutant::{Genre, Mutant};
pub use rewrite::{Outcome, Placement, Rewritten, rewrite};
