"""Forward kinematics and frame Jacobians: equal to the C++ results (the CLI's `model fk --json`),
Jacobians against central finite differences on the configuration manifold, zero-copy and
out-array forms, configuration integrate/difference, errors for bad shapes, no leak."""
import json
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from helpers import rss_bytes, so3_log

SEGMENTS = ["Pelvis", "T8", "Head", "RightHand", "LeftForeArm", "RightFoot", "LeftToe"]


def test_fk_equals_cli(cli, human48):
    joints = {human48.joint_names[j]: 0.1 * (j % 7) - 0.25 for j in range(0, 48, 3)}
    args = [cli, "model", "fk", "human48", "--json", "--frame", ",".join(SEGMENTS)]
    for name, value in joints.items():
        args += ["--joint", f"{name}={value!r}"]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    q = human48.neutral()
    for name, value in joints.items():
        q[7 + human48.joint_id(name)] = value
    data = kt.Data(human48)
    kt.forward_kinematics(human48, data, q)
    for frame in out["frames"]:
        f = human48.frame_id(frame["name"])
        np.testing.assert_allclose(data.frame_positions[f], frame["position"], rtol=0, atol=1e-12)
        R, p = kt.frame_placement(human48, data, f)
        np.testing.assert_allclose(p, frame["position"], rtol=0, atol=1e-12)
        w, x, y, z = frame["quaternion_wxyz"]
        R_cli = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                          [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                          [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        np.testing.assert_allclose(R, R_cli, rtol=0, atol=1e-12)
        np.testing.assert_allclose(data.frame_rotations[f], R, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["human66", "human48"])
def test_jacobian_matches_finite_differences(name):
    model = kt.Model.builtin(name)
    q = kt.random_configuration(model, seed=7)
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q)
    h = 1e-6
    frames = [model.frame_id(s) for s in SEGMENTS]
    qs = []
    for i in range(model.nv):
        v = np.zeros(model.nv)
        v[i] = h
        qs += [kt.integrate(model, q, v), kt.integrate(model, q, -v)]
    pos, rot = kt.forward_kinematics_batch(model, np.array(qs), frames)
    for k, f in enumerate(frames):
        J = kt.frame_jacobian(model, data, f)
        assert J.shape == (6, model.nv)
        J_fd = np.zeros((6, model.nv))
        for i in range(model.nv):
            J_fd[:3, i] = (pos[2 * i, k] - pos[2 * i + 1, k]) / (2 * h)
            J_fd[3:, i] = so3_log(rot[2 * i, k] @ rot[2 * i + 1, k].T) / (2 * h)
        np.testing.assert_allclose(J, J_fd, rtol=0, atol=1e-6)
        # Joints that do not support the frame's link have exactly zero columns.
        assert np.count_nonzero(np.all(J == 0.0, axis=0)) > 0


def test_jacobian_out_argument(human66):
    data = kt.Data(human66)
    kt.forward_kinematics(human66, data, kt.random_configuration(human66, 2))
    J = kt.frame_jacobian(human66, data, "RightHand")
    for order in "CF":
        out = np.empty((6, human66.nv), order=order)
        assert kt.frame_jacobian(human66, data, "RightHand", out=out) is out
        np.testing.assert_array_equal(out, J)
    with pytest.raises(ValueError, match=r"\(6, 72\)"):
        kt.frame_jacobian(human66, data, "RightHand", out=np.empty((6, 71)))
    with pytest.raises(ValueError, match=r"\(6, 72\)"):
        kt.frame_jacobian(human66, data, "RightHand", out=np.empty((6, 72), dtype=np.float32))


def test_views_equal_placements_and_batch(human66):
    qs = np.array([kt.random_configuration(human66, s) for s in range(5)])
    pos, rot = kt.forward_kinematics_batch(human66, qs)
    assert pos.shape == (5, human66.num_frames, 3) and rot.shape == (5, human66.num_frames, 3, 3)
    data = kt.Data(human66)
    for k in range(5):
        kt.forward_kinematics(human66, data, qs[k])
        np.testing.assert_array_equal(data.frame_positions, pos[k])
        np.testing.assert_array_equal(data.frame_rotations, rot[k])
        np.testing.assert_array_equal(data.link_positions[0], qs[k][:3])


def test_integrate_difference_round_trip(human66):
    q0 = kt.random_configuration(human66, 3)
    q1 = kt.random_configuration(human66, 4)
    v = kt.difference(human66, q0, q1)
    assert v.shape == (72,)
    q = kt.integrate(human66, q0, v)
    np.testing.assert_allclose(q[:3], q1[:3], atol=1e-12)
    np.testing.assert_allclose(np.abs(q[3:7] @ q1[3:7]), 1.0, atol=1e-12)
    np.testing.assert_allclose(q[7:], q1[7:], atol=1e-12)
    np.testing.assert_allclose(kt.difference(human66, q0, q0), 0.0, atol=1e-15)
    np.testing.assert_allclose(kt.integrate(human66, q0, v, dt=0.0), q0, atol=1e-15)


def test_unnormalised_quaternion_and_int_arrays(human66):
    data = kt.Data(human66)
    q = human66.neutral()
    q[3:7] = [2.0, 0.0, 0.0, 0.0]
    kt.forward_kinematics(human66, data, q)
    np.testing.assert_allclose(data.frame_rotations[0], np.eye(3))
    kt.forward_kinematics(human66, data, np.zeros(73, dtype=int) + np.r_[0, 0, 0, 1, np.zeros(69)].astype(int))


@pytest.mark.parametrize("bad", [np.zeros(72), np.zeros((1, 73)), ["a"] * 73, None, np.zeros(73, dtype=complex)])
def test_bad_configuration_is_a_value_error_naming_the_shape(human66, bad):
    with pytest.raises(ValueError, match=r"q: expected an array of shape \(73,\)"):
        kt.forward_kinematics(human66, kt.Data(human66), bad)


def test_zero_quaternion_and_bad_frames(human66):
    data = kt.Data(human66)
    with pytest.raises(ValueError, match="quaternion"):
        kt.forward_kinematics(human66, data, np.zeros(73))
    kt.forward_kinematics(human66, data, human66.neutral())
    with pytest.raises(ValueError, match="out of range"):
        kt.frame_jacobian(human66, data, 10_000)
    with pytest.raises(ValueError, match="RightHand"):
        kt.frame_jacobian(human66, data, "Tail")
    with pytest.raises(ValueError, match=r"\(N, 73\)"):
        kt.forward_kinematics_batch(human66, np.zeros((3, 70)))
    with pytest.raises(ValueError, match=r"v: expected .*\(72,\)"):
        kt.integrate(human66, human66.neutral(), np.zeros(3))


def test_no_leak_over_10000_calls(human66):
    """RSS stays within 2 MiB over 10 000 FK + Jacobian calls (after a warm-up of 1 000)."""
    data = kt.Data(human66)
    q = kt.random_configuration(human66, 5)
    out = np.empty((6, human66.nv))

    def run(n):
        for _ in range(n):
            kt.forward_kinematics(human66, data, q)
            kt.frame_jacobian(human66, data, 12, out=out)
            kt.frame_jacobian(human66, data, "Head")
            data.frame_positions

    run(1000)
    before = rss_bytes()
    run(10_000)
    assert rss_bytes() - before < 2 * 1024 * 1024
