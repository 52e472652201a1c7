"""The dynamics filter from Python: a standing sway filtered with both feet on the ground has no
residual after while the reference's pelvis drop needs one; the forces push and stay inside the
friction pyramid; a step gives finite output for a NaN reference; bad arguments raise."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file


@pytest.fixture(scope="module")
def human():
    model = kt.Model.human66()
    feet = kt.foot_contacts(model)
    q0 = model.neutral()
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q0)
    lowest = min(
        (kt.frame_placement(model, data, model.frame_id(f["link"]))[0] @ p
         + kt.frame_placement(model, data, model.frame_id(f["link"]))[1])[2]
        for f in feet for p in f["points"])
    q0[2] -= lowest
    return model, feet, q0


def test_foot_contacts(human):
    model, feet, _ = human
    assert [f["link"] for f in feet] == ["RightFoot", "LeftFoot"]
    assert all(f["points"].shape == (4, 3) for f in feet)


def test_filter_removes_the_residual_of_an_infeasible_drop(human):
    model, feet, q0 = human
    n, dt = 90, 1.0 / 90.0
    t = np.arange(n) * dt
    qs = np.tile(q0, (n, 1))
    s = np.clip(t - 0.3, 0.0, 0.3)
    qs[:, 2] -= 9.80665 * s * s  # the pelvis falls at 2 g: the feet would have to pull
    f = kt.DynamicsFilter(model, head="Head", contact_speed=10.0)
    out = kt.filter_motion(f, qs, t)
    assert out["q"].shape == (n, model.nq) and out["tau"].shape == (n, model.nv)
    assert np.isfinite(out["q"]).all() and np.isfinite(out["tau"]).all()
    weight = 73.0 * 9.80665
    assert np.abs(out["residual_after"]).max() < 1e-6 * weight
    assert np.linalg.norm(out["residual_before"][:, :3], axis=1).max() > 0.5 * weight
    assert set(out["status"]) == {"ok"}


def test_step_forces_in_the_cone_and_nan_gives_a_status(human):
    model, feet, q0 = human
    f = kt.DynamicsFilter(model, contact_source="given", friction=0.5)
    v = np.zeros(model.nv)
    a = np.zeros(model.nv)
    a[0] = 3.0  # the pelvis pushed forward at 3 m/s²: friction has to carry it
    fr = f.step(q0, v, a, 0.01, contact=[1, 1])
    F = fr["contact_forces"]
    assert (F[:, 2] > 0).all()
    assert (np.abs(F[:, :2]) <= 0.5 * F[:, 2:3] + 1e-6).all()
    assert np.abs(fr["residual_after"]).max() < 1e-6
    bad = q0.copy()
    bad[10] = np.nan
    fr = f.step(bad, v, a, 0.01, contact=[1, 1])
    assert fr["status"] == "invalid_reference"
    assert np.isfinite(fr["q"]).all() and np.isfinite(fr["tau"]).all()


def test_bad_arguments_raise(human):
    model, _, q0 = human
    with pytest.raises(ValueError):
        kt.DynamicsFilter(model, friction=0.0)
    with pytest.raises(ValueError):
        kt.DynamicsFilter(model, contact_source="plates")
    f = kt.DynamicsFilter(model, contact_source="given")
    with pytest.raises(ValueError):
        f.step(q0, np.zeros(model.nv), np.zeros(model.nv), 0.01, contact=[1])


def test_pinned_contacts_stop_a_sliding_foot(human):
    """A figure moving sideways at 0.5 m/s set down on both feet: pinned contacts stop the feet
    within the touch-down step (1e-6 m after it); Baumgarte damping alone (pin_contacts=False)
    lets them slide on (3.6 mm)."""
    model, _, q0 = human
    data = kt.Data(model)
    foot = model.frame_id("RightFoot")
    v0 = np.zeros(model.nv)
    v0[1] = 0.5
    zero = np.zeros(model.nv)
    slide = {}
    for pin in (True, False):
        f = kt.DynamicsFilter(model, contact_source="given", pin_contacts=pin)
        f.reset(q0, v0)
        positions = []
        for _ in range(13):
            fr = f.step(q0, zero, zero, 1.0 / 120.0, contact=[1, 1])
            assert fr["status"] == "ok"
            kt.forward_kinematics(model, data, fr["q"])
            positions.append(kt.frame_placement(model, data, foot)[1][:2])
        p = np.array(positions[1:])  # after the touch-down step
        slide[pin] = np.linalg.norm(p - p[0], axis=1).max()
    assert slide[True] < 1e-4
    assert slide[False] > 2e-3


def _plates(model, feet, q0, n):
    """Plates carrying the weight, split between the feet, a little off what a still stance needs:
    rows fx, fy, fz, px, py, pz, mx, my, mz per foot (world)."""
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q0)
    weight = 73.0 * 9.80665
    w = np.zeros((n, 2, 9))
    for b, foot in enumerate(feet):
        R, p = kt.frame_placement(model, data, model.frame_id(foot["link"]))
        under = R @ (0.5 * (foot["points"][0] + foot["points"][2])) + p
        for k in range(n):
            share = 0.5 + 0.2 * np.sin(0.1 * k) * (1 if b == 0 else -1)
            w[k, b, :3] = [4.0, -3.0, share * weight]
            w[k, b, 3:6] = [under[0], under[1], 0.0]
            w[k, b, 8] = 0.5
    return w


def test_measured_loads_are_applied_and_balance_the_base(human):
    """contact_forces='measured': the plates are applied as they are (the reported contact forces
    are the measured ones), the base residual is zero with residual_softness=0 and small but
    not zero with the preset's 0.03, and a wrong measured shape raises."""
    model, feet, q0 = human
    n, dt = 60, 0.01
    qs = np.tile(q0, (n, 1))
    qs[:, 0] += 0.02 * np.sin(2 * np.pi * np.arange(n) * dt)  # sway forward and back
    t = np.arange(n) * dt
    w = _plates(model, feet, q0, n)
    flags = [1] * (2 * n)
    exact = kt.DynamicsFilter(model, contact_source="given", contact_forces="measured", residual_softness=0.0)
    out = kt.filter_motion(exact, qs, t, contact=flags, measured=w)
    assert set(out["status"]) == {"ok"}
    assert np.abs(out["residual_after"]).max() < 1e-6
    assert np.linalg.norm(out["residual_before"][:, :3], axis=1).max() > 5.0  # plates ≠ what the sway needs
    soft = kt.DynamicsFilter(model, contact_source="given", contact_forces="measured")  # the preset, σ = 0.03
    out_soft = kt.filter_motion(soft, qs, t, contact=flags, measured=w)
    assert 1e-6 < np.abs(out_soft["residual_after"]).max() < np.abs(out_soft["residual_before"]).max()
    one = kt.DynamicsFilter(model, contact_source="given", contact_forces="measured")
    fr = one.step(qs[0], np.zeros(model.nv), np.zeros(model.nv), dt, contact=[1, 1], measured=w[0])
    assert np.allclose(fr["contact_forces"], w[0, :, :3])
    with pytest.raises(ValueError):
        one.step(qs[0], np.zeros(model.nv), np.zeros(model.nv), dt, contact=[1, 1], measured=w[0, :1])
    with pytest.raises(ValueError):
        one.step(qs[0], np.zeros(model.nv), np.zeros(model.nv), dt, contact=[1, 1])  # measured missing
    with pytest.raises(ValueError):
        kt.DynamicsFilter(model, contact_forces="plates")
    with pytest.raises(ValueError):
        kt.DynamicsFilter(model, contact_forces="measured", residual_softness=-1.0)
    with pytest.raises(ValueError):
        kt.DynamicsFilter(model, weight_base=0.0)
    assert kt.DynamicsFilter(model, weight_base=10.0, anchor_at_reference=True) is not None


