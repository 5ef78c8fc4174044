use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::diag::Location;

fn vm(name: &str) -> ObjectRef {
    ObjectRef {
        api_version: "kubevirt.io/v1".to_owned(),
        kind: "VirtualMachine".to_owned(),
        namespace: None,
        name: name.to_owned(),
    }
}

fn path(text: &str) -> FieldPath {
    FieldPath::parse(text)
}

/// A finding of `rule` at `line` of `file` about `field` of the VM `name`, fixed by removing it.
fn finding(rule: &'static Rule, file: &str, line: u32, name: &str, field: &str) -> Finding {
    let mut finding = Finding::new(
        rule,
        Location::lines(Arc::from(file), (line, 3), (line, 20)),
        "message",
    )
    .with_object(Some(vm(name)));
    finding.path = Some(field.to_owned());
    finding.fix = Some(crate::diag::fix::remove(&path(field)));
    finding
}

fn running(file: &str, line: u32, name: &str) -> Finding {
    finding(&rules::DEPRECATED_RUNNING, file, line, name, "spec.running")
}

fn uuid(file: &str, line: u32, name: &str) -> Finding {
    let field = "spec.template.spec.domain.firmware.uuid";
    finding(&rules::FIRMWARE_IDENTITY_GENERATED, file, line, name, field)
}

#[test]
fn a_fix_names_the_fields_it_changes_and_a_rename_both_keys() {
    let field = path("spec.running");
    assert_eq!(Action::Remove(field.clone()).fields(), vec![field.clone()]);
    assert_eq!(
        Action::Set(field.clone(), json!("Always")).fields(),
        vec![field.clone()]
    );
    let rename = Action::Rename {
        path: field.clone(),
        key: "runStrategy".to_owned(),
        value: json!("Always"),
    };
    assert_eq!(rename.fields(), [field, path("spec.runStrategy")]);
}

#[test]
fn safe_fixes_are_wanted_and_unsafe_ones_only_when_asked_for_and_each_from_its_release() {
    let safe = running("vm.yaml", 6, "web");
    let unsafe_fix = uuid("vm.yaml", 9, "web");
    assert!(wanted(&safe, false, 5));
    assert!(!wanted(&unsafe_fix, false, 5));
    assert!(wanted(&unsafe_fix, true, 5));
    let mut from_v1_5 = safe.clone();
    from_v1_5.fix.as_mut().unwrap().since_minor = 5;
    assert!(wanted(&from_v1_5, false, 5));
    assert!(!wanted(&from_v1_5, false, 4));
    let mut without_fix = safe.clone();
    without_fix.fix = None;
    assert!(!wanted(&without_fix, true, 5));
    // A rule without a fix kind is never fixed, even if its finding carries a fix.
    let mut no_kind = safe;
    no_kind.rule = &rules::YAML_SYNTAX;
    assert!(!wanted(&no_kind, true, 5));
}

#[test]
fn an_object_fixed_one_fix_at_a_time_takes_its_first_wanted_finding_per_pass() {
    let report = Report {
        findings: vec![
            running("a.yaml", 6, "web"),
            uuid("a.yaml", 9, "web"),
            running("a.yaml", 16, "db"),
            uuid("a.yaml", 19, "db"),
            running("b.yaml", 6, "cache"),
        ],
        ..Report::default()
    };
    let safe = |f: &Finding| wanted(f, false, u32::MAX);
    let one_by_one: HashSet<Unit> = HashSet::from([(Arc::from("a.yaml"), Some(vm("db")))]);
    let lines = |by_file: &BTreeMap<Arc<str>, Vec<&Finding>>| -> Vec<(String, Vec<u32>)> {
        by_file
            .iter()
            .map(|(file, findings)| {
                let lines = findings.iter().map(|f| f.location.span.start.line);
                (file.to_string(), lines.collect())
            })
            .collect()
    };
    assert_eq!(
        lines(&pass_findings(&report, &safe, &HashSet::new())),
        [
            ("a.yaml".to_owned(), vec![6, 16]),
            ("b.yaml".to_owned(), vec![6])
        ]
    );
    let every = |_: &Finding| true;
    assert_eq!(
        lines(&pass_findings(&report, &every, &one_by_one)),
        [
            ("a.yaml".to_owned(), vec![6, 9, 16]),
            ("b.yaml".to_owned(), vec![6])
        ]
    );
}

