//! The units cache: a unit's build result, kept under the user's cache directory and keyed by
//! the content of every file the build reads, so that a run over unchanged units starts no
//! Kustomize process.
//!
//! Entries are written to a temporary file in their final directory and renamed into place,
//! so a reader sees a whole entry or none; each carries its full key, its length and a
//! checksum, and anything that does not verify is a miss. Concurrent runs need no lock: two
//! writers of one key write the same bytes, and the last rename wins.
//!
//! The build output names files by paths relative to the wrapper directory, and a refusal by
//! absolute paths. The wrapper directory is `<temp>/kvlint-units-<random>/<n>`: relative paths
//! from it climb over its two private components, so they do not depend on them as long as the
//! temporary directory `<temp>` and the repository stay where they are. Both are in the key
//! (the temporary directory itself, the repository through the wrapper's relative reference to
//! the unit); the absolute wrapper path in a refusal is replaced by a placeholder when stored
//! and by the current one when loaded.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest as _, Sha256};

use super::discover::Root;
use super::kustomization::FILE_NAMES;
use super::outcome::BuildError;

/// Version of the key's layout and of the entry format; a change starts a new cache.
const FORMAT_VERSION: u32 = 1;
/// The cache's directory under the cache root.
const LAYOUT: &str = "units-v1";
const MAGIC: &[u8; 8] = b"kvlunit\n";
const DIGEST_BYTES: usize = 32;
/// Magic, version, key, kind, payload length.
const HEADER_BYTES: usize = MAGIC.len() + 4 + DIGEST_BYTES + 1 + 8;
/// Largest payload read back: the most a build may print.
const MAX_PAYLOAD_BYTES: u64 = crate::source::MAX_FILE_BYTES;
/// Stands for the wrapper directory in a stored refusal.
const WRAPPER_PLACEHOLDER: &str = "\u{0}kvlint-wrapper\u{0}";

/// A SHA-256 digest.
pub(crate) type Digest = [u8; DIGEST_BYTES];

/// The cache root: `explicit` (`--cache-dir`), else `$KVLINT_CACHE_DIR`, else the platform's
/// user cache directory with `kvlint` appended. `var` reads the environment, `home` is the
/// user's home directory. None when no directory is known.
pub(crate) fn root_directory(
    explicit: Option<&Path>,
    var: &dyn Fn(&str) -> Option<OsString>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    let set = |name: &str| {
        var(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = set("KVLINT_CACHE_DIR") {
        return Some(dir);
    }
    let user = if cfg!(windows) {
        set("LOCALAPPDATA").filter(|dir| dir.is_absolute())
    } else if cfg!(target_os = "macos") {
        home.map(|home| home.join("Library").join("Caches"))
    } else {
        set("XDG_CACHE_HOME")
            .filter(|dir| dir.is_absolute())
            .or_else(|| home.map(|home| home.join(".cache")))
    };
    user.filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("kvlint"))
}

/// What a closure file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    Digest(Digest),
    /// Not there: Kustomize reports it, and its appearing changes the key.
    Absent,
    /// There but unreadable (or too large): the unit is not cached.
    Unreadable,
}

/// The content of every closure file of a run, each file read once.
#[derive(Debug, Default)]
pub(crate) struct Contents(HashMap<PathBuf, Content>);

impl Contents {
    /// Reads the files in parallel (symlinks followed, as Kustomize follows them).
    pub(crate) fn read<'a>(paths: impl Iterator<Item = &'a PathBuf>) -> Self {
        let unique: BTreeSet<&PathBuf> = paths.collect();
        let read: Vec<(PathBuf, Content)> = unique
            .into_par_iter()
            .map(|path| (path.clone(), content_of(path)))
            .collect();
        Self(read.into_iter().collect())
    }

    fn get(&self, path: &Path) -> Content {
        self.0.get(path).copied().unwrap_or(Content::Unreadable)
    }
}

pub(crate) fn content_of(path: &Path) -> Content {
    // Most files are no symlink: read as named, without resolving each component first.
    let resolved = match std::fs::symlink_metadata(path) {
        Ok(metadata) if !metadata.file_type().is_symlink() => path.to_path_buf(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Content::Absent,
        _ => match std::fs::canonicalize(path) {
            Ok(resolved) => resolved,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Content::Absent,
            Err(_) => return Content::Unreadable,
        },
    };
    match crate::source::read_file_bytes(&resolved) {
        Ok(bytes) => Content::Digest(Sha256::digest(&bytes).into()),
        Err(_) => Content::Unreadable,
    }
}

/// Which of the kustomization file names exist in `dir`.
pub(crate) fn kustomization_names(dir: &Path) -> [bool; 3] {
    FILE_NAMES.map(|name| dir.join(name).exists())
}

/// The tool a build runs, as the key knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ToolIdentity {
    /// The program, resolved.
    pub program: PathBuf,
    pub label: String,
    pub version: Option<String>,
}

