//! Every file kvlint writes goes through this module: a path whose last component is one
//! plain file name, written as a new file in the target directory and renamed into place, so
//! that an existing symbolic link is never written through and a name from a manifest never
//! leaves its directory.

use std::ffi::OsStr;
use std::fs::{self, File, Metadata, Permissions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Component, Path, PathBuf};

use crate::error::Error;
use crate::k8s::names::{self, NAMESPACE_RULE, NameRule};

/// The longest file name common file systems accept (bytes).
const NAME_MAX: usize = 255;

/// One path component: not empty, `.` or `..`, without a separator, NUL or control character.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileName(String);

impl FileName {
    pub fn new(name: &str) -> Result<Self, NameRefused> {
        if name.is_empty() || name == "." || name == ".." {
            return Err(NameRefused::NotAName(name.to_owned()));
        }
        if name.len() > NAME_MAX {
            return Err(NameRefused::TooLong(name.len()));
        }
        if let Some(c) = name
            .chars()
            .find(|c| matches!(c, '/' | '\\') || c.is_control())
        {
            return Err(NameRefused::Contains {
                name: name.to_owned(),
                character: c,
            });
        }
        Ok(Self(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a name cannot be the name of a file kvlint writes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameRefused {
    #[error("{0:?} is not a file name")]
    NotAName(String),
    /// Its length in bytes is over [`NAME_MAX`].
    #[error("a file name of {0} bytes is longer than {NAME_MAX}")]
    TooLong(usize),
    /// It holds a separator or a control character.
    #[error("the file name {name:?} contains {character:?}")]
    Contains { name: String, character: char },
    /// A VM's namespace is not an RFC 1123 label.
    #[error("namespace {0:?} is not {rule}", rule = NAMESPACE_RULE)]
    Namespace(String),
    /// A VM's name is not valid for its kind.
    #[error("name {name:?} is not {rule}")]
    Name { name: String, rule: NameRule },
}

/// The file `render --out-dir` writes a VM to: `NAMESPACE_NAME.EXTENSION`. The namespace must
/// be an RFC 1123 label and the name an RFC 1123 subdomain (or a valid `generateName` prefix
/// followed by `*`), so neither holds `_`, `/` or `..`, and two VMs share a file name only
/// when they share namespace and name.
pub fn vm_file_name(namespace: &str, name: &str, extension: &str) -> Result<FileName, NameRefused> {
    if !names::follows(NAMESPACE_RULE, namespace) {
        return Err(NameRefused::Namespace(namespace.to_owned()));
    }
    let rule = NameRule::Dns1123Subdomain;
    let valid = match name.strip_suffix('*') {
        Some(prefix) => names::follows_as_prefix(rule, prefix),
        None => names::follows(rule, name),
    };
    if !valid {
        return Err(NameRefused::Name {
            name: name.to_owned(),
            rule,
        });
    }
    FileName::new(&format!("{namespace}_{name}.{extension}"))
}

/// A file to write: a directory and one file name in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputPath {
    dir: PathBuf,
    name: FileName,
}

impl OutputPath {
    pub fn in_dir(dir: &Path, name: FileName) -> Self {
        Self {
            dir: dir.to_path_buf(),
            name,
        }
    }

    /// A path given on the command line: its directory is the user's choice; its last
    /// component must be a file name (not `..`, `/` or empty).
    pub fn from_argument(path: &Path) -> Result<Self, Error> {
        let refuse = |why: &str| Error::Usage(format!("{}: {why}", path.display()));
        let Some(Component::Normal(last)) = path.components().next_back() else {
            return Err(refuse("not a file name"));
        };
        let name = last
            .to_str()
            .ok_or_else(|| refuse("the file name is not UTF-8"))
            .and_then(|n| FileName::new(n).map_err(|why| refuse(&why.to_string())))?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Ok(Self::in_dir(dir, name))
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(OsStr::new(self.name.as_str()))
    }

    /// Writes `bytes` as the whole file. An existing symbolic link or directory is refused; an
    /// existing regular file is replaced atomically and keeps its permissions; an existing
    /// FIFO or device (`/dev/null`) is written to, as it cannot be replaced.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Error> {
        let path = self.path();
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => Err(Error::unusable(
                &path,
                "is a symbolic link; kvlint does not write through links (name the file it points to, or remove the link)",
            )),
            Ok(meta) if meta.is_dir() => Err(Error::unusable(&path, "is a directory")),
            Ok(meta) if !meta.is_file() => fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|mut file| file.write_all(bytes))
                .map_err(|err| Error::file(&path, err)),
            Ok(meta) => replace(&self.dir, &path, bytes, Some(&meta)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                replace(&self.dir, &path, bytes, None)
            }
            Err(err) => Err(Error::file(&path, err)),
        }
    }
}

