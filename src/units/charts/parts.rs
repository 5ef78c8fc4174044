//! Which part (`---`) of a template each document Helm printed from it comes from. Helm prints
//! a template's parts in order and leaves out the empty ones (a part inside an `if` that is
//! false), and a part inside a `range` may print several documents: the documents are matched
//! to the parts in that order, each to a part that writes its fields.

use crate::yaml::Node;

use super::positions::Outline;

/// Above this many document–part pairs, documents are matched by their order alone.
const MAX_PAIRS: usize = 4096;

/// What a document scores in a part that writes a literal `kind:` other than its own.
const OTHER_KIND: i64 = -1_000_000;

/// The part of `outline` each of `documents` (printed from it, in order) is placed in.
pub(super) fn assign(outline: &Outline<'_>, documents: &[&Node]) -> Vec<usize> {
    let parts = outline.parts();
    if documents.is_empty() {
        return Vec::new();
    }
    if parts <= 1 || documents.len().saturating_mul(parts) > MAX_PAIRS {
        return (0..documents.len())
            .map(|n| n.min(parts.saturating_sub(1)))
            .collect();
    }
    // Doubled, so that printing two documents from one part (a `range`) costs less than
    // one field written: of equal fits, the documents go to parts of their own, in order.
    let fit: Vec<Vec<i64>> = documents
        .iter()
        .map(|document| {
            (0..parts)
                .map(|part| {
                    outline
                        .fit(part, document)
                        .map_or(OTHER_KIND, |fields| 2 * i64::try_from(fields).unwrap_or(0))
                })
                .collect()
        })
        .collect();
    // best[d][p]: the highest total of documents 0..=d with document d in part p; came[d][p]:
    // the part of document d - 1 on that path. Parts never go back.
    let mut best = vec![fit[0].clone()];
    let mut came: Vec<Vec<usize>> = vec![vec![0; parts]];
    for scores in &fit[1..] {
        let previous = best.last().map(Vec::as_slice).unwrap_or_default();
        let mut row = Vec::with_capacity(parts);
        let mut from = Vec::with_capacity(parts);
        // The best of the parts before p, and which it is.
        let mut earlier: Option<(i64, usize)> = None;
        for (part, score) in scores.iter().enumerate() {
            let again = previous[part] - 1;
            let (total, source) = match earlier {
                Some((value, at)) if value >= again => (value, at),
                _ => (again, part),
            };
            row.push(total + score);
            from.push(source);
            if earlier.is_none_or(|(value, _)| previous[part] > value) {
                earlier = Some((previous[part], part));
            }
        }
        best.push(row);
        came.push(from);
    }
    let last = best.last().map(Vec::as_slice).unwrap_or_default();
    let mut part = (0..parts)
        .rev()
        .max_by_key(|&part| last[part])
        .unwrap_or_default();
    let mut assigned = vec![0; documents.len()];
    for d in (0..documents.len()).rev() {
        assigned[d] = part;
        part = came[d][part];
    }
    assigned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, parse_stream};

    const TEMPLATE: &str = r"{{- if .Values.service }}
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  ports:
    - port: 22
{{- end }}
{{- range .Values.vms }}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: {{ .name }}
spec:
  runStrategy: Always
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: b
";

    fn documents(texts: &[&str]) -> Vec<Node> {
        texts
            .iter()
            .map(|text| {
                parse_stream(text, Limits::default())
                    .remove(0)
                    .unwrap()
                    .root
            })
            .collect()
    }

    fn assigned(template: &str, texts: &[&str]) -> Vec<usize> {
        let roots = documents(texts);
        let refs: Vec<&Node> = roots.iter().collect();
        assign(&Outline::new(template), &refs)
    }

    const SERVICE: &str =
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: r\nspec:\n  ports:\n  - port: 22\n";
    const VM: &str = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: a\nspec:\n  runStrategy: Always\n";
    const CONFIG: &str =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n";

    #[test]
    fn a_part_left_out_by_a_false_condition_is_skipped() {
        assert_eq!(assigned(TEMPLATE, &[VM, CONFIG]), [1, 2]);
        assert_eq!(assigned(TEMPLATE, &[CONFIG]), [2]);
    }

    #[test]
    fn a_part_in_a_range_takes_every_document_it_prints() {
        assert_eq!(
            assigned(TEMPLATE, &[SERVICE, VM, VM, VM, CONFIG]),
            [0, 1, 1, 1, 2]
        );
        assert_eq!(assigned(TEMPLATE, &[VM, VM]), [1, 1]);
    }

    #[test]
    fn parts_that_fit_alike_are_taken_in_order() {
        let template = "kind: {{ .a }}\nspec: {}\n---\nkind: {{ .b }}\nspec: {}\n---\nkind: {{ .c }}\nspec: {}\n";
        let document = "kind: X\nspec: {}\n";
        assert_eq!(
            assigned(template, &[document, document, document]),
            [0, 1, 2]
        );
        assert_eq!(assigned(template, &[document, document]), [0, 1]);
    }

    #[test]
    fn without_a_literal_kind_the_part_writing_more_fields_wins() {
        let template = "{{- if .x }}\nkind: {{ .k }}\ndata:\n  a: b\n{{- end }}\n---\nkind: {{ .k }}\nspec:\n  running: true\n";
        assert_eq!(
            assigned(template, &["kind: A\nspec:\n  running: true\n"]),
            [1]
        );
        assert_eq!(assigned(template, &["kind: A\ndata:\n  a: b\n"]), [0]);
    }

    #[test]
    fn nothing_to_choose_from_is_matched_by_order() {
        assert_eq!(assigned("kind: A\n", &[VM, VM]), [0, 0]);
        assert_eq!(assigned("{{ toYaml .Values.x }}\n", &[VM]), [0]);
        assert!(assigned(TEMPLATE, &[]).is_empty());
    }
}
