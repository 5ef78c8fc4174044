//! A revision of the git repository around a directory, for `kvlint diff --base` and `--head`:
//! the files a check of the given paths would read, taken from git's objects into memory.
//!
//! The checked files are read into memory; only when units are built are the revision's
//! files written, into a private temporary directory ([`materialise`]). The paths given are looked up in the revision's tree with
//! `git ls-tree`, the files the working-tree walk would read are picked by the same rules
//! ([`select`]), and only their blobs are read with `git cat-file --batch`: a large file outside
//! the checked paths costs nothing, and a crafted tree (a symlink and a directory of the same
//! name, names that differ only in case, `..`) cannot make kvlint write anywhere. The
//! configuration file and the catalog it names come from the same revision. The working tree,
//! the index, HEAD and the refs stay untouched, and unlike `git archive` the `export-ignore`
//! and `export-subst` attributes do not change what is read.
//!
//! The scanned repository is not trusted: its `.git/config` and `.gitattributes` can name
//! programs (`core.fsmonitor`, hooks, `filter.*.smudge`, diff and textconv drivers). kvlint only
//! runs plumbing commands that start none of them: no checkout (which runs smudge filters and
//! hooks), no status or diff (which run the fsmonitor and diff drivers), and `cat-file` without
//! `--filters` or `--textconv`. The configuration that could still apply is overridden on the
//! command line, and a partial clone's lazy fetch (which would run a configured transport) is
//! turned off.

mod blobs;
pub mod checked;
mod command;
mod failure;
pub mod listing;
pub mod materialise;
pub mod select;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use crate::check::Options;
use crate::config::CatalogChoice;
use crate::config::{Config, ConfigChoice};
use crate::diag::{Finding, Location};
use crate::error::{Error, GitCause, GitError};
use crate::rules;
use crate::source::Input;
use crate::source::NamedBytes;
use crate::yaml::{Pos, Span};

use command::{git, git_command, spawn_error, stderr_text, stdout_line};
use failure::{CatalogUnread, GitFailed, Why};
use listing::{Entry, Kind, RepoPath};
use select::{Found, Globs, Picked};

/// A commit of the repository around a directory.
#[derive(Debug)]
pub struct Revision {
    /// The revision as given.
    given: String,
    commit: String,
    toplevel: PathBuf,
    /// The directory the revision was resolved in, relative to the repository's top level.
    prefix: PathBuf,
}

/// The inputs of one side of `kvlint diff`, read from a revision.
#[derive(Debug)]
pub struct Side {
    /// The options to check `inputs` with: the configuration is the revision's.
    pub options: Options,
    pub inputs: Vec<Input>,
    /// Paths given as files that are symbolic links in the revision (KV0005: not followed).
    pub findings: Vec<Finding>,
}

/// Resolves `revision` of the repository that contains the current directory.
pub fn resolve(revision: &str) -> Result<Revision, Error> {
    resolve_in(Path::new("."), revision)
}

/// Resolves `revision` of the repository that contains `dir`. Relative paths are then
/// relative to `dir`.
pub fn resolve_in(dir: &Path, revision: &str) -> Result<Revision, Error> {
    if revision.is_empty() || revision.starts_with('-') {
        return Err(Error::Usage(format!("`{revision}` is not a git revision")));
    }
    let top = git(dir, &["rev-parse".as_ref(), "--show-toplevel".as_ref()])?;
    if !top.status.success() {
        return Err(Error::Usage(format!(
            "{} is not inside a git repository ({}); --base and --head need one",
            dir.display(),
            stderr_text(&top)
        )));
    }
    let toplevel = PathBuf::from(stdout_line(&top));
    let prefix = git(dir, &["rev-parse".as_ref(), "--show-prefix".as_ref()])?;
    let prefix = PathBuf::from(stdout_line(&prefix));
    let spec = format!("{revision}^{{commit}}");
    let resolved = git(
        dir,
        &[
            "rev-parse".as_ref(),
            "--verify".as_ref(),
            "--quiet".as_ref(),
            spec.as_ref(),
        ],
    )?;
    if !resolved.status.success() {
        return Err(Error::Usage(format!(
            "unknown git revision `{revision}` in {}",
            toplevel.display()
        )));
    }
    Ok(Revision {
        given: revision.to_owned(),
        commit: stdout_line(&resolved),
        toplevel,
        prefix,
    })
}

