#!/usr/bin/env python3
"""Writes a Kustomize repository for the units benchmark: BASES bases of one VM each and
OVERLAYS overlays spread over them (namespace, namePrefix, a strategic-merge patch file and an
inline JSON 6902 patch each), plus a platform unit with the instance types they use.

    benches/gen_overlays.py DIR [--bases 100] [--overlays 500]
"""

import argparse
import os

VM = """apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{b}
  labels:
    app: vm-{b}
spec:
  runStrategy: Always
  instancetype:
    name: bench.small
  template:
    spec:
      architecture: amd64
      domain:
        machine:
          type: q35
        devices: {{}}
      volumes:
        - name: rootdisk
          containerDisk:
            image: quay.io/containerdisks/fedora:41
"""

BASE = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - vm.yaml
"""

OVERLAY = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: team-{o}
namePrefix: o{o}-
resources:
  - ../../bases/b{b}
patches:
  - path: size.yaml
  - target:
      kind: VirtualMachine
    patch: |-
      - op: add
        path: /metadata/labels/overlay
        value: o{o}
"""

SIZE = """apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{b}
spec:
  instancetype:
    name: bench.{size}
"""

PLATFORM = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - instancetypes.yaml
"""

INSTANCETYPES = "".join(
    """---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: bench.{name}
spec:
  cpu:
    guest: {cpu}
  memory:
    guest: {memory}
""".format(name=name, cpu=cpu, memory=memory)
    for name, cpu, memory in [("small", 1, "2Gi"), ("medium", 2, "4Gi"), ("large", 4, "8Gi")]
)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--bases", type=int, default=100)
    parser.add_argument("--overlays", type=int, default=500)
    args = parser.parse_args()
    write(os.path.join(args.dir, "platform", "kustomization.yaml"), PLATFORM)
    write(os.path.join(args.dir, "platform", "instancetypes.yaml"), INSTANCETYPES)
    for b in range(args.bases):
        base = os.path.join(args.dir, "bases", "b%d" % b)
        write(os.path.join(base, "kustomization.yaml"), BASE)
        write(os.path.join(base, "vm.yaml"), VM.format(b=b))
    sizes = ["small", "medium", "large"]
    for o in range(args.overlays):
        b = o % args.bases
        overlay = os.path.join(args.dir, "overlays", "o%d" % o)
        write(os.path.join(overlay, "kustomization.yaml"), OVERLAY.format(o=o, b=b))
        write(os.path.join(overlay, "size.yaml"), SIZE.format(b=b, size=sizes[o % 3]))


if __name__ == "__main__":
    main()
