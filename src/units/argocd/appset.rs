//! ApplicationSets expanded into the Applications they generate, for the generators kvlint
//! can evaluate offline: `list` (`elements`) and `git` `directories` over this repository
//! (applicationset/generators `ListGenerator`, `GitGenerator.filterApps` and
//! `generateParamsFromApps`), each template rendered as `Render.Replace` renders it. Any other
//! generator is reported (info), not guessed.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};

use super::App;
use super::glob;
use super::template::{NotExpanded, Params};
use crate::diag::{Finding, Location, Via};
use crate::rules;
use crate::yaml::{Mapping, Node, Span, Value};

/// Why kvlint does not expand a generator (the ApplicationSet's other generators still are).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum Unexpanded {
    #[error("the `{0}` generator is not expanded")]
    Generator(String),
    #[error("`elementsYaml` of the list generator is not expanded")]
    ElementsYaml,
    #[error("a list element is not a map")]
    ElementNotAMap,
    #[error("list element value `{0}` is not a string")]
    ElementValueNotAString(String),
    #[error("list element field `{0}` is not a string (Argo CD refuses it without goTemplate)")]
    ElementFieldNotAString(String),
    #[error("the git `files` generator is not expanded")]
    GitFiles,
    #[error("the generator value `{0}` is not expanded")]
    Value(String),
}

/// Directories of the repository looked at, at most, for `git` `directories` generators.
const MAX_DIRECTORIES: usize = 50_000;
/// Applications one ApplicationSet generates, at most: each is a unit kvlint builds.
pub(crate) const MAX_GENERATED: usize = 1_000;

/// The ApplicationSet `node` (a document of `file`) expanded: its Applications and findings
/// about what kvlint did not expand. `repository` is the repository's root directory, whose
/// directories the `git` generator lists.
pub(crate) fn expand(
    file: &Arc<str>,
    text: &Arc<str>,
    node: &Node,
    repository: &Path,
) -> (Vec<App>, Vec<Finding>) {
    let metadata = node.get("metadata");
    let field = |key: &str| {
        metadata
            .and_then(|m| m.get(key))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    let set = SetInfo {
        file,
        text,
        name: field("name").unwrap_or_default(),
        via: Via {
            kind: "ApplicationSet".to_owned(),
            namespace: field("namespace"),
            name: field("name").unwrap_or_default(),
            file: file.to_string(),
            line: node
                .entry("kind")
                .map_or(node.span, |e| e.key_span)
                .start
                .line,
            unit: None,
        },
    };
    let mut out = (Vec::new(), Vec::new());
    let Some(spec) = node.get("spec") else {
        return out;
    };
    let Some(template) = spec.get("template") else {
        return out;
    };
    let go = spec.get("goTemplate").and_then(|g| match g.value {
        Value::Bool(flag) => Some(flag),
        _ => None,
    }) == Some(true);
    let mut directories: Option<Vec<String>> = None;
    for generator in spec
        .get("generators")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let Some(entries) = generator.as_map() else {
            continue;
        };
        let info = |span: Span, message: String| {
            Finding::new(
                &rules::UNIT_NOT_RENDERED,
                Location {
                    file: Arc::clone(file),
                    span,
                },
                message,
            )
        };
        for entry in entries {
            if matches!(entry.key.as_str(), "selector" | "template") {
                out.1.push(info(
                    entry.key_span,
                    format!(
                        "ApplicationSet {}: a generator with a `{}` is not expanded; the Applications it generates are not checked as units",
                        set.name, entry.key
                    ),
                ));
                continue;
            }
            let params = match entry.key.as_str() {
                "list" => list_params(&entry.value, go),
                "git" => {
                    let listed =
                        directories.get_or_insert_with(|| repository_directories(repository));
                    git_params(&entry.value, go, listed)
                }
                other => Err(Unexpanded::Generator(other.to_owned())),
            };
            match params {
                Ok(params) => {
                    for param in params {
                        if out.0.len() >= MAX_GENERATED {
                            out.1.push(info(
                                entry.key_span,
                                format!(
                                    "ApplicationSet {}: more than {MAX_GENERATED} Applications; the others are not checked as units",
                                    set.name
                                ),
                            ));
                            break;
                        }
                        match render(template, &param) {
                            Ok(rendered) => out.0.push(set.app(&rendered)),
                            Err(problem) => {
                                out.1.push(info(entry.key_span, set.not_expanded(&problem)));
                                break;
                            }
                        }
                    }
                }
                Err(why) => out.1.push(info(
                    entry.key_span,
                    format!(
                        "ApplicationSet {}: {why}; the Applications it generates are not checked as units",
                        set.name
                    ),
                )),
            }
        }
    }
    out
}

