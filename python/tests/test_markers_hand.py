"""Marker IK (per frame and `markers ik` on an OpenSim model), the FABRIK solver and the hand
tracker from Python."""
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import cli_rows, shared_file


def _marker_problem(human66, seed=5):
    """human66 with a marker set, a random pose's marker positions and a start near it."""
    model = human66.with_markers(kt.marker_set_names()[0])
    markers = [n for n in model.frame_names if n not in human66.frame_names]
    q = model.neutral()
    q[:3] = [0.0, 0.0, 1.0]
    q[7:] = np.random.default_rng(seed).uniform(-0.2, 0.2, model.num_joints)
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q)
    measured = data.frame_positions[[model.frame_id(n) for n in markers]]
    start = model.neutral()
    start[:3] = q[:3]
    return model, markers, measured, start


def test_marker_ik_recovers_a_pose(human66):
    model, markers, measured, start = _marker_problem(human66, seed=2)
    solver = kt.MarkerIk(model, kt.MarkerIkOptions(accuracy=1e-8))
    for name in markers:
        solver.add_marker(name)
    solver.set_state(start)
    result = solver.solve(measured)
    assert isinstance(result, kt.MarkerIkResult) and result.markers_used == len(markers)
    assert result.rms_error < 1e-3
    out = solver.solve_sequence(np.stack([measured, measured]))
    assert out["q"].shape == (2, model.nq) and np.all(out["rms_error"] < 1e-3)
    with pytest.raises(ValueError, match=rf"\({len(markers)}, 3\)"):
        solver.solve(measured[:-1])


def test_markers_ik_on_an_opensim_model():
    walk = "data/opensim/gait2354_walk/"
    result = kt.markers_ik(shared_file(walk + "subject01_simbody.osim"), shared_file(walk + "subject01_walk1.trc"),
                           setup=shared_file(walk + "subject01_Setup_IK.xml"))
    n = len(result["times"])
    assert result["values"].shape == (n, len(result["columns"])) and result["q"].shape[0] == n
    assert np.nanmax(result["rms_error"]) < 0.05
    reference = kt.read_mot(shared_file(walk + "subject01_walk1_ik_REFERENCE.mot"))
    k = reference["columns"].index("knee_angle_r")
    j = result["columns"].index("knee_angle_r")
    ref = np.interp(result["times"], reference["times"], reference["values"][:, k])
    assert np.abs(result["values"][:, j] - ref).max() < 2.0  # degrees, as OpenSim's IK


def test_markers_ik_writes_the_cli_files(cli, tmp_path):
    """The CLI's job: the same .mot and marker-error .sto, byte for byte; the summary's fields."""
    walk = "data/opensim/gait2354_walk/"
    setup = shared_file(walk + "subject01_Setup_IK.xml")
    subprocess.run([cli, "markers", "ik", "--setup", setup, "--out", str(tmp_path / "cli.mot"), "--errors",
                    str(tmp_path / "cli.sto"), "--quiet"], check=True, capture_output=True)
    result = kt.markers_ik(shared_file(walk + "subject01_simbody.osim"), shared_file(walk + "subject01_walk1.trc"),
                           setup=setup, out=str(tmp_path / "py.mot"), errors=str(tmp_path / "py.sto"))
    assert (tmp_path / "cli.mot").read_bytes() == (tmp_path / "py.mot").read_bytes()
    assert (tmp_path / "cli.sto").read_bytes() == (tmp_path / "py.sto").read_bytes()
    assert result["summary"]["frames"] == len(result["times"]) and result["summary"]["failed_frames"] == 0
    assert any("ForceSet" in w for w in result["warnings"])


def test_markers_ik_with_a_marker_set_equals_the_cli(cli, tmp_path, human66):
    static = shared_file("data/c3d/pycgm_Static_trial.c3d")
    movement = shared_file("data/c3d/pycgm_Movement_trial.c3d")
    rows = cli_rows(cli, ["markers", "ik", "--model", "human66", "--markerset", "human66_plugin_gait", "--static", static,
                          "--markers", movement], tmp_path / "pig.csv")
    result = kt.markers_ik(human66, movement, marker_set="human66_plugin_gait", static=static)
    assert result["calibration"]["rms_after"] < result["calibration"]["rms_before"]
    assert result["model"].num_frames > human66.num_frames  # the marker frames
    np.testing.assert_array_equal(result["times"], rows[:, 0])
    np.testing.assert_allclose(result["q"], rows[:, 1:-1], rtol=0, atol=1e-12)
    assert np.nanmedian(result["rms_error"]) < 0.03
    with pytest.raises(ValueError, match="marker_set"):
        kt.markers_ik(human66, movement)


