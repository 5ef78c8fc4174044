use super::builder::build_job;
use super::*;

/// A build command that prints one fixed object whatever it builds.
fn fake_tool(dir: &Path) -> Tool {
    use std::os::unix::fs::PermissionsExt;
    let program = dir.join("fake-kustomize");
    std::fs::write(
            &program,
            "#!/bin/sh\nif [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\necho 'kind: ConfigMap'\n",
        )
        .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    Tool::find(program.to_str(), Duration::from_secs(30), None)
        .unwrap()
        .unwrap()
}

/// A build command that prints `output` whatever it builds.
fn printing_tool(dir: &Path, output: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let printed = dir.join("printed.yaml");
    std::fs::write(&printed, output).unwrap();
    let program = dir.join("printing-kustomize");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\nif [ \"$1\" = version ]; then echo v5.4.2; exit 0; fi\ncat '{}'\n",
            printed.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    program
}

fn is_vm(object: &Object) -> bool {
    object.kind == "VirtualMachine"
}

const VMS: Streamed = Streamed {
    object: is_vm,
    document: crate::load::looks_like_vm,
};

#[test]
fn streamed_objects_are_read_again_as_they_were_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let unit = top.join("unit");
    std::fs::create_dir(&unit).unwrap();
    let kustomization = unit.join("kustomization.yaml");
    std::fs::write(&kustomization, "resources: [all.yaml]\n").unwrap();
    std::fs::write(unit.join("all.yaml"), "kind: ConfigMap\n").unwrap();
    let output = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\n\
            apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: one}\n---\n\
            apiVersion: v1\nkind: Service\nmetadata: {name: between}\n---\n\
            {apiVersion: kubevirt.io/v1, kind: VirtualMachine, metadata: {name: two}}\n---\n\
            apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: three}\n\
            spec: {running: true\n";
    let program = printing_tool(&top, output);
    let inputs: Vec<Input> = [&kustomization, &unit.join("all.yaml")]
        .into_iter()
        .map(|path| Input::File {
            path: path.clone(),
            display: Arc::from(path.to_string_lossy().as_ref()),
        })
        .collect();
    let options = UnitOptions {
        command: Some(program.to_string_lossy().into_owned()),
        no_cache: true,
        ..UnitOptions::default()
    };
    let render_with = |streamed: Option<Streamed>| {
        render(
            &inputs,
            &Context {
                options: &options,
                default_namespace: "default",
                kubevirt: crate::cluster::version::KubeVirtVersion::LATEST,
                keep_sources: false,
                streamed,
            },
        )
    };
    let shown = |objects: &[Object]| -> Vec<(String, String, Arc<str>, crate::yaml::Node)> {
        objects
            .iter()
            .map(|o| {
                (
                    o.kind.clone(),
                    o.name.clone(),
                    Arc::clone(&o.file),
                    o.node.clone(),
                )
            })
            .collect()
    };

    let whole = render_with(None);
    assert_eq!(whole.objects.len(), 4, "{:?}", whole.findings);
    assert_eq!(whole.streamed.units(), 0);
    let broken = |findings: &[Finding]| -> Vec<String> {
        findings
            .iter()
            .filter(|f| f.message.contains("not valid YAML"))
            .map(|f| f.message.clone())
            .collect()
    };
    assert_eq!(broken(&whole.findings).len(), 1, "{:?}", whole.findings);

    let streaming = render_with(Some(VMS));
    let kept: Vec<&str> = streaming.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(kept, ["first", "between"]);
    // Only the flow-style VM is parsed by the units stage; the plain one and the broken
    // one are left unread, and so is the broken one's finding.
    assert_eq!(
        (streaming.streamed.units(), streaming.streamed.objects()),
        (1, 1)
    );
    assert!(broken(&streaming.findings).is_empty());
    let vms: Vec<Object> = whole.objects.into_iter().filter(is_vm).collect();
    let read = streaming.streamed.read(0);
    assert_eq!(shown(&read.objects), shown(&vms));
    assert_eq!(read.first_read, 1, "the plain VM");
    assert_eq!(broken(&read.findings), broken(&whole.findings));
    assert!(streaming.streamed.read(1).objects.is_empty());
}

#[test]
fn a_cached_build_writes_no_wrapper_directory() {
    let dir = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(dir.path()).unwrap();
    let unit = top.join("unit");
    std::fs::create_dir(&unit).unwrap();
    std::fs::write(unit.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
    std::fs::write(unit.join("cm.yaml"), "kind: ConfigMap\n").unwrap();
    let root = discover::Tree::new(Some(top.clone())).root(&unit).unwrap();
    let job = Job {
        unit: Arc::new(UnitRef {
            kind: UnitKind::Kustomize,
            path: display_dir(&root.dir),
            via: None,
        }),
        root,
        flux: None,
        argocd: None,
    };
    let tool = fake_tool(&top);
    let scratch = top.join("kvlint-units-x");
    std::fs::create_dir(&scratch).unwrap();
    let cache = cache::RunCache::new(
        &top.join("cache"),
        tool.identity(),
        &scratch,
        std::slice::from_ref(&job.root),
    );
    let build = |wrapper_dir: &Path| {
        build_job(&tool, &job, wrapper_dir, Some(&cache))
            .ok()
            .expect("the fake build succeeds")
    };

    let cold = scratch.join("0");
    assert_eq!(build(&cold), "kind: ConfigMap\n");
    assert!(
        cold.join("kustomization.yaml").is_file(),
        "a build runs in its wrapper"
    );

    let warm = scratch.join("1");
    assert_eq!(build(&warm), "kind: ConfigMap\n");
    assert!(!warm.exists(), "a cached build writes nothing");
}
