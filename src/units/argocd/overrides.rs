//! Parameter overrides committed beside a source: `.argocd-source.yaml`, then
//! `.argocd-source-<appName>.yaml`, each merged onto the Application's source as a JSON merge
//! patch before the repo server decides the source's type and renders it (reposerver/repository
//! `mergeSourceParameters`); `chart`, `path`, `repoURL` and `targetRevision` keep the
//! Application's values. Argo CD Image Updater's git write-back writes these files.
//!
//! The merged source keeps each value's position in the file that wrote it; [`Override`]s and
//! [`contribution`] say which file that is.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::Finding;
use crate::suppress::inline::Suppression;
use crate::yaml::{self, Entry, Limits, Mapping, Node, Value};

/// The namespace Argo CD runs in, as installed by default: an Application there (or without a
/// namespace) is known by its name alone.
const CONTROL_PLANE_NAMESPACE: &str = "argocd";

/// The fields of the source an override file cannot change.
const KEPT: [&str; 4] = ["chart", "path", "repoURL", "targetRevision"];

/// One override file of a source's directory.
#[derive(Clone, Debug)]
pub(crate) struct Override {
    /// The file, as the report names it.
    pub file: Arc<str>,
    pub text: Arc<str>,
    pub path: PathBuf,
    /// Its (first) document.
    pub root: Node,
}

/// The name Argo CD's repo server is given for an Application (`Application.InstanceName`):
/// `<namespace>_<name>` for an Application outside Argo CD's own namespace.
pub(crate) fn instance_name(name: &str, namespace: Option<&str>) -> String {
    match namespace {
        Some(namespace) if !namespace.is_empty() && namespace != CONTROL_PLANE_NAMESPACE => {
            format!("{namespace}_{name}")
        }
        _ => name.to_owned(),
    }
}

/// The override files of `dir` for the Application known as `instance`, in merge order, or
/// the message the repo server fails the Application with.
pub(crate) fn read(dir: &Path, instance: &str) -> Result<Vec<Override>, String> {
    let mut names = vec![".argocd-source.yaml".to_owned()];
    if !instance.is_empty() {
        names.push(format!(".argocd-source-{instance}.yaml"));
    }
    let mut out = Vec::new();
    for name in names {
        let path = dir.join(&name);
        // A directory of that name, or no file, is skipped, as `os.Stat` decides.
        if !path.is_file() {
            continue;
        }
        let file = crate::source::display_path(&path);
        let failed =
            |problem: &str| format!("error while parsing source parameters: {file}: {problem}");
        let text = crate::source::read_file_text(&path).map_err(|p| failed(&p.message))?;
        let root = match yaml::parse_stream(&text, Limits::default())
            .into_iter()
            .next()
        {
            None => continue,
            Some(Err(err)) => {
                return Err(failed(&format!(
                    "error converting YAML to JSON: {} (line {})",
                    err.message, err.pos.line
                )));
            }
            Some(Ok(doc)) => doc.root,
        };
        match root.value {
            Value::Null => continue,
            Value::Map(_) => {}
            _ => return Err(failed("Invalid JSON Patch")),
        }
        out.push(Override {
            file,
            text: Arc::from(text),
            path,
            root,
        });
    }
    Ok(out)
}

/// The suppression comments of `overrides` not scanned yet (`scanned`: a file shared by the
/// Applications of a directory is scanned once), and the findings about malformed ones.
pub(crate) fn suppressions(
    overrides: &[Override],
    scanned: &mut std::collections::BTreeSet<PathBuf>,
) -> (Vec<Suppression>, Vec<Finding>) {
    let mut out = (Vec::new(), Vec::new());
    for file in overrides {
        if !file.text.contains("kvlint:") || !scanned.insert(file.path.clone()) {
            continue;
        }
        let range = (file.root.span.start.line, file.root.span.end.line);
        let (suppressions, problems) =
            crate::suppress::inline::scan(&file.file, &file.text, &[range]);
        out.0.extend(suppressions);
        out.1.extend(problems);
    }
    out
}