def test_com_adjustment_finds_the_offset_the_loads_imply(human):
    """A still figure held up by its weight acting 1 cm in front of its mass centre: the mean
    residual moment is weight × 1 cm, and moving the Head's mass centre forward (by ~1 cm ×
    total / head mass) removes it; the head's vertical axis is not adjusted."""
    model, _, q0 = human
    n, dt = 30, 0.01
    qs = np.tile(q0, (n, 1))
    t = np.arange(n) * dt
    c = kt.center_of_mass(model, kt.DynamicsData(model), q0)
    weight = 73.0 * 9.80665
    loads = np.zeros((n, 1, 9))
    loads[:, 0, 2] = weight
    loads[:, 0, 3:6] = c + [0.01, 0.0, 0.0]
    out = kt.estimate_com_adjustment(model, "Head", qs, t, loads, ["Pelvis"])
    assert out["frames"] == n
    assert abs(np.linalg.norm(out["mean_before"][3:]) - 0.01 * weight) < 0.05 * 0.01 * weight
    assert np.abs(out["mean_after"][3:]).max() < 1e-6 * weight
    assert out["offset"][out["axis_kept"]] == 0.0
    with pytest.raises(ValueError):
        kt.estimate_com_adjustment(model, "Head", qs, t, loads[:5], ["Pelvis"])


