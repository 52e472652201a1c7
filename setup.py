"""Builds the kinetrack Python package with CMake: `pip install --no-build-isolation .`.

The package is python/kinetrack (pure Python, type stubs) plus what CMake builds: the extension
kinetrack._kinetrack and the `kinetrack` binary (kinetrack/bin/kinetrack, run by the `kinetrack`
script through kinetrack._cli). Both link the library statically; at run time they need only the
Debian libraries the CMake build found (docs/building.md lists them).

Environment:
  KINETRACK_BUILD_DIR  a CMake build directory to build in (and reuse): default build-python/ in
                       the checkout. Given an existing configured build (scripts/test.sh's build/),
                       the two targets are only brought up to date: nothing is compiled twice.
  KINETRACK_JOBS       parallel compile jobs (default: the number of CPUs).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version() -> str:
    with open(os.path.join(ROOT, "VERSION"), encoding="ascii") as f:
        return f.read().strip()


class CMakeExtension(Extension):
    def __init__(self, name: str):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures (once) and builds the CMake targets kinetrack_python and kinetrack_cli."""

    def run(self):
        build_dir = os.path.abspath(os.environ.get("KINETRACK_BUILD_DIR") or os.path.join(ROOT, "build-python"))
        jobs = os.environ.get("KINETRACK_JOBS") or str(os.cpu_count() or 1)
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                         "-DKINETRACK_BUILD_TESTS=OFF", "-DKINETRACK_BUILD_BENCH=OFF", "-DKINETRACK_PYTHON=ON",
                         f"-DPython_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                configure += ["-G", "Ninja"]
            launcher = subprocess.run([os.path.join(ROOT, "scripts", "ccache_launcher.sh")],
                                      capture_output=True, text=True).stdout.strip()
            if launcher:
                configure.append(launcher)
            self._run(configure)
        self._run(["cmake", "--build", build_dir, "-j", jobs, "--target", "kinetrack_python", "kinetrack_cli"])
        for ext in self.extensions:
            self._install(build_dir, ext)

    def _install(self, build_dir: str, ext: Extension) -> None:
        package_dir = os.path.join(build_dir, "python", "kinetrack")
        built = [f for f in os.listdir(package_dir) if f.startswith("_kinetrack") and f.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"{package_dir}: expected one _kinetrack*.so, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package_dir, built[0]), target)
        binary = os.path.join(build_dir, "apps", "cli", "kinetrack")
        bin_dir = os.path.join(os.path.dirname(target), "bin")
        os.makedirs(bin_dir, exist_ok=True)
        shutil.copy2(binary, os.path.join(bin_dir, "kinetrack"))

    @staticmethod
    def _run(cmd) -> None:
        print("setup.py:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


os.makedirs(os.path.join(ROOT, "build-python"), exist_ok=True)  # egg_base below
setup(
    version=version(),
    packages=["kinetrack"],
    package_dir={"kinetrack": "python/kinetrack"},
    package_data={"kinetrack": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("kinetrack._kinetrack")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    # setuptools' own work files out of CMake's build/ and out of the sources.
    options={"build": {"build_base": "build-python/setuptools"}, "egg_info": {"egg_base": "build-python"}},
)
