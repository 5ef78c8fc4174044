//! The two glob dialects Argo CD matches paths with:
//! - a Directory source's `include`/`exclude` (`util/glob.Match`, gobwas/glob compiled without
//!   separators): `*` and `**` match any text, `/` included; `?` one character; `[abc]`,
//!   `[a-z]`, `[!abc]` classes; `{a,b}` alternatives (nestable); `\` escapes the next character;
//! - an ApplicationSet git `directories[].path` (Go `path.Match`): `*` does not cross `/`,
//!   `?` matches one character other than `/`, `[...]` classes negated with `^`, `\` escapes;
//!   a malformed pattern is an error, which the generator logs and skips.

/// Which dialect a pattern is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Gobwas,
    GoPath,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `*`: any run of characters (`/` included unless the dialect says otherwise).
    Any,
    /// `?`: one character.
    One,
    /// `[...]`: (negated, ranges).
    Class(bool, Vec<(char, char)>),
    /// `{a,b}`: alternatives, each a pattern.
    Alternatives(Vec<Vec<Token>>),
}

/// Why Go's `path.Match` refuses a pattern (`path.ErrBadPattern`), or why kvlint does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadPattern {
    #[error("longer than {MAX_PATTERN} characters")]
    TooLong,
    #[error("braces nested deeper than {MAX_NESTING}")]
    NestedTooDeep,
    #[error("unclosed `{{`")]
    UnclosedBrace,
    #[error("unclosed `[`")]
    UnclosedClass,
    #[error("a trailing `\\`")]
    TrailingEscape,
    #[error("an empty `[]`")]
    EmptyClass,
    #[error("a reversed range")]
    ReversedRange,
    #[error("a bare `-` in a class")]
    BareDash,
}

/// Patterns longer than this (in characters) are refused: they match nothing.
const MAX_PATTERN: usize = 4096;
/// `{...}` nested deeper than this is refused.
const MAX_NESTING: usize = 16;
/// Alternatives a pattern expands to, at most (`{a,b}{c,d}` is four).
const MAX_ALTERNATIVES: usize = 1024;

/// Whether `text` matches the Directory-source glob `pattern`; a pattern gobwas cannot
/// compile matches nothing (Argo CD logs it and treats it as no match), and so does one
/// beyond kvlint's bounds.
pub(crate) fn matches_include(pattern: &str, text: &str) -> bool {
    let chars: Vec<char> = pattern.chars().take(MAX_PATTERN + 1).collect();
    if chars.len() > MAX_PATTERN {
        return false;
    }
    let mut at = 0;
    match parse(&chars, &mut at, Dialect::Gobwas, 0) {
        Ok(tokens) if at == chars.len() => {
            let text: Vec<char> = text.chars().collect();
            let Some(patterns) = flatten(&tokens) else {
                return false;
            };
            patterns
                .iter()
                .any(|tokens| matches(tokens, &text, Dialect::Gobwas))
        }
        _ => false,
    }
}

/// Go's `path.Match(pattern, name)`: Err for a malformed pattern (or one beyond kvlint's
/// bounds).
pub(crate) fn path_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let chars: Vec<char> = pattern.chars().take(MAX_PATTERN + 1).collect();
    if chars.len() > MAX_PATTERN {
        return Err(BadPattern::TooLong);
    }
    let mut at = 0;
    let tokens = parse(&chars, &mut at, Dialect::GoPath, 0)?;
    let name: Vec<char> = name.chars().collect();
    Ok(matches(&tokens, &name, Dialect::GoPath))
}

/// Parses tokens up to the end, or (inside `{...}`) up to a `,` or `}` left for the caller.
fn parse(
    chars: &[char],
    at: &mut usize,
    dialect: Dialect,
    nesting: usize,
) -> Result<Vec<Token>, BadPattern> {
    if nesting > MAX_NESTING {
        return Err(BadPattern::NestedTooDeep);
    }
    let mut tokens = Vec::new();
    while let Some(&c) = chars.get(*at) {
        match c {
            ',' | '}' if nesting > 0 => return Ok(tokens),
            '*' => {
                *at += 1;
                if tokens.last() != Some(&Token::Any) {
                    tokens.push(Token::Any);
                }
            }
            '?' => {
                *at += 1;
                tokens.push(Token::One);
            }
            '[' => {
                *at += 1;
                tokens.push(class(chars, at, dialect)?);
            }
            '{' if dialect == Dialect::Gobwas => {
                *at += 1;
                let mut alternatives = Vec::new();
                loop {
                    alternatives.push(parse(chars, at, dialect, nesting + 1)?);
                    match chars.get(*at) {
                        Some(',') => *at += 1,
                        Some('}') => {
                            *at += 1;
                            break;
                        }
                        _ => return Err(BadPattern::UnclosedBrace),
                    }
                }
                tokens.push(Token::Alternatives(alternatives));
            }
            '\\' => {
                *at += 1;
                let Some(&escaped) = chars.get(*at) else {
                    return Err(BadPattern::TrailingEscape);
                };
                *at += 1;
                tokens.push(Token::Literal(escaped));
            }
            _ => {
                *at += 1;
                tokens.push(Token::Literal(c));
            }
        }
    }
    Ok(tokens)
}

