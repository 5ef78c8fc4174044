//! A failed build, reported where the user can fix it: Kustomize's message without kvlint's
//! wrapper and with paths relative to the working directory, at the `resources:` item it
//! names when one can be found.

use std::path::{Path, PathBuf};
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

/// Reads a Kustomize error. `fallback` is the unit's kustomization, `cwd` the resolved working
/// directory, `wrapper` the wrapper's directory.
pub(crate) fn read(
    message: &str,
    fallback: &Arc<str>,
    tree: &mut Tree,
    cwd: &Path,
    wrapper: &Path,
) -> Failure {
    let innermost_dir = quoted_after_last(message, RECURSED).map(PathBuf::from);
    let item = quoted_after_last(message, ACCUMULATING);
    let start = message.rfind(ACCUMULATING).unwrap_or(0);
    let mut text = message[start..].trim().to_owned();
    // After failing to read an entry as a file, Kustomize tries it as a directory and
    // appends that attempt's error, which repeats the cause.
    if let Some(cut) = text.find("': must build at directory") {
        text.truncate(cut);
    }
    for (prefix, replacement) in [(wrapper, "<wrapper>"), (cwd, ".")] {
        let prefix = prefix.to_string_lossy();
        text = text.replace(&format!("{prefix}/"), "");
        text = text.replace(&*prefix, replacement);
    }
    // The tree knows directories by the names the report uses: relative to the working
    // directory, or absolute when the paths were given so.
    let found = innermost_dir.and_then(|dir| {
        let relative = dir.strip_prefix(cwd).ok().map(normalise_path);
        relative
            .and_then(|relative| tree.kustomization(&relative))
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
        // Paths below the working directory are shown relative to it.
        let failure = read(&message, &fallback, &mut Tree::new(None), &repo, wrapper);
        assert_eq!(
            failure.message,
            "accumulating resources from 'missing.yaml': evalsymlink failure on 'apps/broken/missing.yaml' : lstat apps/broken/missing.yaml: no such file or directory"
        );
        // Paths given absolute are found as such; the item is the `resources:` entry.
        let failure = read(
            &message,
            &fallback,
            &mut Tree::new(None),
            Path::new("/elsewhere"),
            wrapper,
        );
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
        let failure = read(
            "plain failure",
            &fallback,
            &mut Tree::new(None),
            &repo,
            wrapper,
        );
        assert_eq!(failure.message, "plain failure");
        assert_eq!(failure.location.file, fallback);
    }
}