/// Adds the findings of a [`Side`] to the report of its check.
pub fn add_findings(report: &mut crate::check::Report, findings: Vec<Finding>) {
    if findings.is_empty() {
        return;
    }
    for finding in &findings {
        match finding.severity {
            crate::diag::Severity::Error => report.summary.errors += 1,
            crate::diag::Severity::Warning => report.summary.warnings += 1,
            crate::diag::Severity::Info => report.summary.infos += 1,
        }
    }
    report.findings.extend(findings);
    crate::diag::sort_findings(&mut report.findings);
}

/// Records of `git ls-tree` longer than this are skipped: no file system takes such a path.
const RECORD_LIMIT: usize = 64 * 1024;

impl Revision {
    /// The revision as given (`main`, `HEAD~1`, a commit hash).
    pub fn revision(&self) -> &str {
        &self.given
    }

    /// The full commit hash the revision resolved to.
    pub fn commit(&self) -> &str {
        &self.commit
    }

    /// The repository path of `path`, given relative to the directory the revision was
    /// resolved in, or absolute inside the repository.
    pub fn locate(&self, path: &Path) -> Result<RepoPath, Error> {
        let outside = || {
            Error::Usage(format!(
                "{} is outside the git repository {}",
                path.display(),
                self.toplevel.display()
            ))
        };
        if !path.is_absolute() {
            return listing::normalise(&self.prefix.join(path)).ok_or_else(outside);
        }
        let canonical_top = self
            .toplevel
            .canonicalize()
            .unwrap_or(self.toplevel.clone());
        let relative = path
            .strip_prefix(&self.toplevel)
            .or_else(|_| path.strip_prefix(&canonical_top))
            .map(Path::to_path_buf)
            .ok()
            .or_else(|| {
                let canonical = path.canonicalize().ok()?;
                canonical
                    .strip_prefix(&canonical_top)
                    .ok()
                    .map(Path::to_path_buf)
            })
            .ok_or_else(outside)?;
        listing::normalise(&relative).ok_or_else(outside)
    }

    /// Whether the revision has a file or directory at `path` (as [`Self::locate`] takes it).
    pub fn has(&self, path: &Path) -> Result<bool, Error> {
        Ok(self.probe(&self.locate(path)?)?.is_some())
    }

    /// How the working tree's walk names the file at `path`: relative to the directory the
    /// revision was resolved in when below it, else absolute.
    fn working_tree_name(&self, path: &RepoPath) -> Arc<str> {
        match path.as_path().strip_prefix(&self.prefix) {
            Ok(relative) => crate::source::display_path(relative),
            Err(_) => crate::source::display_path(&self.toplevel.join(path.as_path())),
        }
    }

    /// Runs `git ls-tree -z -l` (`-r` when `recursive`) at `path`, handing each entry that
    /// `keep` accepts to the result: the listing is read as a stream, so a large tree costs only
    /// the entries kept.
    fn list(
        &self,
        path: &RepoPath,
        recursive: bool,
        keep: impl Fn(&Entry) -> bool,
    ) -> Result<Vec<Entry>, Error> {
        let mut command = git_command(&self.toplevel);
        command.args(["ls-tree", "-z", "-l", "--full-tree"]);
        if recursive {
            command.arg("-r");
        }
        command.arg(&self.commit);
        if !path.is_top() {
            command.arg("--").arg(path.git_spelling());
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| self.failed(GitCause::NoOutput))?;
        let entries = records(BufReader::new(stdout), &keep);
        if entries.is_err() {
            let _ = child.kill();
        }
        let output = child
            .wait_with_output()
            .map_err(|err| self.failed(GitCause::Io(err)))?;
        let entries = entries.map_err(|cause| self.failed(GitCause::Answer(Box::new(cause))))?;
        if !output.status.success() {
            return Err(self.failed(GitCause::Exited(stderr_text(&output))));
        }
        Ok(entries)
    }

    fn failed(&self, cause: GitCause) -> Error {
        Error::Git(GitError::Read {
            revision: self.given.clone(),
            commit: self.commit.clone(),
            cause,
        })
    }

    /// The entry at `path` in the revision (the top level is a tree).
    fn probe(&self, path: &RepoPath) -> Result<Option<Entry>, Error> {
        if path.is_top() {
            return Ok(Some(Entry {
                kind: Kind::Tree,
                object: String::new(),
                size: None,
                path: RepoPath::top(),
            }));
        }
        Ok(self
            .list(path, false, |entry| entry.path == *path)?
            .into_iter()
            .next())
    }

