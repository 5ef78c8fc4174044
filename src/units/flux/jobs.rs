//! The Flux Kustomizations among the checked files as units to build: the directory each one
//! names, with its own kustomization or the one Flux generates, and after the build its
//! post-build substitution.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::artifact::{self, GitSource};
use super::generated::{self, Generated, Problem};
use super::sourceignore::{Artifact, SpecIgnore};
use super::{Entry, PostBuild, VariableSource};
use crate::diag::{Finding, Location, Related, UnitKind, UnitRef};
use crate::k8s::normalise_path;
use crate::rules;
use crate::units::chain::Rendered;
use crate::units::kustomization::{Kustomization, RefKind, Reference};
use crate::units::{Job, NotBuilt, discover, display_dir, is_entry_point, resolve};

/// What a Flux unit adds to a build: its entry, its variables, and the kustomization Flux
/// generates when its path has none.
pub(in crate::units) struct FluxJob {
    pub entry: Entry,
    pub post_build: Option<PostBuild>,
    pub generated: Option<serde_json::Value>,
}

/// The Flux Kustomizations among the checked files as jobs, and findings about those kvlint
/// cannot build.
pub(in crate::units) struct FluxJobs {
    pub jobs: Vec<Job>,
    pub findings: Vec<Finding>,
    /// Checked files that hold Argo CD or Flux objects: entry points, applied by hand.
    pub entry_points: BTreeSet<Arc<str>>,
}

/// What the checked files hold for Flux: its Kustomizations, the ConfigMaps and Secrets their
/// variables may come from, and the files that hold entry points.
pub(in crate::units) struct FluxInputs {
    entries: Vec<Entry>,
    sources: Vec<VariableSource>,
    git_sources: Vec<GitSource>,
    entry_points: BTreeSet<Arc<str>>,
}

impl FluxInputs {
    /// Reads them from the texts of the checked files that may hold entry points or variable
    /// sources (`units::entry_texts`).
    /// The Kustomizations `rendered` by units replace the same ones read as written.
    pub(in crate::units) fn from_texts(texts: &[(Arc<str>, String)], rendered: &Rendered) -> Self {
        let entry_points = texts
            .iter()
            .filter(|(_, text)| is_entry_point(text))
            .map(|(file, _)| Arc::clone(file))
            .collect();
        let mut entries: Vec<Entry> = texts
            .iter()
            .flat_map(|(file, text)| super::entries(file, text))
            .collect();
        chain(&mut entries, rendered);
        let (sources, git_sources) = if entries.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            (
                super::variable_sources_in(texts),
                texts
                    .iter()
                    .flat_map(|(file, text)| artifact::git_sources(file, text))
                    .collect(),
            )
        };
        Self {
            entries,
            sources,
            git_sources,
            entry_points,
        }
    }

    /// The directories of the files that hold Flux Kustomizations.
    pub(in crate::units) fn entry_directories(&self) -> BTreeSet<PathBuf> {
        self.entries
            .iter()
            .filter_map(|entry| {
                normalise_path(Path::new(&*entry.file))
                    .parent()
                    .map(Path::to_path_buf)
            })
            .collect()
    }
}

/// The Flux Kustomizations as the controller applies them: those rendered by a unit replace
/// the same ones read as written.
fn chain(entries: &mut Vec<Entry>, rendered: &Rendered) {
    if rendered.is_empty() {
        return;
    }
    entries.retain(|entry| {
        !rendered.replaces(
            &entry.file,
            entry.span.start.line,
            "Kustomization",
            entry.namespace.as_deref(),
            &entry.name,
        )
    });
    entries.extend(
        rendered
            .of_kinds(super::GROUP, &["Kustomization"])
            .filter_map(|found| {
                Entry::of(&found.file, &found.node).map(|entry| Entry {
                    rendered_by: Some(found.unit.clone()),
                    ..entry
                })
            }),
    );
}