struct SetInfo<'a> {
    file: &'a Arc<str>,
    text: &'a Arc<str>,
    name: String,
    via: Via,
}

impl SetInfo<'_> {
    fn app(&self, template: &Node) -> App {
        let name = template
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_owned();
        App {
            file: Arc::clone(self.file),
            text: Arc::clone(self.text),
            span: name_span(template),
            name,
            via: self.via.clone(),
            spec: template.get("spec").cloned().unwrap_or(Node {
                value: Value::Null,
                span: template.span,
            }),
        }
    }

    fn not_expanded(&self, problem: &NotExpanded) -> String {
        match problem {
            NotExpanded::Invalid(message) => format!(
                "ApplicationSet {}: invalid template, {message}: Argo CD generates no Application from it",
                self.name
            ),
            NotExpanded::Unsupported(action) => format!(
                "ApplicationSet {}: the template is not expanded ({action} is more than a parameter kvlint can read); the Applications it generates are not checked as units",
                self.name
            ),
        }
    }
}

/// Where a generated Application is written: its template's `metadata.name`.
fn name_span(template: &Node) -> Span {
    template
        .get("metadata")
        .and_then(|m| m.entry("name"))
        .map_or(template.span, |e| e.key_span)
}

/// The template with every string and key rendered with `params`.
fn render(template: &Node, params: &Params) -> Result<Node, NotExpanded> {
    let mut node = template.clone();
    render_node(&mut node, params)?;
    Ok(node)
}

fn render_node(node: &mut Node, params: &Params) -> Result<(), NotExpanded> {
    match &mut node.value {
        Value::Str(text) => *text = params.replace(text)?,
        Value::Seq(items) => {
            for item in items {
                render_node(item, params)?;
            }
        }
        Value::Map(map) => {
            let mut entries = std::mem::take(map).into_vec();
            for entry in &mut entries {
                entry.key = params.replace(&entry.key)?;
                render_node(&mut entry.value, params)?;
            }
            *map = Mapping::new(entries);
        }
        _ => {}
    }
    Ok(())
}

/// `list` generator parameters: each element's string fields (`values` flattened to
/// `values.<key>`), or the element itself with `goTemplate`.
fn list_params(list: &Node, go: bool) -> Result<Vec<Params>, Unexpanded> {
    if list
        .get("elementsYaml")
        .and_then(Node::as_str)
        .is_some_and(|y| !y.trim().is_empty())
    {
        return Err(Unexpanded::ElementsYaml);
    }
    let mut out = Vec::new();
    for element in list
        .get("elements")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        let json = element.to_json();
        if go {
            out.push(Params::Go(json));
            continue;
        }
        let Some(object) = json.as_object() else {
            return Err(Unexpanded::ElementNotAMap);
        };
        let mut params = Vec::new();
        for (key, value) in object {
            if key == "values" {
                for (name, value) in value.as_object().into_iter().flatten() {
                    let Some(text) = value.as_str() else {
                        return Err(Unexpanded::ElementValueNotAString(name.clone()));
                    };
                    params.push((format!("values.{name}"), text.to_owned()));
                }
                continue;
            }
            let Some(text) = value.as_str() else {
                return Err(Unexpanded::ElementFieldNotAString(key.clone()));
            };
            params.push((key.clone(), text.to_owned()));
        }
        out.push(Params::Flat(params));
    }
    Ok(out)
}

