//! `kvlint fix`: the edits that make a manifest say what the cluster stores.
//!
//! A fix is data on its finding (`diag::Fix`: field-level actions); `yaml::edit` turns the
//! actions into minimal text edits of the file, `run` applies them and checks the result again,
//! and `write` writes the files.

mod lines;
mod report;
mod roots;
mod run;
mod units;
mod write;

use crate::yaml::edit::{self, Action};

pub use edit::{TextEdit, apply_edits, plan_edits};
pub use report::{json, text, unified_diff};
pub use run::{Applied, FileChange, FixOptions, Outcome, Skipped, plan};
pub use write::write;
