//! Where an Argo CD Helm source's value files and file parameters are, as the repo server
//! resolves them (reposerver/repository `getResolvedValueFiles`, util/io/path
//! `ResolveValueFilePathOrUrl`): a `$ref/` path names a file of another source (see
//! `refs`); any other path has the build environment substituted (`Env.Envsubst`, so
//! `values-$ARGOCD_APP_NAME.yaml` works), is relative to the source's directory, or to the
//! repository root when absolute, and may not leave the repository, symbolic links followed.
//! A value file with `*`, `?` or `[` is a pattern (Argo CD 3.5, doublestar's `FilepathGlob`)
//! replaced by the files it matches in doublestar's order; a file listed explicitly keeps its
//! explicit place, and each file is passed once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Target;
use super::glob::path_match;
use super::refs::{self, Reference};
use crate::k8s::normalise_path;

/// Why a value file or file parameter keeps the chart from rendering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unresolved {
    /// The repo server fails the Application with this message.
    Refused(String),
    /// kvlint does not read it (a URL): the chart is not rendered.
    NotRead(String),
}

/// The most files one pattern may match, and directories a `**` may visit, before kvlint
/// stops: a pattern over a huge tree must not stall a check.
const MAX_VISITED: usize = 10_000;

/// The files `names` (the source's `valueFiles`, each with its index) name, in the order Helm
/// reads them; Err names the entry that fails, by index.
pub(crate) fn value_files(
    target: &Target,
    names: &[&str],
    ignore_missing: bool,
) -> Result<Vec<PathBuf>, (usize, Unresolved)> {
    let located: Vec<Result<Option<PathBuf>, Unresolved>> =
        names.iter().map(|name| locate(target, name)).collect();
    let explicit: HashSet<&PathBuf> = located
        .iter()
        .filter_map(|found| found.as_ref().ok().and_then(Option::as_ref))
        .filter(|path| !is_pattern(path))
        .collect();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut push = |path: PathBuf, files: &mut Vec<PathBuf>| {
        if seen.insert(path.clone()) {
            files.push(path);
        }
    };
    for (index, found) in located.iter().enumerate() {
        let path = match found {
            Ok(Some(path)) => path,
            Ok(None) => continue,
            Err(unresolved) => return Err((index, unresolved.clone())),
        };
        if is_pattern(path) {
            let matches = expand(path).map_err(|unresolved| (index, unresolved))?;
            if matches.is_empty() && !ignore_missing {
                return Err((
                    index,
                    Unresolved::Refused(format!(
                        "values file glob {:?} matched no files",
                        names[index]
                    )),
                ));
            }
            for found in matches {
                outside_by_link(target, &found).map_err(|m| (index, Unresolved::Refused(m)))?;
                if !explicit.contains(&found) {
                    push(found, &mut files);
                }
            }
            continue;
        }
        if !path.exists() && ignore_missing {
            continue;
        }
        outside_by_link(target, path).map_err(|m| (index, Unresolved::Refused(m)))?;
        push(path.clone(), &mut files);
    }
    Ok(files)
}

/// The file a file parameter's `path` names: None for a file of another repository.
pub(crate) fn file_parameter(target: &Target, name: &str) -> Result<Option<PathBuf>, Unresolved> {
    let found = locate(target, name)?;
    if let Some(path) = &found {
        outside_by_link(target, path).map_err(Unresolved::Refused)?;
    }
    Ok(found)
}

/// The path `name` names, as the report names paths (it may not exist): None for a file of
/// another repository.
fn locate(target: &Target, name: &str) -> Result<Option<PathBuf>, Unresolved> {
    match refs::resolve(target, name) {
        Some(Ok(Reference::Here(path))) => return Ok(Some(path)),
        Some(Ok(Reference::Elsewhere { .. })) => return Ok(None),
        Some(Err(message)) => return Err(Unresolved::Refused(message)),
        None => {}
    }
    let substituted = target.app.env(&target.source).substitute(name);
    if substituted.contains("://") {
        return Err(Unresolved::NotRead(format!(
            "the value file `{name}` is at a URL, which kvlint does not read; the chart is not rendered"
        )));
    }
    let source_dir = target.dir.strip_prefix(&target.root).unwrap_or(&target.dir);
    let relative = match substituted.strip_prefix('/') {
        Some(from_root) => normalise_path(Path::new(from_root.trim_start_matches('/'))),
        None => normalise_path(&source_dir.join(&substituted)),
    };
    refs::in_repository(target, &relative, &substituted)
        .map(Some)
        .map_err(Unresolved::Refused)
}

/// A file whose symbolic links lead out of the repository: the repo server refuses it.
fn outside_by_link(target: &Target, path: &Path) -> Result<(), String> {
    if crate::units::resolve::leaves(&target.root, path) {
        return Err(format!(
            "error resolving value file path: file '{}' resolved to outside repository root",
            path.display()
        ));
    }
    Ok(())
}

fn is_pattern(path: &Path) -> bool {
    path.to_string_lossy().contains(['*', '?', '['])
}

