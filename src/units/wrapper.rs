//! The wrapper kustomization a unit is built through: it lives in kvlint's private temporary
//! directory, names the unit by a relative path (Kustomize refuses absolute ones), and turns
//! on origin and transformer annotations. Kustomize reads `buildMetadata` and `sortOptions`
//! from the top kustomization only, so the unit's own are carried over.
//!
//! A wrapper's text is computed for its directory before that directory exists: the cache
//! key needs the text, and a unit whose result is cached is never written to disk.

use std::path::{Component, Path, PathBuf};

use super::discover::Root;

/// Why a unit's build directory cannot be prepared (the unit's files are then checked as
/// written).
#[derive(Debug, thiserror::Error)]
pub(crate) enum WrapperError {
    /// The unit's directory cannot be resolved.
    #[error("{0}")]
    Resolve(std::io::Error),
    /// The unit's kustomization cannot be read.
    #[error("{0}")]
    Read(String),
    /// The build directory or a file in it cannot be written.
    #[error("{0}")]
    Write(std::io::Error),
    /// A file of the unit cannot be copied into the build directory.
    #[error("cannot copy {} for the build: {source}", crate::source::display_path(.from))]
    Copy {
        from: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Encode(serde_json::Error),
}

/// The annotations the wrapper asks for.
pub(crate) const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
pub(crate) const TRANSFORMATIONS_ANNOTATION: &str = "alpha.config.kubernetes.io/transformations";

/// The wrapper of `root` for the resolved directory `dir`.
pub(crate) fn text(root: &Root, dir: &Path) -> Result<String, WrapperError> {
    let unit = unit_dir(root)?;
    let relative = relative_path(dir, &unit);
    let mut metadata = vec![
        "originAnnotations".to_owned(),
        "transformerAnnotations".to_owned(),
    ];
    for own in &root.kustomization.build_metadata {
        if !metadata.contains(own) {
            metadata.push(own.clone());
        }
    }
    let mut wrapper = serde_json::json!({
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [relative.to_string_lossy().replace('\\', "/")],
        "buildMetadata": metadata,
    });
    if let Some(sort) = &root.kustomization.sort_options {
        wrapper["sortOptions"] = sort.clone();
    }
    // JSON is YAML: no quoting rules to get wrong for unusual directory names.
    serde_json::to_string_pretty(&wrapper).map_err(WrapperError::Encode)
}

/// The kustomization Flux builds for `entry`, for the resolved directory `dir`: the unit's
/// own (or, for a path without one, the one Flux generates, `generated`), edited as the
/// kustomize-controller edits it, its paths pointing back at the repository.
pub(crate) fn flux_text(
    root: &Root,
    entry: &super::flux::Entry,
    generated: Option<&serde_json::Value>,
    dir: &Path,
) -> Result<String, WrapperError> {
    edited_text(root, generated, dir, &|original, to_unit| {
        let rewrite = |path: &str| to_unit.join(path).to_string_lossy().replace('\\', "/");
        super::flux::edited_kustomization(
            original,
            entry,
            &root.kustomization.build_metadata,
            &rewrite,
        )
    })
}

/// The unit's own kustomization (or `generated`, the one Flux generates for a path without
/// one) as `edit` changes it for the resolved directory `dir`; `edit` gets the kustomization
/// (JSON) and the unit's directory relative to `dir`.
pub(crate) fn edited_text(
    root: &Root,
    generated: Option<&serde_json::Value>,
    dir: &Path,
    edit: &dyn Fn(&serde_json::Value, &Path) -> serde_json::Value,
) -> Result<String, WrapperError> {
    let unit = unit_dir(root)?;
    let original = if let Some(generated) = generated {
        generated.clone()
    } else {
        let text = crate::source::read_file_text(Path::new(&*root.kustomization.file))
            .map_err(|problem| WrapperError::Read(problem.message))?;
        crate::yaml::parse_stream(&text, crate::yaml::Limits::default())
            .into_iter()
            .next()
            .and_then(Result::ok)
            .map_or(serde_json::Value::Null, |doc| doc.root.to_json())
    };
    let edited = edit(&original, &relative_path(dir, &unit));
    serde_json::to_string_pretty(&edited).map_err(WrapperError::Encode)
}

/// Creates the wrapper directory `dir` and writes the wrapper `text` into it.
pub(crate) fn write(dir: &Path, text: &str) -> Result<(), WrapperError> {
    std::fs::create_dir_all(dir).map_err(WrapperError::Write)?;
    std::fs::write(dir.join("kustomization.yaml"), text).map_err(WrapperError::Write)
}

/// Adds the annotations the wrapper asks for to a kustomization's `buildMetadata`.
pub(crate) fn with_build_metadata(kustomization: &mut serde_json::Value) {
    let Some(object) = kustomization.as_object_mut() else {
        return;
    };
    let metadata = object
        .entry("buildMetadata")
        .or_insert_with(|| serde_json::json!([]));
    if let Some(list) = metadata.as_array_mut() {
        for wanted in ["originAnnotations", "transformerAnnotations"] {
            if !list.iter().any(|m| m == wanted) {
                list.push(serde_json::json!(wanted));
            }
        }
    }
}

/// The unit's directory, resolved.
fn unit_dir(root: &Root) -> Result<PathBuf, WrapperError> {
    super::resolve::resolve_dir(&root.dir).map_err(WrapperError::Resolve)
}

/// `to` relative to `from` (both absolute and resolved).
pub(crate) fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_ancestor() {
        assert_eq!(
            relative_path(Path::new("/tmp/k/0"), Path::new("/work/repo/apps/dev")),
            Path::new("../../../work/repo/apps/dev")
        );
        assert_eq!(
            relative_path(Path::new("/a/b"), Path::new("/a/b/c")),
            Path::new("c")
        );
        assert_eq!(
            relative_path(Path::new("/a"), Path::new("/a")),
            Path::new(".")
        );
    }
}
