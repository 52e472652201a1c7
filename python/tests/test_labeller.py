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