def test_fabrik_chain_reaches_a_target():
    rest = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    skeleton = kt.fabrik.Skeleton([-1, 0, 1, 2], rest)
    assert skeleton.size == 4 and skeleton.length(2) == pytest.approx(1.0)
    solver = kt.fabrik.Solver(skeleton)
    solver.set_target(3, [1.5, 0.0, 2.0])
    positions = rest.copy()
    result = solver.solve(positions)
    assert result.status == kt.Status.converged and isinstance(result, kt.Result)
    np.testing.assert_allclose(positions[3], [1.5, 0.0, 2.0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(np.diff(positions, axis=0), axis=1), 1.0, atol=1e-9)
    with pytest.raises(ValueError, match=r"\(4, 3\)"):
        solver.solve(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="writeable"):
        solver.solve(np.asfortranarray(rest))


def test_hand_tracking():
    result = kt.hand.track_recording(shared_file("data/hand/dfki_glove_recording_20210826.tsv"))
    summary = result["summary"]
    assert result["q"].shape == (6000, result["model"].nq) and summary["frames"] == 6000
    assert summary["solver"] == "fabrik" and summary["tip_error_mm_p50"] < 5.0
    assert summary["bone_length_drift_max_m"] < 1e-6


def test_hand_tracking_writes_the_cli_files(cli, tmp_path):
    tsv = shared_file("data/hand/dfki_glove_recording_20210826.tsv")
    subprocess.run([cli, "hand", "track", "--input", tsv, "--compare-lm", "--out", str(tmp_path / "cli.csv"), "--urdf",
                    str(tmp_path / "cli.urdf"), "--errors", str(tmp_path / "cli_e.csv"), "--quiet"], check=True,
                   capture_output=True)
    result = kt.hand.track_recording(tsv, compare_lm=True, out=str(tmp_path / "py.csv"), urdf=str(tmp_path / "py.urdf"),
                                     errors=str(tmp_path / "py_e.csv"))
    for a, b in (("cli.csv", "py.csv"), ("cli.urdf", "py.urdf"), ("cli_e.csv", "py_e.csv")):
        assert (tmp_path / a).read_bytes() == (tmp_path / b).read_bytes(), a
    assert result["summary"]["lm"]["solver"] == "lm" and result["summary"]["backend"] == "euclid"


def test_hand_tracking_calibrated_on_half():
    # Calibration on the first half; the unseen half's held-out middle-marker error (4.5 mm measured).
    result = kt.hand.track_recording(shared_file("data/hand/dfki_glove_recording_20210826.tsv"),
                                     calibration_frames=(0, 3000))
    summary = result["summary"]
    assert summary["calibration_frames"] == (0, 3000)
    assert summary["unseen"]["frames"] == 3000 and summary["frames"] == 6000
    assert 2.0 < summary["unseen"]["middle_error_mm_median"] < 7.0
    with pytest.raises(ValueError, match=r"calibration frames \[3000, 9000\)"):
        kt.hand.track_recording(shared_file("data/hand/dfki_glove_recording_20210826.tsv"),
                                calibration_frames=(3000, 9000))


def test_fabrik_stop_when_stalled():
    # A 3-hinge finger whose target needs its first hinge beyond its range: the solve stalls.
    rest = np.array([[0, 0, 0], [0, 0, 0.04], [0, 0, 0.08], [0, 0, 0.12]], dtype=float)
    sk = kt.fabrik.Skeleton([-1, 0, 1, 2], rest)
    for j in (1, 2, 3):
        sk.set_hinge(j, [1, 0, 0], 0.0, 1.6)
    solver = kt.fabrik.Solver(sk)
    solver.set_target(3, [0.0, 0.06, 0.08])
    positions = rest.copy()
    result = solver.solve(positions, tolerance=1e-9, max_iterations=200, restarts=0, stop_when_stalled=True)
    assert result.status == kt.Status.stationary and result.stalled and result.iterations < 200
    assert not result.unreachable and not result.gap
    assert abs(result.error - np.linalg.norm(positions[3] - [0.0, 0.06, 0.08])) < 1e-12


def test_marker_axes_must_match_the_model():
    """read_trc turns a TRC Z up; an OpenSim model is Y up: marker IK refuses the pair with a clear
    error instead of fitting permuted axes, and with_up (or y_up=False) makes them agree."""
    model = kt.Model.load(shared_file("data/opensim/gait2354_walk/subject01_simbody.osim"))
    assert np.allclose(model.up, [0, 1, 0])
    trc_path = shared_file("data/opensim/gait2354_walk/subject01_walk1.trc")
    z_up = kt.read_trc(trc_path)
    assert np.allclose(z_up.up, [0, 0, 1])
    ik = kt.MarkerIk(model)
    for name in z_up.names:
        if name in model.frame_names:
            ik.add_marker(name)
    with pytest.raises(ValueError, match=r"are \+Z up but model .* is \+Y up"):
        ik.solve_trajectories(z_up)
    y_up = kt.read_trc(trc_path, y_up=False)
    assert np.allclose(y_up.up, [0, 1, 0])
    converted = z_up.with_up(model)
    assert np.allclose(converted.positions, y_up.positions, equal_nan=True)
    out = ik.solve_trajectories(y_up)
    assert np.nanmedian(out["rms_error"]) < 0.02  # the same fit OpenSim gets (~1 cm)


def _solve(model, markers, measured, start, add=None, coordinates=None):
    solver = kt.MarkerIk(model, kt.MarkerIkOptions(accuracy=1e-10, max_iterations=500, first_solve_iterations=2000))
    for name in markers:
        solver.tasks.add_marker(name)
    if add is not None:
        add(solver)
    solver.set_state(start)
    solver.solve(measured, coordinates)
    return solver


def test_marker_ik_tasks_add_remove_and_reweigh_from_python(human66):
    """MarkerIk.tasks is the C++ solver's TaskSet: a coordinate task added from Python is the task
    the solver reads (the same solution as the C++ call behind add_coordinate_task, and the
    solution is stationary for Σ‖m(q) − m̂‖² + w (s − ŝ)²); weight 0 or removal gives the solution
    without it; posture and marker tasks likewise."""
    model, markers, measured, start = _marker_problem(human66)
    free = _solve(model, markers, measured, start).state
    joint, w = "jRightKnee_roty", 0.05
    j = 7 + model.joint_names.index(joint)
    target = free[j] + 0.4
    ids = []
    with_task = _solve(model, markers, measured, start, lambda s: ids.append(s.tasks.add_coordinate(joint, w)),
                       [target])
    assert with_task.tasks.num_coordinates == 1 and with_task.tasks.coordinate_joint(ids[0]) == joint
    assert with_task.tasks.coordinate_weight(ids[0]) == w
    shorthand = _solve(model, markers, measured, start, lambda s: s.add_coordinate_task(joint, w), [target])
    np.testing.assert_array_equal(with_task.state, shorthand.state)
    q = with_task.state
    assert abs(q[j] - target) < abs(free[j] - target) - 0.05  # pulled towards the target

    data = kt.Data(model)
    frames = [model.frame_id(n) for n in markers]

    def cost(x):
        kt.forward_kinematics(model, data, x)
        return np.sum((data.frame_positions[frames] - measured) ** 2) + w * (x[j] - target) ** 2

    h = 1e-6
    step = np.zeros(model.nq)
    step[j] = h
    gradient = (cost(q + step) - cost(q - step)) / (2 * h)
    assert abs(gradient) < 1e-3 * abs(2 * w * (q[j] - target)), gradient

    # Re-weighed to 0, then removed: the solution without the task.
    solver = with_task
    solver.tasks.set_coordinate_weight(ids[0], 0.0)
    solver.set_state(start)
    solver.solve(measured, [target])
    np.testing.assert_allclose(solver.state, free, atol=1e-7)
    solver.tasks.set_coordinate_weight(ids[0], w)
    solver.tasks.remove_coordinate(ids[0])
    solver.set_state(start)
    solver.solve(measured, [target])
    np.testing.assert_allclose(solver.state, free, atol=1e-7)
    with pytest.raises(ValueError):
        solver.tasks.set_coordinate_weight(ids[0], 1.0)  # removed

    # A posture task on that joint alone pulls it the same way; values set through tasks.
    weights = np.zeros(model.num_joints)
    weights[j - 7] = w
    posture = _solve(model, markers, measured, start,
                     lambda s: s.tasks.set_posture_values(s.tasks.add_posture(weights), np.full(model.num_joints,
                                                                                                  target)))
    np.testing.assert_allclose(posture.state, q, atol=1e-7)
    np.testing.assert_array_equal(posture.tasks.posture_weights(0), weights)

    # Measurements through tasks, solve() without arguments; a marker removed or re-weighed.
    solver = _solve(model, markers, measured, start)
    for i, p in enumerate(measured):
        solver.tasks.set_measurement(i, p)
    solver.set_state(start)
    result = solver.solve()
    np.testing.assert_array_equal(solver.state, free)
    assert result.markers_used == len(markers) and solver.tasks.marker_frame(0) == markers[0]
    solver.tasks.remove_marker(0)
    solver.tasks.set_marker_weight(1, 2.0)
    assert solver.tasks.marker_weight(1) == 2.0 and solver.tasks.num_markers == len(markers)
    solver.set_state(start)
    assert solver.solve(measured).markers_used == len(markers) - 1

    # The frame-target solvers' TaskSets refuse marker tasks, naming the solver.
    with pytest.raises(ValueError, match="marker"):
        kt.DynamicalIk(human66).tasks.add_marker("Head")
