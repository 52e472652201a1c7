#!/usr/bin/env bash
# Installs every Debian package kinetrack needs to build, test and benchmark (idempotent:
# packages already present are skipped), then configures and builds into ./build.
# Usage: scripts/setup.sh [--no-build] [--build-type Release|Debug] [--sanitize] [--demo]
#                         [--target NAME]... [--quiet [--log FILE]]
#   Builds with Ninja, through ccache, linked by mold (docs/building.md: what each build costs
#   and why).
#   --sanitize     build-asan/: clang-14 with AddressSanitizer + UndefinedBehaviorSanitizer and
#                  libFuzzer's coverage (KINETRACK_FUZZ), so that the same build holds the test
#                  suite and the fuzz harnesses (ctest fuzz.smoke runs them; no third build)
#   --demo         only what `kinetrack demo` needs: no test/benchmark packages (GoogleTest,
#                  Google Benchmark, KDL, MuJoCo, DART, matplotlib, clang-format, Chromium, node/npm)
#                  and no Python module (pybind11, numpy, pytest), configured without tests,
#                  benchmarks, the module and the browser viewer's bundle (KINETRACK_VIEWER=OFF: no npm),
#                  and the binary with the demo and model commands only (KINETRACK_CLI_COMMANDS=demo:
#                  the tracking modules alone); a later full setup rebuilds it with every command
#   --target NAME  build only NAME (repeatable; default: everything, tests and benchmarks too)
#   --quiet        one line per stage and a build percentage instead of the tools' output, which
#                  goes to the log (default <build dir>/setup.log); its tail is shown on failure
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
build_type=Release
sanitize=OFF
build_dir=build
quiet=0
log=""
targets=()
demo=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --build-type) build_type="$2"; shift ;;
    --sanitize) sanitize=ON; build_type=Debug; build_dir=build-asan ;;
    --target) targets+=("$2"); shift ;;
    --demo) demo=1 ;;
    --quiet) quiet=1 ;;
    --log) log="$2"; shift ;;
    *) echo "setup.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

# Quiet mode: stage lines on stdout, everything the tools print appended to $log.
if [ "$quiet" -eq 1 ]; then
  log="${log:-$build_dir/setup.log}"
  mkdir -p "$(dirname "$log")"
  : >"$log"
