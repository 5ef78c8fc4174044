//! Splits a YAML stream into its documents before parsing, so that a syntax error in one
//! document does not hide the others (Kubernetes tools read multi-document files the same way:
//! one decoder call per document).

/// One document's text and where it starts in the file.
pub(super) struct Chunk<'a> {
    pub text: &'a str,
    /// 0-based line of the chunk's first line in the file.
    pub line_offset: u32,
    /// Character index of the chunk's first character in the file.
    pub index_offset: u32,
}

fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
}

fn char_count(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
}

/// Cuts before every `---` line and after every `...` line at column 0.
pub(super) fn split_documents<'a>(text: &'a str) -> Vec<Chunk<'a>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut start_index = 0usize;
    let mut offset = 0usize;
    let mut line_no = 0u32;
    let push = |chunks: &mut Vec<Chunk<'a>>, from: usize, to: usize, line: u32, index: usize| {
        if from < to {
            chunks.push(Chunk {
                text: &text[from..to],
                line_offset: line,
                index_offset: u32::try_from(index).unwrap_or(u32::MAX),
            });
        }
    };
    let bytes = text.as_bytes();
    let ends = memchr::memchr_iter(b'\n', bytes).map(|newline| newline + 1);
    let last = (!text.ends_with('\n') && !text.is_empty()).then_some(text.len());
    for end in ends.chain(last) {
        let line = &text[offset..end];
        if offset > start && is_marker(line, "---") {
            push(&mut chunks, start, offset, start_line, start_index);
            start_index += char_count(&text[start..offset]);
            start = offset;
            start_line = line_no;
        }
        offset += line.len();
        line_no += 1;
        if is_marker(line, "...") {
            push(&mut chunks, start, offset, start_line, start_index);
            start_index += char_count(&text[start..offset]);
            start = offset;
            start_line = line_no;
        }
    }
    push(&mut chunks, start, text.len(), start_line, start_index);
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_markers_at_column_zero() {
        let text = "a: 1\n---\nb: é\n...\n--- \nc: |\n  ---x\n";
        let chunks = split_documents(text);
        let texts: Vec<_> = chunks.iter().map(|c| c.text).collect();
        assert_eq!(
            texts,
            ["a: 1\n", "---\nb: é\n...\n", "--- \nc: |\n  ---x\n"]
        );
        assert_eq!(chunks[1].line_offset, 1);
        assert_eq!(chunks[2].line_offset, 4);
        assert_eq!(chunks[2].index_offset, 18);
    }

    #[test]
    fn a_leading_marker_does_not_make_an_empty_chunk() {
        let chunks = split_documents("---\na: 1\n");
        assert_eq!(chunks.len(), 1);
    }
}
