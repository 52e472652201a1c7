#!/usr/bin/env python3
"""Box plots of the DYN Fig. 7 study written by `kinetrack experiment compare`.

Usage: plot_compare.py COMPARE_CSV OUTPUT_PNG

COMPARE_CSV has the header model,scenario,method,frame,log10_mnte,log10_rmse,time_us. The figure
has one row per metric (log10 MNTE, log10 RMSE, time per frame) and one column per model; each
panel groups the scenarios, with one box per method.

Exit status: 0 written, 2 bad input, 3 matplotlib is not installed (Debian: apt-get install
python3-matplotlib).
"""
import csv
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
METRICS = [("log10_mnte", "log10 MNTE"), ("log10_rmse", "log10 RMSE (rad/s)"), ("time_us", "time per frame (µs)")]


def fail(message, code=EXIT_BAD_INPUT):
    print(f"plot_compare.py: error: {message}", file=sys.stderr)
    return code


def main():
    if len(sys.argv) != 3:
        return fail("usage: plot_compare.py COMPARE_CSV OUTPUT_PNG")
    path, png = sys.argv[1], sys.argv[2]
    data, models, scenarios, methods = {}, [], [], []
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            for line, row in enumerate(reader, start=2):
                key = (row["model"], row["scenario"], row["method"])
                for lst, v in ((models, key[0]), (scenarios, key[1]), (methods, key[2])):
                    if v not in lst:
                        lst.append(v)
                d = data.setdefault(key, {m: [] for m, _ in METRICS})
                for m, _ in METRICS:
                    d[m].append(float(row[m]))
    except (OSError, KeyError, ValueError) as e:
        return fail(f"{path}: {e}")
    if not data:
        return fail(f"{path}: no rows")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return fail("matplotlib is not installed", EXIT_NO_MATPLOTLIB)
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    fig, axes = plt.subplots(len(METRICS), len(models), figsize=(4.2 * len(models), 9), squeeze=False)
    width = 0.8 / max(1, len(methods))
    for c, model in enumerate(models):
        for r, (metric, label) in enumerate(METRICS):
            ax = axes[r][c]
            for k, method in enumerate(methods):
                values, positions = [], []
                for s, scenario in enumerate(scenarios):
                    d = data.get((model, scenario, method))
                    if d:
                        values.append(d[metric])
                        positions.append(s + (k - (len(methods) - 1) / 2) * width)
                if values:
                    b = ax.boxplot(values, positions=positions, widths=width * 0.9, patch_artist=True, showfliers=False)
                    for patch in b["boxes"]:
                        patch.set_facecolor(colours[k % len(colours)])
            ax.set_xticks(range(len(scenarios)))
            ax.set_xticklabels(scenarios)
            if metric == "time_us":
                ax.set_yscale("log")
            if c == 0:
                ax.set_ylabel(label)
            if r == 0:
                ax.set_title(model)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[k % len(colours)]) for k in range(len(methods))]
    fig.legend(handles, methods, loc="lower center", ncol=len(methods))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    try:
        fig.savefig(png, dpi=100)
    except OSError as e:
        return fail(f"{png}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