#[test]
fn the_first_outcome_counts_the_unsafe_fixes_left_and_keeps_configuration_problems() {
    let mut unfixable = uuid("vm.yaml", 12, "web");
    unfixable.fix = None;
    let config = Finding::new(
        &rules::INVALID_CONFIG,
        Location::lines(Arc::from(".kvlint.yaml"), (1, 1), (1, 5)),
        "unknown key",
    );
    let report = Report {
        findings: vec![
            running("vm.yaml", 6, "web"),
            uuid("vm.yaml", 9, "web"),
            running("vm.yaml", 16, "db"),
            unfixable,
            config.clone(),
        ],
        ..Report::default()
    };
    let outcome = first_outcome(&report, false);
    assert_eq!(outcome.unsafe_available, 1);
    assert_eq!(outcome.configuration, [config]);
    assert_eq!(first_outcome(&report, true).unsafe_available, 0);
}

fn id(finding: &Finding) -> Identity {
    identity(finding)
}

/// The pass that applied `findings`' fixes, as `fix_file` records it.
fn pass_of(findings: &[&Finding]) -> FilePass {
    FilePass {
        text: String::new(),
        applied: findings
            .iter()
            .map(|f| {
                let applied = Applied {
                    file: Arc::clone(&f.location.file),
                    line: f.location.span.start.line,
                    rule: f.rule,
                    kind: fix_kind(f.rule),
                    description: String::new(),
                    object: f.object.clone(),
                    fields: Vec::new(),
                };
                (applied, id(f))
            })
            .collect(),
        skipped: Vec::new(),
    }
}

/// The reasons `verify` gives, by VM name, for a pass that fixed `fixed` in `vm.yaml`, whose
/// file reported `before` and reports `after` once fixed.
fn failures(
    fixed: &[&Finding],
    before: &[Finding],
    after: &[Finding],
    fixed_next: &HashSet<Identity>,
    revealed: &HashSet<Identity>,
) -> BTreeMap<String, String> {
    let file: Arc<str> = Arc::from("vm.yaml");
    let after_counts = counts(after);
    let grouped = grouped_by_file(&after_counts);
    let in_file = grouped.get(&file).map_or(&[][..], Vec::as_slice);
    let accepted = Accepted {
        fixed_next,
        revealed,
    };
    let verdict = verify(
        &file,
        &pass_of(fixed),
        &counts(before),
        in_file,
        &after_counts,
        &accepted,
    );
    verdict
        .failed
        .into_iter()
        .map(|(unit, reason)| (unit.1.unwrap().name, reason))
        .collect()
}

#[test]
fn a_fix_whose_finding_is_still_reported_fails_its_object_only() {
    let (web, db) = (running("vm.yaml", 6, "web"), running("vm.yaml", 16, "db"));
    let none = HashSet::new();
    let failed = failures(
        &[&web, &db],
        &[web.clone(), db.clone()],
        std::slice::from_ref(&web),
        &none,
        &none,
    );
    assert_eq!(
        failed,
        BTreeMap::from([(
            "web".to_owned(),
            "after the fix, KV0016 at `spec.running` is still reported".to_owned()
        )])
    );
    assert_eq!(
        failures(&[&web, &db], &[web.clone(), db.clone()], &[], &none, &none),
        BTreeMap::new()
    );
}

