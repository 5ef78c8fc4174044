//! ApplicationSet template substitution (applicationset/utils `Render.Replace`):
//! - by default fasttemplate with `{{` and `}}`: the text between is the tag, trimmed; a tag
//!   naming a string parameter is replaced by it, any other tag is left as written; a `{{`
//!   with no `}}` after it is an invalid template;
//! - with `goTemplate: true` a Go text/template. kvlint evaluates only actions that read a
//!   parameter (`{{ .path.basename }}`, `{{ index .path.segments 1 }}`, with `{{-`/`-}}`
//!   trimming); any other action leaves the template not expanded.

use serde_json::Value as Json;

/// Why a template was not expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NotExpanded {
    /// A fasttemplate `{{` with no `}}` (Argo CD fails the ApplicationSet).
    Invalid(String),
    /// A Go template action kvlint does not evaluate.
    Unsupported(String),
}

/// Parameters of one generated Application.
#[derive(Clone, Debug)]
pub(crate) enum Params {
    /// Flat string parameters (`path`, `path.basename`, `path[0]`, list element fields).
    Flat(Vec<(String, String)>),
    /// Go template data (`.path.path`, `.path.segments`, element fields).
    Go(Json),
}

impl Params {
    pub(crate) fn replace(&self, text: &str) -> Result<String, NotExpanded> {
        match self {
            Self::Flat(params) => fasttemplate(text, params),
            Self::Go(data) => go_template(text, data),
        }
    }
}

fn fasttemplate(text: &str, params: &[(String, String)]) -> Result<String, NotExpanded> {
    // `Render.Replace` returns a text without `{{…}}` on one line unchanged.
    if !text
        .lines()
        .any(|line| line.find("{{").is_some_and(|at| line[at..].contains("}}")))
    {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(NotExpanded::Invalid(format!(
                "cannot find end tag \"}}}}\" in the template {text:?}"
            )));
        };
        let tag = &after[..end];
        let key = tag.trim();
        match params.iter().find(|(name, _)| name == key) {
            Some((_, value)) if !key.is_empty() => out.push_str(value),
            _ => {
                out.push_str("{{");
                out.push_str(tag);
                out.push_str("}}");
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn go_template(text: &str, data: &Json) -> Result<String, NotExpanded> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let mut literal = &rest[..start];
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(NotExpanded::Unsupported(format!(
                "unclosed action in {text:?}"
            )));
        };
        let mut action = &after[..end];
        let mut next = &after[end + 2..];
        if let Some(trimmed) = action.strip_prefix("- ") {
            action = trimmed;
            literal = literal.trim_end();
        }
        if let Some(trimmed) = action.strip_suffix(" -") {
            action = trimmed;
            next = next.trim_start();
        }
        out.push_str(literal);
        out.push_str(&evaluate(action.trim(), data).ok_or_else(|| {
            NotExpanded::Unsupported(format!("the action {{{{{}}}}}", &after[..end]))
        })?);
        rest = next;
    }
    out.push_str(rest);
    Ok(out)
}

/// `.a.b` or `index .a.b N`, printed as Go prints it; None for anything else or a missing key.
fn evaluate(action: &str, data: &Json) -> Option<String> {
    let words: Vec<&str> = action.split_whitespace().collect();
    let value = match words.as_slice() {
        [field] => field_of(field, data)?,
        ["index", field, position] => {
            let position: usize = position.parse().ok()?;
            field_of(field, data)?.get(position)?
        }
        _ => return None,
    };
    match value {
        Json::String(text) => Some(text.clone()),
        Json::Number(number) => Some(number.to_string()),
        Json::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

fn field_of<'a>(field: &str, data: &'a Json) -> Option<&'a Json> {
    let path = field.strip_prefix('.')?;
    if path.is_empty() {
        return None;
    }
    path.split('.').try_fold(data, |value, key| {
        if key.is_empty() {
            return None;
        }
        value.as_object()?.get(key)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flat(pairs: &[(&str, &str)]) -> Params {
        Params::Flat(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn fasttemplate_replaces_known_tags_and_keeps_others() {
        let params = flat(&[("path.basename", "dev"), ("path[1]", "web")]);
        assert_eq!(
            params.replace("{{path[1]}}-{{ path.basename }}").unwrap(),
            "web-dev"
        );
        assert_eq!(
            params.replace("{{unknown}}/{{}}").unwrap(),
            "{{unknown}}/{{}}"
        );
        assert_eq!(params.replace("plain").unwrap(), "plain");
        // A `{{` with no `}}` on its line is left alone; a later tag makes it invalid.
        assert_eq!(params.replace("a {{ b").unwrap(), "a {{ b");
        // The tag runs from the first `{{` to the next `}}`, across the line.
        assert_eq!(
            params.replace("a {{ b\n{{path[1]}}").unwrap(),
            "a {{ b\n{{path[1]}}"
        );
        assert!(matches!(
            params.replace("{{path[1]}} {{ x"),
            Err(NotExpanded::Invalid(_))
        ));
    }

    #[test]
    fn go_templates_read_fields_only() {
        let data = Params::Go(json!({
            "path": {"path": "apps/web/overlays/dev", "basename": "dev",
                     "segments": ["apps", "web", "overlays", "dev"]},
            "cluster": "prod", "replicas": 2
        }));
        assert_eq!(
            data.replace("{{.path.basename}}-{{ index .path.segments 1 }}-{{- .cluster -}} x")
                .unwrap(),
            "dev-web-prodx"
        );
        assert_eq!(
            data.replace("a \n {{- .cluster -}} \n b").unwrap(),
            "aprodb"
        );
        assert_eq!(data.replace("{{ .replicas }}").unwrap(), "2");
        for unsupported in [
            "{{ .path.basename | upper }}",
            "{{ .missing }}",
            "{{ if .cluster }}a{{ end }}",
            "{{ .path }}",
        ] {
            assert!(
                matches!(data.replace(unsupported), Err(NotExpanded::Unsupported(_))),
                "{unsupported}"
            );
        }
    }
}
