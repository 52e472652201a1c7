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


def test_retarget_returns_the_quality_and_the_motion_as_the_npz(tmp_path):
    """The robot stands and holds its soles; the motion arrays equal what numpy reads from the
    .npz the same call writes, and the CSV's columns."""
    robot = kt.Model.load(shared_file("models/unitree/g1/g1_29dof.urdf"))
    walk = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    npz, csv = tmp_path / "walk.npz", tmp_path / "walk.csv"
    r = kt.retarget(robot, walk, motion_out=str(npz), quality_json=str(tmp_path / "q.json"))
    q = r.quality
    assert q["frames"] == len(r.q) == 273
    assert q["foot_slide_mm"]["p95"] <= 2.0
    assert q["limit_excess"] == 0.0
    assert all(v["median"] <= 10.0 for v in q["pose_agreement_deg"].values())
    assert json.loads((tmp_path / "q.json").read_text()) == q
    m = r.motion
    saved = np.load(npz)
    assert set(saved.files) == set(m)
    for key in ("time", "root_pos", "root_rot", "dof_pos", "root_lin_vel", "root_ang_vel", "dof_vel"):
        np.testing.assert_array_equal(saved[key], m[key])
    assert list(saved["joint_names"]) == m["joint_names"] == robot.joint_names
    assert saved["quat_order"][0] == "xyzw"
    # Root position and quaternion are the joint CSV's base columns (w last here).
    np.testing.assert_allclose(m["root_pos"], r.q[:, 0:3], atol=0)
    np.testing.assert_allclose(np.abs(np.sum(m["root_rot"][:, [3, 0, 1, 2]] * r.q[:, 3:7], axis=1)), 1.0, atol=1e-12)
    np.testing.assert_array_equal(m["dof_pos"], r.q[:, 7:])
    # Velocities: central differences of the positions.
    dt = np.diff(m["time"])
    np.testing.assert_allclose(m["dof_vel"][1:-1], (m["dof_pos"][2:] - m["dof_pos"][:-2]) / (dt[1:] + dt[:-1])[:, None],
                               rtol=1e-9, atol=1e-9)
    # Resampled at 50 Hz as CSV with w first.
    r50 = kt.retarget(robot, walk, motion_out=str(csv), motion_rate=50.0, quat_order="wxyz")
    header = csv.read_text().splitlines()[0].split(",")
    assert header[:8] == ["time", "root_x", "root_y", "root_z", "root_qw", "root_qx", "root_qy", "root_qz"]
    assert header[-1] == "gap" and header[8] == robot.joint_names[0]
    table = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert r50.motion["fps"] == 50.0
    np.testing.assert_allclose(np.diff(table[:, 0]), 0.02, atol=1e-9)
    np.testing.assert_array_equal(table[:, 4:8], r50.motion["root_rot"])
    with pytest.raises(ValueError, match="quaternion order"):
        kt.retarget(robot, walk, quat_order="zyxw")


def matrix_quaternion(R):
    """(w, x, y, z) of a rotation matrix (Shepperd: from the largest of the four squared components)."""
    t = np.trace(R)
    k = int(np.argmax([t, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        w = np.sqrt(1.0 + t) / 2.0
        return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])
    i, j, m = [(0, 1, 2), (1, 2, 0), (2, 0, 1)][k - 1]
    v = np.sqrt(1.0 + R[i, i] - R[j, j] - R[m, m]) / 2.0
    q = np.empty(4)
    q[0] = (R[m, j] - R[j, m]) / (4 * v)
    q[1 + i], q[1 + j], q[1 + m] = v, (R[j, i] + R[i, j]) / (4 * v), (R[m, i] + R[i, m]) / (4 * v)
    return q


def test_retarget_takes_a_capture_made_of_arrays():
    """Capture.from_arrays: the walk's segment poses as numpy arrays retarget exactly as the file does."""
    robot = kt.Model.load(shared_file("models/unitree/g1/g1_29dof.urdf"))
    walk = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    clip = kt.load_capture(walk).clip
    names, parents = clip.segment_names, clip.segment_parents
    times, positions, rotations = clip.times, clip.positions, clip.rotations
    assert positions.shape == (273, len(names), 3) and rotations.shape == (273, len(names), 3, 3)
    arrays = kt.Capture.from_arrays(names, times, positions, rotations, parents=parents)
    assert arrays.kind == "bvh"
    from_file, from_arrays = kt.retarget(robot, walk), kt.retarget(robot, arrays)
    np.testing.assert_array_equal(from_arrays.q, from_file.q)
    assert from_arrays.quality["foot_slide_mm"] == from_file.quality["foot_slide_mm"]
    # Quaternions (w, x, y, z) in place of matrices; a NaN sample is a gap, not an error.
    quats = np.array([[matrix_quaternion(R) for R in frame] for frame in rotations])
    from_quaternions = kt.retarget(robot, kt.Capture.from_arrays(names, times, positions, quats, parents=parents))
    np.testing.assert_allclose(from_quaternions.q, from_file.q, atol=1e-9)
    positions_gap = positions.copy()
    positions_gap[100] = np.nan  # the whole frame missing
    r = kt.retarget(robot, kt.Capture.from_arrays(names, times, positions_gap, rotations, parents=parents))
    assert r.gaps[100] and r.gaps.sum() == 1 and np.isfinite(r.q).all()
    # Errors name what is wrong.
    bad = rotations.copy()
    bad[5, 2] *= 2.0
    with pytest.raises(ValueError, match=f"frame 5, segment '{names[2]}': the orientation is not a rotation"):
        kt.Capture.from_arrays(names, times, positions, bad, parents=parents)
    with pytest.raises(ValueError, match=r"positions: expected an array of shape \(273, "):
        kt.Capture.from_arrays(names, times, positions[:, :3], rotations, parents=parents)
    with pytest.raises(ValueError, match="frame 1: time"):
        kt.Capture.from_arrays(names, np.zeros(273), positions, rotations, parents=parents)
    with pytest.raises(ValueError, match="not an earlier segment"):
        kt.Capture.from_arrays(names, times, positions, rotations, parents=[1] * len(names))
