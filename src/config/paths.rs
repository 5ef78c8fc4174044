//! Paths in a configuration file are part of the repository's content, which kvlint does not
//! trust: each must lead, once symlinks are resolved, to somewhere inside the repository that
//! holds the file (`catalog: /` or `catalog: ../../..` would have kvlint read anything).

use std::path::Path;
use std::sync::Arc;

use super::CatalogChoice;
use super::Config;
use crate::diag::{Finding, Location};
use crate::rules;

/// Checks the configuration's paths against `repository` (resolved); a path that leads out of
/// it, or nowhere, is a finding at its line and is dropped (the default applies instead).
pub(super) fn confine(config: &mut Config, repository: &Path) {
    let Some(CatalogChoice::Path(path)) = &config.catalog else {
        return;
    };
    let problem = match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(repository) => return,
        Ok(_) => format!(
            "catalog {} leads out of the repository that holds this file (symlinks resolved): \
             not read; the built-in catalog is used",
            path.display()
        ),
        Err(err) => format!(
            "catalog {}: {err}; the built-in catalog is used",
            path.display()
        ),
    };
    config.catalog = None;
    let (Some(file), Some(span)) = (&config.file, config.catalog_span) else {
        return;
    };
    config.findings.push(Finding::new(
        &rules::INVALID_CONFIG,
        Location {
            file: Arc::clone(file),
            span,
        },
        problem,
    ));
}
