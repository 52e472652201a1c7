#!/usr/bin/env bash
# `python3 -m pip wheel .` from the checkout, reusing BUILD_DIR (KINETRACK_BUILD_DIR: its targets
# are up to date, so nothing is compiled), then the wheel installed into a temporary directory and
# used from outside the tree: `import kinetrack`, the stubs, the `kinetrack` script (same version
# as the VERSION file), and every shared library the extension and the binary load owned by a
# Debian package (what another machine with the same packages needs).
# Usage: wheel_test.sh BUILD_DIR PYTHON
set -euo pipefail
build_dir="$(cd "$1" && pwd)"; python="$2"
src_dir="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(cat "$src_dir/VERSION")"
if ! "$python" -c 'import setuptools, wheel, pip' 2>/dev/null; then
  echo "wheel_test.sh: skipped: $python lacks pip, setuptools or wheel (scripts/setup.sh installs python3-pip, python3-setuptools, python3-wheel)"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$src_dir"
# -v: pip shows the build backend's output (setup.py's cmake --build), which must find nothing to do.
KINETRACK_BUILD_DIR="$build_dir" "$python" -m pip wheel . -v --no-build-isolation --no-deps --no-index -w "$work/dist" \
  > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; exit 1; }
if grep -E '(Building|Linking) CXX' "$work/wheel.log" || ! grep -q 'ninja: no work to do' "$work/wheel.log"; then
  echo "wheel_test.sh: the wheel's build compiled or linked something: it must pack what $build_dir built" >&2
  grep -E 'setup.py:|ninja' "$work/wheel.log" >&2
  exit 1
fi
wheel=("$work"/dist/kinetrack-"$version"-cp3*-linux_x86_64.whl)
[ -f "${wheel[0]}" ] || { echo "wheel_test.sh: no kinetrack-$version wheel in $work/dist: $(ls "$work/dist")" >&2; exit 1; }
echo "built $(basename "${wheel[0]}") ($(du -k "${wheel[0]}" | cut -f1) kB)"
"$python" - "${wheel[0]}" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["kinetrack/__init__.py", "kinetrack/__init__.pyi", "kinetrack/py.typed", "kinetrack/_cli.py", "kinetrack/bin/kinetrack"]
missing = [n for n in need if n not in names]
ext = [n for n in names if n.startswith("kinetrack/_kinetrack") and n.endswith(".so")]
assert not missing and len(ext) == 1, (missing, ext)
assert any(n.endswith("entry_points.txt") for n in names)
print("wheel holds", len(names), "files: the extension", ext[0], "the stubs, the binary and the entry point")
PY
"$python" -m pip install --no-deps --no-index -q --target "$work/site" "${wheel[0]}"
cd "$work"
PYTHONPATH="$work/site" "$python" -c '
import sys, kinetrack
assert kinetrack.__file__.startswith(sys.argv[1]), kinetrack.__file__
assert kinetrack.__version__ == sys.argv[2], kinetrack.__version__
m = kinetrack.Model.human66()
print("import kinetrack", kinetrack.__version__, "from", kinetrack.__file__, ":", m)
' "$work/site" "$version"
out="$(PYTHONPATH="$work/site" "$work/site/bin/kinetrack" --version)"
[ "$out" = "kinetrack $version" ] || { echo "wheel_test.sh: kinetrack --version printed '$out'" >&2; exit 1; }
echo "the kinetrack script: $out"
for f in "$work"/site/kinetrack/_kinetrack*.so "$work/site/kinetrack/bin/kinetrack"; do
  ldd "$f" | awk '/=>/ {print $3}' | while read -r lib; do
    [ -n "$lib" ] || continue
    if ! dpkg -S "$(readlink -f "$lib")" >/dev/null 2>&1 && ! dpkg -S "$lib" >/dev/null 2>&1; then
      echo "wheel_test.sh: $(basename "$f") loads $lib, which no Debian package owns" >&2; exit 1
    fi
  done
  if ldd "$f" | grep -q 'not found'; then ldd "$f" >&2; exit 1; fi
done
echo "every shared library of the extension and the binary comes from a Debian package"
