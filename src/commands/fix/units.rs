//! `kvlint fix` on rendered units: a fix edits the file and line its finding points at (a
//! base, a patch), and is refused where one edit cannot be right for every VM rendered from
//! that place. The re-checks build the units again from a private copy of the files they read,
//! holding the trial texts, so nothing is written to the working tree before the end.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash as _, Hasher as _};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::check::{self, Options, Report};
use crate::diag::Finding;
use crate::error::Error;
use crate::k8s::normalise_path;
use crate::rules::{FixKind, fix_kind};
use crate::source::Input;
use crate::yaml::Node;

/// The findings on rendered objects whose fixes are not made, each with the reason, before
/// any edit is tried: one edit of a line that several VMs are rendered from must be right for
/// all of them. `fixable` says which findings the run fixes.
pub(super) fn refusals<'r>(
    report: &'r Report,
    fixable: &dyn Fn(&Finding) -> bool,
) -> Vec<(&'r Finding, String)> {
    // The findings of one rule about one field at one place, from every unit: merged when
    // their messages agree, apart when a value derived from each VM differs.
    type Place<'a> = (&'a str, u32, u32, &'static str, Option<&'a str>);
    let mut places: BTreeMap<Place<'_>, Vec<&Finding>> = BTreeMap::new();
    for finding in &report.findings {
        if finding.unit.is_none() || finding.fix.is_none() || !fixable(finding) {
            continue;
        }
        let start = finding.location.span.start;
        places
            .entry((
                &*finding.location.file,
                start.line,
                start.column,
                finding.rule.code,
                finding.path.as_deref(),
            ))
            .or_default()
            .push(finding);
    }
    let mut out = Vec::new();
    for group in places.values() {
        if let Some(reason) = group_refusal(group, &report.unit_files) {
            out.extend(group.iter().map(|finding| (*finding, reason.clone())));
        }
    }
    out
}

fn group_refusal(group: &[&Finding], unit_files: &BTreeMap<String, Vec<String>>) -> Option<String> {
    let first = group.first()?;
    let file = &*first.location.file;
    // A chart's template is not the manifest: its lines hold template actions, and one line
    // renders every object of a `range`.
    let chart = group.iter().find_map(|f| {
        f.unit
            .as_ref()
            .filter(|unit| unit.kind == crate::diag::UnitKind::Helm && unit.path != file)
    });
    if let Some(chart) = chart {
        // In the chart, or in a local dependency's `templates/`.
        let path = std::path::Path::new(file);
        let template = path.starts_with(&chart.path)
            || path.components().any(|c| c.as_os_str() == "templates");
        return Some(if template {
            format!(
                "{file} is a Helm template; change the chart or the values its release gives it"
            )
        } else {
            format!(
                "{file} declares the release of the chart {}, not the object; change its post renderers or values by hand",
                chart.path
            )
        });
    }
    let mut rendered_from: Vec<String> = group.iter().flat_map(|f| rendered_objects(f)).collect();
    rendered_from.sort();
    rendered_from.dedup();
    let sharing: Vec<&str> = unit_files
        .iter()
        .filter(|(_, files)| files.iter().any(|f| f == file))
        .map(|(unit, _)| unit.as_str())
        .collect();
    if fix_kind(first.rule) == FixKind::Unsafe && (rendered_from.len() > 1 || sharing.len() > 1) {
        let from = if rendered_from.len() > 1 {
            rendered_from.join(", ")
        } else {
            format!("the units {}", sharing.join(", "))
        };
        return Some(format!(
            "a generated identity is never written into {file}, which several VMs are rendered from ({from}); set it in each overlay"
        ));
    }
    let varies = group
        .iter()
        .any(|f| f.fix.as_ref().is_some_and(|fix| fix.varies))
        || group.windows(2).any(|pair| pair[0].fix != pair[1].fix);
    varies.then(|| {
        format!(
            "{file} is shared by {}, which need different values here; set the value in each overlay",
            rendered_from.join(", ")
        )
    })
}

