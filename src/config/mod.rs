//! `.kvlint.yaml`: the project's settings, found from the checked path upward. Validated once
//! into `Config`; a problem in the file is a finding with its position there, and the rest of
//! the file still applies.

mod discover;
pub mod gitops;
mod paths;
pub mod select;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::cluster::profile::KubeVirtVersion;
use crate::diag::{Finding, Location, Severity};
use crate::rules::{self, Rule};
use crate::source::NamedBytes;
use crate::yaml::{self, Limits, Node, Value};

/// `--catalog auto|none|PATH`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CatalogChoice {
    /// The catalog the target KubeVirt release deploys (unless the cluster disables it).
    #[default]
    Auto,
    None,
    /// A bundle file or directory, e.g. a newer common-instancetypes release.
    Path(PathBuf),
    /// The files of a bundle at `path`, already read (from a git revision, for `kvlint diff
    /// --base`), with their display names.
    Files {
        path: PathBuf,
        files: Arc<[NamedBytes]>,
    },
}

impl FromStr for CatalogChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "auto" => Self::Auto,
            "none" => Self::None,
            "" => return Err("--catalog needs auto, none or a path".to_owned()),
            path => Self::Path(PathBuf::from(path)),
        })
    }
}

/// Which configuration file to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigChoice {
    /// `.kvlint.yaml` found from the first checked path upward.
    #[default]
    Discover,
    /// `--no-config`.
    None,
    /// `--config FILE`.
    File(PathBuf),
    /// A configuration already read (a git revision's, for `kvlint diff --base`).
    Loaded(Arc<Config>),
}

/// A rule's severity as configured: a severity, or `off`.
pub type SeverityOverride = Option<Severity>;

/// Validated settings from a configuration file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub file: Option<Arc<str>>,
    /// The file's text, for reports that quote it.
    pub text: Option<Arc<str>>,
    pub kubevirt_version: Option<KubeVirtVersion>,
    pub namespace: Option<String>,
    pub catalog: Option<CatalogChoice>,
    /// Where `catalog:` is written, for findings about its path.
    pub(crate) catalog_span: Option<yaml::Span>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub severities: Vec<(&'static Rule, SeverityOverride)>,
    /// `select:`, `extend-select:` and `ignore:`: which rules report.
    pub selection: select::Layer,
    /// `per-file-ignores:`: rules that do not report in the files a glob matches.
    pub per_file_ignores: Vec<select::PerFileIgnore>,
    /// A `KubeVirt` CR's `spec.configuration`, for the cluster profile.
    pub cluster: Option<serde_json::Value>,
    /// Where `cluster:` is written, for findings about it.
    pub(crate) cluster_span: Option<yaml::Span>,
    /// `gitops:`: the engine whose behaviour drift findings describe.
    pub gitops: Option<gitops::GitOps>,
    /// `reproducible: true`: cluster defaults are warnings.
    pub reproducible: bool,
    /// `hyperconverged:`: what HCO reads from the cluster rather than from the object.
    pub hyperconverged: crate::cluster::hyperconverged::Environment,
    /// Problems found in the file.
    pub findings: Vec<Finding>,
}

/// Finds the `.kvlint.yaml` that applies to `start` (see [`discover::search`]): only a file
/// that may be used.
pub fn discover(start: &Path) -> Option<PathBuf> {
    match discover::search(start) {
        discover::Discovered::Found(path) => Some(path),
        discover::Discovered::None | discover::Discovered::Refused { .. } => None,
    }
}

struct Reader<'a> {
    file: &'a Arc<str>,
    findings: Vec<Finding>,
}

