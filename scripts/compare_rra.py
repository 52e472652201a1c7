#!/usr/bin/env python3
"""Compare a `kinetrack dynamics filter` run on gait2354 with OpenSim's RRA (docs/dynamics_filter.md).

Usage: compare_rra.py IK_MOT FILTERED_MOT ID_RAW_STO ID_FILTERED_STO RRA_DIR [START END]

Prints, over RRA's time window (default 0.75–1.25 s):
- pelvis residuals (RMS over time of |force| N and |moment| N m; the pelvis_t*_force and
  pelvis_{tilt,list,rotation}_moment columns) of our inverse dynamics with the measured plates on
  the raw IK and on the filtered motion, and RRA's residual actuators (FX FY FZ, MX MY MZ of
  *_RRA_Actuation_force.sto);
- the kinematic change: per-coordinate RMS (deg; m for pelvis_t*) of the filtered motion and of
  RRA's *_RRA_Kinematics_q.sto against the IK input, interpolated to common times, and their
  means over the rotational coordinates.

Exit status: 0, 2 bad input (missing file or column).
"""
import sys

import numpy as np


def read_sto(path):
    """(columns, times, values) of an OpenSim .mot/.sto; angles are left as written."""
    with open(path) as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip().lower() == "endheader") + 1
    header = lines[start].split()
    data = np.array([[float(x) for x in l.split()] for l in lines[start + 1:] if l.strip()])
    degrees = any("indegrees=yes" in l.replace(" ", "").lower() for l in lines[:start])
    return header[1:], data[:, 0], data[:, 1:], degrees


def window(t, lo, hi):
    return (t >= lo - 1e-9) & (t <= hi + 1e-9)


def pelvis_residual_rms(path, lo, hi):
    cols, t, v, _ = read_sto(path)
    w = window(t, lo, hi)
    f = np.column_stack([v[w, cols.index(f"pelvis_t{a}_force")] for a in "xyz"])
    m = np.column_stack([v[w, cols.index(f"pelvis_{a}_moment")] for a in ("tilt", "list", "rotation")])
    return np.sqrt(np.mean(np.sum(f * f, 1))), np.sqrt(np.mean(np.sum(m * m, 1)))


def change(ik, other, lo, hi):
    ci, ti, vi, di = ik
    co, to, vo, do = other
    w = window(to, lo, hi)
    out = {}
    for j, c in enumerate(ci):
        if c not in co:
            continue
        a = np.interp(to[w], ti, vi[:, j]) * (1.0 if di else 180.0 / np.pi)
        b = vo[w, co.index(c)] * (1.0 if do else 180.0 / np.pi)
        if c.startswith("pelvis_t"):  # metres: undo the degree scaling
            a = np.interp(to[w], ti, vi[:, j])
            b = vo[w, co.index(c)]
        out[c] = np.sqrt(np.mean((a - b) ** 2))
    return out


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    ik_path, filt_path, id_raw, id_filt, rra_dir = argv[:5]
    lo, hi = (float(argv[5]), float(argv[6])) if len(argv) >= 7 else (0.75, 1.25)
    try:
        raw = pelvis_residual_rms(id_raw, lo, hi)
        filt = pelvis_residual_rms(id_filt, lo, hi)
        cols, t, v, _ = read_sto(f"{rra_dir}/subject01_walk1_RRA_Actuation_force.sto")
        w = window(t, lo, hi)
        F = np.column_stack([v[w, cols.index(c)] for c in ("FX", "FY", "FZ")])
        M = np.column_stack([v[w, cols.index(c)] for c in ("MX", "MY", "MZ")])
        rra = (np.sqrt(np.mean(np.sum(F * F, 1))), np.sqrt(np.mean(np.sum(M * M, 1))))
        ik = read_sto(ik_path)
        ours = change(ik, read_sto(filt_path), lo, hi)
        theirs = change(ik, read_sto(f"{rra_dir}/subject01_walk1_RRA_Kinematics_q.sto"), lo, hi)
    except (OSError, ValueError, StopIteration) as err:
        print(f"compare_rra.py: error: {err}", file=sys.stderr)
        return 2
    print(f"window {lo:g}-{hi:g} s: pelvis residual RMS |force| N / |moment| N m")
    print(f"  raw IK + plates (our ID)        {raw[0]:8.2f} / {raw[1]:8.2f}")
    print(f"  filtered + plates (our ID)      {filt[0]:8.2f} / {filt[1]:8.2f}")
    print(f"  RRA residual actuators          {rra[0]:8.2f} / {rra[1]:8.2f}")
    print("kinematic change vs IK, RMS (deg; m for pelvis_t*): coordinate, filter, RRA")
    rot = [c for c in ours if c in theirs and not c.startswith("pelvis_t")]
    for c in ours:
        if c in theirs:
            print(f"  {c:20s} {ours[c]:8.3f} {theirs[c]:8.3f}")
    print(f"  mean over {len(rot)} rotational   {np.mean([ours[c] for c in rot]):8.3f} "
          f"{np.mean([theirs[c] for c in rot]):8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
