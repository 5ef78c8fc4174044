//! The kustomization Flux generates for a `spec.path` that has none (fluxcd/pkg kustomize
//! `findOrGenerateKustomization` and `scanManifests`): every `.yaml`/`.yml` file below the
//! path, in the walk's order (each directory's entries sorted by name), and every subdirectory
//! that holds a kustomization, listed as a directory and not descended. A file that does not
//! decode as Kubernetes objects fails the generation, and with it the Flux build. With nothing
//! to list, the kustomization sets `namespace: _placeholder` (Kustomize refuses an empty one).
//!
//! Flux scans the artifact source-controller packaged: symbolic links and the files
//! `.sourceignore` and source-controller's defaults exclude ([`super::sourceignore`]) are not
//! there.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value as Json, json};

use super::sourceignore::{self, SourceIgnore, SpecIgnore, Written};
use crate::k8s::normalise_path;
use crate::units::kustomization::FILE_NAMES;
use crate::yaml::{self, Limits, Node, Value};

/// Directory levels below the path the scan enters, and entries it reads, at most.
const MAX_DEPTH: usize = 32;
const MAX_ENTRIES: usize = 20_000;

/// What the generated kustomization lists and what its build reads.
#[derive(Debug, PartialEq)]
pub(crate) struct Generated {
    /// The kustomization Flux writes into the path.
    pub kustomization: Json,
    /// The manifest files it lists (normalised, as the report names paths).
    pub files: Vec<PathBuf>,
    /// The kustomization directories it lists.
    pub directories: Vec<PathBuf>,
    /// The `.sourceignore` files that decide what the path holds.
    pub ignore_files: Vec<PathBuf>,
}

/// Why a file is not Kubernetes YAML as Kustomize's resource factory decodes it (its words).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotObjects {
    #[error("{0}")]
    Yaml(String),
    #[error("the document is not a map")]
    NotAMap,
    #[error("kind is not a string")]
    KindNotAString,
    #[error("missing kind in object")]
    MissingKind,
    #[error("empty item at {0} in object")]
    EmptyItem(String),
    #[error("expected array in {0}/items")]
    ItemsNotAnArray(String),
    #[error("missing metadata.name in object")]
    MissingName,
}

/// Why Flux cannot generate the kustomization.
#[derive(Debug, PartialEq)]
pub(crate) enum Problem {
    /// A listed file is not Kubernetes YAML (Flux: `failed to decode Kubernetes YAML`).
    NotKubernetes { file: PathBuf, reason: NotObjects },
    /// kvlint cannot read the path.
    Unreadable { path: PathBuf, reason: String },
    /// The path is larger than kvlint scans.
    TooLarge,
}

/// The kustomization Flux generates for `dir` (no kustomization in it), inside the repository
/// whose root is `root`, both as the report names paths; `spec_ignore` is the GitRepository's
/// `spec.ignore` (its text and where it is written), when the source is known.
pub(crate) fn generate(
    root: &Path,
    dir: &Path,
    spec_ignore: Option<&SpecIgnore>,
) -> Result<Generated, Problem> {
    let relative =
        sourceignore::repository_relative(root, dir).ok_or_else(|| Problem::Unreadable {
            path: dir.to_path_buf(),
            reason: "not below the repository root".to_owned(),
        })?;
    let mut scan = Scan {
        root,
        base: dir,
        ignore_files: sourceignore::ancestor_ignore_files(root, &relative),
        entries: 0,
        resources: Vec::new(),
        files: Vec::new(),
        directories: Vec::new(),
    };
    let mut below = Vec::new();
    collect_ignore_files(dir, 0, &mut below, &mut scan.entries)?;
    scan.ignore_files.extend(below);
    let texts: Vec<(PathBuf, String)> = scan
        .ignore_files
        .iter()
        .filter_map(|file| Some((file.clone(), crate::source::read_file_text(file).ok()?)))
        .collect();
    let domains: Vec<(PathBuf, Arc<str>, &str)> = texts
        .iter()
        .map(|(file, text)| {
            let dir = file.parent().unwrap_or(Path::new(""));
            let domain = sourceignore::repository_relative(root, dir).unwrap_or_default();
            (domain, crate::source::display_path(file), text.as_str())
        })
        .collect();
    let ignore = sourceignore::with_spec_ignore(
        SourceIgnore::new(
            domains
                .iter()
                .map(|(domain, file, text)| (domain.as_path(), *text, Written::File(file))),
        ),
        spec_ignore,
    );
    scan.walk(dir, &ignore, 0)?;
    let kustomization = if scan.resources.is_empty() {
        json!({
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "namespace": "_placeholder",
        })
    } else {
        json!({
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": scan.resources,
        })
    };
    Ok(Generated {
        kustomization,
        files: scan.files,
        directories: scan.directories,
        ignore_files: scan.ignore_files,
    })
}

