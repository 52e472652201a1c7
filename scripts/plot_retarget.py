#!/usr/bin/env python3
"""Plot a retargeted robot motion like DYN Fig. 3: joint angles and joint velocities against the
robot's position and velocity limits.

Usage: plot_retarget.py JOINTS_CSV LIMITS_CSV OUTPUT_PNG [--title TEXT] [--joints a,b,...]

JOINTS_CSV is the joint trajectory written by `kinetrack retarget --out` (time, base_x..base_qz,
one column per joint, gap). LIMITS_CSV has the header `joint,lower,upper,velocity` (rad, rad/s;
written by `kinetrack retarget --plot`). Velocities are central differences of the angles. The
default joints are the right arm and the torso (the coupled, velocity-limited joints of the
iCub), else the first six joints.

Exit status: 0 written, 2 bad input, 3 matplotlib is not installed (Debian: apt-get install
python3-matplotlib).
"""
import argparse
import csv
import math
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
DEFAULT_JOINTS = ["r_shoulder_pitch", "r_shoulder_roll", "r_shoulder_yaw", "r_elbow", "torso_pitch", "torso_yaw"]


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_retarget.py: error: {message}", file=sys.stderr)
    return code


def read_table(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    if len(rows) < 2:
        raise ValueError(f"{path}: no data rows")
    header, data = rows[0], rows[1:]
    columns = {name: [] for name in header}
    for line, r in enumerate(data, start=2):
        if len(r) != len(header):
            raise ValueError(f"{path}:{line}: expected {len(header)} fields, got {len(r)}")
        for name, value in zip(header, r):
            columns[name].append(value)
    return header, columns


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("joints_csv")
    ap.add_argument("limits_csv")
    ap.add_argument("png")
    ap.add_argument("--title", default="")
    ap.add_argument("--joints", default="")
    a = ap.parse_args()
    try:
        header, cols = read_table(a.joints_csv)
        _, lim = read_table(a.limits_csv)
        t = [float(v) for v in cols["time"]]
        limits = {j: (float(lo), float(hi), float(v)) for j, lo, hi, v in
                  zip(lim["joint"], lim["lower"], lim["upper"], lim["velocity"])}
    except (OSError, ValueError, KeyError) as e:
        return fail(str(e))
    names = [j for j in (a.joints.split(",") if a.joints else DEFAULT_JOINTS) if j in cols]
    if not names:
        names = [h for h in header if h in limits][:6]
    if not names:
        return fail("no joint column to plot")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed", EXIT_NO_MATPLOTLIB)
    deg = 180.0 / math.pi
    fig, axes = plt.subplots(2, len(names), figsize=(3.0 * len(names), 5.5), sharex=True, squeeze=False)
    for k, name in enumerate(names):
        q = [float(v) for v in cols[name]]
        v = [0.0] * len(q)
        for i in range(len(q)):
            i0, i1 = max(i - 1, 0), min(i + 1, len(q) - 1)
            v[i] = (q[i1] - q[i0]) / (t[i1] - t[i0]) if t[i1] > t[i0] else 0.0
        lo, hi, vmax = limits.get(name, (-math.inf, math.inf, math.inf))
        ax = axes[0][k]
        ax.plot(t, [x * deg for x in q], color="tab:blue", lw=1.2)
        for bound in (lo, hi):
            if math.isfinite(bound):
                ax.axhline(bound * deg, color="tab:red", ls="--", lw=1.0)
        ax.set_title(name, fontsize=9)
        ax.set_ylabel("angle (deg)" if k == 0 else "")
        ax = axes[1][k]
        ax.plot(t, [x * deg for x in v], color="tab:green", lw=1.0)
        if math.isfinite(vmax) and vmax < 1e3:
            for bound in (-vmax, vmax):
                ax.axhline(bound * deg, color="tab:red", ls="--", lw=1.0)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("velocity (deg/s)" if k == 0 else "")
    fig.suptitle(a.title or "retargeted joint trajectories (red: limits)")
    fig.tight_layout()
    try:
        fig.savefig(a.png, dpi=110)
    except OSError as e:
        return fail(f"{a.png}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
