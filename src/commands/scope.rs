//! `kvlint check --index DIR PATH...`: read a whole repository, report on some of its files.
//!
//! A VM and the instance type, preference or kustomization it depends on often live in different
//! files, so a hook that sees only the changed files must still read the rest of the repository;
//! it then reports the findings located in the changed files, or pointing into them.

use std::path::{Path, PathBuf};

use crate::check::Report;
use crate::diag::{Finding, Severity};
use crate::source::lexical_absolute;

/// The files and directories whose findings are reported.
#[derive(Clone, Debug)]
pub struct Scope {
    roots: Vec<PathBuf>,
    cwd: PathBuf,
}

impl Scope {
    /// The scope of `paths`, given relative to `cwd` or absolute; `-` stands for standard input,
    /// whose findings carry `stdin_name`.
    pub fn new(paths: &[PathBuf], stdin_name: &str, cwd: &Path) -> Self {
        let roots = paths
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" {
                    lexical_absolute(cwd, Path::new(stdin_name))
                } else {
                    lexical_absolute(cwd, p)
                }
            })
            .collect();
        Self {
            roots,
            cwd: cwd.to_path_buf(),
        }
    }

    /// Whether a reported file name (as findings carry it) is one of the paths or lies under one.
    pub fn contains(&self, file: &str) -> bool {
        let file = lexical_absolute(&self.cwd, Path::new(file));
        self.roots.iter().any(|root| file.starts_with(root))
    }

    /// Whether a finding is located in the scope or points into it (a VM broken by a changed
    /// instance type names the instance type as a related place).
    pub fn covers(&self, finding: &Finding) -> bool {
        self.contains(&finding.location.file)
            || finding
                .related
                .iter()
                .any(|related| self.contains(&related.location.file))
    }
}

/// What to read for `--index`: the index directories, plus the paths that lie outside all of them
/// (a path inside one would be read twice, and its objects reported as duplicates).
pub fn read_paths(index: &[PathBuf], paths: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    let roots = Scope::new(index, "-", cwd);
    let mut read = index.to_vec();
    read.extend(
        paths
            .iter()
            .filter(|p| p.as_os_str() == "-" || !roots.contains(&p.to_string_lossy()))
            .cloned(),
    );
    read
}

/// Keeps the findings `scope` covers, and those about objects rendered in a unit that reads a
/// file of the scope (a changed base re-checks every overlay built from it) or whose entry point
/// is in the scope, and recounts the summary's severities.
pub fn retain(report: &mut Report, scope: &Scope) {
    let touched: std::collections::BTreeSet<&str> = report
        .unit_files
        .iter()
        .filter(|(_, files)| files.iter().any(|file| scope.contains(file)))
        .map(|(unit, _)| unit.as_str())
        .collect();
    // A unit is touched through the files its build reads and through its entry point (the
    // Flux Kustomization or Argo CD Application that names it and sets its options).
    let in_touched_unit = |finding: &Finding| {
        finding
            .unit
            .as_deref()
            .into_iter()
            .chain(finding.instances.iter().map(|i| &i.unit))
            .any(|unit| {
                touched.contains(unit.path.as_str())
                    || unit
                        .via
                        .as_ref()
                        .is_some_and(|via| scope.contains(&via.file))
            })
    };
    report
        .findings
        .retain(|finding| scope.covers(finding) || in_touched_unit(finding));
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    };
    report.summary.errors = count(Severity::Error);
    report.summary.warnings = count(Severity::Warning);
    report.summary.infos = count(Severity::Info);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_directories_match_relative_and_absolute_names() {
        let cwd = Path::new("/repo");
        let scope = Scope::new(
            &[
                PathBuf::from("apps/db/vm.yaml"),
                PathBuf::from("./platform"),
                PathBuf::from("-"),
            ],
            "apps/web/overlays/prod",
            cwd,
        );
        assert!(scope.contains("apps/web/overlays/prod"));
        assert!(!scope.contains("-"));
        assert!(scope.contains("apps/db/vm.yaml"));
        assert!(scope.contains("./apps/db/../db/vm.yaml"));
        assert!(scope.contains("/repo/apps/db/vm.yaml"));
        assert!(scope.contains("platform/instancetypes/a.yaml"));
        assert!(!scope.contains("apps/db/vm.yaml.bak"));
        assert!(!scope.contains("apps/db/instancetype.yaml"));
        assert!(!scope.contains("platformer/a.yaml"));
    }

    #[test]
    fn paths_inside_the_index_are_read_once() {
        let cwd = Path::new("/repo");
        let read = read_paths(
            &[PathBuf::from(".")],
            &[
                PathBuf::from("apps/vm.yaml"),
                PathBuf::from("/elsewhere/vm.yaml"),
                PathBuf::from("-"),
            ],
            cwd,
        );
        assert_eq!(
            read,
            [
                PathBuf::from("."),
                PathBuf::from("/elsewhere/vm.yaml"),
                PathBuf::from("-")
            ]
        );
    }
}
