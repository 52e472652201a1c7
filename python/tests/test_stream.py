"""StreamTracker (one frame at a time, any method) and retarget() (human motion onto the iCub, as
`kinetrack retarget`)."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import cli_rows, shared_file

SEGMENTS = ["Pelvis", "T8", "Head", "RightUpperArm", "RightForeArm", "RightHand", "LeftUpperArm", "LeftForeArm",
            "LeftHand", "RightUpperLeg", "RightLowerLeg", "RightFoot", "LeftUpperLeg", "LeftLowerLeg", "LeftFoot"]


def walk_targets(model, n=40, rate=100.0):
    """A smooth motion of the model and its segment placements (targets of a stream)."""
    data = kt.Data(model)
    frames = [model.frame_id(s) for s in SEGMENTS]
    rng = np.random.default_rng(4)
    amplitude = rng.uniform(-0.3, 0.3, model.num_joints)
    R, p = [], []
    for k in range(n):
        q = model.neutral()
        q[:3] = [0.01 * k, 0.0, 1.0]
        q[7:] = amplitude * np.sin(2 * np.pi * 0.5 * k / rate)
        kt.forward_kinematics(model, data, q)
        R.append(data.frame_rotations[frames].copy())
        p.append(data.frame_positions[frames].copy())
    return np.arange(n) / rate, np.array(R), np.array(p)


@pytest.mark.parametrize("method", [kt.Method.dynamical, kt.Method.wholebody])
def test_stream_tracker_follows_a_motion(human66, method):
    targets = [kt.StreamTarget(frame=s, position=(s == "Pelvis")) for s in SEGMENTS]
    times, R, p = walk_targets(human66)
    tracker = kt.StreamTracker(human66, targets, kt.TrackerOptions(method=method))
    assert tracker.num_targets == len(SEGMENTS)
    q0 = human66.neutral()
    q0[2] = 1.0
    tracker.set_state(q0)
    outcomes = [tracker.track(t, Rk, pk) for t, Rk, pk in zip(times, R, p)]
    assert isinstance(outcomes[0], kt.FrameOutcome) and not outcomes[0].gap
    assert max(o.mnte for o in outcomes[5:]) < 1e-4
    gap = tracker.track(times[-1] + 0.01, R[-1], p[-1], valid=False)
    assert gap.gap

    # the same frames in one call give the same configurations
    again = kt.StreamTracker(human66, targets, kt.TrackerOptions(method=method))
    again.set_state(q0)
    out = again.track_sequence(times, R, p)
    assert out["q"].shape == (len(times), human66.nq) and not out["gap"].any()
    np.testing.assert_allclose(out["mnte"], [o.mnte for o in outcomes], rtol=1e-9, atol=1e-15)


def test_stream_tracker_errors(human66):
    tracker = kt.StreamTracker(human66, [kt.StreamTarget(frame="Head")])
    with pytest.raises(ValueError, match=r"\(1, 3, 3\)"):
        tracker.track(0.0, np.zeros((2, 3, 3)), np.zeros((1, 3)))
    tracker.track(0.1, np.eye(3)[None], np.zeros((1, 3)))
    with pytest.raises(ValueError):
        tracker.track(0.05, np.eye(3)[None], np.zeros((1, 3)))  # time out of order
    with pytest.raises(ValueError, match="RightHand"):
        kt.StreamTracker(human66, [kt.StreamTarget(frame="Nowhere")])
    with pytest.raises(ValueError, match="unknown option"):
        kt.StreamTarget(frme="Head")


def test_retarget_equals_the_cli(cli, tmp_path):
    robot_path = shared_file("models/icub/iCubGazeboV2_5_model.urdf")
    clip = shared_file("data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh")
    rows = cli_rows(cli, ["retarget", "--robot", robot_path, "--input", clip], tmp_path / "icub.csv")
    robot = kt.Model.load(robot_path)
    result = kt.retarget(robot, clip)
    assert result.model.num_joints == robot.num_joints and result.q.shape == (rows.shape[0], robot.nq)
    np.testing.assert_allclose(result.q, rows[:, 1:-1], rtol=0, atol=1e-12)
    assert result.summary["limit_violation_max_rad"] < 1e-6


def test_server_and_replay_are_the_cli_jobs():
    """A live server set up as `kinetrack serve --layout` does, fed by replay() as `kinetrack replay` does."""
    import time
    mvnx = shared_file("data/mvnx/test_mocap.mvnx")
    with kt.Server("human66", layout=mvnx) as server:
        assert server.udp_port > 0 and server.ws_port > 0
        sent = kt.replay(mvnx, to=f"127.0.0.1:{server.udp_port}", rate=500.0)
        deadline = time.time() + 5.0
        while server.summary()["frames"] < sent["frames"] and time.time() < deadline:
            time.sleep(0.05)
    summary = server.summary()
    assert sent["protocol"] == "mxtp" and sent["frames"] == 112 and sent["sent"] == 112
    assert summary["frames"] == 112 and summary["failed"] == 0 and summary["malformed"] == 0
    assert "frames tracked" in server.summary_text() and "datagrams sent" in sent["summary"]
    with pytest.raises(ValueError, match="loops"):
        kt.replay(mvnx, loops=0)


def test_frame_solvers_are_listed_and_marker_ik_runs_under_the_stream(human66):
    names = [s["name"] for s in kt.frame_solvers()]
    for n in ["dynamical", "wholebody", "wholebody-ipopt", "pairwise", "marker-ik", "pin-drag"]:
        assert n in names
    # Marker IK under the stream: every target is a marker (a position), missing ones are NaN.
    targets = [kt.StreamTarget(frame=s, orientation=False, position=True) for s in SEGMENTS]
    times, R, p = walk_targets(human66)
    p[5, 3] = np.nan  # one marker missing in one frame: not an error
    tracker = kt.StreamTracker(human66, targets, kt.TrackerOptions(solver="marker-ik"))
    q0 = human66.neutral()
    q0[2] = 1.0
    tracker.set_state(q0)
    out = tracker.track_sequence(times, R, p)
    data = kt.Data(human66)
    frames = [human66.frame_id(s) for s in SEGMENTS]
    kt.forward_kinematics(human66, data, out["q"][-1])
    assert np.abs(data.frame_positions[frames] - p[-1]).max() < 1e-4
    with pytest.raises(ValueError, match="positions \\(markers\\) only"):
        kt.StreamTracker(human66, [kt.StreamTarget(frame="Head")], kt.TrackerOptions(solver="marker-ik"))
    with pytest.raises(ValueError, match="registered are"):
        kt.StreamTracker(human66, targets, kt.TrackerOptions(solver="no-such"))


def test_pin_drag_runs_under_the_stream(human66):
    times, R, p = walk_targets(human66, n=60)
    hand = SEGMENTS.index("RightHand")
    tracker = kt.StreamTracker(human66, [kt.StreamTarget(frame="RightHand", orientation=False, position=True)],
                               kt.TrackerOptions(solver="pin-drag"))
    q0 = human66.neutral()
    q0[2] = 1.0
    tracker.set_state(q0)
    out = tracker.track_sequence(times, R[:, hand:hand + 1], p[:, hand:hand + 1])
    data = kt.Data(human66)
    kt.forward_kinematics(human66, data, out["q"][-1])
    # The hand travels ~0.6 m at 1 m/s (the walk's drift) while pin-and-drag moves the base only
    # slowly (base_mobility 0.05): it follows within 2 cm.
    assert np.linalg.norm(p[-1, hand] - p[0, hand]) > 0.5
    assert np.linalg.norm(data.frame_positions[human66.frame_id("RightHand")] - p[-1, hand]) < 0.02


def test_server_retargets_a_live_capture_onto_the_g1():
    """`kinetrack serve --retarget` onto the G1 (MJCF): the capture replayed live, each frame's joint
    state read back over --udp-out, standing and holding its soles as the file job does."""
    import json
    import socket
    import threading
    mvnx = shared_file("data/mvnx/test_mocap.mvnx")
    robot_path = shared_file("models/unitree/g1/g1_29dof.xml")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(10.0)
    frames = []
    with kt.Server(robot_path, layout=mvnx, retarget=True, udp_out=f"127.0.0.1:{sock.getsockname()[1]}") as server:
        sent = {}
        # At the file's own rate (60 Hz, 1.9 s): DYN's step and the velocity limits follow the stream's clock.
        replay = threading.Thread(target=lambda: sent.update(kt.replay(mvnx, to=f"127.0.0.1:{server.udp_port}")))
        replay.start()
        while len(frames) < 112:
            message = json.loads(sock.recv(1 << 20))
            if message.get("type") == "frame":
                frames.append(message)
        replay.join()
    sock.close()
    summary = server.summary()
    assert sent["frames"] == 112 and summary["frames"] == 112 and summary["failed"] == 0
    live = np.array([m["q"] for m in frames])
    # The file job on the same capture: the live run differs by its causal foot contacts (decided
    # as frames arrive: the first sample of a standing foot is down at once, where the file job's
    # central speeds hold it from frame 3; the two part for the first 0.2 s) and the float32 poses.
    offline = kt.retarget(kt.Model.load(robot_path), mvnx)
    assert live.shape == offline.q.shape
    assert offline.quality["below_ground_mm"] <= 5.0
    np.testing.assert_allclose(live[12:, 2], offline.q[12:, 2], atol=0.002)  # the pelvis height, m
    joints = np.abs(live[12:, 7:] - offline.q[12:, 7:])
    assert np.median(joints) < 0.003 and joints.max() < 0.08, (np.median(joints), joints.max())
