//! Reading one input's bytes, bounded: regular files only (never a FIFO or a device, which
//! could block or never end), never through a symlink, at most [`MAX_FILE_BYTES`].

use std::io::Read;
use std::path::Path;

/// The most kvlint reads of one file or of standard input (256 MiB). The largest manifests
/// seen in practice are a few MB; `.ci/run` checks a 100 MB file.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Why a file's bytes are not a text kvlint can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadProblem {
    pub message: String,
    /// 1-based line and column of the offending byte, when known.
    pub line: u32,
    pub column: u32,
}

impl ReadProblem {
    /// A problem with the file as a whole (reported at its first line).
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            line: 1,
            column: 1,
        }
    }
}

/// What a file system entry is, in words, when it is not a regular file or a directory.
pub(crate) fn special_kind(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_symlink() {
        return "a symbolic link";
    }
    "not a regular file"
}

/// Opens `path` for reading without following a symlink in its last component and without
/// blocking on a FIFO (whose writer may never come).
#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    Ok(std::fs::File::from(fd))
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("a symbolic link"));
    }
    std::fs::File::open(path)
}

/// Reads at most `limit` bytes from `reader`; more is a problem named after `what`.
fn read_capped(
    reader: impl Read,
    size_hint: u64,
    limit: u64,
    what: &str,
) -> Result<Vec<u8>, ReadProblem> {
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(limit)).unwrap_or(0));
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|err| ReadProblem::whole(format!("cannot read {what}: {err}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(what, limit));
    }
    Ok(bytes)
}

fn too_large(what: &str, limit: u64) -> ReadProblem {
    ReadProblem::whole(format!(
        "{what} is larger than {}, the most kvlint reads of one file: not checked",
        size_text(limit)
    ))
}

/// Whether a file of `size` bytes is read at all, and why not (a blob listed in a git
/// revision, whose size is known before it is read).
pub fn check_size(size: u64) -> Result<(), ReadProblem> {
    if size > MAX_FILE_BYTES {
        Err(too_large("the file", MAX_FILE_BYTES))
    } else {
        Ok(())
    }
}

fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// Reads a regular file's bytes (not through a symlink, at most [`MAX_FILE_BYTES`]).
pub fn read_file_bytes(path: &Path) -> Result<Vec<u8>, ReadProblem> {
    let file = open_no_follow(path)
        .map_err(|err| ReadProblem::whole(format!("cannot read file: {err}")))?;
    let metadata = file
        .metadata()
        .map_err(|err| ReadProblem::whole(format!("cannot read file: {err}")))?;
    if !metadata.is_file() {
        return Err(ReadProblem::whole(format!(
            "{}, not a regular file: not read",
            special_kind(metadata.file_type())
        )));
    }
    read_capped(file, metadata.len(), MAX_FILE_BYTES, "the file")
}

/// Reads standard input, at most [`MAX_FILE_BYTES`].
pub(super) fn read_stdin() -> Result<Vec<u8>, ReadProblem> {
    read_capped(std::io::stdin().lock(), 0, MAX_FILE_BYTES, "standard input")
}

/// Reads a regular file as UTF-8 text (see [`read_file_bytes`] and [`decode`]).
pub fn read_file_text(path: &Path) -> Result<String, ReadProblem> {
    decode(read_file_bytes(path)?)
}

/// Reads a file named on the command line (`--baseline`, a `--schema-location` schema) as
/// UTF-8 text: symlinks are followed, as the user chose the path, and the file is then read as
/// an input is: a regular file only (a FIFO or a device is refused without blocking), at most
/// [`MAX_FILE_BYTES`].
pub fn read_given_text(path: &Path) -> Result<String, ReadProblem> {
    let resolved = std::fs::canonicalize(path)
        .map_err(|err| ReadProblem::whole(format!("cannot read file: {err}")))?;
    read_file_text(&resolved)
}

/// Checks that bytes are UTF-8 text, as Kubernetes requires of manifests.
pub fn decode(bytes: Vec<u8>) -> Result<String, ReadProblem> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(ReadProblem::whole(
            "the file is UTF-16 encoded; Kubernetes manifests must be UTF-8",
        ));
    }
    if let Some(nul) = memchr::memchr(0, &bytes) {
        let (line, column) = position_of_byte(&bytes, nul);
        return Err(ReadProblem {
            message: "the file contains a NUL byte: it is binary, not YAML".to_owned(),
            line,
            column,
        });
    }
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let (line, column) = position_of_byte(err.as_bytes(), offset);
        ReadProblem {
            message: "the file is not valid UTF-8".to_owned(),
            line,
            column,
        }
    })
}

fn position_of_byte(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.split(|&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_binary_and_utf16() {
        assert!(decode(b"a: 1\n".to_vec()).is_ok());
        let nul = decode(b"a: 1\nb: \0\n".to_vec()).unwrap_err();
        assert_eq!((nul.line, nul.column), (2, 4));
        assert!(
            decode(vec![0xFF, 0xFE, b'a', 0])
                .unwrap_err()
                .message
                .contains("UTF-16")
        );
        let bad = decode(b"a: \xc3\x28\n".to_vec()).unwrap_err();
        assert_eq!((bad.line, bad.column), (1, 4));
    }

    #[test]
    fn reading_stops_past_the_cap() {
        let endless = std::io::repeat(b'a');
        let problem = read_capped(endless, 0, 1 << 20, "standard input").unwrap_err();
        assert_eq!(
            problem.message,
            "standard input is larger than 1 MiB, the most kvlint reads of one file: not checked"
        );
        let exact = std::io::repeat(b'a').take(1000);
        assert_eq!(read_capped(exact, 0, 1000, "the file").unwrap().len(), 1000);
    }

    #[cfg(unix)]
    #[test]
    fn never_reads_through_a_symlink_or_from_a_device() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.yaml");
        std::fs::write(&target, "a: 1\n").unwrap();
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(read_file_text(&target).unwrap(), "a: 1\n");
        assert!(read_file_bytes(&link).is_err());
        let device = read_file_bytes(Path::new("/dev/zero")).unwrap_err();
        assert!(device.message.contains("character device"), "{device:?}");
    }
}
