//! The `kvlint fix` pipeline: check, edit, check the edited files again, repeat until nothing
//! changes, then write atomically.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::Action;
use super::edit::{apply_edits, plan_edits};
use crate::check::{self, Options, Report};
use crate::config::ConfigChoice;
use crate::diag::{Finding, ObjectRef};
use crate::error::Error;
use crate::rules::{FixKind, Rule, fix_kind};
use crate::yaml::{FieldPath, Limits, Node, Segment, parse_stream};

/// A fix may uncover another (an inferred matcher then has a kind to default); a few passes
/// reach the fixed point.
const MAX_PASSES: usize = 5;
/// A file whose fixes fail the check together is retried one fix per pass, up to this many
/// passes in all.
const MAX_RETRY_PASSES: usize = 25;

#[derive(Clone, Debug, Default)]
pub struct FixOptions {
    pub check: Options,
    /// Also apply fixes that make a choice (generated identities).
    pub unsafe_fixes: bool,
}

/// A fix that was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Applied {
    #[serde(serialize_with = "file_name")]
    pub file: Arc<str>,
    /// The finding's line in the file as it was when the fix was made.
    pub line: u32,
    #[serde(serialize_with = "rule_code")]
    pub rule: &'static Rule,
    pub kind: FixKind,
    pub description: String,
    /// The object the fix edits.
    pub object: Option<ObjectRef>,
    /// The fields the fix may change, in the object.
    #[serde(skip)]
    pub fields: Vec<FieldPath>,
}

/// A fixable finding that was left alone, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    #[serde(serialize_with = "file_name")]
    pub file: Arc<str>,
    pub line: u32,
    #[serde(serialize_with = "rule_code")]
    pub rule: &'static Rule,
    pub reason: String,
}

fn file_name<S: serde::Serializer>(file: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(file)
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `serialize_with` passes a reference
fn rule_code<S: serde::Serializer>(rule: &&'static Rule, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(rule.code)
}

/// One file's text before and after.
#[derive(Clone, Debug)]
pub struct FileChange {
    pub file: Arc<str>,
    pub before: String,
    pub after: String,
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub applied: Vec<Applied>,
    pub skipped: Vec<Skipped>,
    pub changes: Vec<FileChange>,
    /// Unsafe fixes that `--unsafe-fixes` would add.
    pub unsafe_available: usize,
}

type Identity = (Arc<str>, &'static str, Option<ObjectRef>, Option<String>);

fn identity(finding: &Finding) -> Identity {
    (
        Arc::clone(&finding.location.file),
        finding.rule.code,
        finding.object.clone(),
        finding.path.clone(),
    )
}

impl Action {
    /// The fields the action changes: a renamed field's old and new keys.
    fn fields(&self) -> Vec<FieldPath> {
        match self {
            Action::Remove(path) | Action::Set(path, _) => vec![path.clone()],
            Action::Rename { path, key, .. } => {
                let mut renamed = path.clone();
                renamed.0.pop();
                renamed.0.push(Segment::Key(key.clone()));
                vec![path.clone(), renamed]
            }
        }
    }
}

/// The roots a finding's path is relative to: each document, and each item of a `List`.
fn object_roots(text: &str) -> Vec<Node> {
    let mut roots = Vec::new();
    for document in parse_stream(text, Limits::default()).into_iter().flatten() {
        if let Some(items) = document.root.get("items").and_then(Node::as_seq) {
            roots.extend(items.iter().cloned());
        }
        roots.push(document.root);
    }
    roots
}

fn contains(node: &Node, finding: &Finding) -> bool {
    let at = (
        finding.location.span.start.line,
        finding.location.span.start.column,
    );
    let (start, end) = (node.span.start, node.span.end);
    (start.line, start.column) <= at && at <= (end.line, end.column)
}

/// The copy of the files that fixed texts are checked in.
struct Mirror {
    dir: tempfile::TempDir,
    /// Mirror display name → the file's display name.
    names: HashMap<String, Arc<str>>,
    /// What each file holds in the mirror now.
    written: HashMap<Arc<str>, String>,
    /// How many files the check of the real paths read.
    files: usize,
}

fn absolute(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|err| Error::Io(format!("{}: {err}", path.display())))
}

impl Mirror {
    fn new(files: usize) -> Result<Self, Error> {
        let dir = tempfile::tempdir()
            .map_err(|err| Error::Io(format!("cannot create a temporary directory: {err}")))?;
        Ok(Self {
            dir,
            names: HashMap::new(),
            written: HashMap::new(),
            files,
        })
    }

    fn path_of(&self, path: &Path) -> Result<PathBuf, Error> {
        let absolute = absolute(path)?;
        let relative = absolute.strip_prefix("/").unwrap_or(&absolute);
        Ok(self.dir.path().join(relative))
    }

    /// Checks `texts` as they would be on disk, with the same options.
    fn check(
        &mut self,
        options: &Options,
        texts: &BTreeMap<Arc<str>, String>,
    ) -> Result<Report, Error> {
        let io = |path: &Path, err: std::io::Error| Error::Io(format!("{}: {err}", path.display()));
        for (file, text) in texts {
            if self.written.get(file) == Some(text) {
                continue;
            }
            let target = self.path_of(Path::new(&**file))?;
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|err| io(parent, err))?;
            }
            std::fs::write(&target, text).map_err(|err| io(&target, err))?;
            self.names.insert(
                target.to_string_lossy().replace('\\', "/"),
                Arc::clone(file),
            );
            self.written.insert(Arc::clone(file), text.clone());
        }
        let mut mirrored = options.clone();
        mirrored.selection.paths = Vec::new();
        for path in &options.selection.paths {
            let target = self.path_of(path)?;
            if path.is_dir() {
                std::fs::create_dir_all(&target).map_err(|err| io(&target, err))?;
            }
            // A file given by name that could not be read has no copy.
            if target.exists() {
                mirrored.selection.paths.push(target);
            }
        }
        mirrored.keep_sources = false;
        let mut report = check::run(&mirrored)?;
        // Every file must be checked again, or a fixed finding could vanish with its file.
        if report.summary.files != self.files {
            return Err(Error::Io(format!(
                "kvlint fix cannot check the fixed files again ({} files instead of {}); nothing was written",
                report.summary.files, self.files
            )));
        }
        for finding in &mut report.findings {
            if let Some(file) = self.names.get(&*finding.location.file) {
                finding.location.file = Arc::clone(file);
            }
        }
        Ok(report)
    }
}

