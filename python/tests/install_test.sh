#!/usr/bin/env bash
# The documented install (cmake --install BUILD --component python) into a temporary prefix, then
# `import kinetrack` from outside the source tree with that prefix's package directory on the path.
# Usage: install_test.sh BUILD_DIR PYTHON PACKAGE_DIR_RELATIVE_TO_PREFIX
set -euo pipefail
build_dir="$1"; python="$2"; rel="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --component python --prefix "$work/prefix" >/dev/null
cd "$work"
PYTHONPATH="$work/prefix/$rel" "$python" -c '
import kinetrack, sys
assert kinetrack.__file__.startswith(sys.argv[1]), kinetrack.__file__
m = kinetrack.Model.human66()
print("installed kinetrack imports:", m)
' "$work/prefix/$rel"