struct Scan<'a> {
    root: &'a Path,
    /// The scanned path.
    base: &'a Path,
    ignore_files: Vec<PathBuf>,
    entries: usize,
    /// The `resources` entries, `./`-relative to the path as Flux writes them.
    resources: Vec<String>,
    files: Vec<PathBuf>,
    directories: Vec<PathBuf>,
}

impl Scan<'_> {
    fn walk(&mut self, dir: &Path, ignore: &SourceIgnore, depth: usize) -> Result<(), Problem> {
        for (path, kind) in sorted_entries(dir, &mut self.entries)? {
            let in_repository = sourceignore::repository_relative(self.root, &path);
            let ignored = |is_dir| {
                in_repository
                    .as_ref()
                    .is_some_and(|relative| ignore.is_ignored(relative, is_dir))
            };
            match kind {
                // The clone's own metadata, never in the artifact (and large).
                EntryKind::Directory if path.file_name() == Some(".git".as_ref()) => {}
                EntryKind::Directory => {
                    if has_kustomization(&path, ignore, self.root) {
                        self.resources.push(self.resource_entry(&path));
                        self.directories.push(path);
                    } else if depth + 1 < MAX_DEPTH {
                        self.walk(&path, ignore, depth + 1)?;
                    } else {
                        return Err(Problem::TooLarge);
                    }
                }
                EntryKind::File if is_yaml_name(&path) && !ignored(false) => {
                    let text = crate::source::read_file_text(&path).map_err(|problem| {
                        Problem::Unreadable {
                            path: path.clone(),
                            reason: problem.message,
                        }
                    })?;
                    if let Err(reason) = decodes_as_objects(&text) {
                        return Err(Problem::NotKubernetes { file: path, reason });
                    }
                    self.resources.push(self.resource_entry(&path));
                    self.files.push(path);
                }
                EntryKind::File => {}
            }
        }
        Ok(())
    }

    /// `./` and the path of an entry below the scanned path, as Flux lists it.
    fn resource_entry(&self, path: &Path) -> String {
        let below = path.strip_prefix(self.base).unwrap_or(path);
        format!("./{}", below.to_string_lossy().replace('\\', "/"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    File,
    Directory,
}

/// A directory's regular files and directories (no symbolic links: the artifact has none),
/// sorted by name as Go's walk sorts them.
fn sorted_entries(dir: &Path, budget: &mut usize) -> Result<Vec<(PathBuf, EntryKind)>, Problem> {
    let unreadable = |err: std::io::Error| Problem::Unreadable {
        path: dir.to_path_buf(),
        reason: err.to_string(),
    };
    let read = if dir.as_os_str().is_empty() {
        std::fs::read_dir(".")
    } else {
        std::fs::read_dir(dir)
    };
    let mut entries = Vec::new();
    for entry in read.map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        *budget += 1;
        if *budget > MAX_ENTRIES {
            return Err(Problem::TooLarge);
        }
        let kind = match entry.file_type().map_err(unreadable)? {
            t if t.is_dir() => EntryKind::Directory,
            t if t.is_file() => EntryKind::File,
            _ => continue,
        };
        entries.push((entry.file_name(), kind));
    }
    entries.sort_by(|a, b| a.0.as_encoded_bytes().cmp(b.0.as_encoded_bytes()));
    Ok(entries
        .into_iter()
        .map(|(name, kind)| (normalise_path(&dir.join(name)), kind))
        .collect())
}

/// Whether the artifact holds a kustomization file in `dir`.
fn has_kustomization(dir: &Path, ignore: &SourceIgnore, root: &Path) -> bool {
    FILE_NAMES.iter().any(|name| {
        let path = dir.join(name);
        std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && !sourceignore::repository_relative(root, &path)
                .is_some_and(|relative| ignore.is_ignored(&relative, false))
    })
}

/// `.yaml` or `.yml`, as Go's `filepath.Ext` sees it (the text from the last dot).
fn is_yaml_name(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.rfind('.')
        .is_some_and(|dot| matches!(&name[dot..], ".yaml" | ".yml"))
}

/// The `.sourceignore` files of `dir` and below, a directory's before those of its
/// subdirectories (sorted by name), as source-controller loads them.
fn collect_ignore_files(
    dir: &Path,
    depth: usize,
    out: &mut Vec<PathBuf>,
    budget: &mut usize,
) -> Result<(), Problem> {
    let file = normalise_path(&dir.join(sourceignore::FILE_NAME));
    if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
        out.push(file);
    }
    if depth >= MAX_DEPTH {
        return Err(Problem::TooLarge);
    }
    for (path, kind) in sorted_entries(dir, budget)? {
        if kind == EntryKind::Directory && path.file_name() != Some(".git".as_ref()) {
            collect_ignore_files(&path, depth + 1, out, budget)?;
        }
    }
    Ok(())
}

