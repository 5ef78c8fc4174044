//! The `kvlint fix` pipeline: check, edit, check the edited files again, repeat until nothing
//! changes (`write` then writes the files).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::Action;
use super::edit::{EditableText, apply_edits};
use super::lines::LineMap;
use super::roots::Roots;
use crate::check::{self, Options, Report};
use crate::config::ConfigChoice;
use crate::diag::{Finding, ObjectRef, Severity};
use crate::error::Error;
use crate::rules::{self, FixKind, Rule, fix_kind};
use crate::source::Input;
use crate::yaml::{FieldPath, Segment};

/// Each pass checks every file once. A fix may uncover another (an inferred matcher then has
/// a kind to default), and an object whose fixes fail together takes one pass per fix: the
/// passes a run needs grow with the fixes of one object, not with the number of objects.
const MAX_PASSES: usize = 64;

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
    /// The configuration's problems (KV0019), as `check` reports them: a configuration file
    /// that is not used, a setting that is ignored.
    pub configuration: Vec<Finding>,
    /// How many times the files were checked: once before any fix, then once or twice a pass.
    /// The passes grow with the fixes of one object, not with the number of objects.
    pub checks: usize,
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

/// A finding by its identity, for a refusal's reason: `KV3003 at `spec.running``, or, for a
/// finding about no field (an unused suppression), its rule's name.
fn where_found(id: &Identity) -> String {
    match id.3.as_deref() {
        Some(path) if !path.is_empty() => format!("{} at `{path}`", id.1),
        _ => match crate::rules::find(id.1) {
            Some(rule) => format!("{} ({})", id.1, rule.name),
            None => id.1.to_owned(),
        },
    }
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

/// The inputs of the first check, to check trial texts again in memory: the same files under
/// the same names, in the same order, with the same configuration; nothing is written to disk.
struct Recheck {
    /// As the first check listed them; a file it read holds the bytes it read.
    inputs: Vec<Input>,
    /// With units: the files as listed, checked from a copy that holds the trial texts.
    units: Option<(Vec<Input>, super::units::Shadow)>,
}

impl Recheck {
    /// Every file the first check read (it has a text in `read`) is checked again from memory;
    /// the inputs it refused or could not read stay as they were.
    fn new(
        inputs: Vec<Input>,
        read: &BTreeMap<Arc<str>, String>,
        shadow: Option<super::units::Shadow>,
    ) -> Self {
        if let Some(shadow) = shadow {
            return Self {
                inputs: Vec::new(),
                units: Some((inputs, shadow)),
            };
        }
        let inputs = inputs
            .into_iter()
            .map(|input| match (&input, read.get(input.display())) {
                (Input::File { display, .. }, Some(text)) => Input::Memory {
                    display: Arc::clone(display),
                    bytes: Arc::from(text.as_bytes()),
                },
                _ => input,
            })
            .collect();
        Self {
            inputs,
            units: None,
        }
    }

    /// Checks the inputs with `texts` in place of the texts read, with the same options.
    fn check(
        &self,
        options: &Options,
        texts: &BTreeMap<Arc<str>, String>,
    ) -> Result<Report, Error> {
        if let Some((inputs, shadow)) = &self.units {
            return shadow.check(options, inputs, texts);
        }
        let inputs = self
            .inputs
            .iter()
            .map(|input| match (input, texts.get(input.display())) {
                (Input::Memory { display, bytes }, Some(text)) if **bytes != *text.as_bytes() => {
                    Input::Memory {
                        display: Arc::clone(display),
                        bytes: Arc::from(text.as_bytes()),
                    }
                }
                _ => input.clone(),
            })
            .collect();
        let mut options = options.clone();
        options.keep_sources = false;
        check::run_inputs(&options, inputs)
    }
}

/// The fixes of one pass over one file: its new text, what was applied and what was skipped.
struct FilePass {
    text: String,
    applied: Vec<(Applied, Identity)>,
    skipped: Vec<(Skipped, Identity)>,
}

fn fix_file(text: &str, findings: &[&Finding]) -> FilePass {
    let roots = Roots::parse(text);
    let editable = EditableText::new(text);
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
        match roots.innermost(finding.location.span.start) {
            Some(index) => by_root.entry(index).or_default().push(finding),
            None => skipped.push(skip(
                finding,
                "the object was not found in the file".to_owned(),
            )),
        }
    }
    for (index, findings) in by_root {
        let root = &roots.nodes[index];
        let mut actions = Vec::new();
        let mut planned = Vec::new();
        for finding in findings {
            let Some(fix) = &finding.fix else { continue };
            if let Some(reason) = super::units::wrong_document(finding, root) {
                skipped.push(skip(finding, reason));
                continue;
            }
            let mut trial = actions.clone();
            trial.extend(fix.actions.iter().cloned());
            match editable.plan(root, &trial) {
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
                            object: super::units::edited_object(finding, root),
                            fields: fix.actions.iter().flat_map(Action::fields).collect(),
                        },
                        identity(finding),
                    ));
                }
                Err(reason) => skipped.push(skip(finding, reason.to_string())),
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
                            reason: reason.to_string(),
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

