//! Command-line interface definitions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::select::{Layer, Selector};
use crate::output::{CheckFormat, RenderFormat};

const EXIT_CODES: &str = "Exit codes:\n  0  no finding at or above --fail-on\n  1  findings at or above --fail-on\n  2  usage or I/O error";

const RENDER_EXIT_CODES: &str = "Exit codes:\n  0  every selected VM was rendered\n  1  a VM could not be rendered (its findings go to standard error), or was left out of --out-dir\n  2  usage or I/O error, or a --vm or --unit that matches no VM";

#[derive(Debug, Parser)]
#[command(name = "kvlint", version, about = "Offline linter and renderer for KubeVirt VirtualMachines with instance types and preferences", after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check manifests: what KubeVirt would reject, what will drift, what is runtime-derived.
    #[command(after_help = EXIT_CODES)]
    Check(CheckArgs),
    /// Print the effective VMs, as KubeVirt's expand would return them.
    #[command(after_help = RENDER_EXIT_CODES)]
    Render(RenderArgs),
    /// Print an Argo CD ignoreDifferences block for the drift kvlint predicts.
    IgnoreDifferences(IgnoreArgs),
    /// Compare two revisions: what a change does to every VM, and what KubeVirt does with it.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// Apply the safe fixes: edit manifests to say what the cluster stores.
    #[command(after_help = FIX_HELP)]
    Fix(FixArgs),
    /// List every rule: code, name, category, default severity, fix, summary.
    Rules(RulesArgs),
    /// Explain one rule (by code or name).
    Explain(ExplainArgs),
}

/// `--format` of `rules` and `explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DocFormat {
    Text,
    Json,
}

/// `--format` of `ignore-differences`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IgnoreFormat {
    Yaml,
    Json,
}

#[derive(Debug, Args)]
pub struct IgnoreArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = IgnoreFormat::Yaml)]
    pub format: IgnoreFormat,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A rule code (`KV1001`) or name (`instancetype-conflict`).
    pub rule: String,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

/// When to colour the human report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The lowest severity that makes `check` exit with 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    None,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to read (directories recursively); `-` reads standard input.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Only read files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Namespace of namespaced objects that set none (Kustomize's `namespace:` wins) [default: default].
    #[arg(long)]
    pub namespace: Option<String>,
    /// Name to report for standard input.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// The KubeVirt release to judge against: v1.0 … v1.9 (the line's first release, vX.Y.0),
    /// a patch release such as v1.6.4, or v1.6.x (the newest patch release kvlint knows)
    /// [default: v1.9].
    #[arg(long, value_name = "VERSION")]
    pub kubevirt_version: Option<String>,
    /// Cluster catalog for names the repository does not define: `auto` (the common-instancetypes
    /// bundle the KubeVirt release deploys), `none`, or a bundle file or directory [default: auto].
    #[arg(long, value_name = "auto|none|PATH")]
    pub catalog: Option<String>,
    /// The GitOps engine that applies the manifests, for what drift findings say and how severe
    /// they are: `argocd` (default diff), `argocd-ssd` (ServerSideDiff), `argocd-ssa`
    /// (ServerSideApply=true sync option) or `flux` [default: argocd].
    #[arg(long, value_name = "ENGINE", value_parser = ["argocd", "argocd-ssd", "argocd-ssa", "flux"])]
    pub gitops: Option<String>,
    /// Configuration file (default: `.kvlint.yaml` found from the first path upward).
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Ignore any configuration file.
    #[arg(long)]
    pub no_config: bool,
    /// JSON Schemas for other kinds, in kubeconform's layout: a directory or a path template
    /// with `{{ .ResourceKind }}`, `{{ .ResourceAPIVersion }}`, `{{ .Group }}`, `{{ .KindSuffix }}`
    /// (repeatable; local files only).
    #[arg(long = "schema-location", value_name = "DIR_OR_TEMPLATE")]
    pub schema_locations: Vec<String>,
    /// Check the units Argo CD and Flux sync (Kustomize roots, Flux Kustomizations, Argo CD
    /// sources, Helm releases) as they render them (`auto`, with the tools found), or every file
    /// as written (`off`) [default: auto].
    #[arg(long, value_enum, value_name = "MODE")]
    pub units: Option<UnitsMode>,
    /// The command that builds a kustomization directory [default: `kustomize build`, else
    /// `kubectl kustomize`].
    #[arg(long, value_name = "COMMAND")]
    pub kustomize_command: Option<String>,
    /// The Helm that renders chart directories named by a Flux HelmRelease or an Argo CD
    /// Application [default: `helm` on PATH].
    #[arg(long, value_name = "COMMAND")]
    pub helm_command: Option<String>,
    /// Seconds one unit's build may take before it is stopped [default: 60].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub kustomize_timeout: Option<u64>,
    /// Where built units are cached [default: `$KVLINT_CACHE_DIR`, else the user's cache
    /// directory + `/kvlint`].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Build every unit: neither read nor write the units cache.
    #[arg(long)]
    pub no_cache: bool,
}

