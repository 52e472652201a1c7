#!/usr/bin/env python3
"""Compares the outputs of two kinetrack builds (scripts/compare_builds.sh): WORK/old, WORK/old2
(a second run of the old build) and WORK/new hold one directory per case plus its .stdout,
.stderr and .exit. A file is the same when its bytes are; a file whose bytes differ between the
two old runs (timings) is the same when it is once the parts that moved between those runs are
left out: JSON keys, CSV columns, or lines of other text. For a differing text file the largest
numeric difference is printed. Exit 1 when anything differs."""
import argparse
import json
import os
import re
import sys

# Lines of printed output (stdout, stderr, logs) that report times: left out of their comparison.
TIMING = re.compile(r"\bus\b|us\]|µs|wall|frames/s|per second|\bin [0-9.]+ ?s\b|[0-9] s\b|seconds|time \(s\)", re.I)
PRINTED = (".stdout", ".stderr", ".log")
# JSON keys that are times: left out of every JSON comparison.
TIMING_KEY = re.compile(r"(^|_)us(_|$)|seconds|per_second|wall|_ms$|^time_", re.I)


def drop_timing(j):
    if isinstance(j, dict):
        return {k: drop_timing(v) for k, v in j.items() if not TIMING_KEY.search(k)}
    if isinstance(j, list):
        return [drop_timing(v) for v in j]
    return j
NUM = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", re.I)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def strip_json(a, b, c):
    """a with the parts removed where a and b (the two old runs) differ; c likewise."""
    if isinstance(a, dict) and isinstance(b, dict) and isinstance(c, dict):
        ra, rc = {}, {}
        for k in set(a) | set(c):
            if k in a and k in b and a[k] != b[k] and not (isinstance(a[k], (dict, list))):
                continue
            if k in a and k in b and k in c:
                ra[k], rc[k] = strip_json(a[k], b[k], c[k])
            else:
                ra[k], rc[k] = a.get(k), c.get(k)
        return ra, rc
    if isinstance(a, list) and isinstance(b, list) and isinstance(c, list) and len(a) == len(b) == len(c):
        pairs = [strip_json(x, y, z) for x, y, z in zip(a, b, c)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if a != b:
        return None, None
    return a, c


def strip_text(a, b, c):
    la, lb, lc = a.splitlines(), b.splitlines(), c.splitlines()
    if len(la) != len(lb) or len(la) != len(lc):
        return la, lc
    sep = "," if la and la[0].count(",") > 0 else ("\t" if la and "\t" in la[0] else None)
    if sep is not None and all(len(x.split(sep)) == len(y.split(sep)) == len(z.split(sep))
                               for x, y, z in zip(la, lb, lc)):
        moving = set()
        for x, y in zip(la, lb):
            fx, fy = x.split(sep), y.split(sep)
            moving |= {i for i in range(len(fx)) if fx[i] != fy[i]}
        keep = lambda line: sep.join(f for i, f in enumerate(line.split(sep)) if i not in moving)
        return [keep(x) for x in la], [keep(z) for z in lc]
    idx = [i for i in range(len(la)) if la[i] != lb[i]]
    return [x for i, x in enumerate(la) if i not in idx], [z for i, z in enumerate(lc) if i not in idx]


def max_numeric_difference(a, c):
    worst = 0.0
    for x, z in zip(a.splitlines(), c.splitlines()):
        nx, nz = NUM.findall(x), NUM.findall(z)
        if len(nx) != len(nz):
            return None
        for p, q in zip(nx, nz):
            try:
                d = abs(float(p) - float(q))
            except ValueError:
                return None
            if d == d:
                worst = max(worst, d)
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    old, old2, new = (os.path.join(args.work, t) for t in ("old", "old2", "new"))
    only = re.compile(args.only) if args.only else None
    names = set()
    for root in (old, new):
        for dirpath, _, files in os.walk(root):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                if only and not only.search(rel.split(os.sep)[0]):
                    continue
                if not rel.endswith(".png"):
                    names.add(rel)
    same = volatile_same = 0
    differing = []
    for rel in sorted(names):
        a, b, c = (read(os.path.join(r, rel)) for r in (old, old2, new))
        if a is not None and a == c:
            same += 1
            continue
        if a is None or c is None:
            differing.append(f"{rel}: only in {'new' if a is None else 'old'}")
            continue
        if rel.endswith(PRINTED):
            try:
                keep = lambda t: [x for x in t.decode().splitlines() if not TIMING.search(x)]
                if keep(a) == keep(c):
                    volatile_same += 1
                    continue
            except UnicodeDecodeError:
                pass
        if rel.endswith(".json"):
            try:
                if drop_timing(json.loads(a)) == drop_timing(json.loads(c)):
                    volatile_same += 1
                    continue
            except ValueError:
                pass
        if b is not None and a != b:
            try:
                if rel.endswith(".json"):
                    x, z = strip_json(json.loads(a), json.loads(b), json.loads(c))
                else:
                    x, z = strip_text(a.decode(), b.decode(), c.decode())
                if x == z:
                    volatile_same += 1
                    continue
            except (ValueError, UnicodeDecodeError):
                pass
        try:
            d = max_numeric_difference(a.decode(), c.decode())
            detail = f"largest numeric difference {d:.3g}" if d is not None else "text differs"
        except UnicodeDecodeError:
            detail = "binary differs"
        differing.append(f"{rel}: {detail}")
    for d in differing:
        print("differs:", d)
    print(f"compare_outputs.py: {same} identical, {volatile_same} identical but for timings, "
          f"{len(differing)} differing files")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
