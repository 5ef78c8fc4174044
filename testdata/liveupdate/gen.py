#!/usr/bin/env python3
"""Writes the live-update pairs: NNN-name/base.yaml and head.yaml, each one VirtualMachine
(namespace `apps`, running) with the objects it uses. Most pairs are variations of one VM;
run again after editing the list, then regenerate expected.json with the oracle
(conformance/oracle/README.md, "Live updates").

    python3 testdata/liveupdate/gen.py testdata/liveupdate
"""

import copy
import os
import shutil
import sys

import yaml

NAMESPACE = "apps"


def vm(cpu=None, memory="2Gi", extra_spec=None, instancetype=None, preference=None):
    """The VM every pair starts from: one socket, 2Gi of guest memory, a container disk."""
    domain = {
        "devices": {"disks": [{"name": "root", "disk": {"bus": "virtio"}}]},
    }
    if instancetype is None:
        domain["cpu"] = cpu or {"sockets": 1, "cores": 1, "threads": 1}
        if memory is not None:
            domain["memory"] = {"guest": memory}
    spec = {
        "domain": domain,
        "volumes": [
            {"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}
        ],
    }
    for key, value in (extra_spec or {}).items():
        spec[key] = value
    body = {"runStrategy": "Always"}
    if instancetype:
        body["instancetype"] = instancetype
    if preference:
        body["preference"] = preference
    body["template"] = {"spec": spec}
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "web", "namespace": NAMESPACE},
        "spec": body,
    }


def domain(doc):
    return doc["spec"]["template"]["spec"]["domain"]


def template(doc):
    return doc["spec"]["template"]["spec"]


def kubevirt(configuration):
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
        "spec": {"configuration": configuration},
    }


def instancetype(name, cpus, memory, **extra):
    spec = {"cpu": {"guest": cpus}, "memory": {"guest": memory}}
    for key, value in extra.items():
        section, field = key.split("_", 1)
        spec[section][field] = value
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def preference(name, spec):
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": spec,
    }


def pvc(name):
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "accessModes": ["ReadWriteMany"],
            "resources": {"requests": {"storage": "10Gi"}},
        },
    }


def revision(name, instancetype_object):
    """A ControllerRevision holding an instance type, as KubeVirt stores one."""
    data = copy.deepcopy(instancetype_object)
    return {
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {
                "instancetype.kubevirt.io/object-kind": data["kind"],
                "instancetype.kubevirt.io/object-name": data["metadata"]["name"],
                "instancetype.kubevirt.io/object-version": "v1beta1",
            },
        },
        "data": data,
        "revision": 1,
    }


PAIRS = []


def pair(name, base, head, objects=(), head_objects=None):
    """base and head: the VM documents; objects: on both sides unless head_objects is given."""
    PAIRS.append((name, [base, *objects], [head, *(objects if head_objects is None else head_objects)]))


def changed(base, edit):
    head = copy.deepcopy(base)
    edit(head)
    return head


def set_cpu(**fields):
    return lambda d: domain(d)["cpu"].update(fields)


def set_memory(**fields):
    return lambda d: domain(d).setdefault("memory", {}).update(fields)


def set_template(**fields):
    return lambda d: template(d).update(fields)


def both(*edits):
    def run(d):
        for edit in edits:
            edit(d)

    return run


# --- CPU sockets, cores, threads -------------------------------------------------------------
base = vm()
for sockets in (2, 4, 5, 8):
    pair(f"sockets-1-to-{sockets}", base, changed(base, set_cpu(sockets=sockets)))