/// `--units`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnitsMode {
    /// Render units with the tools found (kustomize or kubectl; helm for chart directories).
    Auto,
    /// Check every file as written.
    Off,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Read every file under DIR too (repeatable), for the instance types, preferences and
    /// kustomizations the PATHS depend on, but report only findings in the PATHS or pointing into
    /// them. For hooks that receive the changed files: `kvlint check --index . FILE...`.
    #[arg(long, value_name = "DIR")]
    pub index: Vec<PathBuf>,
    /// Report format [default: human, or github when the environment has GITHUB_ACTIONS=true].
    #[arg(long, value_enum)]
    pub format: Option<CheckFormat>,
    /// Also write the report to this file, in --output-format.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Format of --output-file [default: json]; without --output-file, the report's format
    /// (the same as --format).
    #[arg(long, value_enum)]
    pub output_format: Option<CheckFormat>,
    /// Exit with 1 when a finding has this severity or a higher one.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Colour the human report.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Report only findings that are not in this baseline (see --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file and exit with 0.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Show how many findings each rule reported (most frequent first) instead of the findings;
    /// with --format json, add them to the summary as `statistics`.
    #[arg(long)]
    pub statistics: bool,
    /// Print only the findings: no summary line, no notes or warnings on standard error.
    #[arg(long, short)]
    pub quiet: bool,
}

impl CheckArgs {
    /// The format of the report on standard output: `--format` (or `--output-format` without
    /// `--output-file`), else `github` in GitHub Actions, else `human`.
    pub fn report_format(&self, github_actions: bool) -> Result<CheckFormat, crate::error::Error> {
        let given = match (self.output_file.is_some(), self.format, self.output_format) {
            (false, Some(_), Some(_)) => {
                return Err(crate::error::Error::Usage(
                    "--format and --output-format name the same thing without --output-file: give one"
                        .to_owned(),
                ));
            }
            (false, format, output_format) => format.or(output_format),
            (true, format, _) => format,
        };
        Ok(given.unwrap_or(if github_actions {
            CheckFormat::Github
        } else {
            CheckFormat::Human
        }))
    }

    /// The format of `--output-file`.
    pub fn file_format(&self) -> CheckFormat {
        self.output_format.unwrap_or(CheckFormat::Json)
    }
}

/// `--select`, `--extend-select`, `--ignore`: which rules report.
#[derive(Debug, Default, Args)]
pub struct SelectArgs {
    /// Report only these rules, instead of those the configuration selects: rule codes (KV1001),
    /// code prefixes (KV1, KV30), rule names or categories (reject, drift, ...), or ALL
    /// (comma-separated, repeatable).
    #[arg(long, value_name = "SELECTOR", value_delimiter = ',', value_parser = Selector::parse)]
    pub select: Option<Vec<Selector>>,
    /// Report these rules too (comma-separated, repeatable).
    #[arg(long, value_name = "SELECTOR", value_delimiter = ',', value_parser = Selector::parse)]
    pub extend_select: Vec<Selector>,
    /// Do not report these rules (comma-separated, repeatable); the most specific selector wins.
    #[arg(long, value_name = "SELECTOR", value_delimiter = ',', value_parser = Selector::parse)]
    pub ignore: Vec<Selector>,
}

