"""C3D analog channels and force plates, .anc files and `kt.c3d_export` (the job of
`kinetrack c3d export`): OpenSim's walking2.c3d reading, and the Rajagopal walk's raw EMG."""
import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file


def read_std(path):
    """OpenSim's whitespace table after 'endheader': (columns, rows)."""
    lines = open(path).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("endheader")) + 1
    columns = lines[start].split()
    rows = np.array([[float(v) for v in line.split()] for line in lines[start + 1:] if line.strip()])
    return columns, rows


def test_ground_reactions_equal_opensims_reading():
    c3d = shared_file("data/c3d_forceplates/walking2.c3d")
    _, std = read_std(shared_file("data/c3d_forceplates/std_cop_walking2_grfs.sto"))
    g = kt.ground_reactions(c3d, location="cop")
    assert g["rate"] == 2000.0 and len(g["plates"]) == 2
    rows = np.rint(std[:, 0] * 2000).astype(int)
    for p, plate in enumerate(g["plates"]):
        assert plate["type"] == 2
        np.testing.assert_allclose(plate["force"][rows], std[:, 1 + 9 * p:4 + 9 * p], atol=1e-7)
        np.testing.assert_allclose(plate["point"][rows] * 1e3, std[:, 4 + 9 * p:7 + 9 * p], atol=1e-7)
        np.testing.assert_allclose(plate["moment"][rows] * 1e3, std[:, 7 + 9 * p:10 + 9 * p], atol=1e-6)
    up = kt.ground_reactions(c3d, location="cop", rotate="y-up")
    np.testing.assert_allclose(up["plates"][0]["force"][:, 1], g["plates"][0]["force"][:, 2])
    with pytest.raises(ValueError, match="force location 'middle'"):
        kt.ground_reactions(c3d, location="middle")


def test_read_analog_of_c3d_and_anc():
    a = kt.read_analog(shared_file("data/c3d_forceplates/walking2.c3d"))
    assert a["labels"][:3] == ["Fx1", "Fy1", "Fz1"] and a["values"].shape == (9992, 12)
    emg = kt.read_analog(shared_file("data/opensim/rajagopal_run_walk/emg_walk_raw.anc"))
    assert emg["rate"] == 2000.0
    assert emg["labels"][18:] == ["SOL", "GAS", "TA", "MH", "BF", "VL", "VM", "RF", "GMAX", "GMED"]
    # Counts × Range / 2^15 (bipolar 16 bit), in volts: SOL's first sample is −197 counts of ±2.5 V.
    assert emg["values"][0, 18] == pytest.approx(-197 * 2.5 / 32768)
    assert emg["values"].shape[1] == 28 and emg["values"].shape[0] > 4000
    with pytest.raises(kt.ParseError):
        kt.read_analog("missing.anc")


def test_c3d_export_writes_what_opensim_reads(tmp_path):
    c3d = shared_file("data/c3d_forceplates/walking2.c3d")
    r = kt.c3d_export(c3d, trc=str(tmp_path / "m.trc"), grf=str(tmp_path / "g.mot"),
                      external_loads=str(tmp_path / "g.xml"), analog=str(tmp_path / "a.sto"), location="cop")
    assert [p["body"] for p in r["plates"]] == ["calcn_r", "calcn_l"]
    assert "44 markers at 250 Hz" in r["text"] and len(r["written"]) == 4
    loads = kt.read_external_loads(str(tmp_path / "g.xml"))
    assert [f["applied_to_body"] for f in loads.forces] == ["calcn_r", "calcn_l"]
    markers = kt.read_trc(str(tmp_path / "m.trc"), y_up=False)
    assert markers.names[:3] == ["RTH1", "RFHD", "RTH3"]
    with pytest.raises(ValueError, match="no analog channel 'GMAX'"):
        kt.c3d_export(c3d, trc=str(tmp_path / "x.trc"), channels=["GMAX"])
    assert not (tmp_path / "x.trc").exists()


def test_emg_envelopes_of_the_rajagopal_walk(tmp_path, cli):
    anc = shared_file("data/opensim/rajagopal_run_walk/emg_walk_raw.anc")
    muscles = ["SOL", "GAS", "TA", "MH", "BF", "VL", "VM", "RF", "GMAX", "GMED"]
    e = kt.emg_envelopes(anc, muscles, out=str(tmp_path / "env.sto"), rate=100)
    assert e["labels"] == muscles and e["envelopes"].shape[1] == 10
    assert np.allclose(e["envelopes"].max(axis=0), 1.0)
    assert all(len(e["on"][m]) >= 1 for m in muscles)
    table = kt.read_mot(str(tmp_path / "env.sto"))
    assert table["columns"] == muscles
    # The CLI runs the same job.
    import subprocess
    out = subprocess.run([cli, "emg", "envelope", anc, "--channels", ",".join(muscles), "--quiet"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "SOL" in out.stdout and "on intervals" in out.stdout
    with pytest.raises(ValueError, match="no analog channel 'XYZ'"):
        kt.emg_envelopes(anc, ["XYZ"])


def test_gait_runs_the_day_on_gait2354(tmp_path):
    d = shared_file("data/opensim/gait2354_walk/subject01_simbody.osim").rsplit("/", 1)[0] + "/"
    r = kt.gait(d + "gait2354_simbody_GENERIC.osim", d + "subject01_walk1.trc", str(tmp_path / "day"),
                scale_setup=d + "subject01_Setup_Scale.xml", static_trial=d + "subject01_static.trc",
                ik_setup=d + "subject01_Setup_IK.xml", loads=d + "subject01_walk1_grf.xml")
    assert [s["name"] for s in r["stages"]] == ["scale", "marker IK", "inverse dynamics", "muscles"]
    assert r["model"].endswith("scaled.osim")
    assert "73/73 frames feasible" in r["stages"][3]["result"]
    ik = kt.read_mot(str(tmp_path / "day" / "ik.mot"))
    assert "knee_angle_r" in ik["columns"]


def test_gait_report_page(tmp_path):
    """scripts/plot_gait.py draws the page from a gait directory (skipped without matplotlib)."""
    pytest.importorskip("matplotlib")
    import pathlib
    import subprocess
    import sys
    d = shared_file("data/opensim/gait2354_walk/subject01_simbody.osim").rsplit("/", 1)[0] + "/"
    kt.gait(d + "subject01_simbody.osim", d + "subject01_walk1.trc", str(tmp_path / "day"),
            ik_setup=d + "subject01_Setup_IK.xml", loads=d + "subject01_walk1_grf.xml")
    script = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "plot_gait.py"
    png = tmp_path / "day.png"
    r = subprocess.run([sys.executable, str(script), str(tmp_path / "day"), str(png)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert png.stat().st_size > 10000
    r = subprocess.run([sys.executable, str(script), str(tmp_path), str(png)], capture_output=True, text=True)
    assert r.returncode == 2 and "no ik.mot" in r.stderr
