"""Labelling of unlabelled markers from Python: a stripped, shuffled real trial labelled frame by
frame and as a whole trial, the points never moved, bad input as ValueError / ParseError."""
import json
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

WALK = "data/opensim/gait2354_walk/"


def read_walk():
    """The gait2354 walk (Y up, m) as (names, times, positions (N, M, 3) NaN when missing)."""
    path = shared_file(WALK + "subject01_walk1.trc")
    lines = open(path).read().splitlines()
    names = [n for n in lines[3].split("\t")[2:] if n]
    rows = [line.split("\t") for line in lines[5:] if line.strip()]
    times = np.array([float(r[1]) for r in rows])
    pos = np.full((len(rows), len(names), 3), np.nan)
    for f, r in enumerate(rows):
        for k in range(len(names)):
            v = r[2 + 3 * k:5 + 3 * k]
            if len(v) == 3 and all(x.strip() for x in v):
                pos[f, k] = [float(x) / 1000.0 for x in v]
    return names, times, pos


def test_label_frames_and_trial_of_a_shuffled_walk():
    osim = shared_file(WALK + "subject01_simbody.osim")
    names, times, pos = read_walk()
    # The model's markers that the trial has (as `markers label --strip-labels` takes them).
    worn = [n for n in kt.Labeller(osim).marker_names if n in names]
    labeller = kt.Labeller(osim, markers=worn)
    assert len(labeller.marker_names) == 31
    rng = np.random.default_rng(4)
    frames = []
    for f in range(40):
        present = pos[f][~np.isnan(pos[f]).any(axis=1)]
        frames.append(present[rng.permutation(len(present))])
    for f in range(40):
        out = labeller.label(frames[f], times[f])
        assert out["state"] in ("initialised", "tracking")
        for i, name in enumerate(labeller.marker_names):
            p = out["marker_point"][i]
            assert p >= 0, name
            np.testing.assert_array_equal(frames[f][p], pos[f, names.index(name)])  # picked, never moved
    trial = labeller.label_trial(frames, times[:40])
    assert trial["marker_point"].shape == (40, len(labeller.marker_names))
    assert trial["initialisations"] == 1 and trial["lost_frames"] == 0
    truth = np.stack([pos[:40, names.index(n)] for n in labeller.marker_names], axis=1)
    np.testing.assert_array_equal(trial["positions"], truth)
    assert trial["q"].shape == (40, labeller.model.nq)
    with pytest.raises(ValueError, match=r"\(N, 3\)"):
        labeller.label(np.zeros((4, 2)), 10.0)
    with pytest.raises(ValueError, match="does not increase"):
        labeller.label(frames[0], 0.0)


def test_bad_models_and_files(tmp_path):
    osim = shared_file(WALK + "subject01_simbody.osim")
    with pytest.raises(ValueError, match="No.Such"):
        kt.Labeller(osim, markers=["R.ASIS", "L.ASIS", "No.Such"])
    with pytest.raises(ValueError, match="marker_set"):
        kt.Labeller(kt.Model.human66())
    bad = tmp_path / "bad.csv"
    bad.write_text("frame,time,x,y,z\n1,0,1,2,3\n1,0,1,2,oops\n")
    with pytest.raises(kt.ParseError) as err:
        kt.read_point_csv(str(bad))
    assert err.value.line == 3 and "field 'z'" in err.value.message
    good = tmp_path / "good.csv"
    good.write_text("frame,time,x,y,z\n1,0,1000,2000,3000\n2,0.01,,,\n3,0.02,nan,1,1\n")
    c = kt.read_point_csv(str(good), 0.001)
    assert [f.shape for f in c["frames"]] == [(1, 3), (0, 3), (0, 3)] and c["dropped"] == [0, 0, 1]


def test_limb_search_options_and_relabelled_count():
    osim = shared_file(WALK + "subject01_simbody.osim")
    names, times, pos = read_walk()
    worn = [n for n in kt.Labeller(osim).marker_names if n in names]
    opts = kt.LabellerOptions()
    assert opts.limb_search and opts.swap_check_distance > 0 and opts.limb_search_interval >= 1
    opts.limb_search = False
    opts.swap_check_distance = 0.0
    opts.limb_gate = 0.2
    assert not opts.limb_search and opts.limb_gate == 0.2
    for o in (kt.LabellerOptions(), opts):
        labeller = kt.Labeller(osim, markers=worn, options=o)
        for f in range(10):
            present = pos[f][~np.isnan(pos[f]).any(axis=1)]
            out = labeller.label(present, times[f])
            assert out["relabelled"] == 0  # a clean walk: nothing to search again
            assert out["assigned"] == 31
    assert opts.prediction == kt.PredictionSpace.markers and opts.init_vertical_offset == pytest.approx(0.2)
    joints = kt.LabellerOptions(prediction=kt.PredictionSpace.joints, init_vertical_offset=0.0)
    assert joints.prediction == kt.PredictionSpace.joints and joints.init_vertical_offset == 0.0
    labeller = kt.Labeller(osim, markers=worn, options=joints)
    for f in range(10):
        present = pos[f][~np.isnan(pos[f]).any(axis=1)]
        assert labeller.label(present, times[f])["assigned"] == 31
    bad = kt.LabellerOptions(init_vertical_offset=-0.1)
    with pytest.raises(ValueError, match="init_vertical_offset"):
        kt.Labeller(osim, markers=worn, options=bad)
    bad = kt.LabellerOptions()
    bad.limb_gate = 0.0
    with pytest.raises(ValueError, match="limb_gate"):
        kt.Labeller(osim, markers=worn, options=bad)


