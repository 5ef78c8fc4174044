//! Flux's post-build variable substitution (`spec.postBuild` of a Flux `Kustomization`), as the
//! kustomize-controller runs it on the YAML text of each rendered object: fluxcd/pkg
//! `kustomize_varsub.go` (which variables, when it runs) and its envsubst fork (the expression
//! language, strict mode). Pure: text and variables in, text or an error with its place out.
//!
//! The language, only `${…}` being an expression (`$var` is text):
//! - plain text: `$$` is `$`, so `$${var}` is the text `${var}`;
//! - `${var}`; `${#var}` (length in bytes);
//! - `${var:=w}`, `${var=w}`, `${var:-w}`, `${var:?w}`, `${var:+w}`: all give the value when it
//!   is not empty, else the words `w` (upstream has one function for them all, so `:+` does not
//!   do what a shell does); `${var-w}` and `${var+w}` are not supported (missing closing brace);
//! - `${var:offset}`, `${var:offset:length}` on bytes; a negative offset counts from the end
//!   (only through a nested expression, as `:-` starts a default);
//! - `${var#p}`, `${var##p}`, `${var%p}`, `${var%%p}` with shell patterns (`glob`);
//! - `${var/s/r}`, `${var//s/r}`, `${var/#s/r}`, `${var/%s/r}` with literal search strings; in
//!   their arguments `\/`, `\\` and `$$` are escapes; `${var/#s/}` and `${var/%s/}` leave the
//!   value as it is (upstream needs both arguments there);
//! - `${var^}`, `${var^^}`, `${var,}`, `${var,,}` (one-character case mappings, as Go's).
//!
//! Arguments may hold nested expressions. Strictness follows the controller release
//! ([`Strictness`]). Results that upstream gives as Go strings with invalid UTF-8 (a substring or
//! a trim that cuts a character) make Flux fail when it reads the text back as YAML; here they
//! are [`SubstitutionError::InvalidUtf8`].

mod funcs;
mod glob;
mod parse;

use std::ops::Range;

use indexmap::IndexMap;

/// The label or annotation that turns substitution off for one object.
pub const OPT_OUT_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// The value of [`OPT_OUT_KEY`] that turns substitution off.
pub const OPT_OUT_VALUE: &str = "disabled";

/// The pattern every variable name must match (Go regexp syntax, ASCII classes), as Flux writes
/// it in its error message.
pub const VARIABLE_NAME_PATTERN: &str = "^[_[:alpha:]][_[:alpha:][:digit:]]*$";

/// The most bytes the expressions of one text may produce in total (nested values count again in
/// the value that holds them). Far above what one Kubernetes object may hold; it stops
/// `${a//${empty}/${a}}`-style growth before it takes the memory.
pub const MAX_EXPRESSION_BYTES: usize = 64 << 20;

/// The most pattern elements one text's `#`, `##`, `%`, `%%` may try. Upstream tries every
/// prefix of the value, and each try can walk the whole prefix: long values with patterns that
/// nearly match would take hours.
pub const MAX_MATCH_STEPS: u64 = 50_000_000;

/// The variables of one Flux Kustomization, in definition order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variables {
    values: IndexMap<String, String>,
}

impl Variables {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a variable as Flux loads it: every `\n` is removed from the value, and a later
    /// source overrides an earlier one. Sources go in Flux's order: each `substituteFrom` entry
    /// (ConfigMap `data`, Secret `data` decoded) in turn, then the inline `substitute` map. Any
    /// name is kept; [`substitute`] refuses invalid names as Flux does, only when it runs.
    pub fn set(&mut self, name: impl Into<String>, value: &str) {
        self.values.insert(name.into(), value.replace('\n', ""));
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// The first name that does not match [`VARIABLE_NAME_PATTERN`]. (Flux checks a Go map, so
    /// with several invalid names the one it reports varies; this one is stable.)
    pub fn invalid_name(&self) -> Option<&str> {
        self.values
            .keys()
            .map(String::as_str)
            .find(|name| !is_valid_name(name))
    }
}

impl<N: Into<String>, V: AsRef<str>> Extend<(N, V)> for Variables {
    fn extend<I: IntoIterator<Item = (N, V)>>(&mut self, sources: I) {
        for (name, value) in sources {
            self.set(name, value.as_ref());
        }
    }
}

impl<N: Into<String>, V: AsRef<str>> FromIterator<(N, V)> for Variables {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(sources: I) -> Self {
        let mut variables = Self::new();
        variables.extend(sources);
        variables
    }
}

fn is_valid_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first == '_' || first.is_ascii_alphabetic())
        && characters.all(|rest| rest == '_' || rest.is_ascii_alphanumeric())
}

/// How an unset variable is treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strictness {
    /// It expands to the empty string: kustomize-controller before v1.9.0 by default, and later
    /// releases with the `StrictPostBuildSubstitutions` feature gate turned off.
    Off,
    /// Only a bare `${var}` fails: envsubst before v1.6.0, i.e. kustomize-controller v1.3 to
    /// v1.8 with `StrictPostBuildSubstitutions` turned on.
    BareOnly,
    /// Every expression fails except the default operators (`=`, `:=`, `:-`, `:?`, `:+`):
    /// envsubst v1.6.0 and later, kustomize-controller v1.9.0 and later, where it is the default.
    #[default]
    Full,
}

/// `spec.postBuild.substituteStrategy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Substitute only when at least one variable is defined (the default).
    #[default]
    WithVariables,
    /// Substitute even without variables, so defaults apply (kustomize-controller v1.9.0).
    Always,
}

