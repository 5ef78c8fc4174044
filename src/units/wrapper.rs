//! The wrapper kustomization a unit is built through: it lives in kvlint's private temporary
//! directory, names the unit by a relative path (Kustomize refuses absolute ones), and turns
//! on origin and transformer annotations. Kustomize reads `buildMetadata` and `sortOptions`
//! from the top kustomization only, so the unit's own are carried over.

use std::path::{Component, Path, PathBuf};

use super::discover::Root;

/// The annotations the wrapper asks for.
pub(crate) const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
pub(crate) const TRANSFORMATIONS_ANNOTATION: &str = "alpha.config.kubernetes.io/transformations";

/// Writes the wrapper of `root` into the new directory `dir`, and returns its text.
pub(crate) fn write(root: &Root, dir: &Path) -> Result<String, String> {
    let (dir, unit) = create(root, dir)?;
    let relative = relative_path(&dir, &unit);
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
    let text = serde_json::to_string_pretty(&wrapper).map_err(|err| err.to_string())?;
    std::fs::write(dir.join("kustomization.yaml"), &text).map_err(|err| err.to_string())?;
    Ok(text)
}

/// Writes into the new directory `dir` the kustomization Flux builds for `entry`: the unit's
/// own (or, for a path without one, the one Flux generates, `generated`), edited as the
/// kustomize-controller edits it, its paths pointing back at the repository. Returns its text.
pub(crate) fn write_flux(
    root: &Root,
    entry: &super::flux::Entry,
    generated: Option<&serde_json::Value>,
    dir: &Path,
) -> Result<String, String> {
    write_edited(root, generated, dir, &|original, to_unit| {
        let rewrite = |path: &str| to_unit.join(path).to_string_lossy().replace('\\', "/");
        super::flux::edited_kustomization(
            original,
            entry,
            &root.kustomization.build_metadata,
            &rewrite,
        )
    })
}

/// Writes into the new directory `dir` the unit's own kustomization (or `generated`, the one
/// Flux generates for a path without one) as `edit` changes it; `edit` gets the kustomization
/// (JSON) and the unit's directory relative to `dir`. Returns the text written.
pub(crate) fn write_edited(
    root: &Root,
    generated: Option<&serde_json::Value>,
    dir: &Path,
    edit: &dyn Fn(&serde_json::Value, &Path) -> serde_json::Value,
) -> Result<String, String> {
    let (dir, unit) = create(root, dir)?;
    let original = if let Some(generated) = generated {
        generated.clone()
    } else {
        let text = crate::source::read_file_text(Path::new(&*root.kustomization.file))
            .map_err(|problem| problem.message)?;
        crate::yaml::parse_stream(&text, crate::yaml::Limits::default())
            .into_iter()
            .next()
            .and_then(Result::ok)
            .map_or(serde_json::Value::Null, |doc| doc.root.to_json())
    };
    let edited = edit(&original, &relative_path(&dir, &unit));
    let text = serde_json::to_string_pretty(&edited).map_err(|err| err.to_string())?;
    std::fs::write(dir.join("kustomization.yaml"), &text).map_err(|err| err.to_string())?;
    Ok(text)
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

/// Creates the wrapper's directory `dir`; returns it and the unit's directory, both resolved.
fn create(root: &Root, dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    std::fs::create_dir_all(dir).map_err(|err| err.to_string())?;
    let dir = std::fs::canonicalize(dir).map_err(|err| err.to_string())?;
    let unit = super::resolve::resolve_dir(&root.dir).map_err(|err| err.to_string())?;
    Ok((dir, unit))
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
