//! The documentation cites sources users can open: GitHub links pinned to a release tag, every
//! KubeVirt source link naming a file from the list below, and no section of a behaviour
//! description that is not part of the repository.
//!
//! The list is checked against a KubeVirt clone when `KVLINT_KUBEVIRT_GIT` names its git
//! directory (`git cat-file -e <tag>:<path>` for every entry); without it only the format and
//! the list are checked, so the tests never need the network.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every KubeVirt file the documentation links, as `<tag>/<path>`.
const KUBEVIRT_SOURCES: &[&str] = &[
    "v1.2.0/pkg/virt-api/webhooks/validating-webhook/admitters/vms-admitter.go",
    "v1.4.0/pkg/instancetype/instancetype.go",
    "v1.5.0/pkg/instancetype/webhooks/vm/admitter.go",
    "v1.5.0/pkg/virt-operator/resource/generate/components/crds.go",
    "v1.6.0/pkg/defaults/defaults.go",
    "v1.9.0/pkg/defaults/defaults.go",
    "v1.9.0/pkg/instancetype/apply/cpu.go",
    "v1.9.0/pkg/instancetype/apply/memory.go",
    "v1.9.0/pkg/instancetype/apply/nodeselector.go",
    "v1.9.0/pkg/instancetype/apply/vmi.go",
    "v1.9.0/pkg/instancetype/compatibility/compatibility.go",
    "v1.9.0/pkg/instancetype/conflict/conflicts.go",
    "v1.9.0/pkg/instancetype/controller/vm/controller.go",
    "v1.9.0/pkg/instancetype/expand/expand.go",
    "v1.9.0/pkg/instancetype/find/spec.go",
    "v1.9.0/pkg/instancetype/infer/handler.go",
    "v1.9.0/pkg/instancetype/infer/volume.go",
    "v1.9.0/pkg/instancetype/preference/apply/cpu.go",
    "v1.9.0/pkg/instancetype/preference/apply/firmware.go",
    "v1.9.0/pkg/instancetype/preference/find/spec.go",
    "v1.9.0/pkg/instancetype/preference/requirements/arch.go",
    "v1.9.0/pkg/instancetype/preference/requirements/checker.go",
    "v1.9.0/pkg/instancetype/preference/requirements/cpu.go",
    "v1.9.0/pkg/instancetype/preference/requirements/memory.go",
    "v1.9.0/pkg/instancetype/preference/validation/cpu.go",
    "v1.9.0/pkg/instancetype/preference/webhooks/admitter.go",
    "v1.9.0/pkg/instancetype/revision/patch.go",
    "v1.9.0/pkg/instancetype/revision/store.go",
    "v1.9.0/pkg/instancetype/webhooks/admitter.go",
    "v1.9.0/pkg/instancetype/webhooks/vm/admitter.go",
    "v1.9.0/pkg/instancetype/webhooks/vm/mutator.go",
    "v1.9.0/pkg/network/vmispec/defaults.go",
    "v1.9.0/pkg/storage/snapshot/restore.go",
    "v1.9.0/pkg/virt-api/rest/expand.go",
    "v1.9.0/pkg/virt-api/webhooks/mutating-webhook/mutators/vm-mutator.go",
    "v1.9.0/pkg/virt-api/webhooks/mutating-webhook/mutators/vmi-mutator.go",
    "v1.9.0/pkg/virt-api/webhooks/validating-webhook/admitters/vmpool-admitter.go",
    "v1.9.0/pkg/virt-api/webhooks/validating-webhook/admitters/vms-admitter.go",
    "v1.9.0/pkg/virt-config/virt-config.go",
    "v1.9.0/pkg/virt-controller/watch/pool/pool.go",
    "v1.9.0/pkg/virt-controller/watch/vm/firmware.go",
    "v1.9.0/pkg/virt-operator/resource/apply/instancetypes.go",
    "v1.9.0/pkg/virt-operator/resource/generate/components/crds.go",
    "v1.9.0/pkg/virt-operator/resource/generate/components/data/common-instancetypes/common-clusterinstancetypes-bundle.yaml",
    "v1.9.0/pkg/virt-operator/resource/generate/components/data/common-instancetypes/common-clusterpreferences-bundle.yaml",
    "v1.9.0/pkg/virt-operator/resource/generate/components/validations_generated.go",
    "v1.9.0/staging/src/kubevirt.io/api/core/v1/types.go",
    "v1.9.0/staging/src/kubevirt.io/api/instancetype/register.go",
    "v1.9.0/staging/src/kubevirt.io/api/instancetype/v1beta1/types.go",
];

const KUBEVIRT_BLOB: &str = "https://github.com/kubevirt/kubevirt/blob/";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, extension, out);
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
}

