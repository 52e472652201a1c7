"""Pin-and-drag IK from Python: a hand drag holds pinned feet, roles switch, many drag links,
beyond reach stays bounded, pins and drags as TaskSets, modes as strings, the result's status,
options as keywords, errors for bad input."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file


def start(model, seed=3):
    q = model.neutral()
    rng = np.random.default_rng(seed)
    q[7:] = rng.uniform(-0.3, 0.3, model.num_joints)
    lo, hi = model.lower_limits, model.upper_limits
    finite = np.isfinite(lo) & np.isfinite(hi)
    q[7:][finite] = 0.5 * (lo[finite] + hi[finite])
    q[:3] = [0.0, 0.0, 1.0]
    if "jRightElbow_rotz" in model.joint_names:  # human66: elbows bent, away from the closed chain's singularity
        q[7 + model.joint_names.index("jRightElbow_rotz")] = -1.0
        q[7 + model.joint_names.index("jLeftElbow_rotz")] = 1.0
    return q


def frame_position(model, q, name):
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q)
    return data.frame_positions[model.frame_id(name)].copy()


def test_hand_drag_holds_pinned_feet():
    model = kt.Model.human66()
    ik = kt.PinDragIk(model)
    ik.set_state(start(model))
    ik.pin("RightToe", kt.PinDragMode.pose)
    ik.pin("LeftToe", kt.PinDragMode.pose)
    ik.drag("RightHand")
    assert ik.role("RightHand") == kt.PinDragRole.dragged
    goal = frame_position(model, ik.state, "RightHand") + [0.0, -0.1, 0.1]
    worst = 0.0
    for _ in range(200):
        ik.set_drag_target("RightHand", goal)
        r = ik.update(0.01)
        worst = max(worst, r.pin_position_error)
    assert worst < 1e-4
    assert np.linalg.norm(frame_position(model, ik.state, "RightHand") - goal) < 1e-3
    assert np.all(np.isfinite(ik.velocity)) and ik.velocity.shape == (model.nv,)
    assert np.all(np.abs(ik.velocity) <= ik.velocity_limits + 1e-12)


def test_roles_switch_and_release():
    model = kt.Model.human66()
    ik = kt.PinDragIk(model, kt.PinDragOptions(pin_gain=40.0, drag_gain=15.0))
    assert ik.options.pin_gain == 40.0
    ik.set_state(start(model))
    ik.pin("LeftToe", kt.PinDragMode.pose)
    ik.pin("RightHand")
    ik.drag("LeftHand")
    ik.set_drag_target("LeftHand", frame_position(model, ik.state, "LeftHand") + [0.05, 0.0, 0.0])
    for _ in range(50):
        ik.update(0.01)
    ik.pin("LeftHand")
    ik.drag("RightHand")
    assert ik.role("LeftHand") == kt.PinDragRole.pinned
    ik.set_drag_target("RightHand", frame_position(model, ik.state, "RightHand") + [0.0, 0.0, 0.05])
    r = None
    for _ in range(100):
        r = ik.update(0.01)
    assert r.pin_position_error < 1e-4
    ik.release_all()
    assert ik.role("RightHand") == kt.PinDragRole.free


def test_beyond_reach_on_icub_is_bounded_and_within_limits():
    model = kt.Model.load(shared_file("models/icub/iCubGazeboV2_5_model.urdf"))
    ik = kt.PinDragIk(model)
    ik.set_state(start(model))
    ik.pin("l_sole", kt.PinDragMode.pose)
    ik.pin("r_sole", kt.PinDragMode.pose)
    ik.drag("r_hand")
    ik.set_drag_target("r_hand", frame_position(model, ik.state, "r_hand") + [2.0, -3.0, 1.0])
    for _ in range(300):
        ik.update(0.01)
        q = ik.state
        assert np.all(np.isfinite(q))
        assert np.all(q[7:] <= model.upper_limits + 1e-12) and np.all(q[7:] >= model.lower_limits - 1e-12)


def test_icub_coupling_rows_hold_while_a_hand_drag_pushes_into_them():
    model = kt.icub_for_retargeting(kt.Model.load(shared_file("models/icub/iCubGazeboV2_5_model.urdf")))
    q = model.neutral()
    q[2] = 0.6
    for side in ("l_", "r_"):  # arms abducted and bent: inside every coupling row
        for joint, value in (("shoulder_roll", 0.7), ("shoulder_pitch", -0.4), ("elbow", 0.9)):
            q[7 + model.joint_names.index(side + joint)] = value
    # The hand's direction of motion when the right shoulder adducts (into coupling row 4).
    q2 = q.copy()
    q2[7 + model.joint_names.index("r_shoulder_roll")] -= 1e-4
    direction = frame_position(model, q2, "r_hand") - frame_position(model, q, "r_hand")
    direction /= np.linalg.norm(direction)
    ik = kt.PinDragIk(model)
    ik.set_state(q)
    ik.pin("l_sole", kt.PinDragMode.pose)
    ik.pin("r_sole", kt.PinDragMode.pose)
    ik.pin("l_hand")
    ik.drag("r_hand")
    start = frame_position(model, q, "r_hand")
    target = start + 0.15 * direction
    active = 0
    for k in range(300):  # 2 s towards the target, then held
        ik.set_drag_target("r_hand", start + min(1.0, (k + 1) / 200) * (target - start))
        r = ik.update(0.01)
        assert r.row_violation <= 1e-9
        assert r.pin_position_error < 1e-4
        active = max(active, r.active_rows)
    assert active > 0
    assert np.linalg.norm(frame_position(model, ik.state, "r_hand") - target) < 0.01


def test_pins_and_drags_are_task_sets_and_modes_are_strings():
    model = kt.Model.human66()
    a, b = kt.PinDragIk(model), kt.PinDragIk(model)
    for ik in (a, b):
        ik.set_state(start(model))
    assert kt.PinDragMode is kt.TargetType
    a.pin("RightToe", "pose")
    a.pin("LeftToe", kt.PinDragMode.pose)
    t = a.drag("RightHand", "position", 15.0)
    assert a.drags.type(t) == "position" and a.drags.frame(t) == "RightHand"
    assert len(a.pins) == 2
    # the same on the sets: values left unset are taken where the frames are
    b.pins.add_pose("RightToe", position_gain=50.0, orientation_gain=50.0)
    b.pins.add_pose("LeftToe", position_gain=50.0, orientation_gain=50.0)
    d = b.drags.add_position("RightHand", gain=15.0)
    assert b.role("RightHand") == kt.PinDragRole.dragged
    goal = frame_position(model, a.state, "RightHand") + [0.0, 0.02, 0.02]
    for k in range(30):
        ra, rb = a.update(0.01), b.update(0.01)
        if k == 0:
            a.set_drag_target("RightHand", goal, [0.0, 0.1, 0.1])
            b.drags.set_position(d, goal, [0.0, 0.1, 0.1])
    np.testing.assert_array_equal(a.state, b.state)
    assert ra.status == kt.Status.converged and ra.iterations >= 1 and ra.mnte == rb.mnte
    assert isinstance(ra, kt.Result) and ra.limit_violation == 0.0 and ra.row_violation == 0.0
    b.pins.set_enabled(0, False)
    assert b.role("RightToe") == kt.PinDragRole.free
    with pytest.raises(ValueError, match="mode"):
        a.pin("LeftHand", "elbow")


def test_bad_input_raises_value_error():
    model = kt.Model.human66()
    ik = kt.PinDragIk(model)
    with pytest.raises(ValueError, match="NoSuchLink"):
        ik.pin("NoSuchLink")
    ik.drag("RightHand")
    with pytest.raises(ValueError, match="not finite"):
        ik.set_drag_target("RightHand", [np.nan, 0.0, 0.0])
    with pytest.raises(ValueError, match="pin_gain"):
        kt.PinDragIk(model, kt.PinDragOptions(pin_gain=-1.0))
    with pytest.raises(ValueError, match="gain"):
        ik.pin("LeftHand", kt.PinDragMode.position, -5.0)
    with pytest.raises(ValueError, match="dt"):
        ik.update(0.0)
    with pytest.raises(ValueError, match="unknown option"):
        kt.PinDragOptions(gain=1.0)
