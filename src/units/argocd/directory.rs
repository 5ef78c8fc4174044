//! A Directory source: the manifests of the app's directory as the repo server reads them
//! (reposerver/repository `findManifests`): the directory itself, and its subdirectories with
//! `recurse: true`; files named `.yaml`, `.yml`, `.json` (and `.jsonnet`, which kvlint does not
//! evaluate); `exclude`, then `include` globs on the path relative to the app's directory;
//! files holding `+argocd:skip-file-rendering` left out. No tool runs: the objects keep their
//! own files and positions.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::glob;

/// The marker that keeps a file out of a Directory source.
const SKIP_MARKER: &str = "+argocd:skip-file-rendering";

/// Directories below the app's one that are read, at most (a hostile tree stays bounded).
const MAX_DEPTH: usize = 32;
/// Files looked at, at most.
const MAX_FILES: usize = 20_000;

/// The `directory` options of a source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    pub recurse: bool,
    pub include: String,
    pub exclude: String,
    pub disable_extension_filter: bool,
}

impl Options {
    pub(crate) fn of(directory: Option<&Json>) -> Self {
        let text = |key: &str| {
            directory
                .and_then(|d| d.get(key))
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let flag = |key: &str| {
            directory
                .and_then(|d| d.get(key))
                .and_then(Json::as_bool)
                .unwrap_or(false)
        };
        Self {
            recurse: flag("recurse"),
            include: text("include"),
            exclude: text("exclude"),
            disable_extension_filter: flag("disableExtensionFilter"),
        }
    }
}

/// The files a Directory source renders, and its Jsonnet files (not rendered).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Manifests {
    /// Manifests with their text, in the repo server's order (a walk in lexical order).
    pub files: Vec<(PathBuf, String)>,
    pub jsonnet: Vec<PathBuf>,
}

/// The repo server's refusal of a source with a symlink that leaves the repository.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid manifest file \"{}\": illegal filepath in symlink",
    crate::source::display_path(.path)
)]
pub(crate) struct SymlinkOutside {
    /// The symlink, as the report names it.
    pub path: PathBuf,
}

/// Reads the manifests of `dir` (as the report names it) with `options`. A symlink that
/// resolves outside `repository` (resolved) fails the source, as it fails the repo server;
/// its target is not read.
pub(crate) fn manifests(
    dir: &Path,
    options: &Options,
    repository: &Path,
) -> Result<Manifests, SymlinkOutside> {
    let mut out = Manifests::default();
    let mut walk = Walk {
        app: dir,
        options,
        repository,
        seen: 0,
    };
    walk.dir(dir, 0, &mut out)?;
    Ok(out)
}

struct Walk<'a> {
    app: &'a Path,
    options: &'a Options,
    repository: &'a Path,
    seen: usize,
}

impl Walk<'_> {
    fn dir(&mut self, dir: &Path, depth: usize, out: &mut Manifests) -> Result<(), SymlinkOutside> {
        let (app, options) = (self.app, self.options);
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        let mut entries: Vec<(String, PathBuf, std::fs::FileType)> = entries
            .flatten()
            .filter_map(|entry| {
                Some((
                    entry.file_name().into_string().ok()?,
                    entry.path(),
                    entry.file_type().ok()?,
                ))
            })
            .collect();
        // filepath.Walk visits names in lexical (byte) order.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, path, kind) in entries {
            self.seen += 1;
            if self.seen > MAX_FILES {
                return Ok(());
            }
            if kind.is_dir() {
                // The repository's own metadata is not part of Argo CD's checkout content.
                if options.recurse && depth < MAX_DEPTH && name != ".git" {
                    self.dir(&path, depth + 1, out)?;
                }
                continue;
            }
            let manifest_name = [".yaml", ".yml", ".json", ".jsonnet"]
                .iter()
                .any(|ext| name.ends_with(ext));
            if !options.disable_extension_filter && !manifest_name {
                continue;
            }
            let relative = path
                .strip_prefix(app)
                .map_or_else(|_| name.clone(), |p| p.to_string_lossy().replace('\\', "/"));
            if !options.exclude.is_empty() && glob::matches_include(&options.exclude, &relative) {
                continue;
            }
            if !options.include.is_empty() && !glob::matches_include(&options.include, &relative) {
                continue;
            }
            // Symlinks are followed to regular files inside the repository only (the repo
            // server's `getPotentiallyValidManifestFile`).
            let Ok(real) = std::fs::canonicalize(&path) else {
                continue;
            };
            if !real.starts_with(self.repository) {
                return Err(SymlinkOutside { path });
            }
            if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
                continue;
            }
            if name.ends_with(".jsonnet") {
                out.jsonnet.push(path);
                continue;
            }
            let Ok(text) = crate::source::read_file_text(&real) else {
                continue;
            };
            if text.contains(SKIP_MARKER) {
                continue;
            }
            out.files.push((path, text));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_of_the_repository_is_refused_as_the_repo_server_words_it() {
        let refusal = SymlinkOutside {
            path: PathBuf::from("apps/web/leak.yaml"),
        };
        assert_eq!(
            refusal.to_string(),
            "invalid manifest file \"apps/web/leak.yaml\": illegal filepath in symlink"
        );
    }

    #[test]
    fn the_repo_server_selection() {
        let temp = tempfile::tempdir().unwrap();
        let app = temp.path();
        for (name, text) in [
            ("a.yaml", "kind: A\n"),
            ("b.yml", "kind: B\n"),
            ("c.json", "{}\n"),
            ("d.txt", "kind: D\n"),
            ("e.jsonnet", "{}\n"),
            ("skip.yaml", "# +argocd:skip-file-rendering\nkind: S\n"),
            ("sub/f.yaml", "kind: F\n"),
            ("sub/deeper/g.yaml", "kind: G\n"),
            (".hidden/h.yaml", "kind: H\n"),
        ] {
            let path = app.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let names = |options: &Options| -> Vec<String> {
            manifests(app, options, &std::fs::canonicalize(app).unwrap())
                .unwrap()
                .files
                .iter()
                .map(|(p, _)| p.strip_prefix(app).unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names(&Options::default()), ["a.yaml", "b.yml", "c.json"]);
        assert_eq!(
            manifests(
                app,
                &Options::default(),
                &std::fs::canonicalize(app).unwrap()
            )
            .unwrap()
            .jsonnet,
            [app.join("e.jsonnet")]
        );
        let recurse = Options {
            recurse: true,
            ..Options::default()
        };
        assert_eq!(
            names(&recurse),
            [
                ".hidden/h.yaml",
                "a.yaml",
                "b.yml",
                "c.json",
                "sub/deeper/g.yaml",
                "sub/f.yaml"
            ]
        );
        let include = Options {
            recurse: true,
            include: "sub/*.yaml".to_owned(),
            exclude: "*/deeper/*".to_owned(),
            ..Options::default()
        };
        assert_eq!(names(&include), ["sub/f.yaml"]);
    }
}