    /// The files under `path` (a tree) that a walk could read: regular files with a manifest
    /// name.
    fn manifests_under(&self, path: &RepoPath) -> Result<Vec<Entry>, Error> {
        self.list(path, true, |entry| {
            entry.kind == Kind::File && crate::source::is_manifest_name(entry.path.as_path())
        })
    }

    /// What the walk of `given` (at `path`, whose entry is `entry`) reads in the revision.
    fn find(
        &self,
        given: &Path,
        path: &RepoPath,
        entry: &Entry,
        globs: &Globs,
    ) -> Result<Found, Error> {
        if entry.kind == Kind::Tree {
            Ok(select::pick(
                given,
                path,
                &self.manifests_under(path)?,
                globs,
            ))
        } else {
            Ok(select::pick(
                given,
                path,
                std::slice::from_ref(entry),
                globs,
            ))
        }
    }

    fn read(&self, picked: &[Picked]) -> Result<Vec<NamedBytes>, Error> {
        let wanted: Vec<blobs::Wanted> = picked
            .iter()
            .map(|p| blobs::Wanted {
                object: p.object.clone(),
                size: p.size,
            })
            .collect();
        let contents = blobs::read(&self.toplevel, &wanted)
            .map_err(|cause| self.failed(GitCause::Answer(Box::new(cause))))?;
        Ok(picked
            .iter()
            .zip(contents)
            .map(|(p, bytes)| (Arc::clone(&p.display), Arc::from(bytes)))
            .collect())
    }

    /// The files a check of `options`' paths reads in this revision, and the options to check
    /// them with; `None` when none of the paths exists in the revision.
    pub fn side(&self, options: &Options) -> Result<Option<Side>, Error> {
        let mut present = Vec::new();
        let default_paths = [PathBuf::from(".")];
        let paths = if options.selection.paths.is_empty() {
            &default_paths[..]
        } else {
            &options.selection.paths
        };
        for given in paths {
            let path = self.locate(given)?;
            if let Some(entry) = self.probe(&path)? {
                present.push((given.clone(), path, entry));
            }
        }
        let Some((_, first, first_entry)) = present.first() else {
            return Ok(None);
        };
        let start = if first_entry.kind == Kind::Tree {
            first.clone()
        } else {
            first.parent().unwrap_or_default()
        };
        let config = self.config(&options.config, options.catalog.is_some(), &start)?;
        let include: Vec<String> = options
            .selection
            .include
            .iter()
            .chain(&config.include)
            .cloned()
            .collect();
        let exclude: Vec<String> = options
            .selection
            .exclude
            .iter()
            .chain(&config.exclude)
            .cloned()
            .collect();
        let globs = Globs::new(&include, &exclude)?;

        let mut picked = Vec::new();
        let mut findings = Vec::new();
        for (given, path, entry) in &present {
            let found = self.find(given, path, entry, &globs)?;
            picked.extend(found.files);
            if let Some(link) = found.link {
                findings.push(Finding::new(
                    &rules::UNREADABLE_FILE,
                    at_start(&link),
                    format!(
                        "a symbolic link in {}: links in a git revision are not followed",
                        self.given
                    ),
                ));
            }
        }
        // A blob over the size limit is reported as a file would be, and never read.
        let readable: Vec<Picked> = picked
            .iter()
            .filter(|p| crate::source::check_size(p.size).is_ok())
            .cloned()
            .collect();
        let mut contents = self.read(&readable)?.into_iter();
        let inputs = picked
            .into_iter()
            .filter_map(|p| match crate::source::check_size(p.size) {
                Ok(()) => contents
                    .next()
                    .map(|(display, bytes)| Input::Memory { display, bytes }),
                Err(problem) => Some(Input::Refused {
                    display: p.display,
                    problem,
                }),
            })
            .collect();
        let mut options = options.clone();
        options.selection.paths = present.into_iter().map(|(given, ..)| given).collect();
        options.config = ConfigChoice::Loaded(Arc::new(config));
        Ok(Some(Side {
            options,
            inputs,
            findings,
        }))
    }

    /// The configuration `choice` selects: `.kvlint.yaml` found in the revision from `start`
    /// upward to the top level (the catalog it names read from the revision too, unless
    /// `catalog_given` on the command line), the file `--config` names, or none.
    fn config(
        &self,
        choice: &ConfigChoice,
        catalog_given: bool,
        start: &RepoPath,
    ) -> Result<Config, Error> {
        if !matches!(choice, ConfigChoice::Discover) {
            return crate::config::load(choice, Path::new("."));
        }
        let mut dir = Some(start.clone());
        while let Some(at) = dir {
            for name in crate::source::FILE_NAMES {
                let candidate = at.child(name);
                if let Some(entry) = candidate.map(|c| self.probe(&c)).transpose()?.flatten()
                    && entry.kind == Kind::File
                {
                    return self.config_file(&entry, catalog_given);
                }
            }
            dir = at.parent();
        }
        Ok(Config::default())
    }