/// The Markdown users read: README, ARCHITECTURE, docs/ and the rule explanations.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    files_under(&root().join("docs"), "md", &mut files);
    files_under(&root().join("src/rules/docs"), "md", &mut files);
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The target of every Markdown link or bare URL that starts with `prefix`, up to the first
/// character that cannot be part of it.
fn urls_with_prefix<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(at, _)| {
            let rest = &text[at..];
            let end = rest
                .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | '`' | '"'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn is_release_tag(tag: &str) -> bool {
    let Some(version) = tag.strip_prefix('v') else {
        return false;
    };
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// `<tag>/<path>` of a KubeVirt blob link, or why it is not a usable source link.
fn kubevirt_source(url: &str) -> Result<&str, String> {
    let rest = url
        .strip_prefix(KUBEVIRT_BLOB)
        .ok_or("not a KubeVirt blob link")?;
    let (tag, path) = rest.split_once('/').ok_or("no path after the tag")?;
    if !is_release_tag(tag) {
        return Err(format!("`{tag}` is not a release tag such as v1.9.0"));
    }
    let path_ok = !path.is_empty()
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if !path_ok {
        return Err(format!(
            "`{path}` is not a plain file path (no anchors, queries or `..`)"
        ));
    }
    Ok(rest)
}

#[test]
fn kubevirt_source_links_name_a_listed_file_at_a_release_tag() {
    let mut used: BTreeSet<&'static str> = BTreeSet::new();
    let mut wrong = Vec::new();
    for file in markdown_files() {
        let text = read(&file);
        for url in urls_with_prefix(&text, KUBEVIRT_BLOB) {
            match kubevirt_source(url) {
                Ok(source) => match KUBEVIRT_SOURCES.iter().find(|listed| **listed == source) {
                    Some(listed) => {
                        used.insert(*listed);
                    }
                    None => wrong.push(format!(
                    "{}: {source} is not in KUBEVIRT_SOURCES (check it exists at the tag, then add it)",
                        file.display()
                    )),
                },
                Err(why) => wrong.push(format!("{}: {url}: {why}", file.display())),
            }
        }
    }
    let unused: Vec<&&str> = KUBEVIRT_SOURCES
        .iter()
        .filter(|s| !used.contains(**s))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(unused.is_empty(), "listed but linked nowhere: {unused:#?}");
}

/// Links into any GitHub repository's files are pinned to a release tag, so they keep showing
/// the code the text describes.
#[test]
fn github_file_links_are_pinned_to_a_release_tag() {
    let mut wrong = Vec::new();
    for file in markdown_files() {
        let text = read(&file);
        for url in urls_with_prefix(&text, "https://github.com/") {
            let parts: Vec<&str> = url
                .trim_start_matches("https://github.com/")
                .split('/')
                .collect();
            if let [_owner, _repo, "blob" | "tree", reference, ..] = parts.as_slice()
                && !is_release_tag(reference)
            {
                wrong.push(format!("{}: {url}", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "links not pinned to a release tag: {wrong:#?}"
    );
}

/// Section numbers of the project's behaviour notes (`<file>.md §<n>`, drift items `D-<n>`)
/// live outside the repository; sources cite KubeVirt's code instead.
#[test]
fn no_reference_to_behaviour_notes_outside_the_repository() {
    let notes = ["submission", "apply", "drift", "catalog", "api"];
    let mut files = markdown_files();
    files_under(&root().join("src"), "rs", &mut files);
    files_under(&root().join("tests"), "rs", &mut files);
    let mut wrong = Vec::new();
    // This file names the notes it looks for.
    for file in files.iter().filter(|f| !f.ends_with("tests/doc_links.rs")) {
        for (number, line) in read(file).lines().enumerate() {
            let cites_notes = notes.iter().any(|n| {
                line.match_indices(&format!("{n}.md")).any(|(at, _)| {
                    !line[..at]
                        .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '/')
                })
            });
            let cites_drift_item = line.match_indices("D-").any(|(at, _)| {
                !line[..at].ends_with(|c: char| c.is_ascii_alphanumeric())
                    && line[at + 2..].starts_with(|c: char| c.is_ascii_digit())
            });
            if cites_notes || cites_drift_item {
                wrong.push(format!("{}:{}: {line}", file.display(), number + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// With a KubeVirt clone at hand, every listed file exists at its tag.
#[test]
fn listed_kubevirt_files_exist_at_their_tags() {
    let Some(git_dir) = std::env::var_os("KVLINT_KUBEVIRT_GIT") else {
        #[allow(clippy::print_stderr)] // a skipped test says why
        {
            eprintln!("KVLINT_KUBEVIRT_GIT is not set: the list is not checked against KubeVirt");
        }
        return;
    };
    let missing: Vec<&&str> = KUBEVIRT_SOURCES
        .iter()
        .filter(|source| {
            let (tag, path) = source.split_once('/').expect("<tag>/<path>");
            let status = Command::new("git")
                .arg("--git-dir")
                .arg(&git_dir)
                .args(["cat-file", "-e", &format!("{tag}:{path}")])
                .status()
                .expect("git runs");
            !status.success()
        })
        .collect();
    assert!(
        missing.is_empty(),
        "not in KubeVirt at the tag: {missing:#?}"
    );
}

#[test]
fn source_link_format() {
    let good = "https://github.com/kubevirt/kubevirt/blob/v1.9.0/pkg/defaults/defaults.go";
    assert_eq!(kubevirt_source(good), Ok("v1.9.0/pkg/defaults/defaults.go"));
    for bad in [
        "https://github.com/kubevirt/kubevirt/blob/main/pkg/defaults/defaults.go",
        "https://github.com/kubevirt/kubevirt/blob/v1.9/pkg/defaults/defaults.go",
        "https://github.com/kubevirt/kubevirt/blob/v1.9.0/pkg/defaults/defaults.go#L40",
        "https://github.com/kubevirt/kubevirt/blob/v1.9.0/pkg/../defaults.go",
        "https://github.com/kubevirt/kubevirt/blob/v1.9.0/",
        "https://github.com/kubevirt/kubevirt/blob/v1.9.0",
    ] {
        assert!(kubevirt_source(bad).is_err(), "{bad}");
    }
}
