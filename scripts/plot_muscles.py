#!/usr/bin/env python3
"""Activations written by `kinetrack muscles` against an OpenSim reference activation file.

Usage: plot_muscles.py OURS_STO REFERENCE_STO OUTPUT_PNG [COLUMN,COLUMN,...]

Both files are OpenSim storage tables (header up to "endheader", then a tab-separated table with a
time column). One panel per column present in both files (a reference column may also be named
"<column>.activation", as in a CMC states file), or only the listed columns: ours as a line,
OpenSim's as dots.

Exit status: 0 written, 2 bad input, 3 matplotlib is not installed (Debian: apt-get install
python3-matplotlib).
"""
import sys

from plot_common import read_sto

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_muscles.py: error: {message}", file=sys.stderr)
    return code


def main():
    if len(sys.argv) not in (4, 5):
        return fail("usage: plot_muscles.py OURS_STO REFERENCE_STO OUTPUT_PNG [COLUMN,COLUMN,...]")
    try:
        ours, ref = read_sto(sys.argv[1]), read_sto(sys.argv[2])
    except (OSError, ValueError) as e:
        return fail(str(e))
    for n in list(ref):
        if n.endswith(".activation"):
            ref[n[: -len(".activation")]] = ref[n]
    names = [n for n in ours if n != "time" and n in ref]
    if len(sys.argv) == 5:
        wanted = sys.argv[4].split(",")
        names = [n for n in wanted if n in names]
    if not names:
        return fail("no column in common")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed", EXIT_NO_MATPLOTLIB)
    cols = min(3, len(names))
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.6 * rows), squeeze=False, sharex=True)
    for k, n in enumerate(names):
        ax = axes[k // cols][k % cols]
        ax.plot(ref["time"], ref[n], ".", color="0.5", markersize=3, label="OpenSim")
        ax.plot(ours["time"], ours[n], "-", color="C0", label="kinetrack")
        ax.set_title(n, fontsize=9)
        ax.grid(alpha=0.3)
    for k in range(len(names), rows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].legend(fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
