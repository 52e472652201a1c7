"""The experiments module from Python: the same CSV files and tables as `kinetrack experiment …`,
and the result's rows as data."""
import csv
import subprocess

import numpy as np

import kinetrack as kt
from conftest import shared_file


def run_cli(cli, *args):
    return subprocess.run([cli, "experiment", *args], check=True, capture_output=True, text=True).stdout


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_pindrag_is_the_cli_experiment(cli, tmp_path):
    printed = run_cli(cli, "pindrag", "--out", str(tmp_path / "cli"), "--no-plot")
    r = kt.experiments.pindrag(str(tmp_path / "py"))
    assert (tmp_path / "cli" / "pindrag.csv").read_bytes() == (tmp_path / "py" / "pindrag.csv").read_bytes()
    assert printed == r["summary"].replace(str(tmp_path / "py"), str(tmp_path / "cli"))
    assert [p["phase"] for p in r["phases"]] == ["circle", "switch", "beyond"]
    assert all(p["finite"] for p in r["phases"])
    rows = read_csv(tmp_path / "py" / "pindrag.csv")
    assert len(rows) == len(r["steps"]) == 1000
    assert rows[-1]["phase"] == r["steps"][-1]["phase"] == "beyond"


def test_convergence_is_the_cli_experiment(cli, tmp_path):
    args = ["--gains", "0,5,250", "--duration", "0.5"]
    printed = run_cli(cli, "convergence", "--out", str(tmp_path / "cli"), "--no-plot", *args)
    r = kt.experiments.convergence(str(tmp_path / "py"), gains=[0, 5, 250], duration=0.5)
    assert (tmp_path / "cli" / "convergence.csv").read_bytes() == (tmp_path / "py" / "convergence.csv").read_bytes()
    assert "UNSTABLE" in r["summary"]  # K*dt = 2.5 at 100 Hz
    # The CLI prints the same text, then the time it took.
    assert printed.startswith(r["summary"].replace(str(tmp_path / "py"), str(tmp_path / "cli")))
    assert [g["gain"] for g in r["runs"]] == [0, 5, 250]
    mnte = r["runs"][1]["mnte"]
    assert isinstance(mnte, np.ndarray) and mnte.shape == (51,) and mnte[-1] < mnte[0]
    assert r["runs"][2]["unstable_gain"] and not r["runs"][1]["unstable_gain"]


def test_assembly_counts_are_the_cli_experiment(cli, tmp_path):
    args = ["--max-links", "16", "--batches", "3", "--batch-ms", "1"]
    run_cli(cli, "assembly", "--out", str(tmp_path / "cli"), "--no-plot", *args)
    r = kt.experiments.assembly(str(tmp_path / "py"), max_links=16, batches=3, batch_ms=1.0)
    a, b = read_csv(tmp_path / "cli" / "assembly.csv"), read_csv(tmp_path / "py" / "assembly.csv")
    timed = {"time_us", "aba_us"}  # measured: differ between runs
    assert [{k: v for k, v in x.items() if k not in timed} for x in a] == \
        [{k: v for k, v in x.items() if k not in timed} for x in b]
    assert len(r["rows"]) == len(b) == (2 + 3) * 2 * 2
    assert [int(x["height"]) for x in b] == [x["height"] for x in r["rows"]]
    assert "on a bar" in r["summary"]


def test_labelling_experiment_selected_run(tmp_path):
    shared_file("data/opensim/gait2354_walk/subject01_walk1.trc")
    r = kt.experiments.labelling(str(tmp_path), data=str(shared_file("data")), only=["gait2354 walk: clean"])
    rows = (tmp_path / "labelling.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("gait2354 walk,clean,")
    assert len(r["runs"]) == 1 and r["runs"][0]["scenario"] == "clean" and r["runs"][0]["accuracy"] == 1.0
    assert "goals:" in r["summary"]
    run = r["runs"][0]
    assert run["held_out"] is False and run["wrong_labels"] == run["wrong_flagged"] + run["wrong_silent"] == 0
    # labelling_markers.csv: a row per marker of the run, as the dict's "markers".
    markers = (tmp_path / "labelling_markers.csv").read_text().splitlines()
    assert markers[0].startswith("trial,scenario,seed,held_out,marker,present,correct,wrong,missed,accuracy,")
    assert len(markers) - 1 == len(r["markers"]) == 31
    assert sum(m["correct"] for m in r["markers"]) == sum(m["present"] for m in r["markers"])


def test_sparse_is_the_cli_experiment(cli, tmp_path):
    data = str(shared_file("data"))
    printed = run_cli(cli, "sparse", "--out", str(tmp_path / "cli"), "--data", data, "--no-plot")
    r = kt.experiments.sparse(str(tmp_path / "py"), data=data)
    a, b = read_csv(tmp_path / "cli" / "sparse.csv"), read_csv(tmp_path / "py" / "sparse.csv")
    untimed = lambda rows: [{k: v for k, v in x.items() if k != "frame_us"} for x in rows]  # noqa: E731
    assert untimed(a) == untimed(b) and len(r["rows"]) == len(b)
    assert {x["method"] for x in r["rows"]} == {"LN", "GP", "DYN", "DYN+GP"}
    assert [x["subject"] for x in r["rows"]] == [x["subject"] for x in b]
    assert "mean over subjects" in r["summary"] and "mean over subjects" in printed


def test_mapping_is_the_cli_experiment(cli, tmp_path):
    shared_file("data/opensim/gait2354_walk/subject01_simbody.osim")
    printed = run_cli(cli, "mapping", "--out", str(tmp_path / "cli"), "--no-plot")
    r = kt.experiments.mapping(str(tmp_path / "py"))
    for name in ["mapping_error.csv", "mapping_coordinates.csv", "mapping_series.csv", "mapping_pairs.csv",
                 "mapping_clips.csv", "mapping_roundtrip.csv"]:
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    assert printed == r["summary"].replace(str(tmp_path / "py"), str(tmp_path / "cli"))
    error = read_csv(tmp_path / "py" / "mapping_error.csv")
    assert len(r["error"]) == len(error) and r["error"][0]["direction"] == "human->model"
    assert {c["role"] for c in r["clips"]} == {"train", "test"}
