//! Finding and reading the input: directories (sorted, honouring .gitignore), files and stdin.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::error::Error;

/// The configuration file, which the walk does not take for a manifest.
pub const FILE_NAME: &str = ".kvlint.yaml";

/// Where a source text came from.
#[derive(Clone, Debug)]
pub enum Input {
    File {
        path: PathBuf,
        display: Arc<str>,
    },
    Stdin {
        display: Arc<str>,
    },
    /// Bytes already in memory (the fuzz targets' one-file repository).
    Memory {
        display: Arc<str>,
        bytes: Arc<[u8]>,
    },
}

impl Input {
    pub fn display(&self) -> &Arc<str> {
        match self {
            Self::File { display, .. } | Self::Stdin { display } | Self::Memory { display, .. } => {
                display
            }
        }
    }
}

/// What to read.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub paths: Vec<PathBuf>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub stdin_filename: Option<String>,
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, Error> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern)
            .map_err(|err| Error::Usage(format!("invalid glob {pattern:?}: {err}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map(Some)
        .map_err(|err| Error::Usage(format!("invalid globs: {err}")))
}

fn is_manifest_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
}

fn display_path(path: &Path) -> Arc<str> {
    let text = path.to_string_lossy();
    let text = text.strip_prefix("./").unwrap_or(&text);
    Arc::from(text.replace('\\', "/"))
}

/// Lists the inputs in a stable order: the paths as given, each directory walked in sorted
/// order. A path that does not exist is a usage error (exit 2).
pub fn discover(selection: &Selection) -> Result<Vec<Input>, Error> {
    let include = glob_set(&selection.include)?;
    let exclude = glob_set(&selection.exclude)?;
    let mut inputs = Vec::new();
    let paths = if selection.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        selection.paths.clone()
    };
    for root in &paths {
        if root.as_os_str() == "-" {
            let name = selection.stdin_filename.as_deref().unwrap_or("<stdin>");
            inputs.push(Input::Stdin {
                display: Arc::from(name),
            });
            continue;
        }
        let metadata = std::fs::metadata(root)
            .map_err(|err| Error::Io(format!("{}: {err}", root.display())))?;
        if metadata.is_file() {
            inputs.push(Input::File {
                path: root.clone(),
                display: display_path(root),
            });
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(std::cmp::Ord::cmp)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                // An unreadable directory: reported as an input that fails to read.
                Err(err) => {
                    if let Some(path) = walk_error_path(&err) {
                        inputs.push(Input::File {
                            display: display_path(&path),
                            path,
                        });
                    }
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|t| t.is_file())
                || !is_manifest_name(entry.path())
                || entry.file_name() == FILE_NAME
            {
                continue;
            }
            let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
            if exclude
                .as_ref()
                .is_some_and(|set| set.is_match(relative) || set.is_match(entry.path()))
            {
                continue;
            }
            if include
                .as_ref()
                .is_some_and(|set| !set.is_match(relative) && !set.is_match(entry.path()))
            {
                continue;
            }
            inputs.push(Input::File {
                path: entry.path().to_path_buf(),
                display: display_path(entry.path()),
            });
        }
    }
    Ok(inputs)
}

fn walk_error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        _ => None,
    }
}

/// Why a file's bytes are not a text kvlint can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadProblem {
    pub message: String,
    /// 1-based line and column of the offending byte, when known.
    pub line: u32,
    pub column: u32,
}

/// Reads an input as UTF-8 text.
pub fn read(input: &Input) -> Result<String, ReadProblem> {
    let bytes = match input {
        Input::File { path, .. } => std::fs::read(path).map_err(|err| ReadProblem {
            message: format!("cannot read file: {err}"),
            line: 1,
            column: 1,
        })?,
        Input::Stdin { .. } => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|err| ReadProblem {
                    message: format!("cannot read standard input: {err}"),
                    line: 1,
                    column: 1,
                })?;
            bytes
        }
        Input::Memory { bytes, .. } => bytes.to_vec(),
    };
    decode(bytes)
}

/// Checks that bytes are UTF-8 text, as Kubernetes requires of manifests.
pub fn decode(bytes: Vec<u8>) -> Result<String, ReadProblem> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(ReadProblem {
            message: "the file is UTF-16 encoded; Kubernetes manifests must be UTF-8".to_owned(),
            line: 1,
            column: 1,
        });
    }
    if let Some(nul) = memchr::memchr(0, &bytes) {
        let (line, column) = position_of_byte(&bytes, nul);
        return Err(ReadProblem {
            message: "the file contains a NUL byte: it is binary, not YAML".to_owned(),
            line,
            column,
        });
    }
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to();
        let (line, column) = position_of_byte(err.as_bytes(), offset);
        ReadProblem {
            message: "the file is not valid UTF-8".to_owned(),
            line,
            column,
        }
    })
}

fn position_of_byte(bytes: &[u8], offset: usize) -> (u32, u32) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.split(|&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_binary_and_utf16() {
        assert!(decode(b"a: 1\n".to_vec()).is_ok());
        let nul = decode(b"a: 1\nb: \0\n".to_vec()).unwrap_err();
        assert_eq!((nul.line, nul.column), (2, 4));
        assert!(
            decode(vec![0xFF, 0xFE, b'a', 0])
                .unwrap_err()
                .message
                .contains("UTF-16")
        );
        let bad = decode(b"a: \xc3\x28\n".to_vec()).unwrap_err();
        assert_eq!((bad.line, bad.column), (1, 4));
    }
}
