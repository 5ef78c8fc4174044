//! `git ls-tree -z -l` records, parsed into entries whose paths stay inside the tree.
//!
//! Git writes the records, but the tree they describe comes from the scanned repository, and a
//! crafted tree can hold any name: `..`, an absolute path, `.git`, a name with a slash stored in
//! it, the same name twice. kvlint never writes these paths anywhere; it only names files by
//! them. A name that could not be checked out as a path below the repository's top level is
//! left out.

use std::path::{Path, PathBuf};

/// A path below the repository's top level: no `.`, `..` or empty component, not absolute, and
/// no component that is `.git` (in any case, as case-insensitive file systems see it) or holds
/// a backslash (a separator on Windows). The top level itself is the empty path.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoPath(PathBuf);

impl RepoPath {
    /// The repository's top level.
    pub fn top() -> Self {
        Self::default()
    }

    /// A path as git stores it (`/`-separated bytes); `None` when it would leave the tree, enter
    /// a `.git` directory or name the top level itself.
    pub fn from_git(bytes: &[u8]) -> Option<Self> {
        if bytes.is_empty() {
            return None;
        }
        let mut path = PathBuf::new();
        for component in bytes.split(|&b| b == b'/') {
            if !is_plain_component(component) {
                return None;
            }
            path.push(os_str(component));
        }
        Some(Self(path))
    }

    /// A path built from components already known to be plain (see [`normalise`]).
    fn from_components(parts: &[&std::ffi::OsStr]) -> Option<Self> {
        let mut path = PathBuf::new();
        for part in parts {
            if !is_plain_component(part.as_encoded_bytes()) {
                return None;
            }
            path.push(part);
        }
        Some(Self(path))
    }

    pub fn as_path(&self) -> &Path {
        &self.0
    }

    pub fn is_top(&self) -> bool {
        self.0.as_os_str().is_empty()
    }

    /// The path below `self` that `other` is at: empty for `other == self`, `None` when
    /// `other` is not inside `self`.
    pub fn below<'a>(&self, other: &'a Self) -> Option<&'a Path> {
        other.0.strip_prefix(&self.0).ok()
    }

    /// `self` with `name` appended (`name` must be one plain component).
    pub fn child(&self, name: &str) -> Option<Self> {
        is_plain_component(name.as_bytes()).then(|| Self(self.0.join(name)))
    }

    /// The directory that holds `self`; `None` for the top level.
    pub fn parent(&self) -> Option<Self> {
        if self.is_top() {
            return None;
        }
        Some(Self(
            self.0.parent().map(Path::to_path_buf).unwrap_or_default(),
        ))
    }

    /// The path as git pathspecs and `ls-tree` spell it.
    pub fn git_spelling(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

fn is_plain_component(component: &[u8]) -> bool {
    !component.is_empty()
        && component != b"."
        && component != b".."
        && !component.eq_ignore_ascii_case(b".git")
        && !component.contains(&b'\\')
        && !component.contains(&b'/')
        && !component.contains(&0)
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// Resolves a path relative to the repository's top level: `.` and `..` lexically, `None` when
/// it climbs above the top level, is absolute, or names something [`RepoPath`] refuses.
pub fn normalise(path: &Path) -> Option<RepoPath> {
    use std::path::Component;
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    RepoPath::from_components(&parts)
}

/// What a tree entry is, by its mode and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file (mode 100644 or 100755).
    File,
    /// A symbolic link (mode 120000): its blob is the target, never followed.
    Symlink,
    /// A directory.
    Tree,
    /// A submodule (a gitlink, mode 160000), or anything else: never read.
    Other,
}

/// One record of `git ls-tree -z -l`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    /// The object name, hexadecimal (SHA-1 or SHA-256).
    pub object: String,
    /// The blob's size in bytes (`None` for trees and submodules).
    pub size: Option<u64>,
    pub path: RepoPath,
}

/// Why a record is not what `git ls-tree -z -l` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed(pub String);

/// Parses one record, `<mode> SP <type> SP <object> SP+ <size> TAB <path>` (the NUL already
/// split off). `Ok(None)` for an entry whose path [`RepoPath`] refuses.
pub fn parse_record(record: &[u8]) -> Result<Option<Entry>, Malformed> {
    let malformed = || Malformed(format!("unexpected git ls-tree record `{}`", show(record)));
    let tab = memchr::memchr(b'\t', record).ok_or_else(malformed)?;
    let head = std::str::from_utf8(&record[..tab]).map_err(|_| malformed())?;
    let mut fields = head.split(' ').filter(|f| !f.is_empty());
    let (Some(mode), Some(kind), Some(object), Some(size), None) = (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) else {
        return Err(malformed());
    };
    if !matches!(object.len(), 40 | 64) || !object.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(malformed());
    }
    let size = match size {
        "-" => None,
        digits => Some(digits.parse::<u64>().map_err(|_| malformed())?),
    };
    let kind = match (mode, kind) {
        ("100644" | "100755", "blob") => Kind::File,
        ("120000", "blob") => Kind::Symlink,
        ("040000", "tree") => Kind::Tree,
        _ => Kind::Other,
    };
    if matches!(kind, Kind::File | Kind::Symlink) && size.is_none() {
        return Err(malformed());
    }
    Ok(RepoPath::from_git(&record[tab + 1..]).map(|path| Entry {
        kind,
        object: object.to_owned(),
        size,
        path,
    }))
}

