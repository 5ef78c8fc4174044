//! Rendering one VM with its instance type and preference. The input is structured: numbers,
//! quantities and topology names at the edges (huge, negative, zero ratios, `1e309`, `0x`, octal)
//! land in the fields KubeVirt does arithmetic on, so the fuzzer spends its time in the renderer
//! rather than in YAML syntax errors. The VM references either the file's own instance type and
//! preference or one of the built-in catalog's, which is built once per process and release.
#![no_main]

use std::fmt::Write as _;

use arbitrary::Arbitrary;
use kvlint::check::{Options, run_in_memory};
use kvlint::cluster::profile::KubeVirtVersion;
use kvlint::config::ConfigChoice;
use libfuzzer_sys::fuzz_target;

/// A scalar written into the YAML: an edge value from a list, a number, or free text.
#[derive(Arbitrary, Debug)]
enum Scalar {
    Edge(u8),
    Int(i64),
    Float(f64),
    Text(String),
}

const EDGES: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "3",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "1e309",
    "-1e309",
    ".nan",
    ".inf",
    "0x10",
    "0o17",
    "017",
    "1Gi",
    "2048Mi",
    "1G",
    "0.5",
    "500m",
    "1Ei",
    "8Ei",
    "9Ei",
    "1e18",
    "1E3",
    "1.5Gi",
    "-1Gi",
    "0Gi",
    "1n",
    "1u",
    "100k",
    "1Ki",
    "'2'",
    "\"\"",
    "null",
    "~",
    "true",
    "[]",
    "{}",
    "1_000",
    "0b101",
    "+12",
    "1:30",
];

impl Scalar {
    fn write(&self) -> String {
        match self {
            Self::Edge(i) => EDGES[usize::from(*i) % EDGES.len()].to_owned(),
            Self::Int(n) => n.to_string(),
            Self::Float(f) => format!("{f:?}"),
            Self::Text(s) => serde_json_string(s),
        }
    }
}

fn serde_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c) & 0xFFFF);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const TOPOLOGIES: &[&str] = &[
    "sockets",
    "cores",
    "threads",
    "spread",
    "any",
    "preferSockets",
    "preferCores",
    "preferThreads",
    "preferSpread",
    "preferAny",
    "bogus",
];
const ACROSS: &[&str] = &[
    "SocketsCores",
    "CoresThreads",
    "SocketsCoresThreads",
    "Other",
];

const DISK_KINDS: &[&str] = &["disk", "cdrom", "lun"];
const BUSES: &[&str] = &["virtio", "sata", "scsi", "usb", "bogus"];
const MODELS: &[&str] = &["virtio", "e1000", "e1000e", "rtl8139", "bogus"];
const MACHINES: &[&str] = &["q35", "pc-q35-rhel9.2.0", "pc", "bogus"];