impl Strategy {
    /// The strategy a field value selects: the controller compares with `Always` only.
    pub fn from_field(value: Option<&str>) -> Self {
        match value {
            Some("Always") => Strategy::Always,
            _ => Strategy::WithVariables,
        }
    }
}

/// Whether Flux substitutes in an object: not when its label or annotation [`OPT_OUT_KEY`] is
/// [`OPT_OUT_VALUE`], and otherwise when there is a variable or the strategy is `Always` (with
/// no variables and the default strategy even `${var:=default}` stays as written). A
/// Kustomization without `spec.postBuild` never substitutes.
pub fn runs(
    strategy: Strategy,
    variables: &Variables,
    opt_out_label: Option<&str>,
    opt_out_annotation: Option<&str>,
) -> bool {
    let disabled = [opt_out_label, opt_out_annotation].contains(&Some(OPT_OUT_VALUE));
    !disabled && (!variables.is_empty() || strategy == Strategy::Always)
}

/// The text after substitution and where each expression was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substituted {
    pub text: String,
    /// The outermost expressions, in order.
    pub substitutions: Vec<Substitution>,
}

/// One outermost `${…}` expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substitution {
    /// The expression in the input, `${` to `}`.
    pub span: Range<usize>,
    /// Its value in the output.
    pub output: Range<usize>,
    /// The variables it names, nested ones included, in evaluation order (inner first).
    pub references: Vec<Reference>,
}

/// A variable named by an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub name: String,
    /// The expression that names it (a nested one for nested names).
    pub span: Range<usize>,
    /// Whether the variable is defined.
    pub set: bool,
}

/// A syntax error, with upstream's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxProblem {
    #[error("bad substitution")]
    BadSubstitution,
    #[error("missing closing brace")]
    MissingClosingBrace,
    #[error("unable to parse variable name")]
    VariableName,
    #[error("unable to parse substitution within function")]
    FunctionArgument,
}

/// Why a text cannot be substituted. Spans are byte ranges of the input, from the `${` of the
/// expression concerned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubstitutionError {
    #[error("'{name}' var name is invalid, must match '{VARIABLE_NAME_PATTERN}'")]
    InvalidVariableName { name: String },
    #[error("{problem}")]
    Syntax {
        problem: SyntaxProblem,
        span: Range<usize>,
    },
    /// Go's `%q` quoting; a name holds only letters, digits and `_`, which it leaves as they are.
    #[error("variable not set (strict mode): \"{name}\"")]
    VariableNotSet { name: String, span: Range<usize> },
    #[error("negative substring length: Flux's envsubst panics (runtime error: {detail})")]
    NegativeLength { detail: String, span: Range<usize> },
    #[error(
        "the substituted text is not valid UTF-8 (the expression cuts a character), which Flux \
         fails to read as YAML"
    )]
    InvalidUtf8 { span: Range<usize> },
    #[error("the expressions produce more than {MAX_EXPRESSION_BYTES} bytes")]
    OutputTooLarge { span: Range<usize> },
    #[error("the pattern needs more than {MAX_MATCH_STEPS} matching steps on this value")]
    PatternTooExpensive { span: Range<usize> },
}

impl SubstitutionError {
    /// The expression concerned, if the error has one.
    pub fn span(&self) -> Option<Range<usize>> {
        match self {
            SubstitutionError::InvalidVariableName { .. } => None,
            SubstitutionError::Syntax { span, .. }
            | SubstitutionError::VariableNotSet { span, .. }
            | SubstitutionError::NegativeLength { span, .. }
            | SubstitutionError::InvalidUtf8 { span }
            | SubstitutionError::OutputTooLarge { span }
            | SubstitutionError::PatternTooExpensive { span } => Some(span.clone()),
        }
    }

    /// What the kustomize-controller reports after `post build failed for '<gvk>/<name>': `,
    /// for the errors whose text is Flux's own.
    pub fn controller_message(&self) -> Option<String> {
        match self {
            SubstitutionError::InvalidVariableName { .. } => {
                Some(format!("envsubst error: {self}"))
            }
            SubstitutionError::Syntax { .. } | SubstitutionError::VariableNotSet { .. } => Some(
                format!("envsubst error: variable substitution failed: {self}"),
            ),
            _ => None,
        }
    }
}

/// Substitutes `variables` into `text` as Flux does once [`runs`] says it runs.
pub fn substitute(
    text: &str,
    variables: &Variables,
    strictness: Strictness,
) -> Result<Substituted, SubstitutionError> {
    if let Some(name) = variables.invalid_name() {
        return Err(SubstitutionError::InvalidVariableName {
            name: name.to_owned(),
        });
    }
    let limits = funcs::Limits::new(MAX_EXPRESSION_BYTES, MAX_MATCH_STEPS);
    let evaluated = parse::evaluate(text, variables, strictness, limits)?;
    match String::from_utf8(evaluated.bytes) {
        Ok(text) => Ok(Substituted {
            text,
            substitutions: evaluated.substitutions,
        }),
        Err(error) => {
            let bad = error.utf8_error().valid_up_to();
            let culprit = evaluated
                .substitutions
                .iter()
                .rev()
                .find(|substitution| substitution.output.start <= bad)
                .map_or(0..0, |substitution| substitution.span.clone());
            Err(SubstitutionError::InvalidUtf8 { span: culprit })
        }
    }
}

#[cfg(test)]
mod tests;
