#!/usr/bin/env python3
"""Plot a `kinetrack simulate` run: energy change and hold drift against time.

Usage: plot_simulation.py DATA_CSV OUTPUT_PNG

Reads the CSV `kinetrack simulate --plot PNG` writes beside the PNG (header
`time,energy_change,hold_drift`: s, J, m) and writes a PNG with two panels.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_simulation.py"
HEADER = ["time", "energy_change", "hold_drift"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="data CSV written by `kinetrack simulate --plot`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        rows = read_rows(args.csv, HEADER)
    except OSError as err:
        return fail(SCRIPT, f"{args.csv}: {err.strerror}")
    except ValueError as err:
        return fail(SCRIPT, str(err))
    t, e, g = ([r[k] for r in rows] for k in HEADER)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), dpi=120, sharex=True)
    a1.plot(t, e, linewidth=1.2)
    a1.set_ylabel("energy change [J]")
    a1.set_title("kinetrack simulate: kinetic + potential energy, and how far held links drifted", fontsize=10)
    a1.grid(True, alpha=0.3)
    a2.semilogy(t, [max(x, 1e-16) for x in g], linewidth=1.2, color="tab:red")
    a2.set_ylabel("hold drift [m] (largest so far)")
    a2.set_xlabel("time [s]")
    a2.grid(True, alpha=0.3)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
