//! File names as CI systems want them: relative to the checkout (`$GITHUB_WORKSPACE` in GitHub
//! Actions, else the directory kvlint runs in), whatever spelling the input paths had.
//!
//! GitHub places an annotation only when `file=` is relative to the repository root, and code
//! scanning resolves a SARIF `uriBaseId` against the checkout: an absolute input path such as
//! `/home/runner/work/app/app/apps/db.yaml` has to be named `apps/db.yaml`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::source::lexical_absolute;

/// The directory reported file names are relative to.
#[derive(Clone, Debug)]
pub struct Base {
    /// Absolute, without `.` or `..`.
    dir: PathBuf,
    /// The same directory with symbolic links resolved, when that differs.
    resolved: Option<PathBuf>,
    /// Where relative file names are relative to.
    cwd: PathBuf,
    /// Whether `dir` is the GitHub Actions workspace (else the working directory).
    workspace: bool,
}

/// Whether kvlint's name for a source is a placeholder (`<stdin>`, `<built-in catalog …>`)
/// rather than a path.
fn is_placeholder(file: &str) -> bool {
    file.starts_with('<') && file.ends_with('>')
}

impl Base {
    /// `dir` as the base for names relative to `cwd` (both absolute); `resolved` is `dir` with
    /// symbolic links resolved, when known.
    pub fn new(dir: &Path, resolved: Option<PathBuf>, cwd: &Path, workspace: bool) -> Self {
        let dir = lexical_absolute(cwd, dir);
        let resolved = resolved.filter(|r| *r != dir);
        Self {
            dir,
            resolved,
            cwd: cwd.to_path_buf(),
            workspace,
        }
    }

    /// `$GITHUB_WORKSPACE` when set, else the working directory; `None` when the working
    /// directory cannot be read.
    pub fn from_env() -> Option<Self> {
        let cwd = std::env::current_dir().ok()?;
        let workspace = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty());
        Some(match workspace {
            Some(dir) => {
                let dir = PathBuf::from(dir);
                let resolved = std::fs::canonicalize(lexical_absolute(&cwd, &dir)).ok();
                Self::new(&dir, resolved, &cwd, true)
            }
            None => Self::new(&cwd, None, &cwd, false),
        })
    }

    /// The base directory, absolute.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the base is the GitHub Actions workspace.
    pub fn is_workspace(&self) -> bool {
        self.workspace
    }

    /// `file` relative to the base, with `/` between its parts, when it lies below the base.
    pub fn relative(&self, file: &str) -> Option<String> {
        if is_placeholder(file) || file.is_empty() {
            return None;
        }
        let absolute = lexical_absolute(&self.cwd, Path::new(file));
        let rest = std::iter::once(&self.dir)
            .chain(self.resolved.as_ref())
            .find_map(|dir| absolute.strip_prefix(dir).ok())?;
        let parts: Vec<&str> = rest
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<_>>()?;
        if parts.is_empty() {
            return None;
        }
        Some(parts.join("/"))
    }

    /// The name to report for `file`: relative to the base when it lies below it; else a
    /// relative name made absolute when the base is not the working directory (it would be
    /// read against the wrong directory); else as written.
    pub fn localise<'a>(&self, file: &'a str) -> Cow<'a, str> {
        if let Some(relative) = self.relative(file) {
            if relative == file {
                return Cow::Borrowed(file);
            }
            return Cow::Owned(relative);
        }
        if is_placeholder(file) || Path::new(file).is_absolute() || self.cwd == self.dir {
            return Cow::Borrowed(file);
        }
        match lexical_absolute(&self.cwd, Path::new(file)).to_str() {
            Some(absolute) => Cow::Owned(absolute.to_owned()),
            None => Cow::Borrowed(file),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(dir: &str, cwd: &str) -> Base {
        Base::new(Path::new(dir), None, Path::new(cwd), true)
    }

    #[test]
    fn absolute_names_below_the_workspace_become_relative() {
        let base = base("/home/runner/work/app/app", "/home/runner/work/app/app");
        assert_eq!(
            base.localise("/home/runner/work/app/app/apps/db.yaml"),
            "apps/db.yaml"
        );
        assert_eq!(base.localise("apps/db.yaml"), "apps/db.yaml");
        assert_eq!(base.localise("./apps/../apps/db.yaml"), "apps/db.yaml");
        assert_eq!(base.localise("/etc/other.yaml"), "/etc/other.yaml");
        assert_eq!(base.localise("<stdin>"), "<stdin>");
    }

    #[test]
    fn names_relative_to_a_subdirectory_are_made_relative_to_the_workspace() {
        let base = base("/ws", "/ws/deploy");
        assert_eq!(base.localise("apps/db.yaml"), "deploy/apps/db.yaml");
        assert_eq!(base.localise("../top.yaml"), "top.yaml");
        // Outside the workspace a relative name would be read against the wrong directory.
        let outside = Base::new(Path::new("/ws"), None, Path::new("/elsewhere"), true);
        assert_eq!(outside.localise("a.yaml"), "/elsewhere/a.yaml");
    }

    #[test]
    fn a_workspace_reached_through_a_link_matches_either_spelling() {
        let base = Base::new(
            Path::new("/link/ws"),
            Some(PathBuf::from("/real/ws")),
            Path::new("/real/ws"),
            true,
        );
        assert_eq!(base.localise("/real/ws/a b/vm.yaml"), "a b/vm.yaml");
        assert_eq!(base.localise("/link/ws/vm.yaml"), "vm.yaml");
        assert_eq!(base.relative("/real/ws"), None);
    }
}
