#!/usr/bin/env python3
"""Plot a `kinetrack dynamics filter` run: residual base force and moment before and after the
filter, the filter's contact forces (against the force plates when given) and the height of the
root body, input vs filtered.

Usage: plot_dynamics_filter.py DATA_CSV OUTPUT_PNG

Reads the per-frame CSV `kinetrack dynamics filter --report-csv/--plot` writes (header `time,
status,contacts,force_before,force_after,moment_before,moment_after,root_up_input,
root_up_filtered`, then `<link>_fx,_fy,_fz` per contact body, each followed by
`plate_<link>_fx,_fy,_fz` when plates were given; N, N m, m) and writes a PNG with four panels.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import csv
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_dynamics_filter.py"
FIXED = ["time", "status", "contacts", "force_before", "force_after", "moment_before", "moment_after",
         "root_up_input", "root_up_filtered"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="per-frame CSV written by `kinetrack dynamics filter`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        with open(args.csv, newline="") as f:
            header = next(csv.reader(f), [])
        if header[:len(FIXED)] != FIXED or (len(header) - len(FIXED)) % 3:
            return fail(SCRIPT, f"{args.csv}:1: expected a header starting {','.join(FIXED)!r}")
        rows = read_rows(args.csv, header, text_columns=("status",))
    except OSError as err:
        return fail(SCRIPT, f"{args.csv}: {err.strerror}")
    except ValueError as err:
        return fail(SCRIPT, str(err))
    t = [r["time"] for r in rows]
    bodies = [h[:-3] for h in header[len(FIXED)::3]]
    # The vertical axis: the component carrying most of the filter's contact force.
    sums = [sum(abs(r[f"{b}_f{a}"]) for r in rows for b in bodies if not b.startswith("plate_")) for a in "xyz"]
    up = "xyz"[sums.index(max(sums))]
    fig, axes = plt.subplots(4, 1, figsize=(9, 10), dpi=110, sharex=True)
    floor = 1e-9
    for ax, key, unit in ((axes[0], "force", "N"), (axes[1], "moment", "N m")):
        ax.semilogy(t, [max(r[f"{key}_before"], floor) for r in rows],
                    label="before (reference; with the plates, or the best feasible contacts)")
        ax.semilogy(t, [max(r[f"{key}_after"], floor) for r in rows], label="after the filter")
        ax.set_ylabel(f"|residual {key}| [{unit}]")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[0].set_title("kinetrack dynamics filter: residual base wrench, contact forces, root height", fontsize=10)
    for b in bodies:
        plate = b.startswith("plate_")
        axes[2].plot(t, [r[f"{b}_f{up}"] for r in rows], linestyle="--" if plate else "-", linewidth=1.1,
                     label=(b.replace("plate_", "") + " plate") if plate else b + " filter")
    axes[2].set_ylabel(f"vertical contact force ({up}) [N]")
    axes[2].grid(True, alpha=0.3)
    axes[2].legend(fontsize=8, loc="upper right")
    axes[3].plot(t, [r["root_up_input"] for r in rows], label="input")
    axes[3].plot(t, [r["root_up_filtered"] for r in rows], label="filtered")
    axes[3].set_ylabel("root height [m]")
    axes[3].set_xlabel("time [s]")
    axes[3].grid(True, alpha=0.3)
    axes[3].legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
