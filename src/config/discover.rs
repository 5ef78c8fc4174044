//! Finding `.kvlint.yaml` from the checked path upward. The search stops at the root of the
//! git repository (a configuration above it belongs to someone else, as git's own files do);
//! outside a repository it goes up to `/`. A file found is used only when it is a regular file
//! (or a symlink to one inside the same repository) owned by the current user, by root or by
//! the owner of the repository; otherwise it is reported and not read, like git's
//! `safe.directory` refuses a repository another user owns.

use std::path::{Path, PathBuf};

use crate::source::FILE_NAMES;
use crate::source::repository_root;

/// The outcome of the search.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Discovered {
    None,
    /// A configuration file to read, resolved.
    Found(PathBuf),
    /// A configuration file that is not read, and why.
    Refused {
        path: PathBuf,
        reason: String,
    },
}

/// Searches from `start` (a file or directory; `-` is the working directory) upward.
pub(super) fn search(start: &Path) -> Discovered {
    let Some((dir, repository)) = holder(start) else {
        return Discovered::None;
    };
    let found = FILE_NAMES.iter().find_map(|name| {
        let candidate = dir.join(name);
        std::fs::symlink_metadata(&candidate)
            .ok()
            .map(|metadata| (candidate, metadata))
    });
    let Some((candidate, metadata)) = found else {
        return Discovered::None;
    };
    let boundary = repository.as_deref().unwrap_or(&dir);
    judge(&candidate, &metadata, boundary, repository.as_deref())
}

/// The other configuration file beside the one [`search`] finds (`.kvlint.yml` beside
/// `.kvlint.yaml`), which is not read.
pub(super) fn shadowed(start: &Path) -> Option<PathBuf> {
    let (dir, _) = holder(start)?;
    let mut present = FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .filter(|candidate| std::fs::symlink_metadata(candidate).is_ok());
    present.next()?;
    present.next()
}

/// The first directory from `start` upward, within the git repository, that holds a
/// configuration file, and the repository's root.
fn holder(start: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    let start = if start.as_os_str() == "-" {
        Path::new(".")
    } else {
        start
    };
    let absolute = std::fs::canonicalize(start).ok()?;
    let first = if absolute.is_dir() {
        absolute
    } else {
        absolute.parent()?.to_path_buf()
    };
    let repository = repository_root(&first);
    for dir in first.ancestors() {
        if FILE_NAMES
            .iter()
            .any(|name| std::fs::symlink_metadata(dir.join(name)).is_ok())
        {
            return Some((dir.to_path_buf(), repository));
        }
        if repository.as_deref() == Some(dir) {
            break;
        }
    }
    None
}

/// Whether a configuration file found at `candidate` may be used. `boundary` is the directory
/// a symlink must stay in: the repository, or the directory the file was found in.
fn judge(
    candidate: &Path,
    metadata: &std::fs::Metadata,
    boundary: &Path,
    repository: Option<&Path>,
) -> Discovered {
    let refuse = |reason: String| Discovered::Refused {
        path: candidate.to_path_buf(),
        reason,
    };
    let resolved = match std::fs::canonicalize(candidate) {
        Ok(resolved) if resolved.starts_with(boundary) => resolved,
        Ok(_) => {
            return refuse("it is a symbolic link out of the repository: not followed".to_owned());
        }
        Err(err) => return refuse(format!("it cannot be read: {err}")),
    };
    let target = if metadata.file_type().is_symlink() {
        match std::fs::metadata(&resolved) {
            Ok(target) => target,
            Err(err) => return refuse(format!("it cannot be read: {err}")),
        }
    } else {
        metadata.clone()
    };
    if !target.is_file() {
        return refuse(format!(
            "it is {}, not a regular file",
            crate::source::special_kind(target.file_type())
        ));
    }
    if let Some(reason) = foreign_owner(&target, repository) {
        return refuse(reason);
    }
    Discovered::Found(resolved)
}

/// Why a file's owner is not trusted, if it is not: another user than the current one, root
/// or the repository's owner (a CI runner often checks a repository out as another user).
#[cfg(unix)]
fn foreign_owner(metadata: &std::fs::Metadata, repository: Option<&Path>) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::geteuid().as_raw();
    let owner = metadata.uid();
    let repository_owner = repository
        .and_then(|root| std::fs::metadata(root).ok())
        .map(|m| m.uid());
    if owner == me || owner == 0 || Some(owner) == repository_owner {
        return None;
    }
    Some(format!(
        "it is owned by another user (uid {owner}; kvlint runs as uid {me}), who could have \
         written it to change how your files are checked; give it with --config to use it"
    ))
}

#[cfg(not(unix))]
fn foreign_owner(_: &std::fs::Metadata, _: Option<&Path>) -> Option<String> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::source::FILE_NAME;

    #[test]
    fn a_kvlint_yml_is_found_and_the_yaml_name_wins_beside_it() {
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        let yml = repo.path().join(".kvlint.yml");
        std::fs::write(&yml, "namespace: yml\n").unwrap();
        assert_eq!(search(repo.path()), Discovered::Found(canonical(&yml)));
        std::fs::write(repo.path().join(FILE_NAME), "namespace: yaml\n").unwrap();
        assert_eq!(
            search(repo.path()),
            Discovered::Found(canonical(&repo.path().join(FILE_NAME)))
        );
    }

    fn canonical(path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap()
    }

    #[test]
    fn the_search_stops_at_the_repository_root() {
        let top = tempfile::tempdir().unwrap();
        std::fs::write(top.path().join(FILE_NAME), "namespace: above\n").unwrap();
        let repo = top.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("apps")).unwrap();
        assert_eq!(search(&repo.join("apps")), Discovered::None);
        std::fs::write(repo.join(FILE_NAME), "namespace: repo\n").unwrap();
        assert_eq!(
            search(&repo.join("apps")),
            Discovered::Found(canonical(&repo.join(FILE_NAME)))
        );
        // Outside a repository the search goes on upward.
        std::fs::remove_dir(repo.join(".git")).unwrap();
        std::fs::remove_file(repo.join(FILE_NAME)).unwrap();
        assert_eq!(
            search(&repo.join("apps")),
            Discovered::Found(canonical(&top.path().join(FILE_NAME)))
        );
    }

    #[test]
    fn symlinks_out_of_the_repository_and_fifos_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("c.yaml"), "namespace: x\n").unwrap();
        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("c.yaml"), repo.path().join(FILE_NAME))
            .unwrap();
        assert!(matches!(search(repo.path()), Discovered::Refused { .. }));

        std::fs::remove_file(repo.path().join(FILE_NAME)).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(repo.path().join(FILE_NAME))
            .status()
            .unwrap();
        assert!(status.success());
        let Discovered::Refused { reason, .. } = search(repo.path()) else {
            panic!("a FIFO is not a configuration file");
        };
        assert!(reason.contains("FIFO"), "{reason}");
    }
}