/// Everything a unit's build result depends on.
pub(crate) struct KeyInput<'a> {
    pub tool: &'a ToolIdentity,
    /// The resolved directory the private wrapper directories are made in.
    pub temp_root: &'a Path,
    /// The unit's directory, as reported.
    pub unit: &'a str,
    /// The wrapper kustomization's text.
    pub wrapper: &'a str,
    /// The closure files (as reported) with their content, sorted.
    pub closure: Vec<(&'a Path, Content)>,
    /// Each kustomization directory (as reported) with the file names present in it, sorted.
    pub directories: Vec<(&'a Path, [bool; 3])>,
}

/// The key of a build, or None when a closure file cannot be read (the unit is not cached).
pub(crate) fn key(input: &KeyInput<'_>) -> Option<Digest> {
    let mut hasher = Fields(Sha256::new());
    hasher.field(b"format", &FORMAT_VERSION.to_le_bytes());
    hasher.path(b"program", &input.tool.program);
    hasher.field(b"label", input.tool.label.as_bytes());
    match &input.tool.version {
        Some(version) => hasher.field(b"version", version.as_bytes()),
        None => hasher.field(b"no-version", b""),
    }
    hasher.path(b"temp", input.temp_root);
    hasher.field(b"unit", input.unit.as_bytes());
    hasher.field(b"wrapper", input.wrapper.as_bytes());
    for (path, content) in &input.closure {
        hasher.path(b"file", path);
        match content {
            Content::Digest(digest) => hasher.field(b"content", digest),
            Content::Absent => hasher.field(b"absent", b""),
            Content::Unreadable => return None,
        }
    }
    for (dir, names) in &input.directories {
        hasher.path(b"directory", dir);
        hasher.field(b"names", &names.map(u8::from));
    }
    Some(hasher.0.finalize().into())
}

/// Length-prefixed fields, so that no two inputs hash the same bytes.
struct Fields(Sha256);

impl Fields {
    fn field(&mut self, tag: &[u8], value: &[u8]) {
        for part in [tag, value] {
            self.0.update((part.len() as u64).to_le_bytes());
            self.0.update(part);
        }
    }

    fn path(&mut self, tag: &[u8], path: &Path) {
        self.field(tag, path.as_os_str().as_encoded_bytes());
    }
}

/// A build result as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The build's output.
    Built(String),
    /// Kustomize's refusal, the wrapper directory replaced by a placeholder.
    Refused(String),
}

impl Entry {
    /// What to store for a build result in `wrapper_dirs` (its spellings); None for a failure
    /// of the process (a timeout may not recur).
    pub(crate) fn of(result: &Result<String, BuildError>, wrapper_dirs: &[&str]) -> Option<Self> {
        match result {
            Ok(output) => Some(Self::Built(output.clone())),
            Err(BuildError::Refused(message)) => {
                let mut message = message.clone();
                for dir in wrapper_dirs.iter().filter(|dir| !dir.is_empty()) {
                    message = message.replace(dir, WRAPPER_PLACEHOLDER);
                }
                Some(Self::Refused(message))
            }
            Err(BuildError::Failed(_)) => None,
        }
    }

    /// The build result this entry stands for, built in `wrapper_dir`.
    pub(crate) fn result(self, wrapper_dir: &str) -> Result<String, BuildError> {
        match self {
            Self::Built(output) => Ok(output),
            Self::Refused(message) => Err(BuildError::Refused(
                message.replace(WRAPPER_PLACEHOLDER, wrapper_dir),
            )),
        }
    }

    fn parts(&self) -> (u8, &str) {
        match self {
            Self::Built(text) => (0, text),
            Self::Refused(text) => (1, text),
        }
    }
}

/// The stored form of an entry.
fn encode(key: &Digest, entry: &Entry) -> Vec<u8> {
    let (kind, payload) = entry.parts();
    let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len() + DIGEST_BYTES);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(key);
    bytes.push(kind);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(payload.as_bytes());
    let checksum: Digest = Sha256::digest(&bytes).into();
    bytes.extend_from_slice(&checksum);
    bytes
}