/// The object of a file whose fixes are accepted or refused together.
type Unit = (Arc<str>, Option<ObjectRef>);

fn unit_of(id: &Identity) -> Unit {
    (Arc::clone(&id.0), id.2.clone())
}

/// What a check of the fixed files says about one file's pass.
struct Verdict {
    /// Objects whose fixes must be undone, with the reason.
    failed: HashMap<Unit, String>,
}

/// What the re-check of a pass may show without failing the fixes that made it show.
struct Accepted<'a> {
    /// Findings this run fixes in turn.
    fixed_next: &'a HashSet<Identity>,
    /// Findings that are not errors, of a rule this run already reports: revealing one on an
    /// object whose fixes are all safe tells nothing new and refuses nothing.
    revealed: &'a HashSet<Identity>,
}

/// Why the fixes of an object of `file` are not acceptable: one of its targeted findings is
/// still there, or a new finding appeared that this run does not fix in turn (a VM that
/// KubeVirt refused before the fix may now be admitted, and its drift becomes visible) and
/// that is not a mere reveal by safe fixes ([`Accepted`]). A new finding on an object that had
/// no fix in this pass (or on none) fails every object of the file: its cause is not known.
fn verify(
    file: &Arc<str>,
    pass: &FilePass,
    before: &HashMap<Identity, usize>,
    after_in_file: &[(&Identity, usize)],
    after: &HashMap<Identity, usize>,
    accepted: &Accepted<'_>,
) -> Verdict {
    let units: BTreeSet<Unit> = pass.applied.iter().map(|(_, id)| unit_of(id)).collect();
    let unsafe_units: BTreeSet<Unit> = pass
        .applied
        .iter()
        .filter(|(applied, _)| applied.kind != FixKind::Safe)
        .map(|(_, id)| unit_of(id))
        .collect();
    let mut failed: HashMap<Unit, String> = HashMap::new();
    for (_, id) in &pass.applied {
        if after.contains_key(id) {
            failed
                .entry(unit_of(id))
                .or_insert_with(|| format!("after the fix, {} is still reported", where_found(id)));
        }
    }
    let mut new: BTreeMap<Option<Unit>, Vec<String>> = BTreeMap::new();
    for (id, n) in after_in_file {
        if before.get(*id).copied().unwrap_or(0) < *n && !accepted.fixed_next.contains(*id) {
            let unit = Some(unit_of(id)).filter(|u| units.contains(u));
            let revealed_by_safe_fixes = accepted.revealed.contains(*id)
                && unit.as_ref().is_some_and(|u| !unsafe_units.contains(u));
            if revealed_by_safe_fixes {
                continue;
            }
            new.entry(unit).or_default().push(where_found(id));
        }
    }
    let reason = |mut found: Vec<String>| {
        found.sort();
        format!("the fixed file would report {}", found.join(", "))
    };
    for (unit, found) in new {
        if let Some(unit) = unit {
            failed.entry(unit).or_insert_with(|| reason(found));
        } else {
            let why = reason(found);
            for unit in &units {
                failed.entry(unit.clone()).or_insert_with(|| why.clone());
            }
        }
    }
    debug_assert!(failed.keys().all(|u| u.0 == *file));
    Verdict { failed }
}

fn wanted(finding: &Finding, unsafe_fixes: bool, minor: u32) -> bool {
    let Some(fix) = &finding.fix else {
        return false;
    };
    let kind = fix_kind(finding.rule);
    (kind == FixKind::Safe || (kind == FixKind::Unsafe && unsafe_fixes)) && fix.since_minor <= minor
}

