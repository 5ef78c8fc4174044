#!/usr/bin/env python3
"""Compare the oracle's output with committed expected outputs, case by case.

Usage: compare.py EXPECTED_CASES_DIR ORACLE_OUT_DIR [-v] [--vms-only]

For each case folder of EXPECTED_CASES_DIR: expected.jsonl (and expected-objects.jsonl when
either side has one, unless --vms-only: the older releases' shared sets carry no
expected-objects.jsonl) are compared byte for byte; when they differ, the lines are compared as
JSON and the first difference is shown as a path with both values. The last line is
"N identical, M semantically equal, K differing, L missing".
"""
import json
import os
import sys


def first_difference(a, b, path=""):
    """The first path (a.b[0].c) where two JSON values differ, with both sides."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            where = f"{path}.{key}" if path else key
            if key not in a:
                return where, "<absent>", b[key]
            if key not in b:
                return where, a[key], "<absent>"
            found = first_difference(a[key], b[key], where)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}.length", len(a), len(b)
        return None
    if type(a) is not type(b) or a != b:
        return path or "<root>", a, b
    return None


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


def compare_file(name, expected, actual):
    """'identical', 'semantic' or a description of the first difference."""
    if expected == actual:
        return "identical"
    if expected is None or actual is None:
        return f"{name}: only in {'oracle output' if expected is None else 'expected'}"
    want = [json.loads(line) for line in expected.decode().splitlines() if line.strip()]
    got = [json.loads(line) for line in actual.decode().splitlines() if line.strip()]
    if want == got:
        return "semantic"
    if len(want) != len(got):
        return f"{name}: {len(want)} lines expected, {len(got)} produced"
    for index, (w, g) in enumerate(zip(want, got)):
        found = first_difference(w, g)
        if found:
            where, a, b = found
            return (f"{name} line {index + 1}: {where}: expected {json.dumps(a)[:300]}"
                    f" oracle {json.dumps(b)[:300]}")
    return f"{name}: differ"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv[1:]
    names = ("expected.jsonl",) if "--vms-only" in sys.argv[1:] else ("expected.jsonl", "expected-objects.jsonl")
    if len(args) != 2:
        sys.exit(__doc__)
    expected_dir, actual_dir = args
    counts = {"identical": 0, "semantic": 0, "differing": 0, "missing": 0}
    for case in sorted(os.listdir(expected_dir)):
        case_dir = os.path.join(expected_dir, case)
        if not os.path.isdir(case_dir):
            continue
        out_dir = os.path.join(actual_dir, case)
        if not os.path.isdir(out_dir):
            counts["missing"] += 1
            print(f"MISSING {case}")
            continue
        results = [compare_file(name, read(os.path.join(case_dir, name)), read(os.path.join(out_dir, name)))
                   for name in names]
        differing = [r for r in results if r not in ("identical", "semantic")]
        if differing:
            counts["differing"] += 1
            print(f"DIFF {case}")
            for r in differing:
                print(f"  {r}")
        elif "semantic" in results:
            counts["semantic"] += 1
            if verbose:
                print(f"SEMANTIC {case}")
        else:
            counts["identical"] += 1
            if verbose:
                print(f"SAME {case}")
    print(f"{counts['identical']} identical, {counts['semantic']} semantically equal, "
          f"{counts['differing']} differing, {counts['missing']} missing")
    sys.exit(1 if counts["differing"] or counts["missing"] else 0)


if __name__ == "__main__":
    main()