/// The Flux jobs of the checked files; `repository` is the resolved directory builds stay
/// inside, `shown_root` the repository as the report names it.
pub(in crate::units) fn flux_jobs(
    inputs: FluxInputs,
    shown_root: Option<&Path>,
    repository: Option<&Path>,
    tree: &mut discover::Tree,
) -> FluxJobs {
    let FluxInputs {
        entries,
        sources,
        git_sources,
        entry_points,
    } = inputs;
    let mut out = FluxJobs {
        jobs: Vec::new(),
        findings: Vec::new(),
        entry_points,
    };
    if entries.is_empty() {
        return out;
    }
    let (Some(_), Some(shown_root)) = (repository, shown_root) else {
        return out;
    };
    let shown_root = normalise_path(shown_root);
    // One view of the artifact per GitRepository (its `spec.ignore`), read as needed.
    let mut artifacts: BTreeMap<Option<(Option<&str>, &str)>, Artifact<'_>> = BTreeMap::new();
    for entry in entries {
        let dir = crate::units::within_working_directory(entry.directory(&shown_root));
        let source = artifact::source_of(&entry, &git_sources);
        let spec_ignore = source.and_then(|source| source.ignore.as_ref());
        let artifact = artifacts
            .entry(source.map(|source| (source.namespace.as_deref(), source.name.as_str())))
            .or_insert_with(|| Artifact::new(&shown_root, spec_ignore));
        let left_out = artifact.excluded_by(&dir, true);
        let (mut root, generated) = match tree.root(&dir) {
            // Still the entry's unit, so that it is not built again as a bare root.
            Some(root) if left_out.is_some() => {
                (artifact::path_left_out(&entry, root, left_out), None)
            }
            Some(root) => (root, None),
            None if let Some(exclusion) = left_out => {
                out.findings
                    .push(artifact::generated_path_left_out(&entry, &dir, &exclusion));
                continue;
            }
            None if resolve::resolve_dir(&dir).is_ok_and(|real| real.is_dir()) => {
                match generated_root(&entry, &shown_root, &dir, tree, spec_ignore) {
                    Ok((root, generated)) => (root, Some(generated)),
                    Err(finding) => {
                        out.findings.push(*finding);
                        continue;
                    }
                }
            }
            None => {
                out.findings.push(Finding::new(
                    &rules::UNIT_NOT_RENDERED,
                    entry.path_location(),
                    format!(
                        "Flux Kustomization {}: path `{}` is not in this repository (it may belong to another source); its files are checked as written",
                        entry.name, entry.path
                    ),
                ));
                continue;
            }
        };
        if generated.is_none() {
            let mut own = (*root.kustomization).clone();
            own.build_metadata = super::build_metadata(&entry, Some(&root.kustomization));
            root.kustomization = Arc::new(own);
        }
        for component in entry
            .spec
            .get("components")
            .and_then(serde_json::Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(serde_json::Value::as_str)
        {
            if let Some(extra) = tree.root(&normalise_path(&dir.join(component))) {
                merge(&mut root, extra);
            }
        }
        let left_out = artifact::left_out(&root, tree, artifact);
        root.unbuildable.extend(left_out);
        let post_build = super::post_build(&entry, &sources).map(|mut post_build| {
            out.findings.append(&mut post_build.findings);
            post_build
        });
        let unit = Arc::new(UnitRef {
            kind: UnitKind::Flux,
            path: display_dir(&dir),
            via: Some(crate::diag::Via {
                kind: "Kustomization".to_owned(),
                namespace: entry.namespace.clone(),
                name: entry.name.clone(),
                file: entry.file.to_string(),
                line: entry.span.start.line,
                unit: entry.rendered_by.clone(),
            }),
        });
        out.jobs.push(Job {
            root,
            unit,
            flux: Some(FluxJob {
                entry,
                post_build,
                generated,
            }),
            argocd: None,
        });
    }
    out
}

fn merge(root: &mut discover::Root, other: discover::Root) {
    root.closure.extend(other.closure);
    root.directories.extend(other.directories);
    root.unbuildable.extend(other.unbuildable);
}

/// The unit of a path without a kustomization: the kustomization Flux generates, and what
/// its build reads (the listed files, the closures of the listed kustomization directories and
/// the `.sourceignore` files that decided the list). The entry stands for the kustomization
/// file in findings.
fn generated_root(
    entry: &Entry,
    shown_root: &Path,
    dir: &Path,
    tree: &mut discover::Tree,
    spec_ignore: Option<&SpecIgnore>,
) -> Result<(discover::Root, serde_json::Value), Box<Finding>> {
    let Generated {
        kustomization,
        files,
        directories,
        ignore_files,
    } = generated::generate(shown_root, dir, spec_ignore)
        .map_err(|problem| generation_failed(entry, dir, problem))?;
    let references = kustomization
        .get("resources")
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(serde_json::Value::as_str)
        .map(|value| Reference {
            kind: RefKind::Resource,
            value: value.to_owned(),
            span: entry.path_span,
        })
        .collect::<Vec<_>>();
    let mut root = discover::Root {
        dir: dir.to_path_buf(),
        kustomization: Arc::new(Kustomization {
            file: Arc::clone(&entry.file),
            is_component: false,
            has_resources: !references.is_empty(),
            references,
            build_metadata: super::build_metadata(entry, None),
            sort_options: None,
        }),
        closure: files.into_iter().chain(ignore_files).collect(),
        directories: BTreeSet::from([dir.to_path_buf()]),
        unbuildable: Vec::new(),
    };
    for nested in directories {
        if let Some(nested) = tree.root(&nested) {
            merge(&mut root, nested);
        }
    }
    Ok((root, kustomization))
}

/// The finding about a path Flux cannot generate a kustomization for.
fn generation_failed(entry: &Entry, dir: &Path, problem: Problem) -> Box<Finding> {
    let unit = display_dir(dir);
    let finding = match problem {
        Problem::NotKubernetes { file, reason } => {
            let file: Arc<str> = crate::source::display_path(&file);
            Finding::new(
                &rules::KUSTOMIZE_BUILD_FAILED,
                Location::lines(Arc::clone(&file), (1, 1), (1, 2)),
                format!(
                    "Flux cannot build {unit}: failed to decode Kubernetes YAML from {file}: {reason}"
                ),
            )
            .with_related(Related {
                location: entry.path_location(),
                message: format!(
                    "Flux Kustomization {} generates a kustomization listing every YAML file below this path",
                    entry.name
                ),
            })
            .with_help("Flux lists every .yaml and .yml file of a path without a kustomization; move files that are not Kubernetes objects out of it, exclude them in .sourceignore, or add a kustomization.yaml")
        }
        Problem::Unreadable { path, reason } => Finding::new(
            &rules::UNIT_NOT_RENDERED,
            entry.path_location(),
            format!(
                "Flux Kustomization {}: kvlint cannot read {} ({reason}); its files are checked as written",
                entry.name,
                crate::source::display_path(&path)
            ),
        ),
        Problem::TooLarge => Finding::new(
            &rules::UNIT_NOT_RENDERED,
            entry.path_location(),
            format!(
                "Flux Kustomization {}: path `{}` holds more files or levels than kvlint scans; its files are checked as written",
                entry.name, entry.path
            ),
        ),
    };
    Box::new(finding)
}

/// A Flux unit's output after the post-build substitution.
#[derive(Default)]
pub(in crate::units) struct PostBuilt {
    pub text: String,
    /// Where expressions were left as written (character ranges of `text`).
    pub unresolved: Vec<Range<usize>>,
    /// Where values substituted from variables are (character ranges of `text`), and where
    /// those variables are defined.
    pub variables: Vec<(Range<usize>, Vec<Related>)>,
    /// One finding per variable left unknown.
    pub findings: Vec<Finding>,
}

impl Job {
    /// Flux's post-build substitution of the build's output, when the unit has one.
    pub(in crate::units) fn post_build(&self, output: String) -> Result<PostBuilt, NotBuilt> {
        let Some(FluxJob {
            entry,
            post_build: Some(post_build),
            ..
        }) = &self.flux
        else {
            return Ok(PostBuilt {
                text: output,
                unresolved: Vec::new(),
                variables: Vec::new(),
                findings: Vec::new(),
            });
        };
        let substituted = super::substitute(&output, post_build).map_err(|message| {
            NotBuilt::Skipped(Box::new(
                Finding::new(
                    &rules::KUSTOMIZE_BUILD_FAILED,
                    entry.post_build_location(),
                    format!(
                        "Flux cannot build {}: post build failed for Kustomization {}/{}: {message}",
                        self.unit.path,
                        entry.namespace.as_deref().unwrap_or("default"),
                        entry.name
                    ),
                )
                .with_help("the Kustomization stays Ready=False and applies nothing until every variable it substitutes is defined"),
            ))
        })?;
        let findings = unknown_variable_findings(
            &substituted.unresolved,
            post_build,
            entry,
            &self.root.closure,
        );
        let unresolved = character_ranges(
            &substituted.text,
            substituted.unresolved.iter().map(|u| u.range.clone()),
        );
        let defined: Vec<(Range<usize>, Vec<Related>)> = substituted
            .resolved
            .iter()
            .filter_map(|(names, range)| {
                let related = definitions(names, post_build);
                (!related.is_empty()).then(|| (range.clone(), related))
            })
            .collect();
        let ranges = character_ranges(&substituted.text, defined.iter().map(|d| d.0.clone()));
        Ok(PostBuilt {
            text: substituted.text,
            unresolved,
            variables: ranges
                .into_iter()
                .zip(defined)
                .map(|(range, (_, related))| (range, related))
                .collect(),
            findings,
        })
    }
}

/// Where the variables `names` are defined, as related locations.
fn definitions(names: &BTreeSet<String>, post_build: &PostBuild) -> Vec<Related> {
    names
        .iter()
        .filter_map(|name| {
            let location = post_build.definitions.get(name)?;
            let value = post_build.variables.get(name).unwrap_or_default();
            Some(Related {
                location: location.clone(),
                message: format!("variable {name} = `{value}`, substituted by Flux"),
            })
        })
        .collect()
}

/// One info finding per sealed variable the unit's objects use, at its first `${…}` in the
/// files the unit reads (else at `postBuild`), the source that holds it related.
fn unknown_variable_findings(
    unresolved: &[super::Unresolved],
    post_build: &PostBuild,
    entry: &Entry,
    closure: &BTreeSet<PathBuf>,
) -> Vec<Finding> {
    let mut uses: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for expression in unresolved {
        for name in &expression.names {
            if post_build.unknown.contains_key(name) {
                uses.entry(name.as_str())
                    .or_default()
                    .push(expression.expression.as_str());
            }
        }
    }
    if uses.is_empty() {
        return Vec::new();
    }
    let texts: Vec<(Arc<str>, String)> = closure
        .iter()
        .filter_map(|file| {
            let text = crate::source::read_file_text(file).ok()?;
            Some((crate::source::display_path(file), text))
        })
        .collect();
    uses.into_iter()
        .map(|(name, expressions)| {
            let source = &post_build.unknown[name];
            let location = expressions
                .iter()
                .find_map(|expression| locate(&texts, expression))
                .unwrap_or_else(|| entry.post_build_location());
            Finding::new(
                &rules::UNIT_NOT_RENDERED,
                location,
                format!(
                    "variable {name} is not substituted: its value comes from {source}, which kvlint cannot read offline; fields that use it are not checked"
                ),
            )
            .with_related(Related {
                location: entry.post_build_location(),
                message: format!("the postBuild variables of Flux Kustomization {}", entry.name),
            })
        })
        .collect()
}

/// The first place `expression` is written in `texts`.
fn locate(texts: &[(Arc<str>, String)], expression: &str) -> Option<Location> {
    texts.iter().find_map(|(file, text)| {
        let at = text.find(expression)?;
        let before = &text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
            .chars()
            .count()
            + 1;
        let end = column + expression.chars().count();
        let number = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Some(Location::lines(
            Arc::clone(file),
            (number(line), number(column)),
            (number(line), number(end)),
        ))
    })
}

/// Byte ranges of `text`, in increasing order, as character ranges (the positions YAML nodes
/// carry).
fn character_ranges(text: &str, ranges: impl Iterator<Item = Range<usize>>) -> Vec<Range<usize>> {
    let mut at = (0, 0);
    let mut chars = |byte: usize| {
        if byte < at.0 {
            at = (0, 0);
        }
        at = (byte, at.1 + text[at.0..byte].chars().count());
        at.1
    };
    ranges
        .map(|range| {
            let start = chars(range.start);
            start..chars(range.end)
        })
        .collect()
}
