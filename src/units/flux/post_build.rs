//! `spec.postBuild`: the variables of `substitute` and `substituteFrom` (ConfigMaps and Secrets
//! among the checked files), substituted into each object of a build's output as the
//! kustomize-controller does (`envsubst`), with what kvlint cannot read left as written.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

use serde_json::Value as Json;

use super::Entry;
use crate::diag::{Finding, Location};
use crate::rules;
use crate::units::envsubst::{self, Strategy, Strictness, Variables};
use crate::yaml::{self, Limits, Node, Span};

/// The variables of `spec.postBuild`, and findings about sources kvlint cannot read.
pub(crate) struct PostBuild {
    pub variables: Variables,
    pub strategy: Strategy,
    pub findings: Vec<Finding>,
    /// Whether every `substituteFrom` source was read: when one was not (not among the checked
    /// files), a variable nothing defines may come from it, so it is left as written instead of
    /// failing the build.
    pub complete: bool,
    /// Variables Flux has but whose values kvlint cannot read (encrypted), with the source
    /// that holds them. Expressions that use them are left as written.
    pub unknown: BTreeMap<String, String>,
    /// Where each known variable's value is defined (the definition that wins).
    pub definitions: BTreeMap<String, Location>,
    /// The checked files that hold the `substituteFrom` sources read: the unit changes with
    /// them although its build does not read them.
    pub source_files: BTreeSet<Arc<str>>,
}

/// A ConfigMap or Secret among the checked files that `substituteFrom` may name.
pub(crate) struct VariableSource {
    pub file: Arc<str>,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub data: Vec<(String, String)>,
    /// Keys whose values are encrypted (SOPS encrypts values, never keys): Flux reads the
    /// decrypted object from the cluster, kvlint knows only that the variable exists.
    pub sealed: Vec<String>,
    /// Where each key is written.
    pub key_spans: BTreeMap<String, Span>,
}

/// Reads `spec.postBuild` as the controller does: `substituteFrom` in order, later sources
/// overriding earlier ones, then `substitute`; None without `postBuild`.
pub(crate) fn post_build(entry: &Entry, sources: &[VariableSource]) -> Option<PostBuild> {
    let post_build = entry.spec.get("postBuild")?;
    let mut variables = Variables::new();
    let mut unknown = BTreeMap::new();
    let mut definitions = BTreeMap::new();
    let mut findings = Vec::new();
    let mut complete = true;
    let mut source_files = BTreeSet::new();
    let namespace = entry.namespace.as_deref().unwrap_or("default");
    for reference in post_build
        .get("substituteFrom")
        .and_then(Json::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let kind = reference.get("kind").and_then(Json::as_str).unwrap_or("");
        let name = reference.get("name").and_then(Json::as_str).unwrap_or("");
        let optional = reference.get("optional").and_then(Json::as_bool) == Some(true);
        let found = sources.iter().find(|source| {
            source.kind == kind
                && source.name == name
                && source.namespace.as_deref().unwrap_or("default") == namespace
        });
        match found {
            Some(source) => {
                source_files.insert(Arc::clone(&source.file));
                for (key, value) in &source.data {
                    variables.set(key.clone(), value);
                    unknown.remove(key);
                    if let Some(span) = source.key_spans.get(key) {
                        definitions.insert(
                            key.clone(),
                            Location {
                                file: Arc::clone(&source.file),
                                span: *span,
                            },
                        );
                    }
                }
                for key in &source.sealed {
                    definitions.remove(key);
                    variables.set(key.clone(), &format!("${{{key}}}"));
                    unknown.insert(
                        key.clone(),
                        format!("{kind} {namespace}/{name}, encrypted with SOPS"),
                    );
                }
            }
            None if optional => {}
            None => {
                complete = false;
                findings.push(Finding::new(
                &rules::UNIT_NOT_RENDERED,
                entry.location(),
                format!(
                    "substituteFrom {kind} {namespace}/{name} is not among the checked files: its variables are unknown, and fields that use them are not checked"
                ),
            ));
            }
        }
    }
    if let Some(map) = post_build.get("substitute").and_then(Json::as_object) {
        for (key, value) in map {
            let text = match value {
                Json::String(text) => text.clone(),
                other => other.to_string(),
            };
            variables.set(key.clone(), &text);
            unknown.remove(key);
            if let Some(span) = entry.substitute_spans.get(key) {
                definitions.insert(
                    key.clone(),
                    Location {
                        file: Arc::clone(&entry.file),
                        span: *span,
                    },
                );
            }
        }
    }
    Some(PostBuild {
        variables,
        strategy: Strategy::from_field(post_build.get("substituteStrategy").and_then(Json::as_str)),
        findings,
        complete,
        unknown,
        definitions,
        source_files,
    })
}

