"""Models: built-ins with height and mass, URDF and OpenSim loading, names, limits and frames as
properties, errors for bad files."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import TEST_DATA, shared_file


def test_builtin_sizes_and_names(human66, human48):
    assert (human66.num_joints, human66.nv, human66.nq) == (66, 72, 73)
    assert (human48.num_joints, human48.nv, human48.nq) == (48, 54, 55)
    assert human66.floating_base and human66.nv_base == 6
    assert human66.link_names[0] == "Pelvis"
    for segment in ("Pelvis", "T8", "Head", "RightHand", "LeftFoot"):
        assert segment in human66.frame_names
    assert len(human66.joint_names) == 66 and len(set(human66.joint_names)) == 66
    assert human66.joint_id(human66.joint_names[5]) == 5
    assert human66.frame_names[human66.frame_id("RightHand")] == "RightHand"
    assert kt.builtin_model_names() == ["human66", "human48"]


def test_height_and_mass_scale_the_model():
    small, tall = kt.Model.human66(height=1.5), kt.Model.human66(height=2.0, mass=90.0)
    assert tall.total_mass == pytest.approx(90.0)
    assert small.total_mass == pytest.approx(73.0)
    d_small, d_tall = kt.Data(small), kt.Data(tall)
    kt.forward_kinematics(small, d_small, small.neutral())
    kt.forward_kinematics(tall, d_tall, tall.neutral())
    head = small.frame_id("Head")
    ratio = d_tall.frame_positions[head, 2] / d_small.frame_positions[head, 2]
    assert ratio == pytest.approx(2.0 / 1.5, rel=1e-9)
    assert kt.Model.builtin("human48", height=1.6).num_joints == 48


def test_limits_and_axes(human48, human66):
    lo, hi = human48.lower_limits, human48.upper_limits
    assert lo.shape == hi.shape == (48,)
    assert np.all(np.isfinite(lo)) and np.all(lo < hi)
    assert np.all(np.isinf(human66.lower_limits))  # continuous spherical joints
    axes = human48.joint_axes
    assert axes.shape == (48, 3)
    np.testing.assert_allclose(np.linalg.norm(axes, axis=1), 1.0)
    assert set(human48.joint_types) <= {"revolute", "continuous"}
    assert human66.link_parents[0] == -1 and human66.link_parents.shape == (human66.num_links,)
    assert human66.frame_links.shape == (human66.num_frames,)
    assert human66.link_mass("Pelvis") > 0


def test_human66_clinical_limits(human48):
    # The labeller's human66: human48's limits widened by 15 deg on the axes human48 has, +-30 deg on
    # the others; the same joints as the continuous human66.
    bounded = kt.Model.human66(clinical_limits=True)
    lo, hi = bounded.lower_limits, bounded.upper_limits
    assert lo.shape == (66,) and np.all(np.isfinite(lo)) and np.all(lo < hi)
    assert bounded.joint_names == kt.Model.human66().joint_names
    knee = bounded.joint_names.index("jRightKnee_roty")
    k48 = human48.joint_names.index("jRightKnee_roty")
    np.testing.assert_allclose(hi[knee], human48.upper_limits[k48] + np.radians(15.0))
    np.testing.assert_allclose(lo[bounded.joint_names.index("jRightKnee_rotx")], -np.radians(30.0))


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="height"):
        kt.Model.human66(height=5.0)
    with pytest.raises(ValueError, match="human66"):
        kt.Model.builtin("robot")
    with pytest.raises(ValueError, match="RightHand"):  # the message lists the valid names
        kt.Model.human66().frame_id("NoSuchFrame")


def test_urdf_round_trip(tmp_path, human48):
    path = tmp_path / "h48.urdf"
    path.write_text(human48.to_urdf())
    loaded = kt.Model.load(str(path))
    assert loaded.joint_names == human48.joint_names
    np.testing.assert_allclose(loaded.upper_limits, human48.upper_limits)
    fixed = kt.Model.load(str(path), fixed_base=True)
    assert not fixed.floating_base and fixed.nv == 48


def test_shared_urdf():
    icub = kt.Model.load(shared_file("models/icub/iCubGazeboV2_5_model.urdf"))
    assert icub.num_joints > 30 and "r_hand" in icub.frame_names


def test_mjcf_loads_like_the_urdf():
    """The G1 from its MJCF (a floating base from the free joint) and its URDF: same joints and FK of
    the pelvis-relative links to the 6-digit quaternions of the MJCF file; geoms of both."""
    xml = kt.Model.load(shared_file("models/unitree/g1/g1_29dof.xml"))
    urdf = kt.Model.load(shared_file("models/unitree/g1/g1_29dof.urdf"))
    assert xml.floating_base and xml.joint_names == urdf.joint_names
    q = xml.neutral()
    q[7:] = 0.5 * (np.maximum(xml.lower_limits, -1.0) + np.minimum(xml.upper_limits, 1.0))
    dx, du = kt.Data(xml), kt.Data(urdf)
    kt.forward_kinematics(xml, dx, q)
    kt.forward_kinematics(urdf, du, q)
    for link in ("left_ankle_roll_link", "right_wrist_yaw_link", "torso_link"):
        a, b = xml.frame_id(link), urdf.frame_id(link)
        np.testing.assert_allclose(dx.frame_positions[a], du.frame_positions[b], atol=1e-5)
    geoms = xml.geoms
    assert len(geoms) == 73 and sum(g["collision"] for g in geoms) == 37
    cylinder = next(g for g in geoms if g["shape"] == "cylinder")
    assert cylinder["size"].shape == (3,) and cylinder["rotation"].shape == (3, 3)
    assert xml.link_names[cylinder["link"]] == cylinder["link_name"]
    assert sum(g["collision"] for g in urdf.geoms) == 37 and sum(g["visual"] for g in urdf.geoms) == 36
    assert kt.Model.load(shared_file("models/unitree/g1/g1_29dof.xml"), fixed_base=True).nv_base == 0


def test_broken_mjcf_raises_parse_error(tmp_path):
    path = tmp_path / "robot.xml"
    path.write_text('<mujoco>\n<worldbody>\n<body name="b">\n<joint name="j" type="planar"/></body></worldbody></mujoco>')
    with pytest.raises(kt.ParseError) as info:
        kt.Model.load(str(path))
    assert info.value.file == str(path) and info.value.line == 4 and "planar" in info.value.message


@pytest.mark.parametrize("name", ["malformed_xml.urdf", "nan_origin.urdf", "missing_parent_link.urdf"])
def test_broken_urdf_raises_parse_error_with_file_and_line(name):
    path = str(TEST_DATA / "urdf" / name)
    with pytest.raises(kt.ParseError) as info:
        kt.Model.load(path)
    assert info.value.file == path
    assert isinstance(info.value.line, int)
    assert info.value.message and path in str(info.value)
    assert isinstance(info.value, ValueError)


def test_nan_origin_names_the_line():
    with pytest.raises(kt.ParseError) as info:
        kt.Model.load(str(TEST_DATA / "urdf" / "nan_origin.urdf"))
    assert info.value.line > 0


def test_missing_file_is_a_parse_error():
    with pytest.raises(kt.ParseError) as info:
        kt.Model.load("/nonexistent/model.urdf")
    assert info.value.file == "/nonexistent/model.urdf" and info.value.line == 0


def test_osim_model():
    model = kt.Model.load(str(TEST_DATA / "opensim" / "synthetic_40.osim"))
    assert not model.floating_base and model.nv == model.num_joints
    arm = kt.Model.load(shared_file("data/opensim/arm26_inverse_dynamics/arm26.osim"))
    assert {"r_shoulder_elev", "r_elbow_flex"} <= set(arm.joint_names)


def test_with_markers(human66):
    names = kt.marker_set_names()
    assert names
    with_markers = human66.with_markers(names[0])
    assert with_markers.num_frames > human66.num_frames
    assert with_markers.num_joints == human66.num_joints


def test_data_views_are_read_only_and_alive(human66):
    data = kt.Data(human66)
    kt.forward_kinematics(human66, data, kt.random_configuration(human66, 1))
    view = data.frame_positions
    del data  # the view keeps the data alive
    assert view.shape == (human66.num_frames, 3) and np.all(np.isfinite(view))
    with pytest.raises(ValueError):
        view[0, 0] = 1.0


def test_data_of_another_model_is_refused(human66, human48):
    with pytest.raises(ValueError, match="another model|not for this model"):
        kt.forward_kinematics(human48, kt.Data(human66), human48.neutral())


def test_model_info_is_the_cli_report(cli):
    import json
    import subprocess
    out = subprocess.run([cli, "model", "info", "human48", "--height", "1.6", "--json"], check=True,
                         capture_output=True, text=True).stdout
    assert kt.model_info("human48", height=1.6) == json.loads(out)