/// The fixes of one pass over one file: its new text, what was applied and what was skipped.
struct FilePass {
    text: String,
    applied: Vec<(Applied, Identity)>,
    skipped: Vec<(Skipped, Identity)>,
}

fn fix_file(text: &str, findings: &[&Finding]) -> FilePass {
    let roots = object_roots(text);
    let mut edits = Vec::new();
    let mut applied = Vec::new();
    let mut skipped = Vec::new();
    let skip = |finding: &Finding, reason: String| {
        (
            Skipped {
                file: Arc::clone(&finding.location.file),
                line: finding.location.span.start.line,
                rule: finding.rule,
                reason,
            },
            identity(finding),
        )
    };
    let mut by_root: BTreeMap<usize, Vec<&Finding>> = BTreeMap::new();
    for finding in findings {
        // The innermost root: a List item rather than the List.
        match roots.iter().position(|root| contains(root, finding)) {
            Some(index) => by_root.entry(index).or_default().push(finding),
            None => skipped.push(skip(
                finding,
                "the object was not found in the file".to_owned(),
            )),
        }
    }
    for (index, findings) in by_root {
        let root = &roots[index];
        let mut actions = Vec::new();
        let mut planned = Vec::new();
        for finding in findings {
            let Some(fix) = &finding.fix else { continue };
            let mut trial = actions.clone();
            trial.extend(fix.actions.iter().cloned());
            match plan_edits(text, root, &trial) {
                Ok(result) => {
                    actions = trial;
                    planned = result;
                    applied.push((
                        Applied {
                            file: Arc::clone(&finding.location.file),
                            line: finding.location.span.start.line,
                            rule: finding.rule,
                            kind: fix_kind(finding.rule),
                            description: fix.description.clone(),
                            object: finding.object.clone(),
                            fields: fix.actions.iter().flat_map(Action::fields).collect(),
                        },
                        identity(finding),
                    ));
                }
                Err(reason) => skipped.push(skip(finding, reason)),
            }
        }
        edits.extend(planned);
    }
    match apply_edits(text, &edits) {
        Ok(text) => FilePass {
            text,
            applied,
            skipped,
        },
        Err(reason) => FilePass {
            text: text.to_owned(),
            skipped: applied
                .into_iter()
                .map(|(a, id)| {
                    (
                        Skipped {
                            file: a.file,
                            line: a.line,
                            rule: a.rule,
                            reason: reason.clone(),
                        },
                        id,
                    )
                })
                .chain(skipped)
                .collect(),
            applied: Vec::new(),
        },
    }
}

fn counts(findings: &[Finding]) -> HashMap<Identity, usize> {
    let mut out = HashMap::new();
    for finding in findings {
        *out.entry(identity(finding)).or_default() += 1;
    }
    out
}

