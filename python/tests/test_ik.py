"""IK solvers from Python: DYN (targets from rotation matrices or quaternions w-x-y-z, step,
state and velocity, solve_sequence equal to a loop of steps), the whole-body and pair-wise
per-frame solvers, option structs, errors for bad targets, no leak."""
import numpy as np
import pytest

import kinetrack as kt
from helpers import rss_bytes

SEGMENTS = ["Pelvis", "L5", "T8", "Neck", "Head", "RightUpperArm", "RightForeArm", "RightHand", "LeftUpperArm",
            "LeftForeArm", "LeftHand", "RightUpperLeg", "RightLowerLeg", "RightFoot", "LeftUpperLeg",
            "LeftLowerLeg", "LeftFoot"]


def quaternion_wxyz(R):
    w = np.sqrt(max(0.0, 1.0 + np.trace(R))) / 2.0
    return np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w), (R[1, 0] - R[0, 1]) / (4 * w)])


def pose_targets(model, seed, spread=0.4):
    """Segment orientations and the pelvis position of a random pose near zero."""
    q = model.neutral()
    rng = np.random.default_rng(seed)
    q[7:] = np.clip(rng.uniform(-spread, spread, model.num_joints), model.lower_limits, model.upper_limits)
    q[:3] = [0.1, -0.2, 1.0]
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q)
    ids = [model.frame_id(s) for s in SEGMENTS]
    return q, data.frame_rotations[ids].copy(), data.frame_positions[model.frame_id("Pelvis")].copy()


def add_targets(solver, position_gain=10.0, gain=10.0):
    pelvis = solver.tasks.add_position("Pelvis", gain=position_gain)
    rotations = [solver.tasks.add_orientation(s, gain=gain) for s in SEGMENTS]
    return pelvis, rotations


@pytest.mark.parametrize("use_quaternions", [False, True])
def test_dynamical_ik_converges_to_a_static_pose(human66, use_quaternions):
    _, R, p = pose_targets(human66, 1)
    ik = kt.DynamicalIk(human66)
    pelvis, rotations = add_targets(ik)
    ik.tasks.set_position(pelvis, p)
    for t, Rt in zip(rotations, R):
        ik.tasks.set_orientation(t, quaternion_wxyz(Rt) if use_quaternions else Rt)
    assert ik.mnte() > 1e-3
    for _ in range(300):
        result = ik.step(0.01)
    assert result.status == kt.Status.converged and isinstance(result, kt.StepResult)
    assert ik.mnte() < 1e-8
    assert ik.state.shape == (73,) and ik.velocity.shape == (72,)
    data = kt.Data(human66)
    kt.forward_kinematics(human66, data, ik.state)
    np.testing.assert_allclose(data.frame_positions[human66.frame_id("Pelvis")], p, atol=1e-6)
    assert np.abs(ik.velocity).max() < 1e-3


def test_gain_zero_stays_put(human66):
    ik = kt.DynamicalIk(human66)
    t = ik.tasks.add_orientation("RightHand", gain=0.0)
    ik.tasks.set_orientation(t, [0.0, 1.0, 0.0, 0.0])
    q0 = ik.state
    for _ in range(10):
        ik.step(0.01)
    np.testing.assert_allclose(ik.state, q0, atol=1e-12)


def test_solve_sequence_equals_a_loop_of_steps(human66):
    frames = [pose_targets(human66, s, spread=0.1) for s in range(6)]
    R = np.array([f[1] for f in frames])
    p = np.array([f[2] for f in frames])[:, None, :]
    a, b = kt.DynamicalIk(human66), kt.DynamicalIk(human66)
    pa, ra = add_targets(a)
    add_targets(b)
    states, mnte = [], []
    for k in range(len(frames)):
        a.tasks.set_position(pa, p[k, 0])
        for t, Rt in zip(ra, R[k]):
            a.tasks.set_orientation(t, Rt)
        a.step(0.01)
        states.append(a.state)
        mnte.append(a.mnte())
    out = b.solve_sequence(0.01, positions=p, rotations=R)
    np.testing.assert_array_equal(out["q"], np.array(states))
    np.testing.assert_array_equal(out["mnte"], mnte)
    assert out["status"].shape == (6,) and np.all(out["status"] == int(kt.Status.converged))
    # quaternions give the same result to rounding; per-frame dt as an array
    c = kt.DynamicalIk(human66)
    add_targets(c)
    quats = np.array([[quaternion_wxyz(Rt) for Rt in Rk] for Rk in R])
    out_q = c.solve_sequence(np.full(6, 0.01), positions=p, rotations=quats)
    np.testing.assert_allclose(out_q["q"], out["q"], atol=1e-6)  # the test's quaternions are rounded


