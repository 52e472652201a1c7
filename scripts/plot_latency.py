#!/usr/bin/env python3
"""Latency of `kinetrack serve` per frame: over the source time, and its distribution.

Usage: plot_latency.py LATENCY_CSV OUTPUT_PNG

LATENCY_CSV has the header seq,source_time_s,latency_us (`kinetrack serve --latency-out`).
Exit status: 0 written, 2 bad input, 3 matplotlib is not installed.
"""
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_latency.py"


def main():
    if len(sys.argv) != 3:
        return fail(SCRIPT, "usage: plot_latency.py LATENCY_CSV OUTPUT_PNG")
    path, png = sys.argv[1], sys.argv[2]
    try:
        rows = read_rows(path, ["seq", "source_time_s", "latency_us"])
    except (ValueError, OSError) as e:
        return fail(SCRIPT, str(e))
    plt = require_pyplot(SCRIPT)
    t = [r["source_time_s"] for r in rows]
    us = [r["latency_us"] for r in rows]
    ordered = sorted(us)

    def quantile(q):
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    p50, p99 = quantile(0.5), quantile(0.99)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    ax1.plot(t, us, ".", markersize=2)
    for value, label, style in ((p50, "p50", "--"), (p99, "p99", ":")):
        ax1.axhline(value, color="k", linestyle=style, linewidth=1, label=f"{label} {value:.0f} µs")
    ax1.set_yscale("log")
    ax1.set_xlabel("source time (s)")
    ax1.set_ylabel("receive → joint state sent (µs)")
    ax1.set_title(f"{len(us)} frames, max {ordered[-1]:.0f} µs")
    ax1.legend(loc="upper right")
    ax2.hist(us, bins=60, range=(0, max(p99 * 1.5, 1.0)))
    ax2.set_xlabel("latency (µs), up to 1.5 × p99")
    ax2.set_ylabel("frames")
    fig.tight_layout()
    return save_png(fig, png, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
