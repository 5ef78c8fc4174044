#!/usr/bin/env python3
"""Scores `kvlint diff --format json` against KubeVirt's VM controller on the live-update pairs.

    python3 testdata/liveupdate/run.py BIN DIR [-v] [--release vX.Y]

Each pair folder NNN-name/ holds base.yaml and head.yaml (one VirtualMachine and the objects it
uses) and expected.json, written by the oracle (conformance/oracle, `-liveupdate`). The two
files are copied to base/vm.yaml and head/vm.yaml of a temporary folder and compared with
`BIN diff BASE HEAD --format json`. A pair passes when kvlint's verdict for the VM agrees with
the controller's:

- the update is refused by the webhooks   -> effect.kind `rejected`;
- the VM gets `RestartRequired`            -> `restart-required`, with KubeVirt's message as
                                              the reason (`needs a restart (RestartRequired:
                                              MESSAGE)`);
- otherwise                                -> `live-update`, `no-restart`, `none` or
                                              `keeps-revision`;

and, unless rejected, the parts kvlint says are applied to the running VM (`applied live`
details) are those the controller changed on the VMI: CPU sockets, guest memory, node
placement (nodeSelector, affinity and tolerations count as one), volumes, interfaces. The last
line is `N passed, M failed`.

`--release vX.Y` scores against `expected-vX.Y.json` (the oracle built at that release) with
`--kubevirt-version vX.Y`; without it, `expected.json` (v1.9) and kvlint's default release.
"""

import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NO_RESTART = {"live-update", "no-restart", "none", "keeps-revision"}
RESTART_PREFIX = "needs a restart (RestartRequired: "
PLACEMENT = {"nodeSelector", "affinity", "tolerations"}


def expected_verdict(oracle):
    """(kind class, restart reason, live parts) from expected.json; None when the pair says
    nothing about an update (the base VM was refused or did not start)."""
    if not oracle["base_admission"].get("allowed") or not oracle.get("started"):
        return None
    update = oracle.get("update_admission") or {}
    if not update.get("allowed"):
        return ("rejected", None, set())
    live = set()
    for field in oracle.get("live_updated", []):
        if field in PLACEMENT:
            live.add("placement")
        elif field == "cpu.sockets":
            live.add("sockets")
        elif field == "memory.guest":
            live.add("memory")
        elif field == "volumes":
            live.add("volumes")
        else:
            live.add(field)
    if oracle.get("restart_required") is not None:
        return ("restart-required", oracle["restart_required"], live)
    return ("no-restart", None, live)


# What kvlint's effect details say is applied to the running VM.
LIVE_DETAILS = [
    (re.compile(r"^(applied live: )?CPU sockets "), "sockets"),
    (re.compile(r"^(applied live: )?guest memory "), "memory"),
    (re.compile(r"^(applied live: )?node placement"), "placement"),
    (re.compile(r"^(applied live: )?hotpluggable volumes"), "volumes"),
    (re.compile(r"^(applied live: )?volumes moved to their new claims"), "volumes"),
    (re.compile(r"^(applied live: )?network interfaces hotplugged"), "interfaces"),
]


def kvlint_live(effect):
    """The parts kvlint applies live: every detail of a `live-update` effect, and the details
    marked `applied live:` of a `restart-required` one."""
    live = set()
    for detail in effect.get("details", []):
        if effect["kind"] != "live-update" and not detail.startswith("applied live: "):
            continue
        for pattern, part in LIVE_DETAILS:
            if pattern.match(detail):
                live.add(part)
    return live


def kvlint_verdict(binary, folder, release):
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("base", "head"):
            os.makedirs(os.path.join(tmp, side))
            shutil.copy(os.path.join(folder, f"{side}.yaml"), os.path.join(tmp, side, "vm.yaml"))
        run = subprocess.run(
            [binary, "diff", "base", "head", "--format", "json"]
            + (["--kubevirt-version", release] if release else []),
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=120,
        )
    if run.returncode not in (0, 1):
        return None, f"exit {run.returncode}: {run.stderr.strip()[:300]}"
    try:
        diff = json.loads(run.stdout)
    except json.JSONDecodeError as err:
        return None, f"not JSON: {err}"
    vms = [vm for vm in diff.get("vms", []) if vm.get("kind") == "VirtualMachine"]
    if len(vms) != 1:
        return None, f"{len(vms)} VMs in the diff"
    return vms[0]["effect"], None


def judge(expected, effect):
    kind, reason, live = expected
    got = effect["kind"]
    if kind == "rejected":
        return None if got == "rejected" else f"kind {got}, KubeVirt refuses the update"
    if kind == "restart-required":
        if got != "restart-required":
            return f"kind {got}, KubeVirt sets RestartRequired: {reason}"
        message = effect.get("message", "")
        want = f"{RESTART_PREFIX}{reason})"
        if message != want:
            return f"reason {message!r}, KubeVirt: {reason!r}"
    elif got not in NO_RESTART:
        return f"kind {got}, KubeVirt applies it without a restart (live: {sorted(live)})"
    got_live = kvlint_live(effect)
    if got_live != live:
        return f"live parts {sorted(got_live)}, KubeVirt changed {sorted(live)} on the VMI"
    return None


def main():
    argv = sys.argv[1:]
    release = None
    if "--release" in argv:
        at = argv.index("--release")
        release = argv[at + 1] if at + 1 < len(argv) else None
        del argv[at : at + 2]
        if not release:
            print("--release needs a release (v1.8)", file=sys.stderr)
            return 2
    args = [a for a in argv if not a.startswith("-")]
    verbose = "-v" in argv
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    binary, root = os.path.abspath(args[0]), args[1]
    scored = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        expected_file = os.path.join(folder, f"expected-{release}.json" if release else "expected.json")
        if not os.path.isfile(expected_file):
            continue
        with open(expected_file) as f:
            expected = expected_verdict(json.load(f))
        if expected is not None:
            scored.append((name, folder, expected))
    # One kvlint process per pair, as many at once as there are CPUs; reported in pair order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        verdicts = list(pool.map(lambda pair: kvlint_verdict(binary, pair[1], release), scored))
    passed = failed = 0
    for (name, _, expected), (effect, error) in zip(scored, verdicts):
        problem = error or judge(expected, effect)
        if problem:
            failed += 1
            print(f"FAIL {name}: {problem}")
            if verbose and effect:
                print(f"     kvlint: {effect['kind']}: {effect.get('message')} {effect.get('details')}")
        else:
            passed += 1
            if verbose:
                print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
