//! What the GitHub reports need to know about the run: the workspace that file names are
//! relative to, and the files the pull request changes.

use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use crate::diag::Finding;

use super::pull_request::{self, ChangedFiles, Unknown};
use super::workspace::Base;

/// The workspace and the pull request's changed files.
#[derive(Debug, Default)]
pub struct Context {
    pub base: Option<Base>,
    pub changed: ChangedFiles,
}

impl Context {
    /// The file of `finding` as GitHub wants it named.
    pub fn file(&self, finding: &Finding) -> String {
        self.name(&finding.location.file)
    }

    fn name(&self, file: &str) -> String {
        match &self.base {
            Some(base) => base.localise(file).into_owned(),
            None => file.to_owned(),
        }
    }

    /// `finding` with its file names (its own and its related places') as GitHub wants them.
    pub fn localised(&self, finding: &Finding) -> Finding {
        let mut finding = finding.clone();
        finding.location.file = Arc::from(self.name(&finding.location.file));
        for related in &mut finding.related {
            related.location.file = Arc::from(self.name(&related.location.file));
        }
        finding
    }

    /// The context of this run, from `$GITHUB_WORKSPACE`, the working directory and
    /// `$GITHUB_EVENT_PATH`; a pull request whose commits are not in the checkout is said on
    /// standard error, and its annotations are then ranked without the changed files.
    fn from_env() -> Self {
        let base = Base::from_env();
        let changed = match base.as_ref().filter(|b| b.is_workspace()) {
            None => ChangedFiles::new(),
            Some(base) => match pull_request::from_env(base.dir()) {
                Ok(changed) => changed,
                Err(Unknown::NoPullRequest) => ChangedFiles::new(),
                Err(Unknown::Unavailable(why)) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "kvlint: warning: the pull request's changed files are unknown ({why}); \
                         annotations are not ranked by them (check out with fetch-depth: 0)"
                    );
                    ChangedFiles::new()
                }
            },
        };
        Self { base, changed }
    }
}

/// The context of this process, read once.
pub fn current() -> &'static Context {
    static CONTEXT: OnceLock<Context> = OnceLock::new();
    CONTEXT.get_or_init(Context::from_env)
}
