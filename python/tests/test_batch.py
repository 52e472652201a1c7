"""kt.batch runs every row command (track, retarget, markers ik, hand track, dynamics id) as
`kinetrack batch` does: the library's batch, the other commands' rows parsed with the options the
library declares for them (the CLI's own parser of those commands): the same output files."""
import json
import os
import subprocess

import pytest

import kinetrack as kt
from conftest import shared_file

WALK = "data/opensim/gait2354_walk/"


def without_timings(j):
    """A summary without the figures that change from run to run (wall times, rates)."""
    if not isinstance(j, dict):
        return j
    return {k: without_timings(v) for k, v in j.items()
            if "_us" not in k and not k.startswith("us_") and "second" not in k and "time" not in k}


def lines_without_times(text, out):
    """The lines of a log without those of times (wall time, frames/s, µs), its output directory named OUT."""
    return [line.replace(str(out), "OUT") for line in text.splitlines()
            if "wall time" not in line and "/s" not in line and "µs" not in line and " us" not in line]


def test_batch_of_every_command_is_the_cli_batch(cli, tmp_path):
    osim = shared_file(WALK + "subject01_simbody.osim")
    rows = [
        (shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh"), "track", "human48", ""),
        (shared_file("data/bvh/bandai/dataset-2_run_normal_001.bvh"), "retarget",
         shared_file("models/icub/iCubGazeboV2_5_model.urdf"), ""),
        (shared_file(WALK + "subject01_walk1.trc"), "markers ik", osim,
         "--setup " + shared_file(WALK + "subject01_Setup_IK.xml")),
        (shared_file("data/hand/dfki_glove_recording_20210826.tsv"), "hand track", "", "--use-middle-markers"),
        (shared_file(WALK + "subject01_walk1_ik_REFERENCE.mot"), "dynamics id", osim, "--cutoff 6"),
    ]
    manifest = tmp_path / "m.csv"
    manifest.write_text("input,command,model,args\n" + "".join(",".join(r) + "\n" for r in rows))
    done = subprocess.run([cli, "batch", "--manifest", str(manifest), "--out", str(tmp_path / "cli"), "--threads",
                           "2", "--quiet"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    r = kt.batch(str(tmp_path / "py"), manifest=str(manifest), threads=2)
    assert r["exit"] == 0 and r["ok"] == len(rows) and r["failed"] == 0, r["report"]

    compared = 0
    for root, _, files in os.walk(tmp_path / "cli"):
        for name in files:
            a = os.path.join(root, name)
            rel = os.path.relpath(a, tmp_path / "cli")
            b = os.path.join(tmp_path / "py", rel)
            assert os.path.exists(b), rel
            if rel.startswith("status") or rel == "report.csv":  # times of the run
                continue
            if name.endswith(".json"):
                assert without_timings(json.load(open(b))) == without_timings(json.load(open(a))), rel
            elif name.endswith(".log"):
                assert lines_without_times(open(b).read(), tmp_path / "py") == \
                    lines_without_times(open(a).read(), tmp_path / "cli"), rel
            else:
                assert open(b, "rb").read() == open(a, "rb").read(), rel  # CSV, MOT, STO: byte for byte
            compared += 1
    assert compared >= 2 * len(rows) + 3  # every command's outputs and the four logs


def test_batch_refuses_what_a_command_does_not_take(tmp_path):
    """A row's options are the command's as the library declares them: the CLI's --plot fails that row alone."""
    tsv = shared_file("data/hand/dfki_glove_recording_20210826.tsv")
    r = kt.batch(str(tmp_path / "out"), input_dir=os.path.dirname(tsv), command="hand track",
                 args="--plot p.png", threads=1)
    assert r["ok"] == 0 and r["failed"] >= 1 and r["exit"] == 2
    assert "--plot" in r["report"]