/// Why the fixed `file` is not acceptable: a targeted finding is still there, or a new one
/// appeared that this run does not fix in turn (a VM that KubeVirt refused before the fix may
/// now be admitted, and its drift becomes visible).
fn verify(
    file: &Arc<str>,
    targeted: &[Identity],
    before: &HashMap<Identity, usize>,
    after: &HashMap<Identity, usize>,
    fixed_next: &HashSet<Identity>,
) -> Option<String> {
    if let Some(left) = targeted.iter().find(|id| after.contains_key(*id)) {
        return Some(format!(
            "after the fix, {} is still reported at `{}`",
            left.1,
            left.3.as_deref().unwrap_or("")
        ));
    }
    let new: Vec<String> = after
        .iter()
        .filter(|(id, n)| {
            id.0 == *file
                && before.get(*id).copied().unwrap_or(0) < **n
                && !fixed_next.contains(*id)
        })
        .map(|(id, _)| format!("{} at `{}`", id.1, id.3.as_deref().unwrap_or("")))
        .collect();
    if new.is_empty() {
        return None;
    }
    let mut new = new;
    new.sort();
    Some(format!("the fixed file would report {}", new.join(", ")))
}

fn wanted(finding: &Finding, unsafe_fixes: bool, minor: u32) -> bool {
    let Some(fix) = &finding.fix else {
        return false;
    };
    let kind = fix_kind(finding.rule);
    (kind == FixKind::Safe || (kind == FixKind::Unsafe && unsafe_fixes)) && fix.since_minor <= minor
}

/// Works out every fix, without writing anything.
pub fn plan(options: &FixOptions) -> Result<Outcome, Error> {
    let mut check_options = options.check.clone();
    if check_options.selection.stdin_filename.is_some()
        || check_options
            .selection
            .paths
            .iter()
            .any(|p| p.as_os_str() == "-")
    {
        return Err(Error::Usage(
            "kvlint fix edits files in place; it does not read standard input".to_owned(),
        ));
    }
    if check_options.selection.paths.is_empty() {
        check_options.selection.paths.push(PathBuf::from("."));
    }
    // The mirror lives elsewhere: pin the configuration file the real paths would find.
    if matches!(check_options.config, ConfigChoice::Discover) {
        check_options.config = crate::config::discover(&check_options.selection.paths[0])
            .map_or(ConfigChoice::None, ConfigChoice::File);
    }
    check_options.keep_sources = true;
    check_options.with_fixes = true;
    let mut report = check::run(&check_options)?;
    let minor = report
        .profile
        .as_ref()
        .map_or(u32::MAX, |p| p.version.minor);
    let originals: BTreeMap<Arc<str>, String> = report
        .sources
        .iter()
        .filter(|(file, _)| Path::new(&**file).is_file())
        .map(|(file, text)| (Arc::clone(file), text.to_string()))
        .collect();
    let mut outcome = Outcome {
        unsafe_available: if options.unsafe_fixes {
            0
        } else {
            report
                .findings
                .iter()
                .filter(|f| f.fix.is_some() && fix_kind(f.rule) == FixKind::Unsafe)
                .count()
        },
        ..Outcome::default()
    };
    let mut current = originals.clone();
    let mut blocked: HashSet<Identity> = HashSet::new();
    let mut mirror = Mirror::new(report.summary.files)?;
    // Files whose fixes are tried one at a time.
    let mut one_by_one: HashSet<Arc<str>> = HashSet::new();
    for pass in 0..MAX_RETRY_PASSES {
        if pass >= MAX_PASSES && one_by_one.is_empty() {
            break;
        }
        let mut by_file: BTreeMap<Arc<str>, Vec<&Finding>> = BTreeMap::new();
        for finding in &report.findings {
            if wanted(finding, options.unsafe_fixes, minor)
                && !blocked.contains(&identity(finding))
                && current.contains_key(&finding.location.file)
            {
                by_file
                    .entry(Arc::clone(&finding.location.file))
                    .or_default()
                    .push(finding);
            }
        }
        let mut trial = current.clone();
        let mut passes = BTreeMap::new();
        let mut newly_blocked = false;
        for (file, findings) in &by_file {
            let findings = if one_by_one.contains(file) {
                &findings[..1]
            } else {
                &findings[..]
            };
            let pass = fix_file(&current[file], findings);
            for (skipped, id) in &pass.skipped {
                newly_blocked |= blocked.insert(id.clone());
                outcome.skipped.push(skipped.clone());
            }
            if pass.text != current[file] {
                trial.insert(Arc::clone(file), pass.text.clone());
                passes.insert(Arc::clone(file), pass);
            }
        }
        if passes.is_empty() {
            // A file taken one fix at a time may have more fixes after one that was refused.
            if newly_blocked && !one_by_one.is_empty() {
                continue;
            }
            break;
        }
        one_by_one.retain(|file| by_file.contains_key(file));
        let before = counts(&report.findings);
        let mut after_report = mirror.check(&check_options, &trial)?;
        let after = counts(&after_report.findings);
        let fixed_next: HashSet<Identity> = after_report
            .findings
            .iter()
            .filter(|f| wanted(f, options.unsafe_fixes, minor))
            .map(identity)
            .filter(|id| !blocked.contains(id))
            .collect();
        let mut failed = false;
        for (file, pass) in &passes {
            let targeted: Vec<Identity> = pass.applied.iter().map(|(_, id)| id.clone()).collect();
            if let Some(reason) = verify(file, &targeted, &before, &after, &fixed_next) {
                failed = true;
                trial.insert(Arc::clone(file), current[file].clone());
                if pass.applied.len() > 1 {
                    one_by_one.insert(Arc::clone(file));
                    continue;
                }
                for (applied, id) in &pass.applied {
                    blocked.insert(id.clone());
                    outcome.skipped.push(Skipped {
                        file: Arc::clone(&applied.file),
                        line: applied.line,
                        rule: applied.rule,
                        reason: reason.clone(),
                    });
                }
            } else {
                outcome
                    .applied
                    .extend(pass.applied.iter().map(|(a, _)| a.clone()));
            }
        }
        if failed {
            after_report = mirror.check(&check_options, &trial)?;
        }
        current = trial;
        report = after_report;
    }
    outcome.changes = originals
        .into_iter()
        .filter_map(|(file, before)| {
            let after = current.remove(&file)?;
            (after != before).then_some(FileChange {
                file,
                before,
                after,
            })
        })
        .collect();
    outcome.skipped.sort_by(|a, b| {
        (&a.file, a.line, a.rule.code, &a.reason).cmp(&(&b.file, b.line, b.rule.code, &b.reason))
    });
    outcome.skipped.dedup();
    Ok(outcome)
}

