//! Writing the fixed files. A file is replaced only when it is still what kvlint read, and
//! only when replacing it cannot hurt: a symbolic link, a file with other hard links and a
//! read-only file are left alone (their fixes are reported as not made). The new text goes to
//! a flushed temporary file in the same directory, with the original's permissions and, where
//! the process may, its owner, and is renamed over the original.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::sync::Arc;

use super::{FileChange, Outcome, Skipped};
use crate::error::Error;
use crate::source::write;

/// Why a file is left alone: it must not be replaced, or it changed after kvlint read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
enum LeftAlone {
    #[error(
        "it is a symbolic link; kvlint fix does not write through links (give the file it points to)"
    )]
    SymbolicLink,
    #[error("it is not a regular file")]
    NotRegular,
    #[error("it has {0} hard links, which replacing it would separate (edit it by hand)")]
    HardLinks(u64),
    #[error("it is read-only")]
    ReadOnly,
    #[error("the file changed after kvlint read it; run kvlint fix again")]
    Changed,
}

/// Why a file must not be replaced, from its own metadata (not following a link).
fn refusal(meta: &Metadata) -> Option<LeftAlone> {
    if meta.file_type().is_symlink() {
        return Some(LeftAlone::SymbolicLink);
    }
    if !meta.is_file() {
        return Some(LeftAlone::NotRegular);
    }
    if meta.nlink() > 1 {
        return Some(LeftAlone::HardLinks(meta.nlink()));
    }
    if meta.mode() & 0o222 == 0 {
        return Some(LeftAlone::ReadOnly);
    }
    None
}

/// Whether two looks at a path saw the same, unmodified file.
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    (
        a.dev(),
        a.ino(),
        a.size(),
        a.mtime(),
        a.mtime_nsec(),
        a.mode(),
    ) == (
        b.dev(),
        b.ino(),
        b.size(),
        b.mtime(),
        b.mtime_nsec(),
        b.mode(),
    )
}

/// Replaces one file; `Ok(Err(reason))` when it was left alone on purpose.
fn write_one(change: &FileChange) -> Result<Result<(), LeftAlone>, Error> {
    let path = Path::new(&*change.file);
    let meta = fs::symlink_metadata(path).map_err(|err| Error::file(path, err))?;
    if let Some(reason) = refusal(&meta) {
        return Ok(Err(reason));
    }
    let unchanged = |meta: &Metadata| -> Result<bool, Error> {
        let now = fs::symlink_metadata(path).map_err(|err| Error::file(path, err))?;
        Ok(same_file(meta, &now)
            && fs::read(path).map_err(|err| Error::file(path, err))? == change.before.as_bytes())
    };
    if !unchanged(&meta)? {
        return Ok(Err(LeftAlone::Changed));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prepared = write::prepare(dir, change.after.as_bytes(), Some(&meta))?;
    // A last look right before the rename narrows the window for an edit made meanwhile;
    // the prepared file is removed when it is dropped.
    if !unchanged(&meta)? {
        return Ok(Err(LeftAlone::Changed));
    }
    prepared.commit(path)?;
    Ok(Ok(()))
}

fn list(files: &[Arc<str>]) -> String {
    if files.is_empty() {
        "none".to_owned()
    } else {
        files.join(", ")
    }
}

/// Writes every changed file. A file left alone on purpose takes its fixes from `applied`
/// to `skipped` and leaves `changes`. An error stops the run and names the files already
/// rewritten and those that were not.
pub fn write(outcome: &mut Outcome) -> Result<(), Error> {
    let mut written: Vec<Arc<str>> = Vec::new();
    let mut refused: Vec<(Arc<str>, LeftAlone)> = Vec::new();
    for (index, change) in outcome.changes.iter().enumerate() {
        match write_one(change) {
            Ok(Ok(())) => written.push(Arc::clone(&change.file)),
            Ok(Err(reason)) => refused.push((Arc::clone(&change.file), reason)),
            Err(err) => {
                let not_written: Vec<Arc<str>> = refused
                    .iter()
                    .map(|(file, _)| Arc::clone(file))
                    .chain(outcome.changes[index..].iter().map(|c| Arc::clone(&c.file)))
                    .collect();
                return Err(Error::FixStopped {
                    cause: Box::new(err),
                    written: list(&written),
                    not_written: list(&not_written),
                });
            }
        }
    }
    let refused: HashMap<Arc<str>, LeftAlone> = refused.into_iter().collect();
    outcome.changes.retain(|c| !refused.contains_key(&c.file));
    let (left, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut outcome.applied)
        .into_iter()
        .partition(|a| refused.contains_key(&a.file));
    outcome.applied = kept;
    outcome.skipped.extend(left.into_iter().map(|a| Skipped {
        reason: format!("not written: {}", refused[&a.file]),
        file: a.file,
        line: a.line,
        rule: a.rule,
    }));
    outcome.skipped.sort_by(|a, b| {
        (&a.file, a.line, a.rule.code, &a.reason).cmp(&(&b.file, b.line, b.rule.code, &b.reason))
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::LeftAlone;

    #[test]
    fn a_file_left_alone_says_why_as_before() {
        assert_eq!(
            LeftAlone::HardLinks(2).to_string(),
            "it has 2 hard links, which replacing it would separate (edit it by hand)"
        );
        assert_eq!(
            LeftAlone::Changed.to_string(),
            "the file changed after kvlint read it; run kvlint fix again"
        );
        assert_eq!(LeftAlone::ReadOnly.to_string(), "it is read-only");
    }
}
