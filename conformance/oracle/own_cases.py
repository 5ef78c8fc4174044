#!/usr/bin/env python3
"""Regenerate one release's expected outputs of the project's own conformance cases.

Usage: own_cases.py ORACLE_BINARY RELEASE [CASES_DIR]

Runs the oracle (built at the release's tag, see README.md) over
testdata/conformance/own/cases (or CASES_DIR) into a temporary folder, and lays out
testdata/conformance/own/RELEASE/NAME/expected.jsonl (and expected-objects.jsonl when the oracle
writes one) for every case. Folders of cases that no longer exist are removed, so the release's
folder is exactly what the oracle says about the current inputs. A case holding a
VirtualMachinePool is laid out only when the oracle judged its pool (the release's pool
validator takes the pool's version). RELEASE is vX.Y, as `kvlint --kubevirt-version` takes it.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OWN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "testdata", "conformance", "own")
OUTPUTS = ("expected.jsonl", "expected-objects.jsonl")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    oracle, release = sys.argv[1], sys.argv[2]
    cases = sys.argv[3] if len(sys.argv) == 4 else os.path.join(OWN, "cases")
    if not re.fullmatch(r"v[0-9]+\.[0-9]+", release):
        sys.exit(f"release {release!r} is not vX.Y")
    names = sorted(n for n in os.listdir(cases) if os.path.isfile(os.path.join(cases, n, "input.yaml")))
    dest = os.path.join(OWN, release)
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([oracle, "-cases", cases, "-out", out], capture_output=True, text=True)
        last = (run.stdout.strip().splitlines() or [""])[-1]
        if run.returncode != 0 or not last.endswith(" 0 failed"):
            sys.exit(f"the oracle failed (exit {run.returncode}): {last}\n{run.stdout}\n{run.stderr}")
        missing = [n for n in names if not os.path.isfile(os.path.join(out, n, "expected.jsonl"))]
        if missing:
            sys.exit(f"no oracle output for {missing}")
        unjudged = [n for n in names if holds_pool(os.path.join(cases, n)) and not judged_pool(os.path.join(out, n))]
        names = [n for n in names if n not in unjudged]
        os.makedirs(dest, exist_ok=True)
        for stale in sorted(set(os.listdir(dest)) - set(names)):
            shutil.rmtree(os.path.join(dest, stale))
        for name in names:
            target = os.path.join(dest, name)
            os.makedirs(target, exist_ok=True)
            for output in OUTPUTS:
                produced, kept = os.path.join(out, name, output), os.path.join(target, output)
                if os.path.isfile(produced):
                    shutil.copyfile(produced, kept)
                elif os.path.exists(kept):
                    os.remove(kept)
    skipped = f" ({len(unjudged)} pool cases not judged at this release)" if unjudged else ""
    print(f"{release}: {len(names)} cases in {os.path.relpath(dest)}{skipped}")


def holds_pool(case_dir):
    with open(os.path.join(case_dir, "input.yaml")) as f:
        return any(line.rstrip() == "kind: VirtualMachinePool" for line in f)


def judged_pool(out_dir):
    path = os.path.join(out_dir, "expected-objects.jsonl")
    if not os.path.isfile(path):
        return False
    with open(path) as f:
        return any(line.startswith('{"object":"VirtualMachinePool/') for line in f)


if __name__ == "__main__":
    main()
