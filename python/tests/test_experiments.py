"""The experiments module from Python: the same CSV files and tables as `kinetrack experiment …`."""
import subprocess

import kinetrack as kt
from conftest import shared_file


def test_pindrag_is_the_cli_experiment(cli, tmp_path):
    subprocess.run([cli, "experiment", "pindrag", "--out", str(tmp_path / "cli"), "--no-plot"], check=True,
                   capture_output=True)
    text = kt.experiments.pindrag(str(tmp_path / "py"))
    assert (tmp_path / "cli" / "pindrag.csv").read_bytes() == (tmp_path / "py" / "pindrag.csv").read_bytes()
    assert "pin-and-drag IK on human66" in text and "circle" in text and "beyond" in text


def test_labelling_experiment_selected_run(tmp_path):
    shared_file("data/opensim/gait2354_walk/subject01_walk1.trc")
    text = kt.experiments.labelling(str(tmp_path), data=str(shared_file("data")), only=["gait2354 walk: clean"])
    rows = (tmp_path / "labelling.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[1].startswith("gait2354 walk,clean,")
    assert "goals:" in text


def test_convergence_is_the_cli_experiment(cli, tmp_path):
    args = ["--gains", "0,5,250", "--duration", "0.5"]
    subprocess.run([cli, "experiment", "convergence", "--out", str(tmp_path / "cli"), "--no-plot", *args], check=True,
                   capture_output=True)
    text = kt.experiments.convergence(str(tmp_path / "py"), gains=[0, 5, 250], duration=0.5)
    assert (tmp_path / "cli" / "convergence.csv").read_bytes() == (tmp_path / "py" / "convergence.csv").read_bytes()
    assert "UNSTABLE" in text  # K*dt = 2.5 at 100 Hz
