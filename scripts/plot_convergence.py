#!/usr/bin/env python3
"""Plot the DYN Fig. 8 convergence experiment: log10 MNTE against time, one line per gain K.

Usage: plot_convergence.py CONVERGENCE_CSV OUTPUT_PNG [--title TEXT]

Reads the CSV written by `kinetrack experiment convergence` (header `time,gain,mnte`, rows grouped
by gain) and writes a PNG. MNTE values of 0 are clipped to 1e-16 for the log scale. Curves with
K*dt >= 2 (the discrete loop is unstable, DYN Remark 2) are drawn dashed and marked in the legend.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import csv
import math
import os
import sys

MNTE_FLOOR = 1e-16
EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_convergence.py: error: {message}", file=sys.stderr)
    return code


def read_runs(path):
    """Returns [(gain, [time], [mnte])] in file order; raises ValueError naming file and line."""
    runs = {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != ["time", "gain", "mnte"]:
            raise ValueError(f"{path}:1: expected header 'time,gain,mnte', got {','.join(header or [])!r}")
        for line, row in enumerate(reader, start=2):
            if len(row) != 3:
                raise ValueError(f"{path}:{line}: expected 3 fields, got {len(row)}")
            try:
                t, k, e = (float(x) for x in row)
            except ValueError:
                raise ValueError(f"{path}:{line}: not a number in {','.join(row)!r}") from None
            times, values = runs.setdefault(k, ([], []))
            times.append(t)
            values.append(e)
    if not runs:
        raise ValueError(f"{path}: no data rows")
    return [(k, t, e) for k, (t, e) in runs.items()]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="convergence.csv from `kinetrack experiment convergence`")
    parser.add_argument("png", help="output PNG")
    parser.add_argument("--title", default="", help="subtitle (model, rate)")
    args = parser.parse_args(argv)

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed (Debian: apt-get install python3-matplotlib)", EXIT_NO_MATPLOTLIB)

    try:
        runs = read_runs(args.csv)
    except OSError as e:
        return fail(f"{args.csv}: {e.strerror}")
    except ValueError as e:
        return fail(str(e))

    fig, ax = plt.subplots(figsize=(8.5, 4.5), dpi=120)
    for gain, times, values in runs:
        dt = times[1] - times[0] if len(times) > 1 else float("nan")
        kdt = gain * dt
        y = [math.log10(max(v, MNTE_FLOOR)) if math.isfinite(v) else float("nan") for v in values]
        unstable = math.isfinite(kdt) and kdt >= 2.0
        label = f"K = {gain:g}" + (f"  (K·Δt = {kdt:.3g} ≥ 2, unstable)" if unstable else "")
        ax.plot(times, y, linestyle="--" if unstable else "-", linewidth=1.4, label=label)

    ax.set_xlabel("time [s]")
    ax.set_ylabel("log$_{10}$ MNTE  (values ≤ 1e-16 drawn at −16)")
    title = "DYN convergence to a static pose (cf. DYN Fig. 8)"
    ax.set_title(title + (f"\n{args.title}" if args.title else ""), fontsize=10)
    ax.set_ylim(math.log10(MNTE_FLOOR) - 0.5, 1.0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()

    # Write beside the target and rename: never leave a partial PNG.
    out_dir = os.path.dirname(os.path.abspath(args.png))
    tmp = os.path.join(out_dir, f".{os.path.basename(args.png)}.tmp{os.getpid()}.png")
    try:
        fig.savefig(tmp)
        os.replace(tmp, args.png)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return fail(f"{args.png}: cannot write: {e.strerror}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