#[test]
fn a_new_finding_fails_the_fix_unless_this_run_fixes_it_next_or_safe_fixes_revealed_it() {
    let web = running("vm.yaml", 6, "web");
    let revealed = finding(
        &rules::MACHINE_TYPE_DEFAULTED,
        "vm.yaml",
        8,
        "web",
        "spec.template.spec.domain.machine.type",
    );
    let none = HashSet::new();
    let expected = BTreeMap::from([(
        "web".to_owned(),
        "the fixed file would report KV3003 at `spec.template.spec.domain.machine.type`".to_owned(),
    )]);
    let after = [revealed.clone()];
    assert_eq!(
        failures(&[&web], std::slice::from_ref(&web), &after, &none, &none),
        expected
    );
    // Reported as often as before: not new.
    let before = [web.clone(), revealed.clone()];
    assert_eq!(
        failures(&[&web], &before, &after, &none, &none),
        BTreeMap::new()
    );
    // Once more than before: new.
    let twice = [revealed.clone(), revealed.clone()];
    assert_eq!(failures(&[&web], &before, &twice, &none, &none), expected);

    let ids = HashSet::from([id(&revealed)]);
    assert_eq!(
        failures(&[&web], std::slice::from_ref(&web), &after, &ids, &none),
        BTreeMap::new()
    );
    assert_eq!(
        failures(&[&web], std::slice::from_ref(&web), &after, &none, &ids),
        BTreeMap::new()
    );
    // Revealed on an object with an unsafe fix: the unsafe fix may be its cause.
    let pinned = uuid("vm.yaml", 9, "web");
    assert_eq!(
        failures(
            &[&web, &pinned],
            &[web.clone(), pinned.clone()],
            &after,
            &none,
            &ids
        ),
        expected
    );
}

#[test]
fn a_new_finding_on_an_object_without_fixes_fails_every_object_of_the_file() {
    let (web, db) = (running("vm.yaml", 6, "web"), running("vm.yaml", 16, "db"));
    let elsewhere = running("vm.yaml", 26, "cache");
    let none = HashSet::new();
    let failed = failures(
        &[&web, &db],
        &[web.clone(), db.clone()],
        &[elsewhere],
        &none,
        &none,
    );
    let why = "the fixed file would report KV0016 at `spec.running`".to_owned();
    assert_eq!(
        failed,
        BTreeMap::from([("db".to_owned(), why.clone()), ("web".to_owned(), why)])
    );
    // A new finding in another file is that file's business.
    let other_file = running("other.yaml", 6, "cache");
    assert_eq!(
        failures(
            &[&web],
            std::slice::from_ref(&web),
            &[other_file],
            &none,
            &none
        ),
        BTreeMap::new()
    );
}

#[test]
fn a_failed_object_is_retried_fix_by_fix_and_a_failed_single_fix_is_refused() {
    let (web, db_running, db_uuid, cache) = (
        running("vm.yaml", 6, "web"),
        running("vm.yaml", 16, "db"),
        uuid("vm.yaml", 19, "db"),
        running("vm.yaml", 26, "cache"),
    );
    let pass = pass_of(&[&web, &db_running, &db_uuid, &cache]);
    let unit = |name: &str| (Arc::from("vm.yaml"), Some(vm(name)));
    let verdict = Verdict {
        failed: HashMap::from([
            (unit("db"), "db failed".to_owned()),
            (unit("cache"), "cache failed".to_owned()),
        ]),
    };
    let mut outcome = Outcome::default();
    let mut blocked = HashSet::new();
    let mut one_by_one = HashSet::new();
    Judged::new(&mut outcome, &mut blocked, &mut one_by_one)
        .record(&pass, &verdict, &mut |line| line + 100);
    let applied: Vec<(u32, &str)> = outcome
        .applied
        .iter()
        .map(|a| (a.line, a.object.as_ref().unwrap().name.as_str()))
        .collect();
    assert_eq!(applied, [(106, "web")]);
    assert_eq!(one_by_one, HashSet::from([unit("db")]));
    assert_eq!(blocked, HashSet::from([id(&cache)]));
    assert_eq!(
        outcome.skipped,
        [Skipped {
            file: Arc::from("vm.yaml"),
            line: 126,
            rule: &rules::DEPRECATED_RUNNING,
            reason: "cache failed".to_owned(),
        }]
    );
}

const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  running: true
";

