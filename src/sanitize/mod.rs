//! Report strings made safe at the output edge, one layer per kind of output.
//!
//! Findings carry text from the manifests they are about (names, values, comments, file
//! names). The formats print it where it could do harm: a GitHub Actions runner executes any
//! log line that starts with `::` (after leading white space) and any line holding `##[`; a
//! terminal obeys escape sequences; GitHub renders images, links and `@mentions` in comments.
//! Each format passes manifest text through its layer here, once, as it writes it:
//!
//! - [`terminal`]: plain text for terminals and CI logs (human, concise, `diff` text, render's
//!   comments): control characters become visible escapes, and [`terminal::guard_lines`]
//!   breaks workflow commands in the finished text;
//! - [`markdown`]: Markdown comments and step summaries: mentions, issue references and bare
//!   links are broken, code spans get fences as long as they need;
//! - [`json`]: JSON (reports, SARIF, rendered VMs): serde_json's escaping plus the characters it
//!   leaves raw (DEL, C1 controls, bidirectional overrides) and `##[`;
//! - the GitHub command format and JUnit XML escape in their own modules, with
//!   [`workflow`]'s rules for what a runner reads as a command;
//! - [`stop_commands`]: text that must stay verbatim (`fix --diff`'s patch) is printed between
//!   the runner's stop and resume commands.

pub mod json;
pub mod markdown;
pub mod stop_commands;
pub mod terminal;
pub mod workflow;

/// Characters that change how the text around them is shown rather than show themselves:
/// C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates
/// ("Trojan Source").
pub fn is_hidden_control(ch: char) -> bool {
    ch.is_control() || matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}
