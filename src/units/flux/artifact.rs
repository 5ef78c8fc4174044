//! What of the repository reaches kustomize-controller: source-controller packages a
//! GitRepository into an artifact without the files its defaults, the `.sourceignore` files
//! and the GitRepository's `spec.ignore` exclude (`reconcileArtifact`: `spec.ignore` is read
//! after the `.sourceignore` files, so it decides over them). A Flux build that needs an
//! excluded file fails: its path, or a file or directory a kustomization of the build lists,
//! is not in the artifact.

use std::path::Path;
use std::sync::Arc;

use super::Entry;
use super::sourceignore::{Artifact, Exclusion, SpecIgnore};
use crate::diag::{Finding, Location, Related};
use crate::k8s::normalise_path;
use crate::rules;
use crate::units::discover::{self, Unbuildable};
use crate::units::kustomization::{FILE_NAMES, RefKind, Reference, is_remote};
use crate::yaml::{self, Limits, Node};

const GROUP: &str = "source.toolkit.fluxcd.io";

/// A Flux GitRepository read from the checked files, with its `spec.ignore`.
#[derive(Clone, Debug)]
pub(crate) struct GitSource {
    pub name: String,
    pub namespace: Option<String>,
    pub ignore: Option<SpecIgnore>,
}

/// The GitRepositories of one checked file's text.
pub(crate) fn git_sources(file: &Arc<str>, text: &str) -> Vec<GitSource> {
    if !text.contains(GROUP) || !text.contains("GitRepository") {
        return Vec::new();
    }
    yaml::parse_stream(text, Limits::default())
        .into_iter()
        .flatten()
        .filter_map(|document| git_source(file, text, &document.root))
        .collect()
}

fn git_source(file: &Arc<str>, source: &str, node: &Node) -> Option<GitSource> {
    if !super::is_object_of(node, GROUP, "GitRepository") {
        return None;
    }
    let text = |key: &str| super::metadata_text(node, key);
    let ignore = node.get("spec").and_then(|spec| spec.entry("ignore"));
    Some(GitSource {
        name: text("name")?,
        namespace: text("namespace"),
        ignore: ignore.and_then(|entry| {
            let ignore = entry.value.as_str()?;
            Some(SpecIgnore {
                text: ignore.to_owned(),
                field: Location {
                    file: Arc::clone(file),
                    span: entry.key_span,
                },
                lines: block_lines(file, source, entry.key_span.start.line, ignore),
            })
        }),
    })
}

/// Where each line of `value` is written, when the field at `key_line` of `source` holds it
/// as a literal block (`ignore: |`), one file line for each; else none.
fn block_lines(file: &Arc<str>, source: &str, key_line: u32, value: &str) -> Vec<Location> {
    let mut lines = source
        .lines()
        .skip(usize::try_from(key_line).unwrap_or(usize::MAX));
    let literal = source
        .lines()
        .nth(usize::try_from(key_line.saturating_sub(1)).unwrap_or(usize::MAX))
        .and_then(|line| line.split_once(':'))
        .is_some_and(|(_, after)| after.trim_start().starts_with('|'));
    if !literal {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (n, expected) in value.lines().enumerate() {
        let Some(written) = lines.next() else {
            return Vec::new();
        };
        if written.trim() != expected.trim() {
            return Vec::new();
        }
        let number = key_line + 1 + u32::try_from(n).unwrap_or(u32::MAX);
        let indent = written.len() - written.trim_start().len();
        let column = |bytes: usize| crate::yaml::Pos {
            line: number,
            column: u32::try_from(written[..bytes].chars().count() + 1).unwrap_or(u32::MAX),
            index: 0,
        };
        out.push(Location {
            file: Arc::clone(file),
            span: crate::yaml::Span {
                start: column(indent),
                end: column(written.trim_end().len()),
            },
        });
    }
    out
}

/// The GitRepository among `sources` that `entry`'s `spec.sourceRef` names (its namespace
/// defaults to the entry's; a GitRepository written without one is taken as in any).
pub(crate) fn source_of<'s>(entry: &Entry, sources: &'s [GitSource]) -> Option<&'s GitSource> {
    let reference = entry.spec.get("sourceRef")?;
    if reference.get("kind").and_then(serde_json::Value::as_str) != Some("GitRepository") {
        return None;
    }
    let name = reference.get("name")?.as_str()?;
    let namespace = reference
        .get("namespace")
        .and_then(serde_json::Value::as_str)
        .or(entry.namespace.as_deref());
    sources.iter().find(|source| {
        source.name == name
            && (source.namespace.is_none() || source.namespace.as_deref() == namespace)
    })
}

/// The root of a Flux Kustomization whose `spec.path` the artifact leaves out, marked as not
/// buildable for that reason.
pub(crate) fn path_left_out(
    entry: &Entry,
    mut root: discover::Root,
    exclusion: Option<Exclusion>,
) -> discover::Root {
    if let Some(exclusion) = exclusion {
        root.unbuildable.push(Unbuildable::LeftOut {
            file: Arc::clone(&entry.file),
            reference: Reference {
                kind: RefKind::Resource,
                value: entry.path.clone(),
                span: entry.path_span,
            },
            pattern: exclusion.pattern,
            at: exclusion.at,
        });
    }
    root
}

/// The finding for a Flux Kustomization whose `spec.path`, a directory without a
/// kustomization, the artifact leaves out.
pub(crate) fn generated_path_left_out(entry: &Entry, dir: &Path, exclusion: &Exclusion) -> Finding {
    listed_left_out(
        &crate::units::display_dir(dir),
        entry.path_location(),
        &entry.path,
        exclusion,
    )
}

