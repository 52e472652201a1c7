#!/usr/bin/env python3
"""Plot a `kinetrack simulate` run: energy change and hold drift against time.

Usage: plot_simulation.py DATA_CSV OUTPUT_PNG

Reads the CSV `kinetrack simulate --plot PNG` writes beside the PNG (header
`time,energy_change,hold_drift`: s, J, m) and writes a PNG with two panels.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import csv
import os
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
HEADER = ["time", "energy_change", "hold_drift"]


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_simulation.py: error: {message}", file=sys.stderr)
    return code


def read(path):
    """Returns three lists (time, energy change, hold drift); raises ValueError naming file and line."""
    cols = ([], [], [])
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != HEADER:
            raise ValueError(f"{path}:1: expected header {','.join(HEADER)!r}, got {','.join(header or [])!r}")
        for line, row in enumerate(reader, start=2):
            if len(row) != 3:
                raise ValueError(f"{path}:{line}: expected 3 fields, got {len(row)}")
            try:
                for c, x in zip(cols, row):
                    c.append(float(x))
            except ValueError:
                raise ValueError(f"{path}:{line}: not a number in {','.join(row)!r}") from None
    if not cols[0]:
        raise ValueError(f"{path}: no data rows")
    return cols


def save(fig, png):
    """Writes beside the target and renames: never a partial PNG."""
    out_dir = os.path.dirname(os.path.abspath(png))
    tmp = os.path.join(out_dir, f".{os.path.basename(png)}.tmp{os.getpid()}.png")
    try:
        fig.savefig(tmp)
        os.replace(tmp, png)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return fail(f"{png}: cannot write: {e.strerror}")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="data CSV written by `kinetrack simulate --plot`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed (Debian: apt-get install python3-matplotlib)", EXIT_NO_MATPLOTLIB)
    try:
        t, e, g = read(args.csv)
    except OSError as err:
        return fail(f"{args.csv}: {err.strerror}")
    except ValueError as err:
        return fail(str(err))
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
    return save(fig, args.png)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