/// Whether a file's text decodes as Kubernetes objects as Kustomize's resource factory reads
/// it (`SliceFromBytes`): YAML documents, each empty or a map with a `kind` and, unless the
/// kind is a `…List`, a `metadata.name`; list items alike; no null list entries.
pub(crate) fn decodes_as_objects(text: &str) -> Result<(), NotObjects> {
    for document in yaml::parse_stream(text, Limits::default()) {
        let document = document.map_err(|err| NotObjects::Yaml(err.message))?;
        check_object(&document.root)?;
    }
    Ok(())
}

fn check_object(node: &Node) -> Result<(), NotObjects> {
    match &node.value {
        Value::Null => return Ok(()),
        Value::Map(entries) if entries.is_empty() => return Ok(()),
        Value::Map(_) => {}
        _ => return Err(NotObjects::NotAMap),
    }
    let kind = match node.get("kind").map(|kind| &kind.value) {
        None | Some(Value::Null) => "",
        Some(Value::Str(kind)) => kind.as_str(),
        Some(_) => return Err(NotObjects::KindNotAString),
    };
    if kind.is_empty() {
        return Err(NotObjects::MissingKind);
    }
    if let Some(path) = null_list_entry(node, "") {
        return Err(NotObjects::EmptyItem(path));
    }
    if kind.ends_with("List") {
        return match node.get("items").map(|items| &items.value) {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Seq(items)) => items.iter().try_for_each(check_object),
            Some(_) => Err(NotObjects::ItemsNotAnArray(kind.to_owned())),
        };
    }
    let name = node
        .get("metadata")
        .and_then(|metadata| metadata.get("name"))
        .and_then(Node::as_str)
        .unwrap_or_default();
    if name.is_empty() {
        return Err(NotObjects::MissingName);
    }
    Ok(())
}