/// The findings each file's next pass fixes: all wanted ones, but only the first of an
/// object whose fixes are tried one at a time.
fn pass_findings<'r>(
    report: &'r Report,
    wanted_here: &dyn Fn(&Finding) -> bool,
    one_by_one: &HashSet<Unit>,
) -> BTreeMap<Arc<str>, Vec<&'r Finding>> {
    let mut by_file: BTreeMap<Arc<str>, Vec<&Finding>> = BTreeMap::new();
    let mut taken: HashSet<Unit> = HashSet::new();
    for finding in &report.findings {
        if !wanted_here(finding) {
            continue;
        }
        let unit = unit_of(&identity(finding));
        if one_by_one.contains(&unit) && !taken.insert(unit) {
            continue;
        }
        by_file
            .entry(Arc::clone(&finding.location.file))
            .or_default()
            .push(finding);
    }
    by_file
}

/// Works out every fix, without writing anything. Each pass applies the fixes of every
/// object at once and checks the fixed files again; an object whose fixes fail the check
/// together is undone alone and then tried one fix per pass, so that the other objects of the
/// file keep theirs. A run ends when a pass changes nothing.
pub fn plan(options: &FixOptions) -> Result<Outcome, Error> {
    let check_options = check_options_of(options)?;
    // Listed once, by the walk `check` uses: the re-checks see the same files under the same
    // names, in the same order.
    let inputs = check::inputs(&check_options)?;
    let mut report = check::run_inputs(&check_options, inputs.clone())?;
    let minor = report
        .profile
        .as_ref()
        .map_or(u32::MAX, |p| p.version.minor);
    let mut originals: BTreeMap<Arc<str>, String> = report
        .sources
        .iter()
        .filter(|(file, _)| Path::new(&**file).is_file())
        .map(|(file, text)| (Arc::clone(file), text.to_string()))
        .collect();
    super::units::add_patch_texts(&report, &mut originals);
    let mut outcome = first_outcome(&report, options.unsafe_fixes);
    outcome.checks = 1;
    let reported_rules: HashSet<&'static str> =
        report.findings.iter().map(|f| f.rule.code).collect();
    let mut current = originals.clone();
    let mut blocked: HashSet<Identity> = HashSet::new();
    // A fix on a rendered object that no single edit of its line can make right is refused
    // before any is tried.
    let fixable = |finding: &Finding| {
        wanted(finding, options.unsafe_fixes, minor) && current.contains_key(&finding.location.file)
    };
    refuse(
        super::units::refusals(&report, &fixable),
        &mut blocked,
        &mut outcome,
    );
    let shadow = super::units::Shadow::new(&inputs, &report)?;
    let recheck = Recheck::new(inputs, &originals, shadow);
    // Objects whose fixes are tried one at a time.
    let mut one_by_one: HashSet<Unit> = HashSet::new();
    let mut finished = false;
    for _ in 0..MAX_PASSES {
        let wanted_here = |finding: &Finding| {
            wanted(finding, options.unsafe_fixes, minor)
                && current.contains_key(&finding.location.file)
                && !blocked.contains(&identity(finding))
        };
        let by_file = pass_findings(&report, &wanted_here, &one_by_one);
        // Lines of this pass's texts, reported as the lines of the files as they were read.
        let mut line_maps: HashMap<Arc<str>, LineMap> = HashMap::new();
        let mut original_line = |file: &Arc<str>, line: u32| {
            original_line_of(&originals, &current, &mut line_maps, file, line)
        };
        let mut trial = current.clone();
        let mut judged = Judged::new(&mut outcome, &mut blocked, &mut one_by_one);
        let (passes, newly_blocked) =
            judged.try_files(&by_file, &current, &mut trial, &mut original_line);
        if passes.is_empty() {
            // A refusal may leave the next fix of an object taken one at a time.
            if newly_blocked && !one_by_one.is_empty() {
                continue;
            }
            finished = true;
            break;
        }
        let before = counts(&report.findings);
        let mut after_report = recheck.check(&check_options, &trial)?;
        outcome.checks += 1;
        let after = counts(&after_report.findings);
        let after_by_file = grouped_by_file(&after);
        let fixed_next = ids_of(&after_report, |f| {
            wanted(f, options.unsafe_fixes, minor) && !blocked.contains(&identity(f))
        });
        let revealed = ids_of(&after_report, |f| {
            f.severity != Severity::Error && reported_rules.contains(f.rule.code)
        });
        let mut undone = false;
        for (file, (pass, findings)) in &passes {
            let in_file = after_by_file.get(file).map_or(&[][..], Vec::as_slice);
            let accepted = Accepted {
                fixed_next: &fixed_next,
                revealed: &revealed,
            };
            let verdict = verify(file, pass, &before, in_file, &after, &accepted);
            let mut judged = Judged::new(&mut outcome, &mut blocked, &mut one_by_one);
            judged.record(pass, &verdict, &mut |line| original_line(file, line));
            if !verdict.failed.is_empty() {
                undone = true;
                let kept: Vec<&Finding> = findings
                    .iter()
                    .copied()
                    .filter(|f| !verdict.failed.contains_key(&unit_of(&identity(f))))
                    .collect();
                trial.insert(Arc::clone(file), fix_file(&current[file], &kept).text);
            }
        }
        if undone {
            after_report = recheck.check(&check_options, &trial)?;
            outcome.checks += 1;
        }
        current = trial;
        report = after_report;
    }
    if !finished {
        let left = report.findings.iter().filter(|finding| {
            wanted(finding, options.unsafe_fixes, minor)
                && current.contains_key(&finding.location.file)
                && !blocked.contains(&identity(finding))
        });
        outcome
            .skipped
            .extend(not_tried(left, &originals, &current));
    }
    outcome.changes = changes(originals, current);
    outcome.skipped.sort_by(|a, b| {
        (&a.file, a.line, a.rule.code, &a.reason).cmp(&(&b.file, b.line, b.rule.code, &b.reason))
    });
    outcome.skipped.dedup();
    Ok(outcome)
}

