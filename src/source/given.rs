//! Paths given on the command line. A pre-commit hook passes the repository's own file names,
//! so a committed symlink `apps/x.yaml -> ~/.kube/config` arrives as a given path: a path that
//! lies in the working directory is read only when it also resolves there. A path outside the
//! working directory (`/tmp/vm.yaml`, `../other/apps`) is the user's own choice and followed.

use std::path::{Component, Path, PathBuf};

use super::read::{ReadProblem, special_kind};
use crate::error::Error;

/// What a given path is, and whether kvlint reads it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Given {
    /// A regular file, at its resolved location.
    File(PathBuf),
    /// A directory to walk (symlinks below it are not followed).
    Directory,
    /// Not read: a symlink out of the working directory, a FIFO, a device or a socket.
    Refused(ReadProblem),
}

/// `path` made absolute against `cwd` with `.` and `..` removed, without touching the file
/// system (so symlinks are not resolved).
pub fn lexical_absolute(cwd: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Classifies a given path; `cwd` is the resolved working directory. A path that does not
/// exist is an error (exit 2), as before.
pub(super) fn classify(path: &Path, cwd: &Path) -> Result<Given, Error> {
    let resolved = std::fs::canonicalize(path).map_err(|err| Error::file(path, err))?;
    if lexical_absolute(cwd, path).starts_with(cwd) && !resolved.starts_with(cwd) {
        return Ok(Given::Refused(ReadProblem::whole(
            "a symbolic link out of the working directory (the path or a directory on it is a \
             symlink): not followed; give the target's own path to check it",
        )));
    }
    let metadata = std::fs::metadata(&resolved).map_err(|err| Error::file(path, err))?;
    Ok(if metadata.is_file() {
        Given::File(resolved)
    } else if metadata.is_dir() {
        Given::Directory
    } else {
        Given::Refused(ReadProblem::whole(format!(
            "{}, not a regular file: not read",
            special_kind(metadata.file_type())
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths_drop_dots_without_resolving() {
        let cwd = Path::new("/repo/sub");
        assert_eq!(
            lexical_absolute(cwd, Path::new("./a/../b.yaml")),
            Path::new("/repo/sub/b.yaml")
        );
        assert_eq!(
            lexical_absolute(cwd, Path::new("../../etc/x")),
            Path::new("/etc/x")
        );
        assert_eq!(
            lexical_absolute(cwd, Path::new("/abs/x")),
            Path::new("/abs/x")
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_working_directory_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(repo.path()).unwrap();
        let secret = outside.path().join("config");
        std::fs::write(&secret, "token: x\n").unwrap();
        std::fs::write(cwd.join("vm.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(&secret, cwd.join("x.yaml")).unwrap();
        std::os::unix::fs::symlink(outside.path(), cwd.join("dir")).unwrap();
        std::os::unix::fs::symlink(cwd.join("vm.yaml"), cwd.join("inside.yaml")).unwrap();

        for refused in ["x.yaml", "dir", "dir/config"] {
            assert!(
                matches!(
                    classify(&cwd.join(refused), &cwd).unwrap(),
                    Given::Refused(_)
                ),
                "{refused}"
            );
        }
        assert_eq!(
            classify(&cwd.join("inside.yaml"), &cwd).unwrap(),
            Given::File(cwd.join("vm.yaml"))
        );
        // Outside the working directory the user's path is followed.
        let real_outside = std::fs::canonicalize(&secret).unwrap();
        assert_eq!(classify(&secret, &cwd).unwrap(), Given::File(real_outside));
    }
}
