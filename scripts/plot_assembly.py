#!/usr/bin/env python3
"""Plot `kinetrack experiment assembly`: time per call and counted critical path against chain length.

Usage: plot_assembly.py ASSEMBLY_CSV OUTPUT_PNG

Left: measured microseconds per forward-dynamics call on serial chains, one line per schedule and
thread count, ABA dashed. Right: the counted operations (kflop) of each schedule's critical path
(the time on unlimited processors) and total work, log-scaled chain length: the parallel
schedule's critical path grows by a constant per doubling (O(log N)), the serial one doubles.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import argparse
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_assembly.py"
HEADER = ["kind", "links", "nv", "loops", "schedule", "threads", "time_us", "aba_us", "total_flops",
          "critical_path_flops", "threaded_flops", "height"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="assembly.csv from `kinetrack experiment assembly`")
    parser.add_argument("png", help="output PNG")
    args = parser.parse_args(argv)
    plt = require_pyplot(SCRIPT)
    try:
        rows = read_rows(args.csv, HEADER, text_columns=("kind", "schedule"))
    except OSError as e:
        return fail(SCRIPT, f"{args.csv}: {e.strerror}")
    except ValueError as e:
        return fail(SCRIPT, str(e))
    chains = [r for r in rows if r["kind"] == "chain"]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5), dpi=120)
    keys = sorted({(r["schedule"], int(r["threads"])) for r in chains})
    for sched, thr in keys:
        pts = sorted((r["links"], r["time_us"]) for r in chains if r["schedule"] == sched and r["threads"] == thr)
        a1.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{sched} schedule, {thr} thread(s)")
    aba = sorted({(r["links"], r["aba_us"]) for r in chains if r["schedule"] == "serial" and r["threads"] == 1})
    a1.loglog([p[0] for p in aba], [p[1] for p in aba], "k--", label="ABA (one thread)")
    a1.set_xlabel("links")
    a1.set_ylabel("µs per forward-dynamics call (median)")
    a1.set_title("measured on this machine", fontsize=10)
    a1.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8)
    for sched, style in (("serial", "-"), ("parallel", "-")):
        pts = sorted((r["links"], r["critical_path_flops"], r["total_flops"]) for r in chains
                     if r["schedule"] == sched and r["threads"] == 1)
        a2.semilogx([p[0] for p in pts], [p[1] / 1e3 for p in pts], style, marker="o",
                    label=f"{sched}: critical path")
        a2.semilogx([p[0] for p in pts], [p[2] / 1e3 for p in pts], ":", marker=".", label=f"{sched}: total work")
    a2.set_yscale("log")
    a2.set_xlabel("links")
    a2.set_ylabel("counted kflop per call")
    a2.set_title("counted: critical path = time on unlimited processors", fontsize=10)
    a2.grid(True, which="both", alpha=0.3)
    a2.legend(fontsize=8)
    fig.suptitle("Assembly–disassembly forward dynamics on serial chains (cf. Nakamura seed, Table 1)", fontsize=11)
    fig.tight_layout()
    return save_png(fig, args.png, SCRIPT)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