/// The options of every check of a run: with the sources kept and the fixes built, and the
/// configuration loaded once, so that every check uses the same one and a problem with it (a
/// refused `.kvlint.yaml`) is reported as `check` reports it.
fn check_options_of(options: &FixOptions) -> Result<Options, Error> {
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
    let config = crate::config::load(&check_options.config, &check_options.selection.paths[0])?;
    check_options.config = ConfigChoice::Loaded(Arc::new(config));
    check_options.keep_sources = true;
    check_options.with_fixes = true;
    Ok(check_options)
}

/// The outcome before any fix: the configuration's problems, and how many unsafe fixes the
/// run leaves without `--unsafe-fixes`.
fn first_outcome(report: &Report, unsafe_fixes: bool) -> Outcome {
    Outcome {
        unsafe_available: if unsafe_fixes {
            0
        } else {
            report
                .findings
                .iter()
                .filter(|f| f.fix.is_some() && fix_kind(f.rule) == FixKind::Unsafe)
                .count()
        },
        configuration: report
            .findings
            .iter()
            .filter(|f| f.rule == &rules::INVALID_CONFIG)
            .cloned()
            .collect(),
        ..Outcome::default()
    }
}

/// Refuses the fixes of `refusals` before any is tried.
fn refuse<'r>(
    refusals: impl IntoIterator<Item = (&'r Finding, String)>,
    blocked: &mut HashSet<Identity>,
    outcome: &mut Outcome,
) {
    for (finding, reason) in refusals {
        blocked.insert(identity(finding));
        outcome.skipped.push(Skipped {
            file: Arc::clone(&finding.location.file),
            line: finding.location.span.start.line,
            rule: finding.rule,
            reason,
        });
    }
}

/// The identities of the findings of `report` that `keep` keeps.
fn ids_of(report: &Report, keep: impl Fn(&Finding) -> bool) -> HashSet<Identity> {
    report
        .findings
        .iter()
        .filter(|finding| keep(finding))
        .map(identity)
        .collect()
}

/// The counts of findings by identity, grouped by file, in identity order.
fn grouped_by_file(
    counts: &HashMap<Identity, usize>,
) -> HashMap<&Arc<str>, Vec<(&Identity, usize)>> {
    let mut grouped: HashMap<&Arc<str>, Vec<(&Identity, usize)>> = HashMap::new();
    let mut ids: Vec<(&Identity, usize)> = counts.iter().map(|(id, n)| (id, *n)).collect();
    ids.sort_unstable();
    for (id, n) in ids {
        grouped.entry(&id.0).or_default().push((id, n));
    }
    grouped
}

/// The files a pass changes, with their pass and the findings it fixes.
type Passes<'f> = BTreeMap<Arc<str>, (FilePass, &'f Vec<&'f Finding>)>;

/// What a run keeps of a file's pass once it is verified.
struct Judged<'a> {
    outcome: &'a mut Outcome,
    blocked: &'a mut HashSet<Identity>,
    one_by_one: &'a mut HashSet<Unit>,
}