four = vm(cpu={"sockets": 4, "cores": 1, "threads": 1})
pair("sockets-4-to-2", four, changed(four, set_cpu(sockets=2)))
pair("sockets-4-to-16", four, changed(four, set_cpu(sockets=16)))
pair("cores-1-to-2", base, changed(base, set_cpu(cores=2)))
pair("threads-1-to-2", base, changed(base, set_cpu(threads=2)))
pair("sockets-and-cores", base, changed(base, set_cpu(sockets=2, cores=2)))
dual = vm(cpu={"sockets": 1, "cores": 2, "threads": 2})
pair("sockets-with-cores-threads", dual, changed(dual, set_cpu(sockets=3)))
big = vm(cpu={"sockets": 2, "cores": 32, "threads": 2})
pair("sockets-vcpu-cap", big, changed(big, set_cpu(sockets=4)))
explicit = vm(cpu={"sockets": 1, "cores": 1, "threads": 1, "maxSockets": 8})
pair("vm-maxsockets-1-to-6", explicit, changed(explicit, set_cpu(sockets=6)))
pair("vm-maxsockets-1-to-9", explicit, changed(explicit, set_cpu(sockets=9)))
small_max = vm(cpu={"sockets": 1, "cores": 1, "threads": 1, "maxSockets": 2})
pair("vm-maxsockets-2-to-3", small_max, changed(small_max, set_cpu(sockets=3)))
pair("vm-maxsockets-raised", explicit, changed(explicit, set_cpu(maxSockets=12, sockets=2)))
pair("cpu-model-changed", base, changed(base, set_cpu(model="host-passthrough")))
dedicated = vm(cpu={"sockets": 1, "cores": 2, "threads": 1, "dedicatedCpuPlacement": True})
pair("dedicated-cpus-added", base, changed(base, set_cpu(dedicatedCpuPlacement=True)))
pair("dedicated-cpus-sockets", dedicated, changed(dedicated, set_cpu(sockets=2)))
pair("dedicated-cpus-removed", dedicated, changed(dedicated, set_cpu(dedicatedCpuPlacement=False)))
no_cpu = vm(cpu={})
pair("sockets-from-unset", no_cpu, changed(no_cpu, lambda d: domain(d).update(cpu={"sockets": 2})))

# --- memory ---------------------------------------------------------------------------------
for guest in ("4Gi", "8Gi", "9Gi", "3Gi"):
    pair(f"memory-2gi-to-{guest.lower()}", base, changed(base, set_memory(guest=guest)))
four_gi = vm(memory="4Gi")
pair("memory-below-started", four_gi, changed(four_gi, set_memory(guest="2Gi")))
pair("memory-unaligned", base, changed(base, set_memory(guest="2049Mi")))
pair("memory-to-1gi-aligned", four_gi, changed(four_gi, set_memory(guest="6Gi")))
tiny = vm(memory="512Mi")
pair("memory-below-minimum", tiny, changed(tiny, set_memory(guest="768Mi")))
max_guest = vm(memory="2Gi")
domain(max_guest)["memory"]["maxGuest"] = "16Gi"
pair("vm-maxguest-2gi-to-12gi", max_guest, changed(max_guest, set_memory(guest="12Gi")))
pair("vm-maxguest-2gi-to-20gi", max_guest, changed(max_guest, set_memory(guest="20Gi")))
pair("vm-maxguest-raised", max_guest, changed(max_guest, set_memory(maxGuest="32Gi", guest="4Gi")))
pair("sockets-and-memory-beyond", base, changed(base, both(set_cpu(sockets=8), set_memory(guest="32Gi"))))
pair("sockets-and-memory-within", base, changed(base, both(set_cpu(sockets=2), set_memory(guest="4Gi"))))
pair("sockets-within-memory-beyond", base, changed(base, both(set_cpu(sockets=2), set_memory(guest="16Gi"))))
pair("sockets-beyond-memory-within", base, changed(base, both(set_cpu(sockets=6), set_memory(guest="4Gi"))))
requests = vm(memory=None)
domain(requests)["resources"] = {"requests": {"memory": "2Gi"}}
pair(
    "memory-requests-only",
    requests,
    changed(requests, lambda d: domain(d)["resources"]["requests"].update(memory="4Gi")),
)
hugepages = vm(memory="2Gi")
domain(hugepages)["memory"]["hugepages"] = {"pageSize": "2Mi"}
pair("hugepages-added", base, changed(base, set_memory(hugepages={"pageSize": "2Mi"})))
pair("hugepages-memory-up", hugepages, changed(hugepages, set_memory(guest="4Gi")))
huge1g = vm(memory="4Gi")
domain(huge1g)["memory"]["hugepages"] = {"pageSize": "1Gi"}
pair("hugepages-1gi-memory-up", huge1g, changed(huge1g, set_memory(guest="6Gi")))
pair("hugepages-page-size", hugepages, changed(hugepages, set_memory(hugepages={"pageSize": "1Gi"})))