/// The entry `bytes` hold for `key`, or None unless every part verifies. The text is taken
/// in place: a warm run holds many outputs, and a copy of each would be made and freed on
/// the building threads.
fn decode(mut bytes: Vec<u8>, key: &Digest) -> Option<Entry> {
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(DIGEST_BYTES)?)?;
    if Sha256::digest(body).as_slice() != checksum {
        return None;
    }
    let (header, payload) = body.split_at_checked(HEADER_BYTES)?;
    let (magic, rest) = header.split_at(MAGIC.len());
    let (version, rest) = rest.split_at(4);
    let (stored_key, rest) = rest.split_at(DIGEST_BYTES);
    let (kind, length) = rest.split_at(1);
    if magic != MAGIC
        || version != FORMAT_VERSION.to_le_bytes()
        || stored_key != key
        || u64::from_le_bytes(length.try_into().ok()?) != payload.len() as u64
    {
        return None;
    }
    let (kind, length) = (kind[0], payload.len());
    bytes.truncate(HEADER_BYTES + length);
    bytes.drain(..HEADER_BYTES);
    let text = String::from_utf8(bytes).ok()?;
    match kind {
        0 => Some(Entry::Built(text)),
        1 => Some(Entry::Refused(text)),
        _ => None,
    }
}

/// The entries on disk.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store under the cache root `root`.
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            dir: root.join(LAYOUT),
        }
    }

    fn path_of(&self, key: &Digest) -> PathBuf {
        let hex = key.iter().fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
        self.dir.join(&hex[..2]).join(format!("{}.unit", &hex[2..]))
    }

    /// The entry of `key`; None when there is none or it does not verify.
    pub(crate) fn load(&self, key: &Digest) -> Option<Entry> {
        let path = self.path_of(key);
        let size = std::fs::symlink_metadata(&path)
            .ok()
            .filter(std::fs::Metadata::is_file)?
            .len();
        if size > MAX_PAYLOAD_BYTES + (HEADER_BYTES + DIGEST_BYTES) as u64 {
            return None;
        }
        let bytes = crate::source::read_file_bytes(&path).ok()?;
        decode(bytes, key)
    }

    /// Stores `entry` under `key`, replacing whatever is there.
    pub(crate) fn save(&self, key: &Digest, entry: &Entry) -> std::io::Result<()> {
        let path = self.path_of(key);
        let dir = path.parent().unwrap_or(&self.dir);
        create_private_dir(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        file.write_all(&encode(key, entry))?;
        file.flush()?;
        file.persist(&path).map_err(|err| err.error)?;
        Ok(())
    }
}

impl Store {
    /// The version `probe` reports for `program`, asked once per program file: the answer is
    /// kept under the program's resolved path, size, modification time (and on Unix, its
    /// inode and change time), so that a replaced binary is asked again.
    pub(crate) fn tool_version(
        &self,
        program: &Path,
        probe: impl FnOnce() -> Option<String>,
    ) -> Option<String> {
        let Some(key) = program_key(program) else {
            return probe();
        };
        if let Some(Entry::Built(version)) = self.load(&key) {
            return (!version.is_empty()).then_some(version);
        }
        let version = probe();
        let _ = self.save(&key, &Entry::Built(version.clone().unwrap_or_default()));
        version
    }
}

/// The key of a program file's version: None when the file cannot be looked at.
fn program_key(program: &Path) -> Option<Digest> {
    let resolved = std::fs::canonicalize(program).ok()?;
    let metadata = std::fs::metadata(&resolved).ok()?;
    let modified = metadata
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let mut hasher = Fields(Sha256::new());
    hasher.field(b"format", &FORMAT_VERSION.to_le_bytes());
    hasher.field(b"tool-version-of", b"");
    hasher.path(b"program", &resolved);
    hasher.field(b"size", &metadata.len().to_le_bytes());
    hasher.field(b"modified", &modified.as_nanos().to_le_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        hasher.field(b"inode", &metadata.ino().to_le_bytes());
        hasher.field(b"changed", &metadata.ctime().to_le_bytes());
        hasher.field(b"changed-ns", &metadata.ctime_nsec().to_le_bytes());
    }
    Some(hasher.0.finalize().into())
}

/// Creates `dir` and its missing parents, readable by the user only (entries hold rendered
/// manifests, Secrets among them).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// The cache as one run's builds use it.
pub(crate) struct RunCache {
    store: Store,
    tool: ToolIdentity,
    temp_root: PathBuf,
    contents: Contents,
}