/// The texts of the files of units that findings point at but the report does not quote (a
/// patch, a kustomization), so that their fixes can be made.
pub(super) fn add_patch_texts(report: &Report, texts: &mut BTreeMap<Arc<str>, String>) {
    for finding in &report.findings {
        let file = &finding.location.file;
        if finding.unit.is_none() || finding.fix.is_none() || texts.contains_key(file) {
            continue;
        }
        let in_unit = report
            .unit_files
            .values()
            .any(|files| files.iter().any(|f| **f == **file));
        if in_unit && let Ok(text) = crate::source::read_file_text(Path::new(&**file)) {
            texts.insert(Arc::clone(file), text);
        }
    }
}

/// `unit (namespace/name)` of each rendered object a finding stands for.
fn rendered_objects(finding: &Finding) -> Vec<String> {
    let name = |object: &crate::diag::ObjectRef| match &object.namespace {
        Some(namespace) => format!("{namespace}/{}", object.name),
        None => object.name.clone(),
    };
    if finding.instances.is_empty() {
        return finding
            .unit
            .iter()
            .zip(&finding.object)
            .map(|(unit, object)| format!("{} ({})", unit.path, name(object)))
            .collect();
    }
    finding
        .instances
        .iter()
        .map(|instance| format!("{} ({})", instance.unit.path, name(&instance.object)))
        .collect()
}

/// Why the document at a rendered object's finding cannot take the fix: the fix's paths are
/// the object's, so the document must be that object (a base, a strategic-merge patch of it),
/// not a kustomization or a JSON patch.
pub(super) fn wrong_document(finding: &Finding, root: &Node) -> Option<String> {
    finding.unit.as_ref()?;
    let object = finding.object.as_ref()?;
    let kind = root.get("kind").and_then(Node::as_str);
    if kind == Some(object.kind.as_str()) {
        return None;
    }
    Some(format!(
        "the value comes from {} through {}, which kvlint does not edit; change it there by hand",
        finding.location.file,
        kind.map_or_else(|| "a patch".to_owned(), |kind| format!("a {kind}")),
    ))
}