# --- node placement -------------------------------------------------------------------------
selector = {"topology.kubernetes.io/zone": "a"}
pair("node-selector-added", base, changed(base, set_template(nodeSelector=selector)))
with_selector = changed(base, set_template(nodeSelector=selector))
pair("node-selector-changed", with_selector, changed(with_selector, set_template(nodeSelector={"topology.kubernetes.io/zone": "b"})))
pair("node-selector-removed", with_selector, changed(with_selector, lambda d: template(d).pop("nodeSelector")))
affinity = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}
            ]
        }
    }
}
pair("affinity-added", base, changed(base, set_template(affinity=affinity)))
with_affinity = changed(base, set_template(affinity=affinity))
pair("affinity-removed", with_affinity, changed(with_affinity, lambda d: template(d).pop("affinity")))
toleration = [{"key": "dedicated", "operator": "Equal", "value": "vms", "effect": "NoSchedule"}]
pair("tolerations-added", base, changed(base, set_template(tolerations=toleration)))
with_toleration = changed(base, set_template(tolerations=toleration))
pair("tolerations-removed", with_toleration, changed(with_toleration, lambda d: template(d).pop("tolerations")))
pair(
    "placement-and-sockets",
    base,
    changed(base, both(set_template(nodeSelector=selector), set_cpu(sockets=2))),
)
pair(
    "placement-and-machine-type",
    base,
    changed(base, both(set_template(nodeSelector=selector), lambda d: domain(d).update(machine={"type": "q35"}))),
)
pair("scheduler-name", base, changed(base, set_template(schedulerName="custom")))

# --- volumes and disks ----------------------------------------------------------------------
claims = [pvc("data")]


def add_volume(hotpluggable, disk=True, bus="scsi", cdrom=False):
    def edit(d):
        source = {"claimName": "data"}
        if hotpluggable:
            source["hotpluggable"] = True
        template(d)["volumes"].append({"name": "data", "persistentVolumeClaim": source})
        if cdrom:
            domain(d)["devices"]["disks"].append({"name": "data", "cdrom": {"bus": "sata"}})
        elif disk:
            domain(d)["devices"]["disks"].append({"name": "data", "disk": {"bus": bus}})

    return edit