fi
stage() { if [ "$quiet" -eq 1 ]; then echo "$*"; fi; }
# Runs a command, its output to the log in quiet mode; on failure shows the log's tail.
run() {
  if [ "$quiet" -eq 0 ]; then "$@"; return; fi
  if ! "$@" >>"$log" 2>&1; then fail; fi
}
fail() {
  echo "setup.sh: failed; the last lines of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
}
# Reads the build's output: appends it to the log and shows Ninja's "[N/M]" as a percentage on
# one line (rewritten in place on a terminal; otherwise a short line at every 20 % and the final one).
progress() {
  local line pct=0 shown=0 label="$1" start=$SECONDS
  if [ ! -t 1 ]; then echo "$label"; fi
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    if [ "$line" = "ninja: no work to do." ]; then
      pct=100
    elif [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      pct=$((100 * BASH_REMATCH[1] / BASH_REMATCH[2]))
      if [ -t 1 ]; then
        printf '\r%s %3d%% (%ds)' "$label" "$pct" $((SECONDS - start))
      elif [ "$pct" -lt 100 ] && [ $((pct / 20)) -gt "$shown" ]; then
        shown=$((pct / 20))
        printf '  %3d%% (%ds)\n' "$pct" $((SECONDS - start))
      fi
    fi
  done
  if [ -t 1 ]; then
    printf '\r%s %3d%% (%ds)\n' "$label" "$pct" $((SECONDS - start))
  else
    printf '  %3d%% (%ds): done\n' "$pct" $((SECONDS - start))
  fi
}

# What the library and the `kinetrack` binary need to build and run (the demo).
packages=(
  build-essential cmake pkg-config git ninja-build mold
  libeigen3-dev liburdfdom-dev libtinyxml2-dev libconsole-bridge-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev libboost-dev
  coinor-libipopt-dev libglpk-dev
  ccache
)
# Tests, benchmarks and their oracles (KDL, MuJoCo and DART: peers of our rigid-body dynamics; DART's
# URDF loader is the separate libdart-utils-urdf-dev), the plots, the format check, and the Python
# module with its pytest suite (for Debian's /usr/bin/python3: headers, pybind11, numpy, pytest).
if [ "$demo" -eq 0 ]; then
  packages+=(
    libgtest-dev libgmock-dev googletest libbenchmark-dev
    liborocos-kdl-dev
    libmujoco-dev libdart-dev libdart-utils-urdf-dev
    python3 python3-matplotlib
    python3-dev python3-pybind11 python3-numpy python3-pytest
    # `pip install .` / `pip wheel .` without an index (tests/packaging/wheel_test.sh).
    python3-pip python3-setuptools python3-wheel python3-venv
    clang-format-14
    # Headless Chromium for the browser viewer's tests (web/, `kinetrack view`).
    chromium
    libopenmpi-dev openmpi-bin
    # libFuzzer harnesses of the readers (fuzz/, scripts/fuzz.sh; ctest fuzz.smoke): clang-14 and
    # its runtime libraries (libclang_rt.fuzzer).
    clang-14 libclang-common-14-dev
  )
  # The viewer is bundled at build time with npm (lock file). Debian's nodejs and npm packages,
  # unless a Node.js with its own npm is already installed (NodeSource's nodejs bundles npm and
  # conflicts with Debian's npm package).
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$quiet" -eq 1 ]; then
    stage "[1/3] installing ${#missing[@]} packages (${missing[*]})…"
  else
    echo "setup.sh: installing ${missing[*]}"
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  run $SUDO apt-get update
  run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
else
  stage "[1/3] packages: all installed"
fi

if [ "$build" -eq 1 ]; then
  stage "[2/3] configuring ($build_type)…"
  with_tests=ON
  if [ "$demo" -eq 1 ]; then with_tests=OFF; fi
  # The module is loaded by /usr/bin/python3, which is not built with the sanitizers' runtime.
  with_python="$with_tests"
  if [ "$sanitize" = ON ]; then with_python=OFF; fi
  # The browser viewer is bundled with npm (npm ci + esbuild) for the tests and the full build;
  # the demo does not need it (scripts/demo.sh): no npm run there.
  with_viewer="$with_tests"
  # The sanitizer build is for the test suite: no benchmarks (timings under ASan mean nothing).
  with_bench="$with_tests"
  if [ "$sanitize" = ON ]; then with_bench=OFF; fi
  commands=all
  if [ "$demo" -eq 1 ]; then commands=demo; fi
  # The sanitizer build is clang-14's, with libFuzzer's coverage: the suite and the fuzz harnesses
  # (ctest fuzz.smoke) from one build.
  compiler=()
  launcher_args=()
  if [ "$sanitize" = ON ]; then
    compiler=(-DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 -DKINETRACK_FUZZ=ON)
    launcher_args=(--fuzz)
  fi
  launcher=()  # ccache, with paths relative to the checkout (scripts/ccache_launcher.sh)
  l=$(scripts/ccache_launcher.sh "${launcher_args[@]}") && [ -n "$l" ] && launcher=("$l")
  # A build directory made by another generator (Unix Makefiles before Ninja) is configured anew.
  if [ -f "$build_dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build_dir/CMakeCache.txt"; then
    rm -rf "$build_dir/CMakeCache.txt" "$build_dir/CMakeFiles"
  fi
  run cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DKINETRACK_SANITIZE="$sanitize" \
    -DKINETRACK_BUILD_TESTS="$with_tests" -DKINETRACK_BUILD_BENCH="$with_bench" -DKINETRACK_PYTHON="$with_python" \
    -DKINETRACK_VIEWER="$with_viewer" -DKINETRACK_CLI_COMMANDS="$commands" "${compiler[@]}" "${launcher[@]}"
  build_args=(--build "$build_dir" -j "$(nproc)")
  what="kinetrack"
  if [ "$with_tests" = ON ]; then what="kinetrack, tests"; fi
  if [ "$with_bench" = ON ]; then what="$what, benchmarks"; fi
  if [ "$with_python" = ON ]; then what="$what and the Python module"; fi
  if [ "$sanitize" = ON ]; then what="$what and the fuzz harnesses"; fi
  if [ ${#targets[@]} -gt 0 ]; then
    build_args+=(--target "${targets[@]}")
    what="${targets[*]}"
    if [ "$demo" -eq 1 ] && [ "$what" = kinetrack_cli ]; then what="the kinetrack binary (demo and model commands)"; fi
  fi
  if [ "$quiet" -eq 0 ]; then
    cmake "${build_args[@]}"
  elif ! cmake "${build_args[@]}" 2>&1 | progress "[3/3] building $what…"; then
    fail
  fi
fi