def test_soles_fitted_to_a_pitched_stance(human):
    """fit_soles_to_stance: a figure standing pitched 15 deg toe down gets soles tilted 15 deg in the
    foot frame (sole_tilt), flat on the ground at that pose; bad arguments raise."""
    model, feet, q0 = human
    q = q0.copy()
    half = np.radians(15.0) / 2.0
    q[3:7] = [np.cos(half), 0.0, np.sin(half), 0.0]  # base quaternion (w, x, y, z): pitch about y
    qs = np.tile(q, (10, 1))
    t = np.arange(10) * 0.01
    fitted = kt.fit_soles_to_stance(model, feet, qs, t)
    assert [f["link"] for f in fitted] == ["RightFoot", "LeftFoot"]
    data = kt.Data(model)
    kt.forward_kinematics(model, data, q)
    for before, after in zip(feet, fitted):
        assert kt.sole_tilt(model, before) == pytest.approx(0.0, abs=1e-9)
        assert np.degrees(kt.sole_tilt(model, after)) == pytest.approx(15.0, abs=1e-6)
        R, p = kt.frame_placement(model, data, model.frame_id(after["link"]))
        z = (after["points"] @ R.T + p)[:, 2]
        assert np.ptp(z) < 1e-9
    with pytest.raises(ValueError):
        kt.fit_soles_to_stance(model, feet, qs, t, still_speed=0.0)
    with pytest.raises(ValueError):
        kt.fit_soles_to_stance(model, feet, qs, np.zeros(10))


TIMINGS = ("time_per_frame_us_p50", "time_per_frame_us_p95")


def run_both(cli, tmp_path, model, motion, suffixes, **options):
    """`kinetrack dynamics filter` and kt.dynamics_filter on the same input, each writing --out,
    --torques, --summary-json and --report-csv; returns the CLI's stdout, the Python result and the
    two sets of paths."""
    import subprocess
    flags = []
    for key, value in options.items():
        flags += ["--" + key.replace("_", "-"), str(value)]
    paths = {}
    for who in ("cli", "py"):
        paths[who] = {k: str(tmp_path / f"{who}_{k}{suffixes.get(k, '')}")
                      for k in ("out", "torques", "summary_json", "report_csv")}
    files = [a for k, p in paths["cli"].items() for a in ("--" + k.replace("_", "-"), p)]
    done = subprocess.run([cli, "dynamics", "filter", "--model", model, "--input", motion, "--quiet", *flags, *files],
                          check=True, capture_output=True, text=True)
    r = kt.dynamics_filter(model, motion, **options, **paths["py"])
    return done.stdout, r, paths


def without_timings(text):
    return [line for line in text.splitlines() if not line.strip().startswith(("time per frame", "wrote"))]


def check_same_job(stdout, r, paths):
    """The files are the same bytes (the summary JSON but its timings), the printed summary is
    Python's text, and the arrays are those of the files."""
    import json
    for k in ("out", "torques", "report_csv"):
        with open(paths["cli"][k], "rb") as a, open(paths["py"][k], "rb") as b:
            assert a.read() == b.read(), k
    with open(paths["cli"]["summary_json"]) as a, open(paths["py"]["summary_json"]) as b:
        cli_json, py_json = json.load(a), json.load(b)
    for key in TIMINGS:
        cli_json.pop(key), py_json.pop(key), r["summary"].pop(key)
    assert cli_json == py_json == r["summary"]
    assert without_timings(stdout) == without_timings(r["text"])
    n = len(r["times"])
    assert r["q"].shape[0] == r["tau"].shape[0] == len(r["status"]) == n == r["summary"]["frames"]
    for table in ("filtered", "torques", "report"):
        assert r[table]["values"].shape == (n, len(r[table]["columns"])), table
    # The per-frame report CSV: time, status, then the table's other columns (6 digits).
    with open(paths["cli"]["report_csv"]) as f:
        header = f.readline().strip().split(",")
    assert header == ["time", "status", *r["report"]["columns"][1:]]
    report = np.genfromtxt(paths["cli"]["report_csv"], delimiter=",", skip_header=1, dtype=str)
    assert list(report[:, 1]) == r["report"]["status"] == r["status"]
    values = np.delete(report, 1, axis=1).astype(float)
    np.testing.assert_allclose(values, r["report"]["values"], rtol=1e-5, atol=1e-6, equal_nan=True)