pair(
    "hotplug-volume-and-sockets-beyond",
    base,
    changed(base, both(add_volume(True), set_cpu(sockets=8))),
    claims,
)
pair("hotplug-volume-added", base, changed(base, add_volume(True)), claims)
pair("plain-volume-added", base, changed(base, add_volume(False, bus="virtio")), claims)
with_hotplug = changed(base, add_volume(True))
pair("hotplug-volume-removed", with_hotplug, base, claims)
with_plain = changed(base, add_volume(False, bus="virtio"))
pair("plain-volume-removed", with_plain, base, claims)
pair("hotplug-volume-no-disk", base, changed(base, add_volume(True, disk=False)), claims)
with_cdrom = changed(base, add_volume(True, cdrom=True))
pair("hotplug-cdrom-removed", with_cdrom, base, claims)
pair("hotplug-cdrom-added", base, changed(base, add_volume(True, cdrom=True)), claims)
pair(
    "container-disk-image",
    base,
    changed(base, lambda d: template(d)["volumes"][0]["containerDisk"].update(image="quay.io/containerdisks/fedora:42")),
)
pair(
    "disk-bus-changed",
    base,
    changed(base, lambda d: domain(d)["devices"]["disks"][0]["disk"].update(bus="sata")),
)
pair(
    "cloud-init-added",
    base,
    changed(
        base,
        both(
            lambda d: template(d)["volumes"].append({"name": "cloudinit", "cloudInitNoCloud": {"userData": "#cloud-config\n"}}),
            lambda d: domain(d)["devices"]["disks"].append({"name": "cloudinit", "disk": {"bus": "virtio"}}),
        ),
    ),
)
migration = changed(base, add_volume(False, bus="virtio"))
migration["spec"]["updateVolumesStrategy"] = "Migration"
claims2 = [pvc("data"), pvc("data2")]
pair(
    "volume-migration-claim",
    migration,
    changed(migration, lambda d: template(d)["volumes"][1]["persistentVolumeClaim"].update(claimName="data2")),
    claims2,
)
pair(
    "plain-volume-claim-changed",
    with_plain,
    changed(with_plain, lambda d: template(d)["volumes"][1]["persistentVolumeClaim"].update(claimName="data2")),
    claims2,
)

# --- interfaces and networks ----------------------------------------------------------------
networked = changed(
    base,
    both(
        lambda d: domain(d)["devices"].update(interfaces=[{"name": "default", "masquerade": {}}]),
        set_template(networks=[{"name": "default", "pod": {}}]),
    ),
)
pair("interface-model", networked, changed(networked, lambda d: domain(d)["devices"]["interfaces"][0].update(model="e1000")))
pair(
    "interface-mac",
    networked,
    changed(networked, lambda d: domain(d)["devices"]["interfaces"][0].update(macAddress="02:00:00:00:00:01")),
)
pair(
    "interface-bridge-added",
    networked,
    changed(
        networked,
        both(
            lambda d: domain(d)["devices"]["interfaces"].append({"name": "blue", "bridge": {}}),
            lambda d: template(d)["networks"].append({"name": "blue", "multus": {"networkName": "blue-net"}}),
        ),
    ),
)
pair(
    "interface-removed",
    changed(
        networked,
        both(
            lambda d: domain(d)["devices"]["interfaces"].append({"name": "blue", "bridge": {}}),
            lambda d: template(d)["networks"].append({"name": "blue", "multus": {"networkName": "blue-net"}}),
        ),
    ),
    networked,
)
add_blue = both(
    lambda d: domain(d)["devices"]["interfaces"].append({"name": "blue", "bridge": {}}),
    lambda d: template(d)["networks"].append({"name": "blue", "multus": {"networkName": "blue-net"}}),
)
with_blue = changed(networked, add_blue)
pair(
    "interface-hot-unplug",
    with_blue,
    changed(with_blue, lambda d: domain(d)["devices"]["interfaces"][1].update(state="absent")),
)
pair(
    "interface-added-and-machine-type",
    networked,
    changed(networked, both(add_blue, lambda d: domain(d).update(machine={"type": "pc-q35-rhel9.6.0"}))),
)
pair("stage-interface-added", networked, changed(networked, add_blue), [kubevirt({"vmRolloutStrategy": "Stage"})])
pair(
    "multus-network-renamed",
    with_blue,
    changed(with_blue, lambda d: template(d)["networks"][1]["multus"].update(networkName="green-net")),
)
pair("pod-network-added", base, changed(networked, lambda d: None))
pair("autoattach-pod-interface-off", base, changed(base, lambda d: domain(d)["devices"].update(autoattachPodInterface=False)))

