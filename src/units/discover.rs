//! Which directories are units, and which files each one makes Kustomize read.
//!
//! A kustomization among the checked files that no other kustomization uses (as a resource or
//! a component) is a root: what Argo CD or Flux points at, built as `kustomize build` builds
//! it. Its closure is every file the build can read, found by following the kustomization's
//! own references: files there are checked as rendered, not as written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::kustomization::{FILE_NAMES, Kustomization, RefKind, Reference, is_remote};
use crate::k8s::normalise_path;
use crate::yaml::{self, Limits};

/// A reference that keeps a unit from being built offline, or safely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unbuildable {
    /// A remote target Kustomize would fetch over the network.
    Remote {
        file: Arc<str>,
        reference: Reference,
    },
    /// A path that resolves outside the repository.
    Escapes {
        file: Arc<str>,
        reference: Reference,
    },
    /// A path Flux's source artifact leaves out (`pattern`, written at `at`; None for one of
    /// source-controller's defaults): kustomize-controller's build does not find it.
    LeftOut {
        file: Arc<str>,
        reference: Reference,
        pattern: String,
        at: Option<crate::diag::Location>,
    },
}

/// A root and what its build reads.
#[derive(Clone, Debug)]
pub(crate) struct Root {
    /// The unit directory, normalised, as the report names paths.
    pub dir: PathBuf,
    pub kustomization: Arc<Kustomization>,
    /// Every file the build reads (kustomization files included), normalised; a file reached
    /// through a symbolic link is there under both its names.
    pub closure: BTreeSet<PathBuf>,
    /// Every kustomization directory the build enters, this one included (under both names
    /// when reached through a symbolic link).
    pub directories: BTreeSet<PathBuf>,
    pub unbuildable: Vec<Unbuildable>,
}

/// Kustomization directories read so far, by normalised directory.
/// What a path a kustomization references or a build reads resolves to, found once.
#[derive(Debug)]
struct Resolved {
    /// Whether it stays inside the repository (a missing path does: it is Kustomize's error to
    /// report, with its message).
    inside: bool,
    /// The name the walk of the checked files gives it when a symbolic link inside the
    /// repository leads there (`base/shared/vm.yaml` for `base/linked/vm.yaml`, `linked` a
    /// link to `shared`): the walk does not follow links, so it names the file by its real
    /// place. None when that is the name already.
    walked: Option<PathBuf>,
}

#[derive(Default)]
pub(crate) struct Tree {
    repository: Option<PathBuf>,
    read: BTreeMap<PathBuf, Option<Arc<Kustomization>>>,
    /// Paths resolved once: the bases of hundreds of overlays are visited once per overlay.
    resolved: std::collections::HashMap<PathBuf, Resolved>,
    resolver: super::resolve::Resolver,
    /// The repository root as the report names paths, once known: a file a reference reaches
    /// through a symbolic link is also named as the walk of the checked files names it.
    shown: Option<PathBuf>,
}

impl Tree {
    /// A tree whose references must stay inside `repository` (resolved).
    pub(crate) fn new(repository: Option<PathBuf>) -> Self {
        Self {
            repository,
            read: BTreeMap::new(),
            resolved: std::collections::HashMap::new(),
            resolver: super::resolve::Resolver::default(),
            shown: None,
        }
    }

    /// Names the repository root `shown`, as the report names paths.
    pub(crate) fn show_repository_as(&mut self, shown: PathBuf) {
        self.shown = Some(shown);
    }

    /// `path` resolved (once), against the repository when there is one.
    fn resolved(&mut self, path: &Path) -> &Resolved {
        if !self.resolved.contains_key(path) {
            let real = self
                .repository
                .as_ref()
                .and_then(|_| self.resolver.file(path));
            let resolved = match (&self.repository, &real) {
                (Some(repository), Some(real)) => Resolved {
                    inside: real.starts_with(repository),
                    walked: self
                        .shown
                        .as_ref()
                        .zip(real.strip_prefix(repository).ok())
                        .map(|(shown, below)| normalise_path(&shown.join(below)))
                        .filter(|walked| walked != path),
                },
                _ => Resolved {
                    inside: true,
                    walked: None,
                },
            };
            self.resolved.insert(path.to_path_buf(), resolved);
        }
        &self.resolved[path]
    }

