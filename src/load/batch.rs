//! Stage one in bounded memory. Files are read a batch at a time; a document that is plainly a
//! VirtualMachine (by its top-level `apiVersion:` and `kind:` lines) is only located, and the
//! VM pass parses it again when it analyses it, so no VM tree outlives its own analysis. Every
//! other document is parsed at once, because VMs may reference it.

use std::hash::BuildHasher;
use std::sync::Arc;

use rayon::prelude::*;

use super::{LoadOptions, Loaded, attach_origins, collect_objects, load_file, point, push_notices};
use crate::diag::{Finding, Location};
use crate::k8s::{self, Kustomizations};
use crate::rules;
use crate::source::{self, Input, ReadProblem};
use crate::yaml::{self, Document, DocumentError, DocumentText, StreamEntry, Value};

/// The VirtualMachine documents of one file that the first pass only located.
#[derive(Clone, Debug)]
pub struct DeferredFile {
    /// Position of the file among the inputs.
    pub input: usize,
    pub display: Arc<str>,
    /// Stream positions of the documents (see [`yaml::parse_stream_deferring`]).
    pub documents: Vec<usize>,
    /// Length and hash of the text read first: the second read must see the same file.
    pub fingerprint: (usize, u64),
}

/// What the first pass made of a batch of files.
#[derive(Debug, Default)]
pub struct FirstPass {
    pub loaded: Loaded,
    pub deferred: Vec<DeferredFile>,
}

fn fingerprint(text: &str) -> (usize, u64) {
    (
        text.len(),
        foldhash::fast::FixedState::default().hash_one(text),
    )
}

/// The value of a top-level `key: value` line, unquoted, without a trailing comment.
fn top_level_value(rest: &str) -> &str {
    let value = rest.split(" #").next().unwrap_or(rest).trim();
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(value)
}

/// Whether a document's column-0 lines say `apiVersion: kubevirt.io/...` and
/// `kind: VirtualMachine`, each exactly once. Anything else (flow style, JSON, several kinds)
/// is parsed in the first pass.
pub fn looks_like_vm(document: DocumentText<'_>) -> bool {
    let (Some(kind), Some(api_version)) = (
        only_top_level_value(document.text, "kind:"),
        only_top_level_value(document.text, "apiVersion:"),
    ) else {
        return false;
    };
    kind == "VirtualMachine" && api_version.starts_with("kubevirt.io/")
}

/// The value of the one column-0 line that starts with `key`; `None` when there is no such line
/// or more than one.
fn only_top_level_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let mut lines = memchr::memmem::find_iter(text.as_bytes(), key.as_bytes())
        .filter(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    let at = lines.next()?;
    if lines.next().is_some() {
        return None;
    }
    let rest = &text[at + key.len()..];
    let line = memchr::memchr(b'\n', rest.as_bytes()).map_or(rest, |end| &rest[..end]);
    Some(top_level_value(line))
}

/// Whether the VM documents of a file may be left for the VM pass: it can be read again, and
/// nothing in it needs the whole file at once (suppression comments, templates, origin
/// annotations of `kustomize build` output).
fn may_defer(input: &Input, text: &str, options: &LoadOptions) -> bool {
    matches!(input, Input::File { .. })
        && !options.keep_sources
        && !k8s::is_kustomization_file(input.display())
        && !contains(text, "kvlint:")
        && !contains(text, "config.kubernetes.io/origin")
        && (!contains(text, "{{") || !contains(text, "}}"))
}

fn contains(text: &str, needle: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some()
}

type ParsedDocument = Result<Document, DocumentError>;

/// The Kustomize configurations among the inputs, read before anything else because they
/// decide the namespace and unit of the files they list.
pub fn kustomizations(inputs: &[Input], options: &LoadOptions) -> Kustomizations {
    let parsed: Vec<(Arc<str>, Vec<ParsedDocument>)> = inputs
        .par_iter()
        .filter(|input| k8s::is_kustomization_file(input.display()))
        .filter_map(|input| {
            let text = source::read(input).ok()?;
            Some((
                Arc::clone(input.display()),
                yaml::parse_stream(&text, options.limits),
            ))
        })
        .collect();
    let mut kustomizations = Kustomizations::default();
    for (display, docs) in &parsed {
        for doc in docs.iter().flatten() {
            kustomizations.add(display, &doc.root);
        }
    }
    kustomizations
}

struct ReadFile {
    display: Arc<str>,
    text: Option<String>,
    docs: Vec<ParsedDocument>,
    deferred: Vec<usize>,
    fingerprint: (usize, u64),
    problem: Option<ReadProblem>,
}

fn read_file(input: &Input, options: &LoadOptions, allow_deferring: bool) -> ReadFile {
    let display = Arc::clone(input.display());
    let text = match source::read(input) {
        Ok(text) => text,
        Err(problem) => {
            return ReadFile {
                display,
                text: None,
                docs: Vec::new(),
                deferred: Vec::new(),
                fingerprint: (0, 0),
                problem: Some(problem),
            };
        }
    };
    let defer = allow_deferring && may_defer(input, &text, options);
    let mut docs = Vec::new();
    let mut deferred = Vec::new();
    for entry in yaml::parse_stream_deferring(&text, options.limits, &|document| {
        defer && looks_like_vm(document)
    }) {
        match entry {
            StreamEntry::Parsed(_, doc) => docs.push(doc),
            StreamEntry::Deferred(index) => deferred.push(index),
        }
    }
    ReadFile {
        display,
        fingerprint: if deferred.is_empty() {
            (0, 0)
        } else {
            fingerprint(&text)
        },
        text: Some(text),
        docs,
        deferred,
        problem: None,
    }
}