/// `source` with `overrides` merged onto it in order, the fields Argo CD keeps restored.
pub(crate) fn merged(source: &Node, overrides: &[Override]) -> Node {
    let mut merged = source.clone();
    for patch in overrides {
        merge_patch(&mut merged, &patch.root);
    }
    if overrides.is_empty() {
        return merged;
    }
    let Value::Map(mapping) = merged.value else {
        return merged;
    };
    let mut entries: Vec<Entry> = mapping
        .into_iter()
        .filter(|entry| !KEPT.contains(&entry.key.as_str()))
        .collect();
    entries.extend(KEPT.iter().filter_map(|key| source.entry(key)).cloned());
    Node {
        value: Value::Map(Mapping::new(entries)),
        span: merged.span,
    }
}

/// RFC 7386 (evanphx/json-patch `MergePatch`): a mapping merges key by key, `null` removes the
/// key, anything else replaces the value.
fn merge_patch(target: &mut Node, patch: &Node) {
    let Value::Map(patch_entries) = &patch.value else {
        *target = match target.value {
            Value::Map(_) => patch.clone(),
            _ => without_nulls(patch),
        };
        return;
    };
    if !matches!(target.value, Value::Map(_)) {
        *target = without_nulls(patch);
        return;
    }
    let Value::Map(mapping) = std::mem::replace(&mut target.value, Value::Null) else {
        return;
    };
    let mut entries = mapping.into_vec();
    for patched in patch_entries {
        let at = entries.iter().position(|e| e.key == patched.key);
        match (at, &patched.value.value) {
            (Some(at), Value::Null) => {
                entries.remove(at);
            }
            (None, Value::Null) => {}
            (Some(at), _) if entries[at].value.value != Value::Null => {
                merge_patch(&mut entries[at].value, &patched.value);
            }
            (Some(at), _) => entries[at].value = without_nulls(&patched.value),
            (None, _) => entries.push(Entry {
                key: patched.key.clone(),
                key_span: patched.key_span,
                value: without_nulls(&patched.value),
            }),
        }
    }
    target.value = Value::Map(Mapping::new(entries));
}

/// A patch value as it lands where nothing is merged into: its `null`s removed.
fn without_nulls(node: &Node) -> Node {
    match &node.value {
        Value::Map(entries) => Node {
            value: Value::Map(Mapping::new(
                entries
                    .iter()
                    .filter(|e| e.value.value != Value::Null)
                    .map(|e| Entry {
                        value: without_nulls(&e.value),
                        ..e.clone()
                    })
                    .collect(),
            )),
            span: node.span,
        },
        Value::Seq(items) => Node {
            value: Value::Seq(items.iter().map(without_nulls).collect()),
            span: node.span,
        },
        _ => node.clone(),
    }
}

/// What of `node` (a source or an override file, at the same level as `later`) is still in
/// the merged source after the `later` files are merged: every value a later file replaces or
/// removes is left out.
pub(crate) fn contribution(node: &Node, later: &[&Node]) -> Option<Node> {
    let mut node = without_nulls(node);
    for patch in later {
        if !matches!(patch.value, Value::Map(_)) {
            return None;
        }
        left_after(&mut node, patch);
    }
    Some(node)
}

fn left_after(node: &mut Node, patch: &Node) {
    let (Value::Map(patched), Value::Map(mapping)) = (&patch.value, &mut node.value) else {
        return;
    };
    let mut entries = std::mem::take(mapping).into_vec();
    entries.retain_mut(|entry| {
        let Some(replacing) = patched.by_key(&entry.key) else {
            return true;
        };
        if matches!(
            (&replacing.value.value, &entry.value.value),
            (Value::Map(_), Value::Map(_))
        ) {
            left_after(&mut entry.value, &replacing.value);
            return true;
        }
        false
    });
    *mapping = Mapping::new(entries);
}

