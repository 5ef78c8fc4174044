//! Why what a revision holds cannot be read: git's answer (`GitFailed`, reported as
//! `Error::Git`, "cannot read <revision> (<commit>): <cause>"), or the catalog a configuration
//! in it names (`CatalogUnread`, reported as a finding on the setting).

use std::io;
use std::path::PathBuf;

use super::listing::Malformed;
use crate::error::Error;

#[derive(Debug, thiserror::Error)]
pub(super) enum GitFailed {
    /// git cannot be started.
    #[error("{0}")]
    Spawn(#[source] Box<Error>),
    /// A pipe to or from git, or waiting for it, failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// git exited with an error: its standard error, or its exit status.
    #[error("{0}")]
    Exited(String),
    /// git was started without the pipe kvlint reads or writes.
    #[error("git cat-file has no {0}")]
    NoPipe(&'static str),
    #[error("git ls-tree output ended in the middle of a record")]
    RecordCut,
    #[error("{}", .0.0)]
    Malformed(Malformed),
    #[error("object {0} is missing (a partial or shallow clone?)")]
    MissingObject(String),
    /// An answer header other than the one asked for (escaped for the terminal).
    #[error("unexpected git cat-file answer `{}`", .0.escape_debug())]
    UnexpectedAnswer(String),
    #[error("a blob too large to read")]
    BlobTooLarge,
    #[error("cannot hold a blob of {0} bytes")]
    CannotHold(usize),
    #[error("git cat-file ended object {0} early")]
    EndedEarly(String),
}

/// Why the catalog a configuration in the revision names (`path`) is not read.
#[derive(Debug)]
pub(super) struct CatalogUnread {
    pub(super) path: PathBuf,
    pub(super) why: Why,
}

#[derive(Debug)]
pub(super) enum Why {
    /// It lies outside the repository.
    Outside,
    /// git could not list or read it.
    Git(Error),
    /// The revision (given as this) does not have it.
    Missing(String),
    /// It is a symbolic link in the revision.
    Link(String),
    /// It holds more than a catalog may.
    TooLarge {
        given: String,
        files: usize,
        bytes: u64,
        max_files: usize,
        max_bytes: u64,
    },
}

impl std::fmt::Display for CatalogUnread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.path.display();
        match &self.why {
            Why::Outside => write!(
                f,
                "the catalog {path} lies outside the repository; it is not read"
            ),
            Why::Git(err) => write!(f, "{err}"),
            Why::Missing(given) => write!(f, "the catalog {path} is not in {given}"),
            Why::Link(given) => write!(
                f,
                "the catalog {path} is a symbolic link in {given}; links are not followed"
            ),
            Why::TooLarge {
                given,
                files,
                bytes,
                max_files,
                max_bytes,
            } => write!(
                f,
                "the catalog {path} in {given} holds {files} files of {bytes} bytes, more than the {max_files} files and {max_bytes} bytes a catalog may have; it is not read"
            ),
        }
    }
}

impl std::error::Error for CatalogUnread {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.why {
            Why::Git(err) => Some(err),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unread_catalog_says_why_as_before() {
        let unread = |why| {
            CatalogUnread {
                path: PathBuf::from("cat"),
                why,
            }
            .to_string()
        };
        assert_eq!(
            unread(Why::TooLarge {
                given: "main".to_owned(),
                files: 3,
                bytes: 10,
                max_files: 2,
                max_bytes: 5,
            }),
            "the catalog cat in main holds 3 files of 10 bytes, more than the 2 files and 5 bytes a catalog may have; it is not read"
        );
        assert_eq!(
            unread(Why::Outside),
            "the catalog cat lies outside the repository; it is not read"
        );
        let git = CatalogUnread {
            path: PathBuf::from("cat"),
            why: Why::Git(Error::Git(crate::error::GitError::NotInstalled)),
        };
        assert_eq!(
            git.to_string(),
            "git is not installed or not on PATH; --base and --head read revisions with it"
        );
        assert!(std::error::Error::source(&git).is_some());
    }
}
