//! What each operator makes of a variable's value, as Flux's envsubst computes it. The value is
//! text; the arguments are bytes, because a nested expression such as `${b:1}` can cut a UTF-8
//! sequence (upstream slices strings by byte) and the cut bytes flow on unchanged.

use super::glob::{self, Steps, Stop, decode_rune};

/// An operator of a `${…}` expression, named by the characters after the variable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Operator {
    /// `${var}`.
    Bare,
    /// `${#var}`: the length in bytes.
    Length,
    /// `${var^}`.
    UpperFirst,
    /// `${var^^}`.
    UpperAll,
    /// `${var,}`.
    LowerFirst,
    /// `${var,,}`.
    LowerAll,
    /// `${var^,}` or `${var,^}`: upstream has no function for these and returns the value.
    MixedCase,
    /// `${var#pattern}`.
    TrimShortestPrefix,
    /// `${var##pattern}`.
    TrimLongestPrefix,
    /// `${var%pattern}`.
    TrimShortestSuffix,
    /// `${var%%pattern}`.
    TrimLongestSuffix,
    /// `${var:offset}` and `${var:offset:length}`.
    Substring,
    /// `${var/search/replacement}`.
    ReplaceFirst,
    /// `${var//search/replacement}`.
    ReplaceAll,
    /// `${var/#search/replacement}`.
    ReplacePrefix,
    /// `${var/%search/replacement}`.
    ReplaceSuffix,
    /// `${var=word}`, `${var:=word}`, `${var:-word}`, `${var:?word}`, `${var:+word}`: all the
    /// same function upstream, the value if it is not empty, else the words.
    Default,
}

impl Operator {
    /// The operators that supply a value of their own, so strict mode lets them name an unset
    /// variable (upstream `isDefaultOp`).
    pub(super) fn supplies_default(self) -> bool {
        self == Operator::Default
    }
}

/// What stops an evaluation that parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Fault {
    /// Upstream slices with a negative length and the Go runtime panics; the text is Go's.
    SlicePanic(String),
    /// More bytes than the budget allows.
    TooLarge,
    /// More matching work than the budget allows.
    TooExpensive,
}

/// The budgets of one substitution: bytes produced by expressions and pattern-matching steps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    bytes_left: usize,
    steps: Steps,
}

impl Limits {
    pub(super) fn new(bytes: usize, steps: u64) -> Self {
        Self {
            bytes_left: bytes,
            steps: Steps::new(steps),
        }
    }

    fn reserve(&mut self, bytes: usize) -> Result<(), Fault> {
        self.bytes_left = self.bytes_left.checked_sub(bytes).ok_or(Fault::TooLarge)?;
        Ok(())
    }
}

/// Applies `operator` to `value` with the evaluated `args`.
pub(super) fn apply(
    operator: Operator,
    value: &str,
    args: &[Vec<u8>],
    limits: &mut Limits,
) -> Result<Vec<u8>, Fault> {
    let first = args.first().map(Vec::as_slice);
    let result = match operator {
        Operator::Length => value.len().to_string().into_bytes(),
        Operator::UpperAll => value.chars().map(simple_upper).collect::<String>().into(),
        Operator::LowerAll => value.chars().map(simple_lower).collect::<String>().into(),
        Operator::UpperFirst => map_first(value, simple_upper),
        Operator::LowerFirst => map_first(value, simple_lower),
        Operator::TrimShortestPrefix | Operator::TrimLongestPrefix => {
            let Some(pattern) = first else {
                return Ok(value.as_bytes().to_vec());
            };
            let longest = operator == Operator::TrimLongestPrefix;
            trim_prefix(value.as_bytes(), pattern, longest, &mut limits.steps)?.to_vec()
        }
        Operator::TrimShortestSuffix | Operator::TrimLongestSuffix => {
            let Some(pattern) = first else {
                return Ok(value.as_bytes().to_vec());
            };
            let longest = operator == Operator::TrimLongestSuffix;
            let reversed = reverse_characters(value.as_bytes());
            let trimmed = trim_prefix(
                &reversed,
                &reverse_characters(pattern),
                longest,
                &mut limits.steps,
            )?;
            reverse_characters(trimmed)
        }
        Operator::Substring => substring(value.as_bytes(), args)?.to_vec(),
        Operator::ReplaceFirst | Operator::ReplaceAll => {
            let Some(search) = first else {
                return Ok(value.as_bytes().to_vec());
            };
            let replacement = args.get(1).map_or(&[][..], Vec::as_slice);
            let all = operator == Operator::ReplaceAll;
            return replace(value, search, replacement, all, limits);
        }
        Operator::ReplacePrefix => match args {
            [search, replacement] if value.as_bytes().starts_with(search) => {
                return replace(value, search, replacement, false, limits);
            }
            _ => value.as_bytes().to_vec(),
        },
        Operator::ReplaceSuffix => match args {
            [search, replacement] if value.as_bytes().ends_with(search) => {
                let kept = &value.as_bytes()[..value.len() - search.len()];
                limits.reserve(kept.len() + replacement.len())?;
                return Ok([kept, replacement].concat());
            }
            _ => value.as_bytes().to_vec(),
        },
        Operator::Default if value.is_empty() && !args.is_empty() => args.concat(),
        Operator::Bare | Operator::MixedCase | Operator::Default => value.as_bytes().to_vec(),
    };
    limits.reserve(result.len())?;
    Ok(result)
}

