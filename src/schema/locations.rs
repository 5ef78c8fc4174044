//! `--schema-location`: JSON Schemas on disk for kinds kvlint has no schema of its own for, found
//! the way kubeconform finds them.
//!
//! A location is either
//!
//! * a template of a file path, with kubeconform's placeholders `{{ .ResourceKind }}` (the kind in
//!   lower case), `{{ .ResourceAPIVersion }}` (the version, `v1`), `{{ .Group }}` (the group,
//!   `apps`; for a core object, its version), `{{ .KindSuffix }}` (`-<first label of the group>-<version>`,
//!   lower case, `-apps-v1`; `-v1` for core objects), and also `{{ .NormalizedKubernetesVersion }}`
//!   (`master`) and `{{ .StrictSuffix }}` (empty) as kubeconform fills them by default. A location
//!   that names a `.json` file without placeholders is a template too, used for every kind;
//! * or a directory holding `<kind><KindSuffix>.json` (`deployment-apps-v1.json`) or
//!   `<kind>-<version>.json` (`virtualmachineinstancetype-v1beta1.json`, as in `schemas/`).
//!
//! Locations are tried in order; the first file that exists and compiles is used. A kind without
//! a schema anywhere gets no finding. Only local files are read: `http(s)://` locations are
//! refused, and `$ref`s are resolved against the schema's own directory, never fetched. Schemas
//! without `$schema` are read as draft 4, as kubeconform reads them.

use std::collections::HashMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::{Draft, Retrieve, Uri};
use serde_json::Value;

use super::{Compiled, findings, has_builtin_schema};
use crate::diag::Finding;
use crate::error::Error;
use crate::k8s::Object;

/// The placeholders of a kubeconform schema-location template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placeholder {
    ResourceKind,
    ResourceApiVersion,
    Group,
    KindSuffix,
    NormalizedKubernetesVersion,
    StrictSuffix,
}

impl Placeholder {
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "ResourceKind" => Self::ResourceKind,
            "ResourceAPIVersion" => Self::ResourceApiVersion,
            "Group" => Self::Group,
            "KindSuffix" => Self::KindSuffix,
            "NormalizedKubernetesVersion" => Self::NormalizedKubernetesVersion,
            "StrictSuffix" => Self::StrictSuffix,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Value(Placeholder),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Location {
    Template(Vec<Part>),
    Directory(PathBuf),
}

/// The values kubeconform puts into a template for one object.
pub(super) struct Names {
    pub(super) kind: String,
    pub(super) version: String,
    pub(super) group: String,
    pub(super) kind_suffix: String,
}

impl Names {
    /// As kubeconform computes them from `apiVersion` and `kind`.
    pub(super) fn new(api_version: &str, kind: &str) -> Self {
        let parts: Vec<&str> = api_version.split('/').collect();
        let group = parts[0];
        let version = parts[parts.len() - 1];
        let mut kind_suffix = format!(
            "-{}",
            group.split('.').next().unwrap_or(group).to_lowercase()
        );
        if parts.len() > 1 {
            kind_suffix.push('-');
            kind_suffix.push_str(&parts[1].to_lowercase());
        }
        Self {
            kind: kind.to_lowercase(),
            version: version.to_owned(),
            group: group.to_owned(),
            kind_suffix,
        }
    }

    fn value(&self, placeholder: Placeholder) -> &str {
        match placeholder {
            Placeholder::ResourceKind => &self.kind,
            Placeholder::ResourceApiVersion => &self.version,
            Placeholder::Group => &self.group,
            Placeholder::KindSuffix => &self.kind_suffix,
            Placeholder::NormalizedKubernetesVersion => "master",
            Placeholder::StrictSuffix => "",
        }
    }
}

impl Location {
    fn candidates(&self, names: &Names) -> Vec<PathBuf> {
        match self {
            Self::Template(parts) => {
                let path: String = parts
                    .iter()
                    .map(|part| match part {
                        Part::Text(text) => text.as_str(),
                        Part::Value(placeholder) => names.value(*placeholder),
                    })
                    .collect();
                vec![PathBuf::from(path)]
            }
            Self::Directory(dir) => {
                let grouped = dir.join(format!("{}{}.json", names.kind, names.kind_suffix));
                let plain = dir.join(format!("{}-{}.json", names.kind, names.version));
                if grouped == plain {
                    vec![grouped]
                } else {
                    vec![grouped, plain]
                }
            }
        }
    }
}

/// Why a `--schema-location` value cannot be used; the message names the value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    #[error("schema location {0}: `{{{{` without `}}}}`")]
    Unclosed(String),
    #[error(
        "schema location {location}: unknown placeholder `{{{{ {placeholder} }}}}` (known: .ResourceKind, .ResourceAPIVersion, .Group, .KindSuffix, .NormalizedKubernetesVersion, .StrictSuffix)"
    )]
    UnknownPlaceholder {
        location: String,
        placeholder: String,
    },
    /// A URL (or kubeconform's `default`, which is one): only local files are read.
    #[error("schema location {0}: only local files and directories are supported, not URLs")]
    Remote(String),
    #[error("schema location: empty")]
    Empty,
    #[error("schema location {0}: not a directory, nor a template of a .json file path")]
    NotADirectory(String),
}

