//! A small GitOps repository for the unit tests of `diff`, `fix`, `ignore-differences` and the
//! hooks: a base VM and two overlays that rename it (`web-dev/dev-web`, `web-prod/prod-web`),
//! each with a strategic-merge patch of its own.

#![allow(dead_code)]

pub(crate) mod entry_points;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) const BASE_VM: &str = "\
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        cpu:
          cores: 1
        memory:
          guest: 1Gi
        devices: {}
      volumes:
        - name: rootdisk
          containerDisk:
            image: quay.io/containerdisks/fedora:41
";

pub(crate) const BASE_KUSTOMIZATION: &str = "\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
";

/// The kustomization of the overlay `name` (namespace `web-<name>`, prefix `<name>-`).
pub(crate) fn overlay_kustomization(name: &str) -> String {
    format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: web-{name}
namePrefix: {name}-
resources:
  - ../../base
patches:
  - path: patch.yaml
"
    )
}

/// A patch of the base VM that sets its guest memory.
pub(crate) fn memory_patch(guest: &str) -> String {
    format!(
        "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: web
spec:
  template:
    spec:
      domain:
        memory:
          guest: {guest}
"
    )
}

/// A temporary directory holding the repository, its own cache and temporary directories.
pub(crate) struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// The base and both overlays (guest memory 2Gi in each), not under git.
    pub(crate) fn new() -> Self {
        let repo = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(repo.dir.path().join("repo")).unwrap();
        std::fs::create_dir_all(repo.dir.path().join("cache")).unwrap();
        std::fs::create_dir_all(repo.dir.path().join("tmp")).unwrap();
        repo.write("apps/web/base/kustomization.yaml", BASE_KUSTOMIZATION);
        repo.write("apps/web/base/vm.yaml", BASE_VM);
        for overlay in ["dev", "prod"] {
            repo.write(
                &format!("apps/web/overlays/{overlay}/kustomization.yaml"),
                &overlay_kustomization(overlay),
            );
            repo.write(
                &format!("apps/web/overlays/{overlay}/patch.yaml"),
                &memory_patch("2Gi"),
            );
        }
        repo
    }

    /// Like [`Repo::new`], committed to a new git repository.
    pub(crate) fn committed() -> Self {
        let repo = Self::new();
        repo.git(&["init", "-q", "-b", "main"]);
        repo.commit_all("one");
        repo
    }

    /// The repository's top level.
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// The `TMPDIR` kvlint runs with.
    pub(crate) fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    pub(crate) fn write(&self, file: &str, text: &str) {
        let path = self.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub(crate) fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path().join(file)).unwrap()
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        crate::common::git(&self.path(), args)
    }

    pub(crate) fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    /// Runs kvlint in the repository with its own cache and temporary directories.
    pub(crate) fn kvlint(&self, args: &[&str]) -> Output {
        self.kvlint_in(&self.path(), args)
    }

    pub(crate) fn kvlint_in(&self, dir: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kvlint"))
            .args(args)
            .current_dir(dir)
            .env("KVLINT_CACHE_DIR", self.dir.path().join("cache"))
            .env("TMPDIR", self.tmp())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .expect("kvlint runs")
    }
}