/// The object a fix edits: the finding's, or for a finding on a rendered object the document
/// of the file as written (a base VM, a patch of it), which the rendered name is not.
pub(super) fn edited_object(finding: &Finding, root: &Node) -> Option<crate::diag::ObjectRef> {
    let object = finding.object.as_ref()?;
    if finding.unit.is_none() {
        return Some(object.clone());
    }
    let metadata = root.get("metadata");
    let text = |node: Option<&Node>, key: &str| {
        node.and_then(|n| n.get(key))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    Some(crate::diag::ObjectRef {
        api_version: text(Some(root), "apiVersion").unwrap_or_else(|| object.api_version.clone()),
        kind: object.kind.clone(),
        namespace: text(metadata, "namespace"),
        name: text(metadata, "name").unwrap_or_default(),
    })
}

/// A private copy of the files a check with units reads: the checked files and every file a
/// unit's build reads, at the same places relative to each other.
pub(super) struct Shadow {
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Each file by the name the report gives it, with its copy.
    files: BTreeMap<Arc<str>, PathBuf>,
    /// The copy of the working directory (relative names are relative to it).
    cwd: PathBuf,
    /// The copy of the directory the builds may not read outside of.
    repository: PathBuf,
    /// A hash of the text each copy holds.
    written: Mutex<HashMap<Arc<str>, u64>>,
}

fn hash(text: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// `path` below `root`, by its components (an absolute path loses its root).
fn below(root: &Path, path: &Path) -> PathBuf {
    let mut out = root.to_path_buf();
    for component in path.components() {
        if let Component::Normal(part) = component {
            out.push(part);
        }
    }
    out
}

impl Shadow {
    /// The copy for a run whose first check is `report`; None when no unit was built. The
    /// files are copied as they are on disk.
    pub(super) fn new(inputs: &[Input], report: &Report) -> Result<Option<Self>, Error> {
        if report.unit_files.is_empty() {
            return Ok(None);
        }
        let cwd = std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .map_err(|err| Error::system("cannot read the current directory", err))?;
        let dir = tempfile::Builder::new()
            .prefix("kvlint-fix-")
            .tempdir()
            .map_err(|err| {
                Error::system(
                    "cannot create a temporary directory to check fixes of units in",
                    err,
                )
            })?;
        let root = std::fs::canonicalize(dir.path()).map_err(|err| Error::file(dir.path(), err))?;
        let names = inputs
            .iter()
            .filter(|input| matches!(input, Input::File { .. }))
            .map(|input| Arc::clone(input.display()))
            .chain(
                report
                    .unit_files
                    .values()
                    .flatten()
                    .map(|f| Arc::from(&**f)),
            );
        let mut files = BTreeMap::new();
        let mut written = HashMap::new();
        for name in names {
            let original = normalise_path(&cwd.join(&*name));
            let copy = below(&root, &original);
            let Ok(bytes) = crate::source::read_file_bytes(&original) else {
                continue;
            };
            if let Some(parent) = copy.parent() {
                std::fs::create_dir_all(parent).map_err(|err| Error::file(parent, err))?;
            }
            std::fs::write(&copy, &bytes).map_err(|err| Error::file(&copy, err))?;
            written.insert(Arc::clone(&name), hash(&bytes));
            files.insert(name, copy);
        }
        // The directory the first check's builds were kept inside, found as it found it.
        let candidates: std::collections::BTreeSet<PathBuf> = files
            .keys()
            .filter(|name| crate::k8s::is_kustomization_file(name))
            .filter_map(|name| {
                normalise_path(Path::new(&**name))
                    .parent()
                    .map(Path::to_path_buf)
            })
            .collect();
        let repository = crate::units::repository_of(&candidates).unwrap_or_else(|| cwd.clone());
        Ok(Some(Self {
            _dir: dir,
            cwd: below(&root, &cwd),
            repository: below(&root, &repository),
            root,
            files,
            written: Mutex::new(written),
        }))
    }

    /// Checks `inputs` with `texts` in place of the files' texts, the units built from the
    /// copy; the report names files as the first check did.
    pub(super) fn check(
        &self,
        options: &Options,
        inputs: &[Input],
        texts: &BTreeMap<Arc<str>, String>,
    ) -> Result<Report, Error> {
        {
            let mut written = self
                .written
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for (name, text) in texts {
                let Some(copy) = self.files.get(name) else {
                    continue;
                };
                let now = hash(text.as_bytes());
                if written.get(name) != Some(&now) {
                    std::fs::write(copy, text).map_err(|err| Error::file(copy, err))?;
                    written.insert(Arc::clone(name), now);
                }
            }
        }
        let inputs: Vec<Input> = inputs
            .iter()
            .map(|input| match self.files.get(input.display()) {
                Some(copy) if matches!(input, Input::File { .. }) => Input::File {
                    path: copy.clone(),
                    display: crate::source::display_path(copy),
                },
                _ => input.clone(),
            })
            .collect();
        let mut options = options.clone();
        options.keep_sources = false;
        options.units.repository = Some(self.repository.clone());
        let mut report = check::run_inputs(&options, inputs)?;
        let root = crate::source::display_path(&self.root);
        let mut names = vec![(format!("{root}/"), "/".to_owned())];
        // Relative names (the files were given so) are relative to the working directory.
        if self
            .files
            .keys()
            .any(|name| !Path::new(&**name).is_absolute())
        {
            let cwd = crate::source::display_path(&self.cwd);
            names.insert(0, (format!("{cwd}/"), String::new()));
        }
        crate::commands::diff::relabel_copy(&mut report, &root, &names);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Instance, Location, ObjectRef, UnitKind, UnitRef};
    use crate::rules::{self, Rule};
    use crate::yaml::FieldPath;

    fn vm(namespace: &str) -> ObjectRef {
        ObjectRef {
            api_version: "kubevirt.io/v1".to_owned(),
            kind: "VirtualMachine".to_owned(),
            namespace: Some(namespace.to_owned()),
            name: "web".to_owned(),
        }
    }

    fn unit(path: &str) -> UnitRef {
        UnitRef {
            kind: UnitKind::Kustomize,
            path: path.to_owned(),
            via: None,
        }
    }

    /// A finding of `rule` at line 9 of `base/vm.yaml` on the VM rendered in `unit`, with a
    /// fix that removes `field`.
    fn rendered(rule: &'static Rule, unit_path: &str, namespace: &str, field: &str) -> Finding {
        let mut finding = Finding::new(
            rule,
            Location::lines(Arc::from("base/vm.yaml"), (9, 3), (9, 20)),
            "message",
        )
        .with_object(Some(vm(namespace)));
        finding.path = Some("spec.running".to_owned());
        finding.fix = Some(crate::diag::fix::remove(&FieldPath::parse(field)));
        finding.unit = Some(Arc::new(unit(unit_path)));
        finding
    }

    fn checked(findings: Vec<Finding>, units: &[(&str, &[&str])]) -> Report {
        Report {
            findings,
            unit_files: units
                .iter()
                .map(|(unit, files)| {
                    (
                        (*unit).to_owned(),
                        files.iter().map(|f| (*f).to_owned()).collect(),
                    )
                })
                .collect(),
            ..Report::default()
        }
    }

    fn reasons(report: &Report) -> Vec<(String, String)> {
        refusals(report, &|_| true)
            .into_iter()
            .map(|(finding, reason)| {
                let unit = finding
                    .unit
                    .as_ref()
                    .map(|u| u.path.clone())
                    .unwrap_or_default();
                (unit, reason)
            })
            .collect()
    }

    const SHARED: &[(&str, &[&str])] = &[
        ("dev", &["dev/kustomization.yaml", "base/vm.yaml"]),
        ("prod", &["prod/kustomization.yaml", "base/vm.yaml"]),
    ];

    #[test]
    fn a_finding_a_helm_release_renders_is_never_fixed_and_says_where_it_comes_from() {
        let running = &rules::DEPRECATED_RUNNING;
        let helm = |file: &str| {
            let mut finding = rendered(running, "charts/vm", "vms", "spec.running");
            finding.location.file = Arc::from(file);
            finding.unit = Some(Arc::new(UnitRef {
                kind: UnitKind::Helm,
                path: "charts/vm".to_owned(),
                via: None,
            }));
            finding
        };
        let template = checked(vec![helm("charts/vm/templates/vm.yaml")], &[]);
        assert_eq!(
            reasons(&template),
            [(
                "charts/vm".to_owned(),
                "charts/vm/templates/vm.yaml is a Helm template; change the chart or the values its release gives it".to_owned()
            )]
        );
        // A local dependency's template, outside the chart directory.
        let dependency = checked(vec![helm("apps/vm-lib/templates/vm.yaml")], &[]);
        assert!(
            reasons(&dependency)[0].1.ends_with(
                "is a Helm template; change the chart or the values its release gives it"
            )
        );
        // A post renderer's patch line, in the HelmRelease's file.
        let patch = checked(vec![helm("clusters/prod/vms.yaml")], &[]);
        assert_eq!(
            reasons(&patch),
            [(
                "charts/vm".to_owned(),
                "clusters/prod/vms.yaml declares the release of the chart charts/vm, not the object; change its post renderers or values by hand".to_owned()
            )]
        );
    }

    #[test]
    fn one_edit_right_for_every_vm_of_a_shared_line_is_made() {
        let running = &rules::DEPRECATED_RUNNING;
        let report = checked(
            vec![
                rendered(running, "dev", "dev", "spec.running"),
                rendered(running, "prod", "prod", "spec.running"),
            ],
            SHARED,
        );
        assert_eq!(reasons(&report), []);
    }

    #[test]
    fn a_shared_line_whose_vms_need_different_values_is_left() {
        let running = &rules::DEPRECATED_RUNNING;
        let expected = "base/vm.yaml is shared by dev (dev/web), prod (prod/web), which need different values here; set the value in each overlay";
        let report = checked(
            vec![
                rendered(running, "dev", "dev", "spec.running"),
                rendered(running, "prod", "prod", "spec.runStrategy"),
            ],
            SHARED,
        );
        assert_eq!(
            reasons(&report),
            [
                ("dev".to_owned(), expected.to_owned()),
                ("prod".to_owned(), expected.to_owned())
            ]
        );

        // One finding merged from both units, its fix marked as varying.
        let mut merged = rendered(running, "dev", "dev", "spec.running");
        merged.instances = vec![
            Instance {
                unit: unit("dev"),
                object: vm("dev"),
            },
            Instance {
                unit: unit("prod"),
                object: vm("prod"),
            },
        ];
        merged.fix.as_mut().unwrap().varies = true;
        assert_eq!(
            reasons(&report_of(merged)),
            [("dev".to_owned(), expected.to_owned())]
        );
    }

    fn report_of(finding: Finding) -> Report {
        checked(vec![finding], SHARED)
    }

    #[test]
    fn a_generated_identity_is_written_only_into_a_file_of_one_vm() {
        let identity = &rules::FIRMWARE_IDENTITY_GENERATED;
        // One VM rendered from a file that another unit reads too.
        assert_eq!(
            reasons(&report_of(rendered(identity, "dev", "dev", "spec.running"))),
            [(
                "dev".to_owned(),
                "a generated identity is never written into base/vm.yaml, which several VMs are rendered from (the units dev, prod); set it in each overlay".to_owned()
            )]
        );
        // Two VMs rendered from the file, in units that read nothing else in common.
        let report = checked(
            vec![
                rendered(identity, "dev", "dev", "spec.running"),
                rendered(identity, "prod", "prod", "spec.running"),
            ],
            &[("dev", &["base/vm.yaml"])],
        );
        assert_eq!(
            reasons(&report)[0].1,
            "a generated identity is never written into base/vm.yaml, which several VMs are rendered from (dev (dev/web), prod (prod/web)); set it in each overlay"
        );
        // The file of one VM only.
        let alone = checked(
            vec![rendered(identity, "dev", "dev", "spec.running")],
            &[
                ("dev", &["dev/kustomization.yaml", "base/vm.yaml"]),
                ("prod", &["prod/vm.yaml"]),
            ],
        );
        assert_eq!(reasons(&alone), []);
    }

    #[test]
    fn only_fixable_findings_on_rendered_objects_are_judged() {
        let running = &rules::DEPRECATED_RUNNING;
        let differing = || {
            vec![
                rendered(running, "dev", "dev", "spec.running"),
                rendered(running, "prod", "prod", "spec.runStrategy"),
            ]
        };
        let report_with = |change: &dyn Fn(&mut Finding)| {
            let mut findings = differing();
            change(&mut findings[1]);
            checked(findings, SHARED)
        };
        assert_eq!(reasons(&report_with(&|f| f.unit = None)), []);
        assert_eq!(reasons(&report_with(&|f| f.fix = None)), []);
        assert_eq!(
            reasons(&report_with(&|f| f.path = Some("spec.template".to_owned()))),
            []
        );
        let report = checked(differing(), SHARED);
        assert_eq!(refusals(&report, &|_| false), []);
        let not_prod = |finding: &Finding| finding.unit.as_ref().unwrap().path != "prod";
        assert_eq!(refusals(&report, &not_prod), []);
        assert_eq!(refusals(&report, &|_| true).len(), 2);
    }

    use crate::yaml::first_root as root;

    #[test]
    fn a_fix_is_made_only_in_a_document_of_the_object_itself() {
        let running = &rules::DEPRECATED_RUNNING;
        let finding = rendered(running, "dev", "dev", "spec.running");
        let base =
            root("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: web\n");
        assert_eq!(wrong_document(&finding, &base), None);
        let kustomization = root("kind: Kustomization\npatches: []\n");
        assert_eq!(
            wrong_document(&finding, &kustomization).as_deref(),
            Some(
                "the value comes from base/vm.yaml through a Kustomization, which kvlint does not edit; change it there by hand"
            )
        );
        let json_patch = root("- op: remove\n  path: /spec/running\n");
        assert_eq!(
            wrong_document(&finding, &json_patch).as_deref(),
            Some(
                "the value comes from base/vm.yaml through a patch, which kvlint does not edit; change it there by hand"
            )
        );
        let mut as_written = finding.clone();
        as_written.unit = None;
        assert_eq!(wrong_document(&as_written, &kustomization), None);
    }

    #[test]
    fn the_object_edited_is_the_document_as_written() {
        let running = &rules::DEPRECATED_RUNNING;
        let mut finding = rendered(running, "dev", "dev", "spec.running");
        let base = root(
            "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: base-web\n",
        );
        assert_eq!(
            edited_object(&finding, &base),
            Some(ObjectRef {
                api_version: "kubevirt.io/v1alpha3".to_owned(),
                kind: "VirtualMachine".to_owned(),
                namespace: None,
                name: "base-web".to_owned(),
            })
        );
        let patch = root("kind: VirtualMachine\nmetadata:\n  name: web\n  namespace: team\n");
        assert_eq!(
            edited_object(&finding, &patch),
            Some(ObjectRef {
                namespace: Some("team".to_owned()),
                ..vm("dev")
            })
        );
        finding.unit = None;
        assert_eq!(edited_object(&finding, &base), Some(vm("dev")));
    }

    #[test]
    fn the_text_of_a_unit_file_a_fix_points_at_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let patch = dir.path().join("patch.yaml");
        std::fs::write(&patch, "kind: VirtualMachine\n").unwrap();
        let other = dir.path().join("other.yaml");
        std::fs::write(&other, "kind: VirtualMachine\n").unwrap();
        let name = |path: &Path| path.to_str().unwrap().to_owned();
        let at = |file: &Path| {
            let mut finding = rendered(&rules::DEPRECATED_RUNNING, "dev", "dev", "spec.running");
            finding.location.file = Arc::from(name(file));
            finding
        };
        let mut without_fix = at(&other);
        without_fix.fix = None;
        let mut not_rendered = at(&other);
        not_rendered.unit = None;
        let report = checked(
            vec![at(&patch), without_fix, not_rendered],
            &[("dev", &[&name(&patch), &name(&other)])],
        );
        let mut texts = BTreeMap::new();
        add_patch_texts(&report, &mut texts);
        let read: Vec<(&str, &str)> = texts.iter().map(|(f, t)| (&**f, t.as_str())).collect();
        assert_eq!(read, [(name(&patch).as_str(), "kind: VirtualMachine\n")]);

        // A text the run already has is kept; a file outside every unit is not read.
        let mut texts = BTreeMap::from([(Arc::from(name(&patch)), "edited\n".to_owned())]);
        let outside = checked(vec![at(&patch), at(&other)], &[("dev", &[&name(&patch)])]);
        add_patch_texts(&outside, &mut texts);
        let read: Vec<(&str, &str)> = texts.iter().map(|(f, t)| (&**f, t.as_str())).collect();
        assert_eq!(read, [(name(&patch).as_str(), "edited\n")]);
    }

    #[test]
    fn copies_keep_their_places() {
        let root = Path::new("/tmp/copy");
        assert_eq!(
            below(root, Path::new("/home/u/repo/a.yaml")),
            Path::new("/tmp/copy/home/u/repo/a.yaml")
        );
        assert_eq!(below(root, Path::new("a/b")), Path::new("/tmp/copy/a/b"));
    }
}
