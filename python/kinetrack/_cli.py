"""The `kinetrack` command of a pip-installed package: runs the C++ binary shipped in the wheel.

`pip install .` puts the `kinetrack` binary (the same one CMake builds as apps/cli) beside the
extension, in kinetrack/bin/, and a `kinetrack` script on PATH that calls main() here.
"""
import os
import sys


def binary_path() -> str:
    """The path of the bundled `kinetrack` binary (FileNotFoundError when the package has none)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "kinetrack")
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(
            f"{path}: this kinetrack package has no bundled binary (it is the build tree's; "
            "run build/apps/cli/kinetrack, or install with `pip install .`)")
    return path


def main() -> None:
    try:
        path = binary_path()
    except FileNotFoundError as e:
        print(f"kinetrack: error: {e}", file=sys.stderr)
        sys.exit(1)
    os.execv(path, [path] + sys.argv[1:])


if __name__ == "__main__":
    main()