#[test]
fn a_pass_keeps_the_files_its_fixes_change_and_reports_refused_fixes_at_their_first_lines() {
    let fixed = running("vm.yaml", 6, "web");
    let mut refused = running("patch.yaml", 2, "web");
    refused.unit = Some(Arc::new(crate::diag::UnitRef {
        kind: crate::diag::UnitKind::Kustomize,
        path: "dev".to_owned(),
        via: None,
    }));
    let current = BTreeMap::from([
        (Arc::from("vm.yaml"), VM.to_owned()),
        (
            Arc::from("patch.yaml"),
            "kind: Kustomization\nresources: []\n".to_owned(),
        ),
    ]);
    let by_file = BTreeMap::from([
        (Arc::from("vm.yaml"), vec![&fixed]),
        (Arc::from("patch.yaml"), vec![&refused]),
    ]);
    let mut trial = current.clone();
    let mut outcome = Outcome::default();
    let mut blocked = HashSet::new();
    let mut one_by_one = HashSet::new();
    let mut judged = Judged::new(&mut outcome, &mut blocked, &mut one_by_one);
    let (passes, newly_blocked) =
        judged.try_files(&by_file, &current, &mut trial, &mut |_, line| line + 10);
    assert!(newly_blocked);
    assert_eq!(passes.keys().map(|f| &**f).collect::<Vec<_>>(), ["vm.yaml"]);
    assert_eq!(
        trial["vm.yaml"],
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: web\n"
    );
    assert_eq!(trial["patch.yaml"], current["patch.yaml"]);
    let skipped: Vec<(&str, u32)> = outcome.skipped.iter().map(|s| (&*s.file, s.line)).collect();
    assert_eq!(skipped, [("patch.yaml", 12)]);
    assert_eq!(blocked, HashSet::from([id(&refused)]));

    // Refused again: nothing newly blocked.
    let mut judged = Judged::new(&mut outcome, &mut blocked, &mut one_by_one);
    let refused_only = BTreeMap::from([(Arc::from("patch.yaml"), vec![&refused])]);
    let (passes, newly_blocked) =
        judged.try_files(&refused_only, &current, &mut trial, &mut |_, line| line);
    assert!(passes.is_empty());
    assert!(!newly_blocked);
}

#[test]
fn only_files_whose_text_changed_are_reported_as_changed() {
    let originals = BTreeMap::from([
        (Arc::from("a.yaml"), "a: 1\n".to_owned()),
        (Arc::from("b.yaml"), "b: 1\n".to_owned()),
        (Arc::from("c.yaml"), "c: 1\n".to_owned()),
    ]);
    let current = BTreeMap::from([
        (Arc::from("a.yaml"), "a: 1\n".to_owned()),
        (Arc::from("b.yaml"), "b: 2\n".to_owned()),
    ]);
    let changed: Vec<(String, String, String)> = changes(originals, current)
        .into_iter()
        .map(|c| (c.file.to_string(), c.before, c.after))
        .collect();
    assert_eq!(
        changed,
        [(
            "b.yaml".to_owned(),
            "b: 1\n".to_owned(),
            "b: 2\n".to_owned()
        )]
    );
}

#[test]
fn a_line_of_an_edited_file_is_reported_as_the_line_it_was_read_at() {
    let originals = BTreeMap::from([
        (Arc::from("a.yaml"), "a: 1\nb: 1\nc: 1\n".to_owned()),
        (Arc::from("b.yaml"), "x: 1\ny: 1\n".to_owned()),
    ]);
    let current = BTreeMap::from([
        (Arc::from("a.yaml"), "c: 1\n".to_owned()),
        (Arc::from("b.yaml"), "x: 1\ny: 1\n".to_owned()),
    ]);
    let mut maps = HashMap::new();
    let mut line = |file: &str, line| {
        original_line_of(&originals, &current, &mut maps, &Arc::from(file), line)
    };
    assert_eq!(line("a.yaml", 1), 3);
    assert_eq!(line("b.yaml", 2), 2);
    assert_eq!(line("c.yaml", 7), 7);
}