    fn config_file(&self, entry: &Entry, catalog_given: bool) -> Result<Config, Error> {
        let display = self.working_tree_name(&entry.path);
        let picked = Picked {
            display: Arc::clone(&display),
            object: entry.object.clone(),
            size: entry.size.unwrap_or_default(),
        };
        let unusable = |problem: crate::source::ReadProblem| {
            Error::Git(GitError::UnusableFile {
                file: display.to_string(),
                revision: self.given.clone(),
                reason: problem.message,
            })
        };
        crate::source::check_size(picked.size).map_err(unusable)?;
        let bytes = self.read(&[picked])?.remove(0).1.to_vec();
        let text = crate::source::decode(bytes).map_err(unusable)?;
        let mut config = crate::config::parse(&display, &text);
        if !catalog_given && let Some(CatalogChoice::Path(path)) = config.catalog.clone() {
            config.catalog = match self.catalog(&path) {
                Ok(catalog) => Some(catalog),
                Err(problem) => {
                    config.findings.push(Finding::new(
                        &rules::INVALID_CONFIG,
                        setting_location(&display, &text, "catalog"),
                        problem.to_string(),
                    ));
                    None
                }
            };
        }
        config.text = Some(Arc::from(text));
        Ok(config)
    }

    /// The catalog at `path` (named by the configuration, relative to the directory the
    /// revision was resolved in) as the revision holds it; `Err` says why it is not read.
    fn catalog(&self, path: &Path) -> Result<CatalogChoice, CatalogUnread> {
        let unread = |why| CatalogUnread {
            path: path.to_path_buf(),
            why,
        };
        let at = self.locate(path).map_err(|_| unread(Why::Outside))?;
        let entry = self
            .probe(&at)
            .map_err(|err| unread(Why::Git(err)))?
            .ok_or_else(|| unread(Why::Missing(self.given.clone())))?;
        let found = self
            .find(path, &at, &entry, &Globs::default())
            .map_err(|err| unread(Why::Git(err)))?;
        if found.link.is_some() {
            return Err(unread(Why::Link(self.given.clone())));
        }
        let limits = crate::resolve::catalog_source::CATALOG_WALK;
        let bytes: u64 = found.files.iter().map(|f| f.size).sum();
        if found.files.len() > limits.max_files || bytes > limits.max_bytes {
            return Err(unread(Why::TooLarge {
                given: self.given.clone(),
                files: found.files.len(),
                bytes,
                max_files: limits.max_files,
                max_bytes: limits.max_bytes,
            }));
        }
        let files = self
            .read(&found.files)
            .map_err(|err| unread(Why::Git(err)))?;
        Ok(CatalogChoice::Files {
            path: path.to_path_buf(),
            files: files.into(),
        })
    }
}

/// Reads the NUL-terminated records of `git ls-tree -z`, keeping the entries `keep` accepts.
fn records(
    mut reader: impl BufRead,
    keep: &impl Fn(&Entry) -> bool,
) -> Result<Vec<Entry>, GitFailed> {
    let mut entries = Vec::new();
    let mut record = Vec::new();
    loop {
        record.clear();
        let limit = u64::try_from(RECORD_LIMIT).unwrap_or(u64::MAX);
        let read = (&mut reader).take(limit).read_until(0, &mut record)?;
        if read == 0 {
            return Ok(entries);
        }
        if record.last() != Some(&0) {
            if record.len() < RECORD_LIMIT {
                return Err(GitFailed::RecordCut);
            }
            skip_past_nul(&mut reader)?;
            continue;
        }
        record.pop();
        if let Some(entry) = listing::parse_record(&record).map_err(GitFailed::Malformed)?
            && keep(&entry)
        {
            entries.push(entry);
        }
    }
}

/// Skips the rest of an overlong record without keeping it.
fn skip_past_nul(reader: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        if let Some(nul) = memchr::memchr(0, buffer) {
            reader.consume(nul + 1);
            return Ok(());
        }
        let all = buffer.len();
        reader.consume(all);
    }
}

fn at_start(file: &Arc<str>) -> Location {
    let start = Pos {
        line: 1,
        column: 1,
        index: 0,
    };
    Location {
        file: Arc::clone(file),
        span: Span { start, end: start },
    }
}