def test_label_markers_is_the_cli_job(cli, tmp_path):
    """kt.label_markers runs `kinetrack markers label`'s job: the same labelled TRC, angles and report."""
    osim = shared_file("data/opensim/gait2354_walk/subject01_simbody.osim")
    trc = shared_file("data/opensim/gait2354_walk/subject01_walk1.trc")
    c, p = tmp_path / "cli", tmp_path / "py"
    c.mkdir(), p.mkdir()
    subprocess.run([cli, "markers", "label", "--model", osim, "--input", trc, "--strip-labels", "--out",
                    str(c / "l.trc"), "--ik-out", str(c / "ik.mot"), "--report", str(c / "r.csv"), "--summary-json",
                    str(c / "s.json"), "--quiet"], check=True, capture_output=True)
    r = kt.label_markers(osim, trc, strip_labels=True, out=str(p / "l.trc"), ik_out=str(p / "ik.mot"),
                         report=str(p / "r.csv"), summary_json=str(p / "s.json"))
    assert (c / "l.trc").read_bytes() == (p / "l.trc").read_bytes()
    assert (c / "ik.mot").read_bytes() == (p / "ik.mot").read_bytes()
    timing = ("microseconds", "ik_microseconds")
    cols = lambda f: [",".join(x for i, x in enumerate(line.split(",")) if i not in (13, 14))
                      for line in f.read_text().splitlines()]
    assert cols(c / "r.csv") == cols(p / "r.csv"), timing
    summary = json.loads((c / "s.json").read_text())
    for key in ("frames", "markers", "labelled_median", "gaps", "initialisations", "lost_frames"):
        assert r["summary"][key] == summary[key], key
    assert r["positions"].shape == (summary["frames"], summary["markers"], 3)
    assert r["marker_names"] == summary["marker_names"] and "23 coordinates" in r["description"]


def test_labeller_from_a_built_in_model_with_a_static_trial():
    """A built-in model by name: the CLI's subject (clinical limits, VSK height, calibration on the static trial)."""
    vsk = shared_file("data/c3d/pycgm_Test.vsk")
    static = shared_file("data/c3d/pycgm_Static_trial.c3d")
    labeller = kt.Labeller("human66", "human66_plugin_gait", static=static, vsk=vsk)
    assert len(labeller.marker_names) > 30 and labeller.model.num_joints == 66
    with pytest.raises(ValueError, match="reference is for a kinetrack.Model"):
        kt.Labeller("human66", "human66_plugin_gait", reference=np.zeros(3))


def worn_walk_labeller(options=None):
    osim = shared_file(WALK + "subject01_simbody.osim")
    names, times, pos = read_walk()
    worn = [n for n in kt.Labeller(osim).marker_names if n in names]
    return kt.Labeller(osim, markers=worn, options=options), names, times, pos


def test_start_from_the_true_labels_keeps_every_label_right():
    """start() given frame 0's true labels: no search, and the shuffled walk stays 100 % right."""
    labeller, names, times, pos = worn_walk_labeller()
    rng = np.random.default_rng(7)
    n = 60
    right = total = 0
    for f in range(n):
        rows = [k for k in range(len(names)) if not np.isnan(pos[f, k]).any()]
        order = rng.permutation(len(rows))
        points = pos[f, [rows[k] for k in order]]
        truth = np.full(len(labeller.marker_names), -1, dtype=int)  # marker → its point in `points`
        for p, k in enumerate(order):
            name = names[rows[k]]
            if name in labeller.marker_names:
                truth[labeller.marker_names.index(name)] = p
        out = labeller.start(points, times[f], truth) if f == 0 else labeller.label(points, times[f])
        if f == 0:
            np.testing.assert_array_equal(out["marker_point"], truth)
            started = labeller.initialisations
        assert out["state"] != "lost", f
        present = truth >= 0
        right += int((out["marker_point"][present] == truth[present]).sum())
        total += int(present.sum())
        assert out["confidence"].shape == (len(labeller.marker_names),)
        assert out["swaps_corrected"] == 0 and out["unsure"] >= 0
    assert right == total
    assert labeller.initialisations == started  # no search after the start
    with pytest.raises(ValueError, match="marker_point"):
        labeller.start(points, times[n], truth[:-1])
    with pytest.raises(ValueError):
        labeller.start(points, times[n] + 1.0, np.zeros(len(labeller.marker_names), dtype=int))  # a point used twice


