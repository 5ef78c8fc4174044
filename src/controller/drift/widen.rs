//! The widest path of every changed leaf, in time linear in the size of both VMs and of the
//! changed paths.
//!
//! A leaf widens to its highest ancestor (below `spec`, at depth 2 or more) up to which every
//! ancestor's leaves, on both sides, all changed for the leaf's rule; among those it takes the
//! deepest one that groups the most changes, and only if that is more than one. The sorted
//! changed paths form a trie: one walk summarises each node of it once (which rule its leaves
//! changed for, how many changed leaves it holds), and each leaf then reads its ancestors'
//! summaries. Searching every ancestor's subtree again for every leaf was quadratic: a list of
//! 10,000 unknown strings took minutes.

use std::cmp::Ordering;

use serde_json::Value;

use crate::model::value::field;
use crate::render::shape::PathSegment;
use crate::yaml::{FieldPath, Segment};

/// How the leaves under a node (empty maps and lists and nulls are not leaves) changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaves<K> {
    /// There are none.
    None,
    /// All of them changed, for the same class (rule and drift kind).
    Same(K),
    /// One did not change, or two changed for different classes.
    Mixed,
}

impl<K: Copy + Eq> Leaves<K> {
    fn and(self, other: Leaves<K>) -> Leaves<K> {
        match (self, other) {
            (Leaves::None, any) | (any, Leaves::None) => any,
            (Leaves::Same(a), Leaves::Same(b)) if a == b => self,
            _ => Leaves::Mixed,
        }
    }
}

/// A node of the trie of changed paths: the path that is the first `depth` segments of the
/// changed paths under it.
struct Node<K> {
    parent: Option<usize>,
    depth: usize,
    leaves: Leaves<K>,
    /// Changed paths under the node (itself included) that are leaves on either side.
    changed_leaves: usize,
}

/// For each entry of `changed` (sorted by path, without repeats), the prefix of its path it
/// widens to. `sides` are the VM as written and as stored. `K` is what a change is grouped by:
/// a path widens only over changes of the same `K`.
pub(super) fn widest_paths<'c, K: Copy + Eq>(
    changed: &'c [(FieldPath, K)],
    sides: (&Value, &Value),
) -> Vec<&'c [Segment]> {
    let mut trie = Trie {
        changed,
        nodes: Vec::new(),
        node_of: vec![0; changed.len()],
    };
    trie.summarise(0, changed.len(), 0, None, [Some(sides.0), Some(sides.1)]);
    changed
        .iter()
        .zip(&trie.node_of)
        .map(|((path, class), &node)| &path.0[..trie.widest_depth(node, *class)])
        .collect()
}

struct Trie<'c, K> {
    changed: &'c [(FieldPath, K)],
    nodes: Vec<Node<K>>,
    /// The trie node of each changed path.
    node_of: Vec<usize>,
}