impl Reader<'_> {
    fn finding(&self, node: &Node, message: impl Into<String>) -> Finding {
        Finding::new(
            &rules::INVALID_CONFIG,
            Location {
                file: Arc::clone(self.file),
                span: node.span,
            },
            message,
        )
    }

    fn problem(&mut self, node: &Node, message: impl Into<String>) {
        let finding = self.finding(node, message);
        self.findings.push(finding);
    }

    /// A setting kvlint follows only approximately: an info finding, not a problem.
    fn note(&mut self, node: &Node, message: impl Into<String>) {
        let finding = self.finding(node, message).with_severity(Severity::Info);
        self.findings.push(finding);
    }

    fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        if let Value::Str(s) = &node.value {
            Some(s.clone())
        } else {
            self.problem(node, format!("{what} must be a string"));
            None
        }
    }

    /// A list of globs; an invalid one is a problem at its line and is left out.
    fn globs(&mut self, node: &Node, what: &str) -> Vec<String> {
        let Some(items) = node.as_seq() else {
            self.problem(node, format!("{what} must be a list of strings"));
            return Vec::new();
        };
        let mut globs = Vec::new();
        for item in items {
            let Some(pattern) = self.string(item, what) else {
                continue;
            };
            match globset::Glob::new(&pattern) {
                Ok(_) => globs.push(pattern),
                Err(err) => self.problem(
                    item,
                    format!("{what}: invalid glob {pattern:?}: {}", err.kind()),
                ),
            }
        }
        globs
    }

    /// A list of rule selectors; an unknown one is a problem at its line and is left out.
    fn selectors(&mut self, node: &Node, what: &str) -> Vec<select::Selector> {
        let Some(items) = node.as_seq() else {
            self.problem(
                node,
                format!("{what} must be a list of rule codes, code prefixes, names or categories"),
            );
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| {
                let text = self.string(item, what)?;
                select::Selector::parse(&text)
                    .map_err(|err| self.problem(item, format!("{what}: {err}")))
                    .ok()
            })
            .collect()
    }

    /// `per-file-ignores:`: a mapping of path globs to lists of selectors.
    fn per_file_ignores(&mut self, node: &Node) -> Vec<select::PerFileIgnore> {
        let Some(entries) = node.as_map() else {
            self.problem(
                node,
                "per-file-ignores must map path globs to lists of rule selectors",
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries {
            let selectors = self.selectors(&entry.value, "per-file-ignores");
            if let Err(err) = globset::Glob::new(&entry.key) {
                self.findings.push(Finding::new(
                    &rules::INVALID_CONFIG,
                    Location {
                        file: Arc::clone(self.file),
                        span: entry.key_span,
                    },
                    format!(
                        "per-file-ignores: invalid glob {:?}: {}",
                        entry.key,
                        err.kind()
                    ),
                ));
                continue;
            }
            out.push(select::PerFileIgnore {
                glob: entry.key.clone(),
                selectors,
            });
        }
        out
    }
}

const KEYS: [&str; 14] = [
    "kubevirtVersion",
    "namespace",
    "catalog",
    "include",
    "exclude",
    "rules",
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "cluster",
    "gitops",
    "reproducible",
    "hyperconverged",
];

/// Parses and validates a configuration file's text.
pub fn parse(file: &Arc<str>, text: &str) -> Config {
    let mut config = Config {
        file: Some(Arc::clone(file)),
        ..Config::default()
    };
    let mut reader = Reader {
        file,
        findings: Vec::new(),
    };
    let docs = yaml::parse_stream(text, Limits::default());
    let root = match docs.into_iter().next() {
        None => {
            config.findings = reader.findings;
            return config;
        }
        Some(Err(err)) => {
            let pos = err.pos;
            reader.findings.push(Finding::new(
                &rules::INVALID_CONFIG,
                Location {
                    file: Arc::clone(file),
                    span: yaml::Span {
                        start: pos,
                        end: pos,
                    },
                },
                format!("invalid YAML: {}", err.message),
            ));
            config.findings = reader.findings;
            return config;
        }
        Some(Ok(doc)) => doc.root,
    };
    let Some(entries) = root.as_map() else {
        reader.problem(&root, "the configuration must be a mapping");
        config.findings = reader.findings;
        return config;
    };
    for entry in entries {
        let node = &entry.value;
        match entry.key.as_str() {
            "kubevirtVersion" => config.kubevirt_version = kubevirt_version(&mut reader, node),
            "namespace" => config.namespace = reader.string(node, "namespace"),
            "catalog" => {
                if let Some(text) = reader.string(node, "catalog") {
                    match text.parse::<CatalogChoice>() {
                        Ok(CatalogChoice::Path(path)) if path.has_root() => reader.problem(
                            node,
                            "catalog must be auto, none or a path inside the repository, \
                             relative to the configuration file; an absolute path is not read",
                        ),
                        Ok(CatalogChoice::Path(path)) => {
                            // Relative to the configuration file.
                            let base = Path::new(&**file).parent().unwrap_or(Path::new(""));
                            config.catalog = Some(CatalogChoice::Path(base.join(path)));
                            config.catalog_span = Some(node.span);
                        }
                        Ok(choice) => config.catalog = Some(choice),
                        Err(err) => reader.problem(node, err),
                    }
                }
            }
            "include" => config.include = reader.globs(node, "include"),
            "exclude" => config.exclude = reader.globs(node, "exclude"),
            "rules" => config.severities = rule_severities(&mut reader, node),
            "select" => config.selection.select = Some(reader.selectors(node, "select")),
            "extend-select" => {
                config.selection.extend_select = reader.selectors(node, "extend-select");
            }
            "ignore" => config.selection.ignore = reader.selectors(node, "ignore"),
            "per-file-ignores" => config.per_file_ignores = reader.per_file_ignores(node),
            "cluster" => {
                config.cluster = Some(node.to_json());
                config.cluster_span = Some(entry.key_span);
            }
            "gitops" => {
                if let Some(text) = reader.string(node, "gitops") {
                    match text.parse() {
                        Ok(engine) => config.gitops = Some(engine),
                        Err(err) => reader.problem(node, err),
                    }
                }
            }
            "hyperconverged" => {
                config.hyperconverged = hyperconverged_environment(&mut reader, node);
            }
            "reproducible" => match node.value {
                Value::Bool(value) => config.reproducible = value,
                _ => reader.problem(node, "reproducible must be true or false"),
            },
            other => unknown_setting(&mut reader, other, entry.key_span),
        }
    }
    config.findings = reader.findings;
    config
}

/// A key the configuration does not have, with the closest known one.
fn unknown_setting(reader: &mut Reader<'_>, other: &str, key_span: yaml::Span) {
    let suggestion = KEYS
        .iter()
        .find(|k| strsim::levenshtein(&k.to_ascii_lowercase(), &other.to_ascii_lowercase()) <= 2)
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    reader.findings.push(Finding::new(
        &rules::INVALID_CONFIG,
        Location {
            file: Arc::clone(reader.file),
            span: key_span,
        },
        format!(
            "unknown setting `{other}`{suggestion}; known: {}",
            KEYS.join(", ")
        ),
    ));
}

/// `kubevirtVersion`, with a note when the release named is read as a nearby one.
fn kubevirt_version(reader: &mut Reader<'_>, node: &Node) -> Option<KubeVirtVersion> {
    let text = reader.string(node, "kubevirtVersion")?;
    match KubeVirtVersion::parse_release(&text) {
        Ok((version, approximation)) => {
            if let Some(message) = approximation {
                reader.note(node, message);
            }
            Some(version)
        }
        Err(err) => {
            reader.problem(node, err.to_string());
            None
        }
    }
}

/// `hyperconverged: {infrastructureHighlyAvailable: true|false}`.
fn hyperconverged_environment(
    reader: &mut Reader<'_>,
    node: &Node,
) -> crate::cluster::hyperconverged::Environment {
    let mut environment = crate::cluster::hyperconverged::Environment::default();
    let Some(entries) = node.as_map() else {
        reader.problem(
            node,
            "hyperconverged must be a mapping, e.g. `{infrastructureHighlyAvailable: true}`",
        );
        return environment;
    };
    for entry in entries {
        match (entry.key.as_str(), &entry.value.value) {
            ("infrastructureHighlyAvailable", Value::Bool(value)) => {
                environment.infrastructure_highly_available = Some(*value);
            }
            ("infrastructureHighlyAvailable", _) => reader.problem(
                &entry.value,
                "infrastructureHighlyAvailable must be true (two or more worker nodes) or false",
            ),
            (other, _) => reader.findings.push(Finding::new(
                &rules::INVALID_CONFIG,
                Location {
                    file: Arc::clone(reader.file),
                    span: entry.key_span,
                },
                format!(
                    "unknown hyperconverged setting `{other}`; known: infrastructureHighlyAvailable"
                ),
            )),
        }
    }
    environment
}

fn rule_severities(reader: &mut Reader<'_>, node: &Node) -> Vec<(&'static Rule, SeverityOverride)> {
    let Some(entries) = node.as_map() else {
        reader.problem(
            node,
            "rules must map rule codes or names to error, warning, info or off",
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries {
        let Some(rule) = rules::find(&entry.key) else {
            reader.findings.push(Finding::new(
                &rules::INVALID_CONFIG,
                Location {
                    file: Arc::clone(reader.file),
                    span: entry.key_span,
                },
                format!("no rule is called `{}` (see `kvlint rules`)", entry.key),
            ));
            continue;
        };
        let level = match &entry.value.value {
            Value::Str(s) => s.as_str(),
            // `off: false` style mistakes and YAML 1.1 booleans (`off` unquoted is false).
            Value::Bool(false) => "off",
            _ => "",
        };
        let severity = match level {
            "error" => Some(Some(Severity::Error)),
            "warning" => Some(Some(Severity::Warning)),
            "info" => Some(Some(Severity::Info)),
            "off" => Some(None),
            _ => None,
        };
        match severity {
            Some(severity) => out.push((rule, severity)),
            None => reader.problem(
                &entry.value,
                "a rule's level must be error, warning, info or off",
            ),
        }
    }
    out
}

/// Reads the configuration `choice` selects (starting the search at `start`).
pub fn load(choice: &ConfigChoice, start: &Path) -> Result<Config, crate::error::Error> {
    let (given, path) =
        match choice {
            ConfigChoice::None => return Ok(Config::default()),
            ConfigChoice::Loaded(config) => return Ok(Config::clone(config)),
            // Given on the command line: the user's choice, followed wherever it leads.
            ConfigChoice::File(given) => {
                let path = std::fs::canonicalize(given)
                    .map_err(|err| crate::error::Error::file(given, err))?;
                (given.clone(), path)
            }
            ConfigChoice::Discover => match discover::search(start) {
                discover::Discovered::Found(path) => {
                    let mut config = read(&path, &path)?;
                    if let Some(unused) = discover::shadowed(start) {
                        config.findings.extend(refused(&unused, &format!(
                        "{} in the same directory is used instead (keep one of the two)",
                        crate::source::FILE_NAME
                    )).findings);
                    }
                    return Ok(config);
                }
                discover::Discovered::None => return Ok(Config::default()),
                discover::Discovered::Refused { path, reason } => {
                    return Ok(refused(&path, &reason));
                }
            },
        };
    read(&given, &path)
}

/// Reads and validates the configuration file at `path` (resolved), named as `given`.
fn read(given: &Path, path: &Path) -> Result<Config, crate::error::Error> {
    let text = crate::source::read_file_text(path)
        .map_err(|problem| crate::error::Error::unusable(given, problem.message))?;
    let display: Arc<str> = Arc::from(display_path(given));
    let mut config = parse(&display, &text);
    config.text = Some(Arc::from(text));
    let holder = path.parent().unwrap_or(Path::new("/"));
    let repository = crate::source::repository_root(holder).unwrap_or_else(|| holder.to_path_buf());
    paths::confine(&mut config, &repository);
    Ok(config)
}

/// A configuration file that is not read: no settings, one finding that says why.
fn refused(path: &Path, reason: &str) -> Config {
    let file: Arc<str> = Arc::from(display_path(path));
    let start = yaml::Pos {
        line: 1,
        column: 1,
        index: 0,
    };
    Config {
        findings: vec![
            Finding::new(
                &rules::INVALID_CONFIG,
                Location {
                    file,
                    span: yaml::Span { start, end: start },
                },
                format!("this configuration file is not used: {reason}"),
            )
            .with_severity(Severity::Warning),
        ],
        ..Config::default()
    }
}

/// The configuration file's path relative to the working directory when it is below it.
fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    cwd.and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .to_string_lossy()
        .replace('\\', "/")
}

impl Config {
    /// The file's layer of rule selection: `select`, `extend-select`, `ignore`, and the rules
    /// `rules:` turns `off`, which are ignored like `ignore:` names them.
    pub fn selection_layer(&self) -> select::Layer {
        let mut layer = self.selection.clone();
        // The last level a rule is given is the one that counts.
        let off = self
            .severities
            .iter()
            .enumerate()
            .filter(|(at, (rule, severity))| {
                severity.is_none()
                    && !self.severities[at + 1..]
                        .iter()
                        .any(|(later, _)| later == rule)
            });
        layer
            .ignore
            .extend(off.map(|(_, (rule, _))| select::Selector::rule(rule)));
        layer
    }
}

/// Applies per-rule severities to the findings that report. An `off` rule is not reported by
/// [`Config::selection_layer`]; it is left alone here, so that a command line that selects it
/// again sees it with its default severity.
pub fn apply_severities(
    findings: &mut [Finding],
    severities: &[(&'static Rule, SeverityOverride)],
) {
    if severities.is_empty() {
        return;
    }
    for finding in findings {
        let configured = severities
            .iter()
            .rev()
            .find(|(rule, _)| *rule == finding.rule);
        if let Some((_, Some(severity))) = configured {
            finding.severity = *severity;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        parse(&Arc::from(".kvlint.yaml"), text)
    }

    #[test]
    fn reads_every_setting() {
        let c = config(
            "kubevirtVersion: v1.6\nnamespace: apps\ncatalog: none\ninclude: ['**/*.yaml']\nexclude: [charts/**]\nrules:\n  KV3006: off\n  machine-type-defaulted: error\ncluster:\n  machineType: pc-q35-rhel9.6.0\n",
        );
        assert!(c.findings.is_empty(), "{:?}", c.findings);
        assert_eq!(c.kubevirt_version, Some(KubeVirtVersion::new(1, 6)));
        assert_eq!(c.namespace.as_deref(), Some("apps"));
        assert_eq!(c.catalog, Some(CatalogChoice::None));
        assert_eq!(c.exclude, ["charts/**"]);
        assert_eq!(c.severities.len(), 2);
        assert_eq!(c.severities[0].1, None);
        assert_eq!(c.severities[1].1, Some(Severity::Error));
        assert!(c.cluster.is_some());
    }

    #[test]
    fn reads_patch_releases_and_notes_unknown_newer_ones() {
        let c = config("kubevirtVersion: v1.7.2\n");
        assert!(c.findings.is_empty(), "{:?}", c.findings);
        assert_eq!(c.kubevirt_version, Some(KubeVirtVersion::release(1, 7, 2)));
        let c = config("kubevirtVersion: v1.7.9\n");
        assert_eq!(c.kubevirt_version, Some(KubeVirtVersion::release(1, 7, 4)));
        assert_eq!(c.findings.len(), 1);
        assert_eq!(c.findings[0].severity, Severity::Info);
        assert!(c.findings[0].message.contains("checked as v1.7.4"));
        let c = config("kubevirtVersion: v1.7.0-rc.1\n");
        assert_eq!(c.kubevirt_version, None);
        assert_eq!(c.findings[0].severity, Severity::Error);
    }

    #[test]
    fn problems_point_into_the_file() {
        let c = config(
            "kubevirtVersion: v2.0\nrule:\n  KV9999: error\nrules:\n  KV9999: error\n  KV3006: loud\n",
        );
        let lines: Vec<(u32, &str)> = c
            .findings
            .iter()
            .map(|f| (f.location.span.start.line, f.message.as_str()))
            .collect();
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert_eq!(lines[0].0, 1);
        assert!(lines[1].1.contains("did you mean `rules`"), "{lines:?}");
        assert_eq!(
            lines[2],
            (5, "no rule is called `KV9999` (see `kvlint rules`)")
        );
        assert_eq!(lines[3].0, 6);
    }
}