/// The ConfigMaps and Secrets among the checked files' `texts` that `substituteFrom` (or a
/// HelmRelease's `valuesFrom`) may name.
pub(crate) fn variable_sources_in(texts: &[(Arc<str>, String)]) -> Vec<VariableSource> {
    texts
        .iter()
        .filter(|(_, text)| text.contains("ConfigMap") || text.contains("Secret"))
        .flat_map(|(file, text)| {
            yaml::parse_stream(text, Limits::default())
                .into_iter()
                .flatten()
                .filter_map(|doc| variable_sources(file, &doc.root))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The variable sources of a checked file: ConfigMaps (`data`) and Secrets (`data`, base64
/// decoded, and `stringData`). In a SOPS-encrypted one (a `sops` key), values written as
/// `ENC[…]` are sealed.
pub(crate) fn variable_sources(file: &Arc<str>, node: &Node) -> Option<VariableSource> {
    let kind = node.get("kind")?.as_str()?;
    if !matches!(kind, "ConfigMap" | "Secret") || node.get("apiVersion")?.as_str()? != "v1" {
        return None;
    }
    let metadata = node.get("metadata")?;
    let encrypted = node.get("sops").is_some();
    let mut data = Vec::new();
    let mut sealed = Vec::new();
    let mut key_spans = BTreeMap::new();
    let mut entries = |key: &str, decode: bool| {
        for entry in node.get(key).and_then(Node::as_map).unwrap_or_default() {
            key_spans.insert(entry.key.clone(), entry.key_span);
            let Some(value) = entry.value.as_str() else {
                continue;
            };
            if encrypted && value.starts_with("ENC[") {
                sealed.push(entry.key.clone());
            } else if !decode {
                data.push((entry.key.clone(), value.to_owned()));
            } else if let Some(decoded) =
                base64_decode(value).and_then(|bytes| String::from_utf8(bytes).ok())
            {
                data.push((entry.key.clone(), decoded));
            }
        }
    };
    if kind == "Secret" {
        entries("data", true);
        entries("stringData", false);
    } else {
        entries("data", false);
    }
    Some(VariableSource {
        file: Arc::clone(file),
        kind: kind.to_owned(),
        namespace: metadata
            .get("namespace")
            .and_then(Node::as_str)
            .map(str::to_owned),
        name: metadata.get("name")?.as_str()?.to_owned(),
        data,
        sealed,
        key_spans,
    })
}

/// Standard base64 (Kubernetes' Secret `data`), padding optional.
pub(super) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for byte in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((buffer >> bits) & 0xFF).to_le_bytes()[0]);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A build's output after substitution.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Substituted {
    pub text: String,
    /// Expressions left as written because a variable they use is unknown offline.
    pub unresolved: Vec<Unresolved>,
    /// Expressions substituted with known variables: the variables, and where the value is
    /// in the substituted text (bytes).
    pub resolved: Vec<(BTreeSet<String>, Range<usize>)>,
}

/// One expression left as written.
#[derive(Debug, PartialEq)]
pub(crate) struct Unresolved {
    /// Its text, `${` to `}`.
    pub expression: String,
    /// The unknown variables it uses.
    pub names: BTreeSet<String>,
    /// Where it is in the substituted text (bytes).
    pub range: Range<usize>,
}

/// The substitution that fails a Flux build, worded as the kustomize-controller words it
/// where its text is Flux's own.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.controller_message().unwrap_or_else(|| .0.to_string()))]
pub(crate) struct PostBuildFailed(envsubst::SubstitutionError);

/// Substitutes the variables into each document of a build's output, as the controller does
/// per object; the first failure is Flux's, and the build fails with it.
pub(crate) fn substitute(
    output: &str,
    post_build: &PostBuild,
) -> Result<Substituted, PostBuildFailed> {
    let mut out = Substituted {
        text: String::with_capacity(output.len()),
        ..Substituted::default()
    };
    for (i, document) in split_documents(output).into_iter().enumerate() {
        if i > 0 {
            out.text.push_str("---\n");
        }
        let opted_out = yaml::parse_stream(document, Limits::default())
            .into_iter()
            .flatten()
            .next()
            .map_or((None, None), |doc| opt_out(&doc.root));
        if !envsubst::runs(
            post_build.strategy,
            &post_build.variables,
            opted_out.0.as_deref(),
            opted_out.1.as_deref(),
        ) {
            out.text.push_str(document);
            continue;
        }
        let offset = out.text.len();
        let substituted = substitute_document(document, post_build)?;
        out.text.push_str(&substituted.text);
        out.unresolved
            .extend(substituted.unresolved.into_iter().map(|mut unresolved| {
                unresolved.range = unresolved.range.start + offset..unresolved.range.end + offset;
                unresolved
            }));
        out.resolved.extend(
            substituted
                .resolved
                .into_iter()
                .map(|(names, range)| (names, range.start + offset..range.end + offset)),
        );
    }
    Ok(out)
}

/// Variables left as written in one document, at most (each needs another pass).
const MAX_UNKNOWN_VARIABLES: usize = 64;

/// One document substituted. An expression that uses a variable whose value is unknown (sealed,
/// or, with incomplete sources, one nothing defines) keeps its `${…}` text, where Flux,
/// knowing the value, would substitute it.
fn substitute_document(
    document: &str,
    post_build: &PostBuild,
) -> Result<Substituted, PostBuildFailed> {
    let mut variables = post_build.variables.clone();
    let mut unknown: BTreeSet<String> = post_build.unknown.keys().cloned().collect();
    for _ in 0..=MAX_UNKNOWN_VARIABLES {
        match envsubst::substitute(document, &variables, Strictness::Full) {
            Ok(substituted) => return Ok(keep_unknown(document, &substituted, &unknown)),
            Err(envsubst::SubstitutionError::VariableNotSet { name, .. })
                if !post_build.complete =>
            {
                let written = format!("${{{name}}}");
                variables.set(name.clone(), &written);
                unknown.insert(name);
            }
            Err(error) => return Err(PostBuildFailed(error)),
        }
    }
    Ok(Substituted {
        text: document.to_owned(),
        ..Substituted::default()
    })
}

/// The substituted text with every expression that uses an unknown variable put back as
/// written, and where the others' values are.
fn keep_unknown(
    document: &str,
    substituted: &envsubst::Substituted,
    unknown: &BTreeSet<String>,
) -> Substituted {
    let mut out = Substituted::default();
    let mut copied = 0;
    for substitution in &substituted.substitutions {
        out.text
            .push_str(&substituted.text[copied..substitution.output.start]);
        copied = substitution.output.end;
        let start = out.text.len();
        let names = |unknown_ones: bool| -> BTreeSet<String> {
            substitution
                .references
                .iter()
                .filter(|reference| {
                    reference.set && unknown.contains(&reference.name) == unknown_ones
                })
                .map(|reference| reference.name.clone())
                .collect()
        };
        let unknown_names = names(true);
        if unknown_names.is_empty() {
            out.text
                .push_str(&substituted.text[substitution.output.clone()]);
            let known = names(false);
            if !known.is_empty() {
                out.resolved.push((known, start..out.text.len()));
            }
            continue;
        }
        let expression = &document[substitution.span.clone()];
        out.text.push_str(expression);
        out.unresolved.push(Unresolved {
            expression: expression.to_owned(),
            names: unknown_names,
            range: start..out.text.len(),
        });
    }
    out.text.push_str(&substituted.text[copied..]);
    out
}

/// The `kustomize.toolkit.fluxcd.io/substitute` label and annotation of an object.
fn opt_out(node: &Node) -> (Option<String>, Option<String>) {
    let value = |key: &str| {
        node.get("metadata")
            .and_then(|m| m.get(key))
            .and_then(|m| m.get(envsubst::OPT_OUT_KEY))
            .and_then(Node::as_str)
            .map(str::to_owned)
    };
    (value("labels"), value("annotations"))
}

/// The documents of Kustomize's output: it separates them with a `---` line.
fn split_documents(output: &str) -> Vec<&str> {
    let mut documents = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in output.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "---" {
            documents.push(&output[start..at]);
            start = at + line.len();
        }
        at += line.len();
    }
    documents.push(&output[start..]);
    documents
}