def test_confidence_per_label_nan_for_a_gap():
    """label(): confidence (M,) in [0, 1] for every label, NaN for a gap; label_trial: (N, M), NaN where -1."""
    opts = kt.LabellerOptions()
    assert opts.unsure_threshold == pytest.approx(0.8) and opts.confidence_sigma > 0 and not opts.drop_unsure
    labeller, names, times, pos = worn_walk_labeller()
    hidden = labeller.marker_names.index("R.Heel")
    frames = []
    for f in range(30):
        keep = [k for k in range(len(names)) if not np.isnan(pos[f, k]).any()]
        if 10 <= f < 15:  # R.Heel hidden for 5 frames
            keep = [k for k in keep if names[k] != "R.Heel"]
        frames.append(pos[f, keep])
    for f in range(30):
        out = labeller.label(frames[f], times[f])
        c = out["confidence"]
        gap = out["marker_point"] < 0
        assert np.isnan(c[gap]).all() and np.isfinite(c[~gap]).all(), f
        assert ((c[~gap] >= 0.0) & (c[~gap] <= 1.0)).all()
        assert out["unsure"] == int((c[~gap] < opts.unsure_threshold).sum())
        if 10 <= f < 15:
            assert gap[hidden] and np.isnan(c[hidden])
    trial = labeller.label_trial(frames, times[:30])
    c, mp = trial["confidence"], trial["marker_point"]
    assert c.shape == mp.shape == (30, len(labeller.marker_names))
    assert np.isnan(c[mp < 0]).all() and np.isfinite(c[mp >= 0]).all()
    assert np.isnan(c[10:15, hidden]).all()
    assert trial["unsure"].shape == trial["swaps_corrected"].shape == (30,)
    assert trial["unsure_frames"] == int((trial["unsure"] > 0).sum())
    np.testing.assert_array_equal(trial["unsure"], (c < opts.unsure_threshold).sum(axis=1))


def test_label_markers_drop_unsure_and_confidence_file(tmp_path):
    """label_markers(drop_unsure=True, confidence=...): the summary's unsure/swap figures and the confidence CSV."""
    osim = shared_file(WALK + "subject01_simbody.osim")
    trc = shared_file(WALK + "subject01_walk1.trc")
    conf = tmp_path / "c.csv"
    r = kt.label_markers(osim, trc, strip_labels=True, drop_unsure=True, confidence=str(conf))
    s = r["summary"]
    assert s["drop_unsure"] is True
    for key in ("unsure_frames", "unsure_labels", "swaps_corrected", "min_confidence", "unsure_threshold"):
        assert key in s, key
    assert s["unsure_frames"] == r["unsure_frames"] and s["swaps_corrected"] == int(r["swaps_corrected"].sum())
    lines = conf.read_text().splitlines()
    assert lines[0].split(",") == ["frame", "time"] + r["marker_names"]
    assert len(lines) == s["frames"] + 1
    # Dropped labels are gaps: no label in the output is below the threshold.
    c = r["confidence"]
    assert not (c[r["marker_point"] >= 0] < s["unsure_threshold"]).any()
    row = lines[1].split(",")[2:]
    for k, v in enumerate(row):
        assert (v == "") == (r["marker_point"][0, k] < 0)


def test_label_markers_calibrates_a_generic_opensim_model(tmp_path):
    """label_markers(static=...) on the generic Rajagopal model: the model is calibrated on the static
    trial (uniform scale, markers placed), every marker of the running trial is labelled right."""
    raj = "data/opensim/rajagopal_run_walk/"
    osim = shared_file(raj + "Rajagopal2016_GENERIC.osim")
    static = shared_file(raj + "static_run.trc")
    trc = shared_file(raj + "motion_capture_run.trc")
    out_model = tmp_path / "calibrated.osim"
    r = kt.label_markers(osim, trc, strip_labels=True, static=static, model_out=str(out_model))
    cal = r["calibration"]
    assert cal["method"].startswith("uniform scale") and 1.0 < cal["scale"] < 1.2
    assert cal["markers_placed"] >= 42 and cal["frames"] > 100
    assert out_model.exists() and "<Marker" in out_model.read_text()
    s = r["summary"]
    assert s["initialisations"] == 1 and s["lost_frames"] == 0
    # Stripped labels of a clean trial: the labelled positions are the trial's own, marker by marker.
    truth = kt.read_trc(trc, False)
    names = list(truth.names)
    pos = np.asarray(truth.positions)
    got = r["positions"]
    for k, name in enumerate(r["marker_names"]):
        want = pos[:, names.index(name)]
        ok = np.isfinite(want).all(axis=1)
        np.testing.assert_allclose(got[ok, k], want[ok], atol=1e-6)
