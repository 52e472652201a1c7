#!/usr/bin/env python3
"""Track a BVH clip onto the built-in human48 model with DYN and plot a few joint angles.

    PYTHONPATH=build/python /usr/bin/python3 examples/track_bvh.py \
        [--bvh ../shared/data/bvh/bandai/dataset-2_walk_normal_001.bvh] [--out joint_angles.png]

Uses the `kinetrack` Python module (docs/python.md) and matplotlib; writes a PNG and prints the
tracking summary.
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import kinetrack as kt  # noqa: E402

DEFAULT_BVH = pathlib.Path(__file__).resolve().parents[2] / "shared/data/bvh/bandai/dataset-2_walk_normal_001.bvh"
JOINTS = ["jRightHip_roty", "jRightKnee_roty", "jLeftHip_roty", "jLeftKnee_roty", "jRightElbow_roty"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bvh", default=str(DEFAULT_BVH), help="BVH clip to track")
    parser.add_argument("--out", default="joint_angles.png", help="PNG to write")
    parser.add_argument("--solver", default="dynamical", help="dynamical, wholebody, wholebody-ipopt or pairwise")
    args = parser.parse_args()

    model = kt.Model.human48()
    clip = kt.load_capture(args.bvh)  # metres, Z up
    result = kt.track(model, clip, solver=args.solver)
    summary = result.summary
    print(f"tracked {summary['frames']} frames of {args.bvh} on {model.name} ({model.num_joints} DoF): "
          f"MNTE median {summary['mnte_median']:.2e}, {summary['frames_per_second']:.0f} frames/s")

    joints = [j for j in JOINTS if j in model.joint_names] or model.joint_names[:5]
    fig, ax = plt.subplots(figsize=(8, 4))
    for name in joints:
        ax.plot(result.times, np.degrees(result.q[:, 7 + model.joint_id(name)]), label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("joint angle (deg)")
    ax.set_title(f"{pathlib.Path(args.bvh).name} tracked on {model.name} ({args.solver})")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
