use super::post_build::base64_decode;
use super::*;

fn entry(text: &str) -> Entry {
    entries(&Arc::from("clusters/prod/apps.yaml"), text).remove(0)
}

const APPS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps/web/overlays/prod
  targetNamespace: web
  namePrefix: flux-
  patches:
    - target: {kind: VirtualMachine}
      patch: |
        - op: add
          path: /metadata/labels/flux
          value: yes
  components: [../../components/gpu]
  postBuild:
    substitute:
      SIZE: large
    substituteFrom:
      - kind: ConfigMap
        name: cluster-vars
";

#[test]
fn the_controller_edits_are_applied_and_paths_point_back() {
    let entry = entry(APPS);
    assert_eq!(entry.path, "./apps/web/overlays/prod");
    assert_eq!(
        entry.directory(Path::new("repo")),
        Path::new("repo/apps/web/overlays/prod")
    );
    let original = json!({
        "namePrefix": "prod-",
        "resources": ["../../base", "https://example.com/x.yaml"],
        "patches": [{"path": "size.yaml"}],
        "configMapGenerator": [{"name": "c", "files": ["userdata=init.yaml"]}],
    });
    let edited = edited_kustomization(&original, &entry, &[], &|p| format!("R/{p}"));
    assert_eq!(edited["namespace"], "web");
    assert_eq!(edited["namePrefix"], "flux-", "Flux replaces the prefix");
    assert_eq!(
        edited["resources"],
        json!(["R/../../base", "https://example.com/x.yaml"])
    );
    assert_eq!(edited["patches"][0]["path"], "R/size.yaml");
    assert_eq!(edited["patches"][1]["target"]["kind"], "VirtualMachine");
    assert_eq!(edited["components"], json!(["R/../../components/gpu"]));
    assert_eq!(
        edited["configMapGenerator"][0]["files"],
        json!(["userdata=R/init.yaml"])
    );
    assert_eq!(
        edited["buildMetadata"],
        json!(["originAnnotations", "transformerAnnotations"])
    );
}

#[test]
fn variables_come_from_sources_then_substitute() {
    let entry = entry(APPS);
    let config_map = yaml::parse_stream(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-vars, namespace: flux-system}\ndata: {SIZE: small, REGION: eu}\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
    let sources = vec![variable_sources(&Arc::from("vars.yaml"), &config_map).unwrap()];
    let post_build = post_build(&entry, &sources).unwrap();
    assert_eq!(post_build.variables.get("SIZE"), Some("large"));
    assert_eq!(post_build.variables.get("REGION"), Some("eu"));
    assert!(post_build.findings.is_empty());
    let output = "a: ${SIZE}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n---\nc: ${MISSING}\n";
    assert_eq!(
        substitute(output, &post_build).unwrap_err().to_string(),
        "envsubst error: variable substitution failed: variable not set (strict mode): \"MISSING\""
    );
    let output = "a: ${SIZE}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n";
    assert_eq!(
        substitute(output, &post_build).unwrap().text,
        "a: large\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${SIZE}\n"
    );
}

#[test]
fn unknown_sources_leave_their_variables_as_written() {
    let entry = entry(APPS);
    // cluster-vars is not among the sources: SIZE is known, anything else may come from it.
    let post_build = post_build(&entry, &[]).unwrap();
    assert!(!post_build.complete);
    assert_eq!(post_build.findings.len(), 1);
    let substituted = substitute("a: ${SIZE}\nb: ${REGION}\nc: ${ZONE:=z}\n", &post_build).unwrap();
    assert_eq!(substituted.text, "a: large\nb: ${REGION}\nc: z\n");
    assert_eq!(substituted.unresolved.len(), 1);
    assert_eq!(substituted.unresolved[0].range, 12..21);
}

#[test]
fn secrets_are_decoded_and_encrypted_ones_reported() {
    let secret = yaml::parse_stream(
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {A: aGVsbG8=}\nstringData: {B: x}\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
    let source = variable_sources(&Arc::from("secret.yaml"), &secret).unwrap();
    assert_eq!(
        source.data,
        [
            ("A".to_owned(), "hello".to_owned()),
            ("B".to_owned(), "x".to_owned())
        ]
    );
    assert!(source.sealed.is_empty());
    assert_eq!(base64_decode("aGk"), Some(b"hi".to_vec()));
    assert_eq!(base64_decode("a*"), None);
}

#[test]
fn sealed_variables_are_known_by_name_and_left_as_written() {
    let entry = entry(APPS);
    let secret = yaml::parse_stream(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-vars, namespace: flux-system}\ndata:\n  SIZE: ENC[AES256_GCM,data:x,type:str]\n  ZONE: ENC[AES256_GCM,data:y,type:str]\n  PLAIN: clear\nsops:\n  version: 3.9.0\n",
            Limits::default(),
        )
        .remove(0)
        .unwrap()
        .root;
    let source = variable_sources(&Arc::from("secret.yaml"), &secret).unwrap();
    assert_eq!(source.sealed, ["SIZE", "ZONE"]);
    assert_eq!(source.data, [("PLAIN".to_owned(), "clear".to_owned())]);
    let post_build = post_build(&entry, &[source]).unwrap();
    assert!(
        post_build.complete,
        "the names of an encrypted source are known"
    );
    // `substitute` defines SIZE: only ZONE is unknown.
    assert_eq!(
        post_build.unknown.keys().collect::<Vec<_>>(),
        ["ZONE"],
        "{:?}",
        post_build.unknown
    );
    let substituted = substitute(
        "a: ${SIZE}\nb: ${ZONE:-x}-${PLAIN}\nc: ${MISSING:=d}\n",
        &post_build,
    )
    .unwrap();
    assert_eq!(substituted.text, "a: large\nb: ${ZONE:-x}-clear\nc: d\n");
    let resolved: Vec<(Vec<&str>, &str)> = substituted
        .resolved
        .iter()
        .map(|(names, range)| {
            (
                names.iter().map(String::as_str).collect(),
                &substituted.text[range.clone()],
            )
        })
        .collect();
    assert_eq!(
        resolved,
        [(vec!["SIZE"], "large"), (vec!["PLAIN"], "clear")],
        "a default of an unset variable comes from no variable"
    );
    assert_eq!(substituted.unresolved.len(), 1);
    assert_eq!(substituted.unresolved[0].expression, "${ZONE:-x}");
    assert_eq!(
        &substituted.text[substituted.unresolved[0].range.clone()],
        "${ZONE:-x}"
    );
    // Nothing defines MISSING and every source was read: Flux fails.
    assert!(substitute("a: ${MISSING}\n", &post_build).is_err());
}

#[test]
fn build_metadata_follows_the_controller() {
    let mut entry = entry(APPS);
    let own = |text: &str| {
        let root = yaml::parse_stream(text, Limits::default())
            .remove(0)
            .unwrap()
            .root;
        Kustomization::read(Arc::from("k/kustomization.yaml"), &root)
    };
    let listed = own("resources: [vm.yaml]\nbuildMetadata: [managedByLabel]\n");
    assert_eq!(build_metadata(&entry, Some(&listed)), ["managedByLabel"]);
    let no_resources = own("components: [../c]\nbuildMetadata: [managedByLabel]\n");
    assert_eq!(
        build_metadata(&entry, Some(&no_resources)),
        ["originAnnotations"]
    );
    assert!(build_metadata(&entry, None).is_empty());
    entry.spec["buildMetadata"] = json!(["transformerAnnotations"]);
    assert_eq!(
        build_metadata(&entry, Some(&no_resources)),
        ["transformerAnnotations"]
    );
}
