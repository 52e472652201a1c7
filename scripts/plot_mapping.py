#!/usr/bin/env python3
"""Plot `kinetrack experiment mapping`: error of the human figure <-> musculoskeletal model mapping
against the number of singular values (Nakamura seed Eq. 14-15, Fig. 14).

Usage: plot_mapping.py DIR OUTPUT_PNG   (DIR holds mapping_error.csv and mapping_series.csv)

Top: RMS joint-angle error (deg) of each direction, on the training clips (in sample) and on the
test clips (out of sample), against the number k of singular values kept in the pseudo-inverse;
the best test k marked. Bottom: three coordinates of the musculoskeletal model on the first test
clip, as tracked and as mapped from the human figure with few, the best and all singular values.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import csv
import os
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_mapping.py"
HEADER = ["direction", "k", "singular_value", "train_rms_deg", "test_rms_deg"]
SHOWN = ["hip_flexion_r", "knee_angle_r", "ankle_angle_r"]


def read_series(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header or header[:4] != ["clip", "time", "coordinate", "tracked_deg"] or len(header) != 7:
            raise ValueError(f"{path}:1: expected header clip,time,coordinate,tracked_deg,k…,k…,k…")
        rows = []
        for line, row in enumerate(reader, start=2):
            if len(row) != 7:
                raise ValueError(f"{path}:{line}: expected 7 fields, got {len(row)}")
            try:
                rows.append((row[0], float(row[1]), row[2], [float(v) for v in row[3:]]))
            except ValueError:
                raise ValueError(f"{path}:{line}: not a number in {','.join(row)!r}") from None
    return header, rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="output directory of `kinetrack experiment mapping`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    err_csv = os.path.join(args.dir, "mapping_error.csv")
    series_csv = os.path.join(args.dir, "mapping_series.csv")
    try:
        rows = read_rows(err_csv, HEADER, text_columns=("direction",))
        header, series = read_series(series_csv)
    except OSError as e:
        return fail(SCRIPT, f"{e.filename}: {e.strerror}")
    except ValueError as e:
        return fail(SCRIPT, str(e))
    fig = plt.figure(figsize=(13, 8), dpi=110)
    grid = fig.add_gridspec(2, 3)
    for col, direction in enumerate(["human->model", "model->human"]):
        ax = fig.add_subplot(grid[0, col])
        rs = [r for r in rows if r["direction"] == direction]
        if not rs:
            return fail(SCRIPT, f"{err_csv}: no rows for {direction}")
        k = [r["k"] for r in rs]
        ax.semilogy(k, [r["train_rms_deg"] for r in rs], label="training clips (in sample)")
        ax.semilogy(k, [r["test_rms_deg"] for r in rs], label="test clips (out of sample)")
        best = min(rs, key=lambda r: r["test_rms_deg"])
        ax.axvline(best["k"], color="k", ls=":", lw=0.8)
        ax.annotate(f"best k = {int(best['k'])}: {best['test_rms_deg']:.2f}°", (best["k"], best["test_rms_deg"]),
                    textcoords="offset points", xytext=(5, 10), fontsize=8)
        ax.set_xlabel("number of singular values k")
        ax.set_ylabel("RMS joint-angle error (deg)")
        ax.set_title(("φ = M f(θ): human figure → musculoskeletal" if direction == "human->model"
                      else "θ = N g(φ): musculoskeletal → human figure"), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax = fig.add_subplot(grid[0, 2])
    for direction in ["human->model", "model->human"]:
        rs = [r for r in rows if r["direction"] == direction]
        ax.semilogy([r["k"] for r in rs], [r["singular_value"] for r in rs], label=direction)
    ax.set_xlabel("k")
    ax.set_ylabel("singular value of the feature matrix")
    ax.set_title("singular values", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    clip = series[0][0] if series else ""
    for col, name in enumerate(SHOWN):
        ax = fig.add_subplot(grid[1, col])
        pts = [s for s in series if s[2] == name and s[0] == clip]
        t = [p[1] for p in pts]
        for i, label in enumerate(header[3:]):
            style = {"color": "k", "lw": 2.0} if i == 0 else {"lw": 1.0}
            ax.plot(t, [p[3][i] for p in pts], label=("tracked gait2354" if i == 0 else "mapped, k = " + label[1:-4]),
                    **style)
        ax.set_title(f"{name}, test clip {clip}", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("deg")
        ax.grid(True, alpha=0.3)
        if col == 0:
            ax.legend(fontsize=8)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
