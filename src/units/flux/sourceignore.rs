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

use std::path::{Component, Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

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
}

/// The exclusions that apply below one directory of the repository.
pub(crate) struct SourceIgnore {
    patterns: Vec<Pattern>,
}

impl SourceIgnore {
    /// The defaults plus the patterns of the given `.sourceignore` files, as (directory
    /// relative to the repository root, text) pairs in Flux's order: a directory's file before
    /// those below it.
    pub(crate) fn new<'a>(files: impl IntoIterator<Item = (&'a Path, &'a str)>) -> Self {
        let mut patterns: Vec<Pattern> = DEFAULTS
            .iter()
            .filter_map(|line| Pattern::compile(Path::new(""), line))
            .collect();
        for (domain, text) in files {
            patterns.extend(
                text.lines()
                    .map(|line| line.trim_end_matches('\r'))
                    .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
                    .filter_map(|line| Pattern::compile(domain, line)),
            );
        }
        Self { patterns }
    }

    /// Whether the path (relative to the repository root) is left out of the artifact.
    pub(crate) fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        for pattern in self.patterns.iter().rev() {
            let Ok(below) = path.strip_prefix(&pattern.domain) else {
                continue;
            };
            if below.as_os_str().is_empty() {
                continue;
            }
            match pattern.matcher.matched_path_or_any_parents(below, is_dir) {
                Match::None => {}
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
            }
        }
        false
    }
}

impl Pattern {
    /// A pattern line as go-git reads it; a line gitignore syntax cannot compile matches
    /// nothing (go-git's glob matcher fails the match on a malformed pattern the same way).
    fn compile(domain: &Path, line: &str) -> Option<Self> {
        let mut builder = GitignoreBuilder::new(".");
        builder.add_line(None, line).ok()?;
        let matcher = builder.build().ok()?;
        Some(Self {
            domain: domain.to_path_buf(),
            matcher,
        })
    }
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
        let ignore = SourceIgnore::new([
            (Path::new(""), root),
            (Path::new("apps"), apps),
            (Path::new("other"), "*.yaml\n"),
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
        let ignore = SourceIgnore::new([(Path::new(""), "!apps/keep.yaml\napps/\n")]);
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
}
