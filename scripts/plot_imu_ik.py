#!/usr/bin/env python3
"""Plot a `kinetrack imu ik` run: the orientation error of each IMU per frame and the main joint angles.

Usage: plot_imu_ik.py COORDINATES_MOT ERRORS_STO OUTPUT_PNG

Reads the .mot `kinetrack imu ik --out` writes (OpenSim layout, angles in degrees) and its
orientation-error table (`--errors`: one column per IMU, the angle between model and measured
orientation in rad; nan for a missing sample).

Exit status: 0 written, 2 bad input (missing or malformed file, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import math
import sys

from plot_common import fail, read_sto, require_pyplot, save_png

SCRIPT = "plot_imu_ik.py"
PREFERRED = ["hip_flexion_r", "knee_angle_r", "ankle_angle_r", "hip_flexion_l", "knee_angle_l", "ankle_angle_l"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mot", help="coordinates written by `kinetrack imu ik --out`")
    parser.add_argument("errors", help="orientation errors written by `kinetrack imu ik --errors`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        coords = read_sto(args.mot)
        errors = read_sto(args.errors)
    except OSError as err:
        return fail(SCRIPT, f"{err.filename}: {err.strerror}")
    except ValueError as err:
        return fail(SCRIPT, str(err))
    if "time" not in coords or "time" not in errors:
        return fail(SCRIPT, "both tables need a 'time' column")
    chosen = [c for c in PREFERRED if c in coords] or [c for c in coords if c != "time"][:6]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6.5), dpi=120, sharex=True, gridspec_kw={"height_ratios": [1, 2]})
    for i, name in enumerate(n for n in errors if n != "time"):
        a1.plot(errors["time"], [math.degrees(v) for v in errors[name]], color=f"C{i % 10}", linewidth=0.9,
                label=name)
    a1.set_ylabel("orientation error [deg]")
    a1.set_title("kinetrack imu ik: orientation error per IMU and joint angles", fontsize=10)
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize=7, ncol=4)
    for i, name in enumerate(chosen):
        a2.plot(coords["time"], coords[name], color=f"C{i % 10}", linewidth=1.0, label=name)
    a2.set_ylabel("angle [deg]")
    a2.set_xlabel("time [s]")
    a2.grid(True, alpha=0.3)
    a2.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
