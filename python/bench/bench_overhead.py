#!/usr/bin/env python3
"""Python-module overhead against C++ (issue 14's speed targets), measured in one session:

1. Per-call FK: kinetrack.forward_kinematics (every link and frame, human66, 64 random
   configurations cycled) from Python, against BM_FK/human66 of build/bench/bench_kinematics
   (the same work in C++). Target: at most 2 µs above the C++ call.
2. Tracking a clip: kinetrack.track(model, path) (read + plan + DYN over every frame) against
   `kinetrack track` on the same clip (frames/s including I/O, as the CLI prints it). Target:
   within 5 % of the CLI's frames/s.

Run on an otherwise idle machine, after the build:

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_overhead.py [--build build] [--repeats 7]
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess
import tempfile
import timeit

import numpy as np

import kinetrack as kt

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLIP = ROOT.parent / "shared/data/bvh/cmu_cgspeed/cmu_01_01.bvh"


def python_fk_us(model, repeats, number=20000):
    data = kt.Data(model)
    qs = [kt.random_configuration(model, seed) for seed in range(64)]
    fk = kt.forward_kinematics
    state = {"i": 0}

    def call():
        i = state["i"] = (state["i"] + 1) & 63
        fk(model, data, qs[i])

    times = timeit.repeat(call, number=number, repeat=repeats)
    # The loop's own cost (closure call, counter, list index) measured the same way and removed.
    def empty():
        state["i"] = (state["i"] + 1) & 63
        qs[state["i"]]

    base = timeit.repeat(empty, number=number, repeat=repeats)
    return statistics.median(times) / number * 1e6, statistics.median(base) / number * 1e6


def python_jacobian_us(model, repeats, number=20000):
    data = kt.Data(model)
    kt.forward_kinematics(model, data, kt.random_configuration(model, 1))
    out = np.empty((6, model.nv))
    frame = model.frame_id("RightHand")
    times = timeit.repeat(lambda: kt.frame_jacobian(model, data, frame, out=out), number=number, repeat=repeats)
    return statistics.median(times) / number * 1e6


def python_dyn_step_us(model, repeats, number=2000):
    """ik.step from Python with 23 orientation targets and the pelvis position (human66), and the
    same frames through solve_sequence (one C++ call)."""
    segments = [n for n in model.link_names if "_f" not in n]
    ik = kt.DynamicalIk(model)
    pelvis = ik.tasks.add_position("Pelvis")
    rotations = [ik.tasks.add_orientation(s) for s in segments]
    data = kt.Data(model)
    kt.forward_kinematics(model, data, kt.random_configuration(model, 3))
    R = data.frame_rotations[[model.frame_id(s) for s in segments]].copy()
    p = data.frame_positions[model.frame_id("Pelvis")].copy()
    ik.tasks.set_position(pelvis, p)
    for t, Rt in zip(rotations, R):
        ik.tasks.set_orientation(t, Rt)
    step = statistics.median(timeit.repeat(lambda: ik.step(0.01), number=number, repeat=repeats)) / number * 1e6
    positions = np.broadcast_to(p, (number, 1, 3))
    rots = np.broadcast_to(R, (number,) + R.shape)
    seq = statistics.median(timeit.repeat(lambda: ik.solve_sequence(0.01, positions, rots), number=1,
                                          repeat=repeats)) / number * 1e6
    return len(segments), step, seq


def cpp_fk_us(build, repeats):
    out = subprocess.run([str(build / "bench/bench_kinematics"), "--benchmark_filter=^BM_FK/human66$",
                          "--benchmark_min_time=0.5", f"--benchmark_repetitions={repeats}",
                          "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
            return b["real_time"] * scale
    raise RuntimeError("no median in bench_kinematics output")


def cli_track_fps(build, clip):
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([str(build / "apps/cli/kinetrack"), "track", "--model", "human66", "--input", str(clip),
                              "--out", f"{tmp}/q.csv", "--quiet"], check=True, capture_output=True, text=True).stdout
    fps = re.search(r"wall time\s+([0-9.]+) s \(([0-9.]+) frames/s", out)
    p50 = re.search(r"time per frame p50/p99/max\s+([0-9.]+) /", out)
    return float(fps.group(2)), float(p50.group(1))


def python_track_fps(model, clip):
    summary = kt.track(model, str(clip)).summary
    return summary["frames_per_second"], summary["step_us_p50"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--clip", default=str(CLIP))
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    model = kt.Model.human66()

    cpp = cpp_fk_us(build, 5)
    py, loop = python_fk_us(model, args.repeats)
    jac = python_jacobian_us(model, args.repeats)
    print(f"FK human66, every link and frame: C++ {cpp:.3f} µs, Python {py:.3f} µs per call "
          f"(of which the timing loop {loop:.3f} µs): overhead {py - cpp:.3f} µs "
          f"({py - loop - cpp:.3f} µs without the loop); target ≤ 2 µs")
    print(f"frame_jacobian(RightHand, out=...) from Python: {jac:.3f} µs per call")

    n, step, seq = python_dyn_step_us(model, args.repeats)
    print(f"DYN step, human66 with {n} orientation targets + pelvis position: ik.step from Python {step:.2f} µs; "
          f"solve_sequence {seq:.2f} µs per frame (targets set and stepped in C++)")

    cli, pyt = [], []
    python_track_fps(model, args.clip)  # warm-up (page cache, first import)
    for _ in range(args.repeats):  # interleaved so that a load change hits both alike
        cli.append(cli_track_fps(build, args.clip))
        pyt.append(python_track_fps(model, args.clip))
    c, p = statistics.median(f for f, _ in cli), statistics.median(f for f, _ in pyt)
    cs, ps = statistics.median(s for _, s in cli), statistics.median(s for _, s in pyt)
    print(f"track {pathlib.Path(args.clip).name} on human66 (DYN, incl. reading the file; the CLI also writes its "
          f"CSV): CLI {c:.0f} frames/s, Python {p:.0f} frames/s (median of {args.repeats}): Python/CLI = {p / c:.3f}; "
          f"target ≥ 0.95")
    print(f"  per-frame solve time p50 (the tracker's own clock): CLI {cs:.2f} µs, Python {ps:.2f} µs")


if __name__ == "__main__":
    main()
