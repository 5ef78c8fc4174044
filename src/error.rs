//! Failures of the tool itself (exit code 2), as opposed to findings about the input.

use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line asks for something kvlint cannot do.
    #[error("{0}")]
    Usage(String),
    /// Reading, writing or resolving a file or directory failed.
    #[error("{}: {source}", path.display())]
    File { path: PathBuf, source: io::Error },
    /// A system call not about one named file failed; `doing` says what kvlint was doing
    /// ("cannot write the report").
    #[error("{doing}: {source}")]
    System { doing: String, source: io::Error },
    /// A file kvlint must read cannot be used as it is (too large, not text, not what it
    /// should hold); `path` as the user named it.
    #[error("{}: {reason}", path.display())]
    Unusable { path: PathBuf, reason: String },
    /// The catalog `--catalog` (or the configuration) names cannot be read.
    #[error("--catalog: {0}")]
    Catalog(#[source] Box<Error>),
    /// A schema file a `--schema-location` names cannot be read.
    #[error("--schema-location: {0}")]
    SchemaLocation(String),
    /// The walk of the given paths reached one of its bounds.
    #[error("{0}")]
    Limit(String),
    /// git is missing or could not read a revision.
    #[error(transparent)]
    Git(#[from] GitError),
    /// `kvlint fix` stopped partway: which files it rewrote and which it did not.
    #[error(
        "{cause}; kvlint fix stopped: files rewritten: {written}; files not rewritten: {not_written}"
    )]
    FixStopped {
        #[source]
        cause: Box<Error>,
        written: String,
        not_written: String,
    },
}

/// Why git could not give kvlint what a revision holds (`kvlint diff --base/--head`).
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git cannot be found.
    #[error("git is not installed or not on PATH; --base and --head read revisions with it")]
    NotInstalled,
    /// Reading the revision `revision` (as given), which resolved to `commit`, failed.
    #[error("cannot read {revision} ({commit}): {cause}")]
    Read {
        revision: String,
        commit: String,
        #[source]
        cause: GitCause,
    },
    /// A file of the revision (`file`, as the working tree names it) cannot be used as it is
    /// (too large, not text), for `reason`.
    #[error("{file} in {revision}: {reason}")]
    UnusableFile {
        file: String,
        revision: String,
        reason: String,
    },
}

/// What went wrong while git read a revision.
#[derive(Debug, thiserror::Error)]
pub enum GitCause {
    /// git was started without the output pipe kvlint reads.
    #[error("no output")]
    NoOutput,
    /// Waiting for git failed.
    #[error("{0}")]
    Io(#[source] io::Error),
    /// git exited with an error: its standard error, or its exit status.
    #[error("{0}")]
    Exited(String),
    /// git's answer could not be read (a listing or an object).
    #[error("{0}")]
    Answer(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl Error {
    /// An I/O failure on `path`.
    pub fn file(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Self::File {
            path: path.into(),
            source,
        }
    }

    /// An I/O failure while `doing` something not tied to one file.
    pub fn system(doing: impl Into<String>, source: io::Error) -> Self {
        Self::System {
            doing: doing.into(),
            source,
        }
    }

    /// The file at `path` cannot be used, for `reason`.
    pub fn unusable(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self::Unusable {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// The kind of the operating system's error behind this one, if there is one.
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            Self::File { source, .. }
            | Self::System { source, .. }
            | Self::Git(GitError::Read {
                cause: GitCause::Io(source),
                ..
            }) => Some(source.kind()),
            Self::FixStopped { cause, .. } | Self::Catalog(cause) => cause.io_kind(),
            _ => None,
        }
    }

    /// The file this error is about, if it is about one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File { path, .. } | Self::Unusable { path, .. } => Some(path),
            Self::FixStopped { cause, .. } | Self::Catalog(cause) => cause.path(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_failure_keeps_its_path_and_kind_and_reads_as_before() {
        let err = Error::file(
            "apps/web.yaml",
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert_eq!(err.io_kind(), Some(io::ErrorKind::PermissionDenied));
        assert_eq!(err.path(), Some(Path::new("apps/web.yaml")));
        assert_eq!(err.to_string(), "apps/web.yaml: permission denied");
    }

    #[test]
    fn a_stopped_fix_names_its_cause_and_the_files() {
        let err = Error::FixStopped {
            cause: Box::new(Error::file(
                "a.yaml",
                io::Error::from(io::ErrorKind::StorageFull),
            )),
            written: "b.yaml".to_owned(),
            not_written: "a.yaml, c.yaml".to_owned(),
        };
        assert_eq!(err.io_kind(), Some(io::ErrorKind::StorageFull));
        assert_eq!(err.path(), Some(Path::new("a.yaml")));
        assert_eq!(
            err.to_string(),
            "a.yaml: no storage space; kvlint fix stopped: files rewritten: b.yaml; files not rewritten: a.yaml, c.yaml"
        );
    }

    #[test]
    fn usage_and_system_errors_are_not_about_a_file() {
        assert_eq!(Error::Usage("bad".to_owned()).path(), None);
        let err = Error::system(
            "cannot write the report",
            io::Error::from(io::ErrorKind::BrokenPipe),
        );
        assert_eq!(err.path(), None);
        assert_eq!(err.io_kind(), Some(io::ErrorKind::BrokenPipe));
        assert_eq!(err.to_string(), "cannot write the report: broken pipe");
    }

    #[test]
    fn git_failures_keep_their_cause_and_read_as_before() {
        assert_eq!(
            Error::from(GitError::NotInstalled).to_string(),
            "git is not installed or not on PATH; --base and --head read revisions with it"
        );
        let read = |cause| {
            Error::from(GitError::Read {
                revision: "main".to_owned(),
                commit: "0123abc".to_owned(),
                cause,
            })
        };
        assert_eq!(
            read(GitCause::NoOutput).to_string(),
            "cannot read main (0123abc): no output"
        );
        let waited = read(GitCause::Io(io::Error::from(io::ErrorKind::Interrupted)));
        assert_eq!(
            waited.to_string(),
            "cannot read main (0123abc): operation interrupted"
        );
        assert_eq!(waited.io_kind(), Some(io::ErrorKind::Interrupted));
        assert!(std::error::Error::source(&waited).is_some());
        assert_eq!(
            read(GitCause::Exited("fatal: not a tree object".to_owned())).to_string(),
            "cannot read main (0123abc): fatal: not a tree object"
        );
        let answer = read(GitCause::Answer("object 42 is missing".into()));
        assert_eq!(
            answer.to_string(),
            "cannot read main (0123abc): object 42 is missing"
        );
        assert_eq!(answer.io_kind(), None);
        assert_eq!(answer.path(), None);
        assert_eq!(
            Error::from(GitError::UnusableFile {
                file: ".kvlint.yaml".to_owned(),
                revision: "HEAD~1".to_owned(),
                reason: "is not UTF-8 text".to_owned(),
            })
            .to_string(),
            ".kvlint.yaml in HEAD~1: is not UTF-8 text"
        );
    }
}