fn map_first(value: &str, map: fn(char) -> char) -> Vec<u8> {
    let mut characters = value.chars();
    let Some(first) = characters.next() else {
        return Vec::new();
    };
    let mut mapped = String::with_capacity(value.len() + 4);
    mapped.push(map(first));
    mapped.push_str(characters.as_str());
    mapped.into_bytes()
}

/// Go's `unicode.ToUpper`: the one-character (simple) mapping. Rust gives the full mapping, which
/// differs only for the characters with a multi-character special casing; of those, only the
/// Greek letters with ypogegrammeni have a simple uppercase (their titlecase form).
fn simple_upper(character: char) -> char {
    let mut full = character.to_uppercase();
    if let (Some(only), None) = (full.next(), full.next()) {
        return only;
    }
    let shifted = |offset: u32| char::from_u32(u32::from(character) + offset).unwrap_or(character);
    match character {
        '\u{1F80}'..='\u{1F87}' | '\u{1F90}'..='\u{1F97}' | '\u{1FA0}'..='\u{1FA7}' => shifted(8),
        '\u{1FB3}' | '\u{1FC3}' | '\u{1FF3}' => shifted(9),
        _ => character,
    }
}

/// Go's `unicode.ToLower`: only U+0130 has a multi-character full lowercase; its simple one is
/// `i`.
fn simple_lower(character: char) -> char {
    let mut full = character.to_lowercase();
    match (full.next(), full.next()) {
        (Some(only), None) => only,
        _ if character == '\u{130}' => 'i',
        _ => character,
    }
}

/// Reverses the characters of `bytes` as Go's `[]rune` conversion does: each byte that starts no
/// valid sequence becomes U+FFFD.
fn reverse_characters(bytes: &[u8]) -> Vec<u8> {
    let mut characters = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (character, width) = decode_rune(rest);
        characters.push(char::from_u32(character).unwrap_or(char::REPLACEMENT_CHARACTER));
        rest = &rest[width..];
    }
    characters.iter().rev().collect::<String>().into_bytes()
}

/// Removes the shortest (or longest) non-empty prefix that `pattern` matches. Every candidate
/// length is tried, longest first, as upstream does: a malformed pattern reached at any length
/// leaves the value as it is, even when another length matched.
fn trim_prefix<'v>(
    value: &'v [u8],
    pattern: &[u8],
    longest: bool,
    steps: &mut Steps,
) -> Result<&'v [u8], Fault> {
    let mut shortest = None;
    for length in (1..=value.len()).rev() {
        match glob::matches(pattern, &value[..length], steps) {
            Ok(true) if longest => return Ok(&value[length..]),
            Ok(true) => shortest = Some(length),
            Ok(false) => {}
            Err(Stop::BadPattern) => return Ok(value),
            Err(Stop::OutOfSteps) => return Err(Fault::TooExpensive),
        }
    }
    Ok(shortest.map_or(value, |length| &value[length..]))
}

