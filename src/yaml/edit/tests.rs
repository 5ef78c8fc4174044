use super::source::Aliases;
use super::*;
use crate::yaml::{Limits, parse_stream};

fn fix(text: &str, actions: &[Action]) -> Result<String, Refusal> {
    let docs = parse_stream(text, Limits::default());
    let root = &docs[0].as_ref().unwrap().root;
    let edits = plan_edits(text, root, actions)?;
    apply_edits(text, &edits)
}

/// The definition the index replaces: `*name` followed by whitespace, `,`, `]`, `}` or the
/// end, searched in the whole text.
fn aliased_by_search(text: &str, name: &str) -> bool {
    let needle = format!("*{name}");
    text.match_indices(&needle).any(|(at, _)| {
        text[at + needle.len()..]
            .chars()
            .next()
            .is_none_or(|c| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
    })
}

#[test]
fn the_alias_index_agrees_with_a_search_of_the_text() {
    let texts = [
        "a: &x 1\nb: *x\n",
        "a: &x 1\nb: *xy\n",
        "a: [*x, *y]\nb: {k: *z}",
        "a: *x[1]\n",
        "a: p*x\n",
        "a: *a*b\n",
        "a: **x\n",
        "a: *é\u{a0}b",
        "*x",
        "",
    ];
    let names = ["x", "y", "z", "xy", "a", "b", "a*b", "*x", "é", "q"];
    for text in texts {
        let aliases = Aliases::new(text);
        for name in names {
            assert_eq!(
                aliases.contains(name),
                aliased_by_search(text, name),
                "{text:?} {name:?}"
            );
        }
    }
}

fn remove(path: &str) -> Action {
    Action::Remove(FieldPath::parse(path))
}

fn set(path: &str, value: Value) -> Action {
    Action::Set(FieldPath::parse(path), value)
}

#[test]
fn removes_whole_lines_and_emptied_parents() {
    let text = "metadata:\n  name: a # keep\n  uid: x\n  annotations:\n    k: v\nstatus:\n  ready: true\nspec: {}\n";
    let out = fix(
        text,
        &[
            remove("metadata.uid"),
            remove("metadata.annotations.k"),
            remove("status"),
        ],
    )
    .unwrap();
    assert_eq!(out, "metadata:\n  name: a # keep\nspec: {}\n");
}

#[test]
fn removes_from_flow_mappings() {
    let text = "spec: {instancetype: {name: u1, revisionName: r1}, b: 1}\n";
    let out = fix(text, &[remove("spec.instancetype.revisionName")]).unwrap();
    assert_eq!(out, "spec: {instancetype: {name: u1}, b: 1}\n");
    let out = fix(text, &[remove("spec.instancetype")]).unwrap();
    assert_eq!(out, "spec: {b: 1}\n");
}

#[test]
fn inserts_with_sibling_indentation_and_crlf() {
    let text = "spec:\r\n    template:\r\n        spec:\r\n            domain: {}\r\n";
    let out = fix(
        text,
        &[set(
            "spec.template.spec.architecture",
            Value::String("amd64".into()),
        )],
    )
    .unwrap();
    assert_eq!(
        out,
        "spec:\r\n    template:\r\n        spec:\r\n            domain: {}\r\n            architecture: amd64\r\n"
    );
}

#[test]
fn replaces_a_matcher_keeping_its_place() {
    let text = "spec:\n  instancetype:\n    inferFromVolume: root\n  running: true\n";
    let out = fix(
        text,
        &[set(
            "spec.instancetype",
            serde_json::json!({"name": "u1.small", "kind": "virtualmachineclusterinstancetype"}),
        )],
    )
    .unwrap();
    assert_eq!(
        out,
        "spec:\n  instancetype:\n    name: u1.small\n    kind: virtualmachineclusterinstancetype\n  running: true\n"
    );
}

#[test]
fn keeps_quoting_style_of_scalars() {
    let text = "a:\n  memory: '1024Mi'\n  cpu: 2\n";
    let out = fix(
        text,
        &[
            set("a.memory", Value::String("1Gi".into())),
            set("a.cpu", Value::String("2".into())),
        ],
    )
    .unwrap();
    assert_eq!(out, "a:\n  memory: '1Gi'\n  cpu: \"2\"\n");
}

#[test]
fn refuses_edits_inside_used_anchors() {
    let text = "base: &b\n  uid: x\n  name: n\nmetadata: *b\n";
    let err = fix(text, &[remove("metadata.uid")]).unwrap_err();
    assert_eq!(err, Refusal::FromAlias(FieldPath::parse("metadata.uid")));
}

#[test]
fn a_one_item_sequence_is_not_an_alias() {
    let text = "spec:\n  items:\n  - name: a\n    x: {}\n  other: 1\n";
    assert_eq!(
        fix(text, &[set("spec.added", Value::Bool(true))]).unwrap(),
        "spec:\n  items:\n  - name: a\n    x: {}\n  other: 1\n  added: true\n"
    );
}

#[test]
fn refuses_edits_through_aliases_and_merge_keys() {
    let text = "base: &b\n  x: 1\nvm:\n  <<: *b\n  y: 2\nother: *b\n";
    let err = fix(text, &[set("vm.x", Value::from(3))]).unwrap_err();
    assert_eq!(err, Refusal::FromAlias(FieldPath::parse("vm.x")));
    let err = fix(text, &[set("other.x", Value::from(3))]).unwrap_err();
    assert_eq!(err, Refusal::FromAlias(FieldPath::parse("other.x")));
    let err = fix(text, &[set("base.z", Value::from(3))]).unwrap_err();
    assert_eq!(err, Refusal::InsideAnchor(FieldPath::parse("base")));
    // An anchor nobody uses is ordinary text.
    let text = "vm: &lonely\n  x: 1\n\nnext: 1\n";
    assert_eq!(
        fix(text, &[set("vm.z", Value::from(2))]).unwrap(),
        "vm: &lonely\n  x: 1\n  z: 2\n\nnext: 1\n"
    );
}

#[test]
fn first_key_of_a_sequence_item() {
    let text = "items:\n  - a: 1\n    b: 2\n";
    assert_eq!(
        fix(text, &[remove("items[0].a")]).unwrap(),
        "items:\n  - b: 2\n"
    );
}
