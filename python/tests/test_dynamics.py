"""Dynamics from Python: RNEA agrees with CRBA·a + h, ABA inverts RNEA, energy and CoM."""
import numpy as np
import pytest

import kinetrack as kt


@pytest.fixture(scope="module")
def setup():
    model = kt.Model.human48()
    rng = np.random.default_rng(3)
    q = kt.random_configuration(model, 11)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    return model, kt.DynamicsData(model), q, v, a


def test_rnea_equals_crba_plus_bias(setup):
    model, data, q, v, a = setup
    tau = kt.rnea(model, data, q, v, a)
    M = kt.crba(model, data, q)
    h = kt.nonlinear_effects(model, data, q, v)
    assert tau.shape == (model.nv,) and M.shape == (model.nv, model.nv)
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    np.testing.assert_allclose(tau, M @ a + h, atol=1e-8)


def test_aba_inverts_rnea(setup):
    model, data, q, v, a = setup
    tau = kt.rnea(model, data, q, v, a)
    np.testing.assert_allclose(kt.aba(model, data, q, v, tau), a, atol=1e-8)


def test_energy_momentum_com(setup):
    model, data, q, v, _ = setup
    M = kt.crba(model, data, q)
    assert kt.kinetic_energy(model, data, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-10)
    assert kt.spatial_momentum(model, data, q, v).shape == (6,)
    com = kt.center_of_mass(model, data, q)
    assert com.shape == (3,) and np.linalg.norm(com - q[:3]) < 0.5


def test_wrenches_and_gravity(setup):
    model, data, q, v, a = setup
    zero_g = kt.rnea(model, data, q, v, a, gravity=[0, 0, 0])
    g = kt.rnea(model, data, q, v, a)
    assert g[2] - zero_g[2] == pytest.approx(model.total_mass * 9.80665, rel=1e-9)
    weight = [{"link": "Pelvis", "force": [0, 0, model.total_mass * 9.80665], "point": q[:3]}]
    np.testing.assert_allclose(kt.rnea(model, data, q, v, a, wrenches=weight)[:3], zero_g[:3], atol=1e-8)


def test_dynamics_errors(setup):
    model, data, q, v, a = setup
    with pytest.raises(ValueError, match=r"v: expected .*\(54,\)"):
        kt.rnea(model, data, q, v[:3], a)
    with pytest.raises(ValueError, match="another model"):
        kt.crba(kt.Model.human66(), data, kt.Model.human66().neutral())


def test_simulate_is_the_cli_job(cli, tmp_path):
    """kt.simulate runs `kinetrack simulate`'s job: the same joint CSV; a hold released mid-run."""
    import subprocess
    args = dict(duration=0.3, initial="random", seed=3, holds=["LeftHand", "RightHand@0.1"], posture_gain=5.0)
    subprocess.run([cli, "simulate", "--model", "human48", "--duration", "0.3", "--initial", "random", "--seed", "3",
                    "--hold", "LeftHand", "--hold", "RightHand@0.1", "--posture-gain", "5", "--out",
                    str(tmp_path / "cli.csv")], check=True, capture_output=True)
    r = kt.simulate("human48", out=str(tmp_path / "py.csv"), **args)
    assert (tmp_path / "cli.csv").read_bytes() == (tmp_path / "py.csv").read_bytes()
    assert r["q"].shape[0] == len(r["times"]) == 31 and r["diverged"] == ""
    assert max(r["hold_drift"]) < 1e-6 and len(r["hold_force_z"]) == 2
    with pytest.raises(ValueError, match="release time"):
        kt.simulate("human48", holds=["LeftHand@-1"])