impl<'a> Judged<'a> {
    fn new(
        outcome: &'a mut Outcome,
        blocked: &'a mut HashSet<Identity>,
        one_by_one: &'a mut HashSet<Unit>,
    ) -> Self {
        Self {
            outcome,
            blocked,
            one_by_one,
        }
    }

    /// Tries the fixes of each file of `by_file` on its text in `current`; the files they
    /// change get their new text in `trial` and are returned with their pass. Also returns
    /// whether a fix was refused that was not before.
    fn try_files<'f>(
        &mut self,
        by_file: &'f BTreeMap<Arc<str>, Vec<&'f Finding>>,
        current: &BTreeMap<Arc<str>, String>,
        trial: &mut BTreeMap<Arc<str>, String>,
        original_line: &mut dyn FnMut(&Arc<str>, u32) -> u32,
    ) -> (Passes<'f>, bool) {
        let mut passes = BTreeMap::new();
        let mut newly_blocked = false;
        for (file, findings) in by_file {
            let pass = fix_file(&current[file], findings);
            for (skipped, id) in &pass.skipped {
                newly_blocked |= self.blocked.insert(id.clone());
                self.outcome.skipped.push(Skipped {
                    line: original_line(file, skipped.line),
                    ..skipped.clone()
                });
            }
            if pass.text != current[file] {
                trial.insert(Arc::clone(file), pass.text.clone());
                passes.insert(Arc::clone(file), (pass, findings));
            }
        }
        (passes, newly_blocked)
    }

    /// Keeps the fixes of the objects that passed; an object that failed with several fixes
    /// is tried one fix at a time, one that failed with one fix has it refused.
    /// `original_line` maps a line of the pass's text to the file as it was read.
    fn record(
        &mut self,
        pass: &FilePass,
        verdict: &Verdict,
        original_line: &mut dyn FnMut(u32) -> u32,
    ) {
        let mut fixes_of: HashMap<Unit, usize> = HashMap::new();
        for (_, id) in &pass.applied {
            *fixes_of.entry(unit_of(id)).or_default() += 1;
        }
        for (applied, id) in &pass.applied {
            let unit = unit_of(id);
            let line = original_line(applied.line);
            match verdict.failed.get(&unit) {
                None => self.outcome.applied.push(Applied {
                    line,
                    ..applied.clone()
                }),
                Some(_) if fixes_of[&unit] > 1 => {
                    self.one_by_one.insert(unit);
                }
                Some(reason) => {
                    self.blocked.insert(id.clone());
                    self.outcome.skipped.push(Skipped {
                        file: Arc::clone(&applied.file),
                        line,
                        rule: applied.rule,
                        reason: reason.clone(),
                    });
                }
            }
        }
    }
}

/// The findings left when a run stops after its last pass, as skipped: never a silent
/// partial run.
fn not_tried<'f>(
    left: impl Iterator<Item = &'f Finding>,
    originals: &BTreeMap<Arc<str>, String>,
    current: &BTreeMap<Arc<str>, String>,
) -> Vec<Skipped> {
    let mut line_maps: HashMap<Arc<str>, LineMap> = HashMap::new();
    left.map(|finding| Skipped {
        file: Arc::clone(&finding.location.file),
        line: original_line_of(
            originals,
            current,
            &mut line_maps,
            &finding.location.file,
            finding.location.span.start.line,
        ),
        rule: finding.rule,
        reason: format!(
            "not tried: kvlint fix stops after {MAX_PASSES} passes over the files; run it again"
        ),
    })
    .collect()
}

/// The files a run changed, with their text before and after.
fn changes(
    originals: BTreeMap<Arc<str>, String>,
    mut current: BTreeMap<Arc<str>, String>,
) -> Vec<FileChange> {
    originals
        .into_iter()
        .filter_map(|(file, before)| {
            let after = current.remove(&file)?;
            (after != before).then_some(FileChange {
                file,
                before,
                after,
            })
        })
        .collect()
}

/// `line` of `file` as it stands in `current`, as the line of the file as it was read.
fn original_line_of(
    originals: &BTreeMap<Arc<str>, String>,
    current: &BTreeMap<Arc<str>, String>,
    maps: &mut HashMap<Arc<str>, LineMap>,
    file: &Arc<str>,
    line: u32,
) -> u32 {
    let (Some(original), Some(now)) = (originals.get(file), current.get(file)) else {
        return line;
    };
    if original == now {
        return line;
    }
    maps.entry(Arc::clone(file))
        .or_insert_with(|| LineMap::new(original, now))
        .original(line)
}

#[cfg(test)]
mod tests;
