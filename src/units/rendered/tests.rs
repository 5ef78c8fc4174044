use super::*;

use crate::yaml::first_root as parse;

#[test]
fn an_origin_file_is_let_go_after_the_last_unit_that_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let unit = top.join("unit");
    std::fs::create_dir(&unit).unwrap();
    std::fs::write(unit.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
    let cm = unit.join("cm.yaml");
    std::fs::write(&cm, "kind: ConfigMap # kvlint: ignore[KV0001]\n").unwrap();
    let root = super::super::discover::Tree::new(Some(top.clone()))
        .root(&unit)
        .unwrap();
    let mut origins = Origins::new(true);
    origins.expect([&root, &root]);
    origins.learn(&root);
    assert!(origins.file(&cm).is_some());
    origins.done(&root);
    assert!(origins.files.contains_key(&cm), "a second unit holds it");
    origins.done(&root);
    assert!(!origins.files.contains_key(&cm), "no unit left holds it");
    // Read again (an output naming it outside its closure): its comments and text are
    // not taken twice.
    assert!(origins.file(&cm).is_some());
    let parts = origins.into_parts();
    assert_eq!(parts.suppressions.len() + parts.findings.len(), 1);
    assert_eq!(parts.sources.len(), 1);
}

#[test]
fn rendered_nodes_take_the_written_positions() {
    let written =
        parse("# base\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: one\n");
    let mut rendered = parse(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dev-web\n  namespace: dev\ndata:\n  a: one\n  b: two\n",
    );
    remap(&mut rendered, Some(&written), written.span);
    let (name, exact) = rendered.lookup_entry_span(&yaml::FieldPath::parse("metadata.name"));
    assert!(exact);
    assert_eq!((name.start.line, name.start.column), (5, 3));
    // Added by the build: at the key of the nearest written parent.
    let (namespace, _) = rendered.lookup_entry_span(&yaml::FieldPath::parse("metadata.namespace"));
    assert_eq!((namespace.start.line, namespace.start.column), (4, 1));
    let (b, _) = rendered.lookup_entry_span(&yaml::FieldPath::parse("data.b"));
    assert_eq!((b.start.line, b.start.column), (6, 1));
}

#[test]
fn the_written_document_is_found_through_prefixes() {
    let documents = vec![
        parse("kind: VirtualMachine\nmetadata: {name: web}\n"),
        parse("kind: VirtualMachine\nmetadata: {name: web-large}\n"),
        parse("kind: Service\nmetadata: {name: web-large}\n"),
    ];
    let rendered = parse("kind: VirtualMachine\nmetadata: {name: dev-web-large-x}\n");
    let found = matching_document(&documents, &rendered).unwrap();
    assert_eq!(found, &documents[1]);
    let rendered = parse("kind: Service\nmetadata: {name: other}\n");
    assert_eq!(
        matching_document(&documents, &rendered).unwrap(),
        &documents[2]
    );
}

#[test]
fn the_written_document_is_found_when_a_patch_replaced_the_kind() {
    let documents = vec![
        parse("kind: VirtualMachineClusterInstancetype\nmetadata: {name: cx1.large}\n"),
        parse("kind: VirtualMachineClusterInstancetype\nmetadata: {name: cx1.large1gi}\n"),
    ];
    let rendered = parse("kind: VirtualMachineInstancetype\nmetadata: {name: cx1.large1gi}\n");
    assert_eq!(
        matching_document(&documents, &rendered).unwrap(),
        &documents[1]
    );
    // Kind and name both replaced: the file's only document.
    let rendered = parse("kind: ConfigMap\nmetadata: {name: renamed}\n");
    assert_eq!(
        matching_document(&documents[..1], &rendered).unwrap(),
        &documents[0]
    );
    assert_eq!(matching_document(&documents, &rendered), None);
}

#[test]
fn the_items_of_a_list_are_documents() {
    let documents = vec![parse(
        "apiVersion: v1\nkind: List\nitems:\n- kind: VirtualMachine\n  metadata: {name: centos}\n- kind: VirtualMachine\n  metadata: {name: fedora}\n",
    )];
    let rendered = parse("kind: VirtualMachine\nmetadata: {name: fedora}\n");
    let found = matching_document(&documents, &rendered).unwrap();
    assert_eq!(found.span.start.line, 6);
}

#[test]
fn only_the_annotations_kvlint_asked_for_are_removed() {
    let mut node = parse(
        "metadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: a.yaml\n    alpha.config.kubernetes.io/transformations: x\n",
    );
    strip_annotations(&mut node, true, true);
    assert_eq!(node.get("metadata").unwrap().get("annotations"), None);
    let mut node =
        parse("metadata:\n  annotations:\n    config.kubernetes.io/origin: x\n    team: a\n");
    strip_annotations(&mut node, true, true);
    let kept = node.get("metadata").unwrap().get("annotations").unwrap();
    assert_eq!(kept.as_map().unwrap().len(), 1);
}