/// A `[...]` class, after its `[`.
fn class(chars: &[char], at: &mut usize, dialect: Dialect) -> Result<Token, BadPattern> {
    let negation = match dialect {
        Dialect::Gobwas => '!',
        Dialect::GoPath => '^',
    };
    let negated = chars.get(*at) == Some(&negation);
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    loop {
        let Some(&c) = chars.get(*at) else {
            return Err(BadPattern::UnclosedClass);
        };
        if c == ']' {
            *at += 1;
            if ranges.is_empty() && dialect == Dialect::GoPath {
                return Err(BadPattern::EmptyClass);
            }
            return Ok(Token::Class(negated, ranges));
        }
        let low = class_char(chars, at, dialect)?;
        let high = if chars.get(*at) == Some(&'-') && chars.get(*at + 1) != Some(&']') {
            *at += 1;
            class_char(chars, at, dialect)?
        } else {
            low
        };
        if high < low {
            return Err(BadPattern::ReversedRange);
        }
        ranges.push((low, high));
    }
}

fn class_char(chars: &[char], at: &mut usize, dialect: Dialect) -> Result<char, BadPattern> {
    let Some(&c) = chars.get(*at) else {
        return Err(BadPattern::UnclosedClass);
    };
    *at += 1;
    if c == '\\' && dialect == Dialect::GoPath {
        let Some(&escaped) = chars.get(*at) else {
            return Err(BadPattern::TrailingEscape);
        };
        *at += 1;
        return Ok(escaped);
    }
    if c == '-' && dialect == Dialect::GoPath {
        return Err(BadPattern::BareDash);
    }
    Ok(c)
}