/// Writes every changed file atomically: a temporary file in the same directory, renamed over
/// the original (keeping its permissions).
pub fn write(outcome: &Outcome) -> Result<(), Error> {
    for change in &outcome.changes {
        let path = Path::new(&*change.file);
        let io = |err: std::io::Error| Error::Io(format!("{}: {err}", path.display()));
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        std::io::Write::write_all(&mut file, change.after.as_bytes()).map_err(io)?;
        if let Ok(metadata) = std::fs::metadata(path) {
            file.as_file()
                .set_permissions(metadata.permissions())
                .map_err(io)?;
        }
        file.persist(path).map_err(|err| io(err.error))?;
    }
    Ok(())
}

/// The fixes as text lines, `file:line: CODE description`, and a summary line.
pub fn text(outcome: &Outcome, written: bool) -> String {
    let mut out = String::new();
    for fix in &outcome.applied {
        let unsafe_note = if fix.kind == FixKind::Unsafe {
            " (unsafe)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{}:{}: {} {}{unsafe_note}",
            fix.file, fix.line, fix.rule.code, fix.description
        );
    }
    for skip in &outcome.skipped {
        let _ = writeln!(
            out,
            "{}:{}: {} not fixed: {}",
            skip.file, skip.line, skip.rule.code, skip.reason
        );
    }
    let verb = if written { "fixed" } else { "would fix" };
    let _ = write!(
        out,
        "kvlint: {verb} {} finding{} in {} file{}",
        outcome.applied.len(),
        if outcome.applied.len() == 1 { "" } else { "s" },
        outcome.changes.len(),
        if outcome.changes.len() == 1 { "" } else { "s" },
    );
    if !outcome.skipped.is_empty() {
        let _ = write!(out, "; {} left as they are", outcome.skipped.len());
    }
    if outcome.unsafe_available > 0 {
        let _ = write!(
            out,
            "; {} more with --unsafe-fixes",
            outcome.unsafe_available
        );
    }
    out.push('\n');
    out
}

/// The stable machine-readable form.
pub fn json(outcome: &Outcome, written: bool) -> String {
    let files: Vec<&str> = outcome.changes.iter().map(|c| &*c.file).collect();
    let value = serde_json::json!({
        "version": 1,
        "written": written,
        "fixes": outcome.applied,
        "skipped": outcome.skipped,
        "files": files,
        "unsafe_available": outcome.unsafe_available,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// The unified diff of every changed file.
pub fn unified_diff(outcome: &Outcome) -> String {
    let mut out = String::new();
    for change in &outcome.changes {
        out.push_str(
            &similar::TextDiff::from_lines(&change.before, &change.after)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", change.file), &format!("b/{}", change.file))
                .to_string(),
        );
    }
    out
}
