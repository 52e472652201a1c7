#!/usr/bin/env python3
"""Overlay of two inverse-dynamics results in OpenSim's .sto layout (ours and a reference).

Usage: plot_opensim_id.py OURS_STO REFERENCE_STO OUTPUT_PNG

One panel per column of OURS_STO that REFERENCE_STO also has (`<coordinate>_moment` in N m,
`<coordinate>_force` in N), ours as a line, the reference as dots, the RMS difference in the title.

Exit status: 0 written, 2 bad input, 3 matplotlib is not installed (Debian: apt-get install
python3-matplotlib).
"""
import math
import sys

import plot_common

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_opensim_id.py: error: {message}", file=sys.stderr)
    return code


def read_sto(path):
    """(columns, rows) of a .mot/.sto (plot_common.read_sto's columns as rows)."""
    cols = plot_common.read_sto(path)
    return list(cols), [list(r) for r in zip(*cols.values())]


def interp(t, ts, ys):
    if t <= ts[0]:
        return ys[0]
    if t >= ts[-1]:
        return ys[-1]
    lo, hi = 0, len(ts) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ts[mid] <= t:
            lo = mid
        else:
            hi = mid
    w = (t - ts[lo]) / (ts[hi] - ts[lo])
    return (1 - w) * ys[lo] + w * ys[hi]


def main():
    if len(sys.argv) != 4:
        return fail("usage: plot_opensim_id.py OURS_STO REFERENCE_STO OUTPUT_PNG")
    try:
        ours_cols, ours = read_sto(sys.argv[1])
        ref_cols, ref = read_sto(sys.argv[2])
    except (OSError, ValueError) as e:
        return fail(str(e))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed", EXIT_NO_MATPLOTLIB)
    names = [c for c in ours_cols[1:] if c in ref_cols]
    if not names:
        return fail("no column in common")
    ncol = 4 if len(names) > 4 else len(names)
    nrow = math.ceil(len(names) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 2.4 * nrow), squeeze=False)
    t = [r[0] for r in ours]
    rt = [r[0] for r in ref]
    for k, name in enumerate(names):
        ax = axes[k // ncol][k % ncol]
        y = [r[ours_cols.index(name)] for r in ours]
        ry = [r[ref_cols.index(name)] for r in ref]
        rms = math.sqrt(sum((yi - interp(ti, rt, ry)) ** 2 for ti, yi in zip(t, y)) / len(t))
        ax.plot(rt, ry, "o", ms=3, color="0.6", label="reference")
        ax.plot(t, y, "-", lw=1.2, color="C0", label="kinetrack")
        unit = "N" if name.endswith("_force") else "N m"
        ax.set_title(f"{name} ({unit})\nRMS diff {rms:.4f}", fontsize=8)
        ax.tick_params(labelsize=7)
    for k in range(len(names), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main())
