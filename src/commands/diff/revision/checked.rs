//! One side of `kvlint diff` read from a git revision and checked, with its units built from
//! the revision's files written to a temporary directory ([`super::materialise`]).

use super::materialise::{Budget, Materialised};
use super::{Revision, Side};
use crate::check::{self, Options, Report};
use crate::commands::diff::{Inputs, load_inputs_from, relabel_copy};
use crate::error::Error;
use crate::k8s::is_kustomization_file;

/// The report and inputs of the files a check of `options`' paths reads in `revision`, named
/// as the working tree names them; empty when none of the paths exists there.
pub fn check(revision: &Revision, options: &Options) -> Result<(Report, Inputs), Error> {
    let Some(mut side) = revision.side(options)? else {
        return Ok((Report::default(), Inputs::default()));
    };
    let has_units = !side.options.units.off
        && side
            .inputs
            .iter()
            .any(|input| is_kustomization_file(input.display()));
    if !has_units {
        return as_written(side, None);
    }
    match revision.materialise(Budget::DEFAULT)? {
        Ok(tree) => built(revision, &tree, side),
        Err(why) => {
            side.options.units.off = true;
            let warning = format!(
                "the units of {} are not built, its kustomizations are checked as written: {why}",
                revision.revision()
            );
            as_written(side, Some(warning))
        }
    }
}

/// Checks the side's files as they are read from git (in memory).
fn as_written(side: Side, warning: Option<String>) -> Result<(Report, Inputs), Error> {
    let mut report = check::run_inputs(&side.options, side.inputs.clone())?;
    report.warnings.extend(warning);
    super::add_findings(&mut report, side.findings);
    let inputs = load_inputs_from(&side.options, &side.inputs)?;
    Ok((report, inputs))
}

/// Checks the side's files in `tree` with their units built there, then names them as the
/// working tree does.
fn built(revision: &Revision, tree: &Materialised, side: Side) -> Result<(Report, Inputs), Error> {
    let inputs = revision.inputs_in(tree, &side.inputs);
    let mut options = side.options;
    options.units.repository = Some(tree.root().to_path_buf());
    let mut report = check::run_inputs(&options, inputs.clone())?;
    let mut side_inputs = load_inputs_from(&options, &inputs)?;
    let names = revision.names_in(tree);
    for (from, to) in &names {
        side_inputs.relabel(from, to);
    }
    relabel_copy(
        &mut report,
        &crate::source::display_path(tree.root()),
        &names,
    );
    super::add_findings(&mut report, side.findings);
    Ok((report, side_inputs))
}