# --- firmware, machine, devices, other -----------------------------------------------------
pair("firmware-efi", base, changed(base, lambda d: domain(d).update(firmware={"bootloader": {"efi": {"secureBoot": False}}})))
pair("firmware-serial", base, changed(base, lambda d: domain(d).update(firmware={"serial": "kvlint-0001"})))
pair("machine-type", base, changed(base, lambda d: domain(d).update(machine={"type": "pc-q35-rhel9.6.0"})))
pair("gpu-added", base, changed(base, lambda d: domain(d)["devices"].update(gpus=[{"name": "gpu0", "deviceName": "nvidia.com/GP102GL"}])))
pair("termination-grace", base, changed(base, set_template(terminationGracePeriodSeconds=30)))
pair("eviction-strategy", base, changed(base, set_template(evictionStrategy="LiveMigrate")))
pair("hostname", base, changed(base, set_template(hostname="web-1")))
pair("vm-labels-only", base, changed(base, lambda d: d["metadata"].update(labels={"team": "a"})))
pair(
    "template-labels-only",
    base,
    changed(base, lambda d: d["spec"]["template"].update(metadata={"labels": {"team": "a"}})),
)
pair("no-change", base, copy.deepcopy(base))

# --- rollout strategy and cluster limits ----------------------------------------------------
stage = [kubevirt({"vmRolloutStrategy": "Stage"})]
pair("stage-sockets", base, changed(base, set_cpu(sockets=2)), stage)
pair("stage-memory", base, changed(base, set_memory(guest="4Gi")), stage)
pair("stage-node-selector", base, changed(base, set_template(nodeSelector=selector)), stage)
pair("stage-hotplug-volume", base, changed(base, add_volume(True)), stage + claims)
live = [kubevirt({"vmRolloutStrategy": "LiveUpdate"})]
pair("liveupdate-explicit-sockets", base, changed(base, set_cpu(sockets=2)), live)
max_cpu = [kubevirt({"liveUpdateConfiguration": {"maxCpuSockets": 2}})]
pair("cluster-maxcpusockets-within", base, changed(base, set_cpu(sockets=2)), max_cpu)
pair("cluster-maxcpusockets-beyond", base, changed(base, set_cpu(sockets=3)), max_cpu)
max_mem = [kubevirt({"liveUpdateConfiguration": {"maxGuest": "4Gi"}})]
pair("cluster-maxguest-within", base, changed(base, set_memory(guest="4Gi")), max_mem)
pair("cluster-maxguest-beyond", base, changed(base, set_memory(guest="6Gi")), max_mem)
ratio = [kubevirt({"liveUpdateConfiguration": {"maxHotplugRatio": 2}})]
pair("cluster-ratio-sockets-beyond", base, changed(base, set_cpu(sockets=3)), ratio)
pair("cluster-ratio-memory-within", base, changed(base, set_memory(guest="4Gi")), ratio)
pair("cluster-ratio-memory-beyond", base, changed(base, set_memory(guest="6Gi")), ratio)
pair(
    "cluster-vm-maxsockets-wins",
    explicit,
    changed(explicit, set_cpu(sockets=6)),
    max_cpu,
)

# --- architectures --------------------------------------------------------------------------
arm = changed(base, set_template(architecture="arm64"))
pair("arm64-sockets", arm, changed(arm, set_cpu(sockets=2)))
pair("arm64-memory", arm, changed(arm, set_memory(guest="4Gi")))
pair("arm64-node-selector", arm, changed(arm, set_template(nodeSelector=selector)))
arm_max = changed(arm, set_cpu(maxSockets=4))
pair("arm64-maxsockets-sockets", arm_max, changed(arm_max, set_cpu(sockets=2)))
s390x = changed(base, set_template(architecture="s390x"))
pair("s390x-sockets", s390x, changed(s390x, set_cpu(sockets=2)))
pair("s390x-memory", s390x, changed(s390x, set_memory(guest="4Gi")))

# --- instance types and preferences ---------------------------------------------------------
small = instancetype("small", 1, "2Gi")
small_b = instancetype("small-b", 1, "2Gi")
medium = instancetype("medium", 2, "4Gi")
large = instancetype("large", 8, "16Gi")
types = [small, small_b, medium, large]


