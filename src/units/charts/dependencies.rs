//! The dependencies of a chart's `Chart.yaml` as Flux's source-controller and Argo CD's
//! `helm dependency build` meet them offline: one vendored in `charts/` is used as it is; a
//! local one (`repository: file://<path>`, relative to the chart) is loaded from the
//! repository when its version satisfies the constraint; a remote one is downloaded, which
//! kvlint does not do.

use std::path::{Path, PathBuf};

use crate::k8s::normalise_path;
use crate::yaml::{Limits, Node};

use super::semver::{Constraint, Version};

/// One entry of `Chart.yaml`'s `dependencies`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Declared {
    pub name: String,
    pub alias: Option<String>,
    pub repository: String,
    pub version: String,
}

impl Declared {
    /// The name Helm gives the subchart: `charts/<it>/` in the `# Source:` lines.
    fn rendered_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }

    fn is_local(&self) -> bool {
        self.repository.is_empty() || self.repository.starts_with("file://")
    }
}

/// A local dependency found in the repository, to be placed in the chart's `charts/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Local {
    /// Its directory under the staged chart's `charts/`.
    pub staged_as: String,
    /// The chart directory, as the report names paths.
    pub dir: PathBuf,
    /// Its files (those `helm template` reads through it).
    pub files: Vec<PathBuf>,
}

/// A dependency that is neither vendored nor found: why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Unmet {
    pub name: String,
    pub repository: String,
    /// None for a remote chart (downloaded by the controllers, not by kvlint); else what is
    /// wrong with the local one.
    pub problem: Option<String>,
    /// Whether Flux and Argo CD fail to build the chart for it too (a local chart that is not
    /// there, or that the constraint excludes), rather than only kvlint not reading it.
    pub fails_build: bool,
}

/// Why a local dependency cannot be used, and whether the controllers fail on it too.
struct Problem {
    text: String,
    fails_build: bool,
}

impl Problem {
    /// The controllers fail the same way.
    fn fails(text: String) -> Self {
        Self {
            text,
            fails_build: true,
        }
    }

    /// Only kvlint does not read it (a path outside the repository, too many files).
    fn unread(text: String) -> Self {
        Self {
            text,
            fails_build: false,
        }
    }
}

/// What the chart's dependencies amount to before `helm template` runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Resolved {
    pub local: Vec<Local>,
    /// The name each rendered subchart has in `# Source:` lines (`charts/<it>/…`) with the
    /// directory of the repository that holds it.
    pub subcharts: Vec<(String, PathBuf)>,
    pub unmet: Vec<Unmet>,
}

/// The dependencies `Chart.yaml` of `chart` declares; none when it cannot be read.
pub(super) fn declared(chart: &Path) -> Vec<Declared> {
    let Ok(text) = crate::source::read_file_text(&chart.join("Chart.yaml")) else {
        return Vec::new();
    };
    let Some(Ok(document)) = crate::yaml::parse_stream(&text, Limits::default())
        .into_iter()
        .next()
    else {
        return Vec::new();
    };
    let text_of = |node: &Node, key: &str| {
        node.get(key).map(|value| match value.to_json() {
            serde_json::Value::String(text) => text,
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        })
    };
    document
        .root
        .get("dependencies")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|dependency| {
            Some(Declared {
                name: dependency.get("name")?.as_str()?.to_owned(),
                alias: text_of(dependency, "alias").filter(|alias| !alias.is_empty()),
                repository: text_of(dependency, "repository").unwrap_or_default(),
                version: text_of(dependency, "version").unwrap_or_default(),
            })
        })
        .collect()
}

