//! `helm template`'s output as objects located in the chart's files: each document follows a
//! `# Source: <chart>/templates/<file>` line, and its fields are placed at the template lines
//! that write them (`positions`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use crate::diag::Finding;
use crate::k8s::{Object, RenderedIn};
use crate::suppress::inline::Suppression;
use crate::yaml::{Limits, Node, Value};

use super::positions::{Outline, place_all};
use super::post_render::{PatchLines, relocate};
use super::release::Release;

/// The objects of one release's output and what reading them leaves for the report.
#[derive(Debug, Default)]
pub(super) struct Read {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    pub suppressions: Vec<Suppression>,
    pub sources: Vec<(Arc<str>, Arc<str>)>,
}

/// A template file read: as the report names it, and its text.
type Template = (Arc<str>, Arc<str>);

/// One document of the output: the template file it came from (relative to the chart) and
/// its text.
struct Document<'o> {
    source: Option<&'o str>,
    text: String,
}

/// Splits the output at `---` lines, each part's `# Source:` line naming its template.
fn documents(output: &str) -> Vec<Document<'_>> {
    let mut out: Vec<Document<'_>> = Vec::new();
    let mut current = Document {
        source: None,
        text: String::new(),
    };
    for line in output.lines() {
        if line.trim_end() == "---" {
            out.push(std::mem::replace(
                &mut current,
                Document {
                    source: None,
                    text: String::new(),
                },
            ));
            continue;
        }
        if current.source.is_none()
            && let Some(source) = line.strip_prefix("# Source: ")
        {
            current.source = Some(source.trim());
        }
        current.text.push_str(line);
        current.text.push('\n');
    }
    out.push(current);
    out.retain(|document| {
        document
            .text
            .lines()
            .any(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
    });
    out
}

/// The objects of Kustomize's output.
fn parsed(text: &str) -> Vec<Node> {
    crate::yaml::parse_stream(text, Limits::default())
        .into_iter()
        .filter_map(Result::ok)
        .map(|document| document.root)
        .filter(|root| root.value != Value::Null)
        .collect()
}

/// The file of the chart a `# Source:` path names: the path without its first component (the
/// chart's name), under the chart directory, or under the directory of the local dependency
/// placed in `charts/` for the rendering.
fn template_path(
    chart: &Path,
    subcharts: &[(String, std::path::PathBuf)],
    source: &str,
) -> Option<std::path::PathBuf> {
    let (_, inside) = source.split_once('/')?;
    if let Some(path) = super::dependencies::subchart_file(subcharts, inside) {
        return Some(path);
    }
    let path = crate::k8s::normalise_path(&chart.join(inside));
    path.starts_with(crate::k8s::normalise_path(chart))
        .then_some(path)
}

/// The part of its template each document was printed from (`parts::assign`, template by
/// template); 0 for a document without a template read.
fn parts_of(
    documents: &[(Option<&str>, Node)],
    outlines: &BTreeMap<&str, Outline<'_>>,
) -> Vec<usize> {
    let mut parts = vec![0; documents.len()];
    for (source, outline) in outlines {
        let (at, roots): (Vec<usize>, Vec<&Node>) = documents
            .iter()
            .enumerate()
            .filter(|(_, (of, _))| of == &Some(*source))
            .map(|(n, (_, root))| (n, root))
            .unzip();
        for (n, part) in at.into_iter().zip(super::parts::assign(outline, &roots)) {
            parts[n] = part;
        }
    }
    parts
}

