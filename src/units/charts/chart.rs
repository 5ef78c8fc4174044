//! A chart directory's files: the ones `helm template` reads (the cache keys on them, and
//! they are checked as rendered rather than as written), and the dependencies it cannot
//! render without.

use std::path::{Path, PathBuf};

use crate::yaml::{Limits, Node};

/// Files of a chart walked at most: a larger directory is not a chart kvlint renders from
/// the cache, and its files beyond stay checked as written.
const MAX_FILES: usize = 10_000;

/// The files under `dir`, sorted; symbolic links to directories are not followed. None when
/// there are more than [`MAX_FILES`].
pub(super) fn files(dir: &Path) -> Option<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = current.join(entry.file_name());
            if kind.is_dir() {
                pending.push(path);
            } else {
                out.push(path);
                if out.len() > MAX_FILES {
                    return None;
                }
            }
        }
    }
    out.sort();
    Some(out)
}

/// A dependency of `Chart.yaml` that is not in the chart's `charts/` directory (neither as a
/// directory nor as a packaged `.tgz`): Argo CD and Flux fetch it, `helm template` does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Missing {
    pub name: String,
    pub repository: String,
}

pub(super) fn missing_dependencies(chart: &Path) -> Vec<Missing> {
    let Ok(text) = crate::source::read_file_text(&chart.join("Chart.yaml")) else {
        return Vec::new();
    };
    let Some(Ok(document)) = crate::yaml::parse_stream(&text, Limits::default())
        .into_iter()
        .next()
    else {
        return Vec::new();
    };
    let vendored: Vec<String> = std::fs::read_dir(chart.join("charts"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    let present = |name: &str| {
        vendored.iter().any(|file| {
            file == name
                || file
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(|rest| rest.to_ascii_lowercase().ends_with(".tgz"))
        })
    };
    document
        .root
        .get("dependencies")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|dependency| {
            let name = dependency.get("name")?.as_str()?;
            let repository = dependency
                .get("repository")
                .and_then(Node::as_str)
                .unwrap_or_default();
            (!present(name)).then(|| Missing {
                name: name.to_owned(),
                repository: repository.to_owned(),
            })
        })
        .collect()
}

/// The first of `paths` that resolves (symbolic links followed, as Helm follows them) outside
/// `repository`, the resolved repository root.
pub(super) fn outside<'p>(
    repository: &Path,
    paths: impl Iterator<Item = &'p PathBuf>,
) -> Option<&'p PathBuf> {
    paths
        .filter(|path| path.exists())
        .find(|path| std::fs::canonicalize(path).map_or(true, |real| !real.starts_with(repository)))
}

/// Whether the chart's templates name KubeVirt (for the finding when Helm is missing).
pub(super) fn mentions_kubevirt(files: &[PathBuf]) -> bool {
    files
        .iter()
        .filter(|path| path.components().any(|c| c.as_os_str() == "templates"))
        .filter_map(|path| crate::source::read_file_text(path).ok())
        .any(|text| crate::units::helm::mentions_kubevirt(&text))
}

/// Copies the chart at `from` to `to` with its `values.yaml` emptied (Flux `valuesFiles`
/// replace the chart's values).
pub(super) fn copy_without_values(
    from: &Path,
    files: &[PathBuf],
    to: &Path,
) -> std::io::Result<()> {
    for file in files {
        let Ok(inside) = file.strip_prefix(from) else {
            continue;
        };
        let target = to.join(inside);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        if inside == Path::new("values.yaml") || inside == Path::new("values.yml") {
            std::fs::write(&target, "{}\n")?;
        } else {
            std::fs::copy(file, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_not_vendored_are_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Chart.yaml"),
            "apiVersion: v2\nname: vm\nversion: 0.1.0\ndependencies:\n  - name: db\n    version: 1.0.0\n    repository: https://charts.example.com\n  - name: cache\n    repository: oci://example.com/charts\n  - name: local\n    repository: file://../local\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("charts/local")).unwrap();
        std::fs::write(dir.path().join("charts/cache-2.0.0.tgz"), b"").unwrap();
        assert_eq!(
            missing_dependencies(dir.path()),
            [Missing {
                name: "db".to_owned(),
                repository: "https://charts.example.com".to_owned()
            }]
        );
        let files = files(dir.path()).unwrap();
        assert_eq!(files.len(), 2);
        assert!(!mentions_kubevirt(&files));
    }
}
