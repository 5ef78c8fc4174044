use std::io::{IsTerminal, Write};

// Loading a repository allocates many small strings and maps; mimalloc makes that markedly
// cheaper than the system allocator (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

use kvlint::check::{self, Options, Report};
use kvlint::cli::{
    CheckArgs, Cli, ColorChoice, Command, DiffArgs, DiffFormat, DocFormat, ExplainArgs, FailOn,
    FixArgs, IgnoreFormat, InputArgs, RenderArgs, SelectArgs, UnitsMode,
};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::commands::diff::revision;
use kvlint::commands::diff::{self, Inputs};
use kvlint::commands::scope::{self, Scope};
use kvlint::config::ConfigChoice;
use kvlint::diag::Severity;
use kvlint::error::Error;
use kvlint::output::{self, CheckFormat, RenderFormat};
use kvlint::sanitize::{stop_commands, terminal};
use kvlint::source::Selection;

fn options(input: &InputArgs, keep_sources: bool) -> Result<Options, Error> {
    Ok(Options {
        selection: Selection {
            paths: input.paths.clone(),
            include: input.include.clone(),
            exclude: input.exclude.clone(),
            stdin_filename: input.stdin_filename.clone(),
        },
        default_namespace: input.namespace.clone(),
        version: input
            .kubevirt_version
            .as_deref()
            .map(KubeVirtVersion::parse_release)
            .transpose()
            .map_err(|err| Error::Usage(err.to_string()))?
            .map(|(version, _)| version),
        catalog: input
            .catalog
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(Error::Usage)?,
        config: if input.no_config {
            ConfigChoice::None
        } else {
            input
                .config
                .clone()
                .map_or(ConfigChoice::Discover, ConfigChoice::File)
        },
        baseline: None,
        keep_sources,
        schema_locations: input.schema_locations.clone(),
        skip_rendered: false,
        with_fixes: false,
        units: kvlint::units::UnitOptions {
            off: input.units == Some(UnitsMode::Off),
            command: input.kustomize_command.clone(),
            helm_command: input.helm_command.clone(),
            timeout: input.kustomize_timeout,
            cache_dir: input.cache_dir.clone(),
            no_cache: input.no_cache,
            repository: None,
        },
        batch_files: None,
        gitops: input
            .gitops
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(Error::Usage)?,
        rule_selection: kvlint::config::select::Layer::default(),
    })
}

/// Whether the process runs in a GitHub Actions job.
fn in_github_actions() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// Prints what the user should know about how the run went.
fn warn(warnings: &[String]) {
    let mut stderr = std::io::stderr().lock();
    for warning in warnings {
        let _ = writeln!(stderr, "kvlint: warning: {}", terminal::line(warning));
    }
}

fn note(notes: &[String]) {
    let mut stderr = std::io::stderr().lock();
    for note in notes {
        let _ = writeln!(stderr, "kvlint: note: {}", terminal::line(note));
    }
}

fn fails(report: &Report, fail_on: FailOn) -> bool {
    exceeds(report.worst(), fail_on)
}

fn exceeds(worst: Option<Severity>, fail_on: FailOn) -> bool {
    let threshold = match fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Info => Severity::Info,
        FailOn::None => return false,
    };
    worst.is_some_and(|worst| worst >= threshold)
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100)
}

fn write_stdout(text: &str) -> Result<(), Error> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`kvlint check | head`) is not an error of ours.
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|err| Error::system("cannot write the report", err)),
    }
}

fn format_report(report: &Report, format: CheckFormat, color: ColorChoice) -> String {
    match format {
        CheckFormat::Human => {
            let color = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            output::human::report(report, color, terminal_width())
        }
        CheckFormat::Concise => output::human::concise(report),
        CheckFormat::Json => output::json::report(report),
        CheckFormat::Sarif => output::sarif::report(report),
        CheckFormat::Github => output::github::report(report),
        CheckFormat::Markdown => output::markdown::report(report),
        CheckFormat::Junit => output::junit::report(report),
    }
}