#[test]
fn fix_refuses_standard_input_and_keeps_sources_and_fixes() {
    let refused = "kvlint fix edits files in place; it does not read standard input";
    let mut options = FixOptions::default();
    options.check.selection.paths = vec![PathBuf::from("-")];
    let err = check_options_of(&options).unwrap_err();
    assert_eq!(err.to_string(), refused);
    let mut options = FixOptions::default();
    options.check.selection.stdin_filename = Some("vm.yaml".into());
    let dir = tempfile::tempdir().unwrap();
    options.check.selection.paths = vec![dir.path().to_path_buf()];
    assert_eq!(check_options_of(&options).unwrap_err().to_string(), refused);
    options.check.selection.stdin_filename = None;
    let checked = check_options_of(&options).unwrap();
    assert!(checked.keep_sources && checked.with_fixes);
    assert!(matches!(checked.config, ConfigChoice::Loaded(_)));
}

#[test]
fn a_refused_fix_is_blocked_and_listed_with_its_reason() {
    let shared = running("base/vm.yaml", 6, "web");
    let mut blocked = HashSet::new();
    let mut outcome = Outcome::default();
    refuse(
        [(&shared, "set it in each overlay".to_owned())],
        &mut blocked,
        &mut outcome,
    );
    assert_eq!(blocked, HashSet::from([id(&shared)]));
    assert_eq!(
        outcome.skipped,
        [Skipped {
            file: Arc::from("base/vm.yaml"),
            line: 6,
            rule: &rules::DEPRECATED_RUNNING,
            reason: "set it in each overlay".to_owned(),
        }]
    );
}

#[test]
fn the_identities_of_the_findings_a_recheck_keeps_are_collected() {
    let (web, db) = (running("vm.yaml", 6, "web"), uuid("vm.yaml", 9, "db"));
    let report = Report {
        findings: vec![web.clone(), db.clone(), web.clone()],
        ..Report::default()
    };
    let safe = ids_of(&report, |f| wanted(f, false, u32::MAX));
    assert_eq!(safe, HashSet::from([id(&web)]));
    assert_eq!(
        ids_of(&report, |_| true),
        HashSet::from([id(&web), id(&db)])
    );
    assert_eq!(ids_of(&report, |_| false), HashSet::new());
}

#[test]
fn findings_left_after_the_last_pass_are_listed_as_not_tried_at_their_first_lines() {
    let left = running("vm.yaml", 1, "web");
    let originals = BTreeMap::from([(Arc::from("vm.yaml"), "a: 1\nb: 1\nc: 1\n".to_owned())]);
    let current = BTreeMap::from([(Arc::from("vm.yaml"), "c: 1\nd: 1\n".to_owned())]);
    assert_eq!(
        not_tried([&left].into_iter(), &originals, &current),
        [Skipped {
            file: Arc::from("vm.yaml"),
            line: 3,
            rule: &rules::DEPRECATED_RUNNING,
            reason: "not tried: kvlint fix stops after 64 passes over the files; run it again"
                .to_owned(),
        }]
    );
}

/// `plan` over the one file `vm.yaml` holding `text`, without the unsafe fixes.
fn plan_of(text: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("vm.yaml");
    std::fs::write(&file, text).unwrap();
    let mut options = FixOptions::default();
    options.check.selection.paths = vec![file];
    options.check.config = ConfigChoice::None;
    options.check.catalog = Some(crate::config::CatalogChoice::None);
    options.check.units.off = true;
    plan(&options).unwrap()
}

/// `(line, rule)` of each fix made.
fn applied_lines(outcome: &Outcome) -> Vec<(u32, &str)> {
    outcome
        .applied
        .iter()
        .map(|a| (a.line, a.rule.code))
        .collect()
}

/// `(line, rule, reason)` of each fix left.
fn skipped_lines(outcome: &Outcome) -> Vec<(u32, &str, &str)> {
    outcome
        .skipped
        .iter()
        .map(|s| (s.line, s.rule.code, s.reason.as_str()))
        .collect()
}