/// `git` generator parameters: for `directories`, one set per repository directory that a
/// path matches and no `exclude: true` path does.
fn git_params(git: &Node, go: bool, listed: &[String]) -> Result<Vec<Params>, Unexpanded> {
    let directories = git
        .get("directories")
        .and_then(Node::as_seq)
        .unwrap_or_default();
    if directories.is_empty() {
        if git.get("files").is_some() {
            return Err(Unexpanded::GitFiles);
        }
        return Ok(Vec::new());
    }
    let patterns: Vec<(String, bool)> = directories
        .iter()
        .filter_map(|item| {
            let path = item.get("path")?.as_str()?.to_owned();
            Some((path, item.flag("exclude")))
        })
        .collect();
    let prefix = git
        .get("pathParamPrefix")
        .and_then(Node::as_str)
        .unwrap_or("");
    let values: Vec<(String, String)> = git
        .get("values")
        .and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| Some((e.key.clone(), e.value.as_str()?.to_owned())))
        .collect();
    let mut out = Vec::new();
    for dir in listed {
        let (mut included, mut excluded) = (false, false);
        for (pattern, exclude) in &patterns {
            // A malformed pattern is logged and skipped by the generator.
            if glob::path_match(pattern, dir) == Ok(true) {
                if *exclude {
                    excluded = true;
                } else {
                    included = true;
                }
            }
        }
        if included && !excluded {
            let params = directory_params(dir, prefix, go);
            out.push(with_values(params, &values)?);
        }
    }
    Ok(out)
}

/// `generateParamsFromApps` for one directory.
fn directory_params(dir: &str, prefix: &str, go: bool) -> Params {
    let basename = dir.rsplit('/').next().unwrap_or(dir);
    if go {
        let path = json!({
            "path": dir,
            "basename": basename,
            "basenameNormalized": sanitize_name(basename),
            "segments": dir.split('/').collect::<Vec<_>>(),
        });
        let mut data = Map::new();
        if prefix.is_empty() {
            data.insert("path".to_owned(), path);
        } else {
            data.insert(prefix.to_owned(), json!({ "path": path }));
        }
        return Params::Go(Json::Object(data));
    }
    let name = if prefix.is_empty() {
        "path".to_owned()
    } else {
        format!("{prefix}.path")
    };
    let mut params = vec![
        (name.clone(), dir.to_owned()),
        (format!("{name}.basename"), basename.to_owned()),
        (
            format!("{name}.basenameNormalized"),
            sanitize_name(basename),
        ),
    ];
    for (n, segment) in dir.split('/').enumerate() {
        if !segment.is_empty() {
            params.push((format!("{name}[{n}]"), segment.to_owned()));
        }
    }
    Params::Flat(params)
}

/// The generator's `values`, each rendered with the parameters, added as `values.<key>`.
fn with_values(params: Params, values: &[(String, String)]) -> Result<Params, Unexpanded> {
    if values.is_empty() {
        return Ok(params);
    }
    let mut rendered = Vec::new();
    for (key, value) in values {
        let text = params
            .replace(value)
            .map_err(|_| Unexpanded::Value(key.clone()))?;
        rendered.push((key.clone(), text));
    }
    Ok(match params {
        Params::Flat(mut flat) => {
            flat.extend(
                rendered
                    .into_iter()
                    .map(|(k, v)| (format!("values.{k}"), v)),
            );
            Params::Flat(flat)
        }
        Params::Go(mut data) => {
            let values: Map<String, Json> =
                rendered.into_iter().map(|(k, v)| (k, json!(v))).collect();
            if let Some(object) = data.as_object_mut() {
                object.insert("values".to_owned(), Json::Object(values));
            }
            Params::Go(data)
        }
    })
}

/// `utils.SanitizeName`: lower case, characters other than `[-a-z0-9.]` as `-`, at most 253
/// bytes, `-` and `.` trimmed at both ends.
fn sanitize_name(name: &str) -> String {
    let lower = name.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' {
            out.push(c);
        } else {
            out.push('-');
        }
    }
    if out.len() > 253 {
        let mut end = 253;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out.trim_matches(['-', '.']).to_owned()
}

