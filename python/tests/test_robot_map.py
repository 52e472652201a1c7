"""Robot maps (issue 38): robot_map() gives the map retarget uses (the built-in map detected from the
robot's names, else the automatic one found from its tree), auto_robot_map() the automatic one, and
retarget(save_map=) writes the map used, which given back as map retargets the same."""
import json
import warnings

import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

BVH = "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh"


def test_builtin_maps_are_detected_and_match_the_automatic_map():
    assert {"g1_23dof", "g1_29dof", "h1", "h1_2", "icub"} <= set(kt.robot_map_names())
    for path, name in (("models/unitree/g1/g1_29dof.urdf", "g1_29dof"), ("models/unitree/h1/h1.urdf", "h1")):
        robot = kt.Model.load(shared_file(path))
        used = kt.robot_map(robot)
        assert used["name"] == name
        assert used["segments"]["Pelvis"] == "pelvis"
        found = kt.auto_robot_map(robot)
        assert found["name"] == "auto"
        assert found["segments"] == used["segments"]
        assert "where the legs branch" in found["description"]
        assert kt.robot_map(robot, "auto")["segments"] == used["segments"]


def test_the_automatic_map_of_a_human_model_and_its_errors(human66):
    found = kt.auto_robot_map(human66)
    assert all(segment == frame for segment, frame in found["segments"].items())
    assert found["segments"]["LeftHand"] == "LeftHand"
    with pytest.raises(ValueError, match="unknown built-in robot map 'nope'"):
        kt.robot_map(human66, "nope")
    # The gait2354 model has legs but no arms.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the model's muscles are not part of the rigid-body model
        osim = kt.Model.load(shared_file("data/opensim/gait2354_walk/subject01_simbody.osim"))
    with pytest.raises(ValueError, match=r"found 0 arm chains \(needs 2\)"):
        kt.auto_robot_map(osim)


def test_retarget_saves_the_map_it_used(tmp_path):
    robot = kt.Model.load(shared_file("models/unitree/g1/g1_29dof.urdf"))
    clip = shared_file(BVH)
    saved = tmp_path / "g1_map.json"
    first = kt.retarget(robot, clip, save_map=str(saved))
    written = json.loads(saved.read_text())
    assert written["name"] == "g1_29dof"
    assert written["segments"] == kt.robot_map(robot)["segments"]
    again = kt.retarget(robot, clip, map=str(saved))
    np.testing.assert_array_equal(first.q, again.q)
