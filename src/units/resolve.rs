//! Real paths (symlinks followed, as `std::fs::canonicalize` gives them) of many files in few
//! directories: each directory is resolved once, and a file costs one `lstat` instead of a
//! `readlink` for every component of its path.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A directory as the report names it (normalised, so the working directory is ``), resolved.
pub(crate) fn resolve_dir(dir: &Path) -> std::io::Result<PathBuf> {
    if dir.as_os_str().is_empty() {
        std::fs::canonicalize(".")
    } else {
        std::fs::canonicalize(dir)
    }
}

/// Whether `path` exists and its symbolic links lead out of the directory `root` (both as the
/// report names them).
pub(crate) fn leaves(root: &Path, path: &Path) -> bool {
    match (std::fs::canonicalize(path), resolve_dir(root)) {
        (Ok(real), Ok(real_root)) => !real.starts_with(real_root),
        _ => false,
    }
}

/// Resolved directories, remembered for the files in them.
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    dirs: HashMap<PathBuf, Option<PathBuf>>,
}

impl Resolver {
    /// `dir` resolved, the empty path being the working directory; None when it cannot be.
    pub(crate) fn dir(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(known) = self.dirs.get(dir) {
            return known.clone();
        }
        let resolved = resolve_dir(dir).ok();
        self.dirs.insert(dir.to_path_buf(), resolved.clone());
        resolved
    }

    /// `file` resolved, as `std::fs::canonicalize` resolves it; None when it cannot be (a
    /// missing file).
    pub(crate) fn file(&mut self, file: &Path) -> Option<PathBuf> {
        let metadata = std::fs::symlink_metadata(file).ok()?;
        // A symlink, or a name that is no plain entry of its parent (`..`, `/`): resolved
        // the long way.
        let (Some(name), Some(parent)) = (file.file_name(), file.parent()) else {
            return std::fs::canonicalize(file).ok();
        };
        if metadata.file_type().is_symlink() {
            return std::fs::canonicalize(file).ok();
        }
        Some(self.dir(parent)?.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_file_leaves_its_root_only_through_a_link_out_of_it() {
        let temp = tempfile::tempdir().unwrap();
        let top = temp.path();
        std::fs::create_dir_all(top.join("repo/charts")).unwrap();
        std::fs::write(top.join("repo/charts/values.yaml"), "").unwrap();
        std::fs::write(top.join("secret.yaml"), "").unwrap();
        std::os::unix::fs::symlink(top.join("secret.yaml"), top.join("repo/charts/out.yaml"))
            .unwrap();
        std::os::unix::fs::symlink(
            top.join("repo/charts/values.yaml"),
            top.join("repo/charts/in.yaml"),
        )
        .unwrap();
        let root = top.join("repo");
        assert!(leaves(&root, &root.join("charts/out.yaml")));
        assert!(!leaves(&root, &root.join("charts/in.yaml")));
        assert!(!leaves(&root, &root.join("charts/values.yaml")));
        // A file that is not there leaves nothing.
        assert!(!leaves(&root, &root.join("charts/missing.yaml")));
    }

    #[test]
    fn files_resolve_as_canonicalize_resolves_them() {
        let temp = tempfile::tempdir().unwrap();
        let top = temp.path();
        std::fs::create_dir_all(top.join("real/sub")).unwrap();
        std::fs::write(top.join("real/sub/vm.yaml"), "kind: VirtualMachine\n").unwrap();
        std::fs::write(top.join("real/other.yaml"), "").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(top.join("real"), top.join("linked")).unwrap();
            std::os::unix::fs::symlink(top.join("real/other.yaml"), top.join("real/sub/link.yaml"))
                .unwrap();
        }
        let mut resolver = Resolver::default();
        for path in [
            "real/sub/vm.yaml",
            "linked/sub/vm.yaml",
            "linked/sub/link.yaml",
            "real/sub/../other.yaml",
            "real/sub",
            "real/sub/..",
            "missing.yaml",
            "real/other.yaml/nested",
        ] {
            let path = top.join(path);
            assert_eq!(
                resolver.file(&path),
                std::fs::canonicalize(&path).ok(),
                "{}",
                path.display()
            );
        }
    }
}
