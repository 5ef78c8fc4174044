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
    use std::fs;
    use std::os::unix::fs::PermissionsExt as _;
    use std::path::Path;
    use std::sync::Arc;

    use super::{LeftAlone, refusal, same_file, write};
    use crate::commands::fix::run::{Applied, FileChange, Outcome};
    use crate::rules::{self, FixKind};

    fn file(dir: &Path, name: &str, text: &str) -> Arc<str> {
        let path = dir.join(name);
        fs::write(&path, text).unwrap();
        Arc::from(path.to_str().unwrap())
    }

    fn set_mode(file: &str, mode: u32) {
        fs::set_permissions(file, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// One fix at line 3 of each file, turning `before` into `after`.
    fn planned(changes: &[(&Arc<str>, &str, &str)]) -> Outcome {
        Outcome {
            applied: changes
                .iter()
                .map(|(file, _, _)| Applied {
                    file: Arc::clone(file),
                    line: 3,
                    rule: &rules::MACHINE_TYPE_DEFAULTED,
                    kind: FixKind::Safe,
                    description: "write the machine type".to_owned(),
                    object: None,
                    fields: Vec::new(),
                })
                .collect(),
            changes: changes
                .iter()
                .map(|(file, before, after)| FileChange {
                    file: Arc::clone(file),
                    before: (*before).to_owned(),
                    after: (*after).to_owned(),
                })
                .collect(),
            ..Outcome::default()
        }
    }

    fn refusal_of(path: &Path) -> Option<LeftAlone> {
        refusal(&fs::symlink_metadata(path).unwrap())
    }

    #[test]
    fn only_a_writable_regular_file_with_one_link_may_be_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let plain = file(dir.path(), "vm.yaml", "a: 1\n");
        assert_eq!(refusal_of(Path::new(&*plain)), None);
        set_mode(&plain, 0o200);
        assert_eq!(
            refusal_of(Path::new(&*plain)),
            None,
            "writable by its owner only"
        );
        set_mode(&plain, 0o444);
        assert_eq!(refusal_of(Path::new(&*plain)), Some(LeftAlone::ReadOnly));
        set_mode(&plain, 0o644);

        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&*plain, &link).unwrap();
        assert_eq!(refusal_of(&link), Some(LeftAlone::SymbolicLink));
        assert_eq!(refusal_of(dir.path()), Some(LeftAlone::NotRegular));

        let linked = file(dir.path(), "base.yaml", "a: 1\n");
        fs::hard_link(&*linked, dir.path().join("other.yaml")).unwrap();
        assert_eq!(
            refusal_of(Path::new(&*linked)),
            Some(LeftAlone::HardLinks(2))
        );
    }

    /// The new text is prepared beside the file and renamed over it, which works only within
    /// one filesystem: a file on another filesystem than the working directory (a tmpfs, where
    /// there is one) is replaced all the same.
    #[test]
    fn a_file_on_another_filesystem_than_the_working_directory_is_replaced() {
        use std::os::unix::fs::MetadataExt as _;

        let cwd = fs::metadata(".").unwrap().dev();
        let base = [Path::new("/dev/shm").to_path_buf(), std::env::temp_dir()]
            .into_iter()
            .find(|dir| fs::metadata(dir).is_ok_and(|meta| meta.is_dir() && meta.dev() != cwd))
            .unwrap_or_else(std::env::temp_dir);
        let dir = tempfile::tempdir_in(base).unwrap();
        let vm = file(dir.path(), "vm.yaml", "a: 1\n");
        let mut outcome = planned(&[(&vm, "a: 1\n", "a: 2\n")]);
        write(&mut outcome).unwrap();
        assert_eq!(fs::read_to_string(&*vm).unwrap(), "a: 2\n");
    }

    #[test]
    fn a_rewritten_file_is_not_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let vm = file(dir.path(), "vm.yaml", "a: 1\n");
        let first = fs::symlink_metadata(&*vm).unwrap();
        assert!(same_file(&first, &fs::symlink_metadata(&*vm).unwrap()));
        fs::write(&*vm, "a: 12\n").unwrap();
        assert!(!same_file(&first, &fs::symlink_metadata(&*vm).unwrap()));
    }

    #[test]
    fn a_file_still_as_read_is_replaced_and_keeps_its_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let vm = file(dir.path(), "vm.yaml", "a: 1\n");
        set_mode(&vm, 0o640);
        let mut outcome = planned(&[(&vm, "a: 1\n", "a: 2\n")]);
        write(&mut outcome).unwrap();
        assert_eq!(fs::read_to_string(&*vm).unwrap(), "a: 2\n");
        let mode = fs::metadata(&*vm).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(outcome.applied.len(), 1);
        assert_eq!(outcome.changes.len(), 1);
        assert!(outcome.skipped.is_empty(), "{:?}", outcome.skipped);
    }

    #[test]
    fn files_left_alone_keep_their_text_and_their_fixes_are_reported_as_not_made() {
        let dir = tempfile::tempdir().unwrap();
        let edited = file(dir.path(), "edited.yaml", "a: 9\n");
        let read_only = file(dir.path(), "read-only.yaml", "a: 1\n");
        set_mode(&read_only, 0o444);
        let vm = file(dir.path(), "vm.yaml", "a: 1\n");
        let mut outcome = planned(&[
            (&edited, "a: 1\n", "a: 2\n"),
            (&read_only, "a: 1\n", "a: 2\n"),
            (&vm, "a: 1\n", "a: 2\n"),
        ]);
        write(&mut outcome).unwrap();
        assert_eq!(fs::read_to_string(&*edited).unwrap(), "a: 9\n");
        assert_eq!(fs::read_to_string(&*read_only).unwrap(), "a: 1\n");
        assert_eq!(fs::read_to_string(&*vm).unwrap(), "a: 2\n");
        let changed: Vec<&str> = outcome.changes.iter().map(|c| &*c.file).collect();
        assert_eq!(changed, [&*vm]);
        let applied: Vec<&str> = outcome.applied.iter().map(|a| &*a.file).collect();
        assert_eq!(applied, [&*vm]);
        let skipped: Vec<(&str, u32, &str)> = outcome
            .skipped
            .iter()
            .map(|s| (&*s.file, s.line, s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (
                    &*edited,
                    3,
                    "not written: the file changed after kvlint read it; run kvlint fix again"
                ),
                (&*read_only, 3, "not written: it is read-only"),
            ]
        );
    }

    #[test]
    fn a_failure_stops_the_run_and_names_the_files_rewritten_and_not() {
        let dir = tempfile::tempdir().unwrap();
        let read_only = file(dir.path(), "read-only.yaml", "a: 1\n");
        set_mode(&read_only, 0o444);
        let vm = file(dir.path(), "vm.yaml", "a: 1\n");
        let gone: Arc<str> = Arc::from(dir.path().join("gone.yaml").to_str().unwrap());
        let last = file(dir.path(), "last.yaml", "a: 1\n");
        let mut outcome = planned(&[
            (&read_only, "a: 1\n", "a: 2\n"),
            (&vm, "a: 1\n", "a: 2\n"),
            (&gone, "a: 1\n", "a: 2\n"),
            (&last, "a: 1\n", "a: 2\n"),
        ]);
        let err = write(&mut outcome).unwrap_err().to_string();
        assert!(
            err.ends_with(&format!(
                "; kvlint fix stopped: files rewritten: {vm}; files not rewritten: {read_only}, {gone}, {last}"
            )),
            "{err}"
        );
        assert!(err.starts_with(&*gone), "{err}");
        assert_eq!(fs::read_to_string(&*vm).unwrap(), "a: 2\n");
        assert_eq!(fs::read_to_string(&*last).unwrap(), "a: 1\n");

        let mut first_fails = planned(&[(&gone, "a: 1\n", "a: 2\n")]);
        let err = write(&mut first_fails).unwrap_err().to_string();
        assert!(
            err.ends_with(&format!(
                "files rewritten: none; files not rewritten: {gone}"
            )),
            "{err}"
        );
    }

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
