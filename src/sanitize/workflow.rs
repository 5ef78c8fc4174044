//! What a GitHub Actions runner reads as a workflow command in a line of output.
//!
//! The runner splits its output into lines at `\n` and `\r`, trims leading white space
//! (.NET's `Char.IsWhiteSpace`) and runs a line that then starts with `::`; a line holding
//! `##[` anywhere is read as a command of the older syntax (and as a log group or error mark by
//! the log viewer).

/// The marker of the older command syntax, matched anywhere in a line.
pub const LEGACY_MARKER: &str = "##[";

/// White space the runner trims before looking for `::`. Unicode's White_Space is .NET's
/// `Char.IsWhiteSpace`; the three others are trimmed by some runtimes, and trimming more only
/// guards more lines.
pub fn is_trimmed_space(ch: char) -> bool {
    ch.is_whitespace() || matches!(ch, '\u{180e}' | '\u{200b}' | '\u{feff}')
}

/// Whether `ch` ends a line for the runner or a log viewer.
pub fn is_line_break(ch: char) -> bool {
    matches!(ch, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Byte offset of the `::` that makes `line` (one line, without its break) a command.
pub fn command_start(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(is_trimmed_space);
    rest.starts_with("::").then(|| line.len() - rest.len())
}

/// Whether any line of `text` would be read as a workflow command.
pub fn has_command(text: &str) -> bool {
    text.contains(LEGACY_MARKER)
        || text
            .split(is_line_break)
            .any(|line| command_start(line).is_some())
}

/// `text` with each line a runner would execute rewritten by `escape`, which is given the
/// character to replace (the first `:` of a leading `::`, the second `#` of `##[`) and returns
/// its replacement; `None` when no line needs it.
pub fn rewrite_commands(text: &str, escape: impl Fn(char) -> &'static str) -> Option<String> {
    if !has_command(text) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(is_line_break).unwrap_or(rest.len());
        let (line, after) = rest.split_at(end);
        let break_len = after.chars().next().map_or(0, char::len_utf8);
        let mut line = line;
        if let Some(at) = command_start(line) {
            out.push_str(&line[..at]);
            out.push_str(escape(':'));
            line = &line[at + 1..];
        }
        push_without_marker(&mut out, line, &escape);
        out.push_str(&after[..break_len]);
        rest = &after[break_len..];
    }
    Some(out)
}

fn push_without_marker(out: &mut String, line: &str, escape: &impl Fn(char) -> &'static str) {
    let mut rest = line;
    while let Some(at) = rest.find(LEGACY_MARKER) {
        out.push_str(&rest[..=at]);
        out.push_str(escape('#'));
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visible(ch: char) -> &'static str {
        match ch {
            ':' => "<colon>",
            _ => "<hash>",
        }
    }

    #[test]
    fn finds_commands_as_the_runner_does() {
        assert_eq!(command_start("::error::x"), Some(0));
        assert_eq!(command_start(" \t\u{a0}\u{3000}::add-mask::x"), Some(7));
        assert_eq!(command_start("x ::error::x"), None);
        assert_eq!(command_start(":error"), None);
        assert!(has_command("a\r::warning::b"));
        assert!(has_command("a\u{2028}  ::warning::b"));
        assert!(has_command("text ##[group]x"));
        assert!(!has_command("a: b\n  c::d\n# [x]"));
    }

    #[test]
    fn rewrites_only_what_a_runner_reads() {
        assert_eq!(rewrite_commands("plain\ntext: a::b\n", visible), None);
        assert_eq!(
            rewrite_commands("web\n  ::error file=a::FAKE\r::add-mask::x\n", visible).unwrap(),
            "web\n  <colon>:error file=a::FAKE\r<colon>:add-mask::x\n"
        );
        assert_eq!(
            rewrite_commands("a ##[group]b ###[c", visible).unwrap(),
            "a #<hash>[group]b ##<hash>[c"
        );
        let out = rewrite_commands("::##[x", visible).unwrap();
        assert!(!has_command(&out), "{out}");
    }
}
