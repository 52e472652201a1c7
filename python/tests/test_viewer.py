"""write_viewer(): the browser viewer directory of a tracked result equals `kinetrack view`'s;
the pelvis positions in data.js are the joint CSV's base positions; bad input raises."""
import base64
import json
import subprocess

import numpy as np
import pytest

import kinetrack as kt
from conftest import cli_rows, shared_file

BVH = "data/bvh/bandai/dataset-2_walk-turn-left_normal_001.bvh"


DTYPES = {"f32": "<f4", "f64": "<f8", "u8": "u1", "u16": "<u2", "u32": "<u4"}


def load_script(path, head_var, blob_var):
    """A viewer script: the JSON header with its binary arrays decoded into it (numpy)."""
    head_line, blob_line = path.read_text().splitlines()
    prefix, blob_prefix = f"window.{head_var} = ", f"window.{blob_var} = "
    assert head_line.startswith(prefix) and blob_line.startswith(blob_prefix)
    head = json.loads(head_line[len(prefix):].rstrip(";"))
    blob = base64.b64decode(json.loads(blob_line[len(blob_prefix):].rstrip(";")))
    assert len(blob) == head["blob_bytes"]
    for name, a in head["arrays"].items():
        head[name] = np.frombuffer(blob, dtype=DTYPES[a["type"]], count=a["length"], offset=a["offset"])
    return head


def load_data(directory):
    return load_script(directory / "data.js", "KINETRACK_DATA", "KINETRACK_BLOB")


@pytest.fixture(scope="module")
def tracked(cli, tmp_path_factory):
    clip = shared_file(BVH)
    out = tmp_path_factory.mktemp("viewer") / "q.csv"
    rows = cli_rows(cli, ["track", "--model", "human66", "--input", clip], out)
    return clip, out, rows


def test_write_viewer_equals_the_cli(cli, tmp_path, human66, tracked):
    if not kt.viewer_bundled():
        pytest.skip("the viewer was not bundled (no node/npm at build time)")
    clip, csv, rows = tracked
    summary = kt.write_viewer(human66, str(csv), str(tmp_path / "py"), input=clip)
    subprocess.run([cli, "view", "--model", "human66", "--result", str(csv), "--input", clip,
                    "--out", str(tmp_path / "cli"), "--quiet"], check=True, capture_output=True)
    for name in ["index.html", "viewer.js", "data.js", "meshes.js"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert summary["frames"] == rows.shape[0] == 102 and summary["links"] == human66.num_links
    assert summary["error_unit"] == "deg" and 0 <= summary["error_p95"] <= summary["error_max"]
    data = load_data(tmp_path / "py")
    links = len(data["model"]["links"])
    positions = np.array(data["positions"]).reshape(rows.shape[0], links, 3)
    # The root link's origin is the base position (columns 1-3), as float32.
    np.testing.assert_allclose(positions[:, 0, :], rows[:, 1:4], rtol=0, atol=1e-5)
    # Orientations are unit quaternions (x, y, z, w).
    quats = np.array(data["orientations"]).reshape(rows.shape[0], links, 4)
    np.testing.assert_allclose(np.linalg.norm(quats, axis=2), 1.0, atol=1e-6)
    np.testing.assert_allclose(data["times"], rows[:, 0], rtol=0, atol=1e-6)


def test_write_viewer_rejects_a_result_of_another_model(tmp_path, human48, tracked):
    _, csv, _ = tracked
    with pytest.raises(ValueError, match="q.csv"):
        kt.write_viewer(human48, str(csv), str(tmp_path / "v"))
    with pytest.raises(kt.ParseError, match="missing.csv"):
        kt.write_viewer(human48, str(tmp_path / "missing.csv"), str(tmp_path / "v"))


def test_write_viewer_takes_a_track_result(tmp_path, human66):
    """The result in memory gives the same data.js as its joint CSV."""
    clip = shared_file("data/bvh/bandai/dataset-2_walk_normal_001.bvh")
    result = kt.track(human66, clip, out=str(tmp_path / "q.csv"))
    if not kt.viewer_bundled():
        pytest.skip("viewer not bundled")
    kt.write_viewer(human66, str(tmp_path / "q.csv"), str(tmp_path / "a"), input=clip)
    kt.write_viewer(human66, result, str(tmp_path / "b"), input=clip)
    a = (tmp_path / "a" / "data.js").read_text()
    b = (tmp_path / "b" / "data.js").read_text()
    assert '"result":"TrackResult"' in b  # the only difference: where the result came from
    assert a.replace('"result":"q.csv"', '"result":"TrackResult"') == b


def test_write_viewer_draws_an_opensim_walk_with_its_layers(cli, tmp_path):
    """gait2354 walking from OpenSim's IK: bones, muscles, markers and ground reactions, as the CLI."""
    if not kt.viewer_bundled():
        pytest.skip("viewer not bundled")
    gait = "data/opensim/gait2354_walk/"
    osim, mot = shared_file(gait + "subject01_simbody.osim"), shared_file(gait + "subject01_walk1_ik_REFERENCE.mot")
    trc, grf = shared_file(gait + "subject01_walk1.trc"), shared_file(gait + "subject01_walk1_grf.xml")
    model = kt.Model.load(osim)
    summary = kt.write_viewer(model, mot, str(tmp_path / "py"), model_file=osim, markers=trc, loads=grf)
    subprocess.run([cli, "view", "--model", osim, "--result", mot, "--markers", trc, "--loads", grf,
                    "--out", str(tmp_path / "cli"), "--quiet"], check=True, capture_output=True)
    for name in ["data.js", "meshes.js"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert summary["frames"] == 73 and summary["geoms"] == 19 and summary["notes"] == []
    assert summary["muscles"] == 54 and summary["forces"] == 2 and summary["markers"] == 41
    assert summary["marker_rms_error"] < 0.04
    data = load_data(tmp_path / "py")
    assert data["model"]["up"] == [0.0, 1.0, 0.0]
    # Vertical ground reaction of the right foot: up (+y), at most about body weight and a half.
    force = np.array(data["forces.force"]).reshape(73, 2, 3)
    assert np.nanmax(force[:, 0, 1]) > 500 and np.nanmax(np.abs(force)) < 1500
    geometry = load_script(tmp_path / "py" / "meshes.js", "KINETRACK_GEOMETRY", "KINETRACK_GEOMETRY_BLOB")
    assert len(geometry["geoms"]) == 19 and all(g["shape"] == "mesh" for g in geometry["geoms"])