/// Writes `bytes` to a new file in `dir`, flushed to disk with the permissions (and, where
/// the process may, the owner) of `like`, and renames it to `path`: the rename replaces the
/// directory entry itself, so a link at `path` is never followed, and readers see the old or
/// the new content, never a part.
pub(crate) fn replace(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> Result<(), Error> {
    prepare(dir, bytes, like)?.commit(path)
}

/// A new file, written and flushed, waiting in its directory to be renamed into place.
pub(crate) struct Prepared {
    temp: tempfile::NamedTempFile,
    dir: PathBuf,
}

/// The first half of `replace`: the new file, not yet in place.
pub(crate) fn prepare(
    dir: &Path,
    bytes: &[u8],
    like: Option<&Metadata>,
) -> Result<Prepared, Error> {
    let mode = like.map_or(0o666, |meta| meta.permissions().mode() & 0o7777);
    let mut temp = tempfile::Builder::new()
        .prefix(".kvlint-")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(dir)
        .map_err(|err| Error::file(dir, err))?;
    let temp_path = temp.path().to_path_buf();
    let fail = |err: io::Error| Error::file(&temp_path, err);
    temp.write_all(bytes).map_err(fail)?;
    if let Some(meta) = like {
        // The mode asked for at creation is narrowed by the umask; the original's is kept.
        temp.as_file()
            .set_permissions(Permissions::from_mode(mode))
            .map_err(fail)?;
        keep_owner(temp.as_file(), meta).map_err(fail)?;
    }
    temp.as_file().sync_all().map_err(fail)?;
    Ok(Prepared {
        temp,
        dir: dir.to_path_buf(),
    })
}

impl Prepared {
    /// Renames the new file to `path` (in the same directory) and makes the rename durable.
    /// Dropped without a commit, the new file is removed.
    pub(crate) fn commit(self, path: &Path) -> Result<(), Error> {
        self.temp
            .persist(path)
            .map_err(|err| Error::file(path, err.error))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|err| Error::file(&self.dir, err))
    }
}

/// Gives `file` the owner and group of `like`; without the privilege to (not root, not the
/// owner), the file stays the runner's.
fn keep_owner(file: &File, like: &Metadata) -> io::Result<()> {
    let meta = file.metadata()?;
    if (meta.uid(), meta.gid()) == (like.uid(), like.gid()) {
        return Ok(());
    }
    match std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid())) {
        Err(err) if err.kind() == io::ErrorKind::PermissionDenied => {
            // Not root: the group alone may still be kept (the owner is in it).
            match std::os::unix::fs::fchown(file, None, Some(like.gid())) {
                Err(err) if err.kind() == io::ErrorKind::PermissionDenied => Ok(()),
                other => other,
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_one_component() {
        for bad in ["", ".", "..", "a/b", "a\\b", "a\nb", "a\0b", "\u{1b}]0;x"] {
            assert!(FileName::new(bad).is_err(), "{bad:?}");
        }
        assert!(FileName::new(&"a".repeat(256)).is_err());
        assert!(FileName::new("default_web.yaml").is_ok());
    }

    #[test]
    fn a_refused_name_says_why_as_before() {
        let why = |result: Result<FileName, NameRefused>| result.unwrap_err().to_string();
        assert_eq!(why(FileName::new("..")), "\"..\" is not a file name");
        assert_eq!(
            why(FileName::new(&"a".repeat(256))),
            "a file name of 256 bytes is longer than 255"
        );
        assert_eq!(
            FileName::new("a/b"),
            Err(NameRefused::Contains {
                name: "a/b".to_owned(),
                character: '/'
            })
        );
        assert_eq!(
            why(FileName::new("a\nb")),
            "the file name \"a\\nb\" contains '\\n'"
        );
        assert!(
            why(vm_file_name("Bad", "vm", "yaml"))
                .starts_with("namespace \"Bad\" is not an RFC 1123 label (")
        );
        assert!(
            why(vm_file_name("default", "a/b", "yaml"))
                .starts_with("name \"a/b\" is not an RFC 1123 subdomain (")
        );
    }

    #[test]
    fn vm_file_names() {
        assert_eq!(
            vm_file_name("default", "web.v1", "yaml").unwrap().as_str(),
            "default_web.v1.yaml"
        );
        assert_eq!(
            vm_file_name("default", "web-*", "json").unwrap().as_str(),
            "default_web-*.json"
        );
        for (namespace, name) in [
            ("../../target/traversal", "vm"),
            ("default", "../x"),
            ("default", "a/b"),
            ("default", "web\n::error::x"),
            ("a_b", "c"),
            ("a", "b_c"),
            ("", "vm"),
            ("default", ""),
            ("default", "*"),
        ] {
            assert!(
                vm_file_name(namespace, name, "yaml").is_err(),
                "{namespace:?}/{name:?}"
            );
        }
    }

    #[test]
    fn arguments_must_end_in_a_file_name() {
        for bad in ["..", "/", "out/..", "."] {
            assert!(OutputPath::from_argument(Path::new(bad)).is_err(), "{bad}");
        }
        let path = OutputPath::from_argument(Path::new("report.json")).unwrap();
        assert_eq!(path.path(), Path::new("./report.json"));
    }

    #[test]
    fn an_existing_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, "keep\n").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("out.yaml")).unwrap();
        let out = OutputPath::in_dir(dir.path(), FileName::new("out.yaml").unwrap());
        assert!(out.write(b"new\n").is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep\n");
        assert!(
            fs::symlink_metadata(dir.path().join("out.yaml"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_regular_file_is_replaced_and_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.txt");
        fs::write(&path, "old\n").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        let out = OutputPath::in_dir(dir.path(), FileName::new("report.txt").unwrap());
        out.write(b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