impl RunCache {
    /// The cache under `root` for builds of `roots` by `tool` in wrappers under `scratch`;
    /// every closure file is read here, once.
    pub(crate) fn new(root: &Path, tool: ToolIdentity, scratch: &Path, roots: &[Root]) -> Self {
        let scratch = std::fs::canonicalize(scratch).unwrap_or_else(|_| scratch.to_path_buf());
        let temp_root = scratch
            .parent()
            .map_or_else(PathBuf::new, Path::to_path_buf);
        let buildable = roots.iter().filter(|root| root.unbuildable.is_empty());
        Self {
            store: Store::new(root),
            tool,
            temp_root,
            contents: Contents::read(buildable.flat_map(|root| &root.closure)),
        }
    }

    /// The result of building `root` (reported as `unit`) through `wrapper` in `wrapper_dir`
    /// (resolved; `build` creates it): the stored one, else `build`'s, then stored unless a
    /// file it reads changed meanwhile.
    pub(crate) fn build(
        &self,
        root: &Root,
        unit: &str,
        wrapper: &str,
        wrapper_dir: &Path,
        build: impl FnOnce() -> Result<String, BuildError>,
    ) -> Result<String, BuildError> {
        let key_of = |content: &dyn Fn(&Path) -> Content| {
            key(&KeyInput {
                tool: &self.tool,
                temp_root: &self.temp_root,
                unit,
                wrapper,
                closure: root
                    .closure
                    .iter()
                    .map(|path| (path.as_path(), content(path)))
                    .collect(),
                directories: root
                    .directories
                    .iter()
                    .map(|dir| (dir.as_path(), kustomization_names(dir)))
                    .collect(),
            })
        };
        let Some(key) = key_of(&|path| self.contents.get(path)) else {
            return build();
        };
        let resolved = wrapper_dir.to_string_lossy();
        if let Some(entry) = self.store.load(&key) {
            return entry.result(&resolved);
        }
        let result = build();
        // A file edited while Kustomize ran: the result may be of either content.
        if key_of(&content_of) != Some(key) {
            return result;
        }
        if let Some(entry) = Entry::of(&result, &[&resolved]) {
            // The cache only saves work: a write that fails costs the next run a build.
            let _ = self.store.save(&key, &entry);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(version: &str) -> ToolIdentity {
        ToolIdentity {
            program: PathBuf::from("/usr/bin/kustomize"),
            label: "kustomize build".to_owned(),
            version: Some(version.to_owned()),
        }
    }

    struct Sample {
        tool: ToolIdentity,
        wrapper: String,
        files: Vec<(PathBuf, Content)>,
        directories: Vec<(PathBuf, [bool; 3])>,
    }

    impl Sample {
        fn new() -> Self {
            Self {
                tool: tool("v5.5.0"),
                wrapper: "{\"resources\": [\"../../repo/apps/dev\"]}".to_owned(),
                files: vec![
                    (
                        PathBuf::from("apps/dev/kustomization.yaml"),
                        Content::Digest([1; 32]),
                    ),
                    (PathBuf::from("base/vm.yaml"), Content::Digest([2; 32])),
                ],
                directories: vec![(PathBuf::from("apps/dev"), [true, false, false])],
            }
        }

        fn key(&self) -> Option<Digest> {
            key(&KeyInput {
                tool: &self.tool,
                temp_root: Path::new("/tmp"),
                unit: "apps/dev",
                wrapper: &self.wrapper,
                closure: self.files.iter().map(|(p, c)| (p.as_path(), *c)).collect(),
                directories: self
                    .directories
                    .iter()
                    .map(|(p, n)| (p.as_path(), *n))
                    .collect(),
            })
        }
    }

    #[test]
    fn the_key_follows_every_input() {
        let base = Sample::new().key().unwrap();
        assert_eq!(Sample::new().key(), Some(base), "the key is deterministic");

        let mut changed = Sample::new();
        changed.files[1].1 = Content::Digest([3; 32]);
        assert_ne!(changed.key(), Some(base), "a closure file's content");

        let mut changed = Sample::new();
        changed.files[1].1 = Content::Absent;
        assert_ne!(changed.key(), Some(base), "a closure file disappearing");

        let mut changed = Sample::new();
        changed.directories[0].1 = [true, true, false];
        assert_ne!(changed.key(), Some(base), "kustomization.yml appearing");

        let mut changed = Sample::new();
        changed.tool = tool("v5.6.0");
        assert_ne!(changed.key(), Some(base), "the tool's version");

        let mut changed = Sample::new();
        changed.tool.version = None;
        assert_ne!(changed.key(), Some(base), "a tool without a version");

        let mut changed = Sample::new();
        changed.wrapper = "{\"resources\": [\"../../../repo/apps/dev\"]}".to_owned();
        assert_ne!(changed.key(), Some(base), "the wrapper's text");

        let mut changed = Sample::new();
        changed.files[1].0 = PathBuf::from("base/vm2.yaml");
        assert_ne!(changed.key(), Some(base), "a closure file's name");
    }

    #[test]
    fn an_unreadable_closure_file_is_not_cached() {
        let mut sample = Sample::new();
        sample.files[0].1 = Content::Unreadable;
        assert_eq!(sample.key(), None);
    }

    #[test]
    fn file_contents_are_read_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("vm.yaml");
        std::fs::write(&file, "kind: VirtualMachine\n").unwrap();
        let missing = dir.path().join("missing.yaml");
        let contents = Contents::read([&file, &missing, &file].into_iter());
        assert_eq!(
            contents.get(&file),
            Content::Digest(Sha256::digest(b"kind: VirtualMachine\n").into())
        );
        assert_eq!(contents.get(&missing), Content::Absent);
        assert_eq!(contents.get(Path::new("never-read")), Content::Unreadable);
    }

    #[test]
    fn kustomization_names_present() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(kustomization_names(dir.path()), [false; 3]);
        std::fs::write(dir.path().join("kustomization.yaml"), "").unwrap();
        std::fs::write(dir.path().join("kustomization.yml"), "").unwrap();
        assert_eq!(kustomization_names(dir.path()), [true, true, false]);
    }

