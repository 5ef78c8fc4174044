//! kvlint's YAML reader against Kubernetes' Go readers on the corner cases of block scalars
//! (testdata/yaml/block-scalars). `expected.jsonl` there is the output of
//! conformance/yaml-reader, which runs the Go readers themselves: `kubectl` is how kubectl
//! apply, Argo CD's plain directories and the API machinery read a file (k8s.io/apimachinery's
//! document reader, which ends every line it reads with a line break, then sigs.k8s.io/yaml);
//! `kustomize` is how kustomize's kyaml reads one (go.yaml.in/yaml/v3). kvlint reads files as
//! the first do; kustomize builds are read from kustomize's own output, which writes each value
//! unambiguously.

use std::path::Path;

use kvlint::yaml::{Limits, parse_stream};
use serde_json::Value;

const FOLDER: &str = "testdata/yaml/block-scalars";

/// Each file's documents as kvlint reads them, or the first error.
fn read_by_kvlint(text: &str) -> Result<Vec<Value>, String> {
    parse_stream(text, Limits::default())
        .into_iter()
        .filter_map(|document| match document {
            Ok(document) => {
                let value = document.root.to_json();
                (!value.is_null()).then_some(Ok(value))
            }
            Err(error) => Some(Err(error.message)),
        })
        .collect()
}

/// Files kvlint does not yet read as kubectl does, each with the difference. The test fails when
/// one of them starts to agree, so the list cannot outlive the difference.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

#[test]
fn kvlint_reads_block_scalars_as_kubectl_reads_them() {
    let expected = std::fs::read_to_string(Path::new(FOLDER).join("expected.jsonl")).unwrap();
    let mut compared = 0;
    let mut differences = Vec::new();
    for line in expected.lines() {
        let reading: Value = serde_json::from_str(line).unwrap();
        let file = reading["file"].as_str().unwrap();
        let text = std::fs::read_to_string(Path::new(FOLDER).join(file)).unwrap();
        let kvlint = read_by_kvlint(&text);
        let kubectl = reading["kubectl"].as_array().unwrap();
        let agrees = match (&kvlint, reading.get("kubectl_error")) {
            (Err(_), Some(_)) => true,
            (Ok(documents), None) => documents == kubectl,
            _ => false,
        };
        let known = KNOWN_DIFFERENCES.iter().any(|(known, _)| *known == file);
        if known {
            assert!(
                !agrees,
                "{file} now reads as kubectl reads it: remove it from KNOWN_DIFFERENCES"
            );
        } else if !agrees {
            differences.push(format!(
                "{file}: kubectl reads {} {}, kvlint {kvlint:?}",
                Value::Array(kubectl.clone()),
                reading
                    .get("kubectl_error")
                    .map_or("", |e| e.as_str().unwrap())
            ));
        }
        compared += 1;
    }
    let files = std::fs::read_dir(FOLDER)
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|e| e == "yaml")
        })
        .count();
    assert_eq!(
        compared, files,
        "expected.jsonl covers every file of {FOLDER}"
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
