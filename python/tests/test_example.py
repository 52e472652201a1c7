"""examples/track_bvh.py runs and writes its PNG."""
import os
import subprocess
import sys

from conftest import ROOT, shared_file


def test_track_bvh_example_runs(tmp_path):
    clip = shared_file("data/bvh/bandai/dataset-2_walk-turn-left_normal_001.bvh")
    out = tmp_path / "angles.png"
    env = dict(os.environ, MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "track_bvh.py"), "--bvh", clip, "--out", str(out)],
                         check=True, capture_output=True, text=True, env=env)
    assert "wrote" in run.stdout
    assert out.stat().st_size > 1000 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
