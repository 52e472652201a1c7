"""OpenSim external loads and inverse dynamics from Python against OpenSim's own ID results."""
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
