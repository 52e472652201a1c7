"""kinetrack.prior from Python: a subject fit, the density prior, a GP step against LN, a
prior-assisted sparse solve on human66, prior files (round trip, another model, broken files)."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

BANDAI = "data/bvh/bandai/dataset-2_wave-right-hand_normal_001.bvh"


@pytest.fixture(scope="module")
def fit():
    return kt.prior.fit_subject("bandai", [shared_file(BANDAI)], rate=30.0, center_twists=True)


def test_fit_reproduces_its_hand_targets(fit):
    assert fit.theta.shape[1] == 25 and len(kt.prior.joint_names) == 25
    hands = fit.forward_kinematics(fit.theta[3])
    assert np.allclose(hands["positions"], fit.hands(3)["positions"], atol=1e-12)
    assert fit.quality["hand_orientation_rms"] < 1e-6
    assert np.all(fit.theta >= fit.lower) and np.all(fit.theta <= fit.upper)


def test_gp_step_moves_toward_the_density_and_beats_ln(fit):
    prior = kt.prior.upper_body_prior([fit], inc=2)
    assert prior.inc == 2 and prior.occupied_cells(0) >= 1
    grad, fallbacks = prior.gradient(fit.theta[0], fit.hands(0)["positions"])
    assert grad.shape == (25,) and np.all(np.isfinite(grad)) and fallbacks == 0
    gp = kt.prior.GradientProjection(fit, prior, iterations=1)
    h = fit.hands(1)
    out = gp.solve(fit.theta[0], h["positions"], h["rotations"], method="GP")
    assert out["theta"].shape == (25,) and out["position_error"] < 0.05
    ln = kt.prior.run_subject(fit, None, "LN")
    assert kt.prior.run_subject(fit, prior, "GP") < ln
    with pytest.raises(ValueError, match="method"):
        gp.solve(fit.theta[0], h["positions"], h["rotations"], method="XX")
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        gp.solve(fit.theta[0], h["positions"][:1], h["rotations"])


def test_prior_assisted_sparse_solve_and_prior_files(tmp_path, human66, human48):
    data = kt.Data(human66)
    rng = np.random.default_rng(1)
    motion = np.tile(human66.neutral(), (200, 1))
    motion[:, 2] = 1.0
    motion[:, 7:] = rng.normal(0.0, 0.2, (200, human66.num_joints))
    prior = kt.prior.build_human_prior(human66, motion)
    path = str(tmp_path / "prior.bin")
    prior.write(path)
    back = kt.prior.read_prior(path)
    assert back.model_name == prior.model_name and back.joint_names == prior.joint_names
    targets = ["Head", "RightHand", "LeftHand"]
    ik = kt.prior.SparsePriorIk(human66, targets, back)
    ik.set_state(motion[0])
    near = motion[0].copy()
    near[7:] += rng.normal(0.0, 0.02, human66.num_joints)  # a small motion: one frame reaches it
    kt.forward_kinematics(human66, data, near)
    ids = [human66.frame_id(n) for n in targets]
    out = ik.solve(data.frame_positions[ids], data.frame_rotations[ids])
    assert out["q"].shape == (human66.nq,) and out["position_error"] < 0.05
    with pytest.raises(ValueError, match="learned on model"):
        kt.prior.SparsePriorIk(human48, targets, back)
    (tmp_path / "broken.bin").write_bytes(b"KTPRIOR\0\x01\0\0\0")
    with pytest.raises(kt.ParseError) as e:
        kt.prior.read_prior(str(tmp_path / "broken.bin"))
    assert e.value.file.endswith("broken.bin") and "truncated" in e.value.message


def test_prior_inside_dyn_pulls_the_free_joints_and_keeps_the_targets(human66, human48):
    data = kt.Data(human66)
    rng = np.random.default_rng(2)
    motion = np.tile(human66.neutral(), (200, 1))
    motion[:, 2] = 1.0
    motion[:, 7:] = rng.normal(0.3, 0.05, (200, human66.num_joints))  # people hold every joint near 0.3
    prior = kt.prior.build_human_prior(human66, motion)
    options = kt.DynamicalIkOptions()
    options.gain_mode = kt.GainMode.per_step
    targets = ["Head", "RightHand", "LeftHand"]

    def run(with_prior):
        ik = kt.DynamicalIk(human66, options)
        ids = [ik.tasks.add_position(n, gain=1.0) for n in targets]
        start = motion[0].copy()
        start[7:] = 0.0
        ik.set_state(start)
        kt.forward_kinematics(human66, data, start)
        goal = [data.frame_positions[human66.frame_id(n)].copy() for n in targets]
        for k in range(len(targets)):
            ik.tasks.set_position(ids[k], goal[k])
        posture = kt.prior.PriorPosture(ik, prior) if with_prior else None
        for _ in range(100):
            if posture:
                assert posture.update(1.0 / 30.0) == 0
            ik.step(1.0 / 30.0)
        kt.forward_kinematics(human66, data, ik.state)
        error = max(np.linalg.norm(data.frame_positions[human66.frame_id(n)] - goal[k]) for k, n in enumerate(targets))
        return ik, posture, error

    plain, _, plain_error = run(False)
    pulled, posture, pulled_error = run(True)
    assert plain.tasks.postures == [] and pulled.tasks.postures == [posture.task]
    assert np.all(pulled.tasks.posture_weights(posture.task) > 0.0)
    assert pulled.tasks.posture_velocities(posture.task).shape == (human66.num_joints,)
    # The targets hold (they are met by the start pose) while the free joints move toward 0.3.
    assert plain_error < 1e-6 and pulled_error < 0.01
    right_knee = human66.joint_id("jRightKnee_rotz")
    assert abs(plain.state[7 + right_knee]) < 1e-9 and pulled.state[7 + right_knee] > 0.1
    with pytest.raises(ValueError, match="learned on model"):
        kt.prior.PriorPosture(kt.DynamicalIk(human48), prior)
    with pytest.raises(ValueError):
        pulled.tasks.set_posture_weights(posture.task, -np.ones(human66.num_joints))


def test_sparse_dynamical_ik_tracks_three_targets_with_the_prior(human66, human48):
    data = kt.Data(human66)
    rng = np.random.default_rng(4)
    motion = np.tile(human66.neutral(), (200, 1))
    motion[:, 2] = 1.0
    motion[:, 7:] = rng.normal(0.3, 0.05, (200, human66.num_joints))
    prior = kt.prior.build_human_prior(human66, motion)
    targets = ["Head", "RightHand", "LeftHand"]
    ids = [human66.frame_id(n) for n in targets]
    ik = kt.prior.SparseDynamicalIk(human66, targets, prior)
    ik.set_state(motion[0])
    goal = motion[0].copy()
    goal[7:] += rng.normal(0.0, 0.02, human66.num_joints)
    kt.forward_kinematics(human66, data, goal)
    for _ in range(5):
        out = ik.solve(data.frame_positions[ids], data.frame_rotations[ids], 1.0 / 60.0)
    assert out["q"].shape == (human66.nq,) and out["position_error"] < 1e-3
    assert out["orientation_error"] < 1e-2
    with pytest.raises(ValueError, match="dt must be finite"):
        ik.solve(data.frame_positions[ids], data.frame_rotations[ids], 0.0)
    # A target orientation that is not a rotation is refused like a NaN: the state stays.
    before = out["q"].copy()
    scaled = data.frame_rotations[ids] * 1e9
    refused = ik.solve(data.frame_positions[ids], scaled, 1.0 / 60.0)
    assert np.isnan(refused["position_error"]) and np.array_equal(refused["q"], before)
    with pytest.raises(ValueError, match="learned on model"):
        kt.prior.SparseDynamicalIk(human48, targets, prior)


def test_prior_build_and_sparse_tracking_are_the_cli_jobs(cli, tmp_path):
    """kt.prior.build and kt.prior.track_sparse run `prior build` and `track --targets --prior`: the same files."""
    import subprocess
    walk = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    run = shared_file("data/bvh/bandai/dataset-2_run_normal_001.bvh")
    subprocess.run([cli, "prior", "build", "--out", str(tmp_path / "cli.bin"), run], check=True, capture_output=True)
    built = kt.prior.build([run], str(tmp_path / "py.bin"))
    assert (tmp_path / "cli.bin").read_bytes() == (tmp_path / "py.bin").read_bytes()
    assert built["model"] == "human66" and built["frames_kept"][0][1] > 0
    subprocess.run([cli, "track", "--model", "human66", "--input", walk, "--targets", "head,hands", "--prior",
                    str(tmp_path / "cli.bin"), "--out", str(tmp_path / "cli.csv"), "--quiet"], check=True,
                   capture_output=True)
    r = kt.prior.track_sparse("human66", walk, "head,hands", prior=str(tmp_path / "py.bin"),
                              out=str(tmp_path / "py.csv"))
    assert (tmp_path / "cli.csv").read_bytes() == (tmp_path / "py.csv").read_bytes()
    assert r["q"].shape[0] == len(r["times"]) and r["frames"] == ["Head", "RightHand", "LeftHand"]