/// `${var:offset}` and `${var:offset:length}` on bytes, as upstream: an argument that is not a
/// decimal integer leaves the value as it is, a negative offset counts from the end, a negative
/// length that does not reach past the end makes Go panic.
fn substring<'v>(value: &'v [u8], args: &[Vec<u8>]) -> Result<&'v [u8], Fault> {
    let Some(offset) = args.first() else {
        return Ok(value);
    };
    let Some(offset) = go_atoi(offset) else {
        return Ok(value);
    };
    let length_of_value = i64::try_from(value.len()).unwrap_or(i64::MAX);
    let start = if offset < 0 {
        (length_of_value + offset).max(0)
    } else {
        offset
    };
    let from_start = |start: i64| {
        usize::try_from(start)
            .ok()
            .and_then(|start| value.get(start..))
            .filter(|rest| !rest.is_empty())
            .unwrap_or_default()
    };
    let Some(length) = args.get(1) else {
        return Ok(from_start(start));
    };
    let Some(length) = go_atoi(length) else {
        return Ok(value);
    };
    // Go's int addition wraps.
    let end = start.wrapping_add(length);
    if end >= length_of_value {
        return Ok(from_start(start));
    }
    if end < 0 {
        let detail = format!("slice bounds out of range [:{end}] with length {length_of_value}");
        return Err(Fault::SlicePanic(detail));
    }
    if end < start {
        return Err(Fault::SlicePanic(format!(
            "slice bounds out of range [{start}:{end}]"
        )));
    }
    // Here 0 <= start <= end < the value's length.
    match (usize::try_from(start), usize::try_from(end)) {
        (Ok(start), Ok(end)) => Ok(&value[start..end]),
        _ => Ok(value),
    }
}

