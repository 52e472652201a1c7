"""OpenSim external loads and inverse dynamics from Python against OpenSim's own ID results."""
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

GAIT = "data/opensim/gait2354_walk/"
ARM = "data/opensim/arm26_inverse_dynamics/"


def test_external_loads_reader():
    loads = kt.read_external_loads(shared_file(GAIT + "subject01_walk1_grf.xml"))
    assert [f["applied_to_body"] for f in loads.forces] == ["calcn_r", "calcn_l"]
    assert len(loads.times) == 1501
    s = loads.sample(1.0)
    assert len(s) == 2 and s[0]["has_point"]
    assert s[0]["force"][1] > 100.0  # right foot on the plate at 1.0 s
    with pytest.raises(ValueError):
        loads.sample(5.0)
    with pytest.raises(kt.ParseError):
        kt.read_external_loads("/nonexistent/grf.xml")


def test_gait2354_id_matches_opensim():
    setup = shared_file(GAIT + "subject01_Setup_InverseDynamics.xml")
    info = kt.read_id_setup(setup)
    assert info["lowpass_cutoff_hz"] == 6.0 and info["time_range"] == (0.4, 1.6)
    r = kt.opensim_inverse_dynamics(shared_file(GAIT + "subject01_simbody.osim"),
                                    shared_file(GAIT + "subject01_walk1_ik_REFERENCE.mot"), setup=setup)
    ref = kt.read_mot(shared_file(GAIT + "subject01_walk1_id_REFERENCE.sto"))
    assert r["columns"] == ref["columns"]
    assert r["values"].shape == ref["values"].shape == (73, 23)
    rms = np.sqrt(np.mean((r["values"] - ref["values"]) ** 2, axis=0))
    assert rms.max() < 0.02, dict(zip(r["columns"], rms))


def test_arm26_id_matches_opensim():
    r = kt.opensim_inverse_dynamics(shared_file(ARM + "arm26.osim"), shared_file(ARM + "arm26_InverseKinematics.mot"),
                                    setup=shared_file(ARM + "arm26_Setup_InverseDynamics.xml"))
    ref = kt.read_mot(shared_file(ARM + "std_arm26_InverseDynamics.sto"))
    assert r["columns"] == ref["columns"]
    rms = np.sqrt(np.mean((r["values"] - ref["values"]) ** 2, axis=0))
    assert rms.max() < 0.01


def test_id_of_marker_ik_in_memory_equals_the_cli_on_files(cli, tmp_path):
    """Marker IK's coordinates go straight into OpenSim ID (no file), the same numbers as the CLI's two steps."""
    osim = shared_file(GAIT + "subject01_simbody.osim")
    grf = shared_file(GAIT + "subject01_walk1_grf.xml")
    ik = kt.markers_ik(osim, shared_file(GAIT + "subject01_walk1.trc"), setup=shared_file(GAIT + "subject01_Setup_IK.xml"),
                       out=str(tmp_path / "ik.mot"))
    subprocess.run([cli, "dynamics", "id", "--model", osim, "--motion", str(tmp_path / "ik.mot"), "--loads", grf,
                    "--cutoff", "6", "--out", str(tmp_path / "cli.sto"), "--quiet"], check=True, capture_output=True)
    r = kt.opensim_inverse_dynamics(osim, ik, loads=grf, lowpass_cutoff_hz=6, out=str(tmp_path / "py.sto"))
    cli_sto = kt.read_mot(str(tmp_path / "cli.sto"))
    assert r["columns"] == cli_sto["columns"] and r["warnings"] == []
    # The .mot rounds the angles to its printed digits: the in-memory path differs by that much only.
    np.testing.assert_allclose(r["values"], cli_sto["values"], rtol=0, atol=0.05)
    unfiltered = kt.opensim_inverse_dynamics(osim, ik, loads=grf)
    assert any("not low-passed" in w for w in unfiltered["warnings"])


def test_rigid_body_id_of_a_track_result_equals_the_cli(cli, tmp_path, human66):
    clip = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    tracked = kt.track(human66, clip, out=str(tmp_path / "q.csv"))
    subprocess.run([cli, "dynamics", "id", "--model", "human66", "--motion", str(tmp_path / "q.csv"), "--derivatives",
                    "butterworth", "--out", str(tmp_path / "cli.csv")], check=True, capture_output=True)
    r = kt.inverse_dynamics(human66, tracked, derivatives="butterworth", out=str(tmp_path / "py.csv"))
    assert r["columns"][:3] == ["base_fx", "base_fy", "base_fz"] and r["valid"].all()
    rows = np.loadtxt(tmp_path / "cli.csv", delimiter=",", skiprows=1)
    # The CSV prints q to round-trip precision: the in-memory motion gives the same forces to rounding.
    np.testing.assert_allclose(r["values"], rows[:, 1:-1], rtol=1e-9, atol=1e-6)
