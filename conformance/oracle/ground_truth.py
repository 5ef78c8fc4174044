#!/usr/bin/env python3
"""Lay out the oracle's output for the shared cases as a ground-truth set of this project.

Usage: ground_truth.py SHARED_DIR ORACLE_OUT_DIR DEST_DIR

For each case folder of SHARED_DIR/conformance/cases, DEST_DIR/NAME gets the oracle's
expected.jsonl, an inputs.txt naming the shared input (conformance/cases/NAME/input.yaml,
relative to SHARED_DIR, as the conformance runner reads it) and an empty uses-catalog when the
shared case has one. The inputs are never copied.
"""
import os
import shutil
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    shared, oracle_out, dest = sys.argv[1:]
    cases = os.path.join(shared, "conformance", "cases")
    missing = []
    for name in sorted(os.listdir(cases)):
        case = os.path.join(cases, name)
        if not os.path.isfile(os.path.join(case, "input.yaml")):
            continue
        produced = os.path.join(oracle_out, name, "expected.jsonl")
        if not os.path.isfile(produced):
            missing.append(name)
            continue
        target = os.path.join(dest, name)
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(produced, os.path.join(target, "expected.jsonl"))
        with open(os.path.join(target, "inputs.txt"), "w", encoding="utf-8") as fh:
            fh.write(f"conformance/cases/{name}/input.yaml\n")
        marker = os.path.join(target, "uses-catalog")
        if os.path.exists(os.path.join(case, "uses-catalog")):
            open(marker, "w").close()
        elif os.path.exists(marker):
            os.remove(marker)
    for name in missing:
        print(f"no oracle output for {name}", file=sys.stderr)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