/// Reads `output`, the release's rendering, and `post_rendered`, what its post renderers made
/// of it (`post_render`); objects without a namespace are in the release
/// namespace. A template file not in `scanned` is scanned for suppression comments (and its
/// text kept) and added to it: one comment, whatever the number of releases of the chart.
pub(super) fn read(
    release: &Release,
    output: &str,
    post_rendered: Option<&str>,
    keep_sources: bool,
    scanned: &mut BTreeSet<Arc<str>>,
) -> Read {
    let mut read = Read::default();
    let unit_path: Arc<str> = Arc::from(release.unit.path.as_str());
    let rendered = Arc::new(RenderedIn {
        unit: Arc::clone(&release.unit),
        attribution: None,
        unresolved: Vec::new(),
        variables: Vec::new(),
    });
    let documents: Vec<(Option<&str>, Node)> = documents(output)
        .into_iter()
        .filter_map(|document| {
            let parsed = crate::yaml::parse_stream(&document.text, Limits::default())
                .into_iter()
                .next()?
                .ok()?;
            (parsed.root.value != Value::Null).then_some((document.source, parsed.root))
        })
        .collect();
    // Each template file read and outlined once, however many documents it renders.
    let templates: BTreeMap<&str, Template> = documents
        .iter()
        .filter_map(|(source, _)| *source)
        .collect::<BTreeSet<&str>>()
        .into_iter()
        .filter_map(|source| {
            let path = template_path(&release.chart, &release.dependencies.subcharts, source)?;
            let text = crate::source::read_file_text(&path).ok()?;
            Some((
                source,
                (crate::source::display_path(&path), Arc::from(text)),
            ))
        })
        .collect();
    let outlines: BTreeMap<&str, Outline<'_>> = templates
        .iter()
        .map(|(source, (_, text))| (*source, Outline::new(text)))
        .collect();
    let parts = parts_of(&documents, &outlines);
    let mut placed: Vec<(Arc<str>, Node)> = Vec::with_capacity(documents.len());
    for ((source, mut root), part) in documents.into_iter().zip(parts) {
        let template = source.and_then(|source| Some((source, outlines.get(source)?)));
        let file = if let Some((source, outline)) = template {
            outline.place(part, &mut root);
            Arc::clone(&templates[source].0)
        } else {
            // A template of a packaged subchart: at the entry point's chart field.
            place_all(&mut root, release.at.span);
            Arc::clone(&release.at.file)
        };
        placed.push((file, root));
    }
    let located: Vec<(Arc<str>, Node, Option<PatchLines>)> =
        match (post_rendered, &release.post_renderers) {
            (Some(text), Some(renderers)) => relocate(renderers, &placed, parsed(text))
                .into_iter()
                .map(|object| (object.file, object.root, Some(object.attribution)))
                .collect(),
            _ => placed
                .into_iter()
                .map(|(file, root)| (file, root, None))
                .collect(),
        };
    for (file, root, attribution) in located {
        let rendered = match attribution {
            Some(attribution) => Arc::new(RenderedIn {
                unit: Arc::clone(&release.unit),
                attribution: Some(Box::new(attribution)),
                unresolved: Vec::new(),
                variables: Vec::new(),
            }),
            None => Arc::clone(&rendered),
        };
        let (objects, findings) =
            crate::load::rendered_objects(&file, &unit_path, &release.namespace, root);
        read.findings.extend(findings);
        read.objects.extend(objects.into_iter().map(|mut object| {
            object.rendered_in = Some(Arc::clone(&rendered));
            object
        }));
    }
    drop(outlines);
    for (display, text) in templates.into_values() {
        if !scanned.insert(Arc::clone(&display)) {
            continue;
        }
        if text.contains("kvlint:") {
            let last = u32::try_from(text.lines().count())
                .unwrap_or(u32::MAX)
                .max(1);
            let (suppressions, problems) =
                crate::suppress::inline::scan(&display, &text, &[(1, last)]);
            read.suppressions.extend(suppressions);
            read.findings.extend(problems);
        }
        if keep_sources {
            read.sources.push((display, text));
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_split_at_separators_with_their_sources() {
        let output = "---\n# Source: vm/templates/a.yaml\nkind: A\n---\n# Source: vm/templates/b.yaml\n# only a comment\n---\n# Source: vm/charts/db/templates/c.yaml\nkind: C\n";
        let found: Vec<(Option<&str>, usize)> = documents(output)
            .iter()
            .map(|d| (d.source, d.text.lines().count()))
            .collect();
        assert_eq!(
            found,
            [
                (Some("vm/templates/a.yaml"), 2),
                (Some("vm/charts/db/templates/c.yaml"), 2)
            ]
        );
        assert_eq!(
            template_path(Path::new("charts/vm"), &[], "vm/charts/db/templates/c.yaml"),
            Some(Path::new("charts/vm/charts/db/templates/c.yaml").to_path_buf())
        );
        assert_eq!(template_path(Path::new("c"), &[], "no-slash"), None);
    }
}
