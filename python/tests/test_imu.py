"""kt.imu_place and kt.imu_ik are `kinetrack imu place` and `kinetrack imu ik` (app::runImuPlace,
app::runImuIk): the OpenSense walk placed from its calibration file and tracked, the same as the
CLI's files; the calibration sample turned 180° about the vertical gives the same joint angles;
bad input fails naming the file."""
import os
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

WALK = "data/opensim/opensense_imu_walk/"


def files():
    return (shared_file(WALK + "Rajagopal2015_opensense.osim"), shared_file(WALK + "imuPlacer_Setup.xml"),
            shared_file(WALK + "imuInverseKinematics_Setup.xml"))


def test_place_and_track_the_walk_as_the_cli_does(cli, tmp_path):
    model, placer, ik_setup = files()
    p = kt.imu_place(model=model, setup=placer, out=str(tmp_path / "cal.osim"))
    assert sorted(p["frames"]) == sorted(["torso_imu", "pelvis_imu", "tibia_r_imu", "femur_r_imu", "tibia_l_imu",
                                          "femur_l_imu", "calcn_r_imu", "calcn_l_imu"])
    assert p["frames"]["pelvis_imu"]["body"] == "pelvis"
    R = p["frames"]["tibia_r_imu"]["rotation"]
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    assert p["path"] == str(tmp_path / "cal.osim") and os.path.exists(p["path"])
    assert "PhysicalOffsetFrame name=\"pelvis_imu\"" in p["osim"]

    r = kt.imu_ik(setup=ik_setup, osim=p["osim"], start=10.5, end=12.0)
    assert r["columns"][0] == "pelvis_tilt" and r["values"].shape == (151, 39)
    assert r["errors"].shape == (151, 8) and r["sensors"][0] == "torso_imu"
    assert not any(r["gap"]) and r["summary"]["failed_frames"] == 0
    assert 1.0 < r["summary"]["error_rms_deg"] < 10.0
    knee = r["columns"].index("knee_angle_r")
    assert 40.0 < r["values"][:, knee].max() < 100.0  # degrees: the knee flexes in swing

    # The CLI writes the same coordinates from the file imu_place wrote.
    mot = tmp_path / "walk.mot"
    out = subprocess.run([cli, "imu", "ik", "--setup", ik_setup, "--model", p["path"], "--out", str(mot),
                          "--start", "10.5", "--end", "12", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "IMU IK of" in out.stdout
    cli_values = kt.read_mot(str(mot))["values"]
    np.testing.assert_allclose(cli_values, r["values"], atol=1e-9)


def test_calibrating_facing_the_other_way_gives_the_same_angles(tmp_path):
    model, placer, ik_setup = files()
    a = kt.imu_place(model=model, setup=placer)
    # The subject facing the other way: every calibration orientation turned 180° about the IMUs'
    # vertical (their world's Z), written as an OpenSense file.
    t = kt.read_orientations(shared_file(WALK + "placement_orientations.sto"))
    q = np.array(t["quaternions"])
    turned = np.stack([-q[..., 3], -q[..., 2], q[..., 1], q[..., 0]], axis=-1)  # (0,0,0,1) ⊗ q, as w,x,y,z
    lines = ["DataRate=100.000000", "DataType=Quaternion", "version=3", "OpenSimVersion=4.1", "endheader",
             "\t".join(["time"] + t["names"])]
    for k, time in enumerate(t["times"]):
        lines.append("\t".join([repr(time)] + [",".join(repr(float(c)) for c in turned[k, i])
                                               for i in range(len(t["names"]))]))
    cal = tmp_path / "turned.sto"
    cal.write_text("\n".join(lines) + "\n")
    b = kt.imu_place(model=model, setup=placer, orientations=str(cal))
    assert abs(abs(b["heading_correction"] - a["heading_correction"]) - np.pi) < 1e-6 or \
        abs(abs(b["heading_correction"] - a["heading_correction"]) - np.pi) > 2 * np.pi - 1e-6
    ra = kt.imu_ik(setup=ik_setup, osim=a["osim"], start=10.5, end=11.0)
    rb = kt.imu_ik(setup=ik_setup, osim=b["osim"], start=10.5, end=11.0)
    assert np.abs(ra["values"] - rb["values"]).max() < 1e-4  # degrees; OpenSim's own test allows 10


def test_bad_input_names_the_file(tmp_path):
    model, placer, ik_setup = files()
    with pytest.raises(kt.ParseError, match="nothing.sto"):
        kt.imu_place(model=model, setup=placer, orientations=str(tmp_path / "nothing.sto"))
    with pytest.raises(ValueError, match="imu place"):  # a model without IMU frames
        kt.imu_ik(setup=ik_setup, model=model, start=10.5, end=10.6)
    bad = tmp_path / "bad.xml"
    bad.write_text("<OpenSimDocument><IMUPlacer><base_heading_axis>w</base_heading_axis></IMUPlacer>"
                   "</OpenSimDocument>")
    with pytest.raises(kt.ParseError, match="bad.xml"):
        kt.imu_place(model=model, setup=str(bad))


def test_cli_bad_input_exits_2_naming_the_file(cli, tmp_path):
    model, placer, ik_setup = files()
    p = subprocess.run([cli, "imu", "place", "--setup", placer, "--model", str(tmp_path / "missing.osim"),
                        "--out", str(tmp_path / "x.osim")], capture_output=True, text=True)
    assert p.returncode == 2 and "missing.osim" in p.stderr
    p = subprocess.run([cli, "imu", "ik", "--setup", ik_setup, "--model", model, "--out", str(tmp_path / "x.mot")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "kinetrack imu place" in p.stderr  # no IMU frames: place them first
    p = subprocess.run([cli, "imu", "ik", "--setup", ik_setup, "--model", model, "--weight", "pelvis_imu"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "IMU=WEIGHT" in p.stderr