def typed(name, revision=None, pref=None):
    matcher = {"kind": "VirtualMachineInstancetype", "name": name}
    if revision:
        matcher["revisionName"] = revision
    return vm(instancetype=matcher, preference=pref)


pair("instancetype-same-size", typed("small"), typed("small-b"), types)
pair("instancetype-bigger", typed("small"), typed("medium"), types)
pair("instancetype-beyond", typed("small"), typed("large"), types)
pair("instancetype-smaller", typed("medium"), typed("small"), types)
stored_small = revision("web-small-v1", small)
pair(
    "instancetype-revision-kept",
    typed("small", revision="web-small-v1"),
    typed("medium", revision="web-small-v1"),
    types + [stored_small],
)
pair(
    "instancetype-revision-cleared",
    typed("small", revision="web-small-v1"),
    typed("medium"),
    types + [stored_small],
)
pair(
    "instancetype-revision-kept-node-selector",
    typed("small", revision="web-small-v1"),
    changed(typed("small", revision="web-small-v1"), set_template(nodeSelector=selector)),
    types + [stored_small],
)
edited = instancetype("small", 1, "4Gi")
pair("instancetype-edited-memory", typed("small"), typed("small"), types, [edited, small_b, medium, large])
edited_cpu = instancetype("small", 2, "2Gi")
pair("instancetype-edited-cpu", typed("small"), typed("small"), types, [edited_cpu, small_b, medium, large])
edited_dedicated = instancetype("small", 1, "2Gi", cpu_dedicatedCPUPlacement=True)
pair(
    "instancetype-edited-dedicated",
    typed("small"),
    typed("small"),
    types,
    [edited_dedicated, small_b, medium, large],
)
limits = instancetype("flex", 1, "2Gi", cpu_maxSockets=6, memory_maxGuest="8Gi")
flex_big = instancetype("flex-big", 6, "8Gi", cpu_maxSockets=6, memory_maxGuest="8Gi")
flex_huge = instancetype("flex-huge", 8, "8Gi", cpu_maxSockets=6, memory_maxGuest="8Gi")
pair("instancetype-maxsockets-within", typed("flex"), typed("flex-big"), [limits, flex_big, flex_huge])
pair("instancetype-maxsockets-beyond", typed("flex"), typed("flex-huge"), [limits, flex_big, flex_huge])
dedicated_type = instancetype("pinned", 2, "4Gi", cpu_dedicatedCPUPlacement=True)
pair("instancetype-to-dedicated", typed("medium"), typed("pinned"), types + [dedicated_type])
hugepages_type = instancetype("huge", 2, "4Gi", memory_hugepages={"pageSize": "2Mi"})
pair("instancetype-to-hugepages", typed("medium"), typed("huge"), types + [hugepages_type])
sockets_pref = preference("sockets", {"cpu": {"preferredCPUTopology": "sockets"}})
cores_pref = preference("cores", {"cpu": {"preferredCPUTopology": "cores"}})
prefs = types + [sockets_pref, cores_pref]
pair(
    "preference-switch-topology",
    typed("medium", pref={"kind": "VirtualMachinePreference", "name": "sockets"}),
    typed("medium", pref={"kind": "VirtualMachinePreference", "name": "cores"}),
    prefs,
)
pair(
    "preference-added",
    typed("medium"),
    typed("medium", pref={"kind": "VirtualMachinePreference", "name": "cores"}),
    prefs,
)
pair(
    "preference-cores-instancetype-bigger",
    typed("small", pref={"kind": "VirtualMachinePreference", "name": "cores"}),
    typed("medium", pref={"kind": "VirtualMachinePreference", "name": "cores"}),
    prefs,
)
pair(
    "instancetype-and-node-selector",
    typed("small"),
    changed(typed("medium"), set_template(nodeSelector=selector)),
    types,
)
pair("instancetype-removed", typed("small"), base, types)
pair(
    "preference-removed",
    typed("medium", pref={"kind": "VirtualMachinePreference", "name": "cores"}),
    typed("medium"),
    prefs,
)
cluster_small = dict(small, kind="VirtualMachineClusterInstancetype", metadata={"name": "c-small"})
cluster_medium = dict(medium, kind="VirtualMachineClusterInstancetype", metadata={"name": "c-medium"})
pair(
    "cluster-instancetype-bigger",
    vm(instancetype={"name": "c-small"}),
    vm(instancetype={"name": "c-medium"}),
    [cluster_small, cluster_medium],
)
pair("machine-type-default-written", base, changed(base, lambda d: domain(d).update(machine={"type": "q35"})))
pair("architecture-default-written", base, changed(base, set_template(architecture="amd64")))
pair("eviction-strategy-default-written", base, changed(base, set_template(evictionStrategy="None")))

