use super::*;

fn apps(text: &str) -> Vec<App> {
    applications(&Arc::from("apps.yaml"), text, Path::new("/nonexistent")).0
}

#[test]
fn sources_and_types() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    for (name, text) in [
        ("kust/kustomization.yaml", "resources: []\n"),
        ("chart/Chart.yaml", "name: c\n"),
        ("both/Chart.yaml", "name: c\n"),
        ("both/kustomization.yaml", "resources: []\n"),
        ("plain/vm.yaml", "kind: VirtualMachine\n"),
    ] {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    assert_eq!(discovered_type(&root.join("kust")), "Kustomize");
    assert_eq!(discovered_type(&root.join("chart")), "Helm");
    assert_eq!(discovered_type(&root.join("both")), "Kustomize");
    assert_eq!(discovered_type(&root.join("plain")), "Directory");
    let apps = apps(
        "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: multi, namespace: argocd}
spec:
  destination: {namespace: web}
  sources:
  - repoURL: https://example.com/charts
    chart: raw
  - repoURL: https://example.com/repo.git
    ref: values
  - repoURL: https://example.com/repo.git
    path: kust
  - path: plain
    directory: {recurse: true}
  - path: chart
  - path: plain
    kustomize: {}
    plugin: {}
  - path: missing
  - path: ../out
  - path: plain/vm.yaml
",
    );
    assert_eq!(apps.len(), 1);
    assert_eq!(apps[0].destination_namespace(), Some("web"));
    let plan = plan(apps, root);
    let dirs = |targets: &[Target]| -> Vec<PathBuf> {
        targets
            .iter()
            .map(|t| t.dir.strip_prefix(root).unwrap().to_path_buf())
            .collect()
    };
    assert_eq!(dirs(&plan.kustomize), [PathBuf::from("kust")]);
    assert_eq!(dirs(&plan.directories), [PathBuf::from("plain")]);
    let messages: Vec<(&str, &str)> = plan
        .findings
        .iter()
        .map(|f| (f.rule.code, f.message.as_str()))
        .collect();
    assert_eq!(dirs(&plan.helm), [PathBuf::from("chart")]);
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(messages[0].0, "KV0020");
    assert!(
        messages[0]
            .1
            .ends_with("multiple application sources defined: Kustomize,Plugin")
    );
    assert!(messages[1].1.contains("not in this repository"));
    assert!(messages[2].1.ends_with("../out: app path outside root"));
    assert!(
        messages[3]
            .1
            .ends_with("plain/vm.yaml: app path is not a directory")
    );
}

#[test]
fn the_shadow_maps_back_to_the_repository() {
    let shadow = Shadow {
        unit_dir: PathBuf::from("/repo/apps/web/dev"),
        kustomization: PathBuf::from("/repo/apps/web/dev/kustomization.yml"),
        layers: Vec::new(),
    };
    let wrapper = Path::new("/tmp/k/3");
    assert_eq!(
        shadow.real(wrapper, Path::new("/tmp/k/3/kustomization.yaml")),
        Path::new("/repo/apps/web/dev/kustomization.yml")
    );
    assert_eq!(
        shadow.real(wrapper, Path::new("/tmp/k/3/patches/size.yaml")),
        Path::new("/repo/apps/web/dev/patches/size.yaml")
    );
    assert_eq!(
        shadow.real(wrapper, Path::new("/repo/apps/web/base/vm.yaml")),
        Path::new("/repo/apps/web/base/vm.yaml")
    );
}