def test_solve_sequence_shapes_are_checked(human66):
    ik = kt.DynamicalIk(human66)
    add_targets(ik)
    with pytest.raises(ValueError, match=r"\(N, 1, 3\)"):
        ik.solve_sequence(0.01, positions=np.zeros((4, 2, 3)), rotations=np.tile(np.eye(3), (4, 17, 1, 1)))
    with pytest.raises(ValueError, match=r"\(N, 17, 3, 3\)"):
        ik.solve_sequence(0.01, positions=np.zeros((4, 1, 3)), rotations=np.zeros((4, 16, 3, 3)))
    with pytest.raises(ValueError, match="same number of frames"):
        ik.solve_sequence(0.01, positions=np.zeros((4, 1, 3)), rotations=np.tile(np.eye(3), (5, 17, 1, 1)))
    with pytest.raises(ValueError, match=r"dt"):
        ik.solve_sequence(np.full(3, 0.01), positions=np.zeros((4, 1, 3)), rotations=np.tile(np.eye(3), (4, 17, 1, 1)))


def test_bad_targets(human66):
    ik = kt.DynamicalIk(human66)
    t = ik.tasks.add_orientation("Head")
    with pytest.raises(ValueError, match="rotation"):
        ik.tasks.set_orientation(t, np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"\(3, 3\)"):
        ik.tasks.set_orientation(t, np.eye(4))
    with pytest.raises(ValueError, match="quaternion"):
        ik.tasks.set_orientation(t, np.zeros(4))
    with pytest.raises(ValueError):
        ik.tasks.set_position(t, [0, 0, 1])  # an orientation-only task
    with pytest.raises(ValueError, match="RightHand"):
        ik.tasks.add_position("Nowhere")
    with pytest.raises(ValueError):
        ik.step(0.0)
    with pytest.raises(ValueError, match=r"\(73,\)"):
        ik.set_state(np.zeros(3))


def test_task_set_api(human66):
    ik = kt.DynamicalIk(human66)
    a = ik.tasks.add_pose("RightHand", position_weight=2.0)
    b = ik.tasks.add_orientation("Head")
    assert len(ik.tasks) == 2 and ik.tasks.frame(a) == "RightHand" and ik.tasks.type(a) == "pose"
    ik.tasks.set_enabled(b, False)
    ik.tasks.set_weights(a, 1.0, 0.5)
    ik.tasks.set_gains(a, 5.0, 5.0)
    ik.tasks.set_position(a, [0.0, -0.5, 1.2], velocity=[0.0, 0.0, 0.1])
    ik.tasks.set_orientation(a, np.eye(3), angular_velocity=[0.0, 0.0, 0.0])
    ik.tasks.remove(b)
    assert len(ik.tasks) == 1
    ik.step(0.01)


