//! The shell patterns of `${var#pattern}`, `${var%pattern}` and their doubled forms, matched the
//! way Flux's envsubst matches them: Go's `path.Match` with two changes, `*` and `?` also match
//! `/`, and a `*` that ends the pattern matches the rest of the name at once. Matching works on
//! bytes, as Go's does: a pattern can stop inside a UTF-8 sequence, and a byte that does not start
//! a valid sequence counts as U+FFFD of width one.
//!
//! A `*` commits to the first place where the following chunk matches (only the last chunk may
//! look further, for a place that ends the name), so `a*b*c` is not a full backtracking match;
//! this is upstream's behaviour and kept as is.

/// Why a match stopped without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The pattern is malformed where the match reached it (upstream then leaves the value as is).
    BadPattern,
    /// The work budget ran out.
    OutOfSteps,
}

/// A work budget for matching, counted in pattern elements tried.
#[derive(Clone, Copy, Debug)]
pub(super) struct Steps {
    left: u64,
}

impl Steps {
    pub(super) fn new(limit: u64) -> Self {
        Self { left: limit }
    }

    fn take(&mut self, count: usize) -> Result<(), Stop> {
        let count = u64::try_from(count).unwrap_or(u64::MAX);
        self.left = self.left.checked_sub(count).ok_or(Stop::OutOfSteps)?;
        Ok(())
    }
}