fn show(record: &[u8]) -> String {
    let text = String::from_utf8_lossy(&record[..record.len().min(200)]);
    text.escape_debug().to_string()
}

/// Parses a whole `git ls-tree -z -l` output, leaving out entries with refused paths.
pub fn parse(listing: &[u8]) -> Result<Vec<Entry>, Malformed> {
    listing
        .split(|&b| b == 0)
        .filter(|record| !record.is_empty())
        .filter_map(|record| parse_record(record).transpose())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "78981922613b2afb6025042ff6bd878ac1994e85";

    fn record(mode: &str, kind: &str, size: &str, path: &[u8]) -> Vec<u8> {
        let mut bytes = format!("{mode} {kind} {A} {size:>7}\t").into_bytes();
        bytes.extend_from_slice(path);
        bytes
    }

    #[test]
    fn modes_become_kinds() {
        let mut listing = Vec::new();
        for (mode, kind, size, path) in [
            ("100644", "blob", "2", "apps/vm.yaml"),
            ("100755", "blob", "3", "apps/run.yaml"),
            ("120000", "blob", "11", "apps/link.yaml"),
            ("040000", "tree", "-", "apps/sub"),
            ("160000", "commit", "-", "vendor/module"),
        ] {
            listing.extend(record(mode, kind, size, path.as_bytes()));
            listing.push(0);
        }
        let entries = parse(&listing).unwrap();
        let kinds: Vec<(Kind, Option<u64>, &Path)> = entries
            .iter()
            .map(|e| (e.kind, e.size, e.path.as_path()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Kind::File, Some(2), Path::new("apps/vm.yaml")),
                (Kind::File, Some(3), Path::new("apps/run.yaml")),
                (Kind::Symlink, Some(11), Path::new("apps/link.yaml")),
                (Kind::Tree, None, Path::new("apps/sub")),
                (Kind::Other, None, Path::new("vendor/module")),
            ]
        );
    }

    #[test]
    fn paths_that_leave_the_tree_or_enter_git_are_left_out() {
        for path in [
            &b"../outside.yaml"[..],
            b"a/../../outside.yaml",
            b"/etc/passwd",
            b"a//b.yaml",
            b"./a.yaml",
            b"a/./b.yaml",
            b"a/",
            b"",
            b".git/config",
            b"sub/.GIT/hooks/pre-commit",
            b"..\\..\\x.yaml",
            b"a\\b.yaml",
        ] {
            let listing = record("100644", "blob", "1", path);
            assert_eq!(parse_record(&listing), Ok(None), "{}", show(path));
        }
        let kept = record("100644", "blob", "1", b".github/x.yaml");
        assert!(parse_record(&kept).unwrap().is_some());
    }

    #[test]
    fn records_git_would_not_write_are_errors() {
        for record in [
            &b"100644 blob 7898\tapps/vm.yaml"[..],
            b"100644 blob not-hex-not-hex-not-hex-not-hex-not-hex-\t1\tx",
            b"100644 blob 78981922613b2afb6025042ff6bd878ac1994e85 -\tx.yaml",
            b"100644 blob 78981922613b2afb6025042ff6bd878ac1994e85 12",
            b"100644 blob HEAD:../../etc/passwd 1\tx.yaml",
        ] {
            assert!(parse_record(record).is_err(), "{}", show(record));
        }
    }

    #[test]
    fn normalising_stays_below_the_top_level() {
        let ok = |p: &str| normalise(Path::new(p)).map(|r| r.as_path().to_path_buf());
        assert_eq!(
            ok("apps/./vms/../vms/a.yaml"),
            Some(PathBuf::from("apps/vms/a.yaml"))
        );
        assert_eq!(ok("."), Some(PathBuf::new()));
        assert_eq!(ok("apps/.."), Some(PathBuf::new()));
        assert_eq!(ok(".."), None);
        assert_eq!(ok("apps/../.."), None);
        assert_eq!(ok("/etc"), None);
        assert_eq!(ok("apps/.git/config"), None);
    }

    #[test]
    fn a_path_knows_what_lies_below_it() {
        let apps = RepoPath::from_git(b"apps").unwrap();
        let file = RepoPath::from_git(b"apps/vms/a.yaml").unwrap();
        let other = RepoPath::from_git(b"appsx/a.yaml").unwrap();
        assert_eq!(apps.below(&file), Some(Path::new("vms/a.yaml")));
        assert_eq!(apps.below(&apps), Some(Path::new("")));
        assert_eq!(apps.below(&other), None);
        assert_eq!(RepoPath::top().below(&file), Some(file.as_path()));
        assert_eq!(file.parent().unwrap().as_path(), Path::new("apps/vms"));
        assert_eq!(apps.parent(), Some(RepoPath::top()));
        assert_eq!(RepoPath::top().parent(), None);
    }
}