def test_posture_tasks_in_dyn(human66):
    # A posture task in DYN's task set: a velocity reference (no pose) is followed by the free
    # joints; pose values are pulled towards; removed, it is gone. Its own ids, numpy in and out.
    n = human66.num_joints
    options = kt.DynamicalIkOptions(gain_mode=kt.GainMode.per_step)
    ik = kt.DynamicalIk(human66, options)
    q = human66.neutral()
    q[7:] = np.clip(0.1, human66.lower_limits, human66.upper_limits)
    ik.set_state(q)
    p = ik.tasks.add_posture(1.0, gain=0.5)
    assert ik.tasks.postures == [p] and len(ik.tasks) == 0
    v = np.linspace(-0.2, 0.2, n)
    ik.tasks.set_posture_velocities(p, v)
    assert np.array_equal(ik.tasks.posture_velocities(p), v) and np.all(np.isnan(ik.tasks.posture_values(p)))
    ik.step(0.01)
    assert np.allclose(ik.velocity[6:], v, atol=1e-6) and np.allclose(ik.velocity[:6], 0.0)
    ik.tasks.set_posture_velocities(p, None)
    assert np.array_equal(ik.tasks.posture_velocities(p), np.zeros(n))
    goal = ik.state[7:] + 0.01
    ik.tasks.set_posture_values(p, goal)
    for _ in range(60):
        ik.step(0.01)
    assert np.allclose(ik.state[7:], goal, atol=1e-9)
    w = np.full(n, 0.5)
    ik.tasks.set_posture_weights(p, w)
    ik.tasks.set_posture_gain(p, 0.2)
    ik.tasks.set_posture_enabled(p, False)
    assert np.array_equal(ik.tasks.posture_weights(p), w)
    with pytest.raises(ValueError):
        ik.tasks.set_posture_velocities(p, np.full(n, np.nan))
    with pytest.raises(ValueError):
        ik.tasks.add_posture(np.ones(n - 1))
    with pytest.raises(ValueError):
        ik.tasks.set_posture_gain(p, -1.0)
    ik.tasks.remove_posture(p)
    assert ik.tasks.postures == []
    with pytest.raises(ValueError):
        ik.tasks.posture_weights(p)
    with pytest.raises(ValueError, match="not read by"):
        kt.PairwiseIk(human66).tasks.add_posture(1.0)


def test_options_and_help(human66):
    options = kt.DynamicalIkOptions(damping=1e-6, integrator=kt.BaseIntegrator.exponential)
    ik = kt.DynamicalIk(human66, options)
    assert ik.options.damping == 1e-6 and ik.options.integrator == kt.BaseIntegrator.exponential
    with pytest.raises(ValueError, match="unknown option 'dampin'"):
        kt.DynamicalIkOptions(dampin=1.0)
    assert "solve_sequence" in kt.DynamicalIk.__doc__ + "".join(dir(kt.DynamicalIk))
    assert "w, x, y, z" in kt.TaskSet.set_orientation.__doc__


@pytest.mark.parametrize("solver_type", ["wholebody", "wholebody-ipopt", "pairwise"])
def test_per_frame_solvers_reach_a_pose(human66, solver_type):
    _, R, p = pose_targets(human66, 2, spread=0.3)
    if solver_type == "wholebody":
        solver = kt.InstantaneousIk(human66, kt.InstantaneousIkOptions(max_iterations=200))
    elif solver_type == "wholebody-ipopt":
        options = kt.InstantaneousIkOptions(backend=kt.InstantaneousIkBackend.ipopt, max_iterations=200)
        solver = kt.InstantaneousIk(human66, options)
    else:
        solver = kt.PairwiseIk(human66, kt.PairwiseIkOptions(threads=1))
    pelvis, rotations = add_targets(solver)
    solver.tasks.set_position(pelvis, p)
    for t, Rt in zip(rotations, R):
        solver.tasks.set_orientation(t, Rt)
    result = solver.solve()
    assert result.mnte < 1e-8
    out = solver.solve_sequence(positions=p[None, None, :], rotations=R[None])
    assert out["q"].shape == (1, 73) and out["mnte"][0] < 1e-8


def test_dynamical_step_does_not_leak(human66):
    ik = kt.DynamicalIk(human66)
    _, rotations = add_targets(ik)
    R = np.eye(3)

    def run(n):
        for _ in range(n):
            ik.tasks.set_orientation(rotations[0], R)
            ik.step(0.01)
            ik.state

    run(1000)
    before = rss_bytes()
    run(10_000)
    assert rss_bytes() - before < 2 * 1024 * 1024


def test_errors_do_not_leak(human66, tmp_path):
    """Raising 10 000 ValueErrors (bad shapes, unknown names) and ParseErrors keeps RSS within 2 MiB."""
    ik = kt.DynamicalIk(human66)
    t = ik.tasks.add_orientation("Head")
    bad = np.zeros((2, 2))
    missing = str(tmp_path / "missing.bvh")

    def run(n):
        for _ in range(n):
            for call in (lambda: ik.tasks.set_orientation(t, bad), lambda: ik.tasks.add_position("Nowhere"),
                         lambda: kt.read_bvh(missing)):
                try:
                    call()
                except ValueError:
                    pass

    run(500)
    before = rss_bytes()
    run(10_000)
    assert rss_bytes() - before < 2 * 1024 * 1024