/// The path of the first null entry of a list, anywhere in the node.
fn null_list_entry(node: &Node, path: &str) -> Option<String> {
    match &node.value {
        Value::Seq(items) => items.iter().enumerate().find_map(|(n, item)| {
            let here = format!("{path}[{n}]");
            if matches!(item.value, Value::Null) {
                Some(here)
            } else {
                null_list_entry(item, &here)
            }
        }),
        Value::Map(entries) => entries
            .iter()
            .find_map(|entry| null_list_entry(&entry.value, &format!("{path}.{}", entry.key))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    const VM: &str = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: a\n";

    #[test]
    fn files_and_kustomization_directories_are_listed_in_walk_order() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(
            root,
            &[
                ("apps/b.yaml", VM),
                ("apps/a.yml", VM),
                ("apps/notes.txt", "x"),
                ("apps/vm.json", "{}"),
                ("apps/nested/kustomization.yaml", "resources: []\n"),
                ("apps/nested/deep/c.yaml", VM),
                ("apps/sub/d.yaml", "# only a comment\n"),
                ("apps/sub/.sops.yaml", "creation_rules: []\n"),
                ("apps/sub/skip.yaml", "not: kubernetes\n"),
                ("apps/sub/.sourceignore", "skip.yaml\n"),
                (".github/workflows/ci.yaml", "on: push\n"),
                ("apps/.github/x.yaml", "on: push\n"),
                ("apps/images/logo.png", "png"),
            ],
        );
        let generated = generate(root, &root.join("apps"), None).unwrap();
        assert_eq!(
            generated.kustomization["resources"],
            json!(["./a.yml", "./b.yaml", "./nested", "./sub/d.yaml"])
        );
        assert_eq!(generated.directories, [root.join("apps/nested")]);
        assert_eq!(
            generated.files,
            ["apps/a.yml", "apps/b.yaml", "apps/sub/d.yaml"].map(|f| root.join(f))
        );
        assert_eq!(
            generated.ignore_files,
            [root.join("apps/sub/.sourceignore")]
        );
    }

    #[test]
    fn an_empty_path_gets_a_placeholder_namespace() {
        let temp = tempfile::tempdir().unwrap();
        write(
            temp.path(),
            &[("empty/readme.md", "x"), (".sourceignore", "")],
        );
        let generated = generate(temp.path(), &temp.path().join("empty"), None).unwrap();
        assert_eq!(generated.kustomization["namespace"], "_placeholder");
        assert!(generated.kustomization.get("resources").is_none());
        assert_eq!(generated.ignore_files, [temp.path().join(".sourceignore")]);
    }

    #[test]
    fn a_file_that_is_not_kubernetes_fails_the_generation() {
        let temp = tempfile::tempdir().unwrap();
        write(temp.path(), &[("apps/values.yaml", "replicas: 1\n")]);
        let problem = generate(temp.path(), &temp.path().join("apps"), None).unwrap_err();
        assert_eq!(
            problem,
            Problem::NotKubernetes {
                file: temp.path().join("apps/values.yaml"),
                reason: NotObjects::MissingKind
            }
        );
    }

    #[test]
    fn kubernetes_documents_as_the_resource_factory_reads_them() {
        assert!(decodes_as_objects("").is_ok());
        assert!(decodes_as_objects("---\n# x\n---\n{}\n").is_ok());
        assert!(decodes_as_objects(VM).is_ok());
        assert!(decodes_as_objects("kind: ConfigMapList\nitems: []\n").is_ok());
        assert_eq!(
            decodes_as_objects("kind: ConfigMapList\nitems:\n- kind: ConfigMap\n")
                .unwrap_err()
                .to_string(),
            "missing metadata.name in object"
        );
        assert_eq!(
            decodes_as_objects("kind: A\nmetadata: {name: a}\nlist: [1, ~]\n")
                .unwrap_err()
                .to_string(),
            "empty item at .list[1] in object"
        );
        assert_eq!(
            decodes_as_objects("- a\n").unwrap_err().to_string(),
            "the document is not a map"
        );
        assert!(decodes_as_objects("kind: [\n").is_err());
    }
}
