#!/usr/bin/env python3
"""Plot `kinetrack experiment gpm`: the GPM seed's Fig. 4 and Fig. 5 on our subjects.

Usage: plot_gpm.py fig4 GPM_CSV OUTPUT_PNG
       plot_gpm.py fig5 GPM_ROBUSTNESS_CSV OUTPUT_PNG [--inc N]
       plot_gpm.py sparse SPARSE_CSV OUTPUT_PNG

fig4: mean RMS joint-angle error (Eq. 6) over subjects against the workspace division inc, LN and
GP with every subject in the densities (included) and with the subject left out (excluded); bars
are ± one standard deviation over subjects. fig5: the robustness test (Table II): GP error of the
included and the excluded subjects as the first N subjects make the densities. sparse (`kinetrack
experiment sparse`): per held-out subject the human66 joint RMS from few targets without the prior
(LN), with it, and DYN, and the time per frame.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import statistics
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_gpm.py"
FIG4_HEADER = ["subject", "inc", "method", "included", "rms_deg"]
FIG5_HEADER = ["test", "subject", "included", "rms_deg"]
SPARSE_HEADER = ["subject", "method", "joint_rms_deg", "hand_error_mm", "frame_us"]


def mean_sd(values):
    if not values:
        return float("nan"), 0.0
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def fig4(plt, rows):
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    incs = sorted({int(r["inc"]) for r in rows})
    series = [("LN", 1, "LN (least norm)", "k", "s", -0.15),
              ("GP", 1, "GP, subject in the densities", "tab:blue", "o", 0.0),
              ("GP", 0, "GP, subject left out", "tab:red", "^", 0.15)]
    for method, included, label, color, marker, shift in series:
        pts = []
        for inc in incs:
            v = [r["rms_deg"] for r in rows
                 if int(r["inc"]) == inc and r["method"] == method and int(r["included"]) == included]
            if v:
                m, sd = mean_sd(v)
                pts.append((inc + shift, m, sd))
        if pts:
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], color=color,
                        marker=marker, capsize=3, label=label)
    ax.set_xlabel("workspace increments per axis (inc)")
    ax.set_ylabel("RMS joint-angle error [deg]")
    ax.set_title("GPM Fig. 4 on our subjects: accuracy vs division of the hands' workspace", fontsize=10)
    ax.set_xticks(incs)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def fig5(plt, rows, inc):
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    tests = sorted({int(r["test"]) for r in rows})
    for included, label, color, marker in ((1, "included subjects", "tab:blue", "o"),
                                           (0, "excluded subjects", "tab:red", "^")):
        pts = []
        for t in tests:
            v = [r["rms_deg"] for r in rows if int(r["test"]) == t and int(r["included"]) == included]
            if v:
                m, sd = mean_sd(v)
                pts.append((t, m, sd))
        if pts:
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], color=color,
                        marker=marker, capsize=3, label=label)
    ax.set_xlabel("robustness test = number of subjects in the densities (Table II)")
    ax.set_ylabel("GP RMS joint-angle error [deg]")
    ax.set_title(f"GPM Fig. 5 on our subjects: robustness at inc = {inc}", fontsize=10)
    ax.set_xticks(tests)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def sparse(plt, rows):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=120, gridspec_kw={"width_ratios": [3, 1]})
    subjects = list(dict.fromkeys(r["subject"] for r in rows))
    methods = [m for m in ("LN", "GP", "DYN", "DYN+GP") if any(r["method"] == m for r in rows)]
    labels = {"LN": "no prior (damped least norm)", "GP": "learned prior (subject left out)", "DYN": "DYN",
              "DYN+GP": "DYN, the prior as its posture term"}
    colors = {"LN": "0.5", "GP": "tab:blue", "DYN": "tab:orange", "DYN+GP": "tab:red"}
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        v = {r["subject"]: r for r in rows if r["method"] == m}
        a1.bar([k + i * width for k in range(len(subjects))], [v[s]["joint_rms_deg"] for s in subjects], width,
               label=labels[m], color=colors[m])
        a2.bar([i], [statistics.fmean(r["frame_us"] for r in v.values())], color=colors[m])
    a1.set_xticks([k + 0.4 - width / 2 for k in range(len(subjects))])
    a1.set_xticklabels(subjects, rotation=30, ha="right", fontsize=8)
    a1.set_ylabel("human66 joint RMS vs full capture [deg]")
    a1.set_title("few targets, held-out subjects", fontsize=10)
    a1.grid(True, axis="y", alpha=0.3)
    a1.legend(fontsize=8)
    a2.set_xticks(range(len(methods)))
    a2.set_xticklabels(methods)
    a2.set_ylabel("mean time per frame [µs]")
    a2.grid(True, axis="y", alpha=0.3)
    return fig


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=["fig4", "fig5", "sparse"])
    parser.add_argument("csv", help="gpm.csv (fig4) or gpm_robustness.csv (fig5)")
    parser.add_argument("png", help="output PNG")
    parser.add_argument("--inc", default="5", help="inc of the robustness test (title only)")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    header = {"fig4": FIG4_HEADER, "fig5": FIG5_HEADER, "sparse": SPARSE_HEADER}[args.figure]
    text = ("subject",) if args.figure == "fig5" else ("subject", "method")
    try:
        rows = read_rows(args.csv, header, text_columns=text)
    except OSError as e:
        return fail(SCRIPT, f"{args.csv}: {e.strerror}")
    except ValueError as e:
        return fail(SCRIPT, str(e))
    if args.figure == "fig4":
        fig = fig4(plt, rows)
    elif args.figure == "fig5":
        fig = fig5(plt, rows, args.inc)
    else:
        fig = sparse(plt, rows)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