/// `check --format json` writes each batch of findings as soon as it is final, so that the
/// report of a large repository never sits in memory.
fn stream_json(options: &Options, args: &CheckArgs) -> Result<ExitCode, Error> {
    let stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut stream = output::json::JsonStream::new(stdout);
    let mut outcome = if args.statistics {
        let mut counting = output::statistics::Counting::new(&mut stream);
        let mut outcome = check::stream(options, &mut counting)?;
        outcome.summary.statistics = Some(counting.counts());
        outcome
    } else {
        check::stream(options, &mut stream)?
    };
    if !args.quiet {
        warn(&std::mem::take(&mut outcome.warnings));
    }
    match stream.finish(&outcome.summary) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(Error::system("cannot write the report", err));
        }
        _ => {}
    }
    Ok(if exceeds(outcome.summary.worst(), args.fail_on) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The report on standard output, with `--statistics` and `--quiet` applied.
fn check_output(report: &Report, args: &CheckArgs, format: CheckFormat) -> String {
    let text = if args.statistics && matches!(format, CheckFormat::Human | CheckFormat::Concise) {
        output::statistics::text(report)
    } else {
        format_report(report, format, args.color)
    };
    if args.quiet && matches!(format, CheckFormat::Human | CheckFormat::Concise) {
        output::statistics::without_summary(text, report)
    } else {
        text
    }
}

fn current_dir() -> Result<std::path::PathBuf, Error> {
    std::env::current_dir().map_err(|err| Error::system("cannot read the current directory", err))
}

/// With `--index`: the directories to read besides `paths` (those outside them).
fn add_index(
    index: &[std::path::PathBuf],
    paths: &mut Vec<std::path::PathBuf>,
) -> Result<(), Error> {
    if !index.is_empty() {
        *paths = scope::read_paths(index, paths, &current_dir()?);
    }
    Ok(())
}

/// With `--index`: the scope of the given paths, which the output is narrowed to.
fn index_scope(index: &[std::path::PathBuf], input: &InputArgs) -> Result<Option<Scope>, Error> {
    if index.is_empty() {
        return Ok(None);
    }
    let stdin_name = input.stdin_filename.as_deref().unwrap_or("<stdin>");
    Ok(Some(Scope::new(&input.paths, stdin_name, &current_dir()?)))
}

fn run_check(args: &CheckArgs) -> Result<ExitCode, Error> {
    let format = args.report_format(in_github_actions())?;
    if args.statistics
        && !matches!(
            format,
            CheckFormat::Human | CheckFormat::Concise | CheckFormat::Json
        )
    {
        return Err(Error::Usage(
            "--statistics needs --format human, concise or json".to_owned(),
        ));
    }
    let file_format = args.output_file.as_ref().map(|_| args.file_format());
    let human = format == CheckFormat::Human || file_format == Some(CheckFormat::Human);
    let mut options = options(&args.input, human)?;
    options.rule_selection = args.select.layer();
    options.baseline.clone_from(&args.baseline);
    // Only JUnit reports clean VMs (as passing test cases); the others need no rendered VM.
    options.skip_rendered = format != CheckFormat::Junit && file_format != Some(CheckFormat::Junit);
    add_index(&args.index, &mut options.selection.paths)?;
    let scope = index_scope(&args.index, &args.input)?;
    if scope.is_none()
        && format == CheckFormat::Json
        && args.output_file.is_none()
        && args.write_baseline.is_none()
    {
        return stream_json(&options, args);
    }
    let mut report = check::run(&options)?;
    if !args.quiet {
        warn(&report.warnings);
    }
    if let Some(scope) = &scope {
        scope::retain(&mut report, scope);
    }
    if let Some(path) = &args.write_baseline {
        kvlint::suppress::baseline::write(path, &report.findings)?;
        if args.quiet {
            return Ok(ExitCode::SUCCESS);
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(
            stderr,
            "kvlint: wrote {} findings to {}",
            report.findings.len(),
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.statistics {
        report.summary.statistics = Some(check::rule_counts(&report.findings));
    }
    write_stdout(&check_output(&report, args, format))?;
    if let (Some(path), Some(file_format)) = (&args.output_file, file_format) {
        kvlint::source::write::OutputPath::from_argument(path)?
            .write(format_report(&report, file_format, ColorChoice::Never).as_bytes())?;
    }
    if format == CheckFormat::Github {
        output::step_summary::append(&report)?;
    }
    Ok(if fails(&report, args.fail_on) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_render(args: &RenderArgs) -> Result<ExitCode, Error> {
    let mut options = options(&args.input, true)?;
    add_index(&args.index, &mut options.selection.paths)?;
    let scope = index_scope(&args.index, &args.input)?;
    let mut report = check::run(&options)?;
    warn(&report.warnings);
    if let Some(scope) = &scope {
        scope::retain(&mut report, scope);
        scope::retain_rendered(&mut report, scope);
    }
    check_vms_named(&args.vm, &report)?;
    let selected = |namespace: &str, name: &str| {
        args.vm.is_empty() || args.vm.iter().any(|v| *v == format!("{namespace}/{name}"))
    };
    let units = units_named(&args.unit, &report)?;
    let in_unit = |r: &kvlint::check::vm::Rendered| {
        units.is_empty() || r.unit.as_ref().is_some_and(|unit| units.contains(unit))
    };
    let rendered: Vec<_> = report
        .rendered
        .iter()
        .filter(|r| {
            let by_pool = r
                .pool
                .as_deref()
                .is_some_and(|pool| selected(&r.namespace, pool));
            (selected(&r.namespace, &r.name) || by_pool) && in_unit(r)
        })
        .collect();
    // VMs whose namespace and name cannot form a file name (KV0007 in `check`).
    let refused = if let Some(dir) = &args.out_dir {
        write_rendered_files(dir, &rendered, args.format)?
    } else {
        let text = kvlint::commands::render::render_output(&rendered, args.format);
        write_stdout(&text)?;
        Vec::new()
    };
    // VMs that could not be rendered: their error findings go to stderr.
    let left_out = kvlint::commands::render::unrendered_findings(&report, &selected);
    let mut stderr = std::io::stderr().lock();
    for line in &refused {
        let _ = stderr.write_all(line.as_bytes());
    }
    if left_out.findings.is_empty() {
        return Ok(if refused.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = stderr.write_all(output::human::report(&left_out, color, terminal_width()).as_bytes());
    Ok(ExitCode::from(1))
}

/// `render --vm NAMESPACE/NAME`: every name given is a VM among the checked files.
fn check_vms_named(wanted: &[String], report: &check::Report) -> Result<(), Error> {
    let is_vm = |kind: &str| matches!(kind, "VirtualMachine" | "VirtualMachinePool");
    for wanted in wanted {
        let Some((namespace, name)) = wanted.split_once('/') else {
            return Err(Error::Usage(format!(
                "--vm {wanted}: expected NAMESPACE/NAME"
            )));
        };
        let known = report.rendered.iter().any(|r| {
            r.namespace == namespace && (r.name == name || r.pool.as_deref() == Some(name))
        }) || report.findings.iter().any(|finding| {
            finding.object.as_ref().is_some_and(|object| {
                is_vm(&object.kind)
                    && object.namespace.as_deref().unwrap_or_default() == namespace
                    && object.name == name
            })
        });
        if !known {
            return Err(Error::Usage(format!(
                "--vm {wanted}: no VirtualMachine of that namespace and name among the checked files"
            )));
        }
    }
    Ok(())
}

/// `render --unit DIR`: the units given, as the report names them; each rendered a VM.
fn units_named(paths: &[PathBuf], report: &check::Report) -> Result<Vec<String>, Error> {
    let units: Vec<String> = paths
        .iter()
        .map(|path| {
            let shown = kvlint::k8s::normalise_path(path)
                .to_string_lossy()
                .replace('\\', "/");
            if shown.is_empty() {
                ".".to_owned()
            } else {
                shown
            }
        })
        .collect();
    if let Some(unknown) = units.iter().find(|unit| {
        !report
            .rendered
            .iter()
            .any(|r| r.unit.as_deref() == Some(unit.as_str()))
    }) {
        return Err(Error::Usage(format!(
            "--unit {unknown}: no VM was rendered in a unit of that directory (units are the Kustomize roots, Flux and Argo CD paths and Helm charts among the checked paths)"
        )));
    }
    Ok(units)
}

/// `render --out-dir DIR`: one file per VM; the lines to print for the VMs whose namespace and
/// name cannot form a file name.
fn write_rendered_files(
    dir: &Path,
    rendered: &[&kvlint::check::vm::Rendered],
    format: RenderFormat,
) -> Result<Vec<String>, Error> {
    std::fs::create_dir_all(dir).map_err(|err| Error::file(dir, err))?;
    let mut refused = Vec::new();
    for &vm in rendered {
        let (extension, body) = match format {
            RenderFormat::Yaml => (
                "yaml",
                kvlint::commands::render::render_output(
                    std::slice::from_ref(&vm),
                    RenderFormat::Yaml,
                ),
            ),
            RenderFormat::Json => (
                "json",
                kvlint::sanitize::json::guard_owned(format!(
                    "{}\n",
                    serde_json::to_string_pretty(&vm.value).unwrap_or_default()
                )),
            ),
        };
        match kvlint::source::write::vm_file_name(&vm.namespace, &vm.name, extension) {
            Ok(name) => {
                kvlint::source::write::OutputPath::in_dir(dir, name).write(body.as_bytes())?;
            }
            Err(reason) => refused.push(format!(
                "kvlint: {}:{}: VirtualMachine left out of --out-dir: {reason}\n",
                vm.file, vm.line
            )),
        }
    }
    Ok(refused)
}

fn run_explain(args: &ExplainArgs) -> Result<ExitCode, Error> {
    let rule = kvlint::rules::find(&args.rule).ok_or_else(|| {
        Error::Usage(format!(
            "no rule is called `{}` (see `kvlint rules`)",
            args.rule
        ))
    })?;
    write_stdout(&match args.format {
        DocFormat::Text => kvlint::rules::explain::explain_text(rule),
        DocFormat::Json => kvlint::rules::explain::explain_json(rule),
    })?;
    Ok(ExitCode::SUCCESS)
}

/// One side of `kvlint diff`: the report and the inputs of `paths` (and of the `index`
/// directories), or empty without paths.
fn diff_side(
    input: &InputArgs,
    select: &SelectArgs,
    paths: Vec<std::path::PathBuf>,
    index: &[std::path::PathBuf],
) -> Result<(Report, Inputs), Error> {
    if paths.is_empty() && index.is_empty() {
        return Ok((Report::default(), Inputs::default()));
    }
    let mut options = options(input, false)?;
    options.rule_selection = select.layer();
    options.selection.paths = paths;
    add_index(index, &mut options.selection.paths)?;
    let report = check::run(&options)?;
    warn(&report.warnings);
    Ok((report, diff::load_inputs(&options)?))
}

/// A side read from a git revision: its files carry the working tree's names.
fn tree_side(
    input: &InputArgs,
    select: &SelectArgs,
    revision: &revision::Revision,
    index: &[std::path::PathBuf],
) -> Result<(Report, Inputs), Error> {
    let mut options = options(input, false)?;
    options.rule_selection = select.layer();
    add_index(index, &mut options.selection.paths)?;
    let (report, inputs) = revision::checked::check(revision, &options)?;
    warn(&report.warnings);
    Ok((report, inputs))
}

/// How the source module names the files under a path given on the command line.
fn display_prefix(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.strip_prefix("./").unwrap_or(&text);
    match text {
        "." | "" => String::new(),
        t if path.is_dir() && !t.ends_with('/') => format!("{t}/"),
        t => t.to_owned(),
    }
}

/// A path of `diff --base` must name something on one side at least: a path deleted in the
/// working tree is a removal, a path on neither side a mistake.
fn no_path_missing_from_both(
    input: &InputArgs,
    base: &revision::Revision,
    head: Option<&revision::Revision>,
) -> Result<(), Error> {
    for path in &input.paths {
        let in_head = match head {
            Some(head) => head.has(path)?,
            None => std::fs::symlink_metadata(path).is_ok(),
        };
        if !in_head && !base.has(path)? {
            let head_name = head.map_or("the working tree", |head| head.revision());
            return Err(Error::Usage(format!(
                "{}: no such file or directory in {} or in {}",
                path.display(),
                base.revision(),
                head_name
            )));
        }
    }
    Ok(())
}

fn run_diff(args: &DiffArgs) -> Result<ExitCode, Error> {
    let input = &args.input;
    if input.stdin_filename.is_some() || input.paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(Error::Usage(
            "kvlint diff reads files and directories, not standard input".to_owned(),
        ));
    }
    // In directory mode, the base's display prefix and the head's it was renamed to.
    let mut renamed_base = None;
    let ((base, base_inputs), (head, head_inputs)) = match &args.base {
        None => {
            let [base_path, head_path] = input.paths.as_slice() else {
                return Err(Error::Usage(
                    "kvlint diff needs BASE and HEAD (two directories or files), or --base GIT_REF"
                        .to_owned(),
                ));
            };
            let (mut base, mut base_inputs) =
                diff_side(input, &args.select, vec![base_path.clone()], &[])?;
            let head = diff_side(input, &args.select, vec![head_path.clone()], &[])?;
            // The base's files take the head's names, so that findings compare across sides.
            let (from, to) = (display_prefix(base_path), display_prefix(head_path));
            diff::relabel(&mut base, &from, &to);
            base_inputs.relabel(&from, &to);
            if !from.is_empty() {
                renamed_base = Some((from, to));
            }
            ((base, base_inputs), head)
        }
        Some(base_ref) => {
            let base_revision = revision::resolve(base_ref)?;
            let head_revision = args.head.as_deref().map(revision::resolve).transpose()?;
            no_path_missing_from_both(input, &base_revision, head_revision.as_ref())?;
            let base = tree_side(input, &args.select, &base_revision, &args.index)?;
            let head = if let Some(head_revision) = &head_revision {
                tree_side(input, &args.select, head_revision, &args.index)?
            } else {
                // A path deleted in the working tree is an empty head side.
                let present = input.paths.iter().filter(|p| p.exists()).cloned().collect();
                diff_side(input, &args.select, present, &args.index)?
            };
            (base, head)
        }
    };
    let mut diff = diff::diff_with(&base, &base_inputs, &head, &head_inputs);
    if let Some(scope) = index_scope(&args.index, input)? {
        let mut covered = scope::covered_vms(&base, &scope);
        covered.extend(scope::covered_vms(&head, &scope));
        scope::retain_diff(&mut diff, &scope, &covered);
    }
    if let Some((base_prefix, head_prefix)) = &renamed_base {
        diff.relabel_base(head_prefix, base_prefix);
    }
    write_stdout(&match args.format {
        DiffFormat::Text => diff::text(&diff),
        DiffFormat::Markdown => diff::markdown(&diff),
        DiffFormat::Json => diff::json(&diff),
    })?;
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::None => None,
    };
    Ok(if diff.fails(threshold) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run_fix(args: &FixArgs) -> Result<ExitCode, Error> {
    let mut check = options(&args.input, false)?;
    check.rule_selection = args.select.layer();
    let mut outcome = kvlint::commands::fix::plan(&kvlint::commands::fix::FixOptions {
        check,
        unsafe_fixes: args.unsafe_fixes,
    })?;
    let write = !args.diff && !args.check;
    if write {
        kvlint::commands::fix::write(&mut outcome)?;
    }
    let list = match args.format {
        DocFormat::Text => terminal::guard_lines(
            terminal::block(&kvlint::commands::fix::text(&outcome, write)).into_owned(),
        ),
        DocFormat::Json => {
            kvlint::sanitize::json::guard_owned(kvlint::commands::fix::json(&outcome, write))
        }
    };
    if args.diff {
        let patch = kvlint::commands::fix::unified_diff(&outcome);
        // The patch shows the user's lines verbatim: a GitHub runner must not run any of them.
        let patch = if in_github_actions() {
            stop_commands::wrap(&patch, &stop_commands::fresh_token())
        } else {
            patch
        };
        write_stdout(&patch)?;
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(list.as_bytes());
    } else {
        write_stdout(&list)?;
    }
    Ok(if !write && !outcome.changes.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The input options of a command that reads manifests.
fn input_of(command: &Command) -> Option<&InputArgs> {
    match command {
        Command::Check(args) => Some(&args.input),
        Command::Render(args) => Some(&args.input),
        Command::IgnoreDifferences(args) => Some(&args.input),
        Command::Diff(args) => Some(&args.input),
        Command::Fix(args) => Some(&args.input),
        Command::Rules(_) | Command::Explain(_) => None,
    }
}

/// Says, once, that `--kubevirt-version` names a patch release newer than kvlint knows.
fn note_kubevirt_version(command: &Command) {
    if matches!(command, Command::Check(args) if args.quiet) {
        return;
    }
    let note = input_of(command)
        .and_then(|input| input.kubevirt_version.as_deref())
        .and_then(|text| KubeVirtVersion::parse_release(text).ok())
        .and_then(|(_, note)| note);
    if let Some(note) = note {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "kvlint: note: {note}");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    note_kubevirt_version(&cli.command);
    let result = match &cli.command {
        Command::Check(args) => run_check(args),
        Command::Render(args) => run_render(args),
        Command::IgnoreDifferences(args) => options(&args.input, false)
            .and_then(|options| check::run(&options))
            .and_then(|report| {
                warn(&report.warnings);
                note(&kvlint::output::ignore::left_out(&report));
                write_stdout(&match args.format {
                    IgnoreFormat::Yaml => kvlint::output::ignore::yaml(&report),
                    IgnoreFormat::Json => kvlint::output::ignore::json(&report),
                })
            })
            .map(|()| ExitCode::SUCCESS),
        Command::Diff(args) => run_diff(args),
        Command::Fix(args) => run_fix(args),
        Command::Rules(args) => write_stdout(&match args.format {
            DocFormat::Text => kvlint::rules::explain::rules_text(),
            DocFormat::Json => kvlint::rules::explain::rules_json(),
        })
        .map(|()| ExitCode::SUCCESS),
        Command::Explain(args) => run_explain(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let message = terminal::guard_lines(terminal::block(&err.to_string()).into_owned());
            let _ = writeln!(stderr, "kvlint: error: {message}");
            ExitCode::from(2)
        }
    }
}