# --- LiveUpdate before v1.5: only with the VMLiveUpdateFeatures gate (GA from v1.5) ---------
pair("liveupdate-explicit-memory", base, changed(base, set_memory(guest="4Gi")), live)
pair("liveupdate-explicit-node-selector", base, changed(base, set_template(nodeSelector=selector)), live)
gated = [
    kubevirt(
        {
            "vmRolloutStrategy": "LiveUpdate",
            "developerConfiguration": {"featureGates": ["VMLiveUpdateFeatures"]},
        }
    )
]
pair("liveupdate-gate-sockets", base, changed(base, set_cpu(sockets=2)), gated)
pair("liveupdate-gate-memory", base, changed(base, set_memory(guest="4Gi")), gated)
pair("liveupdate-gate-node-selector", base, changed(base, set_template(nodeSelector=selector)), gated)
pair("liveupdate-gate-hotplug-volume", base, changed(base, add_volume(True)), gated + claims)

# --- other architectures before v1.8: only with the MultiArchitecture gate (Alpha) ----------
multi_arch = [kubevirt({"developerConfiguration": {"featureGates": ["MultiArchitecture"]}})]
pair("arm64-gate-sockets", arm, changed(arm, set_cpu(sockets=2)), multi_arch)
pair("arm64-gate-memory", arm, changed(arm, set_memory(guest="4Gi")), multi_arch)
pair("arm64-gate-node-selector", arm, changed(arm, set_template(nodeSelector=selector)), multi_arch)
pair("arm64-gate-maxsockets-sockets", arm_max, changed(arm_max, set_cpu(sockets=2)), multi_arch)
pair("s390x-gate-sockets", s390x, changed(s390x, set_cpu(sockets=2)), multi_arch)
pair("s390x-gate-memory", s390x, changed(s390x, set_memory(guest="4Gi")), multi_arch)

# --- declarative volume hotplug (Alpha from v1.6, Beta at v1.9) -----------------------------
declarative = [kubevirt({"developerConfiguration": {"featureGates": ["DeclarativeHotplugVolumes"]}})]
pair("declarative-gate-hotplug-volume", base, changed(base, add_volume(True)), declarative + claims)


def write(root):
    """Writes every pair's base.yaml and head.yaml; folders of pairs no longer listed are
    removed, the oracle's expected*.json of the others are kept (regenerate them when a
    pair's files change)."""
    folders = [f"{index:03d}-{name}" for index, (name, _, _) in enumerate(PAIRS, 1)]
    for entry in os.listdir(root):
        path = os.path.join(root, entry)
        if os.path.isdir(path) and entry[:3].isdigit() and entry not in folders:
            shutil.rmtree(path)
    for name, (_, base_docs, head_docs) in zip(folders, PAIRS):
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        for file, docs in (("base.yaml", base_docs), ("head.yaml", head_docs)):
            with open(os.path.join(folder, file), "w") as out:
                yaml.safe_dump_all(docs, out, sort_keys=False)


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
    print(f"{len(PAIRS)} pairs")