/// The dependencies of `chart` met in its `charts/` directory or in `repository` (the
/// resolved repository root), and the ones that are not.
pub(super) fn resolve(chart: &Path, repository: &Path) -> Resolved {
    let vendored: Vec<String> = std::fs::read_dir(chart.join("charts"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    let mut resolved = Resolved::default();
    for dependency in declared(chart) {
        if is_vendored(&vendored, &dependency.name) {
            continue;
        }
        if !dependency.is_local() {
            resolved.unmet.push(Unmet {
                name: dependency.name.clone(),
                repository: dependency.repository.clone(),
                problem: None,
                fails_build: false,
            });
            continue;
        }
        match local_chart(chart, &dependency, repository) {
            Ok(dir) => {
                if !resolved.local.iter().any(|local| local.dir == dir) {
                    let Some(files) = super::chart::files(&dir) else {
                        resolved.unmet.push(Unmet {
                            name: dependency.name.clone(),
                            repository: dependency.repository.clone(),
                            problem: Some(format!(
                                "`{}` holds more files than kvlint renders a chart of",
                                crate::units::display_dir(&dir)
                            )),
                            fails_build: false,
                        });
                        continue;
                    };
                    let staged_as = free_name(&vendored, &resolved.local, &dependency.name);
                    resolved.local.push(Local {
                        staged_as,
                        dir: dir.clone(),
                        files,
                    });
                }
                resolved
                    .subcharts
                    .push((dependency.rendered_name().to_owned(), dir));
            }
            Err(problem) => resolved.unmet.push(Unmet {
                name: dependency.name.clone(),
                repository: dependency.repository.clone(),
                problem: Some(problem.text),
                fails_build: problem.fails_build,
            }),
        }
    }
    resolved
}

/// Whether `charts/` holds the dependency `name`, as a directory or a packaged `.tgz`.
fn is_vendored(vendored: &[String], name: &str) -> bool {
    vendored.iter().any(|file| {
        file == name
            || file
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|rest| rest.to_ascii_lowercase().ends_with(".tgz"))
    })
}

/// A directory name under `charts/` taken neither by a vendored chart nor by a staged one.
fn free_name(vendored: &[String], staged: &[Local], name: &str) -> String {
    let taken = |candidate: &str| {
        vendored.iter().any(|v| v == candidate) || staged.iter().any(|s| s.staged_as == candidate)
    };
    let mut candidate = name.to_owned();
    let mut n = 2;
    while taken(&candidate) {
        candidate = format!("{name}-{n}");
        n += 1;
    }
    candidate
}

/// The directory of the local dependency, as the report names paths; or why it cannot be
/// used: not there, outside the repository, or of a version the constraint excludes.
fn local_chart(chart: &Path, dependency: &Declared, repository: &Path) -> Result<PathBuf, Problem> {
    let dir = local_path(chart, dependency).map_err(Problem::unread)?;
    let shown = crate::units::display_dir(&dir);
    let Ok(real) = std::fs::canonicalize(&dir) else {
        return Err(Problem::fails(format!("no chart is at `{shown}`")));
    };
    if !real.starts_with(repository) {
        return Err(Problem::unread(format!(
            "`{shown}` resolves outside the repository"
        )));
    }
    let text = crate::source::read_file_text(&dir.join("Chart.yaml"))
        .map_err(|_| Problem::fails(format!("`{shown}` holds no Chart.yaml")))?;
    let version = chart_version(&text).ok_or_else(|| {
        Problem::fails(format!(
            "the Chart.yaml of `{shown}` has no semantic version"
        ))
    })?;
    let constraint = Constraint::parse(&dependency.version).ok_or_else(|| {
        Problem::fails(format!(
            "its version constraint `{}` is not valid",
            dependency.version
        ))
    })?;
    if !constraint.allows(&version.1) {
        return Err(Problem::fails(format!(
            "`{shown}` is version {}, which `{}` excludes",
            version.0, dependency.version
        )));
    }
    Ok(dir)
}

/// The file of the repository a template path of the rendered chart (`charts/<name>/…`,
/// relative to the chart) names when `<name>` is a local dependency placed for the
/// rendering: the rest of the path under the dependency's directory.
pub(super) fn subchart_file(subcharts: &[(String, PathBuf)], inside: &str) -> Option<PathBuf> {
    let (name, rest) = inside.strip_prefix("charts/")?.split_once('/')?;
    let (_, dir) = subcharts.iter().find(|(rendered, _)| rendered == name)?;
    let path = normalise_path(&dir.join(rest));
    path.starts_with(normalise_path(dir)).then_some(path)
}

/// The path of a local dependency's chart: `charts/<name>` for an empty repository, else the
/// `file://` path from the chart directory.
fn local_path(chart: &Path, dependency: &Declared) -> Result<PathBuf, String> {
    if dependency.repository.is_empty() {
        return Ok(chart.join("charts").join(&dependency.name));
    }
    let path = dependency
        .repository
        .strip_prefix("file://")
        .unwrap_or(&dependency.repository);
    if Path::new(path).is_absolute() {
        return Err(format!(
            "`{}` is an absolute path, which kvlint does not read",
            dependency.repository
        ));
    }
    Ok(crate::units::within_working_directory(normalise_path(
        &chart.join(path),
    )))
}

/// The `version` of a Chart.yaml text, as written and parsed.
fn chart_version(text: &str) -> Option<(String, Version)> {
    let document = crate::yaml::parse_stream(text, Limits::default())
        .into_iter()
        .next()?
        .ok()?;
    let written = match document.root.get("version")?.to_json() {
        serde_json::Value::String(text) => text,
        other => other.to_string(),
    };
    let version = Version::parse(&written)?;
    Some((written, version))
}

/// Copies the chart at `from` (its `files`) to `to`, with each of `local` under its
/// `charts/`; `values.yaml` emptied when `without_values` (Flux `valuesFiles` replace the
/// chart's values).
pub(super) fn stage(
    from: &Path,
    files: &[PathBuf],
    local: &[Local],
    without_values: bool,
    to: &Path,
) -> std::io::Result<()> {
    let copy = |from: &Path, files: &[PathBuf], to: &Path, empty_values: bool| {
        for file in files {
            let Ok(inside) = file.strip_prefix(from) else {
                continue;
            };
            let target = to.join(inside);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            if empty_values
                && (inside == Path::new("values.yaml") || inside == Path::new("values.yml"))
            {
                std::fs::write(&target, "{}\n")?;
            } else {
                std::fs::copy(file, &target)?;
            }
        }
        std::io::Result::Ok(())
    };
    copy(from, files, to, without_values)?;
    for dependency in local {
        let target = to.join("charts").join(&dependency.staged_as);
        std::fs::create_dir_all(&target)?;
        copy(&dependency.dir, &dependency.files, &target, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn dependencies_are_vendored_local_or_unmet() {
        let root = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(root.path()).unwrap();
        let chart = root.join("app");
        write(
            &chart.join("Chart.yaml"),
            "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: db\n    version: 1.0.0\n    repository: https://charts.example.com\n  - name: cache\n    repository: oci://example.com/charts\n  - name: vendored\n    repository: file://../gone\n  - name: lib\n    version: ^0.2\n    repository: file://../lib\n    alias: web\n  - name: lib\n    version: 0.2.x\n    repository: file://../lib\n    alias: api\n  - name: old\n    version: \">=2\"\n    repository: file://../lib\n  - name: nowhere\n    repository: file://../nowhere\n  - name: inner\n",
        );
        write(
            &chart.join("charts/vendored/Chart.yaml"),
            "name: vendored\n",
        );
        write(&chart.join("charts/cache-2.0.0.tgz"), "");
        write(
            &root.join("lib/Chart.yaml"),
            "apiVersion: v2\nname: lib\nversion: 0.2.1\n",
        );
        write(&root.join("lib/templates/vm.yaml"), "kind: X\n");
        let resolved = resolve(&chart, &root);
        assert_eq!(resolved.local.len(), 1);
        assert_eq!(resolved.local[0].staged_as, "lib");
        assert_eq!(resolved.local[0].files.len(), 2);
        assert_eq!(
            resolved.subcharts,
            [
                ("web".to_owned(), root.join("lib")),
                ("api".to_owned(), root.join("lib"))
            ]
        );
        let unmet: Vec<(&str, Option<&str>)> = resolved
            .unmet
            .iter()
            .map(|u| (u.name.as_str(), u.problem.as_deref()))
            .collect();
        let old = format!(
            "`{}` is version 0.2.1, which `>=2` excludes",
            root.join("lib").display()
        );
        let nowhere = format!("no chart is at `{}`", root.join("nowhere").display());
        let inner = format!("no chart is at `{}`", chart.join("charts/inner").display());
        assert_eq!(
            unmet,
            [
                ("db", None),
                ("old", Some(old.as_str())),
                ("nowhere", Some(nowhere.as_str())),
                ("inner", Some(inner.as_str())),
            ]
        );
    }

    #[test]
    fn local_dependencies_outside_the_repository_or_absolute_are_unmet() {
        let outer = tempfile::tempdir().unwrap();
        let outer = std::fs::canonicalize(outer.path()).unwrap();
        let root = outer.join("repo");
        let chart = root.join("app");
        write(
            &chart.join("Chart.yaml"),
            "name: app\ndependencies:\n  - name: lib\n    repository: file://../../lib\n  - name: abs\n    repository: file:///etc\n",
        );
        write(&outer.join("lib/Chart.yaml"), "name: lib\nversion: 1.0.0\n");
        let resolved = resolve(&chart, &root);
        assert!(resolved.local.is_empty());
        let problems: Vec<String> = resolved
            .unmet
            .into_iter()
            .filter_map(|u| u.problem)
            .collect();
        assert_eq!(
            problems,
            [
                format!(
                    "`{}` resolves outside the repository",
                    outer.join("lib").display()
                ),
                "`file:///etc` is an absolute path, which kvlint does not read".to_owned()
            ]
        );
    }

    #[test]
    fn templates_of_placed_subcharts_are_read_in_their_own_directory() {
        let subcharts = [("web".to_owned(), PathBuf::from("charts/vm-lib"))];
        assert_eq!(
            subchart_file(&subcharts, "charts/web/templates/vm.yaml"),
            Some(PathBuf::from("charts/vm-lib/templates/vm.yaml"))
        );
        assert_eq!(
            subchart_file(&subcharts, "charts/web/charts/disk/templates/dv.yaml"),
            Some(PathBuf::from("charts/vm-lib/charts/disk/templates/dv.yaml"))
        );
        assert_eq!(subchart_file(&subcharts, "charts/web/../../x.yaml"), None);
        assert_eq!(
            subchart_file(&subcharts, "charts/db/templates/vm.yaml"),
            None
        );
        assert_eq!(subchart_file(&subcharts, "templates/vm.yaml"), None);
    }

    #[test]
    fn a_staged_chart_holds_its_local_dependencies() {
        let root = tempfile::tempdir().unwrap();
        let chart = root.path().join("app");
        write(&chart.join("Chart.yaml"), "name: app\n");
        write(&chart.join("values.yaml"), "a: 1\n");
        write(&root.path().join("lib/templates/x.yaml"), "kind: X\n");
        write(&root.path().join("lib/values.yaml"), "b: 2\n");
        let local = Local {
            staged_as: "lib".to_owned(),
            dir: root.path().join("lib"),
            files: super::super::chart::files(&root.path().join("lib")).unwrap(),
        };
        let to = root.path().join("staged");
        let files = super::super::chart::files(&chart).unwrap();
        stage(&chart, &files, &[local], true, &to).unwrap();
        let read = |p: &str| std::fs::read_to_string(to.join(p)).unwrap();
        assert_eq!(read("values.yaml"), "{}\n");
        assert_eq!(read("charts/lib/values.yaml"), "b: 2\n");
        assert_eq!(read("charts/lib/templates/x.yaml"), "kind: X\n");
    }
}