    /// The kustomization of `dir`, read once.
    pub(crate) fn kustomization(&mut self, dir: &Path) -> Option<Arc<Kustomization>> {
        if let Some(known) = self.read.get(dir) {
            return known.clone();
        }
        let found = read_kustomization(dir);
        self.read.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// The closure of the kustomization in `dir`.
    pub(crate) fn root(&mut self, dir: &Path) -> Option<Root> {
        let kustomization = self.kustomization(dir)?;
        let mut root = Root {
            dir: dir.to_path_buf(),
            kustomization,
            closure: BTreeSet::new(),
            directories: BTreeSet::new(),
            unbuildable: Vec::new(),
        };
        let mut pending = vec![dir.to_path_buf()];
        while let Some(dir) = pending.pop() {
            if !root.directories.insert(dir.clone()) {
                continue;
            }
            let Some(kustomization) = self.kustomization(&dir) else {
                continue;
            };
            root.closure.insert(PathBuf::from(&*kustomization.file));
            for reference in &kustomization.references {
                let target = normalise_path(&dir.join(&reference.value));
                if reference.kind == RefKind::Resource && is_remote(&reference.value) {
                    root.unbuildable.push(Unbuildable::Remote {
                        file: Arc::clone(&kustomization.file),
                        reference: reference.clone(),
                    });
                    continue;
                }
                if !self.resolved(&target).inside {
                    root.unbuildable.push(Unbuildable::Escapes {
                        file: Arc::clone(&kustomization.file),
                        reference: reference.clone(),
                    });
                    continue;
                }
                if reference.kind != RefKind::File && target.is_dir() {
                    pending.push(target);
                } else if target.is_dir() {
                    add_directory_files(&target, &mut root.closure);
                } else {
                    root.closure.insert(target);
                }
            }
        }
        let walked: Vec<PathBuf> = root
            .closure
            .iter()
            .filter_map(|file| self.resolved(file).walked.clone())
            .collect();
        root.closure.extend(walked);
        let walked: Vec<PathBuf> = root
            .directories
            .iter()
            .filter_map(|dir| self.resolved(dir).walked.clone())
            .collect();
        root.directories.extend(walked);
        Some(root)
    }
}

/// The files below a directory a kustomization names as a file input (a Helm chart home).
fn add_directory_files(dir: &Path, closure: &mut BTreeSet<PathBuf>) {
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(16))
        .build();
    for entry in walk.flatten().take(10_000) {
        if entry.file_type().is_some_and(|t| t.is_file()) {
            closure.insert(normalise_path(entry.path()));
        }
    }
}

/// The kustomization file of a directory and its parsed content.
fn read_kustomization(dir: &Path) -> Option<Arc<Kustomization>> {
    let file = FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())?;
    let display = crate::source::display_path(&file);
    let text = crate::source::read_file_text(&file).ok()?;
    let root = yaml::parse_stream(&text, Limits::default())
        .into_iter()
        .next()
        .and_then(Result::ok)
        .map(|doc| doc.root);
    let kustomization = match root {
        Some(root) => Kustomization::read(display, &root),
        None => Kustomization::read(
            display,
            &yaml::Node {
                value: yaml::Value::Null,
                span: yaml::Span::default(),
            },
        ),
    };
    Some(Arc::new(kustomization))
}

