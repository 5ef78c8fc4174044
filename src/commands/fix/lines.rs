//! Line numbers of an edited text, as the lines of the original text they stand at: a fix
//! found in a later pass is reported where `check` reports its finding.

use similar::{DiffOp, TextDiff};

/// For each line of `edited` (index 0 is line 1), the 1-based line of `original` it stands at:
/// an unchanged line is that line, an inserted or rewritten one the original line it took the
/// place of (or that follows it).
pub(super) struct LineMap(Vec<u32>);

impl LineMap {
    pub(super) fn new(original: &str, edited: &str) -> Self {
        let diff = TextDiff::from_lines(original, edited);
        let mut map = Vec::new();
        let line = |index: usize| u32::try_from(index + 1).unwrap_or(u32::MAX);
        for op in diff.ops() {
            match *op {
                DiffOp::Equal { old_index, len, .. } => {
                    map.extend((0..len).map(|i| line(old_index + i)));
                }
                DiffOp::Delete { .. } => {}
                DiffOp::Insert {
                    old_index, new_len, ..
                } => map.extend(std::iter::repeat_n(line(old_index), new_len)),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_len,
                    ..
                } => map.extend((0..new_len).map(|i| line(old_index + i.min(old_len - 1)))),
            }
        }
        Self(map)
    }

    /// The original line of `line` (1-based) of the edited text; a line past the end maps to
    /// itself.
    pub(super) fn original(&self, line: u32) -> u32 {
        let index = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
        self.0.get(index).copied().unwrap_or(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_after_removed_lines_keep_their_original_numbers() {
        let original = "a\nb\nc\nd\ne\n";
        let edited = "a\nd\ne\n";
        let map = LineMap::new(original, edited);
        assert_eq!(
            (1..=3).map(|l| map.original(l)).collect::<Vec<_>>(),
            [1, 4, 5]
        );
    }

    #[test]
    fn inserted_and_rewritten_lines_stand_at_the_line_they_replace_or_precede() {
        let original = "a\nb\nc\n";
        let edited = "a\nnew\nB\nc\n";
        let map = LineMap::new(original, edited);
        assert_eq!(
            (1..=4).map(|l| map.original(l)).collect::<Vec<_>>(),
            [1, 2, 2, 3]
        );
        assert_eq!(map.original(9), 9);
    }
}
