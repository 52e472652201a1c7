#!/usr/bin/env bash
# The Debian package of what BUILD_DIR built and installs (`cpack -G DEB`, nothing compiled), then
# its file list and declared dependencies read with dpkg-deb, and the package installed with dpkg
# into a scratch root (its own dpkg database), where `kinetrack demo` runs and the Python module
# imports from the package's files.
# Usage: deb_test.sh BUILD_DIR PYTHON
set -euo pipefail
build_dir="$(cd "$1" && pwd)"; python="$2"
src_dir="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(cat "$src_dir/VERSION")"
for tool in cpack dpkg-deb dpkg dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "deb_test.sh: skipped: no $tool (dpkg-dev)"; exit 77; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; exit 1; }
deb="$work/out/kinetrack_${version}_amd64.deb"
[ -f "$deb" ] || { echo "deb_test.sh: no $(basename "$deb"); cpack made: $(ls "$work/out")" >&2; cat "$work/cpack.log"; exit 1; }
echo "built $(basename "$deb") ($(du -k "$deb" | cut -f1) kB)"

# The file list: the CLI, the libraries, the headers, the CMake config, the module, the viewer.
dpkg-deb -c "$deb" | awk '{print $6}' > "$work/files"
check_file() {
  grep -Eq "$1" "$work/files" || { echo "deb_test.sh: no file matching $1 in the package" >&2; exit 1; }
}
check_file '^\./usr/bin/kinetrack$'
check_file '^\./usr/lib/(x86_64-linux-gnu/)?libkinetrack_core\.a$'
check_file '^\./usr/lib/(x86_64-linux-gnu/)?libkinetrack_track\.a$'
check_file '^\./usr/include/kinetrack/version\.hpp$'
check_file '^\./usr/include/kinetrack/ik/dynamical_ik\.hpp$'
check_file '^\./usr/lib/(x86_64-linux-gnu/)?cmake/kinetrack/kinetrackConfig\.cmake$'
check_file '^\./usr/lib/python3[.0-9]*/dist-packages/kinetrack/_kinetrack.*\.so$'
check_file '^\./usr/lib/python3[.0-9]*/dist-packages/kinetrack/__init__\.pyi$'
check_file '^\./usr/share/kinetrack/viewer/index\.html$'
echo "files: $(wc -l < "$work/files") entries (binary, libraries, headers, CMake config, Python module, viewer)"

# The declared dependencies: what dpkg-shlibdeps read off the binaries, and Python's.
depends="$(dpkg-deb -f "$deb" Depends)"
for dep in libipopt liburdfdom-model libtinyxml2 libglpk libfmt 'python3 (>=' python3-numpy libc6 libstdc++6; do
  case "$depends" in
    *"$dep"*) ;;
    *) echo "deb_test.sh: Depends lacks $dep: $depends" >&2; exit 1 ;;
  esac
done
echo "Depends: $depends"

# Installed into a scratch root with its own dpkg database (the host's packages are outside it,
# hence --force-depends; the binaries find the host's libraries).
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status"
force=(--force-depends --force-script-chrootless)
if [ "$(id -u)" -ne 0 ]; then force+=(--force-not-root); fi
dpkg --root="$root" --log=/dev/null "${force[@]}" -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; exit 1; }
dpkg --root="$root" -s kinetrack | grep -q '^Status: install ok installed$'
"$root/usr/bin/kinetrack" --version | grep -qx "kinetrack $version"
"$root/usr/bin/kinetrack" demo --duration 3 > "$work/demo.log" || { cat "$work/demo.log"; exit 1; }
grep 'check:' "$work/demo.log"
site=("$root"/usr/lib/python3*/dist-packages)
(cd "$work" && PYTHONPATH="${site[0]}" "$python" -c '
import sys, kinetrack
assert kinetrack.__file__.startswith(sys.argv[1]), kinetrack.__file__
print("import kinetrack", kinetrack.__version__, "from the package:", kinetrack.Model.human66())
' "$root")
