//! Files of another source of a multi-source Application: a Helm source's `valueFiles` and
//! `fileParameters` path `$<ref>/<path>` names `<path>` from the root of the repository of the
//! source with `ref: <ref>` (its own `path` aside), as the repo server resolves it
//! (reposerver/repository `getResolvedRefValueFile`). kvlint reads the checked repository
//! only: a reference source whose `repoURL` is the chart source's (`git.NormalizeGitURL`) is
//! this repository; any other is not read.

use std::path::{Component, Path, PathBuf};

use super::Target;
use crate::diag::{Finding, Location};
use crate::k8s::normalise_path;
use crate::rules;
use crate::yaml::Node;

/// What a `$`-reference names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reference {
    /// A file of the checked repository, as the report names paths (it may not exist).
    Here(PathBuf),
    /// A file of another repository, which kvlint does not read.
    Elsewhere { repo_url: String },
}

/// What the value file or file parameter `name` of `target` names, when it is a reference to
/// another source (None otherwise: it does not start with `$`, or the Application has a
/// single source); Err is the repo server's refusal.
pub(crate) fn resolve(target: &Target, name: &str) -> Option<Result<Reference, String>> {
    if !name.starts_with('$') {
        return None;
    }
    let sources = target
        .app
        .spec
        .get("sources")
        .and_then(Node::as_seq)
        .filter(|sources| !sources.is_empty())?;
    let (variable, _) = name.split_once('/').unwrap_or((name, ""));
    let mut references: Vec<(String, &Node)> = sources
        .iter()
        .filter(|source| !text(source, "ref").is_empty())
        .map(|source| (format!("${}", text(source, "ref")), source))
        .collect();
    let Some((_, source)) = references.iter().find(|(key, _)| key == variable) else {
        if references.is_empty() {
            return Some(Err(format!(
                "source referenced \"{variable}\", but no source has a 'ref' field defined"
            )));
        }
        references.sort_by(|a, b| a.0.cmp(&b.0));
        let keys: Vec<&str> = references.iter().map(|(key, _)| key.as_str()).collect();
        return Some(Err(format!(
            "source referenced \"{variable}\", which is not one of the available sources ({})",
            keys.join(", ")
        )));
    };
    if !text(source, "chart").is_empty() {
        return Some(Err(
            "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources"
                .to_owned(),
        ));
    }
    let repo_url = text(source, "repoURL");
    if normalized_git_url(repo_url) != normalized_git_url(text(&target.source, "repoURL")) {
        return Some(Ok(Reference::Elsewhere {
            repo_url: repo_url.to_owned(),
        }));
    }
    // The reference's name is dropped, the rest is a path from the repository's root,
    // substituted after the split.
    let rest = name.split_once('/').map_or("", |(_, rest)| rest);
    let path = target
        .app
        .env(&target.source)
        .substitute(&format!("/{rest}"));
    let relative = normalise_path(Path::new(path.trim_start_matches('/')));
    Some(in_repository(target, &relative, &path).map(Reference::Here))
}

/// The file `relative` (a normalised path from the repository's root, written as `written`)
/// names, as the report names paths; Err is the repo server's refusal of a path that leaves the
/// repository or is its root (util/io/path `resolveFileOrDirectory`).
pub(crate) fn in_repository(
    target: &Target,
    relative: &Path,
    written: &str,
) -> Result<PathBuf, String> {
    if relative.components().next() == Some(Component::ParentDir) {
        return Err(format!(
            "error resolving value file path: file '{written}' resolved to outside repository root"
        ));
    }
    if relative.as_os_str().is_empty() {
        return Err(
            "error resolving value file path: path resolved to repository root, which is not allowed"
                .to_owned(),
        );
    }
    Ok(crate::units::within_working_directory(normalise_path(
        &target.root.join(relative),
    )))
}

/// The info findings about `target`'s references to files of other repositories: the chart
/// is rendered without them.
pub(crate) fn elsewhere(target: &Target) -> Vec<Finding> {
    let mut out = Vec::new();
    for (list, key) in [("valueFiles", None), ("fileParameters", Some("path"))] {
        let file = target.located(&["helm", list]).file;
        let items = target
            .source
            .get("helm")
            .and_then(|helm| helm.get(list))
            .and_then(Node::as_seq)
            .unwrap_or_default();
        for item in items {
            let node = match key {
                Some(key) => item.get(key),
                None => Some(item),
            };
            let Some(name) = node.and_then(Node::as_str) else {
                continue;
            };
            if let Some(Ok(Reference::Elsewhere { repo_url })) = resolve(target, name) {
                out.push(Finding::new(
                    &rules::UNIT_NOT_RENDERED,
                    Location {
                        file: file.clone(),
                        span: node.map_or(item.span, |n| n.span),
                    },
                    format!(
                        "Application {}: `{name}` is a file of {repo_url}, not of the checked repository; kvlint renders the chart without it",
                        target.app.name
                    ),
                ).with_help("check that repository too, or keep the value file beside the chart"));
            }
        }
    }
    out
}

fn text<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get(key).and_then(Node::as_str).unwrap_or("")
}

/// Argo CD's `git.NormalizeGitURL`, for telling whether two sources name one repository:
/// lower case, an SCP-like SSH address written as a URL, without `.git` and `ssh://`.
fn normalized_git_url(url: &str) -> String {
    let mut url = url.trim().to_lowercase();
    if is_ssh(&url) && !url.starts_with("ssh://") {
        url = format!("ssh://{}", url.replacen(':', "/", 1));
    }
    let url = url.strip_suffix(".git").unwrap_or(&url);
    url.strip_prefix("ssh://").unwrap_or(url).to_owned()
}

/// `git.IsSSHURL`: `[ssh://]user@host…`, the user part without `/` or `:`.
fn is_ssh(url: &str) -> bool {
    let rest = url.strip_prefix("ssh://").unwrap_or(url);
    rest.rfind('@')
        .is_some_and(|at| !rest[..at].contains(['/', ':']) && at + 1 < rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_urls_compare_as_argo_cd_normalises_them() {
        let same = [
            "https://git.example.com/org/repo.git",
            "HTTPS://git.example.com/org/repo",
            " https://git.example.com/org/repo.git ",
        ];
        for url in same {
            assert_eq!(
                normalized_git_url(url),
                "https://git.example.com/org/repo",
                "{url}"
            );
        }
        assert_eq!(
            normalized_git_url("git@git.example.com:org/repo.git"),
            normalized_git_url("ssh://git@git.example.com/org/repo")
        );
        assert_ne!(
            normalized_git_url("https://git.example.com/org/repo"),
            normalized_git_url("https://git.example.com/org/values")
        );
        assert!(!is_ssh("https://git.example.com/org/repo"));
        assert!(is_ssh("git@host:org/repo"));
    }
}
