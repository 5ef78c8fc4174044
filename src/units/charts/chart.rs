//! A chart directory's files: the ones `helm template` reads (the cache keys on them, and
//! they are checked as rendered rather than as written).

use std::path::{Path, PathBuf};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_files_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Chart.yaml"),
            "apiVersion: v2\nname: vm\nversion: 0.1.0\ndependencies:\n  - name: db\n    version: 1.0.0\n    repository: https://charts.example.com\n  - name: cache\n    repository: oci://example.com/charts\n  - name: local\n    repository: file://../local\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("charts/local")).unwrap();
        std::fs::write(dir.path().join("charts/cache-2.0.0.tgz"), b"").unwrap();
        let files = files(dir.path()).unwrap();
        assert_eq!(files.len(), 2);
        assert!(!mentions_kubevirt(&files));
    }
}
