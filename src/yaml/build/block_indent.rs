//! A block scalar go-yaml refuses although YAML 1.2 reads it: libyaml's scanner (under
//! sigs.k8s.io/yaml, so kubectl and the API server) stops on a tab it meets while it is still
//! counting the indentation of a block scalar without an indentation indicator — right after
//! the leading spaces of the first line that is not blank (`v: |` then `  \tone`). A YAML 1.2
//! parser reads that tab as the first character of the content.

/// Whether the block scalar whose content starts at byte `content_start` of `text` (as the
/// parser marks it: its first content character) begins with a tab that go-yaml refuses.
pub(super) fn tab_in_detected_indentation(text: &str, content_start: usize) -> bool {
    if text.as_bytes().get(content_start) != Some(&b'\t') {
        return false;
    }
    let line_start = text[..content_start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..content_start].bytes().all(|b| b == b' ') {
        return false;
    }
    // The header is the last line before this one that is not blank.
    let mut end = line_start;
    while end > 0 {
        let previous_end = end - 1; // the line break ending the previous line
        let start = text[..previous_end].rfind('\n').map_or(0, |i| i + 1);
        let line = text[start..previous_end].trim_end_matches('\r');
        if !line.trim().is_empty() {
            return !has_indentation_indicator(line);
        }
        end = start;
    }
    false
}

/// Whether a block scalar header line (`key: |2-  # comment`) gives an indentation indicator.
fn has_indentation_indicator(header: &str) -> bool {
    let without_comment = header
        .find(" #")
        .map_or(header, |comment| &header[..comment]);
    let indicators = without_comment.trim_end();
    let Some(at) = indicators.rfind(['|', '>']) else {
        return false;
    };
    indicators[at + 1..].bytes().any(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with the block scalar's content starting at the first `first` in it.
    fn refused(text: &str, first: &str) -> bool {
        tab_in_detected_indentation(text, text.find(first).unwrap())
    }

    #[test]
    fn a_tab_after_the_first_lines_spaces_is_refused() {
        assert!(refused("v: |\n  \tone\n", "\t"));
        assert!(refused("v: >-\n\n  \tone\n", "\t"));
        assert!(refused("v: |\r\n  \tone\r\n", "\t"));
        assert!(refused("v: | # comment\n  \tone\n", "\t"));
    }

    #[test]
    fn a_tab_the_indentation_indicator_or_content_allows_is_read() {
        assert!(!refused("v: |2\n  \tone\n", "\t"));
        assert!(!refused("v: |-2 # comment\n  \tone\n", "\t"));
        assert!(!refused("v: |\n  one\n  \ttwo\n", "one"));
        assert!(!refused("v: |\n  one\ttwo\n", "one"));
        assert!(!refused("v: |\n  x\tone\n", "x"));
    }
}
