#!/usr/bin/env python3
"""Per-digit errors of `kinetrack hand track`: tip and middle-marker error over time, FABRIK
against marker IK (LM) when both ran. Usage: plot_hand.py ERRORS.csv OUT.png
(ERRORS.csv: time,gap, then <solver>_<digit>_tip_mm,<solver>_<digit>_middle_mm; empty = missing)."""
import csv
import math
import sys

from plot_common import fail, require_pyplot, save_png

SCRIPT = "plot_hand.py"
DIGITS = ["thumb", "index", "middle", "ring", "little"]


def read(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header or header[:2] != ["time", "gap"]:
            raise ValueError(f"{path}:1: expected a header starting with time,gap")
        rows = []
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{line}: expected {len(header)} fields, got {len(row)}")
            try:
                rows.append([float(v) if v != "" else math.nan for v in row])
            except ValueError:
                raise ValueError(f"{path}:{line}: not a number in {','.join(row)!r}") from None
    if not rows:
        raise ValueError(f"{path}: no data rows")
    return header, rows


def main(argv):
    if len(argv) != 3:
        return fail(SCRIPT, "usage: plot_hand.py ERRORS.csv OUT.png")
    try:
        header, rows = read(argv[1])
    except (OSError, ValueError) as e:
        return fail(SCRIPT, str(e))
    plt = require_pyplot(SCRIPT)
    col = {name: k for k, name in enumerate(header)}
    solvers = [s for s in ("fabrik", "lm") if f"{s}_index_tip_mm" in col]
    fig, axes = plt.subplots(2, 5, figsize=(16, 6), sharex=True)
    t = [r[0] for r in rows]
    style = {"fabrik": ("tab:blue", "FABRIK"), "lm": ("tab:orange", "marker IK (LM)")}
    for d, digit in enumerate(DIGITS):
        for k, kind in enumerate(("tip", "middle")):
            ax = axes[k][d]
            for s in solvers:
                c = col[f"{s}_{digit}_{kind}_mm"]
                ax.plot(t, [r[c] for r in rows], lw=0.6, color=style[s][0], label=style[s][1])
            ax.set_title(f"{digit}: {kind} marker", fontsize=10)
            if d == 0:
                ax.set_ylabel("model − measured (mm)")
            if k == 1:
                ax.set_xlabel("time (s)")
    axes[0][0].legend(loc="upper right", fontsize=8)
    fig.suptitle("kinetrack hand track on the glove recording (middle markers held out unless targeted)")
    fig.tight_layout()
    return save_png(fig, argv[2], SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