/// The patterns without alternatives that `tokens` stands for; None beyond
/// `MAX_ALTERNATIVES`.
fn flatten(tokens: &[Token]) -> Option<Vec<Vec<Token>>> {
    let mut out: Vec<Vec<Token>> = vec![Vec::new()];
    for token in tokens {
        match token {
            Token::Alternatives(alternatives) => {
                let mut expanded = Vec::new();
                for alternative in alternatives {
                    for tail in flatten(alternative)? {
                        for head in &out {
                            if expanded.len() >= MAX_ALTERNATIVES {
                                return None;
                            }
                            count_steps(head.len() + tail.len());
                            let mut joined = head.clone();
                            for token in &tail {
                                if !(token == &Token::Any && joined.last() == Some(&Token::Any)) {
                                    joined.push(token.clone());
                                }
                            }
                            expanded.push(joined);
                        }
                    }
                }
                out = expanded;
            }
            other => {
                for pattern in &mut out {
                    if !(other == &Token::Any && pattern.last() == Some(&Token::Any)) {
                        pattern.push(other.clone());
                    }
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
thread_local! {
    /// Table cells filled and tokens joined on this thread: tests bound a pattern's cost with
    /// it, which does not depend on the machine's load as a time does.
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn count_steps(count: usize) {
    #[cfg(test)]
    STEPS.with(|steps| steps.set(steps.get() + count as u64));
    #[cfg(not(test))]
    let _ = count;
}

/// Whether the whole of `text` matches `tokens` (no alternatives left): a table of which
/// (token, character) suffixes match, so no pattern takes more than tokens × text steps.
fn matches(tokens: &[Token], text: &[char], dialect: Dialect) -> bool {
    let width = text.len() + 1;
    count_steps(tokens.len() * width);
    // matched[t * width + i]: tokens[t..] matches text[i..].
    let mut matched = vec![false; (tokens.len() + 1) * width];
    matched[tokens.len() * width + text.len()] = true;
    for (t, token) in tokens.iter().enumerate().rev() {
        for i in (0..=text.len()).rev() {
            let next = |j: usize| matched[(t + 1) * width + j];
            let here = match token {
                Token::Literal(c) => text.get(i) == Some(c) && next(i + 1),
                Token::One => match text.get(i) {
                    Some('/') if dialect == Dialect::GoPath => false,
                    Some(_) => next(i + 1),
                    None => false,
                },
                Token::Class(negated, ranges) => match text.get(i) {
                    Some('/') if dialect == Dialect::GoPath => false,
                    Some(&c) => {
                        let inside = ranges.iter().any(|&(low, high)| low <= c && c <= high);
                        inside != *negated && next(i + 1)
                    }
                    None => false,
                },
                // Nothing, or one more character and still `*`.
                Token::Any => {
                    next(i)
                        || text.get(i).is_some_and(|&c| {
                            !(c == '/' && dialect == Dialect::GoPath) && matched[t * width + i + 1]
                        })
                }
                Token::Alternatives(_) => false,
            };
            matched[t * width + i] = here;
        }
    }
    matched[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_globs_cross_separators() {
        assert!(matches_include("*.yaml", "vm.yaml"));
        assert!(matches_include("*.yaml", "sub/dir/vm.yaml"));
        assert!(matches_include("**/vm.yaml", "sub/vm.yaml"));
        assert!(matches_include("{*.yml,*.yaml}", "a/b.yml"));
        assert!(!matches_include("{*.yml,*.yaml}", "a/b.json"));
        assert!(matches_include("vm-[0-9].yaml", "vm-3.yaml"));
        assert!(!matches_include("vm-[!0-9].yaml", "vm-3.yaml"));
        assert!(matches_include("v?.yaml", "v1.yaml"));
        assert!(matches_include("a\\*b", "a*b"));
        assert!(!matches_include("a\\*b", "axb"));
        assert!(
            !matches_include("{a,b", "a"),
            "an unclosed brace matches nothing"
        );
        assert!(!matches_include("vms/*.yaml", "other/x.yaml"));
        assert!(matches_include("{a,b}/{c,d}.yaml", "b/c.yaml"));
        assert!(matches_include("{a,{b,c}x}.yaml", "cx.yaml"));
    }

    #[test]
    fn hostile_patterns_stay_bounded() {
        let steps = |run: &dyn Fn()| {
            let before = STEPS.with(std::cell::Cell::get);
            run();
            STEPS.with(std::cell::Cell::get) - before
        };
        // Backtracking tries each way of spreading 4,000 characters over 200 stars; the table
        // has a cell per token and character.
        let pattern = "*a".repeat(200) + "b";
        let text = "a".repeat(4000);
        let cells = (2 * 200 + 1) * (4000 + 1);
        let used = steps(&|| {
            assert!(!matches_include(&pattern, &text));
            assert_eq!(path_match(&pattern, &text), Ok(false));
        });
        assert!(used <= 2 * cells, "{used} steps");
        // 2^20 alternatives are cut at MAX_ALTERNATIVES patterns of at most 20 tokens.
        let used = steps(&|| {
            assert!(!matches_include(&"{".repeat(100_000), "x"));
            assert!(!matches_include(&"{a,b}".repeat(20), "a"));
            assert_eq!(
                path_match(&"a".repeat(10_000), "a"),
                Err(BadPattern::TooLong)
            );
        });
        assert!(used <= 2 * 20 * MAX_ALTERNATIVES as u64, "{used} steps");
    }

    #[test]
    fn path_match_stays_within_a_segment() {
        assert_eq!(
            path_match("apps/*/overlays/*", "apps/web/overlays/dev"),
            Ok(true)
        );
        assert_eq!(
            path_match("apps/*/overlays/*", "apps/web/overlays/dev/x"),
            Ok(false)
        );
        assert_eq!(path_match("apps/*", "apps/a/b"), Ok(false));
        assert_eq!(path_match("apps/?", "apps/a"), Ok(true));
        assert_eq!(path_match("apps/[^a]", "apps/a"), Ok(false));
        assert_eq!(path_match("apps/[^a]", "apps/b"), Ok(true));
        assert_eq!(path_match("apps/{a,b}", "apps/{a,b}"), Ok(true));
        assert_eq!(
            path_match("apps/[", "apps/a"),
            Err(BadPattern::UnclosedClass)
        );
        assert_eq!(
            path_match("apps/\\", "apps/a"),
            Err(BadPattern::TrailingEscape)
        );
        assert_eq!(path_match("apps/[]", "apps/a"), Err(BadPattern::EmptyClass));
        assert_eq!(
            path_match("apps/[b-a]", "apps/a"),
            Err(BadPattern::ReversedRange)
        );
        assert_eq!(path_match("apps/[-]", "apps/a"), Err(BadPattern::BareDash));
    }
}
