#!/usr/bin/env python3
"""One page of a `kinetrack gait` run: joint angles, joint moments, muscle activations with the
EMG envelopes and their on/off timing, the residual forces and moments, and the time per stage.

Usage: plot_gait.py OUT_DIR OUTPUT_PNG

OUT_DIR is the directory `kinetrack gait --out` wrote (ik.mot, id.sto, muscles/activation.sto,
emg.sto, emg_onoff.csv, stages.csv); panels whose files are absent are left out.

Exit status: 0 written, 2 bad input, 3 matplotlib is not installed (Debian: apt-get install
python3-matplotlib).
"""
import csv
import os
import sys

from plot_common import fail as common_fail
from plot_common import read_sto, require_pyplot, save_png

SCRIPT = "plot_gait.py"


def fail(message):
    return common_fail(SCRIPT, message)


def read_table(path):
    """(column names without time, times, {name: values}) of an OpenSim storage table."""
    cols = read_sto(path)
    return [n for n in cols if n != "time"], cols["time"], cols


def pick(names, wanted):
    return [w for w in wanted if w in names]


def main(argv):
    if len(argv) != 3:
        return fail("usage: plot_gait.py OUT_DIR OUTPUT_PNG")
    out_dir, png = argv[1], argv[2]
    path = lambda name: os.path.join(out_dir, name)
    if not os.path.exists(path("ik.mot")):
        return fail(f"{out_dir}: no ik.mot (not a `kinetrack gait` directory)")
    try:
        ik_names, ik_t, ik = read_table(path("ik.mot"))
        joints = pick(ik_names, ["hip_flexion_r", "knee_angle_r", "ankle_angle_r", "hip_flexion_l", "knee_angle_l",
                                 "ankle_angle_l", "lumbar_extension"])
        id_data = read_table(path("id.sto")) if os.path.exists(path("id.sto")) else None
        act = read_table(path("muscles/activation.sto")) if os.path.exists(path("muscles/activation.sto")) else None
        emg = read_table(path("emg.sto")) if os.path.exists(path("emg.sto")) else None
    except (OSError, ValueError) as e:
        return fail(str(e))
    onoff, emg_muscle = {}, {}
    if os.path.exists(path("emg_onoff.csv")):
        with open(path("emg_onoff.csv")) as f:
            for row in csv.DictReader(f):
                emg_muscle[row["channel"]] = row["muscle"]
                if row["on"]:
                    onoff.setdefault(row["channel"], []).append((float(row["on"]), float(row["off"])))
    stages = []
    if os.path.exists(path("stages.csv")):
        with open(path("stages.csv")) as f:
            stages = [(r["stage"], float(r["seconds"])) for r in csv.DictReader(f)]

    plt = require_pyplot(SCRIPT)
    fig = plt.figure(figsize=(11, 14))
    grid = fig.add_gridspec(4, 2, height_ratios=[1, 1, 2.2, 1])
    ax = fig.add_subplot(grid[0, :])
    for j in joints:
        ax.plot(ik_t, ik[j], label=j)
    ax.set_ylabel("angle (deg)")
    ax.set_title("joint angles (marker IK)")
    ax.legend(fontsize=7, ncol=4)
    if id_data:
        names, t, cols = id_data
        ax = fig.add_subplot(grid[1, :])
        for j in joints:
            if j + "_moment" in names:
                ax.plot(t, cols[j + "_moment"], label=j + "_moment")
        ax.set_ylabel("moment (N m)")
        ax.set_title("joint moments (inverse dynamics with the ground reactions)")
        ax.legend(fontsize=7, ncol=4)
    channels = list(emg_muscle) if emg_muscle else []
    if act and channels:
        names, t, cols = act
        inner = grid[2, :].subgridspec(len(channels), 1, hspace=0.1)
        for k, ch in enumerate(channels):
            ax = fig.add_subplot(inner[k, 0])
            muscle = emg_muscle[ch]
            if muscle in cols:
                ax.plot(t, cols[muscle], color="C0", label=f"{muscle} activation")
            if emg and ch in emg[2]:
                ax.plot(emg[1], emg[2][ch], color="C3", alpha=0.7, label=f"{ch} EMG (norm.)")
            for on, off in onoff.get(ch, []):
                ax.axvspan(on, off, color="C3", alpha=0.12)
            ax.set_xlim(min(t), max(t))
            ax.set_ylim(0, 1.05)
            ax.set_ylabel(ch, rotation=0, labelpad=18, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=6, loc="upper right")
            if k == 0:
                ax.set_title("activations (static optimisation) with the EMG envelope; shaded: EMG on")
    elif act:
        names, t, cols = act
        ax = fig.add_subplot(grid[2, :])
        for m in [n for n in names if not n.endswith("_reserve")][:12]:
            ax.plot(t, cols[m], label=m)
        ax.set_title("activations (static optimisation)")
        ax.legend(fontsize=6, ncol=4)
    if id_data:
        names, t, cols = id_data
        ax = fig.add_subplot(grid[3, 0])
        for r in pick(names, ["pelvis_tx_force", "pelvis_ty_force", "pelvis_tz_force"]):
            ax.plot(t, cols[r], label=r)
        for r in pick(names, ["pelvis_tilt_moment", "pelvis_list_moment", "pelvis_rotation_moment"]):
            ax.plot(t, cols[r], "--", label=r)
        ax.set_title("residuals (pelvis: N, N m)")
        ax.legend(fontsize=6)
    if stages:
        ax = fig.add_subplot(grid[3, 1])
        ax.barh([s for s, _ in stages], [1e3 * v for _, v in stages], color="C2")
        ax.set_xlabel("ms")
        ax.set_title(f"time per stage (total {1e3 * sum(v for _, v in stages):.0f} ms)")
        ax.invert_yaxis()
    fig.tight_layout()
    return save_png(fig, png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