fn pick(names: &[&'static str], choice: u8) -> &'static str {
    names[usize::from(choice) % names.len()]
}

#[derive(Arbitrary, Debug)]
struct Disk {
    kind: u8,
    bus: Option<u8>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    minor: u8,
    cluster_kind: bool,
    guest_cpu: Option<Scalar>,
    guest_memory: Option<Scalar>,
    overcommit: Option<Scalar>,
    max_sockets: Option<Scalar>,
    max_guest: Option<Scalar>,
    hugepages: Option<Scalar>,
    dedicated: Option<bool>,
    topology: Option<u8>,
    across: Option<u8>,
    ratio: Option<Scalar>,
    legacy_ratio: Option<Scalar>,
    preferred_memory: Option<Scalar>,
    required_cpu: Option<Scalar>,
    vm_sockets: Option<Scalar>,
    vm_cores: Option<Scalar>,
    vm_threads: Option<Scalar>,
    vm_memory: Option<Scalar>,
    vm_requests_cpu: Option<Scalar>,
    vm_limits_memory: Option<Scalar>,
    memory_overcommit: Option<Scalar>,
    cpu_request: Option<Scalar>,
    max_cpu_sockets: Option<Scalar>,
    with_preference: bool,
    /// A built-in catalog instance type (or an unknown name) instead of `it`.
    catalog_instancetype: Option<u8>,
    /// A built-in catalog preference (or an unknown name) instead of `pref`.
    catalog_preference: Option<u8>,
    /// `commonInstancetypesDeployment.enabled` in the KubeVirt CR.
    deploy_catalog: Option<bool>,
    /// The feature gate v1.1–v1.3 deploy the catalog behind.
    catalog_gate: bool,
    /// The VM's disks (at most three are written), which preferences give a bus.
    disks: Vec<Disk>,
    /// The VM's interfaces (at most two), each with a model or none.
    interfaces: Vec<Option<u8>>,
    machine_type: Option<u8>,
    preferred_disk_bus: Option<u8>,
    preferred_interface_model: Option<u8>,
    preferred_efi: Option<bool>,
    preferred_machine_type: Option<u8>,
}

/// `devices:` of the VM's domain, at indent 8.
fn devices(out: &mut String, input: &Input) {
    if input.disks.is_empty() && input.interfaces.is_empty() {
        out.push_str("        devices: {}\n");
        return;
    }
    out.push_str("        devices:\n");
    if !input.disks.is_empty() {
        out.push_str("          disks:\n");
    }
    for (n, disk) in input.disks.iter().take(3).enumerate() {
        let kind = pick(DISK_KINDS, disk.kind);
        let _ = match disk.bus {
            Some(bus) => writeln!(
                out,
                "          - name: disk{n}\n            {kind}:\n              bus: {}",
                pick(BUSES, bus)
            ),
            None => writeln!(out, "          - name: disk{n}\n            {kind}: {{}}"),
        };
    }
    if !input.interfaces.is_empty() {
        out.push_str("          interfaces:\n");
    }
    for (n, model) in input.interfaces.iter().take(2).enumerate() {
        let _ = writeln!(
            out,
            "          - name: net{n}\n            masquerade: {{}}"
        );
        if let Some(model) = model {
            let _ = writeln!(out, "            model: {}", pick(MODELS, *model));
        }
    }
}

/// The VM's volumes and networks, matching its disks and interfaces, at indent 6.
fn volumes_and_networks(out: &mut String, input: &Input) {
    if !input.disks.is_empty() {
        out.push_str("      volumes:\n");
    }
    for n in 0..input.disks.len().min(3) {
        let _ = writeln!(
            out,
            "      - name: disk{n}\n        containerDisk:\n          image: quay.io/containerdisks/fedora:41"
        );
    }
    if !input.interfaces.is_empty() {
        out.push_str("      networks:\n");
    }
    for n in 0..input.interfaces.len().min(2) {
        let _ = writeln!(out, "      - name: net{n}\n        pod: {{}}");
    }
}

/// The local preference's device, firmware and machine preferences, at indent 2.
fn preferred_devices(out: &mut String, input: &Input) {
    if input.preferred_disk_bus.is_some() || input.preferred_interface_model.is_some() {
        out.push_str("  devices:\n");
        if let Some(bus) = input.preferred_disk_bus {
            let _ = writeln!(out, "    preferredDiskBus: {}", pick(BUSES, bus));
        }
        if let Some(model) = input.preferred_interface_model {
            let _ = writeln!(out, "    preferredInterfaceModel: {}", pick(MODELS, model));
        }
    }
    if let Some(efi) = input.preferred_efi {
        let _ = writeln!(out, "  firmware:\n    preferredUseEfi: {efi}");
    }
    if let Some(machine) = input.preferred_machine_type {
        let _ = writeln!(
            out,
            "  machine:\n    preferredMachineType: {}",
            pick(MACHINES, machine)
        );
    }
}

/// A catalog name of the target release, picked by `choice`; one choice past the end is a name
/// the catalog does not have.
fn catalog_name(names: &[&str], choice: u8) -> String {
    names
        .get(usize::from(choice) % (names.len() + 1))
        .map_or_else(|| "not-in-catalog".to_owned(), |name| (*name).to_owned())
}

fn field(out: &mut String, indent: usize, key: &str, value: Option<&Scalar>) {
    if let Some(value) = value {
        let _ = writeln!(out, "{:indent$}{key}: {}", "", value.write());
    }
}

fn yaml(input: &Input, minor: u32) -> String {
    let (it_kind, pref_kind, namespace) = if input.cluster_kind {
        (
            "VirtualMachineClusterInstancetype",
            "VirtualMachineClusterPreference",
            "",
        )
    } else {
        (
            "VirtualMachineInstancetype",
            "VirtualMachinePreference",
            "  namespace: default\n",
        )
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "apiVersion: kubevirt.io/v1\nkind: KubeVirt\nmetadata:\n  name: kubevirt\n  namespace: kubevirt\nspec:\n  configuration:\n"
    );
    if input.catalog_gate {
        out.push_str(
            "    developerConfiguration:\n      featureGates: [CommonInstancetypesDeploymentGate]\n",
        );
    } else {
        out.push_str("    developerConfiguration: {}\n");
    }
    if let Some(enabled) = input.deploy_catalog {
        let _ = writeln!(
            out,
            "    commonInstancetypesDeployment:\n      enabled: {enabled}"
        );
    }
    field(
        &mut out,
        4,
        "memoryOvercommit",
        input.memory_overcommit.as_ref(),
    );
    field(&mut out, 4, "cpuRequest", input.cpu_request.as_ref());
    if let Some(sockets) = &input.max_cpu_sockets {
        let _ = writeln!(
            out,
            "    liveUpdateConfiguration:\n      maxCpuSockets: {}",
            sockets.write()
        );
    }
    let _ = write!(
        out,
        "---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: {it_kind}\nmetadata:\n  name: it\n{namespace}spec:\n  cpu:\n"
    );
    field(&mut out, 4, "guest", input.guest_cpu.as_ref());
    field(&mut out, 4, "maxSockets", input.max_sockets.as_ref());
    if let Some(dedicated) = input.dedicated {
        let _ = writeln!(out, "    dedicatedCPUPlacement: {dedicated}");
    }
    out.push_str("  memory:\n");
    field(&mut out, 4, "guest", input.guest_memory.as_ref());
    field(&mut out, 4, "overcommitPercent", input.overcommit.as_ref());
    field(&mut out, 4, "maxGuest", input.max_guest.as_ref());
    if let Some(page) = &input.hugepages {
        let _ = writeln!(out, "    hugepages:\n      pageSize: {}", page.write());
    }
    if input.with_preference {
        let _ = write!(
            out,
            "---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: {pref_kind}\nmetadata:\n  name: pref\n{namespace}spec:\n  cpu:\n"
        );
        if let Some(t) = input.topology {
            let _ = writeln!(
                out,
                "    preferredCPUTopology: {}",
                TOPOLOGIES[usize::from(t) % TOPOLOGIES.len()]
            );
        }
        field(
            &mut out,
            4,
            "preferSpreadSocketToCoreRatio",
            input.legacy_ratio.as_ref(),
        );
        if input.across.is_some() || input.ratio.is_some() {
            out.push_str("    spreadOptions:\n");
            if let Some(a) = input.across {
                let _ = writeln!(
                    out,
                    "      across: {}",
                    ACROSS[usize::from(a) % ACROSS.len()]
                );
            }
            field(&mut out, 6, "ratio", input.ratio.as_ref());
        }
        if let Some(memory) = &input.preferred_memory {
            let _ = writeln!(
                out,
                "  memory:\n    preferredMemoryGuest: {}",
                memory.write()
            );
        }
        if let Some(cpu) = &input.required_cpu {
            let _ = writeln!(
                out,
                "  requirements:\n    cpu:\n      guest: {}",
                cpu.write()
            );
        }
        preferred_devices(&mut out, input);
    }
    let (catalog_instancetypes, catalog_preferences) =
        kvlint::cluster::catalog::names_in_release(1, minor);
    let instancetype = match input.catalog_instancetype {
        Some(choice) => (
            "VirtualMachineClusterInstancetype",
            catalog_name(&catalog_instancetypes, choice),
        ),
        None => (it_kind, "it".to_owned()),
    };
    let preference = match input.catalog_preference {
        Some(choice) => Some((
            "VirtualMachineClusterPreference",
            catalog_name(&catalog_preferences, choice),
        )),
        None => input
            .with_preference
            .then(|| (pref_kind, "pref".to_owned())),
    };
    let _ = write!(
        out,
        "---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  namespace: default\nspec:\n  runStrategy: Always\n  instancetype:\n    kind: {}\n    name: {}\n",
        instancetype.0, instancetype.1
    );
    if let Some((kind, name)) = preference {
        let _ = writeln!(out, "  preference:\n    kind: {kind}\n    name: {name}");
    }
    out.push_str("  template:\n    spec:\n      domain:\n");
    devices(&mut out, input);
    if input.vm_sockets.is_some() || input.vm_cores.is_some() || input.vm_threads.is_some() {
        out.push_str("        cpu:\n");
        field(&mut out, 10, "sockets", input.vm_sockets.as_ref());
        field(&mut out, 10, "cores", input.vm_cores.as_ref());
        field(&mut out, 10, "threads", input.vm_threads.as_ref());
    }
    if let Some(memory) = &input.vm_memory {
        let _ = writeln!(out, "        memory:\n          guest: {}", memory.write());
    }
    if input.vm_requests_cpu.is_some() || input.vm_limits_memory.is_some() {
        out.push_str("        resources:\n");
        if let Some(cpu) = &input.vm_requests_cpu {
            let _ = writeln!(out, "          requests:\n            cpu: {}", cpu.write());
        }
        if let Some(memory) = &input.vm_limits_memory {
            let _ = writeln!(
                out,
                "          limits:\n            memory: {}",
                memory.write()
            );
        }
    }
    if let Some(machine) = input.machine_type {
        let _ = writeln!(
            out,
            "        machine:\n          type: {}",
            pick(MACHINES, machine)
        );
    }
    volumes_and_networks(&mut out, input);
    out
}

fuzz_target!(|input: Input| {
    let minor = u32::from(input.minor % 10);
    let text = yaml(&input, minor);
    let options = Options {
        config: ConfigChoice::None,
        // The built-in catalog (`--catalog auto`), as the CLI's default.
        catalog: None,
        version: Some(KubeVirtVersion::new(1, minor)),
        ..Options::default()
    };
    if let Ok(report) = run_in_memory(&options, "vm.yaml", text.as_bytes()) {
        let rendered: Vec<_> = report.rendered.iter().collect();
        let _ =
            kvlint::commands::render::render_output(&rendered, kvlint::output::RenderFormat::Yaml);
    }
});
