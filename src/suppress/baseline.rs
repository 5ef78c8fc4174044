//! Baselines: the findings a repository already had when it adopted kvlint. With a baseline,
//! only new findings are reported. A finding is identified by its rule, file, object, field
//! path and message — not by its line, so unrelated edits do not resurrect it.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diag::{Finding, ObjectRef};
use crate::error::Error;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct Entry {
    code: String,
    file: String,
    object: Option<ObjectRef>,
    path: Option<String>,
    message: String,
}

#[derive(Serialize, Deserialize)]
struct BaselineFile {
    version: u32,
    findings: Vec<Entry>,
}

fn entry(finding: &Finding) -> Entry {
    Entry {
        code: finding.rule.code.to_owned(),
        file: finding.location.file.to_string(),
        object: finding.object.clone(),
        path: finding.path.clone(),
        message: finding.message.clone(),
    }
}

/// Writes every finding to `path` as a baseline.
pub fn write(path: &Path, findings: &[Finding]) -> Result<(), Error> {
    let entries: BTreeSet<Entry> = findings.iter().map(entry).collect();
    let file = BaselineFile {
        version: 1,
        findings: entries.into_iter().collect(),
    };
    let text = serde_json::to_string_pretty(&file)
        .map_err(|err| Error::system("cannot encode the baseline", err.into()))?
        + "\n";
    crate::source::write::OutputPath::from_argument(path)?.write(text.as_bytes())
}

/// The findings recorded in a baseline file.
#[derive(Debug, Default)]
pub struct Baseline {
    known: BTreeSet<Entry>,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = crate::source::read_given_text(path)
            .map_err(|problem| Error::unusable(path, problem.message))?;
        let file: BaselineFile = serde_json::from_str(&text).map_err(|err| {
            Error::Usage(format!(
                "{} is not a kvlint baseline: {err}",
                path.display()
            ))
        })?;
        Ok(Self {
            known: file.findings.into_iter().collect(),
        })
    }

    /// Removes the findings recorded in the baseline.
    pub fn filter(&self, findings: &mut Vec<Finding>) {
        if !self.known.is_empty() {
            findings.retain(|finding| !self.known.contains(&entry(finding)));
        }
    }
}

/// Removes the findings recorded in the baseline at `path`.
pub fn filter(path: &Path, findings: &mut Vec<Finding>) -> Result<(), Error> {
    Baseline::load(path)?.filter(findings);
    Ok(())
}