    #[test]
    fn the_cache_directory_by_precedence() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| OsString::from(value))
            }
        };
        let home = || Some(PathBuf::from("/home/u"));
        let both = env(&[("KVLINT_CACHE_DIR", "/c/k"), ("XDG_CACHE_HOME", "/x")]);
        assert_eq!(
            root_directory(Some(Path::new("given")), &both, home()),
            Some(PathBuf::from("given"))
        );
        assert_eq!(
            root_directory(None, &both, home()),
            Some(PathBuf::from("/c/k"))
        );
        let empty = env(&[("KVLINT_CACHE_DIR", "")]);
        let nothing = env(&[]);
        assert_eq!(root_directory(None, &nothing, None), None);
        if cfg!(all(unix, not(target_os = "macos"))) {
            assert_eq!(
                root_directory(None, &env(&[("XDG_CACHE_HOME", "/x")]), home()),
                Some(PathBuf::from("/x/kvlint"))
            );
            let relative = env(&[("XDG_CACHE_HOME", "relative")]);
            assert_eq!(
                root_directory(None, &relative, home()),
                Some(PathBuf::from("/home/u/.cache/kvlint"))
            );
            assert_eq!(
                root_directory(None, &empty, home()),
                Some(PathBuf::from("/home/u/.cache/kvlint"))
            );
            assert_eq!(
                root_directory(None, &nothing, Some(PathBuf::from("relative"))),
                None
            );
        }
    }

    #[test]
    fn entries_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let key = [7; 32];
        assert_eq!(store.load(&key), None);
        let entry = Entry::Built("apiVersion: v1\nkind: ConfigMap\n".to_owned());
        store.save(&key, &entry).unwrap();
        assert_eq!(store.load(&key), Some(entry));
        assert_eq!(store.load(&[8; 32]), None, "another key");
        let path = store.path_of(&key);
        assert!(path.starts_with(dir.path().join("units-v1").join("07")));
        assert!(path.to_string_lossy().ends_with(".unit"));
    }

    #[test]
    fn a_damaged_entry_is_a_miss() {
        let key = [7; 32];
        let good = encode(&key, &Entry::Built("kind: ConfigMap\n".to_owned()));
        assert_eq!(
            decode(good.clone(), &key),
            Some(Entry::Built("kind: ConfigMap\n".to_owned()))
        );
        for cut in [0, 1, HEADER_BYTES, good.len() - 1] {
            assert_eq!(
                decode(good[..cut].to_vec(), &key),
                None,
                "truncated at {cut}"
            );
        }
        for at in [0, 9, HEADER_BYTES - 1, HEADER_BYTES + 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 0x20;
            assert_eq!(decode(bad, &key), None, "byte {at} flipped");
        }
        assert_eq!(
            decode(good.clone(), &[9; 32]),
            None,
            "stored under another key"
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(decode(longer, &key), None, "trailing byte");

        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        store
            .save(&key, &Entry::Built("kind: ConfigMap\n".to_owned()))
            .unwrap();
        let path = store.path_of(&key);
        std::fs::write(&path, &good[..good.len() / 2]).unwrap();
        assert_eq!(store.load(&key), None, "truncated on disk");
    }

    #[test]
    fn concurrent_writers_leave_a_valid_entry() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let key = [5; 32];
        let entry = Entry::Built("x: 1\n".repeat(20_000));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        store.save(&key, &entry).unwrap();
                        let seen = store.load(&key);
                        assert!(seen.is_none_or(|seen| seen == entry));
                    }
                });
            }
        });
        assert_eq!(store.load(&key), Some(entry));
        let leftovers = std::fs::read_dir(store.path_of(&key).parent().unwrap())
            .unwrap()
            .count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn a_build_during_which_a_file_changed_is_not_stored() {
        let dir = tempfile::tempdir().unwrap();
        let unit = dir.path().join("unit");
        std::fs::create_dir(&unit).unwrap();
        std::fs::write(unit.join("kustomization.yaml"), "resources: [vm.yaml]\n").unwrap();
        let vm = unit.join("vm.yaml");
        std::fs::write(&vm, "kind: VirtualMachine\n").unwrap();
        let root = crate::units::discover::Tree::new(None).root(&unit).unwrap();
        assert!(root.closure.contains(&vm), "{:?}", root.closure);
        let scratch = dir.path().join("tmp").join("kvlint-units-x");
        let cache = RunCache::new(
            &dir.path().join("cache"),
            tool("v5.5.0"),
            &scratch,
            std::slice::from_ref(&root),
        );
        let wrapper_dir = scratch.join("0");
        let run = |edit: Option<&str>, output: &str| {
            cache.build(&root, "unit", "wrapper", &wrapper_dir, || {
                if let Some(text) = edit {
                    std::fs::write(&vm, text).unwrap();
                }
                Ok(output.to_owned())
            })
        };
        // The file changes while the first build runs: its output is not kept.
        assert_eq!(
            run(Some("kind: Changed\n"), "first"),
            Ok("first".to_owned())
        );
        std::fs::write(&vm, "kind: VirtualMachine\n").unwrap();
        assert_eq!(run(None, "second"), Ok("second".to_owned()));
        assert_eq!(run(None, "third"), Ok("second".to_owned()), "stored");
    }

    #[test]
    fn a_tool_version_is_asked_once_per_program_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(&dir.path().join("cache"));
        let program = dir.path().join("kustomize");
        std::fs::write(&program, "first").unwrap();
        let asked = std::cell::Cell::new(0);
        let probe = |answer: Option<&str>| {
            asked.set(asked.get() + 1);
            answer.map(str::to_owned)
        };
        let version = |answer| store.tool_version(&program, || probe(answer));
        assert_eq!(version(Some("v5.4.2")).as_deref(), Some("v5.4.2"));
        assert_eq!(version(Some("other")).as_deref(), Some("v5.4.2"));
        assert_eq!(asked.get(), 1);
        // A replaced program (another size) is asked again; no version is remembered too.
        std::fs::write(&program, "second build").unwrap();
        assert_eq!(version(None), None);
        assert_eq!(version(Some("v9.9.9")), None);
        assert_eq!(asked.get(), 2);
        let missing = dir.path().join("missing");
        assert_eq!(
            store
                .tool_version(&missing, || Some("v1.0.0".to_owned()))
                .as_deref(),
            Some("v1.0.0")
        );
    }

    #[test]
    fn refusals_are_stored_without_the_wrapper_directory() {
        let refused = Err(BuildError::Refused(
            "accumulating resources: open /tmp/kvlint-units-ab/0/x.yaml: no such file".to_owned(),
        ));
        let entry = Entry::of(&refused, &["/tmp/kvlint-units-ab/0", ""]).unwrap();
        let Entry::Refused(text) = &entry else {
            panic!("{entry:?}")
        };
        assert!(!text.contains("kvlint-units-ab"));
        assert_eq!(
            entry.result("/tmp/kvlint-units-cd/3"),
            Err(BuildError::Refused(
                "accumulating resources: open /tmp/kvlint-units-cd/3/x.yaml: no such file"
                    .to_owned()
            ))
        );
        let failed = Err(BuildError::Failed("stopped after 1 s".to_owned()));
        assert_eq!(Entry::of(&failed, &[]), None, "a timeout is not stored");
    }
}