impl<K: Copy + Eq> Trie<'_, K> {
    /// Summarises the node of `changed[lo..hi]`, whose paths share their first `depth` segments,
    /// and every node under it; `values` are what the two sides hold at that path. Returns the
    /// node's index.
    fn summarise(
        &mut self,
        lo: usize,
        hi: usize,
        depth: usize,
        parent: Option<usize>,
        values: [Option<&Value>; 2],
    ) -> usize {
        let index = self.nodes.len();
        count_visits(1);
        self.nodes.push(Node {
            parent,
            depth,
            leaves: Leaves::None,
            changed_leaves: 0,
        });
        let mut leaves = Leaves::None;
        let mut changed_leaves = 0;
        let mut next = lo;
        let own = (next < hi && self.changed[next].0.0.len() == depth).then(|| {
            self.node_of[next] = index;
            next += 1;
            self.changed[next - 1].1
        });
        if values.into_iter().flatten().any(is_leaf) {
            match own {
                Some(class) => {
                    leaves = Leaves::Same(class);
                    changed_leaves = 1;
                }
                None => leaves = Leaves::Mixed,
            }
        }
        let children_start = next;
        while next < hi {
            let segment = &self.changed[next].0.0[depth];
            let end = next
                + self.changed[next..hi].partition_point(|(path, _)| &path.0[depth] == segment);
            let child_values = values.map(|value| value.and_then(|value| step(value, segment)));
            let child = self.summarise(next, end, depth + 1, Some(index), child_values);
            leaves = leaves.and(self.nodes[child].leaves);
            changed_leaves += self.nodes[child].changed_leaves;
            next = end;
        }
        // Only nodes at depth 2 and below are widened to; the rest need no summary.
        if depth >= 2 && leaves != Leaves::Mixed {
            let in_trie = |segment: PathSegment<'_>| {
                count_visits(1);
                self.changed[children_start..hi]
                    .binary_search_by(|(path, _)| order(&path.0[depth], segment))
                    .is_ok()
            };
            if values
                .into_iter()
                .flatten()
                .any(|value| has_unchanged_child(value, in_trie))
            {
                leaves = Leaves::Mixed;
            }
        }
        let node = &mut self.nodes[index];
        node.leaves = leaves;
        node.changed_leaves = changed_leaves;
        index
    }

    /// The length of the prefix the changed path at trie node `node`, changed for `class`,
    /// widens to.
    fn widest_depth(&self, node: usize, class: K) -> usize {
        let mut best = self.nodes[node].depth;
        let mut best_count = 1;
        let mut ancestor = self.nodes[node].parent;
        while let Some(index) = ancestor {
            count_visits(1);
            let node = &self.nodes[index];
            let same_rule = match node.leaves {
                Leaves::None => true,
                Leaves::Same(other) => other == class,
                Leaves::Mixed => false,
            };
            if node.depth < 2 || !same_rule {
                break;
            }
            if node.changed_leaves > best_count {
                best = node.depth;
                best_count = node.changed_leaves;
            }
            ancestor = node.parent;
        }
        best
    }
}