/// The repository's directories as the repo server lists them (`GetGitDirectories`): every
/// directory below the root, relative, `/`-separated, hidden ones (and all below them) left
/// out, in walk order; files git ignores are not in Argo CD's checkout, so neither are
/// directories that only hold them.
fn repository_directories(repository: &Path) -> Vec<String> {
    let walk = ignore::WalkBuilder::new(repository)
        .hidden(true)
        .ignore(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .parents(false)
        .follow_links(false)
        .max_depth(Some(32))
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build();
    walk.flatten()
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_dir()))
        .filter_map(|entry| {
            let relative = entry.path().strip_prefix(repository).ok()?;
            let text = relative.to_str()?.replace('\\', "/");
            (!text.is_empty()).then_some(text)
        })
        .take(MAX_DIRECTORIES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::yaml::first_root as parse;

    #[test]
    fn generators_kvlint_cannot_expand_say_why() {
        let refusal = |text: &str| list_params(&parse(text), false).unwrap_err();
        assert_eq!(
            refusal("elementsYaml: '- a: b'\n"),
            Unexpanded::ElementsYaml
        );
        assert_eq!(refusal("elements: [x]\n"), Unexpanded::ElementNotAMap);
        let field = refusal("elements:\n- path: [a]\n");
        assert_eq!(
            field.to_string(),
            "list element field `path` is not a string (Argo CD refuses it without goTemplate)"
        );
        let value = refusal("elements:\n- values: {size: 2}\n");
        assert_eq!(
            value.to_string(),
            "list element value `size` is not a string"
        );
        let files = git_params(&parse("files:\n- path: a.json\n"), false, &[]).unwrap_err();
        assert_eq!(
            files.to_string(),
            "the git `files` generator is not expanded"
        );
    }

    fn expand_text(text: &str, repository: &Path) -> (Vec<App>, Vec<Finding>) {
        let node = parse(text);
        expand(&Arc::from("sets.yaml"), &Arc::from(text), &node, repository)
    }

    fn paths(apps: &[App]) -> Vec<(String, String)> {
        apps.iter()
            .map(|app| {
                let path = app
                    .spec
                    .get("source")
                    .and_then(|s| s.get("path"))
                    .and_then(Node::as_str)
                    .unwrap_or_default()
                    .to_owned();
                (app.name.clone(), path)
            })
            .collect()
    }

    #[test]
    fn git_directories_match_one_segment_per_star() {
        let temp = tempfile::tempdir().unwrap();
        for dir in [
            "apps/web/overlays/dev",
            "apps/web/overlays/prod",
            "apps/web/overlays/prod/extra",
            "apps/db/overlays/dev",
            "apps/web/base",
            ".hidden/apps/x/overlays/y",
        ] {
            std::fs::create_dir_all(temp.path().join(dir)).unwrap();
        }
        let (apps, findings) = expand_text(
            "apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: overlays, namespace: argocd}
spec:
  generators:
  - git:
      repoURL: https://example.com/repo.git
      revision: HEAD
      directories:
      - path: apps/*/overlays/*
      - path: apps/db/*/*
        exclude: true
  - matrix: {generators: []}
  template:
    metadata:
      name: '{{path[1]}}-{{path.basename}}'
    spec:
      source:
        path: '{{path}}'
      destination:
        namespace: '{{ path[1] }}-{{path.basenameNormalized}}'
",
            temp.path(),
        );
        assert_eq!(
            paths(&apps),
            [
                ("web-dev".to_owned(), "apps/web/overlays/dev".to_owned()),
                ("web-prod".to_owned(), "apps/web/overlays/prod".to_owned()),
            ]
        );
        assert_eq!(apps[0].via.kind, "ApplicationSet");
        assert_eq!(apps[0].via.name, "overlays");
        assert_eq!(apps[0].via.line, 2);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].message.contains("`matrix` generator"));
        assert_eq!(findings[0].location.span.start.line, 13);
    }

    #[test]
    fn list_elements_and_go_templates() {
        let (apps, findings) = expand_text(
            "kind: ApplicationSet
metadata: {name: envs}
spec:
  goTemplate: true
  generators:
  - list:
      elements:
      - {env: dev, dir: apps/web/overlays/dev}
      - {env: prod, dir: apps/web/overlays/prod}
  template:
    metadata:
      name: 'web-{{ .env }}'
    spec:
      source:
        path: '{{.dir}}'
",
            Path::new("/nonexistent"),
        );
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(
            paths(&apps),
            [
                ("web-dev".to_owned(), "apps/web/overlays/dev".to_owned()),
                ("web-prod".to_owned(), "apps/web/overlays/prod".to_owned()),
            ]
        );
        let (apps, findings) = expand_text(
            "kind: ApplicationSet
metadata: {name: envs}
spec:
  goTemplate: true
  generators:
  - list:
      elements:
      - {env: dev}
  template:
    metadata:
      name: 'web-{{ .env | upper }}'
",
            Path::new("/nonexistent"),
        );
        assert!(apps.is_empty());
        assert_eq!(findings.len(), 1);
        assert!(findings[0].message.contains("not expanded"), "{findings:?}");
    }

    #[test]
    fn names_are_sanitized_like_argo_cd() {
        assert_eq!(sanitize_name("My_App.v2-"), "my-app.v2");
        assert_eq!(sanitize_name("--x--"), "x");
    }
}
