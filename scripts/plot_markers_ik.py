#!/usr/bin/env python3
"""Plot a `kinetrack markers ik` run: marker errors per frame and the main joint angles.

Usage: plot_markers_ik.py COORDINATES_MOT ERRORS_STO OUTPUT_PNG [--reference REFERENCE_MOT]

Reads the .mot `kinetrack markers ik` writes (OpenSim layout: header up to `endheader`, then a
tab-separated table with `time` first; angles in degrees) and its marker-error table
(`total_squared_error`, `marker_error_RMS`, `marker_error_max` in m²/m). With --reference (e.g.
OpenSim's own IK result) its angles are drawn dashed and the per-coordinate RMS difference is
given in the legend.

Exit status: 0 written, 2 bad input (missing or malformed file, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import math
import sys

from plot_common import fail, require_pyplot, save_png

SCRIPT = "plot_markers_ik.py"
# Drawn when present (the gait models' sagittal angles); otherwise the first rotational columns.
PREFERRED = [
    ["hip_flexion_r", "knee_angle_r", "ankle_angle_r", "hip_flexion_l", "knee_angle_l", "ankle_angle_l"],  # OpenSim
    ["jRightHip_roty", "jRightKnee_roty", "jRightAnkle_roty", "jLeftHip_roty", "jLeftKnee_roty",
     "jLeftAnkle_roty"],  # kinetrack's human66 / human48 (sagittal: about y)
]


def read_storage(path):
    """(columns, rows) of an OpenSim .mot/.sto; raises ValueError naming file and line."""
    with open(path) as f:
        lines = f.read().splitlines()
    try:
        end = next(i for i, l in enumerate(lines) if l.strip() == "endheader")
    except StopIteration:
        raise ValueError(f"{path}: no 'endheader' line") from None
    if end + 1 >= len(lines):
        raise ValueError(f"{path}: no column header after 'endheader'")
    columns = lines[end + 1].split()
    if not columns or columns[0] != "time":
        raise ValueError(f"{path}:{end + 2}: the first column must be 'time'")
    rows = []
    for n, line in enumerate(lines[end + 2:], start=end + 3):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != len(columns):
            raise ValueError(f"{path}:{n}: expected {len(columns)} fields, got {len(fields)}")
        try:
            rows.append([float(x) for x in fields])
        except ValueError:
            raise ValueError(f"{path}:{n}: not a number in {line.strip()!r}") from None
    if not rows:
        raise ValueError(f"{path}: no data rows")
    return columns, rows


def column(columns, rows, name):
    k = columns.index(name)
    return [r[k] for r in rows]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mot", help="coordinates written by `kinetrack markers ik --out`")
    parser.add_argument("errors", help="marker-error table written by `kinetrack markers ik --errors`")
    parser.add_argument("png", help="output PNG")
    parser.add_argument("--reference", help="a reference .mot (e.g. OpenSim's IK result) drawn dashed")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        cols, rows = read_storage(args.mot)
        ecols, erows = read_storage(args.errors)
        ref = read_storage(args.reference) if args.reference else None
        for name in ("marker_error_RMS", "marker_error_max"):
            if name not in ecols:
                raise ValueError(f"{args.errors}: no column {name!r}")
    except OSError as err:
        return fail(SCRIPT, f"{err.filename}: {err.strerror}")
    except ValueError as err:
        return fail(SCRIPT, str(err))
    t = column(cols, rows, "time")
    chosen = next(([c for c in group if c in cols] for group in PREFERRED if any(c in cols for c in group)), [])
    if not chosen:
        chosen = [c for c in cols[1:] if not c.startswith(("pelvis_t", "base_t"))][:6]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6.5), dpi=120, sharex=True,
                                 gridspec_kw={"height_ratios": [1, 2]})
    te = column(ecols, erows, "time")
    a1.plot(te, [1e3 * v for v in column(ecols, erows, "marker_error_RMS")], label="RMS over markers")
    a1.plot(te, [1e3 * v for v in column(ecols, erows, "marker_error_max")], label="largest marker")
    a1.set_ylabel("marker error [mm]")
    a1.set_title("kinetrack markers ik: marker errors per frame and joint angles", fontsize=10)
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize=8)
    for i, name in enumerate(chosen):
        color = f"C{i % 10}"
        y = column(cols, rows, name)
        label = name
        if ref and name in ref[0]:
            rt, ry = column(ref[0], ref[1], "time"), column(ref[0], ref[1], name)
            a2.plot(rt, ry, "--", color=color, linewidth=2.2, alpha=0.45)
            if len(rt) == len(t) and all(abs(a - b) < 1e-6 for a, b in zip(rt, t)):
                rms = math.sqrt(sum((a - b) ** 2 for a, b in zip(y, ry)) / len(y))
                label += f" (RMS vs reference {rms:.3f}°)"
        a2.plot(t, y, color=color, linewidth=1.0, label=label)
    a2.set_ylabel("angle [deg]" + ("  (dashed: reference)" if ref else ""))
    a2.set_xlabel("time [s]")
    a2.grid(True, alpha=0.3)
    a2.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
