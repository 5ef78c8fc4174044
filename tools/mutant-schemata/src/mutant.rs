//! One entry of `cargo mutants --list --json`: what to change and where.

use serde_json::Value;

/// The kinds of change this tool can place; cargo-mutants calls them genres.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Genre {
    /// The function returns `replacement` at once.
    FnValue,
    /// The operator at the position becomes `replacement`.
    BinaryOperator,
    /// The unary operator at the position is deleted.
    UnaryOperator,
    /// The match guard at the position becomes `replacement` (`true` or `false`).
    MatchArmGuard,
    /// The match arm at the position is deleted.
    MatchArm,
    /// A genre this tool does not know; its mutant is reported as not placed.
    Other(String),
}

impl Genre {
    fn from_name(name: &str) -> Self {
        match name {
            "FnValue" => Self::FnValue,
            "BinaryOperator" => Self::BinaryOperator,
            "UnaryOperator" => Self::UnaryOperator,
            "MatchArmGuard" => Self::MatchArmGuard,
            "MatchArm" => Self::MatchArm,
            other => Self::Other(other.to_owned()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Mutant {
    /// The number the switch selects it by.
    pub id: u32,
    /// cargo-mutants' name, `FILE:LINE:COLUMN: replace … in FUNCTION`.
    pub name: String,
    pub genre: Genre,
    /// 1-based line of the span's start.
    pub line: usize,
    /// 1-based column (in characters) of the span's start.
    pub column: usize,
    pub replacement: String,
}

impl Mutant {
    /// Reads one entry; `id` is used when the entry carries no `id` of its own.
    pub fn from_json(entry: &Value, id: u32) -> Result<Self, String> {
        let text = |key: &str| entry.get(key).and_then(Value::as_str);
        let position = |key: &str| {
            entry["span"]["start"][key]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("a mutant without span.start.{key}: {entry}"))
        };
        let own_id = entry.get("id").and_then(Value::as_u64);
        Ok(Self {
            id: own_id
                .map_or(Ok(id), u32::try_from)
                .map_err(|e| e.to_string())?,
            name: text("name").ok_or("a mutant without a name")?.to_owned(),
            genre: Genre::from_name(text("genre").ok_or("a mutant without a genre")?),
            line: position("line")?,
            column: position("column")?,
            replacement: text("replacement").unwrap_or_default().to_owned(),
        })
    }

    /// Reads a list of entries, numbering those without an `id` from `first_id`.
    pub fn list_from_json(list: &Value, first_id: u32) -> Result<Vec<Self>, String> {
        let entries = list.as_array().ok_or("the mutants are not a JSON list")?;
        (first_id..)
            .zip(entries)
            .map(|(id, entry)| Self::from_json(entry, id))
            .collect()
    }
}
