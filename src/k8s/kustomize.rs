//! What Kustomize would apply: the `namespace:` of a kustomization.yaml for the files it lists,
//! and which files are applied together.

use std::path::{Component, Path, PathBuf};

use foldhash::{HashMap, HashSet};

use crate::yaml::Node;

#[derive(Debug, Default)]
pub struct Kustomizations {
    /// Normalised file path → namespace set by the kustomization listing it.
    namespace_of_file: HashMap<PathBuf, String>,
    /// Directories that hold a kustomization file.
    directories: HashSet<PathBuf>,
    /// Patch files (merged into other resources, never applied alone) → their kustomization.
    patches: HashMap<PathBuf, String>,
}

pub fn is_kustomization_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "kustomization.yaml" | "kustomization.yml" | "Kustomization"
    )
}

/// Lexical normalisation of `.` and `..` (no file-system access). A `..` cancels the name
/// before it, never another `..` (`../../base` stays so), and is nothing after the root.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                Some(Component::ParentDir | Component::CurDir) | None => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn directory_of(file: &str) -> PathBuf {
    normalise(Path::new(file).parent().unwrap_or(Path::new("")))
}

impl Kustomizations {
    /// Records a parsed kustomization file.
    pub fn add(&mut self, file: &str, root: &Node) {
        let dir = directory_of(file);
        self.directories.insert(dir.clone());
        let mut patch = |path: &str| {
            self.patches
                .insert(normalise(&dir.join(path)), file.to_owned());
        };
        for item in root
            .get("patchesStrategicMerge")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
        {
            if let Some(path) = item.as_str() {
                patch(path);
            }
        }
        for key in ["patches", "patchesJson6902"] {
            for item in root.get(key).and_then(Node::as_seq).unwrap_or(&[]) {
                if let Some(path) = item.get("path").and_then(Node::as_str) {
                    patch(path);
                }
            }
        }
        let Some(namespace) = root.get("namespace").and_then(Node::as_str) else {
            return;
        };
        for key in ["resources", "bases"] {
            for item in root.get(key).and_then(Node::as_seq).unwrap_or(&[]) {
                if let Some(resource) = item.as_str() {
                    self.namespace_of_file
                        .insert(normalise(&dir.join(resource)), namespace.to_owned());
                }
            }
        }
    }

    /// The kustomization that uses `file` as a patch, if one does.
    pub fn patched_by(&self, file: &str) -> Option<&str> {
        self.patches
            .get(&normalise(Path::new(file)))
            .map(String::as_str)
    }

    /// The namespace Kustomize sets for objects of `file`, if a kustomization lists it.
    pub fn namespace_for(&self, file: &str) -> Option<&str> {
        self.namespace_of_file
            .get(&normalise(Path::new(file)))
            .map(String::as_str)
    }

    /// The unit a file is applied with: the nearest directory at or above it that holds a
    /// kustomization file; without one, the file's own directory (as `kubectl apply -f DIR`
    /// or an Argo CD / Flux path would apply it).
    pub fn unit_of(&self, file: &str) -> String {
        let own = directory_of(file);
        let mut dir = own.clone();
        loop {
            if self.directories.contains(&dir) {
                return dir.to_string_lossy().into_owned();
            }
            if !dir.pop() {
                return own.to_string_lossy().into_owned();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};

    #[test]
    fn parent_directories_cancel_names_only() {
        let cases = [
            ("../../base", "../../base"),
            ("a/../../b", "../b"),
            ("a/b/../../../c/./d", "../c/d"),
            ("../x/../y", "../y"),
            ("/../etc", "/etc"),
            ("./", ""),
        ];
        for (path, normalised) in cases {
            assert_eq!(
                normalise(Path::new(path)),
                PathBuf::from(normalised),
                "{path}"
            );
        }
    }

    #[test]
    fn namespace_applies_to_listed_files() {
        let doc = parse_stream(
            "namespace: team-a\nresources:\n- vm.yaml\n- ./sub/x.yaml\npatches:\n- path: patch.yaml\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap();
        let mut k = Kustomizations::default();
        k.add("apps/dev/kustomization.yaml", &doc.root);
        assert_eq!(k.namespace_for("apps/dev/vm.yaml"), Some("team-a"));
        assert_eq!(k.namespace_for("apps/dev/sub/x.yaml"), Some("team-a"));
        assert_eq!(k.namespace_for("apps/dev/other.yaml"), None);
        assert_eq!(k.unit_of("apps/dev/sub/x.yaml"), "apps/dev");
        assert_eq!(
            k.patched_by("apps/dev/patch.yaml"),
            Some("apps/dev/kustomization.yaml")
        );
        assert_eq!(k.patched_by("apps/dev/vm.yaml"), None);
        assert_eq!(k.unit_of("apps/prod/vm.yaml"), "apps/prod");
    }
}