#[cfg(test)]
thread_local! {
    /// Chunks and pattern elements tried on this thread, counted apart from `Steps`: tests check
    /// with it that the budget pays for all the work, which does not depend on the machine's
    /// load as a time does.
    pub(super) static ELEMENTS_TRIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The replacement character Go's decoder returns for a byte that starts no valid sequence.
pub(super) const REPLACEMENT: u32 = 0xFFFD;

/// Decodes the first character of `bytes` as Go's `utf8.DecodeRune` does: a character and its
/// width, or U+FFFD of width one for an invalid sequence. `bytes` must not be empty.
pub(super) fn decode_rune(bytes: &[u8]) -> (u32, usize) {
    let head = &bytes[..bytes.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or_default(),
    };
    match valid.chars().next() {
        Some(first) => (u32::from(first), first.len_utf8()),
        None => (REPLACEMENT, 1),
    }
}

/// Whether `pattern` matches all of `name`.
pub(super) fn matches(pattern: &[u8], name: &[u8], steps: &mut Steps) -> Result<bool, Stop> {
    let mut pattern = pattern;
    let mut name = name;
    'chunks: while !pattern.is_empty() {
        let (star, chunk, rest) = split_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(true);
        }
        let last = pattern.is_empty();
        if let Some(after) = match_chunk(chunk, name, steps)?
            && (after.is_empty() || !last)
        {
            name = after;
            continue;
        }
        if star {
            for skip in 1..=name.len() {
                if let Some(after) = match_chunk(chunk, &name[skip..], steps)? {
                    if last && !after.is_empty() {
                        continue;
                    }
                    name = after;
                    continue 'chunks;
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Splits off the next chunk: whether stars precede it, the chunk (up to the next `*` outside a
/// class) and the rest of the pattern.
fn split_chunk(pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let stars = pattern.iter().take_while(|&&byte| byte == b'*').count();
    let pattern = &pattern[stars..];
    let mut in_class = false;
    let mut end = 0;
    while end < pattern.len() {
        match pattern[end] {
            b'\\' if end + 1 < pattern.len() => end += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'*' if !in_class => break,
            _ => {}
        }
        end += 1;
    }
    (stars > 0, &pattern[..end], &pattern[end..])
}

/// Matches a star-free chunk against the start of `name`: what follows the match, or `None`.
fn match_chunk<'n>(
    chunk: &[u8],
    name: &'n [u8],
    steps: &mut Steps,
) -> Result<Option<&'n [u8]>, Stop> {
    steps.take(chunk.len() + 1)?;
    #[cfg(test)]
    ELEMENTS_TRIED.with(|tried| tried.set(tried.get() + 1));
    let mut chunk = chunk;
    let mut name = name;
    while let Some(&element) = chunk.first() {
        #[cfg(test)]
        ELEMENTS_TRIED.with(|tried| tried.set(tried.get() + 1));
        if name.is_empty() {
            return Ok(None);
        }
        match element {
            b'[' => {
                let (character, width) = decode_rune(name);
                name = &name[width..];
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (low, rest) = class_character(chunk)?;
                    chunk = rest;
                    let mut high = low;
                    if chunk.first() == Some(&b'-') {
                        (high, chunk) = class_character(&chunk[1..])?;
                    }
                    matched |= low <= character && character <= high;
                    ranges += 1;
                }
                if matched == negated {
                    return Ok(None);
                }
            }
            b'?' => {
                let (_, width) = decode_rune(name);
                name = &name[width..];
                chunk = &chunk[1..];
            }
            _ => {
                if element == b'\\' {
                    chunk = &chunk[1..];
                }
                let Some(&literal) = chunk.first() else {
                    return Err(Stop::BadPattern);
                };
                if literal != name[0] {
                    return Ok(None);
                }
                name = &name[1..];
                chunk = &chunk[1..];
            }
        }
    }
    Ok(Some(name))
}

/// One possibly escaped character of a class, and the rest of the chunk, which must not be empty.
fn class_character(chunk: &[u8]) -> Result<(u32, &[u8]), Stop> {
    let chunk = match chunk.first() {
        None | Some(b'-' | b']') => return Err(Stop::BadPattern),
        Some(b'\\') => &chunk[1..],
        Some(_) => chunk,
    };
    if chunk.is_empty() {
        return Err(Stop::BadPattern);
    }
    let (character, width) = decode_rune(chunk);
    let rest = &chunk[width..];
    if (character == REPLACEMENT && width == 1) || rest.is_empty() {
        return Err(Stop::BadPattern);
    }
    Ok((character, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, name: &str) -> Result<bool, Stop> {
        matches(
            pattern.as_bytes(),
            name.as_bytes(),
            &mut Steps::new(1_000_000),
        )
    }

    #[test]
    fn patterns_match_like_flux() {
        let cases: &[(&str, &str, Result<bool, Stop>)] = &[
            ("abc", "abc", Ok(true)),
            ("abc", "abcd", Ok(false)),
            ("a?c", "abc", Ok(true)),
            ("a?c", "a/c", Ok(true)),
            ("a*", "a/b/c", Ok(true)),
            ("*/c", "a/b/c", Ok(true)),
            ("*b", "abab", Ok(true)),
            ("a*b*c", "axbyc", Ok(true)),
            ("[a-c]x", "bx", Ok(true)),
            ("[^a-c]x", "bx", Ok(false)),
            ("[^a-c]x", "dx", Ok(true)),
            ("\\*", "*", Ok(true)),
            ("[\\]]", "]", Ok(true)),
            ("?", "é", Ok(true)),
            ("[é]", "é", Ok(true)),
            // Malformed parts only count once the match reaches them.
            ("[]", "a", Err(Stop::BadPattern)),
            ("x[", "a", Ok(false)),
            ("a\\", "a", Ok(false)),
            ("a\\", "ab", Err(Stop::BadPattern)),
            ("[a-", "a", Err(Stop::BadPattern)),
            ("*", "", Ok(true)),
            ("", "", Ok(true)),
            ("", "a", Ok(false)),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(check(pattern, name), *expected, "{pattern:?} on {name:?}");
        }
    }

    #[test]
    fn question_mark_takes_one_byte_of_a_cut_sequence() {
        let cut = &"é".as_bytes()[..1];
        assert_eq!(matches(b"?", cut, &mut Steps::new(100)), Ok(true));
        assert_eq!(decode_rune(cut), (REPLACEMENT, 1));
        assert_eq!(decode_rune("€x".as_bytes()), (0x20AC, 3));
    }

    #[test]
    fn the_budget_stops_long_matches() {
        let name = vec![b'a'; 10_000];
        assert_eq!(
            matches(b"*b*c", &name, &mut Steps::new(1_000)),
            Err(Stop::OutOfSteps)
        );
    }
}