/// Parses `a/{{ .ResourceKind }}.json` into text and placeholders.
fn parse_template(text: &str) -> Result<Vec<Part>, LocationError> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            parts.push(Part::Text(rest[..start].to_owned()));
        }
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| LocationError::Unclosed(text.to_owned()))?;
        let inner = after[..end].trim();
        let placeholder = inner
            .strip_prefix('.')
            .and_then(Placeholder::parse)
            .ok_or_else(|| LocationError::UnknownPlaceholder {
                location: text.to_owned(),
                placeholder: inner.to_owned(),
            })?;
        parts.push(Part::Value(placeholder));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_owned()));
    }
    Ok(parts)
}

fn parse_location(text: &str) -> Result<Location, LocationError> {
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || text == "default" {
        return Err(LocationError::Remote(text.to_owned()));
    }
    let local = text.strip_prefix("file://").unwrap_or(text);
    if local.is_empty() {
        return Err(LocationError::Empty);
    }
    let json_file = Path::new(local)
        .extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("json"));
    if local.contains("{{") || json_file {
        return parse_template(local).map(Location::Template);
    }
    let dir = PathBuf::from(local);
    if dir.is_dir() {
        Ok(Location::Directory(dir))
    } else {
        Err(LocationError::NotADirectory(text.to_owned()))
    }
}

/// Schema locations for kinds without a built-in schema, with the schemas read so far.
pub struct SchemaLocations {
    locations: Vec<Location>,
    loaded: Mutex<HashMap<PathBuf, Result<Arc<Compiled>, Unusable>>>,
    /// Schema files (or files they refer to) that could not be read at all.
    unreadable: Mutex<Vec<String>>,
}

impl fmt::Debug for SchemaLocations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaLocations")
            .field("locations", &self.locations)
            .finish_non_exhaustive()
    }
}

impl SchemaLocations {
    /// Whether no location was given.
    pub fn is_empty(&self) -> bool {
        self.locations.is_empty()
    }

    /// The schema files found so far that could not be used (not JSON, or not a valid schema),
    /// with the reason; such files are skipped as kubeconform skips them.
    pub fn problems(&self) -> Vec<String> {
        let loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let mut problems: Vec<String> = loaded
            .values()
            .filter_map(|result| result.as_ref().err().map(ToString::to_string))
            .collect();
        problems.sort();
        problems
    }

    /// The first schema file found that could not be read (a FIFO, a device, a file over the
    /// size limit, no permission): unlike a file that is not a usable schema, which is skipped,
    /// this ends the run with an error, as the user named a location kvlint cannot read.
    pub fn unreadable(&self) -> Option<String> {
        let unreadable = self
            .unreadable
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        unreadable.iter().min().cloned()
    }

    /// The compiled schema for an object, from the first location that has a usable one.
    fn schema_for(&self, api_version: &str, kind: &str) -> Option<Arc<Compiled>> {
        let names = Names::new(api_version, kind);
        for location in &self.locations {
            for path in location.candidates(&names) {
                // A FIFO or a device there is not skipped: reading it is refused, an error.
                if !path.exists() || path.is_dir() {
                    continue;
                }
                let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
                let result = loaded.entry(path.clone()).or_insert_with(|| {
                    compile(&path).inspect_err(|problem| {
                        if let Unusable::Unreadable(message) = problem {
                            self.unreadable
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .push(message.clone());
                        }
                    })
                });
                if let Ok(compiled) = result {
                    return Some(Arc::clone(compiled));
                }
            }
        }
        None
    }
}

