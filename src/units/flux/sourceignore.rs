//! Which files of the repository source-controller leaves out of the artifact it hands to the
//! kustomize-controller (fluxcd/pkg `sourceignore`): its default exclusions, then every
//! `.sourceignore` file, each scoped to its own directory. A Flux generated kustomization only
//! sees what is left.
//!
//! Flux matches with go-git's gitignore matcher, whose precedence differs from git's: the last
//! pattern (defaults first, then the `.sourceignore` files from the repository root down) that
//! matches the path *or one of its parent directories* decides, so `!dir/keep.yaml` after
//! `dir/` re-includes a file, and `dir/` after `!dir/keep.yaml` excludes it. Each pattern is
//! therefore compiled on its own (gitignore syntax, by the `ignore` crate) and tried from the
//! last one back.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::diag::Location;
use crate::k8s::normalise_path;

/// The name of the ignore file.
pub(crate) const FILE_NAME: &str = ".sourceignore";

/// source-controller's default exclusions (`ExcludeVCS`, `ExcludeExt`, `ExcludeCI`,
/// `ExcludeExtra`), lowest precedence, scoped to the repository root.
const DEFAULTS: [&str; 24] = [
    ".git/",
    ".gitignore",
    ".gitmodules",
    ".gitattributes",
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.png",
    "*.wmv",
    "*.flv",
    "*.tar.gz",
    "*.zip",
    ".github/",
    ".circleci/",
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".drone.yml",
    "cloudbuild.yaml",
    "codeship-services.yml",
    "codeship-steps.yml",
    "**/.goreleaser.yml",
    "**/.sops.yaml",
    "**/.flux.yaml",
];

/// One pattern and the directory (relative to the repository root) it applies below.
struct Pattern {
    domain: PathBuf,
    matcher: Gitignore,
    /// The line as written, and where (None for a default).
    line: String,
    at: Option<Location>,
}

/// The exclusions that apply below one directory of the repository.
pub(crate) struct SourceIgnore {
    patterns: Vec<Pattern>,
}

/// The pattern that leaves a path out of the artifact, and where it is written (None for one of
/// source-controller's defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Exclusion {
    pub pattern: String,
    pub at: Option<Location>,
}

/// Where patterns come from: a `.sourceignore` file (its lines), or a GitRepository's
/// `spec.ignore` (where each of its lines is written, else the field).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Written<'a> {
    File(&'a Arc<str>),
    Field(&'a SpecIgnore),
}

/// A GitRepository's `spec.ignore`: its text, where the field is written, and where each line
/// of the text is when the file holds them one for one (a literal block).
#[derive(Clone, Debug)]
pub(crate) struct SpecIgnore {
    pub text: String,
    pub field: Location,
    pub lines: Vec<Location>,
}

impl SourceIgnore {
    /// The defaults plus the patterns of the given `.sourceignore` files, as (directory
    /// relative to the repository root, text) pairs in Flux's order: a directory's file before
    /// those below it.
    pub(crate) fn new<'a>(
        files: impl IntoIterator<Item = (&'a Path, &'a str, Written<'a>)>,
    ) -> Self {
        let mut ignore = Self {
            patterns: DEFAULTS
                .iter()
                .filter_map(|line| Pattern::compile(Path::new(""), line, None))
                .collect(),
        };
        for (domain, text, written) in files {
            ignore.add(domain, text, written);
        }
        ignore
    }

    /// Adds the patterns of `text`, written at `written`, to apply below `domain`, after (so
    /// over) those already there.
    pub(crate) fn add(&mut self, domain: &Path, text: &str, written: Written<'_>) {
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let at = match written {
                Written::File(file) => {
                    let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
                    let end = u32::try_from(line.chars().count() + 1).unwrap_or(u32::MAX);
                    let pos = |column| crate::yaml::Pos {
                        line: number,
                        column,
                        index: 0,
                    };
                    Location {
                        file: Arc::clone(file),
                        span: crate::yaml::Span {
                            start: pos(1),
                            end: pos(end),
                        },
                    }
                }
                Written::Field(spec) => spec.lines.get(n).unwrap_or(&spec.field).clone(),
            };
            self.patterns
                .extend(Pattern::compile(domain, line, Some(at)));
        }
    }

    /// Whether the path (relative to the repository root) is left out of the artifact.
    pub(crate) fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        self.excluded_by(path, is_dir).is_some()
    }

    /// The pattern that leaves the path (relative to the repository root) out of the
    /// artifact, if one does.
    pub(crate) fn excluded_by(&self, path: &Path, is_dir: bool) -> Option<Exclusion> {
        for pattern in self.patterns.iter().rev() {
            let Ok(below) = path.strip_prefix(&pattern.domain) else {
                continue;
            };
            if below.as_os_str().is_empty() {
                continue;
            }
            match pattern.matcher.matched_path_or_any_parents(below, is_dir) {
                Match::None => {}
                Match::Ignore(_) => {
                    return Some(Exclusion {
                        pattern: pattern.line.clone(),
                        at: pattern.at.clone(),
                    });
                }
                Match::Whitelist(_) => return None,
            }
        }
        None
    }
}

