"""Muscles from Python: J = ∂l/∂q against central differences on arm26, and OpenSim's arm26 static
optimisation reproduced within OpenSim's test tolerance (activation RMS < 0.025)."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

ARM26 = "data/opensim/arm26_static_optimization/"


def read_sto(path):
    lines = open(path).read().splitlines()
    start = lines.index("endheader") + 1
    names = lines[start].split()
    values = np.array([[float(x) for x in l.split()] for l in lines[start + 1:] if l.strip()])
    return names, values


def test_jacobian_matches_finite_differences():
    paths = kt.MusclePaths(shared_file(ARM26 + "arm26.osim"))
    assert paths.names == ["TRIlong", "TRIlat", "TRImed", "BIClong", "BICshort", "BRA"]
    assert paths.coordinates == ["r_shoulder_elev", "r_elbow_flex"]
    q = np.array([0.3, 1.2])
    lengths, J = paths.evaluate(q)
    assert lengths.shape == (6,) and J.shape == (6, 2)
    h = 1e-6
    for k in range(2):
        dq = np.zeros(2)
        dq[k] = h
        fd = (paths.evaluate(q + dq)[0] - paths.evaluate(q - dq)[0]) / (2 * h)
        np.testing.assert_allclose(J[:, k], fd, atol=2e-6)
    assert (J[3:, 1] < 0).all()  # flexors shorten as the elbow flexes


def test_static_optimization_matches_opensim():
    setup = shared_file(ARM26 + "arm26_Setup_StaticOptimization.xml")
    r = kt.muscle_forces(setup=setup)
    names, ref = read_sto(shared_file(ARM26 + "std_Thelen2003Muscle_arm26_StaticOptimization_activation.sto"))
    assert r["names"] == names[1:]
    assert all(r["feasible"])
    times = np.asarray(r["times"])
    for k, name in enumerate(r["names"]):
        expected = np.interp(times, ref[:, 0], ref[:, 1 + k])
        rms = np.sqrt(np.mean((r["control"][:, k] - expected) ** 2))
        assert rms < 0.025, name
    assert np.abs(r["residual"]).max() < 1e-6


def test_threads_give_identical_results():
    setup = shared_file(ARM26 + "arm26_Setup_StaticOptimization.xml")
    for method in ("static-opt", "lp"):
        one = kt.muscle_forces(setup=setup, method=method, threads=1)
        many = kt.muscle_forces(setup=setup, method=method, threads=3)
        assert one["control"].tobytes() == many["control"].tobytes(), method
        assert one["residual"].tobytes() == many["residual"].tobytes(), method
    with pytest.raises(ValueError):
        kt.muscle_forces(setup=setup, threads=-1)


def test_bad_method_and_missing_file():
    with pytest.raises(ValueError):
        kt.muscle_forces(model="x.osim", motion="y.mot", method="simplex")
    with pytest.raises(kt.ParseError):
        kt.MusclePaths("/nonexistent/model.osim")


def test_muscle_forces_is_the_cli_job(cli, tmp_path):
    """kt.muscle_forces runs `kinetrack muscles static-opt`'s job: the same three .sto files."""
    import subprocess
    setup = shared_file("data/opensim/arm26_static_optimization/arm26_Setup_StaticOptimization.xml")
    subprocess.run([cli, "muscles", "static-opt", "--setup", setup, "--no-plot", "--out", str(tmp_path / "cli")],
                   check=True, capture_output=True)
    r = kt.muscle_forces(setup=setup, out=str(tmp_path / "py"))
    for name in ("activation.sto", "force.sto", "residuals.sto"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    assert "infeasible frames" in r["summary"] and r["activation"].shape == r["control"].shape