impl From<LocationError> for Error {
    fn from(error: LocationError) -> Self {
        Self::Usage(error.to_string())
    }
}

/// Parses `--schema-location` values (in order of precedence).
pub fn parse_locations(locations: &[String]) -> Result<SchemaLocations, LocationError> {
    Ok(SchemaLocations {
        locations: locations
            .iter()
            .map(|text| parse_location(text))
            .collect::<Result<_, _>>()?,
        loaded: Mutex::new(HashMap::new()),
        unreadable: Mutex::new(Vec::new()),
    })
}

/// Schema findings about an object of a kind without a built-in schema, against the schema the
/// locations have for it; no findings when they have none, and none for the kinds kvlint has a
/// schema of its own for.
pub fn check_with_locations(object: &Object, locations: &SchemaLocations) -> Vec<Finding> {
    if has_builtin_schema(object) || object.kind.is_empty() || object.api_version.is_empty() {
        return Vec::new();
    }
    match locations.schema_for(&object.api_version, &object.kind) {
        Some(compiled) => {
            findings::validate(object, &compiled.schema, &compiled.validator, &|_| None)
        }
        None => Vec::new(),
    }
}

/// Whether the schema names a JSON Schema draft that the validator knows; others (no `$schema`,
/// or kubernetes-json-schema's `http://json-schema.org/schema#`) are read as draft 4.
fn names_known_draft(schema: &Value) -> bool {
    schema
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|uri| {
            [
                "draft-04/",
                "draft-06/",
                "draft-07/",
                "draft/2019-09/",
                "draft/2020-12/",
            ]
            .iter()
            .any(|draft| uri.contains(draft))
        })
}

/// Why a schema file is not used; the message names the file.
#[derive(Debug, thiserror::Error)]
enum Unusable {
    /// It, or a file it refers to, cannot be read.
    #[error("{0}")]
    Unreadable(String),
    /// It is not JSON or not a JSON Schema (skipped, as kubeconform skips it).
    #[error("{0}")]
    Invalid(String),
}

fn compile(path: &Path) -> Result<Arc<Compiled>, Unusable> {
    let shown = path.display();
    let text = crate::source::read_given_text(path)
        .map_err(|problem| Unusable::Unreadable(format!("{shown}: {}", problem.message)))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|error| Unusable::Invalid(format!("{shown}: not JSON: {error}")))?;
    let absolute = std::path::absolute(path)
        .map_err(|error| Unusable::Unreadable(format!("{shown}: {error}")))?;
    let retriever = LocalFiles::default();
    let unreadable = Arc::clone(&retriever.unreadable);
    let mut options = jsonschema::options()
        .with_retriever(retriever)
        .with_base_uri(file_uri(&absolute));
    if !names_known_draft(&schema) {
        options = options.with_draft(Draft::Draft4);
    }
    let built = options.build(&schema);
    if let Some(referred) = unreadable
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .first()
    {
        return Err(Unusable::Unreadable(format!("{shown}: {referred}")));
    }
    let validator = built.map_err(|error| {
        Unusable::Invalid(format!("{shown}: not a usable JSON Schema: {error}"))
    })?;
    Ok(Arc::new(Compiled { schema, validator }))
}

/// `file://` URI of an absolute path, percent-encoded.
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    let text = path.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        uri.push('/');
    }
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri
}

fn percent_decode(text: &str) -> String {
    let hex = |byte: u8| char::from(byte).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(u8::try_from(high * 16 + low).unwrap_or(b'?'));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Resolves `$ref`s to local files only, read as the schema itself is; the files that cannot
/// be read are noted.
#[derive(Default)]
struct LocalFiles {
    unreadable: Arc<Mutex<Vec<String>>>,
}

impl Retrieve for LocalFiles {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let text = uri.as_str();
        let Some(rest) = text.strip_prefix("file://") else {
            return Err(format!("{text}: only local files are read").into());
        };
        let rest = rest.split(['#', '?']).next().unwrap_or(rest);
        let path = percent_decode(rest);
        let content = crate::source::read_given_text(Path::new(&path)).map_err(|problem| {
            let message = format!("{path}: {}", problem.message);
            self.unreadable
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(message.clone());
            message
        })?;
        Ok(serde_json::from_str(&content)?)
    }
}