impl SelectArgs {
    /// The command line's layer of rule selection, applied over the configuration file's.
    pub fn layer(&self) -> Layer {
        Layer {
            select: self.select.clone(),
            extend_select: self.extend_select.clone(),
            ignore: self.ignore.clone(),
        }
    }
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = RenderFormat::Yaml)]
    pub format: RenderFormat,
    /// Only these VMs (NAMESPACE/NAME; repeatable).
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub vm: Vec<String>,
    /// Only the VMs rendered in this unit (its directory: a Kustomize root, a Flux or Argo CD
    /// path, a chart; repeatable).
    #[arg(long, value_name = "PATH")]
    pub unit: Vec<PathBuf>,
    /// Read every file under DIR too (repeatable), for the instance types, preferences and
    /// kustomizations the PATHS depend on, but render only the VMs defined in the PATHS or
    /// rendered in a unit that reads one of them.
    #[arg(long, value_name = "DIR")]
    pub index: Vec<PathBuf>,
    /// Write one file per VM into this directory instead of standard output.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

const DIFF_HELP: &str = "Sides:\n  kvlint diff BASE HEAD               two directories (or files)\n  kvlint diff --base REF [PATH ...]   PATH (default .) at git revision REF against the working tree\n  kvlint diff --base REF --head REF   two git revisions of the repository around the current directory\n\nExit codes:\n  0  no change is rejected and none introduces a finding at or above --fail-on\n  1  a change is rejected, or introduces a finding at or above --fail-on\n  2  usage, I/O or git error";

/// `--format` of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Semantic summary and unified diff per VM, for the terminal (the default).
    Text,
    /// A summary table and a collapsible section per VM, for pull-request comments and step summaries.
    Markdown,
    /// The stable machine-readable form.
    Json,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Read the base side from this git revision of the repository around the current directory.
    #[arg(long, value_name = "GIT_REF")]
    pub base: Option<String>,
    /// Read the head side from this git revision instead of the working tree (needs --base).
    #[arg(long, value_name = "GIT_REF", requires = "base")]
    pub head: Option<String>,
    /// Read every file under DIR too on both sides (repeatable; needs --base), for the instance
    /// types, preferences and kustomizations the PATHS depend on, but list only the VMs, instance
    /// types, preferences and findings of the PATHS, the VMs rendered in a unit that reads one of
    /// them and the VMs that use a listed instance type or preference.
    #[arg(long, value_name = "DIR", requires = "base")]
    pub index: Vec<PathBuf>,
    /// Output format.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Exit with 1 when the change introduces a finding of this severity or a higher one (a
    /// rejected change always counts, unless `none`).
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    #[command(flatten)]
    pub select: SelectArgs,
}

const FIX_HELP: &str = "Each fixed file is checked again before it is written: the fix must remove the findings it\ntargets and introduce none, or the file is left as it is.\n\nExit codes:\n  0  nothing to fix, or the files were fixed\n  1  with --check or --diff: a fix would change a file\n  2  usage or I/O error";

#[derive(Debug, Args)]
pub struct FixArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Print the unified diff of the fixes instead of writing the files.
    #[arg(long, conflicts_with = "check")]
    pub diff: bool,
    /// Write nothing; list the fixes and exit with 1 when one would change a file (for CI).
    #[arg(long)]
    pub check: bool,
    /// Also apply fixes that make a choice (pinning a generated firmware UUID and serial).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Output format of the list of fixes.
    #[arg(long, visible_alias = "output-format", value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
    #[command(flatten)]
    pub select: SelectArgs,
}
