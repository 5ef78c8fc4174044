//! Which files of a revision a check reads, by the rules of the working-tree walk
//! (`source::discover`): a path given as a file is read whatever its name; below a directory,
//! regular files with a manifest extension, except `.kvlint.yaml`, that `--include` and
//! `--exclude` admit. Symbolic links and submodules are never read. Each file is named as the
//! walk would name it on disk, so that findings carry the working tree's file names.

use std::path::Path;
use std::sync::Arc;

use globset::GlobSet;

use super::listing::{Entry, Kind, RepoPath};
use crate::error::Error;
use crate::source::{display_path, glob_set, is_manifest_name};

/// `--include` and `--exclude` (with the configuration's).
#[derive(Debug, Default)]
pub struct Globs {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Globs {
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, Error> {
        Ok(Self {
            include: glob_set(include)?,
            exclude: glob_set(exclude)?,
        })
    }

    /// Whether the walk would read `below` under the directory given as `given`: globs match
    /// the path below the directory or the whole path as named.
    fn admit(&self, below: &Path, named: &Path) -> bool {
        let excluded = self
            .exclude
            .as_ref()
            .is_some_and(|set| set.is_match(below) || set.is_match(named));
        let included = self
            .include
            .as_ref()
            .is_none_or(|set| set.is_match(below) || set.is_match(named));
        included && !excluded
    }
}

/// A file to read, with its name in reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picked {
    pub display: Arc<str>,
    pub object: String,
    pub size: u64,
}

/// What a path given on the command line holds in the revision.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub files: Vec<Picked>,
    /// The path was given as a file, and it is a symbolic link: not followed.
    pub link: Option<Arc<str>>,
}

/// Picks the files among `entries` (listed recursively at `at`, the repository path of
/// `given`) that the walk of `given` would read. An entry listed twice (a crafted tree) is
/// read once.
pub fn pick(given: &Path, at: &RepoPath, entries: &[Entry], globs: &Globs) -> Found {
    let mut found = Found::default();
    let mut seen = std::collections::HashSet::new();
    for entry in entries {
        let Some(below) = at.below(&entry.path) else {
            continue;
        };
        if !seen.insert(&entry.path) {
            continue;
        }
        let Some(size) = entry.size else {
            continue;
        };
        if below.as_os_str().is_empty() {
            match entry.kind {
                Kind::File => found.files.push(Picked {
                    display: display_path(given),
                    object: entry.object.clone(),
                    size,
                }),
                Kind::Symlink => found.link = Some(display_path(given)),
                Kind::Tree | Kind::Other => {}
            }
            continue;
        }
        let named = given.join(below);
        if entry.kind == Kind::File
            && is_manifest_name(below)
            && below
                .file_name()
                .is_some_and(|n| n != crate::source::FILE_NAME)
            && globs.admit(below, &named)
        {
            found.files.push(Picked {
                display: display_path(&named),
                object: entry.object.clone(),
                size,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "78981922613b2afb6025042ff6bd878ac1994e85";

    fn entry(kind: Kind, path: &str) -> Entry {
        Entry {
            kind,
            object: A.to_owned(),
            size: (kind != Kind::Tree).then_some(1),
            path: RepoPath::from_git(path.as_bytes()).unwrap(),
        }
    }

    fn names(found: &Found) -> Vec<&str> {
        found.files.iter().map(|p| &*p.display).collect()
    }

    fn listing() -> Vec<Entry> {
        vec![
            entry(Kind::File, "apps/.kvlint.yaml"),
            entry(Kind::File, "apps/README.md"),
            entry(Kind::Symlink, "apps/link.yaml"),
            entry(Kind::Other, "apps/module"),
            entry(Kind::File, "apps/vms/a.yaml"),
            entry(Kind::File, "apps/vms/a.yaml"),
            entry(Kind::File, "apps/vms/B.JSON"),
            entry(Kind::File, "apps/vms/c.yml"),
            entry(Kind::File, "appsx/d.yaml"),
        ]
    }

    #[test]
    fn a_directory_holds_its_regular_manifests_named_as_given() {
        let apps = RepoPath::from_git(b"apps").unwrap();
        let globs = Globs::default();
        for (given, first) in [
            ("apps", "apps/vms/a.yaml"),
            ("./apps/", "apps/vms/a.yaml"),
            ("/repo/apps", "/repo/apps/vms/a.yaml"),
        ] {
            let found = pick(Path::new(given), &apps, &listing(), &globs);
            assert_eq!(names(&found)[0], first);
            assert_eq!(names(&found).len(), 3, "{found:?}");
            assert_eq!(found.link, None);
        }
        let top = pick(Path::new("."), &RepoPath::top(), &listing(), &globs);
        assert_eq!(
            names(&top),
            [
                "apps/vms/a.yaml",
                "apps/vms/B.JSON",
                "apps/vms/c.yml",
                "appsx/d.yaml"
            ]
        );
    }

    #[test]
    fn globs_match_the_path_below_or_as_named() {
        let apps = RepoPath::from_git(b"apps").unwrap();
        let globs = Globs::new(&["vms/*.y*ml".to_owned()], &["apps/vms/c.yml".to_owned()]).unwrap();
        let found = pick(Path::new("apps"), &apps, &listing(), &globs);
        assert_eq!(names(&found), ["apps/vms/a.yaml"]);
    }

    #[test]
    fn a_file_given_is_read_whatever_its_name_and_a_link_is_not_followed() {
        let readme = RepoPath::from_git(b"apps/README.md").unwrap();
        let found = pick(
            Path::new("apps/README.md"),
            &readme,
            &listing(),
            &Globs::default(),
        );
        assert_eq!(names(&found), ["apps/README.md"]);
        let link = RepoPath::from_git(b"apps/link.yaml").unwrap();
        let found = pick(
            Path::new("apps/link.yaml"),
            &link,
            &listing(),
            &Globs::default(),
        );
        assert!(found.files.is_empty());
        assert_eq!(found.link.as_deref(), Some("apps/link.yaml"));
    }
}
