//! Text printed verbatim where a GitHub Actions runner reads it: a unified patch of the user's
//! files (`kvlint fix --diff`) shows their lines as they are, and a line of a manifest may start
//! with `::` or hold `##[` (see [`super::workflow`]).
//!
//! Such text is printed between `::stop-commands::TOKEN` and `::TOKEN::`. The runner then runs
//! no command until it sees a command named TOKEN (compared without regard to case, as
//! `::TOKEN::` or `##[TOKEN]`): the lines between are only shown. The pair protects only if the
//! text cannot hold the token, so the token is new for every run and cannot be guessed by whoever
//! wrote the text.

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

/// `text` between the runner's stop and resume commands for `token`; empty text stays empty.
pub fn wrap(text: &str, token: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(text.len() + 2 * token.len() + 24);
    let _ = writeln!(out, "::stop-commands::{token}");
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "::{token}::");
    out
}

/// A token no one can predict: 128 bits of SipHash output under keys the standard library draws
/// from the operating system's random source for each thread (`RandomState`, whose keys are
/// documented as randomly seeded from a secure source where the host has one), over the time
/// and the process id so that two runs differ even where it has not. Lower-case hexadecimal
/// behind a prefix no runner command has.
pub fn fresh_token() -> String {
    let time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let mut token = String::from("kvlint-");
    for half in 0..2u8 {
        // Each `RandomState` has keys of its own.
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_u128(time);
        hasher.write_u32(std::process::id());
        hasher.write_u8(half);
        let _ = write!(token, "{:016x}", hasher.finish());
    }
    token
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::workflow;

    #[test]
    fn the_text_is_between_the_pair_and_nothing_else_is_a_command() {
        let patch =
            "--- a/vm.yaml\n+++ b/vm.yaml\n@@ -1,2 +1,1 @@\n   ::error::x\n-  running: false\n";
        let wrapped = wrap(patch, "kvlint-0123");
        let lines: Vec<&str> = wrapped.lines().collect();
        assert_eq!(lines.first(), Some(&"::stop-commands::kvlint-0123"));
        assert_eq!(lines.last(), Some(&"::kvlint-0123::"));
        assert_eq!(&wrapped[29..wrapped.len() - 16], patch);
        let commands: Vec<&&str> = lines
            .iter()
            .filter(|line| workflow::command_start(line).is_some())
            .collect();
        assert_eq!(commands.len(), 3, "{commands:?}");
        assert_eq!(wrap("", "kvlint-0123"), "");
        assert!(wrap("no newline", "t").ends_with("no newline\n::t::\n"));
    }

    #[test]
    fn tokens_differ_and_hold_no_separator() {
        let first = fresh_token();
        let second = fresh_token();
        assert_ne!(first, second);
        assert_eq!(first.len(), "kvlint-".len() + 32);
        assert!(
            first
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        );
    }
}