impl Pattern {
    /// A pattern line as go-git reads it; a line gitignore syntax cannot compile matches
    /// nothing (go-git's glob matcher fails the match on a malformed pattern the same way).
    fn compile(domain: &Path, line: &str, at: Option<Location>) -> Option<Self> {
        let mut builder = GitignoreBuilder::new(".");
        builder.add_line(None, line).ok()?;
        let matcher = builder.build().ok()?;
        Some(Self {
            domain: domain.to_path_buf(),
            matcher,
            line: line.to_owned(),
            at,
        })
    }
}

/// What source-controller leaves out of the artifact of the repository whose root is `root`
/// (as the report names paths): its defaults, the `.sourceignore` files above each path, and a
/// GitRepository's `spec.ignore` over them. The exclusions of each directory are read once.
pub(crate) struct Artifact<'a> {
    root: &'a Path,
    spec_ignore: Option<&'a SpecIgnore>,
    by_directory: BTreeMap<PathBuf, SourceIgnore>,
}

impl<'a> Artifact<'a> {
    pub(crate) fn new(root: &'a Path, spec_ignore: Option<&'a SpecIgnore>) -> Self {
        Self {
            root,
            spec_ignore,
            by_directory: BTreeMap::new(),
        }
    }

    /// The pattern that leaves `path` (as the report names it) out of the artifact; None for a
    /// path the artifact holds or that is not in the repository.
    pub(crate) fn excluded_by(&mut self, path: &Path, is_dir: bool) -> Option<Exclusion> {
        let relative = repository_relative(self.root, path)?;
        let parent = relative.parent().unwrap_or(Path::new("")).to_path_buf();
        let ignore = self.by_directory.entry(parent).or_insert_with(|| {
            with_spec_ignore(ancestors_ignore(self.root, &relative), self.spec_ignore)
        });
        ignore.excluded_by(&relative, is_dir)
    }
}

/// `ignore` with a GitRepository's `spec.ignore` over it, as source-controller appends it.
pub(crate) fn with_spec_ignore(
    mut ignore: SourceIgnore,
    spec_ignore: Option<&SpecIgnore>,
) -> SourceIgnore {
    if let Some(spec) = spec_ignore {
        ignore.add(Path::new(""), &spec.text, Written::Field(spec));
    }
    ignore
}

/// The exclusions of the `.sourceignore` files above `relative` (a path relative to the
/// repository root `root`).
fn ancestors_ignore(root: &Path, relative: &Path) -> SourceIgnore {
    let files: Vec<(PathBuf, Arc<str>, String)> = ancestor_ignore_files(root, relative)
        .into_iter()
        .filter_map(|file| {
            let text = crate::source::read_file_text(&file).ok()?;
            let domain = file
                .parent()
                .and_then(|dir| repository_relative(root, dir))
                .unwrap_or_default();
            Some((domain, crate::source::display_path(&file), text))
        })
        .collect();
    SourceIgnore::new(
        files
            .iter()
            .map(|(domain, file, text)| (domain.as_path(), text.as_str(), Written::File(file))),
    )
}

/// The `.sourceignore` files of the repository root and of each directory down to `relative`
/// (excluded), as the report names them.
pub(crate) fn ancestor_ignore_files(root: &Path, relative: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dir = root.to_path_buf();
    let mut push = |dir: &Path| {
        let file = normalise_path(&dir.join(FILE_NAME));
        if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
            out.push(file);
        }
    };
    let components: Vec<_> = relative.components().collect();
    for (n, component) in components.iter().enumerate() {
        push(&dir);
        if n + 1 == components.len() {
            break;
        }
        dir.push(component);
    }
    out
}