/// Go's `strconv.Atoi` on a 64-bit platform: an optional sign and decimal digits, in range.
fn go_atoi(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut magnitude: i128 = 0;
    for digit in digits {
        magnitude = magnitude * 10 + i128::from(digit - b'0');
        if magnitude > i128::from(i64::MAX) + 1 {
            return None;
        }
    }
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Go's `strings.Replace` with a limit of one or none: an empty search matches before every
/// character and at the end. The size is reserved before anything is built.
fn replace(
    value: &str,
    search: &[u8],
    replacement: &[u8],
    all: bool,
    limits: &mut Limits,
) -> Result<Vec<u8>, Fault> {
    let bytes = value.as_bytes();
    let places: Vec<usize> = if search.is_empty() {
        let boundaries = value.char_indices().map(|(at, _)| at).chain([value.len()]);
        if all {
            boundaries.collect()
        } else {
            boundaries.take(1).collect()
        }
    } else {
        let found = memchr::memmem::find_iter(bytes, search);
        if all {
            found.collect()
        } else {
            found.take(1).collect()
        }
    };
    let size = places
        .len()
        .checked_mul(replacement.len())
        .and_then(|added| added.checked_add(bytes.len()))
        .ok_or(Fault::TooLarge)?;
    limits.reserve(size)?;
    let mut result = Vec::with_capacity(size);
    let mut copied = 0;
    for place in places {
        result.extend_from_slice(&bytes[copied..place]);
        result.extend_from_slice(replacement);
        copied = place + search.len();
    }
    result.extend_from_slice(&bytes[copied..]);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(operator: Operator, value: &str, args: &[&[u8]]) -> Result<Vec<u8>, Fault> {
        let args: Vec<Vec<u8>> = args.iter().map(|arg| arg.to_vec()).collect();
        apply(operator, value, &args, &mut Limits::new(1 << 20, 1 << 20))
    }

    #[test]
    fn substring_follows_go_slicing() {
        type Case<'a> = (&'a [&'a [u8]], Result<&'a [u8], Fault>);
        let cases: &[Case<'_>] = &[
            (&[b"1"], Ok(b"bcdef")),
            (&[b"+1"], Ok(b"bcdef")),
            (&[b"6"], Ok(b"")),
            (&[b"-2"], Ok(b"ef")),
            (&[b"-9"], Ok(b"abcdef")),
            (&[b"1", b"2"], Ok(b"bc")),
            (&[b"1", b"9"], Ok(b"bcdef")),
            (&[b"7", b"1"], Ok(b"")),
            (&[b"x"], Ok(b"abcdef")),
            (&[b" 1"], Ok(b"abcdef")),
            (&[b"1", b"y"], Ok(b"abcdef")),
            (&[b"99999999999999999999"], Ok(b"abcdef")),
            (
                &[b"9223372036854775807", b"1"],
                Err(Fault::SlicePanic(
                    "slice bounds out of range [:-9223372036854775808] with length 6".into(),
                )),
            ),
            (
                &[b"3", b"-1"],
                Err(Fault::SlicePanic("slice bounds out of range [3:2]".into())),
            ),
            (
                &[b"0", b"-1"],
                Err(Fault::SlicePanic(
                    "slice bounds out of range [:-1] with length 6".into(),
                )),
            ),
            (
                &[b"5", b"-1"],
                Err(Fault::SlicePanic("slice bounds out of range [5:4]".into())),
            ),
            (
                &[b"4", b"9223372036854775807"],
                Err(Fault::SlicePanic(
                    "slice bounds out of range [:-9223372036854775805] with length 6".into(),
                )),
            ),
        ];
        for (args, expected) in cases {
            let expected = expected.clone().map(<[u8]>::to_vec);
            assert_eq!(
                run(Operator::Substring, "abcdef", args),
                expected,
                "{args:?}"
            );
        }
        assert_eq!(run(Operator::Substring, "é", &[b"1"]), Ok(vec![0xA9]));
    }

    #[test]
    fn case_mapping_is_one_character_per_character() {
        assert_eq!(
            run(Operator::UpperAll, "straße ǆ ᾳ", &[]),
            Ok("STRAßE Ǆ ᾼ".into())
        );
        assert_eq!(
            run(Operator::LowerAll, "İSTANBUL", &[]),
            Ok("istanbul".into())
        );
        assert_eq!(run(Operator::UpperFirst, "élan", &[]), Ok("Élan".into()));
        assert_eq!(run(Operator::LowerFirst, "ÉLAN", &[]), Ok("éLAN".into()));
        assert_eq!(run(Operator::UpperFirst, "", &[]), Ok(vec![]));
    }

    #[test]
    fn suffix_trims_reverse_by_characters() {
        // Upstream reverses, trims a prefix by bytes, and reverses back through []rune: the cut
        // half of `é` becomes U+FFFD.
        assert_eq!(
            run(Operator::TrimShortestSuffix, "aé", &[b"?"]),
            Ok("a\u{FFFD}".into())
        );
        assert_eq!(
            run(Operator::TrimShortestPrefix, "éa", &[b"?"]),
            Ok(b"\xA9a".to_vec())
        );
        assert_eq!(
            run(Operator::TrimLongestSuffix, "a.b.c", &[b".*"]),
            Ok(b"a".to_vec())
        );
        assert_eq!(
            run(Operator::TrimShortestSuffix, "a.b.c", &[b".*"]),
            Ok(b"a.b".to_vec())
        );
    }

    #[test]
    fn empty_search_inserts_at_every_character() {
        assert_eq!(
            run(Operator::ReplaceAll, "aé", &[b"", b"-"]),
            Ok("-a-é-".into())
        );
        assert_eq!(
            run(Operator::ReplaceFirst, "aé", &[b"", b"-"]),
            Ok("-aé".into())
        );
        assert_eq!(
            run(Operator::ReplacePrefix, "ab", &[b"", b"-"]),
            Ok("-ab".into())
        );
        assert_eq!(
            run(Operator::ReplaceSuffix, "ab", &[b"", b"-"]),
            Ok("ab-".into())
        );
    }

    #[test]
    fn replacement_size_is_reserved_before_building() {
        let value = "a".repeat(1000);
        let args = vec![Vec::new(), vec![b'x'; 1000]];
        let mut limits = Limits::new(100_000, 10);
        assert_eq!(
            apply(Operator::ReplaceAll, &value, &args, &mut limits),
            Err(Fault::TooLarge)
        );
    }
}