/// doublestar's `FilepathGlob(pattern)`: the files and directories the pattern matches, a
/// segment at a time (`*`, `?` and `[...]` within a segment, `**` any number of directories),
/// each directory's entries in name order, a `**` directory before what is below it.
fn expand(pattern: &Path) -> Result<Vec<PathBuf>, Unresolved> {
    let segments: Vec<String> = pattern
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let mut visited = 0;
    let mut found = Vec::new();
    let start = if pattern.is_absolute() {
        PathBuf::from("/")
    } else {
        PathBuf::new()
    };
    let segments: Vec<&str> = segments
        .iter()
        .map(String::as_str)
        .filter(|s| *s != "/")
        .collect();
    walk(&start, &segments, &mut visited, &mut found)?;
    Ok(found)
}

fn walk(
    dir: &Path,
    segments: &[&str],
    visited: &mut usize,
    found: &mut Vec<PathBuf>,
) -> Result<(), Unresolved> {
    let Some((segment, rest)) = segments.split_first() else {
        found.push(dir.to_path_buf());
        return Ok(());
    };
    *visited += 1;
    if *visited > MAX_VISITED {
        return Err(Unresolved::NotRead(format!(
            "the value file pattern visits more than {MAX_VISITED} paths, which kvlint does not follow; the chart is not rendered"
        )));
    }
    if !segment.contains(['*', '?', '[']) {
        let next = dir.join(segment);
        if rest.is_empty() {
            if next.exists() {
                found.push(next);
            }
            return Ok(());
        }
        return if next.is_dir() {
            walk(&next, rest, visited, found)
        } else {
            Ok(())
        };
    }
    let listed = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(listed) else {
        return Ok(());
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if *segment == "**" {
        // `**` matches this directory, then every path below it, depth first; as the last
        // segment, files too.
        walk(dir, rest, visited, found)?;
        for name in names {
            let next = dir.join(&name);
            if next.is_dir() {
                walk(&next, &[&["**"][..], rest].concat(), visited, found)?;
            } else if rest.is_empty() {
                found.push(next);
            }
        }
        return Ok(());
    }
    for name in names {
        let matched = path_match(segment, &name).map_err(|_| {
            Unresolved::Refused(format!(
                "error expanding glob pattern: the segment `{segment}` is malformed"
            ))
        })?;
        if matched {
            let next = dir.join(&name);
            if rest.is_empty() {
                found.push(next);
            } else if next.is_dir() {
                walk(&next, rest, visited, found)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        dir
    }

    fn expanded(dir: &tempfile::TempDir, pattern: &str) -> Vec<String> {
        expand(&dir.path().join(pattern))
            .unwrap()
            .iter()
            .map(|p| {
                p.strip_prefix(dir.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn a_double_star_matches_each_directory_before_what_is_below_it() {
        let dir = tree(&[
            "envs/values.yaml",
            "envs/b/values.yaml",
            "envs/a/values.yaml",
            "envs/a/z/values.yaml",
            "envs/a/other.yaml",
        ]);
        assert_eq!(
            expanded(&dir, "envs/**/values.yaml"),
            [
                "envs/values.yaml",
                "envs/a/values.yaml",
                "envs/a/z/values.yaml",
                "envs/b/values.yaml"
            ]
        );
        // As the last segment, files and directories, each directory before its entries.
        assert_eq!(
            expanded(&dir, "envs/a/**"),
            [
                "envs/a",
                "envs/a/other.yaml",
                "envs/a/values.yaml",
                "envs/a/z",
                "envs/a/z/values.yaml"
            ]
        );
    }

    #[test]
    fn segments_match_within_a_directory_in_name_order() {
        let dir = tree(&["v-b.yaml", "v-a.yaml", "v-10.yaml", "x/v-c.yaml", "w.yaml"]);
        assert_eq!(
            expanded(&dir, "v-*.yaml"),
            ["v-10.yaml", "v-a.yaml", "v-b.yaml"]
        );
        assert_eq!(expanded(&dir, "v-?.yaml"), ["v-a.yaml", "v-b.yaml"]);
        assert_eq!(expanded(&dir, "v-[ab].yaml"), ["v-a.yaml", "v-b.yaml"]);
        assert_eq!(expanded(&dir, "*/v-*.yaml"), ["x/v-c.yaml"]);
        assert!(expanded(&dir, "none-*.yaml").is_empty());
        assert!(matches!(
            expand(&dir.path().join("v-[.yaml")),
            Err(Unresolved::Refused(_))
        ));
    }

    #[test]
    fn a_pattern_over_too_many_paths_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        for index in 0..=MAX_VISITED {
            std::fs::create_dir_all(dir.path().join(format!("d/{index}"))).unwrap();
        }
        assert!(matches!(
            expand(&dir.path().join("d/**/values.yaml")),
            Err(Unresolved::NotRead(_))
        ));
        assert!(expand(&dir.path().join("d/7/*.yaml")).unwrap().is_empty());
    }
}