/// The files and directories the kustomizations of `root`'s build list that the artifact
/// leaves out, each with the pattern that excludes it.
pub(crate) fn left_out(
    root: &discover::Root,
    tree: &mut discover::Tree,
    artifact: &mut Artifact<'_>,
) -> Vec<Unbuildable> {
    let mut out = Vec::new();
    for dir in &root.directories {
        let Some(kustomization) = tree.kustomization(dir) else {
            continue;
        };
        for reference in &kustomization.references {
            if is_remote(&reference.value) {
                continue;
            }
            let target = normalise_path(&dir.join(&reference.value));
            let exclusion = if target.is_dir() {
                artifact.excluded_by(&target, true).or_else(|| {
                    let own = FILE_NAMES
                        .iter()
                        .map(|name| target.join(name))
                        .find(|file| file.is_file())?;
                    artifact.excluded_by(&own, false)
                })
            } else {
                artifact.excluded_by(&target, false)
            };
            if let Some(exclusion) = exclusion {
                out.push(Unbuildable::LeftOut {
                    file: Arc::clone(&kustomization.file),
                    reference: reference.clone(),
                    pattern: exclusion.pattern,
                    at: exclusion.at,
                });
            }
        }
    }
    out
}

/// The finding for a listed file or directory the artifact leaves out.
pub(crate) fn listed_left_out(
    unit: &str,
    location: Location,
    value: &str,
    exclusion: &Exclusion,
) -> Finding {
    failed_build(
        location,
        format!(
            "Flux cannot build {unit}: `{value}` is left out of the source artifact by {}, so kustomize-controller does not find it",
            by(exclusion)
        ),
        exclusion,
    )
}

fn failed_build(location: Location, message: String, exclusion: &Exclusion) -> Finding {
    let finding = Finding::new(&rules::KUSTOMIZE_BUILD_FAILED, location, message).with_help(
        "source-controller packages the repository without what its default exclusions, the `.sourceignore` files and the GitRepository's `spec.ignore` exclude; re-include the path (`!path`) or stop listing it. Flux cannot apply a unit that does not build; its files are checked as written",
    );
    match &exclusion.at {
        Some(at) => finding.with_related(Related {
            location: at.clone(),
            message: format!("`{}` excludes it", exclusion.pattern),
        }),
        None => finding,
    }
}

/// How the report names the pattern that excludes a path.
fn by(exclusion: &Exclusion) -> String {
    match &exclusion.at {
        Some(_) => format!("`{}`", exclusion.pattern),
        None => format!(
            "source-controller's default exclusion `{}`",
            exclusion.pattern
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: fleet
spec:
  url: https://example.com/fleet.git
  ignore: |
    # keep clusters only
    /*

    !/clusters
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flow
  namespace: other
spec:
  ignore: \"/drafts\"
";

    #[test]
    fn each_line_of_a_literal_ignore_block_has_its_place() {
        let file: Arc<str> = Arc::from("sync.yaml");
        let sources = git_sources(&file, SOURCE);
        assert_eq!(sources.len(), 2);
        let ignore = sources[0].ignore.as_ref().unwrap();
        assert_eq!(ignore.text, "# keep clusters only\n/*\n\n!/clusters\n");
        let at: Vec<(u32, u32, u32)> = ignore
            .lines
            .iter()
            .map(|l| (l.span.start.line, l.span.start.column, l.span.end.column))
            .collect();
        assert_eq!(at, [(8, 5, 25), (9, 5, 7), (10, 1, 1), (11, 5, 15)]);
        // A quoted value has no lines of its own: patterns point at the field.
        let quoted = sources[1].ignore.as_ref().unwrap();
        assert!(quoted.lines.is_empty());
        assert_eq!(quoted.field.span.start.line, 19);
    }

    #[test]
    fn the_source_ref_namespace_defaults_to_the_kustomization_namespace() {
        let file: Arc<str> = Arc::from("sync.yaml");
        let sources = git_sources(&file, SOURCE);
        let entry = |namespace: Option<&str>, reference: serde_json::Value| Entry {
            file: Arc::clone(&file),
            span: crate::yaml::Span::default(),
            name: "apps".to_owned(),
            namespace: namespace.map(str::to_owned),
            path: "./apps".to_owned(),
            path_span: crate::yaml::Span::default(),
            spec: serde_json::json!({ "sourceRef": reference }),
            post_build_span: None,
            substitute_spans: std::collections::BTreeMap::new(),
            rendered_by: None,
        };
        let named = |e: &Entry| source_of(e, &sources).map(|s| s.name.clone());
        let flow = serde_json::json!({"kind": "GitRepository", "name": "flow"});
        assert_eq!(
            named(&entry(Some("other"), flow.clone())),
            Some("flow".to_owned())
        );
        assert_eq!(named(&entry(Some("flux-system"), flow)), None);
        let across =
            serde_json::json!({"kind": "GitRepository", "name": "flow", "namespace": "other"});
        assert_eq!(
            named(&entry(Some("flux-system"), across)),
            Some("flow".to_owned())
        );
        // Written without a namespace: taken as in any.
        let fleet = serde_json::json!({"kind": "GitRepository", "name": "fleet"});
        assert_eq!(
            named(&entry(Some("flux-system"), fleet)),
            Some("fleet".to_owned())
        );
        let bucket = serde_json::json!({"kind": "Bucket", "name": "fleet"});
        assert_eq!(named(&entry(None, bucket)), None);
    }
}
