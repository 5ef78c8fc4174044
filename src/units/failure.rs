//! A failed build, reported where the user can fix it: Kustomize's message without kvlint's
//! wrapper and with paths relative to the working directory, at the `resources:` item it
//! names when one can be found.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::discover::Tree;
use crate::diag::Location;
use crate::k8s::normalise_path;

const RECURSED: &str = "recursed accumulation of path '";
const ACCUMULATING: &str = "accumulating resources from '";

/// Kustomize's message, cleaned, and where it points.
pub(crate) struct Failure {
    pub message: String,
    pub location: Location,
}

/// Where a build ran: the unit's kustomization (`fallback`), its kustomization directories as
/// (resolved, reported) pairs, the resolved working directory and the wrapper's directory.
pub(crate) struct Places<'a> {
    pub fallback: &'a Arc<str>,
    pub directories: Vec<(PathBuf, PathBuf)>,
    pub cwd: &'a Path,
    pub wrapper: &'a Path,
}

/// Reads a Kustomize error.
pub(crate) fn read(message: &str, places: &Places<'_>, tree: &mut Tree) -> Failure {
    let Places {
        fallback,
        cwd,
        wrapper,
        ..
    } = *places;
    let mut directories = with_ancestors(&places.directories);
    directories.sort_by_key(|(real, _)| std::cmp::Reverse(real.as_os_str().len()));
    let innermost_dir = quoted_after_last(message, RECURSED).map(PathBuf::from);
    let item = quoted_after_last(message, ACCUMULATING);
    let start = message.rfind(ACCUMULATING).unwrap_or(0);
    let mut text = message[start..].trim().to_owned();
    // After failing to read an entry as a file, Kustomize tries it as a directory and
    // appends that attempt's error, which repeats the cause.
    if let Some(cut) = text.find("': must build at directory") {
        text.truncate(cut);
    }
    text = text.replace(&*wrapper.to_string_lossy(), "<wrapper>");
    text = text.replace(&format!("{}/", cwd.to_string_lossy()), "");
    // Directories outside the working directory, as the report names them.
    for (real, shown) in &directories {
        let shown = crate::source::display_path(shown);
        let shown = if shown.is_empty() { ".".into() } else { shown };
        text = text.replace(&*real.to_string_lossy(), &shown);
    }
    // The tree knows directories by the names the report uses: relative to the working
    // directory, or absolute when the paths were given so.
    let found = innermost_dir.and_then(|dir| {
        let shown = directories
            .iter()
            .find(|(real, _)| *real == dir)
            .map(|(_, shown)| shown.clone());
        let relative = dir.strip_prefix(cwd).ok().map(normalise_path);
        shown
            .and_then(|shown| tree.kustomization(&shown))
            .or_else(|| relative.and_then(|relative| tree.kustomization(&relative)))
            .or_else(|| tree.kustomization(&dir))
    });
    let location = match found {
        Some(kustomization) => {
            let span = item.as_deref().and_then(|item| {
                kustomization
                    .references
                    .iter()
                    .find(|r| r.value.trim() == item)
                    .map(|r| r.span)
            });
            span.map_or_else(
                || first_line(&kustomization.file),
                |span| Location {
                    file: Arc::clone(&kustomization.file),
                    span,
                },
            )
        }
        None => first_line(fallback),
    };
    Failure {
        message: text,
        location,
    }
}

/// The unit's directories and, for each, the ancestors its reported name still names (up to the
/// first `..` or the working directory, and only while the name resolves to the same place):
/// a missing sibling the message names (`../datavolumes`) is then shown as the report names
/// its parent, not by the resolved path a symlink on the way led to.
fn with_ancestors(directories: &[(PathBuf, PathBuf)]) -> Vec<(PathBuf, PathBuf)> {
    let mut out: Vec<(PathBuf, PathBuf)> = directories.to_vec();
    for (real, shown) in directories {
        let (mut real, mut shown) = (real.clone(), shown.clone());
        while real.pop() && shown.pop() {
            let named = matches!(
                shown.components().next_back(),
                Some(Component::Normal(_) | Component::RootDir)
            );
            if !named || std::fs::canonicalize(&shown).ok().as_ref() != Some(&real) {
                break;
            }
            if out.iter().any(|(known, _)| *known == real) {
                break;
            }
            out.push((real.clone(), shown.clone()));
        }
    }
    out
}

