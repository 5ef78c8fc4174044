//! The releases where KubeVirt's instance-type behaviour changes, one behaviour at a time: the
//! same manifest checked on both sides of a release boundary shows the behaviour on one side
//! only. Behaviours that hold in every
//! release are checked at the oldest and the newest. Fixtures are the rules' own
//! (testdata/rules/<CODE>/fail) where one fits, else testdata/versions/<behaviour>.
//!
//! The cases compare the first releases of minor lines; where KubeVirt backported a change to
//! an earlier line's patch releases (cluster::backports), the case names the `.0` release.
//!
//! Behaviours without a per-manifest consequence are not here: status refs, the matcher update
//! rule and revision upgrades need a stored object; the rollout strategy only changes what
//! happens to a running VM; restores happen in the cluster; the `creationTimestamp: null` of
//! ≤ v1.7 is a null, which no GitOps diff reports.

use std::path::Path;

use kvlint::check::{self, Options, Report};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::config::ConfigChoice;
use kvlint::diag::Finding;
use kvlint::source::Selection;

/// What to look for in a report.
#[derive(Clone, Copy, Debug)]
enum Probe {
    /// A finding of this rule, at `path` when given, whose `kubevirt_field` is `field` and whose
    /// message contains `message` when given.
    Finding {
        code: &'static str,
        path: Option<&'static str>,
        field: Option<&'static str>,
        message: Option<&'static str>,
    },
    /// A field of the rendered VM (a JSON pointer).
    Rendered(&'static str),
}

const fn code(code: &'static str) -> Probe {
    Probe::Finding {
        code,
        path: None,
        field: None,
        message: None,
    }
}

const fn at(code: &'static str, path: &'static str) -> Probe {
    Probe::Finding {
        code,
        path: Some(path),
        field: None,
        message: None,
    }
}

const fn saying(code: &'static str, message: &'static str) -> Probe {
    Probe::Finding {
        code,
        path: None,
        field: None,
        message: Some(message),
    }
}

const fn cause(code: &'static str, field: &'static str) -> Probe {
    Probe::Finding {
        code,
        path: None,
        field: Some(field),
        message: None,
    }
}

/// One change of behaviour: `probe` holds at `with` and not at `without`.
struct Boundary {
    behaviour: &'static str,
    fixture: &'static str,
    with: &'static str,
    without: &'static str,
    probe: Probe,
}

const BOUNDARIES: &[Boundary] = &[
    Boundary {
        behaviour: "controller writes spec revisionName (v1.0-v1.4)",
        fixture: "testdata/rules/KV4006/fail",
        with: "v1.4",
        without: "v1.5",
        probe: at("KV4006", "spec.instancetype.revisionName"),
    },
    Boundary {
        behaviour: "webhook defaults the matcher kind (v1.0-v1.6)",
        fixture: "testdata/rules/KV3001/fail",
        with: "v1.6",
        without: "v1.7",
        probe: at("KV3001", "spec.instancetype.kind"),
    },
    Boundary {
        behaviour: "inferFromVolumeFailurePolicy: Ignore drops the VM's memory (v1.1+)",
        fixture: "testdata/versions/failure-policy-ignore",
        with: "v1.1",
        without: "v1.0",
        probe: saying("KV3002", "inferFromVolumeFailurePolicy: Ignore"),
    },
    Boundary {
        behaviour: "inferFromVolumeFailurePolicy unknown to v1.0: the VM's memory stays and conflicts",
        fixture: "testdata/versions/failure-policy-ignore",
        with: "v1.0",
        without: "v1.1",
        probe: cause("KV1001", "spec.template.spec.domain.memory"),
    },
    Boundary {
        behaviour: "inference through VolumeSnapshots (v1.9)",
        fixture: "testdata/versions/snapshot-inference",
        with: "v1.9",
        without: "v1.8",
        probe: at("KV3002", "spec.instancetype"),
    },
    Boundary {
        behaviour: "no inference from a snapshot source before v1.9",
        fixture: "testdata/versions/snapshot-inference",
        with: "v1.8",
        without: "v1.9",
        probe: code("KV1005"),
    },
    Boundary {
        behaviour: "preferredArchitecture written into the VM (v1.7+)",
        fixture: "testdata/versions/preferred-architecture",
        with: "v1.8",
        without: "v1.6",
        probe: saying("KV3004", "`arm64`"),
    },
    Boundary {
        behaviour: "preferred arm64 needs the MultiArchitecture gate in v1.7",
        fixture: "testdata/versions/preferred-architecture",
        with: "v1.7",
        without: "v1.8",
        probe: cause("KV1008", "spec.template.spec.architecture"),
    },
    Boundary {
        behaviour: "preferredStorageClassName into dataVolumeTemplates[].spec.storage (v1.1+)",
        fixture: "testdata/rules/KV3005/fail",
        with: "v1.1",
        without: "v1.0.0",
        probe: at(
            "KV3005",
            "spec.dataVolumeTemplates[0].spec.storage.storageClassName",
        ),
    },
    Boundary {
        behaviour: "random firmware.uuid on create (v1.6+)",
        fixture: "testdata/rules/KV3006/fail",
        with: "v1.6.0",
        without: "v1.5",
        probe: at("KV3006", "spec.template.spec.domain.firmware.uuid"),
    },
    Boundary {
        behaviour: "random firmware.serial on create (v1.7+)",
        fixture: "testdata/versions/firmware-serial",
        with: "v1.7",
        without: "v1.6.0",
        probe: at("KV3006", "spec.template.spec.domain.firmware.serial"),
    },
    Boundary {
        behaviour: "controller writes the legacy firmware uuid (v1.6+)",
        fixture: "testdata/rules/KV3006/fail",
        with: "v1.6",
        without: "v1.5",
        probe: saying("KV3006", "derived from its name, from the VM controller"),
    },
    Boundary {
        behaviour: "pci-topology annotation on create (v1.8+)",
        fixture: "testdata/rules/KV3007/fail",
        with: "v1.8",
        without: "v1.7.0",
        probe: code("KV3007"),
    },
    Boundary {
        behaviour: "pci-topology annotation: v1.8 always, v1.9 only for PCIe-capable templates",
        fixture: "testdata/versions/pci-topology-s390x",
        with: "v1.8.0",
        without: "v1.9",
        probe: code("KV3007"),
    },
    Boundary {
        behaviour: "missing instance type rejected at admission (up to v1.5)",
        fixture: "testdata/rules/KV1011/fail",
        with: "v1.5",
        without: "v1.6",
        probe: cause("KV1011", "spec.instancetype"),
    },
    Boundary {
        behaviour: "missing instance type admitted from v1.6; the VM cannot start",
        fixture: "testdata/rules/KV1011/fail",
        with: "v1.6",
        without: "v1.5",
        probe: code("KV1006"),
    },
    Boundary {
        behaviour: "conflict message A (v1.0)",
        fixture: "testdata/rules/KV1001/fail",
        with: "v1.0",
        without: "v1.1",
        probe: saying("KV1001", "VM field conflicts with selected Instancetype"),
    },
    Boundary {
        behaviour: "conflict message B (v1.1-v1.4)",
        fixture: "testdata/rules/KV1001/fail",
        with: "v1.4",
        without: "v1.5",
        probe: saying(
            "KV1001",
            "VM field spec.template.spec.domain.memory conflicts",
        ),
    },
    Boundary {
        behaviour: "conflict message C (v1.5+)",
        fixture: "testdata/rules/KV1001/fail",
        with: "v1.5",
        without: "v1.4",
        probe: saying("KV1001", "VM field(s) spec.template.spec.domain.memory"),
    },
    Boundary {
        behaviour: "requirements checked before the VMI-spec defaults (v1.0)",
        fixture: "testdata/versions/requirements-after-defaults",
        with: "v1.0.0",
        without: "v1.1",
        probe: cause("KV1002", "spec.template.spec.domain.cpu"),
    },
    Boundary {
        behaviour: "preference architecture requirement (v1.7+)",
        fixture: "testdata/versions/architecture-requirement",
        with: "v1.7",
        without: "v1.6",
        probe: cause("KV1002", "spec.template.spec.architecture"),
    },
    Boundary {
        behaviour: "ControllerRevision names carry the object version (v1.3+)",
        fixture: "testdata/rules/KV4006/fail",
        with: "v1.3",
        without: "v1.2",
        probe: saying("KV4006", "vm-small-v1beta1-<uid>-<generation>"),
    },
    Boundary {
        behaviour: "referencePolicy expand rewrites the VM (v1.4+)",
        fixture: "testdata/rules/KV3009/fail",
        with: "v1.4",
        without: "v1.3",
        probe: at("KV3009", "spec.instancetype"),
    },
    Boundary {
        behaviour: "alpha instance-type APIs served (up to v1.5)",
        fixture: "testdata/rules/KV0011/fail",
        with: "v1.6",
        without: "v1.5",
        probe: at("KV0011", "apiVersion"),
    },
    Boundary {
        behaviour: "expand applies VMI defaults (v1.4+)",
        fixture: "testdata/rules/KV3007/fail",
        with: "v1.4",
        without: "v1.3",
        probe: Probe::Rendered("/spec/template/spec/networks/0/pod"),
    },
    Boundary {
        behaviour: "requests.memory defaulted by expand (v1.4-v1.6)",
        fixture: "testdata/rules/KV3007/fail",
        with: "v1.6.0",
        without: "v1.7",
        probe: Probe::Rendered("/spec/template/spec/domain/resources/requests/memory"),
    },
    Boundary {
        behaviour: "memory conflicts name the exact field (v1.7+)",
        fixture: "testdata/rules/KV1001/fail",
        with: "v1.7",
        without: "v1.6",
        probe: cause("KV1001", "spec.template.spec.domain.memory.guest"),
    },
    Boundary {
        behaviour: "bundled catalog deployed by default (v1.4+)",
        fixture: "testdata/rules/KV2001/fail",
        with: "v1.4",
        without: "v1.3",
        probe: at("KV2001", "metadata.name"),
    },
];

/// Behaviour of every release: `probe` holds at the oldest and the newest.
const ALWAYS: &[(&str, &str, Probe)] = &[
    (
        "inferFromVolume rewritten to name/kind",
        "testdata/rules/KV3002/fail",
        at("KV3002", "spec.instancetype"),
    ),
    (
        "machine type written into the VM",
        "testdata/rules/KV3003/fail",
        at("KV3003", "spec.template.spec.domain.machine.type"),
    ),
    (
        "architecture defaulted into the VM",
        "testdata/rules/KV3004/fail",
        at("KV3004", "spec.template.spec.architecture"),
    ),
];

fn check(dir: &str, version: &str) -> Report {
    let version: KubeVirtVersion = version.parse().expect("a version");
    check::run(&Options {
        selection: Selection {
            paths: vec![Path::new(dir).to_path_buf()],
            ..Selection::default()
        },
        version: Some(version),
        config: ConfigChoice::Discover,
        ..Options::default()
    })
    .unwrap_or_else(|err| panic!("{dir}: {err}"))
}

fn matches(finding: &Finding, probe: Probe) -> bool {
    let Probe::Finding {
        code,
        path,
        field,
        message,
    } = probe
    else {
        return false;
    };
    finding.rule.code == code
        && path.is_none_or(|p| finding.path.as_deref() == Some(p))
        && field.is_none_or(|f| finding.kubevirt_field.as_deref() == Some(f))
        && message.is_none_or(|m| finding.message.contains(m))
}

fn holds(report: &Report, probe: Probe) -> bool {
    match probe {
        Probe::Rendered(pointer) => report
            .rendered
            .iter()
            .any(|vm| vm.value.pointer(pointer).is_some()),
        Probe::Finding { .. } => report.findings.iter().any(|f| matches(f, probe)),
    }
}

fn describe(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {}",
                f.rule.code,
                f.path.as_deref().unwrap_or(""),
                f.message
            )
        })
        .collect()
}

#[test]
fn each_change_of_the_version_matrix_shows_on_one_side_only() {
    let mut wrong = Vec::new();
    for boundary in BOUNDARIES {
        let with = check(boundary.fixture, boundary.with);
        if !holds(&with, boundary.probe) {
            wrong.push(format!(
                "{}: {:?} missing at {} in {}: {:#?}",
                boundary.behaviour,
                boundary.probe,
                boundary.with,
                boundary.fixture,
                describe(&with)
            ));
        }
        let without = check(boundary.fixture, boundary.without);
        if holds(&without, boundary.probe) {
            wrong.push(format!(
                "{}: {:?} present at {} in {}",
                boundary.behaviour, boundary.probe, boundary.without, boundary.fixture
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn behaviour_of_every_release_shows_at_both_ends() {
    let mut wrong = Vec::new();
    for (behaviour, fixture, probe) in ALWAYS {
        for version in [KubeVirtVersion::OLDEST, KubeVirtVersion::LATEST] {
            let report = check(fixture, &version.to_string());
            if !holds(&report, *probe) {
                wrong.push(format!("{behaviour}: {probe:?} missing at {version}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
