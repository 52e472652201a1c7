#!/usr/bin/env python3
"""Plot `kinetrack experiment pindrag`: pin error and joint speed over time.

Usage: plot_pindrag.py PINDRAG_CSV OUTPUT_PNG

Top: the largest pinned-position error (m, log scale) per update, with the 1e-4 m bound of the
feasible drags; the phases (circle, role switch, beyond reach) shaded. Bottom: the largest joint
speed as a fraction of its limit (1 = at the limit) and the SR-inverse damping k.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_pindrag.py"
HEADER = ["step", "time_s", "phase", "pin_position_error_m", "pin_orientation_error_rad", "drag_error",
          "max_speed_ratio", "sr_damping", "velocity_scale", "limit_violation"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="pindrag.csv from `kinetrack experiment pindrag`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        rows = read_rows(args.csv, HEADER, text_columns=("phase",))
    except OSError as e:
        return fail(SCRIPT, f"{args.csv}: {e.strerror}")
    except ValueError as e:
        return fail(SCRIPT, str(e))
    t = [r["time_s"] for r in rows]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), dpi=120, sharex=True)
    a1.semilogy(t, [max(r["pin_position_error_m"], 1e-9) for r in rows], label="pinned position error (m)")
    a1.semilogy(t, [max(r["pin_orientation_error_rad"], 1e-9) for r in rows], label="pinned orientation error (rad)")
    a1.axhline(1e-4, color="k", ls="--", lw=0.8, label="1e-4 bound (feasible drags)")
    a2.plot(t, [r["max_speed_ratio"] for r in rows], label="max joint speed / its limit")
    a2.plot(t, [r["sr_damping"] * 1e3 for r in rows], label="SR damping k × 1e3")
    a2.axhline(1.0, color="k", ls="--", lw=0.8)
    phases = []
    for r in rows:
        if not phases or phases[-1][0] != r["phase"]:
            phases.append([r["phase"], r["time_s"], r["time_s"]])
        phases[-1][2] = r["time_s"]
    for i, (name, t0, t1) in enumerate(phases):
        for ax in (a1, a2):
            ax.axvspan(t0, t1, color=f"C{i}", alpha=0.06)
        a1.text(0.5 * (t0 + t1), 1.0, name, transform=a1.get_xaxis_transform(), ha="center", va="bottom",
                fontsize=9)
    a1.set_ylabel("error")
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8, loc="upper left")
    a2.set_xlabel("time (s)")
    a2.set_ylabel("ratio")
    a2.grid(True, alpha=0.3)
    a2.legend(fontsize=8, loc="upper left")
    fig.suptitle("Pin-and-drag IK (Nakamura Eq. 6-12): scripted drags", fontsize=11)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