/// `path` (as the report names it) relative to the repository root `root` (named the same way),
/// or None when it is not below it.
pub(crate) fn repository_relative(root: &Path, path: &Path) -> Option<PathBuf> {
    let relative = path.strip_prefix(root).ok()?;
    relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| relative.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ignored(ignore: &SourceIgnore, path: &str) -> bool {
        ignore.is_ignored(Path::new(path), false)
    }

    #[test]
    fn defaults_leave_out_vcs_ci_sops_and_binary_files() {
        let ignore = SourceIgnore::new([]);
        for path in [
            ".github/workflows/ci.yaml",
            "apps/.sops.yaml",
            ".sops.yaml",
            "apps/web/.flux.yaml",
            "apps/logo.png",
            ".gitlab-ci.yml",
            "apps/cloudbuild.yaml",
            "bundle.tar.gz",
        ] {
            assert!(ignored(&ignore, path), "{path}");
        }
        for path in ["apps/web/vm.yaml", "apps/sops.yaml", "apps/github/vm.yaml"] {
            assert!(!ignored(&ignore, path), "{path}");
        }
    }

    #[test]
    fn sourceignore_files_apply_below_their_directory_last_match_wins() {
        let root = "# comment\n/apps/legacy/\n*.draft.yaml\n";
        let apps = "legacy/\n!legacy/keep.yaml\n";
        let file: Arc<str> = Arc::from(".sourceignore");
        let ignore = SourceIgnore::new([
            (Path::new(""), root, Written::File(&file)),
            (Path::new("apps"), apps, Written::File(&file)),
            (Path::new("other"), "*.yaml\n", Written::File(&file)),
        ]);
        assert!(ignored(&ignore, "apps/legacy/vm.yaml"));
        assert!(!ignored(&ignore, "apps/legacy/keep.yaml"), "re-included");
        assert!(ignored(&ignore, "apps/web/vm.draft.yaml"));
        assert!(ignored(&ignore, "other/vm.yaml"));
        assert!(
            !ignored(&ignore, "apps/web/vm.yaml"),
            "other/ is not above it"
        );
        // The later pattern excludes again, whatever git would say.
        let ignore = SourceIgnore::new([(
            Path::new(""),
            "!apps/keep.yaml\napps/\n",
            Written::File(&file),
        )]);
        assert!(ignored(&ignore, "apps/keep.yaml"));
    }

    #[test]
    fn paths_outside_the_root_are_not_relative() {
        assert_eq!(
            repository_relative(Path::new("repo"), Path::new("repo/apps/web")),
            Some(PathBuf::from("apps/web"))
        );
        assert_eq!(
            repository_relative(Path::new(""), Path::new("apps")),
            Some(PathBuf::from("apps"))
        );
        assert_eq!(
            repository_relative(Path::new("repo"), Path::new("other")),
            None
        );
    }

    #[test]
    fn the_excluding_pattern_is_named_with_its_line_and_spec_ignore_decides_last() {
        let file: Arc<str> = Arc::from("apps/.sourceignore");
        let field = Location {
            file: Arc::from("sync.yaml"),
            span: crate::yaml::Span::default(),
        };
        let spec = SpecIgnore {
            text: "/*\n!/apps\n".to_owned(),
            field: field.clone(),
            lines: Vec::new(),
        };
        let ignore = with_spec_ignore(
            SourceIgnore::new([(
                Path::new("apps"),
                "# drafts\n\ndrafts/\n",
                Written::File(&file),
            )]),
            Some(&spec),
        );
        // Re-included by `!/apps`, read after the `.sourceignore` file.
        assert_eq!(
            ignore.excluded_by(Path::new("apps/drafts/vm.yaml"), false),
            None
        );
        let other = ignore
            .excluded_by(Path::new("infra/vm.yaml"), false)
            .unwrap();
        assert_eq!(other.pattern, "/*");
        assert_eq!(other.at, Some(field), "no line of its own: the field");
        let without_spec = SourceIgnore::new([(
            Path::new("apps"),
            "# drafts\n\ndrafts/\n",
            Written::File(&file),
        )]);
        let draft = without_spec
            .excluded_by(Path::new("apps/drafts/vm.yaml"), false)
            .unwrap();
        assert_eq!(draft.pattern, "drafts/");
        let at = draft.at.unwrap();
        assert_eq!(&*at.file, "apps/.sourceignore");
        assert_eq!(
            (at.span.start.line, at.span.start.column, at.span.end.column),
            (3, 1, 8)
        );
        let default = without_spec
            .excluded_by(Path::new("apps/logo.png"), false)
            .unwrap();
        assert_eq!((default.pattern.as_str(), default.at), ("*.png", None));
    }
}
