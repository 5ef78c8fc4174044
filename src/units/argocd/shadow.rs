//! The directory an Argo CD Kustomize source is built from: the app's own kustomization,
//! edited with the Application's `kustomize` options, written into kvlint's private directory
//! beside copies of the app's files, and how its build output is read back.

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::{BUILD_HELP, Target, kustomize};
use crate::diag::Finding;
use crate::k8s::normalise_path;
use crate::rules;
use crate::units::discover::Root;
use crate::units::wrapper::WrapperError;
use crate::yaml::Node;

/// How to read a Kustomize target's build output back: its shadow directory stands for the
/// app's directory, and the Application's `kustomize` block is the outermost layer.
pub(crate) struct Shadow {
    /// The app's directory, resolved.
    pub unit_dir: PathBuf,
    /// The app's kustomization file, resolved.
    pub kustomization: PathBuf,
    /// The Application's file, its text and its `kustomize` block, then each override file's
    /// (for attributing fields their patches and options write), innermost first.
    pub layers: Vec<(Arc<str>, Arc<str>, Node)>,
}

impl Shadow {
    pub(crate) fn of(target: &Target, root: &Root) -> Option<Self> {
        let unit_dir = crate::units::resolve::resolve_dir(&target.dir).ok()?;
        let kustomization = std::fs::canonicalize(&*root.kustomization.file).ok()?;
        Some(Self {
            unit_dir,
            kustomization,
            layers: target.kustomize_layers(),
        })
    }

    /// The wrapper directory of a unit built from its own kustomization as edited there (a
    /// Flux Kustomization's options), the unit's other files read in place: the edited copy
    /// stands for the unit's kustomization, so the transformers it configures are the unit's.
    pub(crate) fn edited(root: &Root) -> Option<Self> {
        Some(Self {
            unit_dir: crate::units::resolve::resolve_dir(&root.dir).ok()?,
            kustomization: std::fs::canonicalize(&*root.kustomization.file).ok()?,
            layers: Vec::new(),
        })
    }

    /// A path of the build output (`joined`: the wrapper directory joined with the path the
    /// annotation names, normalised) as a path of the repository.
    pub(crate) fn real(&self, wrapper: &Path, joined: &Path) -> PathBuf {
        match joined.strip_prefix(wrapper) {
            Ok(rest) if rest == Path::new("kustomization.yaml") => self.kustomization.clone(),
            Ok(rest) => self.unit_dir.join(rest),
            Err(_) => joined.to_path_buf(),
        }
    }
}

/// The finding about a build directory that cannot be written.
pub(super) fn not_written(target: &Target, problem: &str) -> Box<Finding> {
    Box::new(target.finding(
        &rules::UNIT_NOT_RENDERED,
        target.app.span,
        format!(
            "Application {}: not rendered: cannot write the build directory ({problem}); its files are checked as written",
            target.app.name
        ),
    ))
}

/// The kustomization Argo CD builds for `target`, for the resolved directory `dir`: the app's
/// own, edited with the Application's options, to be written beside copies of the files it
/// reads from its own directory (so that `LoadRestrictionsRootOnly` judges them as in Argo
/// CD's checkout), every other path pointing back at the repository. Returns it with the
/// files to copy, or the finding about an edit Argo CD would refuse.
pub(crate) fn shadow_kustomization(
    target: &Target,
    root: &Root,
    repository: &Path,
    dir: &Path,
) -> Result<Shadowed, Box<Finding>> {
    let not_written = |problem: WrapperError| not_written(target, &problem.to_string());
    let copies: RefCell<Vec<PathBuf>> = RefCell::new(Vec::new());
    let edit_error = RefCell::new(None);
    let text = crate::units::wrapper::edited_text(root, None, dir, &|original, to_unit| {
        let unit = &target.dir;
        // A file in the app's directory (or below) is copied and keeps its path; anything
        // else is named from the temporary directory.
        let rewrite = |path: &str| -> String {
            let relative = normalise_path(Path::new(path));
            let local = !path.contains("://")
                && !relative.is_absolute()
                && relative
                    .components()
                    .next()
                    .is_some_and(|c| c != Component::ParentDir);
            let in_unit = unit.join(&relative);
            if local && in_unit.is_file() {
                copies.borrow_mut().push(relative);
                return path.to_owned();
            }
            to_unit.join(path).to_string_lossy().replace('\\', "/")
        };
        let mut kustomization = original.clone();
        crate::units::flux::rewrite_paths(&mut kustomization, &rewrite);
        let exists = |component: &str| unit.join(component).exists();
        let paths = kustomize::Paths {
            rewrite: &rewrite,
            exists: &exists,
        };
        if let Err(error) = kustomize::edit(
            &mut kustomization,
            &target.options(),
            &target.app.env(&target.source),
            &paths,
        ) {
            *edit_error.borrow_mut() = Some(error);
        }
        crate::units::wrapper::with_build_metadata(&mut kustomization);
        kustomization
    })
    .map_err(not_written)?;
    if let Some(error) = edit_error.into_inner() {
        return Err(Box::new(
            Finding::new(
                &rules::KUSTOMIZE_BUILD_FAILED,
                target.option_location(error.option),
                format!(
                    "Argo CD cannot render Application {}: {}",
                    target.app.name, error.message
                ),
            )
            .with_help(BUILD_HELP),
        ));
    }
    let mut files = Vec::new();
    for relative in copies.into_inner() {
        let from = target.dir.join(&relative);
        // Kustomize would read the file through a symlink; kvlint reads nothing outside the
        // repository.
        if !std::fs::canonicalize(&from).is_ok_and(|real| real.starts_with(repository)) {
            return Err(Box::new(target.finding(
                &rules::UNIT_NOT_RENDERED,
                target.app.span,
                format!(
                    "Application {}: `{}` is outside the repository, which kvlint does not read; its files are checked as written",
                    target.app.name,
                    crate::source::display_path(&from)
                ),
            )));
        }
        files.push((from, dir.join(&relative)));
    }
    Ok(Shadowed { text, files })
}

/// The kustomization an Argo CD build runs from and the files of the app's directory to copy
/// beside it, written only when the build runs (a cached build needs none of them).
pub(crate) struct Shadowed {
    pub text: String,
    /// (repository file, where the build reads it).
    pub files: Vec<(PathBuf, PathBuf)>,
}

impl Shadowed {
    /// Copies the app's files beside the edited kustomization.
    pub(crate) fn copy_files(&self) -> Result<(), WrapperError> {
        for (from, to) in &self.files {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(WrapperError::Write)?;
            }
            std::fs::copy(from, to).map_err(|source| WrapperError::Copy {
                from: from.clone(),
                source,
            })?;
        }
        Ok(())
    }
}
