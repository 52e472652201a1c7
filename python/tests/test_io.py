"""Readers into numpy arrays plus metadata; ParseError with file and line for broken files."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

BVH = "data/bvh/bandai/dataset-2_walk-turn-left_normal_001.bvh"


def test_read_bvh():
    clip = kt.read_bvh(shared_file(BVH))
    n, s = clip.num_frames, clip.num_segments
    assert (n, s) == (102, 22) or n == 102
    assert clip.times.shape == (n,) and np.all(np.diff(clip.times) > 0)
    assert clip.positions.shape == (n, s, 3) and clip.rotations.shape == (n, s, 3, 3)
    assert clip.valid.shape == (n, s) and clip.valid.all()
    assert clip.angular_velocity.shape == (n, s, 3)
    R = clip.rotations.reshape(-1, 3, 3)
    np.testing.assert_allclose(R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape), atol=1e-9)
    assert clip.segment_parents[0] == -1 and len(clip.segment_names) == s
    hips = clip.segment_names.index("Hips")
    assert 0.5 < clip.positions[0, hips, 2] < 1.5  # hips about 1 m above the floor: metres, Z up
    assert kt.read_bvh(shared_file(BVH), velocities=False).angular_velocity.shape == (0, s, 3)


def test_broken_bvh_names_file_and_line(tmp_path):
    text = open(shared_file(BVH)).read().splitlines()
    motion = next(i for i, line in enumerate(text) if line.startswith("Frame Time"))
    text[motion + 3] = text[motion + 3] + " oops"
    path = tmp_path / "broken.bvh"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(kt.ParseError) as info:
        kt.read_bvh(str(path))
    assert info.value.file == str(path) and info.value.line == motion + 4
    with pytest.raises(kt.ParseError):
        kt.read_bvh(str(tmp_path / "missing.bvh"))
    with pytest.raises(ValueError, match="units"):
        kt.read_bvh(shared_file(BVH), units="furlong")


def test_read_mvnx():
    clip = kt.read_mvnx(shared_file("data/mvnx/test_mocap.mvnx"))
    assert clip.num_segments == 23 and clip.num_frames > 0
    assert clip.linear_velocity.shape == (clip.num_frames, 23, 3)


def test_read_trc_and_mot():
    trc = kt.read_trc(shared_file("data/opensim/gait2354_walk/subject01_walk1.trc"))
    assert trc.positions.shape == (trc.num_frames, trc.num_markers, 3)
    assert trc.data_rate == 60.0 and len(trc.names) == trc.num_markers
    mot = kt.read_mot(shared_file("data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot"))
    assert mot["values"].shape == (len(mot["times"]), len(mot["columns"]))
    assert "knee_angle_r" in mot["columns"] and mot["in_degrees"]


def test_read_c3d():
    c3d = kt.read_c3d(shared_file("data/c3d/pycgm_Static_trial.c3d"))
    markers = c3d["markers"]
    assert markers.positions.shape[1:] == (markers.num_markers, 3)
    assert c3d["residuals"].shape == markers.positions.shape[:2]
    assert c3d["processor"] in ("Intel", "DEC", "MIPS") and len(c3d["marker_kinds"]) == markers.num_markers


def test_read_qtm_tsv():
    tsv = kt.read_qtm_tsv(shared_file("data/hand/dfki_glove_recording_20210826.tsv"))
    assert tsv["frequency"] == 100 and tsv["markers"].num_markers == 21
    assert tsv["markers"].positions.shape == (6000, 21, 3)
    assert np.isnan(tsv["markers"].positions).any() == (tsv["missing_samples"] > 0)


def test_broken_trc(tmp_path):
    path = tmp_path / "bad.trc"
    path.write_text("PathFileType\t4\t(X/Y/Z)\tbad.trc\nnonsense\n")
    with pytest.raises(kt.ParseError) as info:
        kt.read_trc(str(path))
    assert info.value.file == str(path)


def test_writers_of_the_cli_formats(tmp_path, human66):
    """write_joint_csv, write_mot and write_trc give the files the CLI writes, and read back."""
    clip = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    result = kt.track(human66, clip, out=str(tmp_path / "cli.csv"))
    kt.write_joint_csv(human66, result, str(tmp_path / "py.csv"))
    cli_text, py_text = (tmp_path / "cli.csv").read_text(), (tmp_path / "py.csv").read_text()
    assert cli_text.splitlines()[0] == py_text.splitlines()[0]
    # q passes through numpy's quaternion columns and back: the base rotation may move by an ulp.
    np.testing.assert_allclose(np.loadtxt(tmp_path / "py.csv", delimiter=",", skiprows=1),
                               np.loadtxt(tmp_path / "cli.csv", delimiter=",", skiprows=1), rtol=0, atol=1e-15)
    walk = "data/opensim/gait2354_walk/"
    ik = kt.markers_ik(shared_file(walk + "subject01_simbody.osim"), shared_file(walk + "subject01_walk1.trc"),
                       setup=shared_file(walk + "subject01_Setup_IK.xml"), out=str(tmp_path / "cli.mot"))
    kt.write_mot(ik["columns"], ik["times"], ik["values"], str(tmp_path / "py.mot"), name="py")
    a, b = kt.read_mot(str(tmp_path / "cli.mot")), kt.read_mot(str(tmp_path / "py.mot"))
    assert a["columns"] == b["columns"] and np.array_equal(a["values"], b["values"])
    trc = kt.read_trc(shared_file(walk + "subject01_walk1.trc"), y_up=False)
    kt.write_trc(trc, str(tmp_path / "t.trc"))
    back = kt.read_trc(str(tmp_path / "t.trc"), y_up=False)
    assert back.names == trc.names
    np.testing.assert_allclose(back.positions, trc.positions, atol=1e-6, equal_nan=True)


def test_read_orientations(tmp_path):
    """OpenSense's quaternion table: 8 IMUs at 100 Hz, unit quaternions w,x,y,z; a broken cell names
    file, line and column."""
    t = kt.read_orientations(shared_file("data/opensim/opensense_imu_walk/walking_orientations.sto"))
    q = t["quaternions"]
    assert t["names"][:2] == ["torso_imu", "pelvis_imu"] and len(t["names"]) == 8
    assert q.shape == (len(t["times"]), 8, 4) and t["data_rate"] == 100.0
    np.testing.assert_allclose(np.linalg.norm(q, axis=2), 1.0, atol=1e-12)
    assert q[0, 0, 0] == pytest.approx(0.5105588968224414)
    bad = tmp_path / "bad.sto"
    bad.write_text("DataType=Quaternion\nendheader\ntime\tpelvis_imu\n0\t1,0,0\n")
    with pytest.raises(kt.ParseError, match=r"bad.sto:4: column 'pelvis_imu'"):
        kt.read_orientations(str(bad))