def test_dynamics_filter_job_is_the_cli_job_on_a_bvh_walk(cli, tmp_path):
    """kt.dynamics_filter runs `kinetrack dynamics filter`'s job: a Bandai BVH walk tracked on human66,
    the same joint CSV, torques, report and summary; the arrays are the files' numbers."""
    walk = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    stdout, r, paths = run_both(cli, tmp_path, "human66", walk, {"out": ".csv", "torques": ".csv", "report_csv": ".csv"})
    check_same_job(stdout, r, paths)
    assert "BVH tracked on human66" in r["text"] and r["summary"]["sole"] == "stance"
    # The joint CSV: time, the table's columns, gap; the numbers written in shortest round-trip form.
    with open(paths["cli"]["out"]) as f:
        header = f.readline().strip().split(",")
    assert header == ["time", *r["filtered"]["columns"], "gap"]
    rows = np.loadtxt(paths["cli"]["out"], delimiter=",", skiprows=1)
    np.testing.assert_array_equal(rows[:, 0], r["times"])
    np.testing.assert_array_equal(rows[:, 1:-1], r["filtered"]["values"])
    np.testing.assert_array_equal(rows[:, 1:-1], r["q"])  # the joint CSV's layout is kinetrack's q
    with open(paths["cli"]["torques"]) as f:
        header = f.readline().strip().split(",")
    assert header == ["time", *r["torques"]["columns"], "valid"]
    tau = np.loadtxt(paths["cli"]["torques"], delimiter=",", skiprows=1)
    valid = tau[:, -1] == 1
    np.testing.assert_array_equal(tau[valid, 1:-1], r["torques"]["values"][valid])
    np.testing.assert_array_equal(r["tau"], r["torques"]["values"])


def test_dynamics_filter_job_is_the_cli_job_with_force_plates(cli, tmp_path):
    """The gait2354 walk with its force plates applied and the torso's mass centre adjusted (OpenSim
    RRA's preset): the same .mot, .sto, report and summary from the CLI and from Python."""
    walk = "data/opensim/gait2354_walk/"
    osim, mot, grf = (shared_file(walk + f) for f in ("subject01_simbody.osim", "subject01_walk1_ik_REFERENCE.mot",
                                                       "subject01_walk1_grf.xml"))
    stdout, r, paths = run_both(cli, tmp_path, osim, mot, {"out": ".mot", "torques": ".sto", "report_csv": ".csv"},
                                grf=grf, adjust_com="torso")
    check_same_job(stdout, r, paths)
    assert r["summary"]["grf_mode"] == "apply" and r["summary"]["com_adjustment"]["body"] == "torso"
    for table, path in (("filtered", paths["cli"]["out"]), ("torques", paths["cli"]["torques"])):
        written = kt.read_mot(path)
        assert written["columns"] == r[table]["columns"], table
        np.testing.assert_allclose(written["values"], r[table]["values"], rtol=1e-7, atol=1e-9, err_msg=table)
    assert r["filtered"]["columns"][0] == kt.read_mot(mot)["columns"][0]  # OpenSim's coordinates, its order


def test_dynamics_filter_job_refuses_bad_options():
    """Options the CLI checks while parsing are the job's own checks too (ValueError naming the flag)."""
    with pytest.raises(ValueError, match="--grf-mode"):
        kt.dynamics_filter("human66", "walk.csv", grf_mode="plates")
    with pytest.raises(ValueError, match="--sole"):
        kt.dynamics_filter("human66", "walk.csv", sole="flat")
    with pytest.raises(ValueError, match="--adjust-com needs --grf"):
        kt.dynamics_filter("human66", "walk.csv", adjust_com="torso")