/// `web`'s fixes fail together: removing its `resourceVersion` (a `yes` the document's
/// suppression of KV0003 is for) leaves that suppression unused. One at a time, that fix is
/// refused, dropping `inferFromVolume` lets KubeVirt admit the VM and so write a machine type
/// at `domain: *domain`, an alias the edit planner does not edit, and the status is removed.
const TRIED_ONE_BY_ONE: &str = "apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: it
spec:
  cpu:
    guest: 2
  memory:
    guest: 2Gi
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: root
  labels:
    instancetype.kubevirt.io/default-instancetype: it
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
# kvlint: ignore[KV0003] the resource version is exported as it was
apiVersion: v1
kind: List
items:
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: base
  spec:
    runStrategy: Halted
    instancetype:
      name: it
    template:
      metadata:
        annotations:
          kubevirt.io/pci-topology-version: v3
      spec:
        architecture: amd64
        domain: &domain
          firmware:
            serial: 7d1c0a52-1e5b-4b61-9c34-2a0f6f3a9b11
            uuid: 3f1b0c52-7a4e-4d2b-9a51-0d6c2f8e9b10
          devices: {}
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: web
    resourceVersion: yes
  spec:
    runStrategy: Halted
    instancetype:
      inferFromVolume: root
      name: it
    template:
      metadata:
        annotations:
          kubevirt.io/pci-topology-version: v3
      spec:
        architecture: amd64
        domain: *domain
        volumes:
        - name: root
          persistentVolumeClaim:
            claimName: root
  status:
    printableStatus: Stopped
";

#[test]
fn a_fix_the_edit_planner_refuses_does_not_end_the_fixes_of_an_object_tried_one_by_one() {
    let outcome = plan_of(TRIED_ONE_BY_ONE);
    // The pass that tries only the machine type changes nothing; the run goes on to the status.
    assert_eq!(applied_lines(&outcome), [(53, "KV4005"), (67, "KV4002")]);
    assert_eq!(
        skipped_lines(&outcome),
        [
            (
                41,
                "KV3003",
                "`spec.template.spec.domain` is inside an anchor that is used elsewhere (edit it by hand)"
            ),
            (
                50,
                "KV4003",
                "the fixed file would report KV0017 (unused-suppression)"
            ),
            (
                62,
                "KV3003",
                "`spec.template.spec.domain` comes from an alias (edit the anchor by hand)"
            ),
        ]
    );
    let after = &outcome.changes[0].after;
    assert!(!after.contains("status:") && after.contains("resourceVersion: yes"));
}

/// A VM whose fixes fail together (as in `TRIED_ONE_BY_ONE`, through its `resourceVersion`) and
/// are then tried one per pass: a fix of each volume's capacity (`1024Mi`, stored as `1Gi`),
/// more than a run has passes. Its firmware identity is an unsafe fix, not wanted here.
fn vm_with_fixes(volumes: usize) -> String {
    let mut out = String::from(
        "# kvlint: ignore[KV0003] the resource version is exported as it was
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
  resourceVersion: yes
spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        memory:
          guest: 1Gi
        devices: {}
      volumes:
",
    );
    for i in 0..volumes {
        let _ = write!(
            out,
            "      - name: d{i}\n        emptyDisk:\n          capacity: 1024Mi\n"
        );
    }
    out
}

#[test]
fn a_run_that_stops_after_its_last_pass_lists_the_fixes_it_did_not_try() {
    const VOLUMES: usize = 66;
    let outcome = plan_of(&vm_with_fixes(VOLUMES));
    // The first pass tries every fix at once; each later pass one: the resourceVersion's
    // (refused), the three webhook defaults (the template's annotation, architecture and
    // machine type), then the capacities of the volumes (line 18 + 3 × the volume's index),
    // until the last pass.
    let tried_alone = MAX_PASSES - 1;
    let capacities_tried = tried_alone - 4;
    let capacity_line = |i: usize| u32::try_from(18 + 3 * i).unwrap();
    let mut expected_applied = vec![(9, "KV3007"), (10, "KV3004"), (11, "KV3003")];
    expected_applied.extend((0..capacities_tried).map(|i| (capacity_line(i), "KV3008")));
    assert_eq!(applied_lines(&outcome), expected_applied);
    let not_tried = "not tried: kvlint fix stops after 64 passes over the files; run it again";
    let mut expected = vec![(
        6,
        "KV4003",
        "the fixed file would report KV0017 (unused-suppression)",
    )];
    expected.extend((capacities_tried..VOLUMES).map(|i| (capacity_line(i), "KV3008", not_tried)));
    assert_eq!(skipped_lines(&outcome), expected);
}
