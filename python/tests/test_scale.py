"""kt.scale is `kinetrack scale` (app::runScale): OpenSim's Scale tool on gait2354's generic model,
Setup_Scale.xml and static trial gives OpenSim's factors (subject01_simbody.osim) and the same
scaled model as the CLI; a setup naming a marker the trial lacks fails naming its file and line."""
import os
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import shared_file

WALK = "data/opensim/gait2354_walk/"

# OpenSim's factors for subject01 (the geometry scale_factors of subject01_simbody.osim, 6 digits).
OPENSIM = {"pelvis": 1.02458, "femur_r": 1.14724, "tibia_r": 0.988523, "talus_r": 1.11398,
           "calcn_r": 1.02708, "toes_r": 1.02708, "torso": 1.07972}


def gait_files():
    return (shared_file(WALK + "gait2354_simbody_GENERIC.osim"), shared_file(WALK + "subject01_Setup_Scale.xml"),
            shared_file(WALK + "subject01_static.trc"))


def test_scale_gives_opensims_factors_and_the_clis_model(cli, tmp_path):
    model, setup, static = gait_files()
    out = tmp_path / "s01.osim"
    r = kt.scale(model=model, setup=setup, markers=static, out=str(out), static_pose=str(tmp_path / "static.mot"))
    assert r["path"] == str(out) and out.exists()
    for body, factor in OPENSIM.items():
        np.testing.assert_allclose(r["factors"][body], [factor] * 3, atol=5e-6)
    assert r["measurements"]["thigh"]["factor"] == pytest.approx(1.07063, abs=1e-5)
    assert r["mass_after"] == pytest.approx(72.6)
    assert len(r["muscle_length_ratios"]) == 54
    assert r["static_pose"]["columns"][0] == "pelvis_tilt"
    assert 0.0 < r["static_rms_error"] < 0.05
    assert any("patella_r" in w for w in r["warnings"])  # ignored, as OpenSim does
    # The CLI runs the same job: the same model, byte for byte.
    cli_out = tmp_path / "cli.osim"
    p = subprocess.run([cli, "scale", "--setup", setup, "--model", model, "--markers", static, "--out", str(cli_out),
                        "--static-pose", str(tmp_path / "cli.mot"), "--quiet"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "femur_r  1.1472  1.1472  1.1472" in p.stdout
    assert cli_out.read_bytes() == out.read_bytes()
    assert r["osim"] == out.read_text()


def test_scale_errors_name_the_setup_line(tmp_path):
    model, setup, static = gait_files()
    text = open(setup).read().replace("<markers> V.Sacral Top.Head </markers>", "<markers> V.Sacral XYZ </markers>")
    broken = tmp_path / "Setup_Scale.xml"
    broken.write_text(text)
    line = text[:text.index("V.Sacral XYZ")].count("\n") + 1
    with pytest.raises(kt.ParseError) as e:
        kt.scale(model=model, setup=str(broken), markers=static,
                 marker_set=shared_file(WALK + "gait2354_Scale_MarkerSet.xml"))
    assert e.value.line == line
    assert "Measurement 'torso': marker 'XYZ' is not a marker of the model" in str(e.value)
    with pytest.raises(ValueError):
        kt.scale(model=model, setup="")  # no setup
    assert not os.path.exists(tmp_path / "subject01_simbody.osim")  # the setup's outputs are not written