fn first_line(file: &Arc<str>) -> Location {
    Location::lines(Arc::clone(file), (1, 1), (1, 2))
}

/// The text between `marker` and the next `'`, at the marker's last occurrence.
fn quoted_after_last(text: &str, marker: &str) -> Option<String> {
    let start = text.rfind(marker)? + marker.len();
    let end = text[start..].find('\'')?;
    Some(text[start..start + end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_item_and_kustomization_are_named() {
        let temp = tempfile::tempdir().unwrap();
        let repo = std::fs::canonicalize(temp.path()).unwrap();
        std::fs::create_dir_all(repo.join("apps/broken")).unwrap();
        std::fs::write(
            repo.join("apps/broken/kustomization.yaml"),
            "resources:\n  - vm.yaml\n  - missing.yaml\n",
        )
        .unwrap();
        let message = format!(
            "accumulating resources: accumulation err='accumulating resources from '../x/apps/broken': '{repo}/apps/broken' must resolve to a file': recursed accumulation of path '{repo}/apps/broken': accumulating resources: accumulation err='accumulating resources from 'missing.yaml': evalsymlink failure on '{repo}/apps/broken/missing.yaml' : lstat {repo}/apps/broken/missing.yaml: no such file or directory",
            repo = repo.display()
        );
        let fallback: Arc<str> = Arc::from("fallback/kustomization.yaml");
        let wrapper = Path::new("/tmp/kvlint-units-x/0");
        let places = |cwd: &'static str| Places {
            fallback: &fallback,
            directories: Vec::new(),
            cwd: Path::new(cwd),
            wrapper,
        };
        let in_repo = Places {
            cwd: &repo,
            ..places("/")
        };
        // Paths below the working directory are shown relative to it.
        let failure = read(&message, &in_repo, &mut Tree::new(None));
        assert_eq!(
            failure.message,
            "accumulating resources from 'missing.yaml': evalsymlink failure on 'apps/broken/missing.yaml' : lstat apps/broken/missing.yaml: no such file or directory"
        );
        // Paths given absolute are found as such; the item is the `resources:` entry.
        let failure = read(&message, &places("/elsewhere"), &mut Tree::new(None));
        assert!(
            failure
                .location
                .file
                .ends_with("apps/broken/kustomization.yaml")
        );
        assert_eq!(
            (
                failure.location.span.start.line,
                failure.location.span.start.column
            ),
            (3, 5)
        );
        let failure = read("plain failure", &in_repo, &mut Tree::new(None));
        // The unit's directories are shown as the report names them, wherever they are.
        let named = Places {
            directories: vec![(
                repo.join("apps/broken"),
                PathBuf::from("../elsewhere/broken"),
            )],
            ..places("/elsewhere")
        };
        let shown = read(&message, &named, &mut Tree::new(None));
        assert!(
            shown.message.contains("'../elsewhere/broken/missing.yaml'"),
            "{}",
            shown.message
        );
        assert_eq!(failure.message, "plain failure");
        assert_eq!(failure.location.file, fallback);
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_sibling_is_named_through_the_symlink_the_report_uses() {
        let temp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(temp.path()).unwrap();
        std::fs::create_dir_all(top.join("real/repo/vm-and-dvs")).unwrap();
        std::os::unix::fs::symlink(top.join("real"), top.join("link")).unwrap();
        let real = top.join("real/repo");
        let message = format!(
            "accumulating resources from '../datavolumes': evalsymlink failure on '{real}/datavolumes' : lstat {real}/datavolumes: no such file or directory",
            real = real.display()
        );
        let fallback: Arc<str> = Arc::from("link/repo/vm-and-dvs/kustomization.yaml");
        let places = Places {
            fallback: &fallback,
            directories: vec![(real.join("vm-and-dvs"), top.join("link/repo/vm-and-dvs"))],
            cwd: Path::new("/nonexistent"),
            wrapper: Path::new("/nonexistent/wrapper"),
        };
        let failure = read(&message, &places, &mut Tree::new(None));
        let shown = top.join("link/repo/datavolumes");
        assert_eq!(
            failure.message,
            format!(
                "accumulating resources from '../datavolumes': evalsymlink failure on '{shown}' : lstat {shown}: no such file or directory",
                shown = shown.display()
            )
        );
    }
}