/// How deep `path` reaches into `node`, and the key position of the deepest entry reached: a
/// value that is not a mapping before the end stands for the whole rest of the path (a merge
/// patch replaces it whole).
pub(crate) fn reach(node: &Node, path: &[&str]) -> Option<(usize, yaml::Span)> {
    let mut current = node;
    let mut found = None;
    for (depth, key) in path.iter().enumerate() {
        let Some(entry) = current.entry(key) else {
            return found;
        };
        if !matches!(entry.value.value, Value::Map(_)) {
            return Some((path.len(), entry.key_span));
        }
        found = Some((depth + 1, entry.key_span));
        current = &entry.value;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::first_root as node;

    #[test]
    fn instance_names_follow_apps_in_any_namespace() {
        assert_eq!(instance_name("web", Some("argocd")), "web");
        assert_eq!(instance_name("web", None), "web");
        assert_eq!(instance_name("web", Some("team-a")), "team-a_web");
    }

    #[test]
    fn overrides_merge_as_a_json_merge_patch_and_keep_the_source_identity() {
        let source = node(
            "repoURL: https://git.example.com/repo.git
path: apps/web
kustomize:
  namePrefix: a-
  images: [nginx:1]
  commonLabels: {team: a, tier: web}
",
        );
        let first = Override {
            file: Arc::from(".argocd-source.yaml"),
            text: Arc::from(""),
            path: PathBuf::new(),
            root: node(
                "path: elsewhere
kustomize:
  images: [nginx:2, redis:7]
  commonLabels: {team: b, tier: null}
",
            ),
        };
        let second = Override {
            root: node(
                "kustomize: {namePrefix: null, nameSuffix: -x}\nhelm: {parameters: [{name: a, value: b, x: null}]}\n",
            ),
            ..first.clone()
        };
        let merged = merged(&source, &[first, second]);
        assert_eq!(
            merged.to_json(),
            serde_json::json!({
                "kustomize": {
                    "images": ["nginx:2", "redis:7"],
                    "commonLabels": {"team": "b"},
                    "nameSuffix": "-x",
                },
                "helm": {"parameters": [{"name": "a", "value": "b"}]},
                "repoURL": "https://git.example.com/repo.git",
                "path": "apps/web",
            })
        );
    }

    #[test]
    fn a_file_contributes_what_no_later_file_replaces() {
        let source =
            node("kustomize: {images: [a:1], commonLabels: {team: a, tier: web}, namespace: x}\n");
        let patch = node("kustomize: {images: [a:2], commonLabels: {team: b}, namespace: null}\n");
        let left = contribution(&source, &[&patch]).unwrap();
        assert_eq!(
            left.to_json(),
            serde_json::json!({"kustomize": {"commonLabels": {"tier": "web"}}})
        );
        assert_eq!(reach(&patch, &["kustomize", "images"]).unwrap().0, 2);
        assert_eq!(reach(&patch, &["kustomize", "replicas"]).unwrap().0, 1);
        assert_eq!(
            reach(&node("kustomize: null\n"), &["kustomize", "images"])
                .unwrap()
                .0,
            2
        );
        assert_eq!(reach(&patch, &["helm"]), None);
    }

    #[test]
    fn unreadable_override_files_fail_the_application() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".argocd-source.yaml"), "- a\n").unwrap();
        let error = read(dir.path(), "web").unwrap_err();
        assert!(
            error.ends_with(".argocd-source.yaml: Invalid JSON Patch"),
            "{error}"
        );
        std::fs::write(dir.path().join(".argocd-source.yaml"), "kustomize: [\n").unwrap();
        let error = read(dir.path(), "web").unwrap_err();
        assert!(error.contains("error converting YAML to JSON"), "{error}");
        std::fs::write(dir.path().join(".argocd-source.yaml"), "").unwrap();
        std::fs::create_dir(dir.path().join(".argocd-source-web.yaml")).unwrap();
        assert!(read(dir.path(), "web").unwrap().is_empty());
        std::fs::write(
            dir.path().join(".argocd-source-team_web.yaml"),
            "helm: {}\n",
        )
        .unwrap();
        let found = read(dir.path(), "team_web").unwrap();
        assert_eq!(found.len(), 1);
        assert!(found[0].file.ends_with(".argocd-source-team_web.yaml"));
    }
}
