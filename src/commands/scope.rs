//! `kvlint check --index DIR PATH...`: read a whole repository, report on some of its files.
//!
//! A VM and the instance type, preference or kustomization it depends on often live in different
//! files, so a hook that sees only the changed files must still read the rest of the repository;
//! it then reports the findings located in the changed files, or pointing into them. `render
//! --index` and `diff --base REF --index` narrow their output the same way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::check::Report;
use crate::check::vm::Rendered;
use crate::commands::diff::{Diff, DiffFinding, VmDiff, VmKey};
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

/// What a scope covers in one report: its files, and the units whose build reads one of them.
struct Coverage<'a> {
    scope: &'a Scope,
    touched_units: BTreeSet<&'a str>,
}

impl<'a> Coverage<'a> {
    fn new(unit_files: &'a BTreeMap<String, Vec<String>>, scope: &'a Scope) -> Self {
        let touched_units = unit_files
            .iter()
            .filter(|(_, files)| files.iter().any(|file| scope.contains(file)))
            .map(|(unit, _)| unit.as_str())
            .collect();
        Self {
            scope,
            touched_units,
        }
    }

    /// A finding located in the scope or pointing into it, or about an object rendered in a
    /// touched unit or in a unit whose entry point (the Flux Kustomization or HelmRelease, or Argo
    /// CD Application, that names it and sets its options) is in the scope or rendered by a
    /// touched unit.
    fn finding(&self, finding: &Finding) -> bool {
        self.scope.covers(finding)
            || finding
                .unit
                .as_deref()
                .into_iter()
                .chain(finding.instances.iter().map(|i| &i.unit))
                .any(|unit| {
                    self.touched_units.contains(unit.path.as_str())
                        || unit.via.as_ref().is_some_and(|via| {
                            self.scope.contains(&via.file)
                                || via
                                    .unit
                                    .as_deref()
                                    .is_some_and(|parent| self.touched_units.contains(parent))
                        })
                })
    }

    /// A VM defined in the scope, or rendered in a touched unit.
    fn rendered(&self, vm: &Rendered) -> bool {
        self.scope.contains(&vm.file)
            || vm
                .unit
                .as_deref()
                .is_some_and(|unit| self.touched_units.contains(unit))
    }
}

/// Keeps the findings `scope` covers, and those about objects rendered in a unit that reads a
/// file of the scope (a changed base re-checks every overlay built from it) or whose entry point
/// is in the scope, and recounts the summary's severities.
pub fn retain(report: &mut Report, scope: &Scope) {
    let coverage = Coverage::new(&report.unit_files, scope);
    report.findings.retain(|finding| coverage.finding(finding));
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

/// Keeps the rendered VMs defined in the scope or rendered in a unit that reads a file of it.
pub fn retain_rendered(report: &mut Report, scope: &Scope) {
    let coverage = Coverage::new(&report.unit_files, scope);
    report.rendered.retain(|vm| coverage.rendered(vm));
}

fn is_vm(kind: &str) -> bool {
    matches!(kind, "VirtualMachine" | "VirtualMachinePool")
}

/// The VMs (a pool by its own name) of one side that the scope covers: rendered from a file of
/// the scope or in a unit that reads one, or with a finding the scope covers.
pub fn covered_vms(report: &Report, scope: &Scope) -> BTreeSet<VmKey> {
    let coverage = Coverage::new(&report.unit_files, scope);
    let rendered = report
        .rendered
        .iter()
        .filter(|vm| coverage.rendered(vm))
        .map(|vm| VmKey::new(&vm.namespace, vm.pool.as_deref().unwrap_or(&vm.name)));
    let with_findings = report
        .findings
        .iter()
        .filter(|finding| coverage.finding(finding))
        .filter_map(|finding| finding.object.as_ref())
        .filter(|object| is_vm(&object.kind))
        .map(|object| VmKey::new(object.namespace.clone().unwrap_or_default(), &object.name));
    rendered.chain(with_findings).collect()
}

/// Keeps the part of a comparison the scope covers: the VMs in `covered` (see [`covered_vms`])
/// or defined in the scope on either side, the instance types and preferences defined in it
/// with the VMs that use them, and the findings located in it or about a kept VM.
pub fn retain_diff(diff: &mut Diff, scope: &Scope, covered: &BTreeSet<VmKey>) {
    diff.objects.retain(|object| scope.contains(&object.file));
    let users: BTreeSet<VmKey> = diff
        .objects
        .iter()
        .flat_map(|object| &object.used_by)
        .map(|user| VmKey::new(&user.namespace, &user.name))
        .collect();
    diff.vms.retain(|vm| {
        let key = vm.key();
        covered.contains(&key)
            || users.contains(&key)
            || [&vm.base, &vm.head]
                .into_iter()
                .flatten()
                .any(|place| scope.contains(&place.file))
    });
    let kept: BTreeSet<VmKey> = diff.vms.iter().map(VmDiff::key).collect();
    let about_kept_vm = |finding: &DiffFinding| {
        finding.object.as_ref().is_some_and(|object| {
            is_vm(&object.kind)
                && kept.contains(&VmKey::new(
                    object.namespace.clone().unwrap_or_default(),
                    &object.name,
                ))
        })
    };
    diff.introduced
        .retain(|finding| scope.contains(&finding.file) || about_kept_vm(finding));
    diff.fixed
        .retain(|finding| scope.contains(&finding.file) || about_kept_vm(finding));
    diff.recount();
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