/// Loads one read file (at input position `input`) on its own: its objects and findings, and
/// the documents left for the VM pass.
fn load_one(
    file: ReadFile,
    input: usize,
    kustomizations: &Kustomizations,
    options: &LoadOptions,
) -> (Loaded, Option<DeferredFile>) {
    let mut loaded = Loaded::default();
    if let Some(problem) = file.problem {
        loaded.findings.push(Finding::new(
            &rules::UNREADABLE_FILE,
            point(&file.display, problem.line, problem.column),
            problem.message,
        ));
        loaded.skipped += 1;
        return (loaded, None);
    }
    let text: Option<Arc<str>> = file.text.map(Arc::from);
    if options.keep_sources
        && let Some(text) = &text
    {
        loaded
            .sources
            .push((Arc::clone(&file.display), Arc::clone(text)));
    }
    let kept = load_file(
        &file.display,
        text.as_deref(),
        file.docs,
        file.deferred.len(),
        kustomizations,
        options,
        &mut loaded,
    );
    let deferred = (kept && !file.deferred.is_empty()).then_some(DeferredFile {
        input,
        display: file.display,
        documents: file.deferred,
        fingerprint: file.fingerprint,
    });
    (loaded, deferred)
}

/// Reads and loads one input with all its documents (none left for a VM pass).
pub(super) fn load_whole(
    input: &Input,
    kustomizations: &Kustomizations,
    options: &LoadOptions,
) -> Loaded {
    load_one(read_file(input, options, false), 0, kustomizations, options).0
}

/// Reads and loads the inputs at positions `first..first + inputs.len()`.
pub fn first_pass(
    inputs: &[Input],
    first: usize,
    kustomizations: &Kustomizations,
    options: &LoadOptions,
) -> FirstPass {
    // Files are read, parsed and turned into objects in parallel, then gathered in input order.
    let files: Vec<(Loaded, Option<DeferredFile>)> = inputs
        .par_iter()
        .enumerate()
        .map(|(offset, input)| {
            load_one(
                read_file(input, options, true),
                first + offset,
                kustomizations,
                options,
            )
        })
        .collect();
    let mut pass = FirstPass::default();
    pass.loaded.files = files.len();
    for (loaded, deferred) in files {
        pass.loaded.append(loaded);
        pass.deferred.extend(deferred);
    }
    attach_origins(&mut pass.loaded, options);
    pass
}

/// Reads a file again and loads the documents the first pass left for the VM pass. Only
/// `objects` and `findings` of the result are filled: the documents were counted before.
pub fn deferred_objects(
    input: &Input,
    file: &DeferredFile,
    kustomizations: &Kustomizations,
    options: &LoadOptions,
) -> Loaded {
    let mut loaded = Loaded::default();
    let changed = |loaded: &mut Loaded, message: String| {
        loaded.findings.push(Finding::new(
            &rules::UNREADABLE_FILE,
            point(&file.display, 1, 1),
            message,
        ));
    };
    let text = match source::read(input) {
        Ok(text) => text,
        Err(problem) => {
            changed(
                &mut loaded,
                format!(
                    "{} (the file changed while kvlint read it)",
                    problem.message
                ),
            );
            return loaded;
        }
    };
    if fingerprint(&text) != file.fingerprint {
        changed(
            &mut loaded,
            "the file changed while kvlint read it; its VirtualMachines were not checked: run kvlint again".to_owned(),
        );
        return loaded;
    }
    let unit: Arc<str> = Arc::from(kustomizations.unit_of(&file.display));
    let namespace = kustomizations
        .namespace_for(&file.display)
        .unwrap_or(&options.default_namespace);
    for (_, doc) in yaml::parse_selected(&text, options.limits, &file.documents) {
        let doc = match doc {
            Ok(doc) => doc,
            Err(err) => {
                loaded.findings.push(Finding::new(
                    &rules::YAML_SYNTAX,
                    point(&file.display, err.pos.line, err.pos.column),
                    format!("invalid YAML: {}", err.message),
                ));
                continue;
            }
        };
        if matches!(doc.root.value, Value::Null) {
            continue;
        }
        let span = doc.root.span;
        let is_manifest = doc.root.get("apiVersion").is_some() && doc.root.get("kind").is_some();
        let before = loaded.objects.len();
        let findings_before = loaded.findings.len();
        collect_objects(
            &file.display,
            &unit,
            namespace,
            doc.root,
            &mut loaded.objects,
            &mut loaded.findings,
        );
        if loaded.objects.len() == before && !is_manifest {
            loaded.findings.push(Finding::new(
                &rules::SKIPPED_FILE,
                Location {
                    file: Arc::clone(&file.display),
                    span,
                },
                "skipped: this document is not a Kubernetes object (it has no apiVersion and kind)",
            ));
        } else {
            push_notices(
                &mut loaded.findings,
                findings_before,
                &file.display,
                &doc.notices,
            );
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> DocumentText<'_> {
        DocumentText {
            index: 0,
            text,
            first_line: 1,
        }
    }

    #[test]
    fn recognises_block_style_vms_only() {
        assert!(looks_like_vm(doc(
            "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: a\nspec:\n  instancetype:\n    kind: VirtualMachineClusterInstancetype\n"
        )));
        assert!(looks_like_vm(doc(
            "---\napiVersion: \"kubevirt.io/v1\"\nkind: 'VirtualMachine' # the VM\n"
        )));
        assert!(!looks_like_vm(doc(
            "apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\n"
        )));
        assert!(!looks_like_vm(doc(
            "{\"apiVersion\": \"kubevirt.io/v1\", \"kind\": \"VirtualMachine\"}"
        )));
        assert!(!looks_like_vm(doc(
            "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nkind: VirtualMachinePool\n"
        )));
        assert!(!looks_like_vm(doc("kind: VirtualMachine\n")));
    }
}