#[cfg(test)]
thread_local! {
    /// Trie nodes, ancestors and values visited on this thread: tests bound the walk's cost with
    /// it, which does not depend on the machine's load as a time does.
    static VISITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[inline]
fn count_visits(count: u64) {
    #[cfg(test)]
    VISITS.with(|visits| visits.set(visits.get() + count));
    #[cfg(not(test))]
    let _ = count;
}

/// A scalar: what `each_leaf` visits.
fn is_leaf(value: &Value) -> bool {
    !matches!(value, Value::Object(_) | Value::Array(_) | Value::Null)
}

fn has_leaf(value: &Value) -> bool {
    count_visits(1);
    match value {
        Value::Object(map) => map.values().any(has_leaf),
        Value::Array(items) => items.iter().any(has_leaf),
        other => is_leaf(other),
    }
}

/// Whether a child of `value` that no changed path runs through holds a leaf (an unchanged one).
/// Each subtree is searched at most once over the whole walk: the children the trie goes
/// through are summarised instead.
fn has_unchanged_child(value: &Value, in_trie: impl Fn(PathSegment<'_>) -> bool) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, child)| !in_trie(PathSegment::Key(key)) && has_leaf(child)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .any(|(i, child)| !in_trie(PathSegment::Index(i)) && has_leaf(child)),
        _ => false,
    }
}

/// `segment` compared with `step` in `Segment`'s order (keys before indices).
fn order(segment: &Segment, step: PathSegment<'_>) -> Ordering {
    match (segment, step) {
        (Segment::Key(a), PathSegment::Key(b)) => a.as_str().cmp(b),
        (Segment::Key(_), PathSegment::Index(_)) => Ordering::Less,
        (Segment::Index(_), PathSegment::Key(_)) => Ordering::Greater,
        (Segment::Index(a), PathSegment::Index(b)) => a.cmp(&b),
    }
}

fn step<'v>(value: &'v Value, segment: &Segment) -> Option<&'v Value> {
    match segment {
        Segment::Key(key) => field(value, key),
        Segment::Index(i) => value.get(*i),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::super::{Class, GitOps, changed_between, class_of, each_leaf, predict};
    use super::*;
    use crate::cluster::profile::KubeVirtVersion;
    use crate::render::shape::segments;

    /// The search the walk replaces, kept as the definition: for every depth from the leaf's
    /// parent up, search the whole subtree on both sides.
    fn widest_path_by_search<'p>(
        leaf: &'p FieldPath,
        class: Class,
        sides: (&Value, &Value),
        changed: &[(FieldPath, Class)],
    ) -> &'p [Segment] {
        let steps = segments(&leaf.0);
        let chains = [ancestors(sides.0, &steps), ancestors(sides.1, &steps)];
        let mut best = steps.len();
        let mut best_count = 1;
        let mut path = Vec::new();
        let mut under: Vec<usize> = Vec::new();
        for depth in (2..steps.len()).rev() {
            under.clear();
            let all_changed = chains.iter().all(|chain| {
                let Some(value) = chain[depth] else {
                    return true;
                };
                path.clear();
                path.extend_from_slice(&steps[..depth]);
                each_leaf(value, &mut path, &mut |steps| match changed
                    .binary_search_by(|(path, _)| compare(path, steps))
                {
                    Ok(i) if changed[i].1 == class => {
                        under.push(i);
                        true
                    }
                    _ => false,
                })
            });
            if !all_changed {
                break;
            }
            under.sort_unstable();
            under.dedup();
            if under.len() > best_count {
                best = depth;
                best_count = under.len();
            }
        }
        &leaf.0[..best]
    }

    fn compare(path: &FieldPath, steps: &[PathSegment<'_>]) -> Ordering {
        for (segment, &step) in path.0.iter().zip(steps) {
            let order = order(segment, step);
            if order != Ordering::Equal {
                return order;
            }
        }
        path.0.len().cmp(&steps.len())
    }

    fn ancestors<'v>(root: &'v Value, steps: &[PathSegment<'_>]) -> Vec<Option<&'v Value>> {
        let mut chain = vec![Some(root)];
        let mut node = Some(root);
        for step in steps {
            node = node.and_then(|value| match *step {
                PathSegment::Key(key) => field(value, key),
                PathSegment::Index(i) => value.get(i),
            });
            chain.push(node);
        }
        chain
    }

    fn changed_of(written: &Value, stored: &Value) -> Vec<(FieldPath, Class)> {
        changed_between(written, stored)
            .into_iter()
            .map(|leaf| {
                let class = class_of(&leaf, (written, stored), GitOps::default());
                (leaf, class)
            })
            .collect()
    }

    fn assert_same_as_search(written: &Value, stored: &Value) {
        let changed = changed_of(written, stored);
        let walked = widest_paths(&changed, (written, stored));
        for ((leaf, class), walked) in changed.iter().zip(walked) {
            let searched = widest_path_by_search(leaf, *class, (written, stored), &changed);
            assert_eq!(walked, searched, "{leaf} in {written} -> {stored}");
        }
    }

    /// What `predict` reports (path, rule, leaves), found the way it was before the walk: by
    /// comparing every widened path with every other and every changed path.
    fn reported_by_search(
        written: &Value,
        stored: &Value,
    ) -> Vec<(FieldPath, &'static str, Vec<FieldPath>)> {
        let changed = changed_of(written, stored);
        let mut widened: Vec<(&[Segment], &'static str, _)> = changed
            .iter()
            .map(|(leaf, class)| {
                let path = widest_path_by_search(leaf, *class, (written, stored), &changed);
                (path, class.rule.code, class.kind)
            })
            .collect();
        widened.sort_unstable();
        widened.dedup();
        let mut out = Vec::new();
        for &(path, code, _) in &widened {
            if widened
                .iter()
                .any(|(other, _, _)| *other != path && path.starts_with(other))
            {
                continue;
            }
            let rule = changed
                .iter()
                .find(|(leaf, c)| c.rule.code == code && leaf.0.starts_with(path))
                .map_or(crate::rules::NORMALIZED_BY_KUBEVIRT.code, |(_, c)| {
                    c.rule.code
                });
            let path = FieldPath(path.to_vec());
            let leaves = changed
                .iter()
                .filter(|(leaf, _)| leaf.starts_with(&path))
                .map(|(leaf, _)| leaf.clone())
                .collect();
            out.push((path, rule, leaves));
        }
        out
    }

    fn assert_reported_as_by_search(written: &Value, stored: &Value) {
        let reported: Vec<(FieldPath, &'static str, Vec<FieldPath>)> =
            predict(written, stored, KubeVirtVersion::LATEST, None)
                .into_iter()
                .map(|drift| (drift.path, drift.rule.code, drift.leaves))
                .collect();
        assert_eq!(
            reported,
            reported_by_search(written, stored),
            "{written} -> {stored}"
        );
    }

    const KEYS: &[&str] = &[
        "template",
        "spec",
        "domain",
        "firmware",
        "uuid",
        "serial",
        "machine",
        "type",
        "instancetype",
        "kind",
        "name",
        "a",
    ];

    fn tree() -> impl Strategy<Value = Value> {
        let scalar = prop_oneof![
            Just(Value::Null),
            Just(json!("x")),
            Just(json!("y")),
            Just(json!(1)),
            Just(json!(1.0)),
            Just(json!(true)),
            Just(json!({})),
            Just(json!([])),
        ];
        scalar.prop_recursive(6, 64, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(KEYS), inner), 1..4).prop_map(
                    |members| Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect::<Map<_, _>>()
                    )
                ),
            ]
        })
    }

    /// `base` with `patch` merged in: objects key by key, anything else replaced.
    fn merged(base: &Value, patch: &Value) -> Value {
        match (base, patch) {
            (Value::Object(old), Value::Object(new)) => {
                let mut out = old.clone();
                for (key, value) in new {
                    let merged = old.get(key).map_or(value.clone(), |was| merged(was, value));
                    out.insert(key.clone(), merged);
                }
                Value::Object(out)
            }
            _ => patch.clone(),
        }
    }

    fn vm(spec: Value, name: &str) -> Value {
        let mut vm = json!({"metadata": {"name": name, "labels": {"a": "x"}}});
        vm["spec"] = spec;
        vm
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

        #[test]
        fn the_walk_widens_as_the_search_does(
            spec in tree(),
            patch in tree(),
            name in prop::sample::select(&["vm", "other"][..]),
        ) {
            let written = vm(spec.clone(), "vm");
            let stored = vm(merged(&spec, &patch), name);
            assert_same_as_search(&written, &stored);
            assert_same_as_search(&stored, &written);
            assert_reported_as_by_search(&written, &stored);
        }
    }

    #[test]
    fn widens_to_the_highest_ancestor_whose_leaves_all_changed() {
        let written = json!({"spec": {"template": {"spec": {"domain": {"devices": {}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {"devices": {},
            "firmware": {"uuid": "u", "serial": "s"}, "bogus": {"list": ["a", "b", {"c": 1}]}}}}}});
        assert_same_as_search(&written, &stored);
        let changed = changed_of(&written, &stored);
        let texts: Vec<String> = widest_paths(&changed, (&written, &stored))
            .into_iter()
            .map(|path| FieldPath(path.to_vec()).to_string())
            .collect();
        assert_eq!(
            texts,
            [
                "spec.template.spec.domain.bogus.list",
                "spec.template.spec.domain.bogus.list",
                "spec.template.spec.domain.bogus.list",
                "spec.template.spec.domain.firmware",
                "spec.template.spec.domain.firmware",
            ]
        );
    }

    /// A list of 100,000 dropped strings took hours with the search (each string searched the
    /// whole list); the walk is linear.
    #[test]
    fn a_wide_unknown_list_is_widened_in_linear_time() {
        let strings = 100_000;
        let list: Vec<Value> = (0..strings).map(|i| json!(format!("s{i}"))).collect();
        let written =
            json!({"spec": {"template": {"spec": {"domain": {"bogus": {"list": list}}}}}});
        let stored = json!({"spec": {"template": {"spec": {"domain": {}}}}});
        let before = VISITS.with(std::cell::Cell::get);
        let drift = predict(&written, &stored, KubeVirtVersion::LATEST, None);
        let visits = VISITS.with(std::cell::Cell::get) - before;
        assert_eq!(drift.len(), 1);
        assert_eq!(
            drift[0].path.to_string(),
            "spec.template.spec.domain.bogus.list"
        );
        assert_eq!(drift[0].leaves.len(), strings);
        // A few visits per string (its node, its ancestors); a search per string is 10^10.
        assert!(visits <= 10 * strings as u64, "{visits} visits");
    }
}