/// Where the value of the top-level setting `key` lies in a configuration file (the file's
/// start when it cannot be found).
fn setting_location(file: &Arc<str>, text: &str, key: &str) -> Location {
    let docs = crate::yaml::parse_stream(text, crate::yaml::Limits::default());
    let span = docs
        .into_iter()
        .next()
        .and_then(Result::ok)
        .and_then(|doc| doc.root.get(key).map(|node| node.span));
    match span {
        Some(span) => Location {
            file: Arc::clone(file),
            span,
        },
        None => at_start(file),
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn run(dir: &Path, args: &[&str]) {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=kvlint test",
                "-c",
                "user.email=test@example.invalid",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
    }

    fn repository() -> tempfile::TempDir {
        let repo = tempfile::tempdir().unwrap();
        run(repo.path(), &["init", "-q", "-b", "main"]);
        std::fs::create_dir_all(repo.path().join("apps/vms")).unwrap();
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "first\n").unwrap();
        std::fs::write(repo.path().join(".gitattributes"), "*.yaml export-ignore\n").unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "one"]);
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "second\n").unwrap();
        std::fs::write(repo.path().join("apps/vms/b.yaml"), "new\n").unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "two"]);
        // Uncommitted and staged edits must survive untouched.
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "third\n").unwrap();
        run(repo.path(), &["add", "apps/vms/a.yaml"]);
        std::fs::write(repo.path().join("apps/vms/a.yaml"), "fourth\n").unwrap();
        repo
    }

    /// The files `kvlint diff --base revision path` reads, with their texts.
    fn read(repo: &Path, revision: &str, path: &str) -> Vec<(String, String)> {
        let revision = resolve_in(repo, revision).unwrap();
        let options = Options {
            selection: crate::source::Selection {
                paths: vec![PathBuf::from(path)],
                ..crate::source::Selection::default()
            },
            ..Options::default()
        };
        let side = revision.side(&options).unwrap().expect("the path exists");
        side.inputs
            .iter()
            .map(|input| {
                let text = crate::source::read(input).unwrap();
                (input.display().to_string(), text)
            })
            .collect()
    }

    /// A program that records that it ran, passing its input through (as a filter must).
    #[cfg(unix)]
    fn trap(dir: &Path, marker: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let script = dir.join("trap.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\ncat\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[cfg(unix)]
    #[test]
    fn never_runs_programs_the_repository_configures() {
        let repo = repository();
        std::fs::write(
            repo.path().join(".gitattributes"),
            "*.yaml filter=evil diff=evil\n",
        )
        .unwrap();
        run(repo.path(), &["add", "."]);
        run(repo.path(), &["commit", "-q", "-m", "attributes"]);

        let outside = tempfile::tempdir().unwrap();
        let marker = outside.path().join("ran");
        let script = trap(outside.path(), &marker);
        let script = script.to_str().unwrap();
        let hooks = repo.path().join(".git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        for hook in [
            "post-checkout",
            "post-index-change",
            "reference-transaction",
        ] {
            std::fs::copy(script, hooks.join(hook)).unwrap();
        }
        for (key, value) in [
            ("core.fsmonitor", script),
            ("core.hooksPath", hooks.to_str().unwrap()),
            ("filter.evil.smudge", script),
            ("filter.evil.clean", script),
            ("filter.evil.process", script),
            ("filter.evil.required", "true"),
            ("diff.evil.textconv", script),
            ("diff.evil.command", script),
            ("core.pager", script),
            ("core.alternateRefsCommand", script),
        ] {
            run(repo.path(), &["config", key, value]);
        }

        let files = read(repo.path(), "HEAD~1", "apps/vms");
        assert_eq!(
            files,
            [
                ("apps/vms/a.yaml".to_owned(), "second\n".to_owned()),
                ("apps/vms/b.yaml".to_owned(), "new\n".to_owned())
            ],
            "the blobs as stored, no filter"
        );
        let files = read(repo.path(), "HEAD", "apps/vms");
        assert_eq!(files.len(), 2);
        assert!(
            !marker.exists(),
            "kvlint made git run {}",
            std::fs::read_to_string(&marker).unwrap_or_default()
        );

        // The traps are armed: ordinary porcelain commands do run them.
        let _ = Command::new("git")
            .arg("-C")
            .arg(repo.path())
            .args(["checkout-index", "--all", "--force", "--prefix=copy/"])
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(marker.exists(), "checkout-index runs the smudge filter");
    }
}
