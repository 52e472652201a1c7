"""Shared fixtures of the kinetrack pytest suite (run by ctest as python.pytest, PYTHONPATH set to
the built package; or by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import kinetrack as kt

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
TEST_DATA = ROOT / "tests" / "data"


def shared_file(relative):
    """A file of ../shared, or skip the test when ../shared is absent (as the C++ tests do)."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} not found (../shared absent)")
    return str(path)


@pytest.fixture(scope="session")
def cli():
    """The kinetrack binary of the same build (KINETRACK_CLI, set by ctest)."""
    path = os.environ.get("KINETRACK_CLI", str(ROOT / "build" / "apps" / "cli" / "kinetrack"))
    if not os.path.exists(path):
        pytest.skip(f"kinetrack CLI not found at {path}")
    return path


@pytest.fixture(scope="session")
def human66():
    return kt.Model.human66()


@pytest.fixture(scope="session")
def human48():
    return kt.Model.human48()


def cli_rows(cli, args, out):
    """Runs `kinetrack ARGS --out OUT --quiet` and returns the joint CSV's rows (time, q, gap)."""
    subprocess.run([cli, *args, "--out", str(out), "--quiet"], check=True, capture_output=True)
    return np.loadtxt(out, delimiter=",", skiprows=1)