/// The roots among the kustomization directories `candidates` (normalised): those that no
/// kustomization reached from another candidate uses, and that are not components. Sorted.
pub(crate) fn roots(tree: &mut Tree, candidates: &BTreeSet<PathBuf>) -> Vec<Root> {
    let mut closures = Vec::new();
    let mut used: BTreeSet<PathBuf> = BTreeSet::new();
    for dir in candidates {
        let Some(root) = tree.root(dir) else {
            continue;
        };
        used.extend(root.directories.iter().filter(|d| *d != dir).cloned());
        closures.push(root);
    }
    closures
        .into_iter()
        .filter(|root| !used.contains(&root.dir) && !root.kustomization.is_component)
        .collect()
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

    #[test]
    fn roots_are_the_kustomizations_nothing_uses() {
        let temp = tempfile::tempdir().unwrap();
        let top = &temp.path().join("repo");
        write(
            top,
            &[
                (
                    "base/kustomization.yaml",
                    "resources: [vm.yaml]\nconfigMapGenerator:\n- name: c\n  files: [userdata=init.yaml]\n",
                ),
                ("base/vm.yaml", "kind: VirtualMachine\n"),
                ("base/init.yaml", "#cloud-config\n"),
                ("base/unlisted.yaml", "kind: VirtualMachine\n"),
                (
                    "gpu/kustomization.yaml",
                    "kind: Component\npatches:\n- path: gpu.yaml\n",
                ),
                ("gpu/gpu.yaml", "[]\n"),
                (
                    "dev/kustomization.yaml",
                    "resources: [../base]\ncomponents: [../gpu]\n",
                ),
                (
                    "prod/kustomization.yml",
                    "resources: [../base, https://example.com/x.yaml, ../../outside]\n",
                ),
            ],
        );
        std::fs::create_dir_all(temp.path().join("outside")).unwrap();
        let mut tree = Tree::new(Some(std::fs::canonicalize(top).unwrap()));
        let candidates: BTreeSet<PathBuf> = ["base", "gpu", "dev", "prod"]
            .iter()
            .map(|d| top.join(d))
            .collect();
        let roots = roots(&mut tree, &candidates);
        let dirs: Vec<&Path> = roots
            .iter()
            .map(|r| r.dir.strip_prefix(top).unwrap())
            .collect();
        assert_eq!(dirs, [Path::new("dev"), Path::new("prod")]);
        let dev: Vec<PathBuf> = roots[0]
            .closure
            .iter()
            .map(|p| p.strip_prefix(top).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            dev,
            [
                "base/init.yaml",
                "base/kustomization.yaml",
                "base/vm.yaml",
                "dev/kustomization.yaml",
                "gpu/gpu.yaml",
                "gpu/kustomization.yaml",
            ]
            .map(PathBuf::from)
        );
        let prod = &roots[1];
        assert_eq!(prod.unbuildable.len(), 2, "{:?}", prod.unbuildable);
        assert!(matches!(prod.unbuildable[0], Unbuildable::Remote { .. }));
        assert!(matches!(prod.unbuildable[1], Unbuildable::Escapes { .. }));
    }

    /// A file reached through a linked directory is in the closure under the walk's name too,
    /// so the cache key changes when the link points elsewhere, even at the same content.
    #[cfg(unix)]
    #[test]
    fn a_file_behind_a_link_is_also_named_as_the_walk_names_it() {
        let temp = tempfile::tempdir().unwrap();
        let top = &std::fs::canonicalize(temp.path()).unwrap();
        write(
            top,
            &[
                ("app/kustomization.yaml", "resources: [linked/vm.yaml]\n"),
                ("app/one/vm.yaml", "kind: VirtualMachine\n"),
                ("app/two/vm.yaml", "kind: VirtualMachine\n"),
            ],
        );
        let closure = |target: &str| {
            let link = top.join("app/linked");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(target, &link).unwrap();
            let mut tree = Tree::new(Some(top.clone()));
            tree.show_repository_as(top.clone());
            let root = tree.root(&top.join("app")).unwrap();
            root.closure
                .iter()
                .map(|p| p.strip_prefix(top).unwrap().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            closure("one"),
            [
                "app/kustomization.yaml",
                "app/linked/vm.yaml",
                "app/one/vm.yaml"
            ]
        );
        assert_eq!(
            closure("two"),
            [
                "app/kustomization.yaml",
                "app/linked/vm.yaml",
                "app/two/vm.yaml"
            ]
        );
    }
}
